#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/driver/tables_test.py
# -----------------------------------------------------------------------------
#
# tables.py on small records: grouping in first-seen order, medians and
# figures with their "-", ratios, padded columns, and the paired summary's
# pairs and metrics in the order the three drivers print them.

from __future__ import annotations

import unittest
from typing import Any, Optional

from servers.driver import side_by_side
from servers.driver import tables


class FormatTest(unittest.TestCase):
    def test_group_keeps_first_seen_order(self) -> None:
        got = tables.group([("b", 1), ("a", 2), ("b", 3)], lambda r: r[0])
        self.assertEqual(list(got), ["b", "a"])
        self.assertEqual(got["b"], [("b", 1), ("b", 3)])
        self.assertEqual(tables.group([], lambda r: r), {})

    def test_median_and_ratio(self) -> None:
        self.assertEqual(tables.median([3.0, 5.0]), 4.0)
        self.assertEqual(tables.median(x for x in (1.0, 9.0, 2.0)), 2.0)
        self.assertIsNone(tables.median([]))
        self.assertEqual(tables.fmt_ratio(tables.ratio(3.0, 2.0)), "1.50x")
        self.assertEqual(tables.fmt_ratio(tables.ratio(None, 2.0)), "-")
        self.assertEqual(tables.fmt_ratio(tables.ratio(3.0, 0)), "-")
        self.assertIsNone(tables.ratio(0.0, 2.0))

    def test_fmt(self) -> None:
        self.assertEqual(tables.fmt(1234.5, ",.0f"), "1,234")
        self.assertEqual(tables.fmt(0.12345, ".3f"), "0.123")
        self.assertEqual(tables.fmt(None, ".3f"), "-")

    def test_aligned(self) -> None:
        rows = [["A/B", "every", "x"], ["long/b", "1", "22"]]
        self.assertEqual(tables.aligned(rows),
                         ["   A/B  every   x", "long/b      1  22"])
        self.assertEqual(tables.aligned(rows, left=1),
                         ["A/B     every   x", "long/b      1  22"])
        self.assertEqual(tables.aligned([]), [])


def rec(server: str, point: int, v: float, ok: bool = True
        ) -> dict[str, Any]:
    return dict(server=server, point=point, v=v, w=2 * v, ok=ok,
                client_bound=False)


def value(r: side_by_side.Record, key: str) -> Optional[float]:
    v = r.get(key)
    return float(v) if isinstance(v, (int, float)) else None


PAIRED = tables.Paired(metrics=(("v", "vee"), ("w", "double-u")),
                       lower_better=frozenset({"w"}),
                       point=lambda r: int(r["point"]), value=value,
                       intro="intro", bound="bound")


class PairedTest(unittest.TestCase):
    def setUp(self) -> None:
        self.recs = [rec(s, n, v * (n + 1)) for n in range(8)
                     for s, v in (("a", 2.0), ("b", 1.0), ("c", 4.0))]

    def test_metric_then_pair(self) -> None:
        got = PAIRED.compare(self.recs, [("a", "b"), ("c", "b")])
        self.assertEqual([(r.metric, r.a, r.b) for r in got],
                         [("v", "a", "b"), ("v", "c", "b"),
                          ("w", "a", "b"), ("w", "c", "b")])
        self.assertEqual([r.lower_better for r in got],
                         [False, False, True, True])
        self.assertAlmostEqual(got[0].every.ratio, 2.0)
        self.assertEqual(got[0].every.n, 8)
        self.assertEqual(got[0].margin, side_by_side.MARGIN)
        self.assertEqual(PAIRED.compare(self.recs, [], 0.1), [])

    def test_a_failed_run_drops_its_point(self) -> None:
        self.recs[0] = rec("a", 0, 2.0, ok=False)
        got = PAIRED.compare(self.recs, iter([("a", "b")]), 0.1)
        self.assertEqual(got[0].every.n, 7)
        self.assertEqual(got[0].margin, 0.1)

    def test_lines_are_side_by_sides(self) -> None:
        rows = PAIRED.compare(self.recs, [("a", "b")])
        self.assertEqual(PAIRED.lines(rows),
                         side_by_side.summary_lines(
                             rows, {"v": "vee", "w": "double-u"}, "intro",
                             "bound"))
        self.assertEqual(PAIRED.lines(rows)[1], "intro")
        self.assertEqual(PAIRED.lines([]), [])


if __name__ == "__main__":
    unittest.main()

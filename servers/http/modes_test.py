#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/http/modes_test.py
# -----------------------------------------------------------------------------
#
# servers.http.modes without servers: the flags (--sched read as the
# sweeps' --latency_sched, a refusal of fifo an error) and the table of
# each side's median p99 and the per-round ratios, from hand-made points;
# a run's progress line gives the rate alone where there is no fraction.

import contextlib
import io
import unittest
from unittest import mock
from typing import Any

from servers.driver import latency_point, procs
from servers.http import modes

BASE = ["--server=s", "--loadgen=g"]


def point(mode: str, server: str, rnd: int, p99: float, ok: bool = True
          ) -> dict[str, Any]:
    return dict(mode=mode, server=server, rate=5000.0, round=rnd, ok=ok,
                p99_us=p99)


class FlagsTest(unittest.TestCase):
    def test_sched_sets_the_priority_the_runs_get(self) -> None:
        other = modes.parse(BASE + ["--sched=other"])
        self.assertEqual(other.fifo, 0)
        st = modes.settings(other, "serial")
        self.assertEqual((st.fifo, st.mode), (0, "serial"))
        self.assertIn("ordinary", st.sched_note)
        auto = modes.parse(BASE)
        fifo, note = latency_point.sched_of("auto")
        self.assertEqual((auto.fifo, auto.sched_note), (fifo, note))

    def test_fifo_refused_is_an_error_that_says_why(self) -> None:
        err = io.StringIO()
        with mock.patch.object(procs, "fifo_refused",
                               lambda: "no throttle"), \
                contextlib.redirect_stderr(err), \
                self.assertRaises(SystemExit):
            modes.parse(BASE + ["--sched=fifo"])
        self.assertIn("--sched=fifo: no throttle", err.getvalue())


class TableTest(unittest.TestCase):
    def test_medians_and_the_rounds_both_sides_ran(self) -> None:
        points = [point("serial", "serverkit", 0, 100.0),
                  point("serial", "nginx", 0, 200.0),
                  point("serial", "serverkit", 1, 300.0),
                  point("serial", "nginx", 1, 300.0),
                  point("serial", "serverkit", 2, 50.0),
                  point("serial", "nginx", 2, 900.0, ok=False)]
        lines = modes.table(points, [5000.0])
        serial = lines[1].split()
        self.assertEqual(serial[:5], ["serial", "5000", "100", "250",
                                      "0.75"])
        self.assertEqual(serial[5:], ["0.50", "1.00"])
        self.assertEqual(lines[2].split()[2:], ["-", "-", "-"])


class ProgressTest(unittest.TestCase):
    def test_a_set_rate_without_a_fraction_gives_the_rate_alone(self) -> None:
        pt = latency_point.LatencyPoint("nginx", 0.0, 20000.0, 3, ok=True,
                                        p50_us=100.0, p99_us=200.0)
        line = latency_point.progress(1, 4, pt, "requests/s")
        self.assertIn("nginx           20,000 requests/s round 3: ", line)
        self.assertNotIn("0%", line)
        pt.fraction = 0.9
        self.assertIn(" 90% (20,000 requests/s) round 3",
                      latency_point.progress(1, 4, pt, "requests/s"))


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/report/latency_test.py
# -----------------------------------------------------------------------------
#
# REPORT.md's "Latency at set rates (open loop)" (report/latency.py, reading
# through read/latency_rates.py) and its charts (charts/latency.py) on
# testdata/latency/http.json and pingpong.json: three fractions of HTTP
# with a void round, a failed run, a paired row under 6 rounds, one with an
# unbounded end, one unreadable, and malformed values (a word for a p50, a
# NaN p99.9, a fraction that is not a number, a point's rate); two
# fractions of ping-pong with a point void in every round. Also files
# without the block (one line each, with the command), what the host did
# where the points record it, every leaf of the
# fixtures replaced by a wrong type (no exception), and the section and
# charts in pick's REPORT.md.

import copy
import json
import os
import unittest
from typing import Any

from pick.testutil import BASIC, HERE, ChartCase, leaves, replaced, report_of

from pick.charts.latency import _series, latency_chart
from pick.report.latency import HEADING, latency_section

LATENCY = os.path.join(HERE, "testdata", "latency")


def fixture(name: str) -> Any:
    with open(os.path.join(LATENCY, name + ".json")) as f:
        return json.load(f)


def lines(http: Any, pingpong: Any, **kw: Any) -> list[str]:
    """The section's lines, a table's rows each its own."""
    return "\n".join(latency_section(http, pingpong, **kw)).splitlines()


class SectionTest(unittest.TestCase):
    def setUp(self) -> None:
        self.lines = lines(fixture("http"), fixture("pingpong"))
        self.md = "\n".join(self.lines)
        self.http = self.md[:self.md.index("### Ping-pong")]
        self.pp = self.md[self.md.index("### Ping-pong"):]

    def test_heading_and_order(self) -> None:
        self.assertEqual(self.lines[0], HEADING)
        self.assertEqual(HEADING, "## Latency at set rates (open loop)")
        self.assertLess(self.md.index("### HTTP"),
                        self.md.index("### Ping-pong"))

    def test_context_line(self) -> None:
        self.assertIn(
            "Open loop, uniform arrivals, 50 connections, 6 rounds x 0.6 s "
            "per point (0.2 s warm-up); a round is void past 1000 µs behind "
            "schedule. Rates: 25%, 50%, 90% of the slowest server's "
            "capacity, evhttp's 51.2k requests/s (wrk -t1 -c50, median over "
            "repetitions). Capacities (requests/s): serverkit 117k, nginx "
            "136k, evhttp 51.2k. Ratios are to nginx.", self.lines)
        self.assertIn("50 connections, 6 rounds x 0.6 s per point (0.2 s "
                      "warm-up), 4096-byte messages;", self.pp)
        self.assertIn("asio's 40k messages/s", self.pp)

    def test_the_load_mode_when_the_file_names_it(self) -> None:
        http = copy.deepcopy(fixture("http"))
        http["latency"]["mode"] = "serial"
        md = "\n".join(lines(http, None))
        self.assertIn("Serial load (one request in flight per connection, "
                      "as HTTP clients send; each timed from its scheduled "
                      "send). Open loop, uniform arrivals", md)
        self.assertNotIn("Serial load", self.md)  # the fixture names none

    def test_the_retry_budget_when_the_file_has_one(self) -> None:
        http = copy.deepcopy(fixture("http"))
        self.assertNotIn("budget", self.http)  # the fixture predates it
        http["latency"].update(retry_share=0.25, retry_budget_s=28.8,
                               not_retried=17)
        self.assertIn("Ratios are to nginx. Void runs are run again within "
                      "a budget of 28.8 s of retries (25% of the sweep's "
                      "planned time); 17 void run(s) were not, the budget "
                      "spent.", "\n".join(lines(http, None)))
        http["latency"]["not_retried"] = 0
        self.assertIn("(25% of the sweep's planned time).",
                      "\n".join(lines(http, None)))

    def test_what_the_host_did_when_the_file_records_it(self) -> None:
        self.assertNotIn("The host:", self.md)  # the fixtures predate it
        http = copy.deepcopy(fixture("http"))
        points = http["latency"]["points"]
        for p in points:
            p.update(steal_ms=0, steal_cpu=0, tcp_timeouts=0)
        void = [p for p in points if p["void"]]
        self.assertTrue(void)
        void[0].update(steal_ms=240, steal_cpu=1, tcp_timeouts=2)
        clean = [p for p in points if p["ok"]]
        clean[0].update(steal_ms=10)
        self.assertIn(
            "The host: steal on a run's CPUs (the hypervisor running "
            "something else on them, /proc/stat in 10 ms ticks) in 2 of "
            "%d attempts, 1 of the %d void ones, up to 240 ms in one; TCP "
            "retransmission timeouts during the runs: 2." % (
                len(points), len(void)),
            lines(http, None))
        for p in points:
            p.update(steal_ms=0, tcp_timeouts=0)
        self.assertIn(
            "The host: steal on a run's CPUs (the hypervisor running "
            "something else on them, /proc/stat in 10 ms ticks) in 0 of "
            "%d attempts, 0 of the %d void ones; TCP retransmission "
            "timeouts during the runs: 0." % (len(points), len(void)),
            lines(http, None))

    def test_the_scheduling_when_the_file_says(self) -> None:
        http = copy.deepcopy(fixture("http"))
        self.assertNotIn("Scheduling", self.http)  # the fixture predates it
        http["latency"].update(sched="fifo", fifo_priority=10,
                               sched_note="servers under SCHED_FIFO")
        self.assertIn("Ratios are to nginx. Scheduling: servers under "
                      "SCHED_FIFO.", "\n".join(lines(http, None)))

    def test_p99_table(self) -> None:
        self.assertIn("| server (requests/s) | 25% (12.8k/s) | 50% "
                      "(25.6k/s) | 90% (46.1k/s) |", self.lines)
        self.assertIn("| serverkit | p99 130 µs [120, 150] (p50 50, p99.9 "
                      "375) | p99 "
                      "156 µs (p50 60, p99.9 450) | p99 195 µs (p50 -, "
                      "p99.9 570) |", self.lines)
        # A failed round, a NaN p99.9.
        self.assertIn("| nginx | p99 143 µs (p50 55, p99.9 412) | p99 172 "
                      "µs (p50 66, p99.9 495); 1 failed | p99 217 µs (p50 "
                      "83.6, p99.9 -) |", self.lines)
        # One void round of six.
        self.assertIn("| evhttp | p99 182 µs (p50 70, p99.9 525) | p99 218 "
                      "µs (p50 84, p99.9 630) | p99 277 µs (p50 106, p99.9 "
                      "1330); 1 void |", self.lines)
        # Every round void.
        self.assertIn("| serverkit-uring | p99 42.5 µs (p50 16.8, p99.9 "
                      "126) | void |", self.lines)
        # The floor: a row under the servers, and what it is.
        self.assertIn("| floor | p99 90 µs [80, 100] (p50 40, p99.9 300) | - "
                      "| - |", self.lines)
        self.assertIn("The floor row is the generator against a one-thread "
                      "echo server that answers at once (64-byte messages): "
                      "the machine's own latency at each rate. A server's "
                      "p99 near the floor's says more about the machine "
                      "than about the server; the p99 of a median is given "
                      "with its interval over the rounds (at least 95%, "
                      "from 6 clean rounds).", self.lines)

    def test_paired_rows(self) -> None:
        rows = [x for x in self.lines if x.startswith("| serverkit/nginx") or
                x.startswith("| evhttp/nginx")]
        self.assertEqual(rows, [
            "| serverkit/nginx | 25% (12.8k/s) | 0.91x [0.85, 0.97], p 0.03, "
            "n 6 | 1.08x | serverkit ahead of nginx by 3.1-17.6% |",
            "| serverkit/nginx | 50% (25.6k/s) | 0.95x (n 3, no interval) | "
            "n/a | no interval (n 3) |",
            "| serverkit/nginx | 90% (46.1k/s) | 0.90x [0, 1.10], p 0.2, n 6 "
            "| n/a | no interval (an unbounded end) |",
            "| evhttp/nginx | 25% (12.8k/s) | 1.30x [1.20, 1.45], p 0.03, n "
            "6 | 1.10x | nginx ahead of evhttp by more than 5% (by "
            "20.0-45.0%) |",
            "| evhttp/nginx | 50% (25.6k/s) | - | n/a | no interval (n 0) |"])
        self.assertIn("| serverkit/asio | 50% (20k/s) | 0.99x [0.98, 1.03], "
                      "p 0.6, n 6 | 1.04x | serverkit and asio equivalent "
                      "within ±5% (-2.9% to +2.0%) |", self.lines)
        self.assertIn("| A/B | load | p99 ratio A/B | MDR | standing at "
                      "±5% |", self.lines)

    def test_mdr_line(self) -> None:
        line = [x for x in self.http.splitlines() if x.startswith("MDR")]
        self.assertEqual(len(line), 1)
        self.assertIn("the smallest p99 ratio, either way (x or 1/x), that "
                      "the exact signed-rank test at the row's rounds "
                      "detects (p < 0.05) with 80% power", line[0])
        self.assertTrue(line[0].endswith(
            "In this table: 1.08x to 1.10x over 2 of 5 rows."), line[0])
        self.assertIn("In this table: 1.04x to 1.04x over 1 of 1 rows.",
                      self.pp)
        wide = fixture("http")
        wide["latency"]["paired"][0]["every"]["mde"] = 125217.9
        wide["latency"]["paired"][3]["every"]["mde"] = 22.4
        md = lines(wide, None)
        self.assertIn("In this table: 23x to > 1000x over 2 of 5 rows.",
                      "\n".join(md))
        self.assertIn("| > 1000x |", "\n".join(md))

    def test_a_file_from_before_the_mdr(self) -> None:
        old = fixture("http")
        for e in old["latency"]["paired"]:
            if isinstance(e.get("every"), dict):
                del e["every"]["mde"]
        md = lines(old, None)
        rows = [x for x in md if x.startswith("| serverkit/nginx")]
        self.assertEqual(len(rows), 3)
        self.assertTrue(all(" | n/a | " in r for r in rows), rows)
        self.assertIn("In this table: n/a (no row has one: too few rounds, "
                      "or a file from before the MDR).", "\n".join(md))
        # everything else as the file with it
        self.assertEqual(
            [x.replace(" | n/a | ", " | ") for x in md
             if not x.startswith("MDR")],
            [x.replace(" | n/a | ", " | ").replace(" | 1.08x | ", " | ")
             .replace(" | 1.10x | ", " | ")
             for x in lines(fixture("http"), None) if not x.startswith("MDR")])

    def test_void_and_failed_lists(self) -> None:
        self.assertIn(
            "Void runs (the generator could not keep its schedule; each "
            "run again): "
            "evhttp at 90%, round 3: the generator fell behind its schedule "
            "by 3.2 ms (limit 1 ms).", self.http.splitlines())
        self.assertIn("Failed runs: nginx at 50%, round 1: nginx did not "
                      "start: bind: Address already in use.",
                      self.http.splitlines())
        self.assertIn(
            "Void runs (the generator could not keep its schedule; each "
            "run again): "
            "serverkit-uring at 90%, rounds 0, 1, 2, 3, 4, 5: the generator "
            "fell behind its schedule by 1.5 ms (limit 1 ms).",
            self.pp.splitlines())
        self.assertNotIn("Failed runs", self.pp)
        doc = fixture("pingpong")
        doc["latency"]["points"] = [p for p in doc["latency"]["points"]
                                    if not p["void"]]
        pp = "\n".join(lines(None, doc))
        self.assertIn("\nNo point was void.\n", pp)
        self.assertNotIn("Void points", pp)

    def test_chart_links(self) -> None:
        self.assertIn("Chart: [HTTP p99 against offered load]"
                      "(http_latency.png).", self.lines)
        self.assertIn("Chart: [Ping-pong p99 against offered load]"
                      "(pingpong_latency.png).", self.lines)
        drawn = lines(fixture("http"), fixture("pingpong"),
                      drawn=["http_latency.png"])
        self.assertIn("(http_latency.png).", "\n".join(drawn))
        self.assertNotIn("pingpong_latency.png", "\n".join(drawn))
        self.assertEqual(drawn.count("No chart (nothing to draw, or charts "
                                     "not drawn)."), 1)


class MissingAndMalformedTest(unittest.TestCase):
    def test_missing(self) -> None:
        old = fixture("http")
        del old["latency"]
        md = lines(old, None)
        self.assertEqual(md[md.index("### HTTP") + 2],
                         "Not in results/http.json (an older file, or the "
                         "latency sweep was skipped): rerun `bazel run -c "
                         "opt //bench:http`.")
        self.assertEqual(md[-1], "Not run: results/pingpong.json is missing "
                         "(`bazel run -c opt //bench:pingpong`).")
        self.assertEqual(len(md), 11)
        with open(os.path.join(BASIC, "pingpong.json")) as f:
            md = lines(None, json.load(f))
        self.assertEqual(md[-1], "Not in results/pingpong.json (an older "
                         "file, or the latency sweep was skipped): rerun "
                         "`bazel run -c opt //bench:pingpong`.")

    def test_wrong_types_never_raise(self) -> None:
        for w in (3, "x", [], {"latency": []}, {"latency": {"points": 3}},
                  {"latency": {"fractions": "x", "summary": [1, None],
                               "paired": [{"every": []}], "servers": 5}}):
            latency_section(w, w)
        for name in ("http", "pingpong"):
            doc = fixture(name)
            paths = list(leaves(doc))
            self.assertGreater(len(paths), 500)
            for path in paths:
                values: list[Any] = [None, "x", -1, True, [], {},
                                     float("nan")]
                for value in values:
                    try:
                        latency_section(replaced(doc, path, value), None)
                    except Exception as e:  # report which path broke it
                        self.fail("%r = %r: %s: %s" % (
                            path, value, type(e).__name__, e))

    def test_a_bad_value_prints_a_dash(self) -> None:
        doc = fixture("http")
        s = doc["latency"]["summary"][0]
        s.update(p99_us="slow", ok_rounds=None)
        doc["latency"]["paired"][0]["every"]["ratio"] = float("nan")
        doc["latency"]["connections"] = "fifty"
        md = lines(doc, None)
        self.assertIn("| serverkit | - | p99 156 µs", "\n".join(md))
        self.assertIn("| serverkit/nginx | 25% (12.8k/s) | - | 1.08x | "
                      "serverkit ahead of nginx by 3.1-17.6% |", md)
        self.assertIn("Open loop, uniform arrivals, - connections,",
                      "\n".join(md))


class LatencyChartTest(ChartCase):
    def png(self, name: str) -> bytes:
        with open(os.path.join(self.out, name), "rb") as f:
            return f.read(8)

    def test_draws_one_png_per_workload(self) -> None:
        self.assertEqual(latency_chart(fixture("http"), self.out),
                         "http_latency.png")
        self.assertEqual(latency_chart(fixture("pingpong"), self.out,
                                       "pingpong"), "pingpong_latency.png")
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["http_latency.png", "pingpong_latency.png"])
        for name in os.listdir(self.out):
            self.assertEqual(self.png(name), b"\x89PNG\r\n\x1a\n")

    def test_series(self) -> None:
        ok, void = _series(fixture("http")["latency"])
        self.assertEqual(void, {"evhttp": {46080.0}})
        self.assertEqual(len(ok["evhttp"][46080.0]), 5)
        self.assertEqual(len(ok["nginx"][25600.0]), 5)   # one failed
        self.assertEqual(len(ok["serverkit"][46080.0]), 5)  # a rate "x"
        self.assertEqual(min(ok["serverkit"][12800.0]), 125.0)

    def test_nothing_to_draw(self) -> None:
        only_void = fixture("pingpong")
        only_void["latency"]["points"] = [
            p for p in only_void["latency"]["points"] if p["void"]]
        unknown = fixture("http")
        unknown["latency"]["workload"] = "chat"
        with open(os.path.join(BASIC, "http.json")) as f:
            old = json.load(f)
        for doc in (None, old, {"latency": 5}, only_void, unknown,
                    {"latency": {"workload": "http", "points": "x"}}):
            self.assertIsNone(latency_chart(doc, self.out))
        self.assertEqual(os.listdir(self.out), [])

    def test_wrong_types(self) -> None:
        doc = fixture("http")
        lat = doc["latency"]
        lat.update(fractions="x", connections=None, slowest=3, servers=None)
        lat["points"][0]["p99_us"] = float("nan")
        lat["points"][1]["server"] = 7
        lat["points"][2]["rate"] = -5
        self.assertEqual(latency_chart(doc, self.out), "http_latency.png")


class InTheReportTest(unittest.TestCase):
    """pick's REPORT.md places the section after the HTTP section, and the
    charts among the others."""

    def test_report(self) -> None:
        def edit(results: str) -> None:
            for name in ("http", "pingpong"):
                path = os.path.join(results, name + ".json")
                with open(path) as f:
                    doc = json.load(f)
                doc["latency"] = copy.deepcopy(fixture(name)["latency"])
                with open(path, "w") as f:
                    json.dump(doc, f)

        rc, md, tmp = report_of(self, edit)
        at = md.index(HEADING)
        self.assertLess(md.index("## HTTP under wrk"), at)
        self.assertLess(at, md.index("## Validation: "))
        self.assertIn("| serverkit-uring | p99 42.5 µs (p50 16.8, p99.9 "
                      "126) | void |", md)
        if rc == 0:
            for name in ("http_latency.png", "pingpong_latency.png"):
                self.assertIn("](%s)" % name, md)
                self.assertTrue(os.path.exists(os.path.join(tmp, name)))
            self.assertIn("### HTTP p99 latency at set rates (open loop)",
                          md)


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/http/http_tables_test.py
# -----------------------------------------------------------------------------
#
# The summary tables on fixture files: testdata/http_smoke.json (a real
# --profile=smoke run) and testdata/http_points.json (made up: 3
# repetitions, two connection counts, a failed repetition, a server that
# never ran clean, client-bound repetitions), the paired summary and what
# each interval says against the margin, the run plan's Williams orders
# (bench.plan); a point's JSON
# (run.PointRecord.to_json) and the cores split (run.pinning); the pool
# route's table (paired by repetition, nginx not comparable), its reading
# of winners.json and its servers.

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import unittest
from typing import Any, Optional, cast

from servers.http import context as http_context
from servers.http import bench
from servers.http import loops as http_loops
from servers.http import run as http_run
from servers.http import tables as http_tables
from servers.driver import side_by_side
from pick.decide import paired

HERE = os.path.dirname(os.path.abspath(__file__))


POINT_KEYS = {"server", "access_log", "threads", "connections",
              "wrk_threads", "seconds", "repetition", "ok", "requests",
              "requests_per_s", "latency_ms", "non_2xx", "socket_errors",
              "server_cpu_s", "server_cpu_us_per_request", "client_cpu_util",
              "client_bound", "other_cpu_s"}


def fixture(name: str) -> dict[str, Any]:
    with open(os.path.join(HERE, "testdata", name)) as f:
        data: dict[str, Any] = json.load(f)
        return data


class RowsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.data = fixture("http_points.json")
        self.rows = {(r.connections, r.server): r
                     for r in http_tables.rows(self.data["points"])}

    def test_medians_and_ratio_to_nginx(self) -> None:
        sk = self.rows[(50, "serverkit")]
        self.assertEqual(sk.requests_per_s, 150000)
        self.assertEqual(self.rows[(50, "nginx")].requests_per_s, 100000)
        self.assertAlmostEqual(sk.vs_nginx or 0, 1.5)
        self.assertEqual(sk.client_bound_runs, 2)
        self.assertEqual((sk.ok_runs, sk.runs), (3, 3))
        self.assertEqual(sk.cpu_us_per_request, 4.0)
        self.assertAlmostEqual(sk.cpu_vs_nginx or 0, 0.8)
        self.assertAlmostEqual(sk.server_util or 0, 0.6)
        self.assertAlmostEqual(sk.other_util or 0, 0.1)

    def test_access_log_compares_with_nginx_log(self) -> None:
        r = self.rows[(50, "serverkit-log")]
        self.assertEqual(r.requests_per_s, 65000)
        self.assertAlmostEqual(r.vs_nginx or 0, 65000 / 75000)
        self.assertAlmostEqual(self.rows[(50, "nginx-log")].vs_nginx or 0,
                               1.0)

    def test_failed_repetitions_are_left_out(self) -> None:
        beast = self.rows[(200, "beast")]
        self.assertEqual((beast.ok_runs, beast.runs), (2, 3))
        self.assertAlmostEqual(beast.vs_nginx or 0, 0.2)
        ev = self.rows[(200, "evhttp")]
        self.assertIsNone(ev.requests_per_s)
        self.assertIsNone(ev.vs_nginx)
        self.assertIsNone(ev.p50_ms)

    def test_no_nginx_no_ratio(self) -> None:
        pts = [p for p in self.data["points"] if p["server"] != "nginx"]
        rows = {(r.connections, r.server): r for r in http_tables.rows(pts)}
        self.assertIsNone(rows[(50, "serverkit")].vs_nginx)

    def test_order(self) -> None:
        order = [(r.connections, r.server)
                 for r in http_tables.rows(self.data["points"])]
        self.assertEqual(order, [
            (50, "serverkit"), (50, "nginx"), (50, "serverkit-log"),
            (50, "nginx-log"), (200, "nginx"), (200, "beast"),
            (200, "evhttp")])


class PairedTest(unittest.TestCase):
    def setUp(self) -> None:
        self.points = fixture("http_points.json")["points"]

    def test_each_server_over_its_nginx(self) -> None:
        rows = http_tables.paired(self.points)
        cpu = [r for r in rows if r.metric == "server_cpu_us_per_request"]
        self.assertEqual([(r.a, r.b) for r in cpu], [
            ("serverkit", "nginx"), ("beast", "nginx"),
            ("evhttp", "nginx"), ("serverkit-log", "nginx-log")])
        sk = cpu[0]
        # 4.0 / 5.0 in all three repetitions at -c50; wrk bound two of them.
        self.assertAlmostEqual(sk.every.ratio, 0.8)
        self.assertEqual(sk.every.n, 3)
        self.assertEqual(sk.server_bound.n, 1)
        # Beast's failed repetition is left out; evhttp never ran clean.
        self.assertEqual(cpu[1].every.n, 2)
        self.assertAlmostEqual(cpu[1].every.ratio, 8.0)
        self.assertEqual(paired.fmt_rank_paired(cpu[2].every), "-")
        self.assertAlmostEqual(cpu[3].every.ratio, 7.0 / 6.0)

    def test_p99_and_requests(self) -> None:
        rows = {(r.a, r.metric): r
                for r in http_tables.paired(self.points)}
        self.assertAlmostEqual(rows[("serverkit", "p99_ms")].every.ratio,
                               0.9)
        d = side_by_side.log_ratios(self.points, "serverkit", "nginx",
                                    lambda p: (p["connections"],
                                               p["repetition"]),
                                    lambda p: cast(Optional[float],
                                                   p["requests_per_s"]), False)
        self.assertEqual([round(math.exp(x), 6) for x in d],
                         [1.5, round(160 / 110, 6), round(140 / 90, 6)])

    def test_lines_and_json(self) -> None:
        rows = http_tables.paired(self.points)
        lines = http_tables.PAIRED.lines(rows)
        # A line per row, then a head and the rows in words: two lines
        # where every point and the wrk-free ones differ.
        self.assertEqual(len(lines), 2 + len(rows) + 2 + len(rows) + sum(
            r.words(r.every, "") != r.words(r.server_bound, "")
            for r in rows))
        self.assertIn("serverkit/nginx", lines[2])
        self.assertIn("0.80x n 3 (no interval below 6)", lines[2])
        self.assertEqual(lines[4 + len(rows)], "  serverkit and nginx in CPU "
                         "us/request: no interval (n 3) (every clean point)")
        self.assertEqual(lines[5 + len(rows)], "  serverkit and nginx in CPU "
                         "us/request: no interval (n 1) (wrk-free)")
        doc = json.loads(json.dumps([r.as_json() for r in rows],
                                    allow_nan=False))
        self.assertIsNone(doc[0]["every"]["high"])
        self.assertEqual(doc[0]["every"]["standing"], "unknown")
        self.assertEqual({(d["metric"], d["better"]) for d in doc}, {
            ("server_cpu_us_per_request", "lower"), ("p99_ms", "lower"),
            ("requests_per_s", "higher")})
        self.assertEqual(side_by_side.summary_lines([], {}, "", ""), [])
        self.assertEqual(http_tables.paired(
            [p for p in self.points if not p["server"].startswith("nginx")]),
            [])

    def test_standing_at_eight_repetitions(self) -> None:
        """Eight (connections, repetition) pairs: an interval, read with
        less CPU and more requests/s as ahead."""
        points = []
        for rep in range(8):
            # p99: ours within 1% of nginx's, either side.
            wobble = 1.0 + (-1) ** rep * 0.01 * (rep + 1) / 8
            for name, us, per_s, ms in (("serverkit", 4.0, 110.0, wobble),
                                        ("nginx", 5.0, 100.0 + rep, 1.0)):
                points.append(dict(server=name, access_log=False,
                                   connections=50, repetition=rep, ok=True,
                                   client_bound=False, requests_per_s=per_s,
                                   server_cpu_us_per_request=us,
                                   latency_ms=dict(p99=ms)))
        rows = {r.metric: r for r in http_tables.paired(points, 0.05)}
        cpu, p99, rps = (rows[k] for k in ("server_cpu_us_per_request",
                                           "p99_ms", "requests_per_s"))
        self.assertEqual(cpu.standing(cpu.every),
                         side_by_side.Standing.AHEAD_BEYOND)
        self.assertEqual(p99.standing(p99.every),
                         side_by_side.Standing.EQUIVALENT)
        # 110 over 100 .. 107 (+2.8% to +10%): the interval 3.8-8.9%, ahead
        # but not beyond 5%.
        self.assertEqual(rps.standing(rps.every), side_by_side.Standing.AHEAD)
        self.assertEqual(rps.words(rps.every, "requests/s"),
                         "serverkit ahead of nginx by 3.8-8.9% in "
                         "requests/s")


class PlanTest(unittest.TestCase):
    def test_each_block_takes_the_next_williams_order(self) -> None:
        specs = [http_run.ServerSpec(n, "ours", "/x", (), False)
                 for n in ("a", "b", "c")]
        args = argparse.Namespace(wrk_threads=1, threads=1)
        prof = bench.Profile((50, 200), 1.0, 2, 1, 0.3)
        todo = bench.plan(args, prof, specs)
        self.assertEqual([(p.repetition, p.connections) for _, p in todo],
                         [(r, c) for r in (0, 1) for c in (50, 200)
                          for _ in specs])
        self.assertEqual(" ".join("".join(s.name for s, _ in todo[i:i + 3])
                                  for i in range(0, len(todo), 3)),
                         "abc cba bca acb")


class TablesTest(unittest.TestCase):
    def test_fixture_table(self) -> None:
        data = fixture("http_points.json")
        text = http_tables.tables(data["points"], data["context"])
        self.assertIn("wrk -t1 -c50, 4.0 s x 3 repetitions, server cpus 1, "
                      "wrk cpus 0", text)
        self.assertIn("wrk -t1 -c200", text)
        lines = {line.split()[0] + str(i): line
                 for i, line in enumerate(text.splitlines()) if line}
        sk = [v for k, v in lines.items() if v.startswith("serverkit ")]
        self.assertEqual(sk[0].split(), [
            "serverkit", "off", "150,000", "1.50x", "0.150", "0.900",
            "4.00", "0.80x", "60%", "10%", "3/3", "2/3"])
        ev = [v for v in lines.values() if v.startswith("evhttp ")][0]
        self.assertEqual(ev.split(), ["evhttp", "off", "-", "-", "-", "-",
                                      "-", "-", "-", "-", "0/3", "0/3"])
        fails = http_tables.failures(data["points"])
        self.assertEqual(len(fails), 4)
        self.assertIn("beast -c200 rep 1: 12 non-2xx responses", fails)

    def test_real_smoke_run(self) -> None:
        data = fixture("http_smoke.json")
        for key in ("profile", "cores", "kernel", "loadavg_at_start", "pin",
                    "seconds_per_point", "repetitions", "wrk_threads",
                    "nginx_version", "body", "servers"):
            self.assertIn(key, data["context"])
        self.assertEqual({p["server"] for p in data["points"]},
                         {"serverkit", "serverkit-log", "nginx",
                          "nginx-log", "beast", "evhttp"})
        for p in data["points"]:
            self.assertEqual(set(p) - {"error"}, POINT_KEYS)
        text = http_tables.tables(data["points"], data["context"])
        self.assertEqual(len(text.splitlines()), 2 + 6)
        self.assertIn("1.00x", text)


class PoolRouteTest(unittest.TestCase):
    def point(self, server: str, rep: int, rps: float) -> dict[str, Any]:
        return dict(server=server, repetition=rep, ok=rps > 0,
                    requests_per_s=rps, latency_ms=dict(p50=1.0, p99=2.0),
                    server_cpu_us_per_request=30.0)

    def test_table_pairs_by_repetition_and_names_nginx(self) -> None:
        a, b = "serverkit-pool-mutex", "serverkit-pool-queue-moodycamel"
        pts = [self.point(a, 0, 100.0), self.point(b, 0, 110.0),
               self.point(b, 1, 90.0), self.point(a, 1, 100.0),
               self.point("serverkit-pool-x", 0, 0.0)]
        lines = http_tables.pool_table(pts, "heading")
        self.assertEqual(lines[0], "heading")
        self.assertTrue(lines[2].startswith(a) and
                        lines[2].endswith("1.000x"), lines[2])
        self.assertTrue(lines[3].endswith("1.000x"), lines[3])  # 1.1, 0.9
        self.assertIn("no clean run", lines[4])
        self.assertEqual(lines[-1], "nginx: not comparable (no pool handler)")

    def test_reactor_choice_and_specs(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "winners.json")
            self.assertIsNone(http_context.reactor_pool(path)[0])
            with open(path, "w") as f:
                json.dump({"reactor": {}}, f)
            self.assertIsNone(http_context.reactor_pool(path)[0])
            with open(path, "w") as f:
                json.dump({"reactor": {"thread_pool": {"winner": "asio"}}},
                          f)
            choice = http_context.reactor_pool(path)[0]
        self.assertEqual(choice, "asio")
        specs = http_context.pool_specs("srv", ["--buffer=ring"], choice)
        self.assertEqual([s.name for s in specs],
                         ["serverkit-pool-mutex", "serverkit-pool-asio"])
        self.assertEqual(specs[1].flags[:2], ("--buffer=ring", "--pool=asio"))
        self.assertEqual(len(http_context.pool_specs("srv", [], "mutex")), 1)


class RecordTest(unittest.TestCase):
    def test_to_json(self) -> None:
        r = http_run.PointRecord("nginx", False, 1, 50, 1, 4.0, 2)
        d = r.to_json()
        self.assertEqual(set(d), POINT_KEYS | {"error"})
        self.assertEqual(d["error"], "failed")
        r.ok, r.p50_ms, r.p99_ms = True, 0.25, 1.5
        d = r.to_json()
        self.assertNotIn("error", d)
        self.assertEqual(d["latency_ms"], {"p50": 0.25, "p99": 1.5})

    def test_loops(self) -> None:
        with open(os.path.join(HERE, "testdata", "server_stop.log")) as f:
            loops = http_loops.loop_shares(f.read())
        self.assertEqual(len(loops), 4)
        self.assertEqual(loops[0], http_loops.LoopShare(51, 50, 24689, 5231))
        self.assertEqual(sum(x.replies for x in loops), 112761)
        self.assertEqual(http_loops.loop_shares("server: stopped; ..."), [])
        r = http_run.PointRecord("serverkit", False, 4, 200, 1, 4.0, 0,
                                 ok=True, loops=loops[:1])
        self.assertEqual(r.to_json()["loops"], [dict(
            connections=51, max_open=50, replies=24689, busy_polls=5231)])

    def test_pinning(self) -> None:
        two = http_run.pinning(1, 1, [0, 1])
        self.assertTrue(two.pinned)
        self.assertEqual(two.describe(), "server cpus 1, wrk cpus 0")
        self.assertFalse(http_run.pinning(2, 1, [0, 1]).pinned)
        self.assertFalse(http_run.pinning(1, 1, [0]).pinned)
        self.assertEqual(http_run.pinning(1, 1, [0]).describe(),
                         "not pinned")
        self.assertEqual(http_run.pinning(2, 2, [0, 1, 2, 3]).describe(),
                         "server cpus 2,3, wrk cpus 0,1")


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/chat/bench_test.py
# -----------------------------------------------------------------------------
#
# The chat driver's pure parts on fixture files (testdata/): a record from
# the load test's JSON (clean and failed), the document's keys (`problems`),
# the table (medians over repetitions, the serverkit/asio ratio, the "c"
# and "!" marks, a missing peer), the paired summary and what it says
# against the margin, the run plan (interleaving, the Williams orders, a K
# skipped for descriptors), the pinning text, and the Python
# codec (frames split at every byte boundary, the load test's body), and
# the modules' layers (each imports only those below it; files under 400
# lines).
#
#   bench_test.py                      the unit tests
#   bench_test.py --smoke PATH         checks a smoke run's JSON: well
#                                      formed, every run clean, both servers
#                                      at every point, and no process of
#                                      this runfiles tree left running

from __future__ import annotations

import json
import math
import os
import sys
import unittest
from typing import Any

from servers.chat import bench
from servers.chat import codec as chat_codec
from servers.chat import run as chat_run
from servers.chat import tables as chat_tables
from servers.driver import side_by_side
from pick.decide import paired

HERE = os.path.dirname(os.path.abspath(__file__))

TESTDATA = os.path.join(HERE, "testdata")


def fixture(name: str) -> Any:
    with open(os.path.join(TESTDATA, name)) as f:
        return json.load(f)


POINT = chat_run.Point("serverkit", 2, 1000, 50, 64, 1)


class RecordTest(unittest.TestCase):
    def test_clean_run(self) -> None:
        rec = chat_run.record_of(POINT, fixture("loadtest_ok.json"), 0.75)
        self.assertTrue(rec["ok"])
        self.assertNotIn("error", rec)
        for k in chat_tables.POINT_KEYS:
            self.assertIn(k, rec)
        self.assertEqual((rec["server"], rec["threads"], rec["clients"],
                          rec["repetition"]), ("serverkit", 2, 1000, 1))
        self.assertEqual(rec["round_ms"], {"p50": 4.342787, "min": 3.179315,
                                           "max": 6.021765})
        self.assertEqual(rec["delivery_us"]["p99"], 4993.224)
        self.assertEqual(rec["server_cpu_s"], 0.75)
        # 0.18 s of server CPU over the rounds for 50000 deliveries.
        self.assertAlmostEqual(rec["server_cpu_us_per_delivery"], 3.6)
        self.assertAlmostEqual(rec["client_cpu_util"], 0.623, places=3)
        self.assertAlmostEqual(rec["server_cpu_util"], 0.825, places=3)
        self.assertFalse(rec["client_bound"])

    def test_client_bound(self) -> None:
        lt = dict(fixture("loadtest_ok.json"), client_cpu_s=0.21)
        self.assertTrue(chat_run.record_of(POINT, lt, 0.0)["client_bound"])

    def test_failed_run(self) -> None:
        rec = chat_run.record_of(POINT, fixture("loadtest_failed.json"), 0.1)
        self.assertFalse(rec["ok"])
        self.assertIn("3 of 1000 clients", rec["error"])
        self.assertEqual(rec["server_cpu_us_per_delivery"], 0.0)
        self.assertEqual(chat_tables.problems(chat_tables.document(
            {k: 0 for k in chat_tables.CONTEXT_KEYS}, [], False, 1.0,
            [rec])), [])

    def test_no_json(self) -> None:
        rec = chat_run.failed(POINT, "load test wrote no JSON")
        self.assertFalse(rec["ok"])
        self.assertEqual(rec["round_ms"], {"p50": 0.0, "min": 0.0,
                                           "max": 0.0})


class DocumentTest(unittest.TestCase):
    def test_fixture_is_well_formed(self) -> None:
        self.assertEqual(chat_tables.problems(fixture("chat.json")), [])

    def test_problems(self) -> None:
        doc = fixture("chat.json")
        del doc["context"]["pin"]
        del doc["points"][0]["round_ms"]
        doc["points"][1]["ok"] = False
        doc["interrupted"] = "no"
        self.assertEqual(chat_tables.problems(doc), [
            "interrupted missing or of the wrong type",
            "context.pin missing",
            "points[0] lacks round_ms",
            "points[1] failed without an error"])
        self.assertEqual(chat_tables.problems([]), ["not a JSON object"])


class TableTest(unittest.TestCase):
    def setUp(self) -> None:
        self.points = fixture("chat.json")["points"]

    def test_rows(self) -> None:
        rows = chat_tables.rows(self.points)
        self.assertEqual([(r.threads, r.clients) for r in rows],
                         [(1, 1000), (1, 5000), (2, 1000)])
        first = rows[0]
        self.assertEqual(first.cells["serverkit"].round_ms, 3.0)
        self.assertEqual(first.cells["asio"].round_ms, 6.0)
        self.assertEqual(first.ratio(), 0.5)
        self.assertEqual(first.cells["serverkit"].cpu_us, 3.0)
        self.assertTrue(first.cells["serverkit"].client_bound)
        second = rows[1]
        self.assertEqual(second.cells["asio"].failed, 1)
        self.assertEqual(second.cells["asio"].round_ms, 20.0)
        self.assertEqual(second.ratio(), 0.5)
        self.assertIsNone(rows[2].ratio())

    def test_text(self) -> None:
        lines = chat_tables.table(self.points).splitlines()
        self.assertIn("serverkit/asio", lines[0])
        self.assertEqual(lines[2].split(), [
            "1", "1000", "3.000c", "6.000", "0.50x", "3.000", "4.000"])
        self.assertEqual(lines[3].split(), [
            "1", "5000", "10.000", "20.000!", "0.50x", "3.000", "3.000"])
        self.assertEqual(lines[4].split(), [
            "2", "1000", "5.000", "-", "-", "3.000", "-"])

    def test_text_with_uring(self) -> None:
        uring = [dict(p, server=chat_tables.OURS_URING,
                      round_ms=dict(p["round_ms"], p50=p["round_ms"]["p50"]
                                    * 0.8))
                 for p in self.points if p["server"] == "serverkit"]
        lines = chat_tables.table(self.points + uring).splitlines()
        self.assertEqual(lines[0].split()[2:7], [
            "serverkit", "ms", "serverkit-uring", "ms", "asio"])
        self.assertIn("serverkit-uring/asio", lines[0])
        self.assertEqual(lines[2].split(), [
            "1", "1000", "3.000c", "2.400c", "6.000", "0.50x", "0.40x",
            "3.000", "3.000", "4.000"])
        self.assertAlmostEqual(chat_tables.rows(self.points + uring)[0].ratio(
            chat_tables.OURS_URING) or 0, 0.4)

    def test_failures(self) -> None:
        f = chat_tables.failures(self.points)
        self.assertEqual(len(f), 1)
        self.assertTrue(f[0].startswith("asio threads 1 clients 5000 rep 1:"))


class PairedTest(unittest.TestCase):
    def setUp(self) -> None:
        self.points = fixture("chat.json")["points"]

    def ratios(self, key: str, server_bound: bool) -> list[float]:
        return [round(math.exp(x), 9) for x in chat_tables.paired_log_ratios(
            self.points, "serverkit", key, server_bound)]

    def test_pairs_runs_of_the_same_point_and_repetition(self) -> None:
        # Asio's failed repetition and the point it never ran are left out.
        cpu = "server_cpu_us_per_delivery"
        self.assertEqual(self.ratios(cpu, False), [0.5, 1.0, 1.0])
        # Ours' load test at its ceiling in repetition 1 of K = 1000.
        self.assertEqual(self.ratios(cpu, True), [0.5, 1.0])
        self.assertEqual(self.ratios("round_ms", False),
                         [round(1 / 3, 9), round(2 / 3, 9), 0.5])

    def test_summary_lines_and_json(self) -> None:
        points = []
        for rep in range(2):
            for k in (1000, 2000, 5000, 10000):
                for name, cpu in (("serverkit", 2.4), ("asio", 3.0)):
                    points.append(dict(
                        server=name, threads=1, clients=k, repetition=rep,
                        ok=True, client_bound=False,
                        server_cpu_us_per_delivery=cpu * k / 1000,
                        round_ms=dict(p50=cpu)))
        rows = chat_tables.paired(points)
        self.assertEqual([(r.a, r.metric) for r in rows],
                         [("serverkit", "server_cpu_us_per_delivery"),
                          ("serverkit", "round_ms")])
        lines = chat_tables.PAIRED.lines(rows)
        self.assertIn("serverkit/asio", lines[2])
        self.assertIn("every: 0.80x [0.80, 0.80] p 0.0078 n 8", lines[2])
        # Less CPU and a shorter round are ahead: 0.8x is 25% ahead.
        self.assertEqual(lines[4], "")
        self.assertIn("against a margin of ±5%", lines[5])
        self.assertEqual(lines[6], "  serverkit ahead of asio by more than "
                         "5% (by 25.0%) in CPU us per delivery (every "
                         "clean point, and server-bound)")
        doc = json.loads(json.dumps([r.as_json() for r in rows],
                                    allow_nan=False))
        self.assertAlmostEqual(doc[0]["every"]["ratio"], 0.8)
        self.assertEqual([(d["better"], d["margin"], d["every"]["standing"])
                          for d in doc], [("lower", 0.05, "ahead-beyond")] * 2)
        wide = chat_tables.paired(points, 0.3)[0]
        self.assertEqual(wide.as_json()["every"]["standing"], "ahead")
        # Without asio there is nothing to pair.
        self.assertEqual(chat_tables.paired(
            [p for p in points if p["server"] != "asio"]), [])
        self.assertEqual(side_by_side.summary_lines([], {}, "", ""), [])

    def test_too_few_for_an_interval(self) -> None:
        rows = chat_tables.paired(self.points)
        # n counts every ratio, those of exactly 1 too (issue 47).
        self.assertEqual(paired.fmt_rank_paired(rows[0].every),
                         "0.84x n 3 (no interval below 6)")
        doc = [r.as_json() for r in rows]
        self.assertIsNone(doc[0]["every"]["high"])


class PlanTest(unittest.TestCase):
    SERVERS = [chat_run.ChatServer("serverkit", "/s", []),
               chat_run.ChatServer("asio", "/a", [])]

    def test_interleaved_and_alternating(self) -> None:
        prof = dict(clients=[100], threads=[1, 2], rounds=5, repetitions=2)
        points, notes = bench.plan(prof, self.SERVERS, 20000, 64)
        self.assertEqual(notes, [])
        self.assertEqual([(p.threads, p.repetition, p.server)
                          for p in points], [
            (1, 0, "serverkit"), (1, 0, "asio"), (1, 1, "asio"),
            (1, 1, "serverkit"), (2, 0, "serverkit"), (2, 0, "asio"),
            (2, 1, "asio"), (2, 1, "serverkit")])

    def test_three_servers_take_the_williams_orders(self) -> None:
        servers = self.SERVERS + [chat_run.ChatServer("serverkit-uring",
                                                      "/s", [])]
        prof = dict(clients=[100, 200, 300], threads=[1], rounds=5,
                    repetitions=2)
        points, _ = bench.plan(prof, servers, 20000, 64)
        names = ["".join(p.server[-1] for p in points[i:i + 3])
                 for i in range(0, len(points), 3)]
        # serverkit, asio, serverkit-uring by their last letters: t, o, g.
        self.assertEqual(names, ["tog", "got", "ogt", "tgo", "gto", "otg"])

    def test_skips_what_does_not_fit(self) -> None:
        prof = dict(clients=[1000, 20000], threads=[1], rounds=5,
                    repetitions=1)
        points, notes = bench.plan(prof, self.SERVERS, 20000, 64)
        self.assertEqual({p.clients for p in points}, {1000})
        self.assertEqual(len(notes), 1)
        self.assertIn("K=20000 skipped", notes[0])

    def test_pinning(self) -> None:
        p = chat_run.pinning([0, 1])
        self.assertEqual(p.text, "server cpus 1, load test cpus 0")
        self.assertEqual((p.server_cpus, p.load_cpus), ({1}, {0}))
        self.assertFalse(chat_run.pinning([3]).pinned)

    def test_loadtest_argv(self) -> None:
        argv = chat_run.loadtest_argv("/lt", 4000, POINT, "/o.json", 20, 77)
        self.assertEqual(argv, [
            "/lt", "127.0.0.1", "4000", "1000", "1", "--rounds=50",
            "--message_size=64", "--json=/o.json", "--timeout=20",
            "--server_pid=77"])


class CodecTest(unittest.TestCase):
    def test_split_at_every_byte(self) -> None:
        msgs = [b"", b"a", b"hello" * 100]
        stream = b"".join(chat_codec.frame(m) for m in msgs)
        for cut in range(len(stream) + 1):
            r = chat_codec.FrameReader()
            got = r.feed(stream[:cut]) + r.feed(stream[cut:])
            self.assertEqual(got, msgs, cut)
            self.assertEqual(r.pending(), 0)

    def test_round_of(self) -> None:
        body = b"R" + (7).to_bytes(4, "big") + b"\0" * 8 + bytes(
            (7 + i) & 0xFF for i in range(13, 64))
        self.assertEqual(chat_codec.round_of(body), ("R", 7))
        self.assertIsNone(chat_codec.round_of(body[:-1] + b"\0"))
        self.assertIsNone(chat_codec.round_of(b"hello"))


def check_smoke(path: str) -> int:
    with open(path) as f:
        doc = json.load(f)
    errors = chat_tables.problems(doc)
    points = doc.get("points", [])
    if not points:
        errors.append("no points")
    errors += chat_tables.failures(points)
    if doc.get("interrupted"):
        errors.append("interrupted")
    for r in chat_tables.rows(points):
        if set(r.cells) != set(chat_tables.ORDER):
            errors.append("threads %d clients %d: servers %s" % (
                r.threads, r.clients, sorted(r.cells)))
    root = os.getcwd()
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv0 = f.read().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        if argv0.startswith(root) and os.path.basename(argv0) in (
                "server", "asio_server", "loadtest"):
            errors.append("still running: pid %s %s" % (pid, argv0))
    for e in errors:
        print("FAIL: " + e)
    print("smoke JSON: %d points, %s" % (len(points),
                                         "ok" if not errors else "FAILED"))
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--smoke":
        sys.exit(check_smoke(sys.argv[2]))
    unittest.main()

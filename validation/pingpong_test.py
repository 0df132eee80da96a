#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/pingpong_test.py
# -----------------------------------------------------------------------------
#
# The ping-pong sweep's tables (servers/pingpong/tables.py), points and
# progress lines (servers/pingpong/sweep.py) and command-line pieces
# (pingpong.py) on fixture records (testdata/sweep.json: four servers, two
# repetitions, a failed point, an unclean repetition, a client at its
# ceiling, a header point that never ran), and a whole run_sweep with
# procs.run_point serving those records, whose output must equal
# testdata/sweep_stdout.txt.
#
#   pingpong_test.py [-v]           the unit tests (//validation:pingpong_test)
#   pingpong_test.py --smoke PATH   checks the JSON of
#                                   pingpong_smoke_test.sh's real run
#
# Exit status 0 when every check passed, 1 otherwise.

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import statistics
import sys
import tempfile
import unittest
from typing import Any, Callable, Iterator, Optional
from unittest import mock

from pick.records import ValidationRow
from servers.driver import procs
from validation import pingpong as sweep
from servers.pingpong import sweep as sweep_run
from servers.pingpong import tables

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "testdata")
NAMES = ["serverkit", "asio", "libevent", "ours-ring"]
# The profile the fixture was recorded with.
PROFILE: dict[str, Any] = dict(
    seconds=0.3, sessions=[1, 10, 100], threads=[1, 2], blocks=[4096, 16384],
    repetitions=2, header_sessions=[1, 10], header_threads=[1],
    header_count=256, header_limit=20.0)
Record = dict[str, Any]


def fixture() -> dict[str, Any]:
    with open(os.path.join(TESTDATA, "sweep.json")) as f:
        doc: dict[str, Any] = json.load(f)
        return doc


def golden() -> str:
    with open(os.path.join(TESTDATA, "sweep_stdout.txt")) as f:
        return f.read()


def check_smoke(t: unittest.TestCase, d: dict[str, Any]) -> None:
    """sweep_smoke_test.sh's real run: every point clean, the three
    servers, the validation with the default pairs, every run clean."""
    recs = d["echo"] + d["header"]
    t.assertTrue(d["echo"] and d["header"], "no records")
    t.assertEqual([r for r in recs if not r["ok"]], [], "unclean points")
    t.assertEqual({r["server"] for r in recs},
                  {"serverkit", "serverkit-uring", "asio", "libevent"})
    v = d["validation"]
    # The smoke profile: the first case of each component, one round.
    t.assertEqual([r["component"] for r in v["rows"]],
                  ["task_queue", "buffer", "logger", "thread_pool"])
    for r in v["rows"]:
        t.assertTrue(r["origin"] == "default" and r["e2e_ratio"], r)
        t.assertTrue(all(x["ok"] for x in r["records"]), r["records"])
    lat = d["latency"]  # one round: each run clean with figures, or void
    t.assertEqual((lat["reference"], lat["rounds"], lat["size"]),
                  ("asio", 1, 4096))
    # Each (server, rate) once, and again after a void attempt (at most 3).
    runs = [(p["server"], p["fraction"]) for p in lat["points"]
            if p["attempt"] == 0]
    rates = len(lat["fractions"])
    t.assertGreaterEqual(rates, 1)
    t.assertEqual(len(runs), rates * (len(lat["servers"]) + 1))
    t.assertEqual(len(set(runs)), len(runs))
    t.assertEqual(sum(s == "floor" for s, _ in runs), rates)
    t.assertTrue(all(p["attempt"] <= 2 for p in lat["points"]))
    for p in lat["points"]:
        if p["void"]:
            t.assertTrue(p["void_reason"] and not p["ok"], p)
        else:
            t.assertTrue(p["ok"] and p["completed"] > 0, p)
            t.assertTrue(0 < p["p50_us"] <= p["p99_us"] <= p["max_us"], p)
    print("sweep smoke: %d points, %d latency runs, %d validation cases, "
          "OK" % (len(recs), len(lat["points"]), len(v["rows"])))


def smoke(path: str) -> int:
    with open(path) as f:
        check_smoke(unittest.TestCase(), json.load(f))
    return 0


class TablesTest(unittest.TestCase):
    def setUp(self) -> None:
        self.doc = fixture()

    def test_echo_tables(self) -> None:
        lines = tables.echo_tables(self.doc["echo"], NAMES, [1, 2],
                                   [4096, 16384], [1, 10, 100], 0, 2)
        text = "\n".join(lines)
        self.assertIn(text, golden())
        self.assertEqual(lines[:3], [
            "", "echo, 4096-byte blocks, server threads 1, client threads "
            "1, pinned: MiB/s",
            "sessions  serverkit MiB/s  asio MiB/s  libevent MiB/s  "
            "ours-ring MiB/s  serverkit CPU ms/MiB  asio CPU ms/MiB  "
            "libevent CPU ms/MiB  ours-ring CPU ms/MiB  serverkit/asio  "
            "libevent/asio  ours-ring/asio  serverkit/libevent  "
            "ours-ring/libevent"])
        # The CPU column is the median of the clean repetitions' figures.
        first = lines[3].split()
        self.assertEqual(first[0], "1")
        recs = [r for r in self.doc["echo"] if r["server"] == "serverkit" and
                (r["server_threads"], r["blocksize"], r["sessions"]) ==
                (1, 4096, 1) and r["ok"]]
        self.assertEqual(first[5], "%.3f" % statistics.median(
            r["server_cpu_ms_per_mib"] for r in recs))
        # The median of two repetitions; asio's unclean repetition left
        # out of its median and marked.
        self.assertEqual(lines[4].split(), [
            "10", "175.5", "158.0", "!", "111.7", "183.5", "3.798", "4.219",
            "5.969", "3.633", "1.11x", "0.71x", "1.16x", "1.57x", "1.64x"])
        self.assertIn("server threads 2, client threads 2, not pinned "
                      "(oversubscribed): MiB/s", text)
        self.assertIn("          210.0 c       190.9", text)
        # libevent failed both repetitions: no figure, no ratio.
        self.assertEqual(lines[-1].split(), [
            "100", "346.6", "315.1", "fail", "!", "362.4", "1.923", "2.116",
            "-", "1.840", "1.10x", "-", "1.15x", "-", "-"])

    def test_server_cpu_per_work(self) -> None:
        rec: Record = dict(server_cpu_s=1.5, bytes=3 << 20, messages=3000)
        procs.add_server_cpu_per_work(rec)
        self.assertEqual(rec["server_cpu_ms_per_mib"], 500.0)
        self.assertEqual(rec["server_cpu_us_per_message"], 500.0)
        # No CPU figure, or no work counted: no per-work figure, no error.
        idle: list[Record] = [dict(bytes=1 << 20, messages=10),
                              dict(server_cpu_s=1.0, bytes=0, messages=0)]
        for r in idle:
            procs.add_server_cpu_per_work(r)
            self.assertNotIn("server_cpu_ms_per_mib", r)
            self.assertNotIn("server_cpu_us_per_message", r)

    def test_client_threads_and_cores(self) -> None:
        text = "\n".join(tables.echo_tables(self.doc["echo"], NAMES, [2],
                                            [4096], [1], 1, 8))
        self.assertIn("server threads 2, client threads 1, not pinned: "
                      "MiB/s", text)

    def test_header_tables(self) -> None:
        lines = tables.header_tables(self.doc["header"], NAMES, [1], [1, 10],
                                     256)
        self.assertIn("\n".join(lines), golden())
        self.assertEqual(lines[1], "header, 256 messages per session, "
                         "server threads 1: messages/s, p99 session time (s)")
        self.assertIn("serverkit p99 s", lines[2])
        # libevent never ran at 10 sessions.
        self.assertEqual(lines[4].split()[:10], [
            "10", "69918.0", "63561.8", "fail", "!", "73096.1", "0.091",
            "0.100", "-", "0.087"])

    def test_points_without_records_are_left_out(self) -> None:
        self.assertEqual(tables.echo_tables(self.doc["echo"], NAMES, [4],
                                            [4096], [1, 10], 0, 2), [])
        rows = tables.rows_of(self.doc["echo"],
                              ("server_threads", "blocksize"),
                              (1, 4096), [1, 1000, 10])
        self.assertEqual([n for n, _ in rows], [1, 10])
        self.assertEqual(sorted(rows[0][1]), sorted(NAMES))
        self.assertEqual(len(rows[0][1]["asio"]), 2)

    def test_ratio_columns(self) -> None:
        self.assertEqual(tables.ratio_columns(NAMES), [
            ("serverkit", "asio"), ("libevent", "asio"),
            ("ours-ring", "asio"), ("serverkit", "libevent"),
            ("ours-ring", "libevent")])
        self.assertEqual(tables.ratio_columns(["libevent", "x"]),
                         [("x", "libevent")])
        self.assertEqual(tables.ratio_columns(["serverkit", "x"]), [])

    def test_median(self) -> None:
        recs: list[Record] = [
            dict(ok=True, v=3.0), dict(ok=False, v=100.0), dict(ok=True, v=0),
            dict(ok=True, v=5.0), dict(ok=True)]
        self.assertEqual(tables.median_of(recs, "v"), 4.0)
        self.assertIsNone(tables.median_of(recs[1:3], "v"))

    def test_closing_lines(self) -> None:
        lines = tables.closing_lines(self.doc["echo"] + self.doc["header"])
        self.assertTrue(lines[0].startswith("\nc: the client used >= 90%"))
        self.assertEqual(lines[1], "\n3 point(s) failed or ran unclean "
                         "(marked !):")
        self.assertEqual(lines[2], "  echo libevent threads 2 sessions 100: "
                         "client wrote no JSON (rc 1): connect failed")
        many = [dict(ok=False, protocol="echo", server="s", server_threads=1,
                     sessions=n, error="e") for n in range(12)]
        lines = tables.closing_lines(many)
        self.assertEqual(len(lines), 11)  # the count, then the first ten
        self.assertEqual(tables.closing_lines([dict(ok=True)]), [])


def args_of(**kw: Any) -> argparse.Namespace:
    a = dict(profile="test", client_threads=0, pin="auto", no_header=False,
             margin=0.05)
    a.update(kw)
    return argparse.Namespace(**a)


def serve(doc: dict[str, Any]) -> Callable[..., Record]:
    """procs.run_point's stand-in: the fixture's record of each point, in
    repetition order; a server that did not start where it has none."""
    seen: dict[tuple[Any, ...], int] = {}

    def run_point(server: procs.Server, client: str, tmp: str,
                  p: procs.Point, pin: str) -> Record:
        key = (p.protocol, server.name, p.threads, p.block, p.sessions)
        rep = seen[key] = seen.get(key, -1) + 1
        for r in doc[p.protocol]:
            if (r["protocol"], r["server"], r["server_threads"],
                    r["blocksize"], r["sessions"], r["repetition"]) == \
                    key + (rep,):
                return {k: v for k, v in r.items() if k != "repetition"}
        return dict(server=server.name, protocol=p.protocol,
                    server_threads=p.threads, client_threads=p.client_threads,
                    blocksize=p.block, sessions=p.sessions, pinned=True,
                    ok=False, error="server did not start: ")
    return run_point


class RunTest(unittest.TestCase):
    @contextlib.contextmanager
    def fake_host(self) -> Iterator[None]:
        with mock.patch.object(procs, "run_point", serve(fixture())), \
                mock.patch.object(procs, "stop_all", lambda: None), \
                mock.patch.object(procs, "resolve", lambda spec: spec), \
                mock.patch("os.getloadavg", lambda: (0.5, 0.5, 0.5)), \
                mock.patch("os.sched_getaffinity", lambda pid: {0, 1}), \
                mock.patch("platform.release", lambda: "test"):
            yield

    def run_sweep(self, soft: int = 1024, names: Optional[list[str]] = None,
                  **kw: Any
                  ) -> tuple[str, str, dict[str, Any], list[Record], bool]:
        out, err = io.StringIO(), io.StringIO()
        with self.fake_host(), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            servers = [procs.Server(n, n, []) for n in names or NAMES]
            data, failed, interrupted = sweep_run.run_sweep(
                args_of(**kw), dict(PROFILE), servers, "client", soft)
        return out.getvalue(), err.getvalue(), data, failed, interrupted

    def test_the_whole_output(self) -> None:
        out, err, data, failed, interrupted = self.run_sweep()
        self.assertEqual(out, golden())
        self.assertEqual(err, "")
        self.assertFalse(interrupted)
        self.assertEqual(len(data["echo"]), 96)
        self.assertEqual(len(data["header"]), 16)
        self.assertEqual(len(failed), 5)
        self.assertEqual(data["context"]["servers"][3],
                         dict(name="ours-ring", path="ours-ring", flags=[]))
        self.assertEqual(data["notes"], [sweep_run.LIBEVENT_NOTE])

    def test_no_libevent_note_without_libevent(self) -> None:
        out, _, data, _, _ = self.run_sweep(names=["serverkit", "asio"])
        self.assertNotIn("libevent", out)
        self.assertEqual(data["notes"], [])

    def test_descriptor_limit(self) -> None:
        out, err, data, _, _ = self.run_sweep(soft=105)
        self.assertEqual({r["sessions"] for r in data["echo"]}, {1})
        self.assertIn("sweep: 10 sessions skipped: RLIMIT_NOFILE allows 105 "
                      "descriptors", err)
        self.assertEqual(len(data["notes"]), 3)
        self.assertEqual(sweep_run.sessions_within(
            [1, 10000], resource.RLIM_INFINITY), ([1, 10000], []))

    def test_no_header(self) -> None:
        out, _, data, _, _ = self.run_sweep(no_header=True)
        self.assertEqual(data["header"], [])
        self.assertNotIn("\nheader, ", out)
        self.assertIn("[96/96] echo", out)

    def test_points(self) -> None:
        pts = sweep_run.points(args_of(client_threads=1), PROFILE, [1, 10])
        self.assertEqual(len(pts), 2 * 2 * 2 + 2)
        self.assertEqual(pts[0], procs.Point("echo", 1, 1, 4096, 1,
                                             seconds=0.3))
        self.assertEqual(pts[-1], procs.Point("header", 1, 1, 100, 10,
                                              count=256, limit=20.0))
        self.assertEqual(pts[-1].duration(), 20.0)
        self.assertEqual(pts[0].duration(), 0.3)

    def test_progress_line(self) -> None:
        p = procs.Point("echo", 2, 2, 4096, 10, seconds=0.3)
        self.assertEqual(sweep_run.progress_line(
            dict(server="asio", ok=True, mib_per_s=12.34), p, 3, 9),
            "[3/9] echo asio       threads 2 block  4096 sessions    10: "
            "12.3 MiB/s")
        self.assertEqual(sweep_run.progress_line(
            dict(server="asio", ok=False, error="boom"), p, 3, 9),
            "[3/9] echo asio       threads 2 block  4096 sessions    10: "
            "FAILED boom")


class CpuSplitTest(unittest.TestCase):
    def split(self, p: procs.Point, pin: str = "auto"
              ) -> tuple[bool, Optional[set[int]], Optional[set[int]]]:
        with mock.patch.object(os, "sched_getaffinity",
                               lambda pid: {0, 1, 2, 3}):
            pinned, srv, cli, _ = procs.cpu_split(pin, p)
        return pinned, srv, cli

    def test_halves_by_default(self) -> None:
        p = procs.Point("echo", 2, 2, 4096, 10)
        self.assertEqual(self.split(p), (True, {2, 3}, {0, 1}))
        self.assertEqual(self.split(p, "no"), (False, None, None))

    def test_a_core_more_for_the_server(self) -> None:
        """A logger's backend gets a core beside the I/O thread."""
        p = procs.Point("echo", 1, 1, 4096, 10, server_cores=2)
        self.assertEqual(self.split(p), (True, {2, 3}, {0, 1}))
        p = procs.Point("echo", 1, 2, 4096, 10, server_cores=3)
        # 3 + 2 threads on 4 cores: nothing pinned, everything shared.
        self.assertEqual(self.split(p), (False, None, None))
        self.assertEqual(procs.cpu_list(None, [0, 1]), "0,1")


class CommandLineTest(unittest.TestCase):
    def test_previous_results(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "pingpong.json")
            self.assertEqual(sweep.previous_results(path), {})
            for text, want in (('{"echo": [1]}', {"echo": [1]}),
                               ("[1]", {}), ("{", {})):
                with open(path, "w") as f:
                    f.write(text)
                self.assertEqual(sweep.previous_results(path), want)

    def test_failed_cases(self) -> None:
        rows = [ValidationRow(component="buffer", case=str(k), outcome=o)
                for k, o in enumerate(("held", "error",
                                       "nothing-to-validate"))]
        self.assertEqual(sweep.failed_cases(dict(rows=rows)), [rows[1]])

    def test_bad_components(self) -> None:
        with contextlib.redirect_stderr(io.StringIO()) as err, \
                self.assertRaises(SystemExit):
            sweep.parse_args(["--validate_components=buffer,nope"])
        self.assertIn("--validate_components: unknown nope", err.getvalue())
        self.assertEqual(sweep.parse_args(
            ["--validate_components=logger,"]).validate_components,
            ["logger"])

    def test_threads_and_sessions(self) -> None:
        args = sweep.parse_args(["--threads=1,4,16", "--sessions=100"])
        self.assertEqual((args.threads, args.sessions), ([1, 4, 16], [100]))
        self.assertEqual(sweep.parse_args([]).threads, [])
        for bad in ("--threads=0", "--threads=2,x", "--sessions=,"):
            with contextlib.redirect_stderr(io.StringIO()) as err, \
                    self.assertRaises(SystemExit):
                sweep.parse_args([bad])
            self.assertIn("whole numbers >= 1", err.getvalue())

    def test_servers(self) -> None:
        with mock.patch.object(procs, "resolve", lambda spec: spec):
            args = sweep.parse_args(["--no_peers", "--server",
                                     "x=//a:b --buffer=ring"])
            servers = sweep.servers_of(args)
            self.assertEqual([(s.name, s.path, s.extra) for s in servers],
                             [("x", "//a:b", ["--buffer=ring"])])
            peers = sweep.servers_of(sweep.parse_args([]))
            self.assertEqual([(s.name, s.extra) for s in peers], [
                ("serverkit", []), ("serverkit-uring", ["--backend=uring"]),
                ("asio", []), ("libevent", [])])
            for bad, why in ((["--server", "x"], "wants 'NAME="),
                             (["--server", "asio=y"], "given twice"),
                             (["--no_peers", "--no_validate"], "no servers")):
                with self.subTest(argv=bad):
                    with self.assertRaisesRegex(procs.SweepError, why):
                        sweep.servers_of(sweep.parse_args(bad))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--smoke"] and len(sys.argv) == 3:
        sys.exit(smoke(sys.argv[2]))
    unittest.main()

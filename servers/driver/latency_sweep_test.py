#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/driver/latency_sweep_test.py
# -----------------------------------------------------------------------------
#
# latency_sweep.py: the common rates, the running order, the generator's
# results read (testdata/loadgen: real outputs of //servers/loadgen, clean,
# void and failed), the medians and the paired ratios over rounds with
# void runs left out, the text; and run() end to end with a stand-in
# generator (a script that writes a fixture and exits with its status) and
# a stand-in server process.

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import socket
import stat
import subprocess
import tempfile
import unittest
from typing import Any, Optional

from servers.driver import latency_point
from servers.driver import latency_sweep
from servers.driver import procs
from pick.decide import paired

HERE = os.path.dirname(os.path.abspath(__file__))


TESTDATA = os.path.join(HERE, "testdata", "loadgen")


def fixture(name: str) -> dict[str, Any]:
    with open(os.path.join(TESTDATA, name + ".json")) as f:
        doc: dict[str, Any] = json.load(f)
    return doc


def settings(**kw: Any) -> latency_point.Settings:
    a: dict[str, Any] = dict(
        workload="http", unit="requests/s", reference="nginx",
        protocol="http", connections=50, rounds=6, seconds=0.5,
        warmup_s=0.2, capacity_source="wrk", path="/collect?v=1")
    a.update(kw)
    return latency_point.Settings(**a)


def point(server: str, f: float, rnd: int, p99: Optional[float],
          void: bool = False) -> latency_point.LatencyPoint:
    pt = latency_point.LatencyPoint(server, f, 1000.0 * f, rnd)
    if void:
        pt.void, pt.void_reason = True, "lagged"
    elif p99 is None:
        pt.error = "server did not start"
    else:
        pt.ok = True
        pt.p50_us, pt.p99_us, pt.p999_us = p99 / 2, p99, 2 * p99
    return pt


class RatesAndPlanTest(unittest.TestCase):
    def test_the_slowest_sets_the_rates(self) -> None:
        slowest, base, rates = latency_sweep.common_rates(
            {"a": 100000.0, "b": 40000.0, "c": math.nan, "d": 0.0},
            (0.25, 0.5, 0.75, 0.9))
        self.assertEqual((slowest, base), ("b", 40000.0))
        self.assertEqual(rates, [10000.0, 20000.0, 30000.0, 36000.0])

    def test_capacity_from_the_closed_loop_records(self) -> None:
        recs = [dict(server="a", n=50, ok=True, v=100.0),
                dict(server="a", n=50, ok=True, v=300.0),
                dict(server="a", n=50, ok=False, v=900.0),
                dict(server="b", n=50, ok=True, v=0.0),
                dict(server="b", n=200, ok=True, v=50.0)]
        self.assertEqual(latency_point.capacity(recs, "n", 50, "v"),
                         (50, {"a": 200.0}))  # the median of two
        self.assertEqual(latency_point.capacity(recs, "n", 150, "v"),
                         (200, {"b": 50.0}))  # the nearest count run
        self.assertEqual(latency_point.capacity([], "n", 50, "v"), (50, {}))
        self.assertEqual(latency_point.nearest([10, 100], 55), 10)

    def test_no_capacity(self) -> None:
        with self.assertRaisesRegex(ValueError, "no server"):
            latency_sweep.common_rates({"a": 0.0}, (0.5,))

    def test_each_block_takes_the_next_williams_order(self) -> None:
        todo = latency_sweep.plan(["a", "b", "c", "d"], 2, 2)
        self.assertEqual([(r, i) for r, i, _ in todo[::4]],
                         [(0, 0), (0, 1), (1, 0), (1, 1)])
        blocks = ["".join(s for _, _, s in todo[k:k + 4])
                  for k in range(0, len(todo), 4)]
        self.assertEqual(blocks, ["abdc", "bcad", "cdba", "dacb"])

    def test_generator_argv(self) -> None:
        argv = latency_point.generator_argv("/g", settings(), 8080, 12500.0,
                                            3, "/o")
        self.assertIn("--rate=12500", argv)
        self.assertIn("--path=/collect?v=1", argv)
        self.assertIn("--seed=3", argv)
        echo = latency_point.generator_argv(
            "/g", settings(protocol="echo", size=4096), 1, 10.0, 1, "/o")
        self.assertIn("--size=4096", echo)
        self.assertFalse(any(a.startswith("--path") for a in echo))

    def test_generator_threads_follow_the_rate_within_its_cpus(self) -> None:
        gt = latency_point.generator_threads
        eight = set(range(8))
        self.assertEqual(gt(120_000.0, {0}, 100), 1)  # 2 cores: one CPU
        self.assertEqual(gt(450_000.0, None, 100), 1)  # unpinned
        self.assertEqual(gt(100_000.0, eight, 100), 1)
        self.assertEqual(gt(100_001.0, eight, 100), 2)
        self.assertEqual(gt(450_000.0, eight, 100), 5)
        self.assertEqual(gt(5e6, eight, 100), 8)  # at most one per CPU
        self.assertEqual(gt(5e6, eight, 3), 3)  # and per connection
        self.assertEqual(gt(10.0, eight, 100), 1)
        self.assertIn("--threads=1", latency_point.generator_argv(
            "/g", settings(), 1, 10.0, 1, "/o"))
        self.assertIn("--threads=5", latency_point.generator_argv(
            "/g", settings(), 1, 10.0, 1, "/o", threads=5))

    def test_mode_reaches_the_generator_and_the_block(self) -> None:
        # Unset: the generator's own default, which the block names.
        self.assertFalse(any(a.startswith("--mode") for a in
                             latency_point.generator_argv(
                                 "/g", settings(), 1, 10.0, 1, "/o")))
        self.assertEqual(latency_sweep.mode(settings()), "serial")
        self.assertEqual(latency_sweep.mode(settings(protocol="echo")),
                         "pipelined")
        st = settings(mode="pipelined")
        self.assertIn("--mode=pipelined", latency_point.generator_argv(
            "/g", st, 1, 10.0, 1, "/o"))
        # The floor is sent what the servers are.
        self.assertIn("--mode=pipelined", latency_point.generator_argv(
            "/g", st, 1, 10.0, 1, "/o", floor=True))
        self.assertEqual(latency_sweep.mode(st), "pipelined")


class FractionsFlagTest(unittest.TestCase):
    def test_the_rates_flag(self) -> None:
        self.assertEqual(latency_point.fractions_of(""),
                         latency_point.FRACTIONS)
        self.assertEqual(latency_point.fractions_of("0.25,0.5,0.75,0.9"),
                         (0.25, 0.5, 0.75, 0.9))
        for bad in ("0", "1.6", "0.5,0.5", "half", "0.5,", "-0.2"):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                latency_point.fractions_of(bad)


class SchedFlagTest(unittest.TestCase):
    def test_the_sched_flag(self) -> None:
        allowed, refused = (lambda: ""), (lambda: "no CAP_SYS_NICE")
        fifo = latency_point.sched_of("auto", allowed)
        self.assertEqual(fifo[0], procs.FIFO_PRIORITY)
        self.assertIn("SCHED_FIFO at priority", fifo[1])
        self.assertEqual(latency_point.sched_of("fifo", allowed), fifo)
        self.assertEqual(latency_point.sched_of("auto", refused),
                         (0, "ordinary scheduling: no CAP_SYS_NICE"))
        self.assertEqual(latency_point.sched_of("other", allowed)[0], 0)
        with self.assertRaisesRegex(ValueError, "no CAP_SYS_NICE"):
            latency_point.sched_of("fifo", refused)

    def test_the_drivers_flags(self) -> None:
        ap = argparse.ArgumentParser()
        latency_point.add_flags(ap)
        args = ap.parse_args(["--latency_sched=other"])
        latency_point.check_flags(ap, args)
        self.assertEqual((args.latency_fractions, args.latency_fifo),
                         (latency_point.FRACTIONS, 0))
        args = ap.parse_args(["--latency_fractions=0.5,0.9"])
        self.assertEqual(args.latency_fractions, (0.5, 0.9))
        for bad in (["--latency_fractions=2"], ["--latency_sched=rr"]):
            with self.subTest(bad=bad), \
                    contextlib.redirect_stderr(io.StringIO()) as err, \
                    self.assertRaises(SystemExit):
                ap.parse_args(bad)
            self.assertIn(bad[0].split("=")[0], err.getvalue())


class FillTest(unittest.TestCase):
    def test_clean(self) -> None:
        pt = latency_point.LatencyPoint("a", 0.5, 5000.0, 0)
        latency_point.fill(pt, 0, fixture("ok"), "")
        self.assertTrue(pt.ok and not pt.void and not pt.error)
        self.assertEqual((pt.p50_us, pt.p99_us, pt.max_us),
                         (78.591, 125.695, 161.309))
        self.assertEqual(pt.uncorrected_p99_us, 69.888)
        self.assertEqual((pt.completed, pt.achieved_rate), (1500, 5000.0))

    def test_void(self) -> None:
        pt = latency_point.LatencyPoint("a", 0.9, 3e6, 0)
        latency_point.fill(pt, latency_point.VOID_RC, fixture("void"), "")
        self.assertTrue(pt.void and not pt.ok)
        self.assertIn("could not keep its schedule", pt.void_reason)

    def test_failed(self) -> None:
        pt = latency_point.LatencyPoint("a", 0.5, 5000.0, 0)
        latency_point.fill(pt, 1, fixture("failed"), "")
        self.assertFalse(pt.ok or pt.void)
        self.assertIn("Connection refused", pt.error)

    def test_no_json(self) -> None:
        pt = latency_point.LatencyPoint("a", 0.5, 5000.0, 0)
        latency_point.fill(pt, 2, None, "loadgen: --rate: bad")
        self.assertEqual(pt.error, "the generator wrote no JSON (exit 2): "
                                   "loadgen: --rate: bad")


def rounds_of(ratio: float) -> list[latency_point.LatencyPoint]:
    """Six rounds at one rate: a at ratio x nginx's p99 (noisy by round),
    a void run of a in round 2 and a failed one of b in round 4."""
    pts = []
    for r in range(6):
        base = 100.0 * (1 + 0.1 * r)
        pts.append(point("nginx", 0.5, r, base))
        pts.append(point("a", 0.5, r, None if r == 2 else
                         base * ratio * (1 + 0.01 * r), void=r == 2))
        pts.append(point("b", 0.5, r, None if r == 4 else base))
    return pts


class SummaryTest(unittest.TestCase):
    def test_median_interval(self) -> None:
        self.assertIsNone(latency_sweep.median_interval([1.0] * 5))
        self.assertEqual(latency_sweep.median_interval([6.0, 1, 5, 2, 4, 3]),
                         (1, 6, 1 - 2 / 64))
        iv = latency_sweep.median_interval(list(map(float, range(10))))
        assert iv is not None
        self.assertEqual(iv[:2], (1.0, 8.0))
        self.assertAlmostEqual(iv[2], 1 - 2 * 11 / 1024)
        iv = latency_sweep.median_interval([0.0] * 12)
        self.assertTrue(iv is not None and iv[2] >= 0.95, iv)

    def test_medians_over_clean_rounds(self) -> None:
        rows = latency_sweep.summary(rounds_of(0.5), ["nginx", "a", "b"],
                                     [0.5], [500.0])
        by = {r["server"]: r for r in rows}
        self.assertEqual((by["a"]["ok_rounds"], by["a"]["void_rounds"],
                          by["a"]["failed_rounds"]), (5, 1, 0))
        self.assertEqual((by["b"]["ok_rounds"], by["b"]["failed_rounds"]),
                         (5, 1))
        self.assertAlmostEqual(by["nginx"]["p99_us"], 125.0)
        self.assertEqual(by["nginx"]["p99_interval"],
                         dict(low=100.0, high=150.0, coverage=0.9688))
        self.assertIsNone(by["a"]["p99_interval"])  # 5 clean rounds
        self.assertIsNone(
            latency_sweep.summary([], ["a"], [0.5], [1.0])[0]["p99_us"])

    def test_paired_leaves_void_rounds_out(self) -> None:
        rows = latency_sweep.paired(rounds_of(0.5), ["nginx", "a", "b"],
                                    "nginx", [0.5], [500.0], 0.05)
        by = {row.a: row for _, _, row in rows}
        self.assertEqual(set(by), {"a", "b"})
        self.assertEqual(by["a"].every.n, 5)  # the void round is out
        self.assertLess(by["a"].every.ratio, 0.52)
        self.assertEqual(by["a"].words(by["a"].every, "p99"),
                         "a and nginx in p99: no interval (n 5)")

    def test_six_clean_rounds_give_an_interval(self) -> None:
        pts = [p for p in rounds_of(0.5) if p.server != "b"]
        pts = [p for p in pts if not p.void] + [point("a", 0.5, 2, 60.0)]
        (_, _, row), = latency_sweep.paired(pts, ["nginx", "a"], "nginx",
                                            [0.5], [500.0], 0.05)
        self.assertEqual(row.every.n, 6)
        self.assertTrue(0.45 < row.every.low <= row.every.high < 0.55,
                        row.every)
        self.assertIn("a ahead of nginx by more than", row.words(
            row.every, "p99 latency"))

    def test_the_mdr_is_one_plus_the_mde(self) -> None:
        self.assertEqual(latency_sweep.mdr_text(0.84), "1.84x")
        self.assertEqual(latency_sweep.mdr_text(22.4), "23x")
        self.assertEqual(latency_sweep.mdr_text(125217.9), "> 1000x")
        for none in (None, math.inf, math.nan, -0.1):
            self.assertEqual(latency_sweep.mdr_text(none), "n/a")
        # twelve rounds of the same spread detect a ratio nearer 1 than six
        d = [0.3, -0.2, 0.5, 0.1, -0.4, 0.2]
        six = paired.rank_paired(d).mde
        twelve = paired.rank_paired(d + [x + 0.01 for x in d]).mde
        assert six is not None and twelve is not None
        self.assertLess(math.log1p(twelve), math.log1p(six) / 2)


class PlanTest(unittest.TestCase):
    def test_the_default_sizing(self) -> None:
        # 75 and 90% of the slowest's capacity, 12 rounds: the rates where
        # the floor does not dominate, and an MDR within the old budget
        self.assertEqual(latency_point.FRACTIONS, (0.75, 0.9))
        self.assertEqual(latency_point.ROUNDS, 12)
        self.assertEqual(settings().fractions, (0.75, 0.9))

    def test_planned_seconds(self) -> None:
        st = settings(rounds=12, seconds=0.5, warmup_s=0.2)
        # HTTP: 5 servers and the floor x 2 rates x 12 rounds x 0.8 s
        self.assertAlmostEqual(latency_sweep.planned_s(st, 5), 115.2)
        # the old default, 4 rates of 6 rounds, cost the same
        old = settings(rounds=6, fractions=(0.25, 0.5, 0.75, 0.9))
        self.assertAlmostEqual(latency_sweep.planned_s(old, 5), 115.2)
        self.assertAlmostEqual(latency_sweep.planned_s(st, 4), 96.0)


def fake_generator(tmp: str, name: str, rc: int) -> str:
    """A script that writes testdata/loadgen/<name>.json to --json= and
    exits with rc; name "void-once": void the first time, then clean."""
    path = os.path.join(tmp, "gen-%s" % name)
    once = os.path.join(tmp, "once")
    with open(path, "w") as f:
        if name == "void-once":
            f.write("#!/bin/sh\nif [ -e %s ]; then n=ok; rc=0; else "
                    "touch %s; n=void; rc=%d; fi\n"
                    % (once, once, latency_point.VOID_RC))
        else:
            f.write("#!/bin/sh\nn=%s; rc=%d\n" % (name, rc))
        f.write("for a; do case $a in --json=*) cp %s/$n.json "
                "\"${a#--json=}\";; esac; done\nexit $rc\n" % TESTDATA)
    os.chmod(path, stat.S_IRWXU)
    return path


class RunTest(unittest.TestCase):
    floor = ""

    @classmethod
    def setUpClass(cls) -> None:
        cls.floor = procs.resolve(latency_point.FLOOR_SERVER)

    def run_with(self, name: str, rc: int, start_ok: bool = True,
                 retry_share: float = latency_point.RETRY_SHARE,
                 fifo: int = 0
                 ) -> tuple[dict[str, Any], list[str]]:
        said: list[str] = []
        started: list[subprocess.Popen[bytes]] = []
        self.started = started

        def start(server: str, pointdir: str
                  ) -> tuple[Optional[subprocess.Popen[bytes]], int, str]:
            self.assertTrue(os.path.isdir(pointdir))
            if not start_ok:
                return None, 0, "server did not start: no port"
            with open(os.devnull, "w") as null:
                p = procs.spawn(["sleep", "30"], None, null, null)
            started.append(p)
            return p, 1, ""

        with tempfile.TemporaryDirectory() as tmp:
            tools = latency_sweep.Tools(fake_generator(tmp, name, rc),
                                        self.floor, None, None)
            b = latency_sweep.run(settings(rounds=1, fractions=(0.5, 0.9),
                                           retry_share=retry_share,
                                           fifo=fifo,
                                           sched_note="why" if fifo else ""),
                                  ["nginx", "a"],
                                  {"nginx": 2000.0, "a": 1000.0},
                                  start, tools, tmp, said.append)
        self.assertTrue(all(p.poll() is not None for p in started))
        return b, said

    def test_clean_runs(self) -> None:
        b, said = self.run_with("ok", 0)
        self.assertEqual((b["slowest"], b["rates"]), ("a", [500.0, 900.0]))
        self.assertEqual(sorted(p["server"] for p in b["points"]),
                         ["a", "a", "floor", "floor", "nginx", "nginx"])
        self.assertTrue(all(p["ok"] and p["p99_us"] == 125.695
                            and p["generator_threads"] == 1
                            for p in b["points"]))
        self.assertEqual(b["floor"]["size"], latency_point.FLOOR_SIZE)
        self.assertEqual(len(b["summary"]), 6)
        self.assertEqual([r["a"] for r in b["paired"]], ["a", "a"])
        self.assertEqual(said[0], "latency at set rates: 2 servers and "
                         "the floor x 2 rates (50%/90% of a's 1,000 "
                         "requests/s) x 1 rounds of 0.5 s, 50 connections, "
                         "open loop (uniform arrivals, one request in "
                         "flight per connection (serial)): about 5 s before "
                         "void retries")
        self.assertEqual(b["mode"], "serial")
        self.assertIn("p99 126 us", said[1])
        text = "\n".join(latency_sweep.lines(b))
        self.assertIn("79 us / 157 us", text)
        self.assertIn("MDR n/a", text)  # one round: no test, no MDR
        self.assertIn("floor: the generator against a one-thread echo "
                      "server that answers at once (64-byte messages)", text)
        self.assertIn("void runs (the generator lagged; no figure taken, "
                      "the run repeated): none", text)
        self.assertEqual(
            json.loads(json.dumps(latency_sweep.to_json(b)))["paired"][0]
            ["b"], "nginx")

    def test_fifo_reaches_every_server_and_the_generator(self) -> None:
        set_for: list[tuple[int, int]] = []
        spawned: list[int] = []
        real_set, real_spawn = procs.set_fifo, procs.spawn

        def fake_set(pgid: int, priority: int = 0) -> int:
            set_for.append((pgid, priority))
            return 1

        def fake_spawn(argv: list[str], cpus: Any, out: Any, err: Any,
                       fifo: int = 0) -> subprocess.Popen[bytes]:
            if argv[0].endswith("gen-ok"):
                spawned.append(fifo)
            return real_spawn(argv, cpus, out, err)

        procs.set_fifo, procs.spawn = fake_set, fake_spawn  # type: ignore
        try:
            b, said = self.run_with("ok", 0, fifo=7)
        finally:
            procs.set_fifo, procs.spawn = real_set, real_spawn
        # Six runs (two servers and the floor, at two rates): each server
        # set once, at 7, the test's own among them; so each generator.
        self.assertEqual(len(set_for), 6)
        self.assertTrue({p.pid for p in self.started} <
                        {pgid for pgid, _ in set_for})
        self.assertEqual({prio for _, prio in set_for}, {7})
        self.assertEqual(spawned, [7] * 6)
        self.assertEqual((b["sched"], b["fifo_priority"], b["sched_note"]),
                         ("fifo", 7, "why"))
        self.assertEqual(said[1], "latency at set rates: why")

    def test_fifo_refused_stops_the_server(self) -> None:
        real_set = procs.set_fifo

        def refuse(pgid: int, priority: int = 0) -> int:
            raise PermissionError("not permitted")

        procs.set_fifo = refuse
        try:
            b, _ = self.run_with("ok", 0, fifo=7)
        finally:
            procs.set_fifo = real_set
        self.assertTrue(all(not p["ok"] and "SCHED_FIFO refused for the "
                            "server: not permitted" in p["error"]
                            for p in b["points"]))

    def test_void_runs(self) -> None:
        b, said = self.run_with("void", latency_point.VOID_RC)
        self.assertTrue(all(p["void"] and not p["ok"] for p in b["points"]))
        # Each run tried 1 + VOID_RETRIES times, the floor's too.
        self.assertEqual(len(b["points"]),
                         6 * (1 + latency_sweep.VOID_RETRIES))
        self.assertIn("round 0 (retry 2): VOID", said[3])
        self.assertIn("VOID: send lag p99", said[1])
        text = "\n".join(latency_sweep.lines(b))
        self.assertIn("void runs (the generator lagged; no figure taken, "
                      "the run repeated): nginx at 50% round 0: send lag "
                      "p99", text)
        self.assertNotIn("failed runs", text)
        self.assertTrue(all(r["p99_us"] is None for r in b["summary"]))

    def test_void_runs_past_the_retry_budget_stay_void(self) -> None:
        b, said = self.run_with("void", latency_point.VOID_RC,
                                retry_share=0.0)
        self.assertEqual(len(b["points"]), 6)   # no attempt but the first
        self.assertEqual((b["retry_budget_s"], b["not_retried"]), (0.0, 6))
        self.assertIn("6 void run(s) not run again: the retries' 0 s "
                      "budget was spent", said[-1])

    def test_a_void_run_is_run_again(self) -> None:
        b, said = self.run_with("void-once", 0)
        first = b["points"][0]
        self.assertTrue(first["void"] and first["attempt"] == 0, first)
        again = b["points"][1]
        self.assertEqual((again["server"], again["round"], again["attempt"],
                          again["ok"]), (first["server"], 0, 1, True))
        self.assertEqual(len(b["points"]), 7)
        self.assertIn("(retry 1): p50", said[2])
        row = [r for r in b["summary"] if r["server"] == first["server"] and
               r["fraction"] == first["fraction"]][0]
        self.assertEqual((row["ok_rounds"], row["void_rounds"]), (1, 1))
        # The pair counts the clean attempt.
        self.assertTrue(all(r["every"]["n"] <= 1 for r in b["paired"]))

    def test_failures_are_said(self) -> None:
        b, said = self.run_with("failed", 1)
        self.assertIn("FAILED: cannot connect", said[1])
        self.assertIn("failed runs: ", "\n".join(latency_sweep.lines(b)))
        b, said = self.run_with("ok", 0, start_ok=False)
        self.assertTrue(all(p["error"] == "server did not start: no port"
                            for p in b["points"] if p["server"] != "floor"))
        self.assertTrue(all(p["ok"] for p in b["points"]
                            if p["server"] == "floor"))

    def test_the_floor_server_answers(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            p, port, why = latency_point.start_floor(self.floor, settings(),
                                                     None, tmp)
            self.assertIsNotNone(p, why)
            assert p is not None
            try:
                self.assertTrue(procs.wait_accepting(p, port, 5.0))
            finally:
                procs.stop(p)
            # As many loops as the servers' threads: 24 connections land
            # on more than one (odds of one: 3 * 3^-24), each answered.
            p, port, why = latency_point.start_floor(self.floor, settings(),
                                                     None, tmp, threads=3)
            assert p is not None, why
            message = b"x" * latency_point.FLOOR_SIZE
            try:
                for _ in range(24):
                    with socket.create_connection(("127.0.0.1", port),
                                                  5) as c:
                        c.sendall(message)
                        got = b""
                        while len(got) < len(message):
                            got += c.recv(4096) or b"!"
                        self.assertEqual(got, message)
            finally:
                procs.stop(p)
            with open(os.path.join(tmp, "server.log")) as f:
                last = f.read().split()
            self.assertEqual(last[-8:-4], ["messages", "24", "stalls", "0"])
            self.assertGreaterEqual(int(last[-1]), 2, last)
            p, port, why = latency_point.start_floor("/nonexistent",
                                                     settings(), None, tmp)
            self.assertIsNone(p)
            self.assertIn("the floor server did not start", why)


if __name__ == "__main__":
    unittest.main()

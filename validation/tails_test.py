# -----------------------------------------------------------------------------
# validation/tails_test.py
# -----------------------------------------------------------------------------
#
# validation.tails: the tables of a fixture (runs of the lent 16-core
# machine, 2026-11-28, trimmed: testdata/tails/runs.jsonl), bad files and
# flags, the layout by CPU count, and short runs on this machine's
# binaries (ping-pong over epoll, io_uring, its completion I/O and the
# floor at a low rate; io_uring under SCHED_FIFO where permitted; the cpu
# phase, closed loop) whose lines read back. testdata/tails/cpu.jsonl is a
# cpu phase of the 2-core VM, 2026-11-29 (its first 6 rounds, stop lines
# cut).

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import unittest
from typing import Optional

from servers.driver import procs
from validation import tails

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "testdata", "tails", "runs.jsonl")
CPU_FIXTURE = os.path.join(HERE, "testdata", "tails", "cpu.jsonl")


class ReportTest(unittest.TestCase):
    def test_the_fixture_gives_every_table(self) -> None:
        text = "\n".join(tails.report(tails.read(FIXTURE)))
        # Medians p50 / p99 / p99.9 per server and load.
        self.assertIn("| 25% (122,710/s) | 25 / 50 / 78 | 25 / 54 / 88 | "
                      "24 / 48 / 77 | 233 / 1090 / 1286 |", text)
        # The floor's void runs are counted, not averaged in.
        self.assertIn("(7 not clean)", text)
        # Paired by round; bold only where the interval excludes 1.
        self.assertIn("| 25% | **1.08x [1.04, 1.17], p 0.0078, MDR 1.17x** "
                      "| **1.06x [1.03, 1.11]", text)
        self.assertIn("| 90% | 1.02x [0.71, 1.48], p 0.95", text)
        # Five rounds are too few for an interval, and it says so.
        self.assertIn("| 150,000 | serial | 22 / 42 / 58 | 24 / 46 / 56 | "
                      "0.84x (n 5: no interval) |", text)
        self.assertIn("| 1 | 300,000 | 3957 | void |", text)
        self.assertIn("| 8 | 900,000 | 117 | yes |", text)

    def test_the_cpu_tables(self) -> None:
        text = "\n".join(tails.report(tails.read(CPU_FIXTURE)))
        # MiB/s and the server's ms per MiB, medians, then how many runs
        # had the client's use of its core at 90% or more.
        self.assertIn("| 4 KiB x 100 | 494, 1.9 (client-bound) | 471, 2.08 "
                      "(client-bound in 4 of 6) | 446, 2.15 (client-bound "
                      "in 5 of 6) | 509, 1.9 (client-bound in 5 of 6) |",
                      text)
        self.assertIn("| 1433, 0.694 |", text)
        # ms per MiB paired by round, lower cheaper; bold where told apart.
        self.assertIn("| 4 KiB x 100 | 0.96x [0.84, 1.18], p 0.31, MDR "
                      "1.74x |", text)
        self.assertIn("| **0.84x [0.68, 0.97], p 0.031, MDR 1.67x** |",
                      text)
        # No set-rate table, and no steal line, without set-rate runs.
        self.assertNotIn("| load |", text)
        self.assertNotIn("Host steal", text)

    def test_a_cpu_cell_counts_its_client_bound_runs(self) -> None:
        def run(cores: Optional[float], ok: bool = True) -> tails.Run:
            return tails.Run("cpu", "epoll", ok=ok, cpu_ms_per_mib=2.0,
                             mib_per_s=400.0, client_cores=cores)
        # A median under the mark still says which runs were bound.
        self.assertEqual(tails.cpu_cell([run(0.95), run(0.5), run(0.6)]),
                         "400, 2 (client-bound in 1 of 3)")
        self.assertEqual(tails.cpu_cell([run(0.9), run(0.99)]),
                         "400, 2 (client-bound)")
        # Runs that did not read the client's cores are not counted.
        self.assertEqual(tails.cpu_cell([run(0.5), run(None)]), "400, 2")
        self.assertEqual(tails.cpu_cell([run(0.95), run(0.95, ok=False)]),
                         "400, 2 (client-bound) (1 not clean)")
        self.assertEqual(tails.cpu_cell([run(0.95, ok=False)]), "-")

    def test_steal_is_summed_over_the_runs_that_read_it(self) -> None:
        runs = [tails.Run("ceiling", "epoll", steal_ms=0),
                tails.Run("ceiling", "epoll", steal_ms=20),
                tails.Run("ceiling", "epoll", steal_ms=10),
                tails.Run("ceiling", "epoll")]  # unread: not counted
        self.assertIn("Host steal on a set-rate run's CPUs (10 ms ticks): "
                      "2 of 3 runs, at most 20 ms.",
                      "\n".join(tails.report(runs)))
        self.assertIn("0 of 1 runs.", "\n".join(tails.report(runs[:1])))
        # Closed-loop runs (capacity, cpu) are summed on a line of their
        # own.
        loops = [tails.Run("cpu", "epoll", steal_ms=30),
                 tails.Run("capacity", "epoll", steal_ms=0)]
        text = "\n".join(tails.report(runs + loops))
        self.assertIn("set-rate run's CPUs (10 ms ticks): 2 of 3 runs, at "
                      "most 20 ms.", text)
        self.assertIn("Host steal on a closed-loop run's CPUs (10 ms "
                      "ticks): 1 of 2 runs, at most 30 ms.", text)
        self.assertNotIn("set-rate", "\n".join(tails.report(loops)))

    def test_a_bad_line_is_named(self) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as f:
            f.write('{"phase": "http", "server": "nginx"}\n[1, 2]\n')
            f.flush()
            with self.assertRaisesRegex(ValueError, r":2: not a run"):
                tails.read(f.name)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(tails.main(["--report=" + f.name]), 1)
            self.assertIn("not a run", err.getvalue())

    def test_batches_pool_their_rounds(self) -> None:
        one = tails.read(CPU_FIXTURE)
        two = tails.read_batches([CPU_FIXTURE, CPU_FIXTURE])
        self.assertEqual(len(two), 2 * len(one))
        at = dict(phase="cpu", server="epoll", size=4096, sessions=100)
        rounds = tails.by_round(one, **at)
        pooled = tails.by_round(two, **at)
        # The second batch's rounds follow the first's; none is lost to
        # a clash of round numbers.
        self.assertEqual(len(pooled), 2 * len(rounds))
        shift = max(r.round for r in one) + 1
        self.assertEqual(sorted(pooled), sorted(rounds) + [
            k + shift for k in sorted(rounds)])
        # Twice the rounds at the same ratios: the same estimate, a
        # narrower interval.
        text = "\n".join(tails.report(two))
        self.assertIn("| 4 KiB x 100 | 0.96x [", text)
        self.assertNotIn("0.96x [0.84, 1.18]", text)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(tails.main(
                ["--report=%s,%s" % (CPU_FIXTURE, CPU_FIXTURE)]), 0)
        self.assertEqual(out.getvalue().strip(), text.strip())
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(tails.main(
                ["--report=%s,/nonexistent/b.jsonl" % CPU_FIXTURE]), 1)
        self.assertIn("/nonexistent/b.jsonl", err.getvalue())

    def test_an_empty_file_gives_no_table(self) -> None:
        self.assertEqual(tails.report([]), [])


class FlagsTest(unittest.TestCase):
    def test_bad_flags_exit_2_with_a_reason(self) -> None:
        with tempfile.TemporaryDirectory() as pack:
            open(os.path.join(pack, "loadgen"), "w").close()
            for argv, words in [
                    (["--bin=" + pack], "--bin and --out"),
                    (["--bin=/nonexistent", "--out=x"], "no loadgen"),
                    (["--bin=" + pack, "--out=x", "--phases=nap"],
                     "unknown phase"),
                    (["--bin=" + pack, "--out=x", "--servers=nginx"],
                     "unknown phase or server: nginx"),
                    (["--bin=" + pack, "--out=x", "--phases=pingpong"],
                     "needs the capacity phase"),
                    (["--bin=" + pack, "--out=x", "--rounds=0"],
                     "must be positive"),
                    (["--bin=" + pack, "--out=x", "--fractions=0.5,x"],
                     "not numbers"),
                    (["--bin=" + pack, "--out=x", "--sched=rt"],
                     "invalid choice: 'rt'")]:
                err = io.StringIO()
                with contextlib.redirect_stderr(err), \
                        self.assertRaises(SystemExit) as cm:
                    tails.parse(argv)
                self.assertEqual(cm.exception.code, 2, argv)
                self.assertIn(words, err.getvalue(), argv)

    def test_the_layout_follows_the_cpus(self) -> None:
        big = tails.layout(16)
        self.assertEqual((sorted(big.server_cpus), big.server_threads,
                          sorted(big.generator_cpus), big.generator_threads),
                         ([8, 9, 10, 11], 4, list(range(8)), 8))
        small = tails.layout(2)
        self.assertEqual((small.server_cpus, small.generator_cpus,
                          small.server_threads, small.generator_threads),
                         (frozenset({1}), frozenset({0}), 1, 1))
        self.assertEqual((small.window_s, small.warmup_s), (0.5, 0.2))


def short_pingpong(pack: str, out: str, *flags: str) -> tuple[int, str]:
    """tails at 25% of 20,000/s, one round: (exit status, what it said)."""
    with contextlib.redirect_stdout(io.StringIO()) as said:
        rc = tails.main(["--bin=" + pack, "--out=" + out,
                         "--phases=pingpong", "--capacity=20000",
                         "--fractions=0.25", "--rounds=1", *flags,
                         "--budget=60"])
    return rc, said.getvalue()


def pack_of(tmp: str, client: bool = True) -> str:
    """This machine's binaries under the names tails expects; without the
    closed-loop client where `client` is False."""
    pack = os.path.join(tmp, "pack")
    os.mkdir(pack)
    for label, name in [("//servers/pingpong:server", "server"),
                        ("//servers/pingpong:asio_server", "asio_server"),
                        ("//servers/loadgen", "loadgen"),
                        ("//servers/loadgen:stall_echo_server",
                         "stall_echo_server")] + (
                            [("//servers/pingpong:client", "client")]
                            if client else []):
        os.symlink(procs.resolve(label), os.path.join(pack, name))
    return pack


class RunTest(unittest.TestCase):
    def test_no_capacity_stops_before_any_load(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            pack = pack_of(tmp, client=False)
            client = os.path.join(pack, "client")
            with open(client, "w") as f:  # a client that measures nothing
                f.write("#!/bin/sh\necho refused >&2\nexit 1\n")
            os.chmod(client, 0o755)
            out = os.path.join(tmp, "runs.jsonl")
            with contextlib.redirect_stdout(io.StringIO()) as said:
                rc = tails.main(["--bin=" + pack, "--out=" + out,
                                 "--phases=capacity,pingpong",
                                 "--budget=60"])
            self.assertEqual(rc, 1)
            self.assertIn("stopped: no capacity measured for asio, epoll, "
                          "uring", said.getvalue())
            runs = tails.read(out)
            self.assertEqual(len(runs), 6)  # two per server, none of load
            self.assertTrue(all(r.phase == "capacity" and not r.ok
                                and "refused" in r.error for r in runs))

    def test_a_short_pingpong_run_reads_back(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "runs.jsonl")
            rc, said = short_pingpong(
                pack_of(tmp), out, "--servers=epoll,uring,uring-completion,"
                "floor")
            self.assertEqual(rc, 0, said)
            runs = tails.read(out)
            self.assertEqual(sorted(r.server for r in runs),
                             ["epoll", "floor", "uring", "uring-completion"])
            for r in runs:
                self.assertEqual((r.phase, r.rate, r.mode), (
                    "pingpong", 5000.0, "pipelined"))
                # Clean, or void when this machine is busy: never failed.
                self.assertTrue(r.ok or r.void, r)
                if r.ok:
                    self.assertGreater(r.completed, 0)
                    self.assertIsNotNone(r.p99_us)
                # The host's steal was read on the run's CPUs.
                self.assertIsNotNone(r.steal_ms, r)
            epoll = [r for r in runs if r.server == "epoll"][0]
            self.assertTrue(epoll.stop_line.startswith("serverkit epoll:"),
                            epoll.stop_line)
            self.assertIn("events per poll", epoll.stop_line)
            # Each io_uring server ran as named: readiness I/O makes no
            # completion sends, completion I/O makes one per reply (or the
            # epoll fallback where io_uring is refused).
            by = {r.server: r for r in runs}
            ready = by["uring"].stop_line
            done = by["uring-completion"].stop_line
            if not ready.startswith("serverkit epoll:"):
                self.assertIn("sends 0,", ready)
                self.assertNotIn("sends 0,", done)
                self.assertIn(" sends ", done)
            with open(out) as f:
                self.assertEqual(len([json.loads(x) for x in f]), 4)
            self.assertIn("done", said)
            self.assertIn("of 4 runs", "\n".join(tails.report(runs)))
            self.assertTrue(all(r.fifo == 0 for r in runs))

    def test_a_short_cpu_phase_reads_back(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "runs.jsonl")
            with contextlib.redirect_stdout(io.StringIO()) as said:
                rc = tails.main(["--bin=" + pack_of(tmp), "--out=" + out,
                                 "--phases=cpu", "--servers=uring,floor",
                                 "--cpu_rounds=1", "--cpu_seconds=0.2",
                                 "--budget=60"])
            self.assertEqual(rc, 0, said.getvalue())
            runs = tails.read(out)
            # The floor has no CPU to compare: io_uring at each point.
            self.assertEqual([(r.phase, r.server, r.size, r.sessions)
                              for r in runs],
                             [("cpu", "uring", size, sessions)
                              for size, sessions in tails.CPU_POINTS])
            for r in runs:
                self.assertTrue(r.ok, r)
                self.assertGreater(r.mib_per_s, 0)
                self.assertGreater(r.server_cpu_s or 0, 0, r)
                # ms per MiB is the server's CPU over what was echoed.
                self.assertAlmostEqual(
                    r.cpu_ms_per_mib or 0,
                    1000 * (r.server_cpu_s or 0) / (r.mib_per_s * 0.2),
                    delta=0.3 * (r.cpu_ms_per_mib or 0))
                self.assertTrue(0 < (r.client_cores or 0) <= 1.5, r)
                # The host's steal was read on both sides' CPUs.
                self.assertIsNotNone(r.steal_ms, r)
            self.assertIn("cpu uring", said.getvalue())
            tables = "\n".join(tails.report(runs))
            self.assertIn("| 64 KiB x 20 |", tables)
            self.assertIn("closed-loop run's CPUs (10 ms ticks)", tables)

    def test_set_rates_run_under_sched_fifo_when_asked(self) -> None:
        refused = procs.fifo_refused()
        with tempfile.TemporaryDirectory() as tmp:
            if refused:  # no CAP_SYS_NICE (Bazel's sandbox): refused early
                err = io.StringIO()
                with contextlib.redirect_stderr(err), \
                        self.assertRaises(SystemExit) as cm:
                    tails.main(["--bin=" + pack_of(tmp), "--out=x",
                                "--sched=fifo"])
                self.assertEqual(cm.exception.code, 2)
                self.assertIn("--sched=fifo: " + refused, err.getvalue())
                return
            out = os.path.join(tmp, "runs.jsonl")
            rc, said = short_pingpong(pack_of(tmp), out, "--servers=uring",
                                      "--sched=fifo")
            self.assertEqual(rc, 0, said)
            self.assertIn("under SCHED_FIFO %d" % procs.FIFO_PRIORITY, said)
            runs = tails.read(out)
            self.assertEqual(len(runs), 1)
            self.assertEqual(runs[0].fifo, procs.FIFO_PRIORITY)
            self.assertTrue(runs[0].ok or runs[0].void, runs[0])


if __name__ == "__main__":
    unittest.main()

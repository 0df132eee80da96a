# -----------------------------------------------------------------------------
# validation/whatif_test.py
# -----------------------------------------------------------------------------
#
# whatif on a stand-in for a user's server (testdata/whatif/fake_server.py:
# a line server whose "logger" spins a known CPU per line and whose probe
# site spins SERVERKIT_PROBE's ns) under a load command of the user's kind
# (fake_load.py): the flags and the environment reach the server, the stop
# line's counts give one operation per request, a candidate that costs
# twice the baseline comes out worse, the report has its section; and the
# command line's errors, the template's filling, the probe's flags.

from __future__ import annotations

import io
import json
import os
import random
import statistics
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

from pick.records import Round, RunFigures, ValidationRow
from validation import (cases, metric, micro, predict_test, user_server,
                        whatif, whatif_report)

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata",
                    "whatif")
SERVER = "%s %s {port} {policy}" % (sys.executable,
                                    os.path.join(HERE, "fake_server.py"))
LOAD = "%s %s {port} 600" % (sys.executable, os.path.join(HERE,
                                                          "fake_load.py"))


def run_whatif(*extra: str) -> tuple[int, dict[str, object], str]:
    """whatif's exit status, whatif.json and WHATIF.md, run in-process."""
    with tempfile.TemporaryDirectory() as out:
        buf = io.StringIO()
        with redirect_stdout(buf):
            rc = whatif.main(["--server=" + SERVER, "--load=" + LOAD,
                              "--results=" + HERE, "--out=" + out,
                              "--profile=smoke", "--rounds=3", "--pin=no",
                              *extra])
        with open(os.path.join(out, "whatif.json")) as f:
            result = json.load(f)
        with open(os.path.join(out, "WHATIF.md")) as f:
            text = f.read()
    return rc, result, text


class CommandLineTest(unittest.TestCase):
    def bad(self, *argv: str) -> str:
        err = io.StringIO()
        with redirect_stderr(err), self.assertRaises(SystemExit) as cm:
            whatif.parse_args(list(argv))
        self.assertEqual(cm.exception.code, 2)
        return err.getvalue()

    def test_bad_flags_exit_2_and_say_why(self) -> None:
        self.assertIn("{port}", self.bad("--server=srv {policy}"))
        self.assertIn("{policy}", self.bad("--server=srv {port}"))
        self.assertIn("--rate", self.bad("--server=s {port} {policy}",
                                         "--rate=0"))
        self.assertIn("unknown component", self.bad(
            "--server=s {port} {policy}", "--components=logger,cache"))
        self.assertIn("SITE:FAMILY", self.bad("--server=s {port}",
                                              "--probe=pop"))
        self.assertIn("COMPONENT:NAME", self.bad(
            "--server=s {port} {policy}", "--baseline=sync"))
        self.assertIn("echo", self.bad("--server=s {port} {policy}",
                                       "--protocol=echo"))
        self.assertIn("{rate}", self.bad("--server=s {port} {policy}",
                                         "--load=client {port} {rate}"))

    def test_the_template_is_filled_word_by_word(self) -> None:
        argv = user_server.argv_of("srv --port={port} {policy} -v", 81,
                                   ["--logger=sync", "--log_file=a b"])
        self.assertEqual(argv, ["srv", "--port=81", "--logger=sync",
                                "--log_file=a b", "-v"])
        self.assertEqual(user_server.argv_of("srv {port} {policy}", 5, []),
                         ["srv", "5"])
        with self.assertRaises(ValueError):
            user_server.argv_of("srv {policy}", 5, [])

    def test_probe_flags_become_the_environment(self) -> None:
        split = user_server.split_probe
        self.assertEqual(split(["--probe_site=pop", "-x"]), (["-x"], None))
        self.assertEqual(split(["--probe_site=pop", "--probe_ns=0",
                                "--probe_ns=900"]), ([], "pop:900"))
        self.assertEqual(split(["--logger=sync"]), (["--logger=sync"], None))

    def test_the_load_commands_last_number(self) -> None:
        self.assertEqual(user_server.last_number("ok 12 of 3400\n"), 3400.0)
        self.assertIsNone(user_server.last_number("done\n"))

    def test_at_a_set_rate_the_load_sets_the_pace(self) -> None:
        """A run whose client looks bound: closed loop, the client's
        ceiling; at a set rate (the row's paced), the load's pace."""
        run = RunFigures(value=1.0, cpu_per_unit=1e-6, client_bound=True,
                         server_cpus="1", client_cpus="0")
        row = ValidationRow(component="logger", work="request",
                            rounds=[dict(baseline=run)])
        self.assertEqual(metric.metric_choice(row), (
            True, "server CPU per request: the client reached its CPU "
            "ceiling in some run"))
        row.paced = "the load set the pace (10 requests/s)"
        self.assertEqual(metric.metric_choice(row), (
            True, "server CPU per request: the load set the pace (10 "
            "requests/s)"))
        # Cores shared: that is the reason, whatever the pace.
        shared = run.copy()
        shared["server_cpus"] = shared["client_cpus"] = "0"
        row.rounds = [dict(baseline=shared)]
        self.assertIn("shared cores 0", metric.metric_choice(row)[1])


class CandidateTest(unittest.TestCase):
    def test_against_a_users_baseline_the_top_prediction_is_checked(
            self) -> None:
        args = whatif.parse_args(["--server=s {port} {policy}",
                                  "--baseline=logger:sync", "--pin=no",
                                  "--results=" + HERE])
        entries, _ = whatif.entries_for(
            args, os.path.join(HERE, "winners.json"))
        e = entries["logger"]
        self.assertEqual(cases.candidate_of(e), (e["winner"], "pick"))
        mc = micro.micro_costs(HERE, "logger", None, 0, False)
        med = {x: statistics.median(v.values())
               for x, v in mc.sweep.items()}
        self.assertEqual(set(med), {"sync", "async-double-buffer",
                                    "async-queue-bounded-mpmc"})
        self.assertNotEqual(e["winner"], "sync")
        self.assertEqual(med[e["winner"]],
                         min(v for x, v in med.items() if x != "sync"))
        self.assertAlmostEqual(e["micro_ratio"],
                               med["sync"] / med[e["winner"]])
        # A candidate named wins over the top prediction.
        args = whatif.parse_args(["--server=s {port} {policy}",
                                  "--baseline=logger:sync", "--pin=no",
                                  "--candidate=logger:slow"])
        entries, _ = whatif.entries_for(
            args, os.path.join(HERE, "winners.json"))
        self.assertEqual(entries["logger"]["winner"], "slow")


class ProbeFitTest(unittest.TestCase):
    def test_the_table_and_the_bound_quote_one_fit(self) -> None:
        """A probe row's rates (the table) come from the bound's fit, micro
        rounds and all: two fits resample differently, and their
        intervals differed ([0.93, 1.46] against [0.93, 1.53])."""
        row = predict_test.row()
        noise = random.Random(5)
        rounds: list[Round] = []
        for rnd in row.rounds * 2:
            rounds.append({})
            for side, x in rnd.items():
                y = (x or RunFigures()).copy()
                y["cpu_per_unit"] = (y.get("cpu_per_unit") or 0) * \
                    noise.uniform(0.9, 1.1)
                rounds[-1][side] = y
        row.rounds = rounds
        with tempfile.TemporaryDirectory() as d:
            predict_test.write(os.path.join(d, "queues.json"),
                               predict_test.queue_runs({
                                   "swap-vector": 500.0, "mutex": 900.0,
                                   "bounded-mpmc": 100.0}, rounds=7))
            row.rates = whatif_report.rates_only(row)
            alone = row.rates
            probe = whatif_report.probe_bound(
                row, d, "pop", "task_queue", predict_test.GROUP)
        assert row.rates is not None and alone is not None
        self.assertEqual(row.rates["exchange_rate"], probe["exchange_rate"])
        self.assertIsNone(row.rates["share"])
        self.assertEqual(row.rates["predicted"], {})
        # The fit the bound used resampled the family's 7 micro rounds
        # with the server's; the rounds alone, none.
        self.assertEqual((row.rates["micro_rounds"], alone["micro_rounds"]),
                         (7, 0))


class EndToEndTest(unittest.TestCase):
    def test_a_candidate_twice_as_dear_comes_out_worse(self) -> None:
        rc, result, text = run_whatif(
            "--components=logger", "--baseline=logger:sync",
            "--candidate=logger:slow")
        self.assertEqual(rc, 0, text)
        rows = result["rows"]
        assert isinstance(rows, list)
        row = rows[0]
        self.assertEqual((row["baseline"], row["winner"]), ("sync", "slow"))
        self.assertEqual(len(row["rounds"]), 3)
        self.assertTrue(all(r["ops"] for rnd in row["rounds"]
                            for r in rnd.values()))
        # One log line per request, counted from the library's stop line.
        m = row.get("model") or row.get("rates")
        self.assertAlmostEqual(m["ops_per_unit"]["est"], 1.0, places=2)
        # slow spins 20 us more per line than sync.
        self.assertLess(row["e2e_ratio"], 0.95)
        self.assertIn("## Your server under your load command", text)
        self.assertIn("| logger | sync |", text)

    def test_a_probe_site_gives_its_passes_and_a_bound(self) -> None:
        rc, result, text = run_whatif("--probe=pop:logger")
        self.assertEqual(rc, 0, text)
        probe = result["probe"]
        assert isinstance(probe, dict)
        self.assertAlmostEqual(probe["passes_per_unit"]["est"], 1.0,
                               places=2)
        self.assertIn("exchange_rate", probe)
        # testdata/whatif/logger.json holds three loggers' micro costs.
        three = {"sync", "async-double-buffer", "async-queue-bounded-mpmc"}
        self.assertIn(probe["fastest"], three)
        self.assertIn(probe["slowest"], three - {probe["fastest"]})
        self.assertLess(probe["fastest_ns"], probe["slowest_ns"])
        self.assertIn("Probe site `pop` (family logger)", text)
        self.assertIn("would make the server at most", text)

    def test_an_unknown_name_fails_the_component_not_the_run(self) -> None:
        rc, result, _ = run_whatif("--components=logger",
                                   "--candidate=logger:nosuch")
        self.assertEqual(rc, 1)
        rows = result["rows"]
        assert isinstance(rows, list)
        self.assertEqual(rows[0]["outcome"], "error")
        self.assertIn("did not start", rows[0]["error"])


def probe_lines_unbounded() -> list[str]:
    return whatif_report.probe_lines(dict(site="s", family="logger",
                                          why="no slope"), 0.05)


class ReportTest(unittest.TestCase):
    def test_a_probe_without_a_slope_says_so(self) -> None:
        self.assertIn("No bound: no slope.", probe_lines_unbounded())

    def test_the_heading_names_the_rate(self) -> None:
        self.assertEqual(whatif_report.heading(dict(rate="20000")),
                         "Your server at 20,000 requests/s")
        self.assertEqual(whatif_report.heading(dict(rate="max",
                                                    connections=64)),
                         "Your server under wrk, closed loop, 64 "
                         "connections")
        self.assertEqual(whatif_report.heading(dict(
            rate="400", load="c {port} --rate={rate}")),
            "Your server at 400 requests/s (your load command)")
        self.assertEqual(whatif_report.heading(dict(rate="max", load="c")),
                         "Your server under your load command")


if __name__ == "__main__":
    unittest.main()

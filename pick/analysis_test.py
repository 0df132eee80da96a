#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/analysis_test.py
# -----------------------------------------------------------------------------
#
# The one analysis value and the reporters over it (analysis.py,
# analysis.py): the settings and workload reach REPORT.md's commands
# without the command line, the reporters run in their order and see what
# the ones before them wrote, and without charts REPORT.md says there is no
# data to chart while winners.json and the console summary are written.

import contextlib
import io
import os
import shutil
import tempfile
import unittest

from pick.testutil import BASIC

from pick.read import sweeps
from pick.analysis import Analysis, Settings, analyse
from pick.charts.draw import ChartFiles
from pick.report.document import ReportFile, render
from pick.analysis import Reporter, Written, run
from pick.decide.workloads import Workload
from pick.cli import ConsoleSummary, WinnersFile


def analysis_of(out: str, margin: float = 0.05, charts: bool = True
                ) -> Analysis:
    loaded, problems = sweeps.load_dir(BASIC)
    settings = Settings(results_dir=BASIC, out_dir=out, alpha=0.05,
                        margin=margin, charts=charts)
    return analyse(settings, Workload(producers=2), loaded, tuple(problems))


class AnalysisTest(unittest.TestCase):
    def setUp(self) -> None:
        self.out = tempfile.mkdtemp()

    def tearDown(self) -> None:
        shutil.rmtree(self.out)

    def test_settings_reach_the_commands(self) -> None:
        md = render(analysis_of(self.out, margin=0.02), [], None)
        self.assertIn("bazel run //bench:pick -- --producers=2 "
                      "--min-margin=0.02\n", md)
        md = render(analysis_of(self.out), [], None)
        self.assertIn("bazel run //bench:pick -- --producers=2\n", md)

    def test_reporters_run_in_order(self) -> None:
        seen: list[tuple[str, list[tuple[str, str]]]] = []

        class Record(Reporter):
            def __init__(self, name: str) -> None:
                self.name = name

            def report(self, analysis: Analysis, written: Written) -> None:
                seen.append((self.name, list(written.charts)))
                written.charts.append((self.name, self.name + ".png"))
        written = run([Record("a"), Record("b")], analysis_of(self.out))
        self.assertEqual(seen, [("a", []), ("b", [("a", "a.png")])])
        self.assertEqual(len(written.charts), 2)

    def test_every_output_without_charts(self) -> None:
        analysis = analysis_of(self.out, charts=False)
        console = io.StringIO()
        with contextlib.redirect_stdout(console):
            written = run([WinnersFile(), ChartFiles(), ReportFile(),
                           ConsoleSummary()], analysis)
        self.assertEqual((written.charts, written.chart_error), ([], None))
        self.assertEqual(written.winners,
                         os.path.join(self.out, "winners.json"))
        self.assertTrue(os.path.exists(written.winners or ""))
        with open(os.path.join(self.out, "REPORT.md")) as f:
            self.assertIn("No data to chart.", f.read())
        self.assertIn("report: %s" % os.path.join(self.out, "REPORT.md"),
                      console.getvalue())
        self.assertIn(analysis.validation.summary, console.getvalue())


if __name__ == "__main__":
    unittest.main()

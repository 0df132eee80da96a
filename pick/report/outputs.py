# -----------------------------------------------------------------------------
# pick/report/outputs.py
# -----------------------------------------------------------------------------
#
# The console summary's reporter, run last: the recommendation table, the
# reactor policy, the validation's headline, and where winners.json and
# REPORT.md were written (with why the charts were not drawn, on stderr).

from __future__ import annotations

import os
import sys

from pick.analysis import Analysis
from pick.analysis import Reporter, Written
from pick.decide.stats import fmt_ratio
from pick.report.tables import recommendation_rows, text_table
import json
from pick.decide.winners import winners_json


class ConsoleSummary(Reporter):
    """Prints the summary to stdout."""

    def report(self, analysis: Analysis, written: Written) -> None:
        picked = analysis.picked
        print("Recommendation (workload: %s)\n" %
              analysis.workload.describe())
        print(text_table(recommendation_rows(picked)))
        print("'*': some of the class's groups ran more threads than cores "
              "(oversubscribed).")
        print("\nReactor policy: " + ", ".join(
            ["%s %s (%s vs %s)" % (k, e["winner"],
                                   fmt_ratio(e["micro_ratio"]), e["baseline"])
             if e["measured"] and e.get("adopted", True) else
             "%s %s (baseline kept: a tie or no verdict)" % (k, e["winner"])
             if e["measured"] else
             "%s %s (baseline, not measured)" % (k, e["winner"])
             for k, e in picked["reactor"].items()] +
            ["%s not chosen (%s)" % (k, why)
             for k, why in picked["reactor_missing"].items()]))
        print(analysis.validation.summary)
        print("winners: %s" % written.winners)
        if written.chart_error:
            print("pick: charts not drawn: %s" % written.chart_error,
                  file=sys.stderr)
        print("report: %s" % os.path.abspath(written.report or ""))


# The reporter of results/winners.json (winners.winners_json() builds the
# document): the reactor policy the ping-pong validation runs, with every
# class decided. Written first, so that the validation finds its policy even
# where the charts or the report fail.

class WinnersFile(Reporter):
    """Writes winners.json into the output directory."""

    def report(self, analysis: Analysis, written: Written) -> None:
        s = analysis.settings
        doc = winners_json(analysis.picked, analysis.workload, s.results_dir,
                           analysis.loaded, analysis.pingpong,
                           analysis.answers)
        path = os.path.join(s.out_dir, "winners.json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        written.winners = path

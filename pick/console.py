# -----------------------------------------------------------------------------
# pick/console.py
# -----------------------------------------------------------------------------
#
# The console summary's reporter, run last: the recommendation table, the
# reactor policy, the validation's headline, and where winners.json and
# REPORT.md were written (with why the charts were not drawn, on stderr).

from __future__ import annotations

import os
import sys

from pick.analysis import Analysis
from pick.reporter import Reporter, Written
from pick.stats import fmt_ratio
from pick.tables import recommendation_rows, text_table


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

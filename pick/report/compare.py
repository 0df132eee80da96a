# -----------------------------------------------------------------------------
# pick/report/compare.py
# -----------------------------------------------------------------------------
#
# `pick --compare A B` (`make compare A=dir B=dir`): per-benchmark deltas of
# each family's ranking metric between two result directories (two
# machines, two commits), with the U-test's p over the repetitions
# (stats.utest()). Ratios are oriented so that > 1 means B is better.

from __future__ import annotations

import sys
from typing import Optional, TextIO

from pick.read import sweeps
from pick.decide.stats import better_ratio, fmt_ratio, utest
from pick.report.tables import text_table
from pick import records


def metric_for(fr: sweeps.FamilyResults, scenario: str
               ) -> tuple[Optional[str], bool]:
    """(metric, higher) of the file's rule for the scenario; (None, True)
    without one."""
    r = fr.rule(scenario)
    return (r.metric, r.higher) if r else (None, True)


def compare_dirs(a: str, b: str, alpha: float,
                 out: Optional[TextIO] = None) -> int:
    """Prints the comparison (to `out`, default stdout); 0, or 2 when no
    family file is in both directories."""
    out = out or sys.stdout
    la, pa = sweeps.load_dir(a)
    lb, pb = sweeps.load_dir(b)
    for problem in pa + pb:
        print("compare: " + problem, file=sys.stderr)
    common = [f for f in records.FAMILIES if f in la and f in lb]
    if not common:
        print("compare: no family file in both %s and %s" % (a, b),
              file=sys.stderr)
        return 2
    print("Ranking metrics, %s -> %s (ratio > 1: B is better; U-test over "
          "the repetitions, alpha %.2f)" % (a, b, alpha), file=out)
    n_sig = n_all = 0
    for family in common:
        fa, fb = la[family], lb[family]
        rows = []
        for g in fa.groups():
            if g not in fb.cells:
                continue
            metric, higher = metric_for(fa, g[0])
            if metric is None:
                continue
            for impl in sorted(fa.cells[g]):
                ca, cb = fa.cells[g][impl], fb.cells[g].get(impl)
                if cb is None or ca.error or cb.error:
                    continue
                ma, mb = ca.median(metric), cb.median(metric)
                ratio = better_ratio(mb, ma, higher)
                p = utest(ca.reps(metric), cb.reps(metric))
                sig = "?" if p is None else ("yes" if p < alpha else "no")
                n_all += 1
                n_sig += sig == "yes"
                rows.append([records.group_name(family, g[0],
                                                g[1]) + " " + impl,
                             metric, "%.4g" % ma, "%.4g" % mb,
                             fmt_ratio(ratio),
                             "-" if p is None else "%.3f" % p, sig])
        print("\n%s (A: profile %s, B: profile %s)" % (
            family, fa.profile(), fb.profile()), file=out)
        print(text_table(rows, ["benchmark", "metric", "A median",
                                "B median", "B vs A", "p", "significant"]),
              file=out)
    print("\n%d of %d comparisons significant at alpha %.2f" % (
        n_sig, n_all, alpha), file=out)
    for f in records.FAMILIES:
        if (f in la) != (f in lb):
            print("note: %s.json only in %s" % (f, a if f in la else b),
                  file=out)
    return 0

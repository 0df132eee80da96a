# -----------------------------------------------------------------------------
# pick/report/two_runs.py
# -----------------------------------------------------------------------------
#
# Two runs side by side, pick's two commands that compare rather than
# decide: --compare (two result directories, benchmark by benchmark) and
# --repro (two result files of one family, answer by answer).
#
# `pick --compare A B` (`make compare A=dir B=dir`, compare_dirs()):
# per-benchmark deltas of each family's ranking metric between two result
# directories (two machines, two commits), with the U-test's p over the
# repetitions (stats.utest()). Ratios are oriented so that > 1 means B is
# better.
#
# `pick --repro RUN1 RUN2` (`make bench-repro`, bench/repro.sh): two result
# files of one family. Each workload class (no workload narrowing) is
# decided in each run as the recommendation does (picking.pick_class()); a
# winner contradiction is two "above noise" decisions naming different
# winners; a pair contradiction is X beating Y above the noise (in every
# group of the class, same alpha and minimum margin) in one run and Y
# beating X in the other. Prints a row per class, each run's floor and
# drift, and "N contradictions (W winner, P pair) in K classes, M pairs
# compared; H half-disagreements (confident in one run, a tie in the
# other)" (K: the classes measured in both runs). A half-disagreement is
# counted and shown, never a failure.
#
# Two runs in paired rounds (context.serverkit.rounds) are compared by their
# paired ratios (decide/paired_rounds.py): each row gives each run's rounds and
# the
# leading pair's standing in margin.py's words with its interval. A
# contradiction is two answers that point different ways (margin.conflict:
# X ahead in one run and Y in the other, or ahead and equivalent) with
# intervals that do not overlap.
#
# A run whose host drifted is compared all the same (its classes decided as
# if it had not drifted), and the output says which run drifted: the check
# asks whether the statistics give the same answer twice.
#
# Exit status of --repro: 0 when the runs agree, 1 on a contradiction, 2
# on bad or missing files (or files of two families, or without the
# vocabulary). Of --compare: 0, or 2 when no family file is in both
# directories.

from __future__ import annotations

import os
import sys
from typing import Any, Optional, TextIO

from pick.read import sweeps
from pick.decide.paired import PairedRatio, fmt_interval, paired
from pick.decide.ranking import pick_class
from pick.margin import conflict
from pick.decide.paired_rounds import paired_rule, round_ratios
from pick.records import ClassPick
from pick.decide.workloads import FAMILY_SPECS, ClassDef, Workload
from pick.decide.stats import (MIN_MARGIN,
                               better_ratio,
                               drift,
                               drift_veto,
                               floor_detail,
                               fmt_ratio,
                               noise,
                               noise_rule,
                               utest)
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


def beats(fr: sweeps.FamilyResults, groups: list[records.Group], x: str,
          y: str,
          metric: str, higher: bool, alpha: float,
          min_margin: float = MIN_MARGIN) -> bool:
    """X beats Y above the noise in a class: in every one of its groups the
    pairwise noise() test is above, X better."""
    if not groups:
        return False
    for g in groups:
        cx, cy = fr.cells[g].get(x), fr.cells[g].get(y)
        if cx is None or cy is None or cx.error or cy.error:
            return False
        n = noise(cx, cy, metric, higher, alpha, min_margin)
        if n["state"] != "above" or not n["ratio"] > 1:
            return False
    return True


def pair_stats(fr: sweeps.FamilyResults, res: ClassPick, x: str, y: str,
               alpha: float) -> PairedRatio:
    """X over Y per paired round in the class (paired rounds)."""
    metric, higher = res["metric"], res["higher"]
    assert metric is not None and higher is not None, "an unranked class"
    return paired(round_ratios(fr, res["group_keys"], x, y, metric,
                               higher).ratios, alpha)


def paired_state(res: ClassPick, margin: float) -> str:
    """One run's paired decision in margin.py's words: 'x ahead of y by
    more than 5% (by 40.0-62.0%): 1.50x [1.40, 1.62] (15 rounds)'."""
    x = res["paired"]
    st = PairedRatio.from_dict(x)
    n = "%d paired rounds" % st.n
    rounds = res.get("rounds")
    if rounds is not None:
        n = "%d rounds%s" % (rounds, ", budget ended"
                             if res.get("budget_ended") else "")
    if res["noise"] in ("above", "within"):
        return "%s: %s (%s)" % (st.words(x["a"], x["b"], margin),
                                fmt_interval(st), n)
    if res["noise"] == "unknown":
        return "%s %s over %s, no interval (%s)" % (
            x["a"], fmt_interval(st), x["b"], n)
    return "%s: %s (%s)" % (res["noise"], res["verdict"], n)


def repro_state(res: ClassPick, margin: float) -> str:
    """One run's decision in a word or two: 'spsc-ring (above, 1.41x over
    bounded-mpmc)', 'tie: a / b'."""
    if res.get("paired"):
        return paired_state(res, margin)
    w, r = res.get("winner"), res.get("runner_up")
    if w is None:
        return str(res.get("verdict") or "-")
    n = res.get("noise")
    over = "%s over %s" % (fmt_ratio(res.get("margin_over_runner_up")), r)
    if n == "within":
        return "tie: %s / %s" % (w, r)
    if n == "above":
        return "%s (above, %s)" % (w, over)
    if n == "mixed":
        return "%s (%s, %s)" % (w, res["verdict"].replace(
            "larger than the noise", "above"), over)
    if n == "unknown":
        return "%s (noise unknown, %s)" % (w, over)
    return "%s (%s)" % (w, res.get("verdict"))


def _half(o1: int, o2: int) -> Optional[str]:
    """'confident in run 1, a tie in run 2' when only run 1 names a
    direction (+1 or -1; 0: none), and so on."""
    if o1 and not o2:
        return "confident in run 1, a tie in run 2"
    if o2 and not o1:
        return "confident in run 2, a tie in run 1"
    return None


def _apart(x: PairedRatio, y: PairedRatio) -> bool:
    """The two intervals do not overlap."""
    if None in (x.lo, x.hi, y.lo, y.hi):
        return False
    assert x.lo is not None and x.hi is not None
    assert y.lo is not None and y.hi is not None
    return x.hi < y.lo or y.hi < x.lo


def paired_compare(runs: list[tuple[sweeps.FamilyResults, ClassPick]], x: str,
                   y: str, alpha: float, min_margin: float
                   ) -> tuple[bool, Optional[str]]:
    """(contradiction, half-disagreement) of X over Y between two runs in
    paired rounds."""
    st = [pair_stats(fr, res, x, y, alpha) for fr, res in runs]
    o = [s.standing(min_margin) for s in st]
    contra = conflict(o[0], o[1]) and _apart(st[0], st[1])
    return contra, _half(o[0].points(), o[1].points())


def half_disagreement(res: list[ClassPick], fr: list[sweeps.FamilyResults],
                      alpha: float, min_margin: float) -> Optional[str]:
    """Confident in one run, a tie in the other, about a leading pair."""
    if all(r.get("paired") for r in res):
        for r in res:
            _, half = paired_compare(list(zip(fr, res)), r["paired"]["a"],
                                     r["paired"]["b"], alpha, min_margin)
            if half:
                return "%s (%s vs %s)" % (half, r["paired"]["a"],
                                          r["paired"]["b"])
        return None
    o = [1 if r.get("noise") == "above" else 0 for r in res]
    if any(r.get("noise") not in ("above", "within") for r in res):
        return None
    return _half(o[0], o[1])


def repro_class(fr1: sweeps.FamilyResults, fr2: sweeps.FamilyResults,
                cdef: ClassDef,
                alpha: float, min_margin: float
                ) -> tuple[list[str], int, list[str], int, bool, int]:
    """Decides the class in each run and compares. Returns (row,
    winner contradictions, [pair contradictions], pairs compared, compared,
    half-disagreements)."""
    res = [pick_class(fr, cdef, Workload(), alpha, min_margin)
           for fr in (fr1, fr2)]
    row = [cdef.key, repro_state(res[0], min_margin),
           repro_state(res[1], min_margin)]
    if not (res[0]["group_keys"] and res[1]["group_keys"] and
            res[0]["ranking"] and res[1]["ranking"]):
        return row + ["not compared (not ranked in both runs)"], 0, [], 0, \
            False, 0
    both_paired = all(r.get("paired") for r in res)
    runs = list(zip((fr1, fr2), res))
    winner = 0
    w1, w2 = res[0]["winner"], res[1]["winner"]
    if res[0]["noise"] == "above" and res[1]["noise"] == "above" and \
            w1 != w2:
        winner = 1
        # Above the noise, a class has its winner.
        if both_paired and w1 is not None and w2 is not None:
            # only when the two winners' intervals disagree
            winner = int(paired_compare(runs, w1, w2, alpha,
                                        min_margin)[0])
    ranked2 = {r["impl"] for r in res[1]["ranking"]}
    common = sorted(r["impl"] for r in res[0]["ranking"]
                    if r["impl"] in ranked2)
    pairs, n_pairs = [], 0
    for a in range(len(common)):
        for b in range(a + 1, len(common)):
            x, y = common[a], common[b]
            n_pairs += 1
            if both_paired:
                if paired_compare(runs, x, y, alpha, min_margin)[0]:
                    pairs.append("%s and %s swap places, the intervals "
                                 "apart" % (x, y))
                continue
            said = []
            for fr, r in zip((fr1, fr2), res):
                args: tuple[Any, ...] = (r["metric"], r["higher"], alpha,
                                         min_margin)
                said.append((beats(fr, r["group_keys"], x, y, *args),
                             beats(fr, r["group_keys"], y, x, *args)))
            if said[0][0] and said[1][1]:
                pairs.append("%s > %s in run 1, %s > %s in run 2" % (x, y, y,
                                                                     x))
            elif said[0][1] and said[1][0]:
                pairs.append("%s > %s in run 1, %s > %s in run 2" % (y, x, x,
                                                                     y))
    what = []
    if winner:
        what.append("winner %s vs %s" % (res[0]["winner"], res[1]["winner"]))
    what += pairs
    half = None
    if not what:
        half = half_disagreement(res, [fr1, fr2], alpha, min_margin)
    row.append("CONTRADICTION: " + "; ".join(what) if what else
               "half-disagreement: " + half if half else "agree")
    return row, winner, pairs, n_pairs, True, int(half is not None)


def floor_line(label: str, fr: sweeps.FamilyResults,
               drift_threshold: Optional[float] = None) -> str:
    fl = fr.floor_summary()
    dr = drift(fl, drift_threshold)
    return "%s (%s): %s (%d floor repetition(s)); %s" % (
        label, fr.path, floor_detail(fl), fl.row_reps,
        "drifted: %s" % dr["reason"] if dr["drifted"] else "no drift")


def repro(path1: str, path2: str, alpha: float = 0.05,
          min_margin: float = MIN_MARGIN, out: Optional[TextIO] = None,
          err: Optional[TextIO] = None,
          drift_threshold: Optional[float] = None) -> int:
    """--repro: do two runs of one family rank the same way? Prints to `out`
    and `err` (default stdout and stderr). `drift_threshold` replaces the
    files' (--drift-threshold). Returns the exit status: 0 agree, 1
    contradictions, 2 bad files."""
    out = out or sys.stdout
    err = err or sys.stderr
    runs = []
    for path in (path1, path2):
        if not os.path.isfile(path):
            print("repro: %s: no such file" % path, file=err)
            return 2
        try:
            runs.append(sweeps.load_family(path))
        except ValueError as e:
            print("repro: %s" % e, file=err)
            return 2
        except OSError as e:
            print("repro: %s: cannot read (%s)" % (path, e.strerror or e),
                  file=err)
            return 2
    fr1, fr2 = runs
    if fr1.family != fr2.family:
        print("repro: %s is a %s run and %s a %s run; give two runs of the "
              "same family" % (path1, fr1.family, path2, fr2.family),
              file=err)
        return 2
    if fr1.family not in FAMILY_SPECS:
        print("repro: unknown family %r (known: %s)" % (
            fr1.family, ", ".join(records.FAMILIES)), file=err)
        return 2
    print("Reproducibility of %s: run 1 %s, run 2 %s (noise: %s)" % (
        fr1.family, path1, path2,
        paired_rule(alpha, min_margin) if fr1.rounds() and fr2.rounds()
        else noise_rule(alpha, min_margin)), file=out)
    rows, n_winner, n_pair, n_pairs, n_classes, n_half = [], 0, 0, 0, 0, 0
    try:
        for cdef in FAMILY_SPECS[fr1.family].classes:
            row, w, pairs, np_, compared, half = repro_class(
                fr1, fr2, cdef, alpha, min_margin)
            rows.append(row)
            n_half += half
            n_winner += w
            n_pair += len(pairs)
            n_pairs += np_
            n_classes += compared
    except records.VocabularyError as e:
        print("repro: %s" % e, file=err)
        return 2
    print("", file=out)
    print(text_table(rows, ["class", "run 1", "run 2", "verdict"]), file=out)
    print("", file=out)
    for k, fr in enumerate(runs, 1):
        print(floor_line("run %d" % k, fr, drift_threshold), file=out)
    drifted = ["run %d" % k for k, fr in enumerate(runs, 1)
               if drift_veto(fr, drift_threshold)]
    if drifted:
        print("host drifted during %s: the recommendation withholds that "
              "family's winners (\"host drifted: rerun\"); this check still "
              "compares the statistics of both runs" % " and ".join(drifted),
              file=out)
    n = n_winner + n_pair
    print("%d contradictions (%d winner, %d pair) in %d classes, %d pairs "
          "compared; %d half-disagreements (confident in one run, a tie in "
          "the other)" % (n, n_winner, n_pair, n_classes, n_pairs, n_half),
          file=out)
    return 1 if n else 0

# -----------------------------------------------------------------------------
# pick/report/families.py
# -----------------------------------------------------------------------------
#
# REPORT.md's "## Details per family" (details_section(); document.py
# places it after the charts): per family, its floor and drift (and how its
# paired rounds ran), then each workload class: its rule, the ranking with
# every group's median and CV, the verdict with the noise test per group
# (from paired rounds: the paired ratio per group, the margin over the
# baseline with its interval, the host states), the winner's other
# counters, and round-trip latencies also as multiples of the floor.

from __future__ import annotations

import math
import os
from typing import Optional

from pick.read import sweeps
from pick.report.tables import cv, md_table, ns, num
from pick.decide.paired import fmt_interval, fmt_p
from pick.decide.paired_rounds import dependence_text, test_text
from pick.decide.stats import fmt_ratio
from pick.report.tables import as_paired
from pick.records import ClassPick, FamilyPick, PairedStats, Picked
from pick.decide.workloads import FAMILY_SPECS
from pick import records


def _iv(d: Optional[PairedStats]) -> str:
    x = as_paired(d)
    return fmt_interval(x) if x is not None else "-"


def rounds_section(info: records.RoundsInfo) -> list[str]:
    """How the family's paired rounds ran, unit by unit."""
    stops = {"target": "the target reached", "budget": "budget ended",
             "max_rounds": "the most rounds reached"}
    units = ["%s (%s): %s rounds, %s%s" % (
        u.name, ", ".join(u.scenarios), "?" if u.rounds is None else u.rounds,
        stops.get(u.stop or "", u.stop or "stop unknown"),
        "" if u.seconds is None else ", %.1f s" % u.seconds)
        for u in info.units.values()]
    return ["Paired rounds%s: until the leading pair's interval is narrow "
            "enough to decide equivalence at ±%s, %s to %s rounds, budget %s "
            "s (%s s used). %s." % (
                " (%d processes)" % info.processes
                if info.processes > 1 else "",
                "?" if info.target is None else "%.0f%%" % (100 * info.target),
                info.min_rounds or "?", info.max_rounds or "?",
                "?" if info.budget_s is None else "%g" % info.budget_s,
                "?" if info.elapsed_s is None else "%.0f" % info.elapsed_s,
                "; ".join(units) or "No units")]


def floor_section(fr: sweeps.FamilyResults, fam: FamilyPick) -> list[str]:
    """The family's floor: before / after / interleaved, drift, machine, and
    the workload sizes of each scenario."""
    fl: records.FloorSummary = fam["floor"]
    name = fl.row or (records.group_name(fr.family, records.FLOOR_SCENARIO,
                                         ()) +
                      "/" + records.FLOOR_IMPL)
    measured = fl.before_p50_ns or fl.after_p50_ns or fl.row_reps
    if not measured:
        lines = ["Floor (`%s`): not measured in this run (no floor before or "
                 "after the sweep, no floor row; a single core has no pair "
                 "to pin)." % name, ""]
    else:
        lines = ["Floor (`%s`: two pinned threads bouncing cache lines; "
                 "the reference every latency here sits on):" % name, ""]
        rows = [["before the sweep", ns(fl.before_p50_ns),
                 ns(fl.before_p99_ns), "-"],
                ["after the sweep", ns(fl.after_p50_ns),
                 ns(fl.after_p99_ns), "-"],
                ["interleaved row (median of %d)" % fl.row_reps,
                 ns(fl.row_p50_ns), ns(fl.row_p99_ns), cv(fl.row_cv)]]
        lines.append(md_table(["floor", "p50 ns", "p99 ns", "CV of p50"],
                              rows))
        lines.append("")
    pair = fl.core_pair
    schedule = "paired rounds" if fam.get("rounds") else \
        "%s repetitions, interleaved: %s" % (
            fl.repetitions or "?",
            {True: "yes", False: "no"}.get(fl.interleaved, "?"))
    lines.append("Core pair %s; CPU %s, cores: %s; %s; drift threshold "
                 "%.0f%%." % (
                     ",".join(str(c) for c in pair) if pair else "none "
                     "(no floor before/after)", fl.cpu_model or "?",
                     fl.cores or "?", schedule, 100 * fl.threshold))
    if fam["drifted"] and fam.get("rounds"):
        lines.append("")
        lines.append("The floor moved (%s). With paired rounds that is not a "
                     "veto: each class checks whether its paired ratios "
                     "differ between host states." % fam["drift_reason"])
    elif fam["drifted"]:
        lines.append("")
        lines.append("**%s**: no winner in this family." %
                     fam["drift_verdict"])
    else:
        lines.append("No drift (%s)." % ", ".join(
            ["before/after within the threshold"
             if fl.before_p50_ns and fl.after_p50_ns
             else "no before/after floor"] +
            ["interleaved CV within it" if fl.row_cv is not None
             else "no interleaved CV"]))
    rounds = fam.get("rounds")
    if rounds:
        lines.append("")
        lines.extend(rounds_section(rounds))
    sizes = fr.scenario_sizes()
    if sizes:
        lines.append("")
        lines.append("Workload sizes: %s." % "; ".join(
            "%s %s" % (sc, ", ".join("%s %s" % (k, v)
                                     for k, v in sorted(d.items())))
            if isinstance(d, dict) else "%s %s" % (sc, d)
            for sc, d in sorted(sizes.items())))
    return lines


def _vs_floor(fr: sweeps.FamilyResults, res: ClassPick,
              fam: FamilyPick) -> list[str]:
    """Round trips as multiples of the floor: the sweep measures the floor
    just before and after each repetition on the same two cores and records
    p50_x_floor / p99_x_floor (medians over the repetitions here), beside
    the round trip in ns and the floor it was divided by; and, where the
    sweep measured it, p50 over the two-line floor (the reply on a line of
    its own: the least a round trip through two queues can cost)."""
    rows = []
    for g in res["group_keys"]:
        for r in res.get("ranking", []):
            c = fr.cells[g].get(r["impl"])
            if c is None or c.error:
                continue
            rows.append([r["impl"], records.params_str(g[1]) or g[0],
                         ns(c.median("p50_ns")), ns(c.median("floor_ns")),
                         fmt_ratio(c.median("p50_x_floor")),
                         fmt_ratio(c.median("p99_x_floor")),
                         fmt_ratio(c.median("p50_x_two_line_floor"))])
    if not rows:
        return []
    ref = fam["floor"].reference_p50_ns
    return ["", "Round trip as a multiple of the floor measured beside each "
            "repetition (medians over the repetitions; the run's floor: p50 "
            "%s ns):" % ns(ref), "",
            md_table(["implementation", "group", "p50 ns", "floor ns",
                      "p50 / floor", "p99 / floor",
                      "p50 / two-line floor"], rows)]


def class_details(fr: sweeps.FamilyResults, res: ClassPick,
                  fam: Optional[FamilyPick] = None) -> list[str]:
    """One workload class: heading, rule, ranking table, verdict."""
    lines = []
    lines.append("#### %s: %s" % (res["cls"], res["title"]))
    lines.append("")
    metric = res.get("metric")
    if metric is None:
        lines.append(res.get("verdict", "not ranked"))
        return lines
    unit = res.get("unit") or ""  # a ranked class has its rule's unit
    arrow = "higher" if res["higher"] else "lower"
    lines.append("Ranked by `%s` (%s, %s is better; the sweep's rule) over "
                 "%d group(s)%s." % (
                     res["metric"], res["unit"], arrow, len(res["groups"]),
                     "; `*` marks groups with more threads than cores"
                     if res.get("oversubscribed") else ""))
    for n in res.get("notes", []):
        lines.append("Note: %s." % n)
    if not res.get("group_keys"):
        lines.append("")
        lines.append(res.get("verdict", "not measured"))
        return lines
    groups = res["group_keys"]
    base = res.get("baseline")
    head = ["rank", "implementation", "score",
            "vs %s" % (base or "baseline")]
    for s, p in groups:
        over = any(c.oversubscribed for c in fr.cells[(s, p)].values())
        head.append("%s%s%s" % (s + " " if len(res["scenarios"]) > 1 else "",
                                records.params_str(p) or "-",
                                " *" if over else ""))
    scores = {r["impl"]: r["score"] for r in res.get("ranking", [])}
    rows = []
    for k, r in enumerate(res.get("ranking", []), 1):
        impl = r["impl"]
        name = impl + ("" if r["candidate"] else " (not a candidate)")
        if impl == res.get("winner"):
            name = "**%s**" % name
        vs_base = (fmt_ratio(scores[impl] / scores[base])
                   if base in scores else "-")
        row = [str(k), name, "%.3f" % r["score"], vs_base]
        for g in groups:
            c = fr.cells[g][impl]
            row.append("%s (%s)" % (num(c.median(metric), unit),
                                    cv(c.cv(metric))))
        rows.append(row)
    for impl, why in sorted(res.get("partial", {}).items()):
        rows.append(["-", impl, "-", "-"] + [
            ("%s (%s)" % (num(fr.cells[g][impl].median(metric), unit),
                          cv(fr.cells[g][impl].cv(metric)))
             if impl in fr.cells[g] and not fr.cells[g][impl].error else
             ("error" if impl in fr.cells[g] else "-"))
            for g in groups])
    lines.append("")
    lines.append(md_table(head, rows))
    lines.append("")
    lines.append("Score: geometric mean over the groups of median / the "
                 "group's best (1.000 = best everywhere); cells: median "
                 "(CV).%s" % (" Partial rows ran only some groups, or failed "
                              "in one, and are not ranked."
                              if res.get("partial") else ""))
    if res.get("noise") in ("drifted", "split", "disagree",
                            "inconsistent"):
        lines.append("")
        lines.append("Verdict: **%s**." % res["verdict"])
    if res.get("vs_floor") and fam is not None:
        lines.extend(_vs_floor(fr, res, fam))
    if res.get("paired"):
        lines.extend(_paired_details(res))
    elif res.get("winner"):
        lines.append("")
        lines.append("Verdict: **%s** %s; %s." % (
            res["winner"],
            ("by %s over %s" % (fmt_ratio(res["margin_over_runner_up"]),
                                res["runner_up"])) if res.get("runner_up")
            else "(no runner-up)", res["verdict"]))
        gn = res.get("group_noise") or []
        if gn and any(n["state"] != "unknown" for n in gn):
            lines.append("")
            lines.append(md_table(
                ["group", "%s vs %s" % (res["winner"], res["runner_up"]),
                 "U-test p", "larger CV", "repetitions", "above noise"],
                [[n["group"], fmt_ratio(n["ratio"]),
                  "-" if n["p"] is None else "%.3f" % n["p"],
                  cv(n["cv"]), str(n["reps"]),
                  n["state"] + (" (%s)" % n["split"] if n.get("split")
                                else "")] for n in gn]))
    winner = res.get("winner")
    if res.get("show") and winner:
        extras = []
        for g in groups:
            wc = fr.cells[g].get(winner)
            if wc is None:
                continue
            vals = ["%s %s" % (k, num(wc.median(k))) for k in res["show"]
                    if not math.isnan(wc.median(k))]
            if vals:
                label = records.params_str(g[1]) or g[0]
                if len(res["scenarios"]) > 1:
                    label = g[0] + " " + label
                extras.append("%s: %s" % (label, ", ".join(vals)))
        if extras:
            lines.append("")
            lines.append("%s, other counters (median): %s." % (
                res["winner"], "; ".join(extras)))
    return lines


def _paired_details(res: ClassPick) -> list[str]:
    """A class decided from paired rounds: the verdict, the margin over the
    baseline, the paired ratio per group and per host state."""
    x = res["paired"]
    a, b = x["a"], x["b"]
    lines = [""]
    if res.get("winner") and res.get("noise") == "above":
        lines.append("Verdict: **%s**: %s." % (res["winner"], res["verdict"]))
    elif res.get("winner"):
        lines.append("Verdict: %s (first on the class score: **%s**)." % (
            res["verdict"], res["winner"]))
    lines.append("Rounds: %s%s; the class's paired rounds of %s and %s: "
                 "%d." % ("-" if res.get("rounds") is None else res["rounds"],
                          " (budget ended)" if res.get("budget_ended")
                          else "", a, b, x["n"]))
    lead = as_paired(x)
    if lead is not None:
        lines.append(dependence_text(lead, (res.get("selection_paired") or
                                            {}).get("lag1")))
    bpd = res.get("baseline_paired")
    bp = as_paired(bpd)
    if bp is not None and bpd is not None:
        lines.append("Over the baseline %s: %s, %d paired rounds, %s." % (
            bpd["b"], fmt_interval(bp), bp.n, test_text(bp)))
    rows = [[g["group"], _iv(g), str(g["n"]), fmt_p(g["p"])]
            for g in res.get("group_paired") or []]
    if len(rows) > 1:
        lines.append("")
        lines.append(md_table(["group", "%s vs %s (paired)" % (a, b),
                               "rounds", "p"], rows))
    st = x.get("states")
    if st:
        lines.append("")
        lines.append(md_table(
            ["host state", "floor ns", "rounds", "%s vs %s" % (a, b)],
            [[name, ns(floor_ns), str(state["n"]), _iv(state)]
             for name, floor_ns, state in (
                 ("near", st["near_floor_ns"], st["near"]),
                 ("far", st["far_floor_ns"], st["far"]))]))
        lines.append("")
        lines.append("The ratios %s between the states (U-test on the log "
                     "ratios, p %s)." % ("differ" if st["differ"] else
                                         "do not differ", fmt_p(st["p"])))
    return lines


def details_section(picked: Picked, loaded: dict[str, sweeps.FamilyResults]
                    ) -> list[str]:
    """Every family in R.FAMILIES' order, a missing one with the command
    that measures it."""
    L = ["## Details per family"]
    for family in records.FAMILIES:
        fam = picked["families"][family]
        L.append("")
        L.append("### %s" % FAMILY_SPECS[family].title)
        L.append("")
        if fam["missing"]:
            L.append("Not measured: results/%s.json is missing. Run `bazel "
                     "run -c opt //bench:%s`." % (family, family))
            continue
        fr = loaded[family]
        L.append("`%s`, profile %s, baseline%s %s (from the sweep's "
                 "rules)." % (
                     os.path.basename(fr.path), fr.profile(),
                     "s" if len(fam["baselines"]) > 1 else "",
                     ", ".join("`%s`" % b for b in fam["baselines"]) or
                     "none"))
        L.append("")
        L.extend(floor_section(fr, fam))
        for res in fam["classes"]:
            L.append("")
            L.extend(class_details(fr, res, fam))
    return L

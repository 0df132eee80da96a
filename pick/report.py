# -----------------------------------------------------------------------------
# pick/report.py
# -----------------------------------------------------------------------------
#
# results/REPORT.md: the recommendation table first, then the charts (PNG
# files beside it, linked by relative path), the details per family (its
# floor and drift, then each class; round-trip latencies also as multiples
# of the floor: report_details.py), the ping-pong table, the chat broadcast
# and HTTP tables (report_servers.py), latency at set rates of the HTTP
# and ping-pong servers (report_latency.py), the validation verdicts
# (report_pingpong.py), what the model predicted and whether it held
# (report_predict.py), the machine, and the commands that produced it.
# render() returns the Markdown; cli.py writes it.

from __future__ import annotations

import argparse
import os
from typing import Any, Iterable, Optional, Sequence

from pick import results as R
from pick.markdown import md_table
from pick.report_details import class_details, floor_section
from pick.report_latency import latency_section
from pick.report_pingpong import pingpong_section, validation_section
from pick.report_predict import predict_section
from pick.report_servers import chat_section, http_section
from pick.paired import MIN_ROUNDS
from pick.spec import FAMILY_SPECS, Workload
from pick.stats import MIN_MARGIN, fmt_ratio
from pick.tables import HEADER, recommendation_rows
from pick.validation import validation_summary
from pick.decisions import Picked
from pick.shapes import ResultContext, PingpongDoc

Loaded = dict[str, R.FamilyResults]


def _profiles(loaded: Loaded) -> dict[str, str]:
    return {f: fr.profile() for f, fr in loaded.items()}


def _cores(loaded: Loaded, pingpong: Optional[PingpongDoc]) -> Any:
    for fr in loaded.values():
        if fr.cores():
            return fr.cores()
    if pingpong:
        return pingpong.get("context", {}).get("cores")
    return None


def _machine_section(loaded: Loaded,
                     pp: Optional[PingpongDoc]) -> list[str]:
    lines = ["## Machine", ""]
    ctx: ResultContext = next((fr.context for fr in loaded.values()), {})
    cores = _cores(loaded, pp)
    cpus = sorted({m for m in (fr.cpu_model() for fr in loaded.values())
                   if m})
    if cpus:
        lines.append("- CPU: %s." % "; ".join(cpus))
    lines.append("- Cores: %s (host %s, %s MHz); kernel %s." % (
        cores, ctx.get("host_name", "?"), ctx.get("mhz_per_cpu", "?"),
        (pp or {}).get("context", {}).get("kernel", "?")))
    over = []
    for f, fr in loaded.items():
        n = len(fr.oversubscribed_groups())
        if n:
            over.append("%s %d of %d" % (f, n, len(fr.cells)))
    lines.append("- Oversubscribed points (more threads than cores): %s." % (
        "yes: " + ", ".join(over) + " groups" if over else "none"))
    for f, fr in loaded.items():
        c = fr.context
        lines.append("- %s: profile %s, %s, load average %s at start, "
                     "pinning: %s." % (
                         f, fr.profile(), c.get("date", "?"),
                         ", ".join("%.2f" % x for x in c.get("load_avg", []))
                         or "?", c.get("pinning", "?")))
    if ctx.get("library_build_type") == "debug":
        lines.append("- Debian's libbenchmark is built without NDEBUG "
                     "(\"Library was built as DEBUG\"); our code is built "
                     "with -c opt, the timings are valid.")
    return lines


def _commands(loaded: Loaded, pp: Optional[PingpongDoc],
              args: Optional[argparse.Namespace],
              servers: R.ServerRuns) -> list[str]:
    cmds = []
    for f in R.FAMILIES:
        if f in loaded:
            cmds.append("bazel run -c opt //bench:%s -- --profile=%s" % (
                f, loaded[f].profile()))
    if pp:
        cmds.append("bazel run -c opt //bench:pingpong -- --profile=%s" %
                    pp.get("context", {}).get("profile", "default"))
    for name, doc in (("chat", servers.chat), ("http", servers.http)):
        if doc:
            cmds.append("bazel run -c opt //bench:%s -- --profile=%s" % (
                name, doc.get("context", {}).get("profile", "default")))
    flags = []
    if args is not None:
        for k in ("producers", "consumers", "payload"):
            if getattr(args, k, None) is not None:
                flags.append("--%s=%s" % (k, getattr(args, k)))
        if getattr(args, "latency_bound", False):
            flags.append("--latency-bound")
        if getattr(args, "min_margin", MIN_MARGIN) != MIN_MARGIN:
            flags.append("--min-margin=%g" % args.min_margin)
    cmds.append("bazel run //bench:pick" + (" -- " + " ".join(flags)
                                            if flags else ""))
    return cmds


def _reactor_line(picked: Picked) -> str:
    rx = picked["reactor"]
    parts = []
    for key, label in (("task_queue", "task queue"), ("buffer", "buffer"),
                       ("logger", "logger")):
        e = rx.get(key)
        if not e:
            why = picked.get("reactor_missing", {}).get(key)
            if why:
                parts.append("%s not chosen (%s; the validation uses its "
                             "default)" % (label, why))
            continue
        if e.get("measured") is False:
            parts.append("%s `%s` (not measured: %s)" % (
                label, e["winner"], e.get("note", "")))
        elif e.get("adopted") is False:
            parts.append("%s `%s` (%s)" % (label, e["winner"], e["note"]))
        else:
            mp = e.get("micro_paired")
            ratio = ("%.2fx [%.2f, %.2f]" % (mp["ratio"], mp["lo"], mp["hi"])
                     if mp else fmt_ratio(e.get("micro_ratio")))
            parts.append("%s `%s` (%s %s, %s)" % (
                label, e["winner"], ratio, e["baseline"], e.get("source")))
    return ("**Reactor policy** (`winners.json`, \"reactor\"): " +
            "; ".join(parts) + ".")


def _how_to_read_paired(picked: Picked) -> str:
    """Paired rounds in six lines."""
    level = 100 * (1 - picked.get("alpha", 0.05))
    margin = 100 * picked.get("min_margin", MIN_MARGIN)
    return "\n".join([
        "How to read it (paired rounds):",
        "- A round runs every implementation of a group once, back to back "
        "in a fresh random order; a ratio within one round cancels whatever "
        "the host did for longer than the round.",
        "- The sweep's rounds choose each class's leader and runner-up; the "
        "margins come from fresh rounds of those two and the baseline in a "
        "second process (\"confirmation rounds\"), so that no margin is "
        "estimated on the rounds that chose it.",
        "- A margin is the median of the per-round ratios with its %.0f%% "
        "interval (sign test), e.g. \"1.32x [1.21, 1.45]\". The answer is "
        "what the interval shows against the margin m = %g%%: ahead by more "
        "than m (lower end above 1 + m), ahead (lower end above 1), "
        "equivalent within ±m (the whole interval inside it), or not told "
        "apart (anything else: not a claim of no difference); under %d "
        "rounds: unknown." % (level, margin, MIN_ROUNDS),
        "- Host states (rounds split by the floor measured before them) are "
        "data: a class is split only when the states differ and their "
        "answers point different ways; a state too short for an interval "
        "claims nothing.",
        "- The reactor adopts a leader that is ahead of the runner-up in "
        "the confirmation rounds; \"(leads a tie)\" marks one that is "
        "not."])


def _how_to_read(picked: Picked) -> str:
    fams = [f for f in picked["families"].values() if not f["missing"]]
    if fams and all(f.get("rounds") for f in fams):
        return _how_to_read_paired(picked)
    text = _how_to_read_old(picked)
    if any(f.get("rounds") for f in fams):
        text += "\n\n" + _how_to_read_paired(picked)
    return text


def _how_to_read_old(picked: Picked) -> str:
    alpha = picked.get("alpha", 0.05)
    min_margin = picked.get("min_margin", MIN_MARGIN)
    rule = ("the two-sided Mann-Whitney U test over the repetitions gives "
            "p < %.2f and the margin exceeds both the larger coefficient of "
            "variation and %.0f%%" % (alpha, 100 * min_margin))
    return ("How to read it: a class is one or more benchmark groups, "
            "ranked by the metric the sweep's own rules name; "
            "margins are geometric means over them of the winner's median "
            "against the runner-up's and the baseline's, oriented so that "
            "> 1 is better (for latency: baseline / winner). \"Above noise\""
            " means, in every group, %s. With 5 repetitions the smallest "
            "possible p is 0.008; compare.py asks for 9 or more for a U-test "
            "it trusts. Smoke results have one repetition: no verdict. "
            "\"Host drifted: rerun\": the family's floor (a cache-line "
            "round trip) moved by more than its threshold during the sweep, "
            "so no winner is named." % rule)


def _charts_section(charts: Sequence[tuple[str, str]],
                    chart_error: Optional[str],
                    pingpong: Optional[PingpongDoc]) -> list[str]:
    L = ["## Charts", ""]
    if chart_error:
        L.append("> Charts not drawn: %s" % chart_error)
        L.append("")
    elif not charts:
        L.append("No data to chart.")
        L.append("")
    for title, name in charts:
        L.append("### " + title)
        L.append("")
        L.append("![%s](%s)" % (title, name))
        L.append("")
    summary, entries = validation_summary(pingpong)
    if not chart_error and not entries:
        L.append("(No validation chart: %s.)" % summary)
        L.append("")
    return L


def _details(picked: Picked, loaded: Loaded) -> list[str]:
    L = ["## Details per family"]
    for family in R.FAMILIES:
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


def render(picked: Picked, loaded: Loaded,
           pingpong: Optional[PingpongDoc], workload: Workload,
           charts: Sequence[tuple[str, str]], chart_error: Optional[str],
           results_dir: str, args: Optional[argparse.Namespace] = None,
           problems: Iterable[str] = (),
           servers: R.ServerRuns = R.ServerRuns()) -> str:
    """REPORT.md's text, from winners.pick_all()'s result and the files."""
    profiles = _profiles(loaded)
    cores = _cores(loaded, pingpong)
    L = ["# serverkit: what to put in your server", ""]
    L.append("From the sweeps in `%s` (%s), on %s cores. Workload: %s." % (
        os.path.basename(os.path.abspath(results_dir)) + "/",
        ", ".join("%s: %s profile" % (f, p) for f, p in profiles.items()),
        cores, workload.describe()))
    L.append("")
    L.append("## Recommendation")
    L.append("")
    L.append(md_table(HEADER, recommendation_rows(picked)))
    L.append("")
    L.append("`*`: some of the class's groups ran more threads than cores "
             "(oversubscribed).")
    L.append("")
    L.append(_reactor_line(picked))
    L.append("")
    L.append("**End to end:** %s." % validation_summary(pingpong)[0])
    L.append("")
    L.append(_how_to_read(picked))
    # With paired rounds a drifted floor is data (each class's host
    # states), not a reason to rerun.
    drifted = [f for f in R.FAMILIES
               if picked["families"][f].get("drifted") and
               not picked["families"][f].get("rounds")]
    if drifted:
        L.append("")
        L.append("**Host drifted: rerun** %s (see each family's floor "
                 "below)." % ", ".join(drifted))
    if workload.given():
        L.append("")
        L.append("Narrowed to the workload (%s): classes that do not fit it "
                 "are left out and parameters are the nearest measured." %
                 workload.describe())
    for p in problems:
        L.append("")
        L.append("Skipped: " + p)

    L.append("")
    L.extend(_charts_section(charts, chart_error, pingpong))
    L.extend(_details(picked, loaded))
    L.append("")
    L.extend(pingpong_section(pingpong))
    L.append("")
    L.extend(chat_section(servers.chat))
    L.append("")
    L.extend(http_section(servers.http))
    L.append("")
    L.extend(latency_section(servers.http, pingpong,
                             [name for _, name in charts]))
    L.append("")
    L.extend(validation_section(pingpong))
    L.append("")
    L.extend(predict_section(pingpong))
    L.append("")
    L.extend(_machine_section(loaded, pingpong))
    L.append("")
    L.append("## Commands that produced this report")
    L.append("")
    L.append("```")
    L.extend(_commands(loaded, pingpong, args, servers))
    L.append("```")
    L.append("")
    L.append("`make bench` runs them all (`PROFILE=full make bench` for the "
             "long sweep, `make bench-quick` for a smoke run); `make compare "
             "A=dir B=dir` compares two result sets.")
    L.append("")
    return "\n".join(L)

# -----------------------------------------------------------------------------
# pick/report/document.py
# -----------------------------------------------------------------------------
#
# results/REPORT.md, section by section: what to put in your server first
# (answer_section()), the micro recommendation table under it (with the
# words under it: reactor_line(), how_to_read()), then the charts (PNG files
# beside it, linked by relative path), the details per family (its floor
# and drift, then each class: families.py), the ping-pong, chat broadcast
# and HTTP tables (servers.py), latency at set rates of the HTTP and
# ping-pong servers (latency.py), the validation verdicts (endtoend.py),
# what the model predicted and whether it held (predicted.py), the machine
# and the commands that produced it (machine_section(), commands()).
# render() returns the Markdown; ReportFile, pick's REPORT.md reporter,
# writes it after the charts are drawn.

from __future__ import annotations

import os
from typing import Any, Optional, Sequence

from pick.read import sweeps
from pick.analysis import Analysis, Reporter, Validation, Written
from pick.report.tables import HEADER, md_table, recommendation_rows
from pick.report.families import details_section
from pick.report.latency import latency_section
from pick.report.servers import chat_section, http_section, pingpong_section
from pick.report.predicted import predict_section
from pick.report.endtoend import validation_section
from pick.records import PingpongDoc, Picked, ResultContext
from pick.decide.paired_rounds import CONFIRM_PROCESSES
from pick.decide.server_answer import BASES, COMPONENTS, WORKLOADS, Answer
from pick.decide.stats import MIN_MARGIN, fmt_ratio
from pick import records

# REPORT.md's first section, "What to put in your server": one line per
# component and server workload (server_answer.Answer), strongest evidence
# first, then where the load map says the choice changes. The micro
# recommendation table under it is the evidence this answer starts from.

ANSWER_HEADER = ["Component", "Server workload", "Put in", "Basis", "Why"]


def answer_rows(found: Sequence[Answer]) -> list[list[str]]:
    comp, wl = dict(COMPONENTS), dict(WORKLOADS)
    order = sorted(found, key=lambda a: (BASES.index(a.basis), [
        c for c, _ in COMPONENTS].index(a.component)))
    return [[comp.get(a.component, a.component),
             wl.get(a.workload, a.workload),
             "`%s`" % a.choice if a.choice else "-", a.basis, a.why]
            for a in order]


def answer_section(found: Sequence[Answer]) -> list[str]:
    L = ["## What to put in your server", ""]
    if not found:
        L += ["No answer: no reactor policy was picked (run the sweeps "
              "first).", ""]
        return L
    L.append("One line per component and workload on which the component "
             "sits, from the strongest evidence there is: measured end to "
             "end (the validation's verdict), else predicted where the "
             "model's check at that workload is consistent, else the micro "
             "sweep alone. A candidate refuted end to end at a workload is "
             "never put in for it.")
    L.append("")
    L.append(md_table(ANSWER_HEADER, answer_rows(found)))
    L.append("")
    loads = []
    for c, label in COMPONENTS:
        text = next((a.load for a in found
                     if a.component == c and a.load), None)
        if text:
            loads.append("- %s: %s." % (label, text))
    if loads:
        L += ["Where the load changes the answer (the validation's load "
              "map: 1 to 1000 sessions, predicted from each component's "
              "exchange rate; a micro pick the map predicts worse than its "
              "baseline by more than the margin is not put in):", ""] + \
            loads + [""]
    return L


# The words under REPORT.md's recommendation table (render() places
# them): the reactor policy that winners.json hands the validation, and how
# to read the table's margins and answers, for paired rounds or for the
# older sweeps of independent repetitions (U-test and noise).

def reactor_line(picked: Picked) -> str:
    rx = picked["reactor"]
    parts = []
    for key, label in (("task_queue", "task queue"), ("buffer", "buffer"),
                       ("logger", "logger"), ("thread_pool", "thread pool")):
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
        "margins come from fresh rounds of those two and the baseline in "
        "%d fresh processes (\"confirmation rounds\"), so that no margin "
        "is estimated on the rounds that chose it and every interval "
        "carries what differs from one process to the next." % (
            CONFIRM_PROCESSES),
        "- A margin is the mean over the processes of each one's median "
        "ratio, with its %.0f%% t interval over the processes, e.g. "
        "\"1.32x [1.21, 1.45]\" (a sweep alone: the rounds' median and "
        "sign-test interval). The answer is what the interval shows "
        "against the margin m = %g%%: ahead by more than m (lower end above "
        "1 + m), ahead (lower end above 1), equivalent within ±m (the %.0f%% "
        "interval inside it: TOST), or not told apart (anything else: not "
        "a claim of no difference); without an interval: unknown. Processes "
        "that point the pair different ways say so, and adopt nothing." % (
            level, margin, 2 * level - 100),
        "- Host states (rounds split by the floor measured before them) are "
        "data: a class is split only when the states differ and their "
        "answers point different ways; a state too short for an interval "
        "claims nothing.",
        "- The reactor adopts a leader that is ahead of the runner-up and "
        "of the baseline in the confirmation rounds; \"(leads a tie)\" "
        "marks one that is not ahead of the runner-up."])


def how_to_read(picked: Picked) -> str:
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
                    validation: Validation) -> list[str]:
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
    if not chart_error and not validation.entries:
        L.append("(No validation chart: %s.)" % validation.summary)
        L.append("")
    return L


def render(analysis: Analysis, charts: Sequence[tuple[str, str]],
           chart_error: Optional[str]) -> str:
    """REPORT.md's text, from the analysis and the charts drawn ([(title,
    file name)]; chart_error: why none could be)."""
    picked, loaded = analysis.picked, analysis.loaded
    pingpong, servers = analysis.pingpong, analysis.servers
    workload = analysis.workload
    profiles = {f: fr.profile() for f, fr in loaded.items()}
    L = ["# serverkit: what to put in your server", ""]
    L.append("From the sweeps in `%s` (%s), on %s cores. Workload: %s." % (
        os.path.basename(os.path.abspath(analysis.settings.results_dir)) +
        "/",
        ", ".join("%s: %s profile" % (f, p) for f, p in profiles.items()),
        cores(loaded, pingpong), workload.describe()))
    L.append("")
    L.extend(answer_section(analysis.answers))
    L.append("## Micro recommendation: the evidence under the answer")
    L.append("")
    L.append(md_table(HEADER, recommendation_rows(picked)))
    L.append("")
    L.append("`*`: some of the class's groups ran more threads than cores "
             "(oversubscribed). \"Adopted\" here is the micro answer for "
             "that class alone; the table above decides what goes in a "
             "server.")
    L.append("")
    L.append(reactor_line(picked))
    L.append("")
    L.append("**End to end:** %s." % analysis.validation.summary)
    L.append("")
    L.append(how_to_read(picked))
    # With paired rounds a drifted floor is data (each class's host
    # states), not a reason to rerun.
    drifted = [f for f in records.FAMILIES
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
    for p in analysis.problems:
        L.append("")
        L.append("Skipped: " + p)

    L.append("")
    L.extend(_charts_section(charts, chart_error, analysis.validation))
    L.extend(details_section(picked, loaded))
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
    L.extend(machine_section(loaded, pingpong))
    L.append("")
    L.append("## Commands that produced this report")
    L.append("")
    L.append("```")
    L.extend(commands(analysis))
    L.append("```")
    L.append("")
    L.append("`make bench` runs them all (`PROFILE=full make bench` for the "
             "long sweep, `make bench-quick` for a smoke run); `make compare "
             "A=dir B=dir` compares two result sets.")
    L.append("")
    return "\n".join(L)


class ReportFile(Reporter):
    """Writes REPORT.md into the output directory, after the charts
    reporter (it links the charts drawn, or says why there are none)."""

    def report(self, analysis: Analysis, written: Written) -> None:
        path = os.path.join(analysis.settings.out_dir, "REPORT.md")
        with open(path, "w") as f:
            f.write(render(analysis, written.charts, written.chart_error))
        written.report = path


# Where REPORT.md's numbers come from, its last two sections (render()
# places them): "## Machine" (the CPU, cores, kernel, each family's profile,
# date, load and pinning, and the threads that outnumbered the cores) and
# the commands that produced the report, pick's own with its flags.

Loaded = dict[str, sweeps.FamilyResults]


def cores(loaded: Loaded, pingpong: Optional[PingpongDoc]) -> Any:
    for fr in loaded.values():
        if fr.cores():
            return fr.cores()
    if pingpong:
        return pingpong.get("context", {}).get("cores")
    return None


def machine_section(loaded: Loaded,
                    pp: Optional[PingpongDoc]) -> list[str]:
    lines = ["## Machine", ""]
    ctx: ResultContext = next((fr.context for fr in loaded.values()), {})
    n_cores = cores(loaded, pp)
    cpus = sorted({m for m in (fr.cpu_model() for fr in loaded.values())
                   if m})
    if cpus:
        lines.append("- CPU: %s." % "; ".join(cpus))
    lines.append("- Cores: %s (host %s, %s MHz); kernel %s." % (
        n_cores, ctx.get("host_name", "?"), ctx.get("mhz_per_cpu", "?"),
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


def commands(analysis: Analysis) -> list[str]:
    """The commands that wrote the files read, then pick's own, with the
    flags that changed what it decided."""
    loaded, pp = analysis.loaded, analysis.pingpong
    servers = analysis.servers
    cmds = []
    for f in records.FAMILIES:
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
    w = analysis.workload
    for k, v in (("producers", w.producers), ("consumers", w.consumers),
                 ("payload", w.payload)):
        if v is not None:
            flags.append("--%s=%s" % (k, v))
    if w.latency_bound:
        flags.append("--latency-bound")
    if analysis.settings.margin != MIN_MARGIN:
        flags.append("--min-margin=%g" % analysis.settings.margin)
    cmds.append("bazel run //bench:pick" + (" -- " + " ".join(flags)
                                            if flags else ""))
    return cmds

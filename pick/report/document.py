# -----------------------------------------------------------------------------
# pick/report/document.py
# -----------------------------------------------------------------------------
#
# results/REPORT.md, section by section: what to put in your server first
# (answer.py), the micro recommendation table under it (with the words
# under it: recommendation.py), then the charts (PNG files
# beside it, linked by relative path), the details per family (its floor
# and drift, then each class: families.py), the ping-pong table
# (pingpong.py), the chat broadcast and HTTP tables (servers.py), latency
# at set rates of the HTTP and ping-pong servers (latency.py), the
# validation verdicts (read/validation_rows.py), what the model predicted and
# whether
# it held (predict.py), the machine, and the commands that produced it
# (provenance.py). render() returns the Markdown; ReportFile, pick's
# REPORT.md reporter, writes it after the charts are drawn.

from __future__ import annotations

import os
from typing import Any, Optional, Sequence

from pick.read import sweeps
from pick.analysis import Analysis, Reporter, Validation, Written
from pick.report.tables import HEADER, md_table, recommendation_rows
from pick.report.answer import answer_section, how_to_read, reactor_line
from pick.report.families import details_section
from pick.report.latency import latency_section
from pick.report.servers import chat_section, http_section, pingpong_section
from pick.report.predicted import predict_section
from pick.report.endtoend import validation_section
from pick.records import PingpongDoc, ResultContext
from pick.decide.stats import MIN_MARGIN
from pick import records


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


# Where REPORT.md's numbers come from, its last two sections (document.py
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

# -----------------------------------------------------------------------------
# pick/report/provenance.py
# -----------------------------------------------------------------------------
#
# Where REPORT.md's numbers come from, its last two sections (document.py
# places them): "## Machine" (the CPU, cores, kernel, each family's profile,
# date, load and pinning, and the threads that outnumbered the cores) and
# the commands that produced the report, pick's own with its flags.

from __future__ import annotations

from typing import Any, Optional

from pick import results as R
from pick.analysis import Analysis
from pick.shapes import PingpongDoc, ResultContext
from pick.stats import MIN_MARGIN

Loaded = dict[str, R.FamilyResults]


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

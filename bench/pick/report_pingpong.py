# -----------------------------------------------------------------------------
# bench/pick/report_pingpong.py
# -----------------------------------------------------------------------------
#
# REPORT.md's end-to-end sections (report.py places them after the details
# per family): "## Ping-pong", echo MiB/s of our server, Asio and libevent by
# sessions with the ratios between them, and "## Validation", whether the
# micro-benchmark winners of the reactor policy held end to end
# (validation.py reads pingpong.json's "validation").

from __future__ import annotations

import statistics
from typing import Any, Optional

from markdown import md_table
from stats import fmt_ratio
from validation import validation_problem, validation_summary


def pingpong_section(pp: Optional[dict[str, Any]]) -> list[str]:
    lines = ["## Ping-pong", ""]
    if not pp:
        lines.append("Not run: results/pingpong.json is missing (`bazel run "
                     "-c opt //bench:pingpong`).")
        return lines
    ctx = pp.get("context", {})
    lines.append("Profile %s, %s cores, %s s per echo point, %s "
                 "repetition(s), load average %s at start; pin: %s. MiB/s "
                 "(echo), and each server's CPU milliseconds per MiB echoed "
                 "(utime + stime over the client's run, connects included; "
                 "lower is better, and it still ranks servers where the "
                 "client is the bottleneck); `!` a point that ran unclean, "
                 "`c` the client at its CPU ceiling." % (
                     ctx.get("profile"), ctx.get("cores"),
                     ctx.get("seconds_per_point"), ctx.get("repetitions"),
                     ctx.get("loadavg_at_start"), ctx.get("pin")))
    echo = pp.get("echo", [])
    servers: list[str] = []
    for r in echo:
        if r["server"] not in servers:
            servers.append(r["server"])
    servers.sort(key=lambda s: (s != "serverkit", s not in ("asio",
                                                            "libevent"), s))
    refs = [s for s in ("asio", "libevent") if s in servers]
    for t, b in sorted({(r["server_threads"], r["blocksize"]) for r in echo}):
        rows = []
        for n in sorted({r["sessions"] for r in echo}):
            per = {s: [r for r in echo if (r["server"], r["server_threads"],
                                           r["blocksize"], r["sessions"]) ==
                       (s, t, b, n)] for s in servers}
            if not any(per.values()):
                continue
            med: dict[str, Optional[float]] = {}
            row = [str(n)]
            for s in servers:
                vals = [r["mib_per_s"] for r in per[s]
                        if r.get("ok") and r.get("mib_per_s")]
                m = med[s] = statistics.median(vals) if vals else None
                mark = "" if per[s] and all(r.get("ok") for r in per[s]) \
                    else " !"
                if any(r.get("client_bound") for r in per[s]):
                    mark += " c"
                row.append(("%.1f" % m if m else "-") + mark)
            for s in servers:
                cpu = [r["server_cpu_ms_per_mib"] for r in per[s]
                       if r.get("ok") and r.get("server_cpu_ms_per_mib")]
                row.append("%.2f" % statistics.median(cpu) if cpu else "-")
            for ref in refs:
                for s in servers:
                    if s in refs:
                        continue
                    ms, mr = med[s], med[ref]
                    row.append(fmt_ratio(ms / mr) if ms and mr else "-")
            rows.append(row)
        head = ["sessions"] + servers + [
            "%s CPU ms/MiB" % s for s in servers] + [
            "%s/%s" % (s, ref) for ref in refs for s in servers
            if s not in refs]
        lines.append("")
        lines.append("Echo, %d threads, %d-byte blocks:" % (t, b))
        lines.append("")
        lines.append(md_table(head, rows))
    for note in pp.get("notes", []):
        lines.append("")
        lines.append("Note: " + note)
    return lines


def validation_section(pp: Optional[dict[str, Any]]) -> list[str]:
    summary, entries = validation_summary(pp)
    lines = ["## Validation: did the micro winners hold end to end?", ""]
    problem = validation_problem(pp)
    if problem is not None:
        lines.append("Validation unreadable: %s." % problem)
        return lines
    if not entries or pp is None:
        lines.append("Validation not run: results/pingpong.json has no "
                     "\"validation\" key. `bazel run -c opt //bench:pingpong` "
                     "runs our server with the policy in results/winners.json "
                     "(\"reactor\") against the baseline policy.")
        return lines
    lines.append("**%s.**" % (summary[0].upper() + summary[1:]))
    lines.append("")
    cols = [("component", "component"), ("case", "case"), ("mode", "mode"),
            ("winner", "winner"), ("baseline", "baseline"),
            ("micro_ratio", "micro ratio"), ("micro_source", "micro source"),
            ("e2e_ratio", "end-to-end ratio"), ("noise", "noise"),
            ("verdict", "verdict")]
    cols = [(k, h) for k, h in cols if any(k in e for e in entries)]
    rows = []
    for e in entries:
        row = []
        for k, _ in cols:
            v = e.get(k)
            if isinstance(v, float):
                if k.endswith("ratio"):
                    v = fmt_ratio(v)
                elif k == "noise":
                    v = "+-%.1f%%" % (100 * v)
                else:
                    v = "%.4g" % v
            row.append("-" if v is None else str(v))
        rows.append(row)
    lines.append(md_table([h for _, h in cols], rows))
    v = pp.get("validation")
    if not isinstance(v, dict):
        v = {}
    if v.get("noise_floor") is not None:
        lines.append("")
        lines.append("End-to-end ratio: the winner's median ping-pong MiB/s "
                     "over the baseline's, %s alternating repetition(s) of "
                     "%s s each. Noise: half the spread of the per-pair "
                     "ratios, at least +-%.0f%%; a ratio within 1 +- noise is "
                     "\"no difference\", above it \"held\", below it "
                     "\"refuted\"." % (
                         v.get("repetitions", "?"),
                         v.get("seconds_per_run", "?"),
                         100 * v["noise_floor"]))
    for n in v.get("notes", []) or []:
        lines.append("")
        lines.append("Note: %s" % n)
    return lines

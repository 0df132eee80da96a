# -----------------------------------------------------------------------------
# pick/report/pingpong.py
# -----------------------------------------------------------------------------
#
# REPORT.md's "## Ping-pong" section (document.py places it after the
# details per family): echo MiB/s of our server, Asio and libevent by
# sessions with the ratios between them, then the sweep's paired summary
# (each server against Asio and libevent over every point at once, with its
# 95% interval; servers/driver/side_by_side.py).

from __future__ import annotations

import statistics
from typing import Any, Optional

from pick.markdown import STANDING_HOW, md_table, paired_table
from pick.stats import fmt_ratio
from pick.shapes import PingpongDoc


def pingpong_section(pp: Optional[PingpongDoc]) -> list[str]:
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
    lines += _paired_lines(pp.get("paired", []))
    for note in pp.get("notes", []):
        lines.append("")
        lines.append("Note: " + note)
    return lines


PAIRED_METRICS = (("server_cpu_ms_per_mib", "CPU ms/MiB"),
                  ("mib_per_s", "MiB/s"))


def _paired_lines(paired: list[Any]) -> list[str]:
    """The paired summary as one table; nothing for a sweep without it."""
    table = paired_table(paired, PAIRED_METRICS)
    if table is None:
        return []
    return ["", "Paired over every echo point and repetition: the ratio of "
            "two servers' runs at the same point and repetition, summarised "
            "by the Hodges-Lehmann estimate [exact 95% interval], "
            "signed-rank p and n ratios; server-bound points leave out "
            "those marked `c`. " + STANDING_HOW, "", table]

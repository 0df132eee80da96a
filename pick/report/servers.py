# -----------------------------------------------------------------------------
# pick/report/servers.py
# -----------------------------------------------------------------------------
#
# REPORT.md's sections for the two server workloads beside the ping-pong
# (document.py places them after it): "## Chat broadcast" from
# results/chat.json (servers/chat: the time until all K clients have one
# broadcast message, our server against Boost.Asio's chat example shape)
# and "## HTTP under wrk" from results/http.json (servers/http: requests/s of
# our server, nginx, Boost.Beast and libevent's evhttp, access log off and
# on, ratios to nginx with the same access-log setting).
#
# Medians over a point's repetitions; `!` a point with an unclean
# repetition, `c` one where the load generator was at its CPU ceiling (the
# figure then bounds the server from below).

from __future__ import annotations

import statistics
from typing import Any, Callable, Optional, TypeVar, Union, cast

from pick.report.tables import STANDING_HOW, md_table, paired_table
from pick.decide.stats import fmt_ratio
from pick.records import ChatDoc, ChatPoint, HttpDoc, HttpPoint
from pick.records import PingpongDoc

# A chat or HTTP point, or either file.
Record = TypeVar("Record", ChatPoint, HttpPoint)
Doc = Union[ChatDoc, HttpDoc]

# Each server of the HTTP workload and the nginx it is compared with.
HTTP_REFERENCE = {"serverkit": "nginx", "serverkit-uring": "nginx",
                  "serverkit-log": "nginx-log", "beast": "nginx",
                  "evhttp": "nginx"}
MARKS = ("`!`: a repetition of the point ran unclean (left out of the "
         "median); `c`: the load generator was at its CPU ceiling, so the "
         "figure bounds the server from below.")
HTTP_ORDER = ["serverkit", "serverkit-uring", "nginx", "beast", "evhttp",
              "serverkit-log", "nginx-log"]
# Ours over epoll and over io_uring, each compared with Asio's chat server.
CHAT_OURS = ["serverkit", "serverkit-uring"]


def _median(recs: list[Record], get: Callable[[Record], Any]
            ) -> Optional[float]:
    vals = []
    for r in recs:
        if not r.get("ok"):
            continue
        try:
            v = get(r)
        except (KeyError, TypeError):
            continue
        if isinstance(v, (int, float)) and v > 0:
            vals.append(float(v))
    return statistics.median(vals) if vals else None


def _marks(recs: list[Record]) -> str:
    mark = "" if recs and all(r.get("ok") for r in recs) else " !"
    if any(r.get("client_bound") for r in recs):
        mark += " c"
    return mark


def _fmt(v: Optional[float], spec: str) -> str:
    return spec % v if v is not None else "-"


def _servers(points: list[Record], order: list[str]) -> list[str]:
    seen: list[str] = []
    for r in points:
        if str(r.get("server")) not in seen:
            seen.append(str(r.get("server")))
    return sorted(seen, key=lambda s: (order.index(s) if s in order
                                       else len(order), str(s)))


def _notes(doc: Doc) -> list[str]:
    lines = []
    if doc.get("interrupted"):
        lines += ["", "Note: the run was interrupted; the table shows what "
                  "ran."]
    for note in doc.get("notes", []) or []:
        lines += ["", "Note: " + str(note)]
    return lines


CHAT_PAIRED = (("server_cpu_us_per_delivery", "CPU us/delivery"),
               ("round_ms", "round ms"))
HTTP_PAIRED = (("server_cpu_us_per_request", "CPU us/request"),
               ("p99_ms", "p99 latency"), ("requests_per_s", "requests/s"))
PAIRED_HOW = ("the ratio of two servers' runs at the same point and "
              "repetition, summarised by the Hodges-Lehmann estimate [exact "
              "95% interval], signed-rank p and n ratios; server-bound points "
              "leave out those marked `c`. " + STANDING_HOW)


def chat_section(chat: Optional[ChatDoc]) -> list[str]:
    lines = ["## Chat broadcast", ""]
    if not chat:
        lines.append("Not run: results/chat.json is missing (`bazel run -c "
                     "opt //bench:chat`).")
        return lines
    ctx = chat.get("context", {})
    args = (ctx.get("profile"), ctx.get("cores"), ctx.get("rounds"),
            ctx.get("message_size"), ctx.get("repetitions"),
            ctx.get("loadavg_at_start"), ctx.get("pin"), MARKS)
    lines.append(
        "Profile %s, %s cores, %s rounds of one %s-byte message per point, "
        "%s repetition(s), load average %s at start; pin: %s. Round: the "
        "time from the send until all K clients (the sender included) had "
        "the message, median over the rounds (lower is better); delivery "
        "p99: per receiver, over all rounds; CPU: the server's utime + "
        "stime per message delivered. `serverkit/asio` (and "
        "`serverkit-uring/asio`) < 1: ours is faster. %s" % args)
    points = chat.get("points", [])
    servers = _servers(points, CHAT_OURS + ["asio"])
    ours = [s for s in CHAT_OURS if s in servers and "asio" in servers]
    for t in sorted({r["threads"] for r in points}):
        rows = []
        for k in sorted({r["clients"] for r in points
                         if r["threads"] == t}):
            per = {s: [r for r in points if (r["server"], r["threads"],
                                             r["clients"]) == (s, t, k)]
                   for s in servers}
            rnd = {s: _median(per[s], lambda r: r["round_ms"]["p50"])
                   for s in servers}
            row = [str(k)]
            row += [_fmt(rnd[s], "%.2f") + _marks(per[s]) for s in servers]
            row += [_fmt(_median(per[s], lambda r: r["delivery_us"]["p99"]),
                         "%.0f") for s in servers]
            row += [_fmt(_median(per[s], lambda r:
                                 r["server_cpu_us_per_delivery"]), "%.2f")
                    for s in servers]
            for s in ours:
                mine, ref = rnd.get(s), rnd.get("asio")
                row.append(fmt_ratio(mine / ref) if mine and ref else "-")
            rows.append(row)
        head = ["K clients"] + ["%s round ms" % s for s in servers] + [
            "%s delivery p99 us" % s for s in servers] + [
            "%s CPU us/delivery" % s for s in servers]
        head += ["%s/asio round" % s for s in ours]
        lines += ["", "%d server thread%s:" % (t, "" if t == 1 else "s"), "",
                  md_table(head, rows)]
    table = paired_table(chat.get("paired", []), CHAT_PAIRED)
    if table is not None:
        lines += ["", "Paired over every (threads, K, repetition): " +
                  PAIRED_HOW, "", table]
    return lines + _notes(chat)


def nginx_settings(ctx: Any) -> str:
    """" (2 workers, reuseport, worker_cpu_affinity 01 10)": how nginx
    ran, where http.json says; "" for a file from before it did."""
    ns = ctx.get("nginx_settings") if isinstance(ctx, dict) else None
    if not isinstance(ns, dict):
        return ""
    parts = ["%s worker(s)" % ns.get("workers", "?"),
             "reuseport" if ns.get("reuseport") else "no reuseport"]
    if ns.get("worker_cpu_affinity"):
        parts.append("worker_cpu_affinity %s" % ns["worker_cpu_affinity"])
    return " (%s)" % ", ".join(parts)


def http_section(http: Optional[HttpDoc]) -> list[str]:
    lines = ["## HTTP under wrk", ""]
    if not http:
        lines.append("Not run: results/http.json is missing (`bazel run -c "
                     "opt //bench:http`).")
        return lines
    ctx = http.get("context", {})
    lines.append(
        "Profile %s, %s cores, `wrk -t%s --latency`, %s s per point, %s "
        "repetition(s), load average %s at start; pin: %s; nginx %s. "
        "Requests/s (median over the repetitions), wrk's latency p50 and "
        "p99, the server's CPU microseconds per request; each server's "
        "ratio is to nginx with the same access-log setting (> 1: faster "
        "than nginx). %s" % (
            ctx.get("profile"), ctx.get("cores"), ctx.get("wrk_threads"),
            ctx.get("seconds_per_point"), ctx.get("repetitions"),
            ctx.get("loadavg_at_start"), ctx.get("pin"),
            ctx.get("nginx_version", "?") + nginx_settings(ctx), MARKS))
    points = http.get("points", [])
    servers = _servers(points, HTTP_ORDER)
    for t, c in sorted({(r["threads"], r["connections"]) for r in points}):
        per = {s: [r for r in points if (r["server"], r["threads"],
                                         r["connections"]) == (s, t, c)]
               for s in servers}
        rps = {s: _median(per[s], lambda r: r["requests_per_s"])
               for s in servers}
        rows = []
        for s in servers:
            if not per[s]:
                continue
            ref = HTTP_REFERENCE.get(s)
            mine, theirs = rps[s], rps.get(ref or "")
            ratio = "-"
            if ref and mine and theirs:
                ratio = "%s (vs %s)" % (fmt_ratio(mine / theirs), ref)
            rows.append([
                s, "on" if per[s][0].get("access_log") else "off",
                _fmt(rps[s], "%.0f") + _marks(per[s]),
                _fmt(_median(per[s], lambda r: r["latency_ms"]["p50"]),
                     "%.3f"),
                _fmt(_median(per[s], lambda r: r["latency_ms"]["p99"]),
                     "%.3f"),
                _fmt(_median(per[s], lambda r:
                             r["server_cpu_us_per_request"]), "%.1f"),
                ratio])
        lines += ["", "%d server thread%s, %d connections:" % (
            t, "" if t == 1 else "s", c), "",
            md_table(["server", "access log", "requests/s", "p50 ms",
                      "p99 ms", "CPU us/request", "ratio to nginx"], rows)]
    table = paired_table(http.get("paired", []), HTTP_PAIRED)
    if table is not None:
        lines += ["", "Paired over every (connections, repetition), each "
                  "server over nginx with the same access-log setting: " +
                  PAIRED_HOW, "", table]
    return lines + _pool_route(http.get("pool_route")) + _notes(http)


def _pool_route(route: Any) -> list[str]:
    """GET /work on a thread pool: our server with each pool it ran; nginx
    has no such handler, so no ratio to it."""
    if not isinstance(route, dict) or not route.get("points"):
        return []
    pts = cast(list[HttpPoint], [p for p in route["points"]
                                 if isinstance(p, dict) and p.get("ok")])
    servers = sorted({str(p.get("server")) for p in pts})
    rps = {s: _median([p for p in pts if p.get("server") == s],
                      lambda r: r["requests_per_s"]) for s in servers}
    ref = next((s for s in servers if s.endswith("-mutex")), None)
    rows = []
    for s in servers:
        mine = [p for p in pts if p.get("server") == s]
        ratio, base = "-", rps.get(ref or "")
        if base and rps[s]:
            ratio = fmt_ratio(float(rps[s] or 0) / base)
        rows.append([s, _fmt(rps[s], "%.0f") + _marks(mine),
                     _fmt(_median(mine, lambda r: r["latency_ms"]["p99"]),
                          "%.3f"),
                     _fmt(_median(mine, lambda r:
                                  r["server_cpu_us_per_request"]), "%.1f"),
                     ratio])
    return ["", "The thread-pool route: %s. nginx: not comparable (it has "
            "no handler that runs work on a pool)." % route.get("heading", ""),
            "", md_table(["server", "requests/s", "p99 ms", "CPU us/request",
                          "ratio to the mutex pool"], rows)]


# REPORT.md's "## Ping-pong" section (document.py places it after the
# details per family): echo MiB/s of our server, Asio and libevent by
# sessions with the ratios between them, then the sweep's paired summary
# (each server against Asio and libevent over every point at once, with its
# 95% interval; servers/driver/side_by_side.py).

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

# -----------------------------------------------------------------------------
# pick/report/latency.py
# -----------------------------------------------------------------------------
#
# REPORT.md's "Latency at set rates (open loop)" (document.py places it after
# the HTTP section), from the "latency" block of results/http.json and
# results/pingpong.json (read/latency_rates.py reads it). Per workload: how the
# generator ran and what the rates are fractions of; a table of each
# server's p99 (with p50 and p99.9) at each rate, medians over the ok
# rounds, "void" where the generator could not keep its schedule in every
# round; each server's p99 over the reference's, its interval and what the
# interval says against the margin (pick/margin.py's words, turned so that
# ahead is lower latency), and its minimum detectable ratio (MDR: 1 + the
# MDE that pick.decide.paired.rank_paired gave the drivers' paired rows;
# "n/a" in a file without it), with a line that says what the MDR is and
# its range over the table; the void points and failed runs, and what the
# host did during the runs (steal, TCP timeouts) where recorded; the chart. A
# file without the block gets one line saying how to write it; a value of
# the wrong type prints "-".

from __future__ import annotations

from typing import Any, Collection, Optional

from pick.read import latency_rates
from pick.margin import MARGIN, Standing, standing, words
from pick.report.tables import inverse, md_table, num
from pick.report.tables import ns as us  # the same digits: whole above 100
from pick.read.predictions import mapping, number, text

HEADING = "## Latency at set rates (open loop)"
INTRO = (
    "An open-loop generator offers every server the same rates, whatever "
    "its replies, as fractions of the slowest server's capacity; "
    "latencies in µs, medians over a point's ok rounds (lower is better). "
    "A run is void when the generator itself fell behind its schedule: "
    "its latencies say nothing of the server, so it is left out and run "
    "again, up to twice.")
# The metric of the paired rows shown.
METRIC = "p99_us"
# The fewest rounds an interval needs (as the drivers' paired statistics).
MIN_ROUNDS = 6


def latency_section(http: Any, pingpong: Any,
                    drawn: Optional[Collection[str]] = None) -> list[str]:
    """The section's Markdown lines from http.json and pingpong.json (each
    None when missing); never raises on a malformed file. `drawn`: the
    chart files drawn (REPORT.md links a chart only then); None links
    them all."""
    lines = [HEADING, "", INTRO]
    for workload, doc in (("http", http), ("pingpong", pingpong)):
        lines += ["", "### %s" % latency_rates.TITLES[workload], ""]
        lines += workload_lines(workload, doc, drawn)
    return lines


def missing_line(workload: str, doc: Any) -> str:
    cmd = latency_rates.COMMANDS[workload]
    if not isinstance(doc, dict):
        return "Not run: results/%s.json is missing (`%s`)." % (
            workload, cmd)
    return ("Not in results/%s.json (an older file, or the latency sweep "
            "was skipped): rerun `%s`." % (workload, cmd))


def workload_lines(workload: str, doc: Any,
                   drawn: Optional[Collection[str]] = None) -> list[str]:
    lat = latency_rates.block(doc)
    if lat is None:
        return [missing_line(workload, doc)]
    cols = latency_rates.fractions(lat)
    servers = latency_rates.servers(lat)
    lines = [_context(lat, workload, cols), "",
             _p99_table(lat, servers, cols, workload)]
    floor = text(mapping(lat.get("floor")).get("what"))
    if floor:
        lines += ["", "The floor row is %s. A server's p99 near the floor's "
                  "says more about the machine than about the server; the "
                  "p99 of a median is given with its interval over the "
                  "rounds (at least 95%%, from 6 clean rounds)." % floor]
    lines += [""] + _paired(lat, servers, cols, workload)
    lines += [""] + _voids(lat)
    name = latency_rates.chart_name(workload)
    if drawn is None or name in drawn:
        lines += ["", "Chart: [%s p99 against offered load](%s)." % (
            latency_rates.TITLES[workload], name)]
    else:
        lines += ["", "No chart (nothing to draw, or charts not drawn)."]
    return lines


def _v(x: Any) -> str:
    """A setting as given: '50', '0.6', '-' when it is not a number."""
    v = number(x)
    return "-" if v is None else "%g" % v


# The generator's load mode, where the file says (servers/loadgen/README.md).
MODES = {
    "serial": "Serial load (one request in flight per connection, as HTTP "
              "clients send; each timed from its scheduled send). ",
    "pipelined": "Pipelined load (requests sent on schedule whatever the "
                 "replies). ",
}


def _context(lat: dict[str, Any], workload: str,
             cols: list[tuple[float, Optional[float]]]) -> str:
    u = latency_rates.unit(lat, workload)
    size = number(lat.get("size"))
    cap = mapping(lat.get("capacity"))
    slowest = text(lat.get("slowest"), "?")
    caps = ", ".join("%s %s" % (s, num(number(cap.get(s))))
                     for s in latency_rates.servers(lat) if s in cap)
    mode = MODES.get(text(lat.get("mode")), "")
    return mode + (
        "Open loop, %s arrivals, %s connections, %s rounds x %s s per point "
        "(%s s warm-up)%s; a round is void past %s µs behind schedule. "
        "Rates: %s of the slowest server's capacity, %s's %s %s (%s). "
        "Capacities (%s): %s. Ratios are to %s." % (
            text(lat.get("arrivals"), "-"), _v(lat.get("connections")),
            _v(lat.get("rounds")), _v(lat.get("seconds")),
            _v(lat.get("warmup_s")),
            "" if size is None or size <= 0 else ", %g-byte messages" % size,
            _v(lat.get("max_lag_us")),
            ", ".join(latency_rates.pct(f) for f, _ in cols) or "-", slowest,
            num(number(cap.get(slowest))), u,
            text(lat.get("capacity_source"), "source not given"), u,
            caps or "-", text(lat.get("reference"), "-"))) + \
        _retries(lat) + _sched(lat)


def _retries(lat: dict[str, Any]) -> str:
    """The void retries' budget, where the file has one (from 2026-11-28):
    how many void runs it left void."""
    budget = number(lat.get("retry_budget_s"))
    if budget is None:
        return ""
    left = number(lat.get("not_retried")) or 0
    share = number(lat.get("retry_share"))
    return (" Void runs are run again within a budget of %s s of retries%s"
            "%s." % (num(budget), "" if share is None else
                     " (%g%% of the sweep's planned time)" % (100 * share),
                     "; %d void run(s) were not, the budget spent" % left
                     if left else ""))


def _sched(lat: dict[str, Any]) -> str:
    """How the runs were scheduled, where the file says (from 2026-11-28
    on, servers/driver/latency_point.py's sched_of)."""
    note = text(lat.get("sched_note"), "")
    return " Scheduling: %s." % note if note else ""


def _load(f: float, rate: Optional[float]) -> str:
    """A column: '25% (12.8k/s)'."""
    return "%s (%s/s)" % (latency_rates.pct(f), num(rate))


def _count(x: Any) -> int:
    v = number(x)
    return int(v) if v is not None and v > 0 and v == int(v) else 0


def cell(s: Optional[dict[str, Any]]) -> str:
    """'p99 120 µs [95, 180] (p50 41, p99.9 400)' (the median's interval,
    where the summary has one), '...; 2 void', 'void' (every
    round void), 'failed' (every round failed), '-'."""
    if s is None:
        return "-"
    ok, void, failed = (_count(s.get(k)) for k in (
        "ok_rounds", "void_rounds", "failed_rounds"))
    p99 = number(s.get("p99_us"))
    if p99 is None and not ok and void and not failed:
        return "void"
    if p99 is None and not ok and failed and not void:
        return "failed"
    iv = mapping(s.get("p99_interval"))
    lo, hi = number(iv.get("low")), number(iv.get("high"))
    span = "" if lo is None or hi is None else " [%s, %s]" % (us(lo), us(hi))
    main = "-" if p99 is None else "p99 %s µs%s (p50 %s, p99.9 %s)" % (
        us(p99), span, us(number(s.get("p50_us"))),
        us(number(s.get("p999_us"))))
    counts = ((void, "void"), (failed, "failed"))
    notes = ["%d %s" % (k, what) for k, what in counts if k]
    return main + ("; " + ", ".join(notes) if notes else "")


def _p99_table(lat: dict[str, Any], servers: list[str],
               cols: list[tuple[float, Optional[float]]],
               workload: str) -> str:
    at: dict[tuple[str, Optional[float]], dict[str, Any]] = {}
    for s in latency_rates.rows(lat, "summary"):
        at.setdefault((text(s.get("server")),
                       latency_rates.key(s.get("fraction"))), s)
    body = [[s] + [cell(at.get((s, f))) for f, _ in cols] for s in servers]
    return md_table(["server (%s)" % latency_rates.unit(lat, workload)] +
                    [_load(f, r) for f, r in cols], body)


def _end(x: Optional[float], unbounded: str) -> str:
    return unbounded if x is None else "%.2f" % x


def ratio_cell(d: dict[str, Any]) -> str:
    """'0.91x [0.85, 0.97], p 0.03, n 6'; '0.95x (n 3, no interval)';
    an unbounded end as 0 or ∞; '-' without a ratio."""
    r, n = number(d.get("ratio")), _count(d.get("n"))
    if r is None:
        return "-"
    if n < MIN_ROUNDS:
        return "%.2fx (n %d, no interval)" % (r, n)
    p = number(d.get("p"))
    return "%.2fx [%s, %s], p %s, n %d" % (
        r, _end(number(d.get("low")), "0"), _end(number(d.get("high")),
                                                 "∞"),
        "-" if p is None else "< 0.0001" if p < 0.0001 else "%.2g" % p, n)


def mdr(d: dict[str, Any]) -> Optional[float]:
    """The minimum detectable ratio of a paired side ("every"): 1 + its
    "mde" (relative, for a p99 ratio either way: x or 1/x); None without
    one (too few rounds, an older file, a value not a number)."""
    m = number(d.get("mde"))
    return None if m is None or m < 0 else 1.0 + m


def mdr_cell(d: dict[str, Any]) -> str:
    """'1.84x', '23x', '> 1000x' (6 rounds of a wide spread give 10^5);
    'n/a' without an MDR."""
    r = mdr(d)
    return "n/a" if r is None else "%.2fx" % r if r < 10 else \
        "%.0fx" % r if r < 1000 else "> 1000x"


def mdr_line(entries: list[dict[str, Any]]) -> str:
    """What the MDR column is, and its smallest and largest in the table
    ('n/a' where no row has one)."""
    have = sorted(r for r in (mdr(mapping(e.get("every"))) for e in entries)
                  if r is not None)
    span = "n/a (no row has one: too few rounds, or a file from before " \
        "the MDR)" if not have else "%s to %s over %d of %d rows" % (
            mdr_cell(dict(mde=have[0] - 1)), mdr_cell(dict(mde=have[-1] - 1)),
            len(have), len(entries))
    return ("MDR, the minimum detectable ratio: the smallest p99 ratio, "
            "either way (x or 1/x), that the exact signed-rank test at the "
            "row's rounds detects (p < 0.05) with 80%% power, from the "
            "paired log ratios' spread at its upper 95%% bound (the "
            "validation's MDE, as a ratio); a true ratio nearer 1 than the "
            "MDR may well be \"not told apart\". In this table: %s." % span)


def margin_of(e: dict[str, Any]) -> float:
    m = number(e.get("margin"))
    return m if m is not None and m > 0 else MARGIN


def standing_words(e: dict[str, Any]) -> str:
    """What the interval says of A against B at e's margin in
    pick.margin's words, turned so that > 1 means A is better (a lower
    p99 unless "better" is "higher"), as SideBySide.words turns it:
    'serverkit ahead of nginx by 3.1-17.6%'; 'no interval (n 3)'."""
    d = mapping(e.get("every"))
    n = _count(d.get("n"))
    if n < MIN_ROUNDS:
        return "no interval (n %d)" % n
    lo, hi = number(d.get("low")), number(d.get("high"))
    if e.get("better") != "higher":
        lo, hi = inverse(hi), inverse(lo)
    m = margin_of(e)
    if standing(lo, hi, m) == Standing.UNKNOWN:
        return "no interval (an unbounded end)"
    return words(text(e.get("a"), "?"), text(e.get("b"), "?"), lo, hi, m)


def _paired(lat: dict[str, Any], servers: list[str],
            cols: list[tuple[float, Optional[float]]],
            workload: str) -> list[str]:
    rate = dict(cols)
    entries = [e for e in latency_rates.rows(lat, "paired")
               if e.get("metric", METRIC) == METRIC]
    order = {s: i for i, s in enumerate(servers)}
    entries.sort(key=lambda e: (order.get(text(e.get("a")), len(order)),
                                latency_rates.key(e.get("fraction")) or 0.0))
    ref = text(lat.get("reference"), "the reference")
    if not entries:
        return ["No paired p99 comparison with %s in the file." % ref]
    margins = {margin_of(e) for e in entries}
    head = "standing" if len(margins) != 1 else \
        "standing at ±%g%%" % round(100 * margins.pop(), 2)
    body = []
    for e in entries:
        f = latency_rates.key(e.get("fraction"))
        r = number(e.get("rate"))
        body.append(["%s/%s" % (text(e.get("a"), "?"),
                                text(e.get("b"), "?")),
                     "-" if f is None else _load(f, rate.get(f) or r),
                     ratio_cell(mapping(e.get("every"))),
                     mdr_cell(mapping(e.get("every"))),
                     standing_words(e)])
    return ["Each server's p99 over %s's at the same rate, paired by round "
            "(< 1: lower latency than %s), with its interval, p and n "
            "rounds (an interval needs %d); the standing reads the interval "
            "against the margin, ahead meaning a lower p99:" % (
                ref, ref, MIN_ROUNDS), "",
            md_table(["A/B", "load", "p99 ratio A/B", "MDR", head], body),
            "", mdr_line(entries)]


def listed(points: list[dict[str, Any]], name: str, default: str
           ) -> list[str]:
    """'nginx at 90%, rounds 3, 4: <the points' p[name]>', one per server,
    fraction and reason, in the points' order."""
    at: dict[tuple[str, Optional[float], str], list[str]] = {}
    for p in points:
        r = p.get("round")
        at.setdefault((text(p.get("server"), "?"),
                       latency_rates.key(p.get("fraction")),
                       text(p.get(name), default)), []).append(
            str(r) if isinstance(r, int) and not isinstance(r, bool)
            else "?")
    return ["%s at %s, round%s %s: %s" % (
        s, "?" if f is None else latency_rates.pct(f),
        "" if len(rs) == 1 else "s",
        ", ".join(rs), why) for (s, f, why), rs in at.items()]


def _voids(lat: dict[str, Any]) -> list[str]:
    points = latency_rates.rows(lat, "points")
    void = listed([p for p in points if latency_rates.is_void(p)],
                  "void_reason",
                  "no reason given")
    failed = listed([p for p in points if latency_rates.is_failed(p)], "error",
                    "no error given")
    lines = ["Void runs (the generator could not keep its schedule; each "
             "run again): " +
             "; ".join(void) + "." if void else "No point was void."]
    if failed:
        lines += ["", "Failed runs: " + "; ".join(failed) + "."]
    host = _host(points)
    if host:
        lines += ["", host]
    return lines


def _host(points: list[dict[str, Any]]) -> str:
    """What the host did during the runs, where the file records it (from
    2026-11-28 on, servers/driver/host.py): the attempts with steal on
    their CPUs, among them the void ones, and the TCP retransmission
    timeouts; '' for an older file."""
    read = [p for p in points if number(p.get("steal_ms")) is not None]
    if not read:
        return ""
    stolen = [p for p in read if (number(p.get("steal_ms")) or 0) > 0]
    void = [p for p in read if latency_rates.is_void(p)]
    most = max((number(p.get("steal_ms")) or 0 for p in stolen), default=0)
    timeouts = sum(int(number(p.get("tcp_timeouts")) or 0) for p in read)
    return ("The host: steal on a run's CPUs (the hypervisor running "
            "something else on them, /proc/stat in 10 ms ticks) in %d of "
            "%d attempts, %d of the %d void ones%s; TCP retransmission "
            "timeouts during the runs: %d." % (
                len(stolen), len(read),
                sum(1 for p in stolen if latency_rates.is_void(p)),
                len(void), ", up to %g ms in one" % most if stolen else "",
                timeouts))

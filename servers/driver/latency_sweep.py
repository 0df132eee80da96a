# -----------------------------------------------------------------------------
# servers/driver/latency_sweep.py
# -----------------------------------------------------------------------------
#
# Latency at set rates, for the side-by-side drivers (HTTP and ping-pong):
# the open-loop generator (//servers/loadgen:loadgen) against each server at
# fixed fractions of one common rate, the slowest server's capacity (which
# the driver measured first, closed-loop), so that every server faces the
# same offered load.
#
#   common_rates(capacity, fractions)  (slowest server, its capacity, rates)
#   plan(servers, rates, rounds)       the runs in order: per round and rate
#                                      (a block), every server in the
#                                      block's Williams order
#   planned_s(settings, n_servers)     the sweep's time before void
#                                      retries, the floor's runs included
#   run(settings, servers, capacity, start, tools, tmp, log)
#                                      every run; the "latency" JSON block
#   summary(points, ...), paired(...)  medians over the clean rounds; each
#                                      server's p99 over the reference's,
#                                      per rate, paired by round
#   lines(block)                       the console table and the paired text
#
# The floor runs in every block beside the servers: the generator against
# //servers/loadgen:stall_echo_server, a one-thread echo server that
# answers at once, pinned as the servers are. Its latency at a rate is the
# machine's own (the generator, the kernel's loopback, the host's
# scheduling): a server's figure near it says little about the server.
#
# A run is void when the generator could not keep its schedule (its exit
# status 3): its latencies describe the generator, so it enters no median
# and no ratio, and the text lists it; it is run again at once, up to
# twice, so that a passing pause does not cost the round. Each round gives
# the generator a seed of its own, the same for every server in it. A
# median's interval is the distribution-free one from the rounds' order
# statistics (at least 95%; from 6 clean rounds). One run is
# latency_point.py's; standard library, side_by_side and
# pick.decide.paired besides.

from __future__ import annotations

import dataclasses
import math
import os
import statistics
import subprocess
import time
from typing import (Any, Callable, Hashable, Mapping, Optional, Sequence,
                    cast)

from servers.driver import side_by_side
from pick.decide import paired as pick_paired
from servers.driver.latency_point import (FLOOR, START_STOP_S,
                                          LatencyPoint, Settings, Starter,
                                          fifo_starter, floor_size, progress,
                                          run_point, start_floor, us)


# A void run is run again at once, in its block, up to this many times
# (the generator's lag is the machine's doing, not the server's), within
# the retries' budget (Settings.retry_share); the void attempts stay in
# the record.
VOID_RETRIES = 2


def common_rates(capacity: dict[str, float], fractions: Sequence[float]
                 ) -> tuple[str, float, list[float]]:
    """(the slowest server, its capacity, each fraction of it); raises
    ValueError without a positive capacity."""
    known = {s: c for s, c in capacity.items()
             if c is not None and math.isfinite(c) and c > 0}
    if not known:
        raise ValueError("no server has a measured capacity")
    slowest = min(known, key=lambda s: (known[s], s))
    base = known[slowest]
    return slowest, base, [round(f * base, 1) for f in fractions]


def plan(servers: Sequence[str], n_rates: int, rounds: int
         ) -> list[tuple[int, int, str]]:
    """(round, rate index, server) in running order: per round and rate,
    every server, each block in the next Williams order."""
    out = []
    for r in range(rounds):
        for i in range(n_rates):
            for s in side_by_side.order(list(servers), r * n_rates + i):
                out.append((r, i, s))
    return out


def planned_s(st: Settings, n_servers: int) -> float:
    """Seconds the sweep takes without void retries: (the servers and the
    floor) x rates x rounds x (window + warm-up + START_STOP_S)."""
    return (n_servers + 1) * len(st.fractions) * st.rounds * (
        st.seconds + st.warmup_s + START_STOP_S)


def _median(xs: list[float]) -> Optional[float]:
    return statistics.median(xs) if xs else None


def median_interval(xs: Sequence[float], level: float = 0.95
                    ) -> Optional[tuple[float, float, float]]:
    """(low, high, coverage): the distribution-free interval for the
    median, [x_(k), x_(n+1-k)] of the sorted values with the largest k
    whose coverage 1 - 2 P(Binomial(n, 1/2) < k) is at least `level`;
    None below the n where even [min, max] falls short (6 at 95%)."""
    n = len(xs)
    cdf, k = 0.0, 0  # cdf = P(B < k)
    while k < n:
        nxt = cdf + math.comb(n, k) / 2.0 ** n
        if 1.0 - 2.0 * nxt < level:
            break
        cdf, k = nxt, k + 1
    if k == 0:
        return None
    v = sorted(xs)
    return v[k - 1], v[n - k], 1.0 - 2.0 * cdf


def summary(points: Sequence[LatencyPoint], servers: Sequence[str],
            fractions: Sequence[float], rates: Sequence[float]
            ) -> list[dict[str, Any]]:
    """Per server and rate: the medians over its clean rounds, the p99
    median's interval (median_interval; None with too few rounds), and
    how many rounds were clean, void or failed."""
    out = []
    for s in servers:
        for f, rate in zip(fractions, rates):
            mine = [p for p in points if p.server == s and p.fraction == f]
            ok = [p for p in mine if p.ok]
            row: dict[str, Any] = dict(
                server=s, fraction=f, rate=rate, ok_rounds=len(ok),
                void_rounds=sum(p.void for p in mine),
                failed_rounds=sum(not p.ok and not p.void for p in mine))
            for key in ("p50_us", "p99_us", "p999_us"):
                row[key] = _median([getattr(p, key) for p in ok
                                    if getattr(p, key) is not None])
            iv = median_interval([p.p99_us for p in ok
                                  if p.p99_us is not None])
            row["p99_interval"] = None if iv is None else dict(
                low=iv[0], high=iv[1], coverage=round(iv[2], 4))
            out.append(row)
    return out


def _round_of(r: Mapping[str, Any]) -> Hashable:
    """A latency record's pairing key: its round."""
    return cast(Hashable, r["round"])


def paired(points: Sequence[LatencyPoint], servers: Sequence[str],
           reference: str, fractions: Sequence[float],
           rates: Sequence[float], margin: float
           ) -> list[tuple[float, float, side_by_side.SideBySide]]:
    """(fraction, rate, each server's p99 over the reference's, paired by
    round): void and failed rounds drop out of the pairs."""
    out = []
    for f, rate in zip(fractions, rates):
        recs = [dict(server=p.server, ok=p.ok, client_bound=False,
                     round=p.round, p99_us=p.p99_us)
                for p in points if p.fraction == f]
        for s in servers:
            if s == reference:
                continue
            out.append((f, rate, side_by_side.compare(
                recs, s, reference, "p99_us", _round_of,
                lambda r, m: r.get(m), lower_better=True, margin=margin)))
    return out


@dataclasses.dataclass(frozen=True)
class Tools:
    """The generator and the floor server (paths), and the cores of each:
    the floor gets the servers' cores (None: any) and threads."""
    generator: str
    floor: str
    generator_cpus: Optional[set[int]]
    server_cpus: Optional[set[int]]
    floor_threads: int = 1  # the servers' threads


def run(st: Settings, servers: Sequence[str], capacity: dict[str, float],
        start: Starter, tools: Tools, tmp: str,
        log: Callable[[str], None]) -> dict[str, Any]:
    """Every run of the sweep, the floor's among them, then the JSON block
    ("latency"); raises ValueError when no server has a capacity,
    KeyboardInterrupt through (the block is then not made)."""
    slowest, base, rates = common_rates(
        {s: capacity.get(s, 0.0) for s in servers}, st.fractions)
    log("latency at set rates: %d servers and the floor x %d rates (%s of "
        "%s's %s %s) x %d rounds of %g s, %d connections, open loop (%s "
        "arrivals, %s): about %.0f s before void retries" % (
            len(servers), len(rates),
            "/".join("%g%%" % (100 * f) for f in st.fractions), slowest,
            format(base, ",.0f"), st.unit, st.rounds, st.seconds,
            st.connections, st.arrivals, mode_words(st),
            planned_s(st, len(servers))))
    if st.sched_note:
        log("latency at set rates: " + st.sched_note)
    todo = plan(list(servers) + [FLOOR], len(rates), st.rounds)

    def with_floor(name: str, pointdir: str
                   ) -> tuple[Optional[subprocess.Popen[bytes]], int, str]:
        if name == FLOOR:
            return start_floor(tools.floor, st, tools.server_cpus, pointdir,
                               tools.floor_threads)
        return start(name, pointdir)
    starter = fifo_starter(with_floor, st.fifo)

    points = []
    budget = st.retry_share * planned_s(st, len(servers))
    spent, not_retried = 0.0, 0
    for i, (r, k, s) in enumerate(todo, 1):
        for attempt in range(VOID_RETRIES + 1):
            if attempt and spent >= budget:
                not_retried += 1
                break
            started = time.monotonic()
            pt = LatencyPoint(s, st.fractions[k], rates[k], r, attempt)
            run_point(st, pt, starter, tools.generator, tools.generator_cpus,
                      os.path.join(tmp, "latency-%03d-%s-%d" % (i, s,
                                                                attempt)),
                      tools.server_cpus)
            if attempt:
                spent += time.monotonic() - started
            points.append(pt)
            log(progress(i, len(todo), pt, st.unit))
            if not pt.void:
                break
    if not_retried:
        log("latency at set rates: %d void run(s) not run again: the "
            "retries' %.0f s budget was spent" % (not_retried, budget))
    return block(st, servers, capacity, slowest, rates, points,
                 round(budget, 1), not_retried)


def mode(st: Settings) -> str:
    """The generator's mode: st.mode, else its default for the protocol
    (serial for http, pipelined for echo)."""
    return st.mode or ("serial" if st.protocol == "http" else "pipelined")


def mode_words(st: Settings) -> str:
    return ("one request in flight per connection (serial)"
            if mode(st) == "serial" else "pipelined")


def block(st: Settings, servers: Sequence[str], capacity: dict[str, float],
          slowest: str, rates: Sequence[float],
          points: Sequence[LatencyPoint],
          retry_budget_s: Optional[float] = None,
          not_retried: int = 0) -> dict[str, Any]:
    """The "latency" JSON block of the driver's results."""
    rows = paired(points, servers, st.reference, st.fractions, rates,
                  st.margin)
    return dict(
        floor=dict(server=FLOOR, size=floor_size(st),
                   what="the generator against a one-thread echo server "
                        "that answers at once (%d-byte messages): the "
                        "machine's own latency at each rate"
                   % floor_size(st)),
        workload=st.workload, unit=st.unit, reference=st.reference,
        capacity_source=st.capacity_source,
        capacity={s: capacity.get(s) for s in servers}, slowest=slowest,
        fractions=list(st.fractions), rates=list(rates),
        connections=st.connections, rounds=st.rounds, seconds=st.seconds,
        warmup_s=st.warmup_s, arrivals=st.arrivals, mode=mode(st),
        max_lag_us=st.max_lag_us, size=st.size, margin=st.margin,
        sched="fifo" if st.fifo else "other", fifo_priority=st.fifo,
        sched_note=st.sched_note, retry_share=st.retry_share,
        retry_budget_s=retry_budget_s, not_retried=not_retried,
        servers=list(servers), points=[p.to_json() for p in points],
        summary=summary(points, list(servers) + [FLOOR], st.fractions,
                        rates),
        paired=[dict(row.as_json(), fraction=f, rate=rate)
                for f, rate, row in rows],
        _rows=rows)


def _table(b: dict[str, Any], title: str,
           cell: Callable[[dict[str, Any]], str]) -> list[str]:
    """One row per server and the floor, one column per rate; a cell
    marked * had void or failed rounds beside its clean ones."""
    fr = b["fractions"]
    out = ["", title, "%-16s" % "" + "".join(
        "  %24s" % ("%g%%: %s/s" % (100 * f, format(r, ",.0f")))
        for f, r in zip(fr, b["rates"]))]
    by = {(r["server"], r["fraction"]): r for r in b["summary"]}
    for s in list(b["servers"]) + [FLOOR]:
        cells = []
        for f in fr:
            r = by[(s, f)]
            text = "void" if not r["ok_rounds"] and r["void_rounds"] else \
                cell(r)
            if r["ok_rounds"] and (r["void_rounds"] or r["failed_rounds"]):
                text += "*"
            cells.append("  %24s" % text)
        out.append("%-16s" % s + "".join(cells))
    return out


def _p99_cell(r: dict[str, Any]) -> str:
    iv = r.get("p99_interval")
    return us(r["p99_us"]) + (" [%s, %s]" % (us(iv["low"]), us(iv["high"]))
                              if iv else "")


def mdr_text(mde: Optional[float]) -> str:
    """The minimum detectable ratio, 1 + the relative MDE of the paired
    p99 ratios (either way: x or 1/x): '2.31x'; 'n/a' without one (too
    few rounds, no spread)."""
    if mde is None or not math.isfinite(mde) or mde < 0:
        return "n/a"
    r = 1.0 + mde
    return "%.2fx" % r if r < 10 else "%.0fx" % r if r < 1000 else "> 1000x"


def lines(b: dict[str, Any]) -> list[str]:
    """The console text: p99 per server and rate with its median's
    interval, p50 and p99.9, the floor's row under the servers', each
    server's p99 over the reference with what its interval says, and the
    void runs."""
    fr = b["fractions"]
    out = _table(b, "latency at set rates (%s), open loop: p99, the median "
                 "over clean rounds [its interval]" % b["unit"], _p99_cell)
    out += _table(b, "p50 / p99.9, medians over clean rounds:",
                  lambda r: "%s / %s" % (us(r["p50_us"]), us(r["p999_us"])))
    out.append("floor: " + b["floor"]["what"])
    labels = {"p99_us": "p99 latency"}
    for f in fr:
        rows = [row for ff, _, row in b["_rows"] if ff == f]
        out += ["", "p99 over %s's at %g%% of %s's capacity, paired by "
                "round:" % (b["reference"], 100 * f, b["slowest"])]
        out += ["  %-16s %s  MDR %s" % (
            r.a, pick_paired.fmt_rank_paired(r.every), mdr_text(r.every.mde))
            for r in rows]
        out += ["  " + r.words(r.every, labels["p99_us"]) for r in rows]
    void = [p for p in b["points"] if p["void"]]
    failed = [p for p in b["points"] if not p["ok"] and not p["void"]]
    out.append("")
    listed = "; ".join("%s at %g%% round %d: %s" % (
        p["server"], 100 * p["fraction"], p["round"], p["void_reason"])
        for p in void)
    out.append("void runs (the generator lagged; no figure taken, the run "
               "repeated): " + (listed or "none"))
    if failed:
        out.append("failed runs: " + "; ".join(
            "%s at %g%% round %d: %s" % (
                p["server"], 100 * p["fraction"], p["round"], p["error"])
            for p in failed))
    return out


def to_json(b: dict[str, Any]) -> dict[str, Any]:
    """The block without its in-memory rows."""
    return {k: v for k, v in b.items() if not k.startswith("_")}

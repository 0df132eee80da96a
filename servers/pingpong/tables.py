# -----------------------------------------------------------------------------
# servers/pingpong/tables.py
# -----------------------------------------------------------------------------
#
# The ping-pong sweep's tables (sweep.py prints them after the
# runs), built from its records alone: one table per (threads, block) for the
# echo protocol in MiB/s with each server's CPU milliseconds per MiB, one per
# thread count for the header protocol in messages/s with the p99 session
# time, each a row per session count with
# the median of every server's clean repetitions and the ratios to asio and
# libevent; then the legend of the "c" mark and the points that failed.
#
# A figure marked "!" ran unclean (or not at all: "fail"), one marked "c" had
# the client at >= 90% of the CPU it could use. Standard library only, and
# servers.driver.tables (the formatting and the padded columns).

from __future__ import annotations

from typing import Any, Optional, Sequence

from servers.driver import tables as driver_tables

REFERENCES = ("asio", "libevent")

Record = dict[str, Any]
# A table's rows: (label, {server name: [records]}).
Rows = list[tuple[int, dict[str, list[Record]]]]


def median_of(records: Sequence[Record], key: str) -> Optional[float]:
    """The median of `key` over the clean records that have it."""
    return driver_tables.median(r[key] for r in records
                                if r.get("ok") and r.get(key))


def ratio_columns(names: Sequence[str]) -> list[tuple[str, str]]:
    """(server, reference) pairs: every server against asio, then against
    libevent (asio against libevent, not the other way round)."""
    cols = []
    for ref in REFERENCES:
        if ref not in names:
            continue
        for n in names:
            if n != ref and not (n in REFERENCES and
                                 REFERENCES.index(n) < REFERENCES.index(ref)):
                cols.append((n, ref))
    return cols


def format_table(title: str, rows: Rows, names: Sequence[str],
                 value_key: str, unit: str,
                 extra: Optional[tuple[str, str]] = None) -> list[str]:
    """The table's lines (the first, blank, before the title)."""
    cols = ratio_columns(names)
    head = ["sessions"] + ["%s %s" % (n, unit) for n in names]
    if extra:
        head += ["%s %s" % (n, extra[1]) for n in names]
    head += ["%s/%s" % c for c in cols]
    table = []
    for label, per in rows:
        vals = {n: median_of(per.get(n, []), value_key) for n in names}
        line = [str(label)]
        for n in names:
            recs = per.get(n, [])
            v = vals[n]
            mark = "" if recs and all(r.get("ok") for r in recs) else " !"
            if any(r.get("client_bound") for r in recs):
                mark += " c"
            line.append(("%.1f" % v if v is not None else "fail") + mark)
        if extra:
            for n in names:
                line.append(driver_tables.fmt(
                    median_of(per.get(n, []), extra[0]), ".3f"))
        for a, b in cols:
            line.append(driver_tables.fmt_ratio(
                driver_tables.ratio(vals[a], vals[b])))
        table.append(line)
    return ["", title] + driver_tables.aligned([head] + table)


def rows_of(records: Sequence[Record], keys: tuple[str, ...],
            where: tuple[Any, ...], sessions: Sequence[int]) -> Rows:
    """One row per session count with records where the `keys` equal
    `where`; session counts without any are left out."""
    rows = []
    for n in sessions:
        mine = [r for r in records if tuple(r[k] for k in keys)
                + (r["sessions"],) == where + (n,)]
        per = driver_tables.group(mine, lambda r: str(r["server"]))
        if per:
            rows.append((n, per))
    return rows


def echo_tables(echo: Sequence[Record], names: Sequence[str],
                threads: Sequence[int], blocks: Sequence[int],
                sessions: Sequence[int], client_threads: int,
                cores: int) -> list[str]:
    """One table per (server threads, block). client_threads: 0 for "as
    many as the server"."""
    lines = []
    for t in threads:
        for b in blocks:
            rows = rows_of(echo, ("server_threads", "blocksize"), (t, b),
                           sessions)
            if not rows:
                continue
            pinned = any(r["pinned"] for _, per in rows
                         for rs in per.values() for r in rs)
            lines += format_table(
                "echo, %d-byte blocks, server threads %d, client threads "
                "%d%s: MiB/s" % (
                    b, t, client_threads or t,
                    ", pinned" if pinned else
                    ", not pinned" + (" (oversubscribed)" if 2 * t > cores
                                      else "")),
                rows, names, "mib_per_s", "MiB/s",
                extra=("server_cpu_ms_per_mib", "CPU ms/MiB"))
    return lines


def header_tables(header: Sequence[Record], names: Sequence[str],
                  threads: Sequence[int], sessions: Sequence[int],
                  count: int) -> list[str]:
    """One table per server thread count."""
    lines = []
    for t in threads:
        rows = rows_of(header, ("server_threads",), (t,), sessions)
        if rows:
            lines += format_table(
                "header, %d messages per session, server threads %d: "
                "messages/s, p99 session time (s)" % (count, t),
                rows, names, "messages_per_s", "msg/s",
                extra=("p99_session_s", "p99 s"))
    return lines


def closing_lines(records: Sequence[Record]) -> list[str]:
    """The "c" legend when a point had it, and the failed points (the
    first ten)."""
    lines = []
    if any(r.get("client_bound") for r in records):
        lines.append("\nc: the client used >= 90% of the CPU it had (its "
                     "threads, or its pinned cores): that figure may be the "
                     "client's limit rather than the server's; compare "
                     "servers where neither is marked.")
    failed = [r for r in records if not r.get("ok")]
    if failed:
        lines.append("\n%d point(s) failed or ran unclean (marked !):" %
                     len(failed))
        for r in failed[:10]:
            lines.append("  %s %s threads %d sessions %d: %s" % (
                r["protocol"], r["server"], r["server_threads"],
                r["sessions"], r.get("error", "")))
    return lines

# -----------------------------------------------------------------------------
# pick/read/latency_rates.py
# -----------------------------------------------------------------------------
#
# Latency at set rates, as the HTTP driver (results/http.json) and the
# ping-pong driver (results/pingpong.json) write it under "latency": an
# open-loop generator offers every server the same rates, fractions of the
# slowest server's capacity, and records each round's percentiles
# ("points"), their medians over the ok rounds ("summary") and each
# server's p99 over the reference's ("paired"). Read tolerantly, as
# read/predictions.py reads the validation: a value of the wrong type is
# treated
# as absent, never raised on. What REPORT.md's section (report/latency.py)
# and the charts (charts/latency.py) share: the block, its servers and
# fractions, its rows, a point's state, the chart's file name and the
# command that writes the block. Standard library only.

from __future__ import annotations

from typing import Any, Final, Optional

from pick.read.predictions import number, text

# The two workloads: their title, unit and the command that measures them.
WORKLOADS: Final = ("http", "pingpong")
TITLES: Final = {"http": "HTTP", "pingpong": "Ping-pong"}
UNITS: Final = {"http": "requests/s", "pingpong": "messages/s"}
COMMANDS: Final = {"http": "bazel run -c opt //bench:http",
                   "pingpong": "bazel run -c opt //bench:pingpong"}


def chart_name(workload: str) -> str:
    """The chart's file beside REPORT.md: http_latency.png (latency.png is
    the micro-benchmarks')."""
    return "%s_latency.png" % workload


def block(doc: Any) -> Optional[dict[str, Any]]:
    """doc["latency"] when it is a mapping; None otherwise."""
    lat = doc.get("latency") if isinstance(doc, dict) else None
    return lat if isinstance(lat, dict) else None


def key(x: Any) -> Optional[float]:
    """A fraction as a key to match points, summaries and columns by."""
    v = number(x)
    return None if v is None else round(v, 9)


def rows(lat: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """The mappings of the list lat[name] ("points", "summary",
    "paired"); [] when it is not a list."""
    v = lat.get(name)
    return [r for r in v if isinstance(r, dict)] if isinstance(v, list) \
        else []


def servers(lat: dict[str, Any]) -> list[str]:
    """"servers" in its order, then any other server a summary or point
    names, in the order first seen."""
    listed = lat.get("servers")
    out: list[str] = []
    for s in (listed if isinstance(listed, list) else []) + [
            r.get("server") for n in ("summary", "points")
            for r in rows(lat, n)]:
        if text(s) and s not in out:
            out.append(s)
    return out


def fractions(lat: dict[str, Any]) -> list[tuple[float, Optional[float]]]:
    """(fraction, rate) of each column: "fractions" with "rates" (the same
    order), a rate the lists lack from a summary or point at that
    fraction; without "fractions", the fractions the summaries and points
    have, in increasing order. Fractions that are not numbers are left
    out."""
    fr, rates = lat.get("fractions"), lat.get("rates")
    pairs: list[tuple[Any, Optional[float]]] = []
    if isinstance(fr, list):
        for i, f in enumerate(fr):
            rate = rates[i] if isinstance(rates, list) and \
                len(rates) == len(fr) else None
            pairs.append((f, number(rate)))
    else:
        pairs = [(r.get("fraction"), None) for n in ("summary", "points")
                 for r in rows(lat, n)]
        pairs.sort(key=lambda p: key(p[0]) or 0.0)
    out: list[tuple[float, Optional[float]]] = []
    seen: set[float] = set()
    for f, rate in pairs:
        k = key(f)
        if k is None or k in seen:
            continue
        seen.add(k)
        if rate is None:
            rate = next((number(r.get("rate")) for n in ("summary", "points")
                         for r in rows(lat, n)
                         if key(r.get("fraction")) == k and
                         number(r.get("rate")) is not None), None)
        out.append((k, rate))
    return out


def is_void(p: dict[str, Any]) -> bool:
    """The generator could not keep its schedule: no latency to report."""
    return p.get("void") is True


def is_failed(p: dict[str, Any]) -> bool:
    """A run that failed (the server did not start, ...): not void, not
    ok."""
    return not is_void(p) and p.get("ok") is not True


def p99(p: dict[str, Any]) -> Optional[float]:
    """An ok, not void point's p99 in µs; None for any other."""
    v = number(p.get("p99_us"))
    if is_void(p) or is_failed(p) or v is None or v <= 0:
        return None
    return v


def unit(lat: dict[str, Any], workload: str) -> str:
    return text(lat.get("unit"), UNITS.get(workload, "per s"))


def pct(f: float) -> str:
    """A fraction as a percentage: 0.25 -> '25%'."""
    return "%g%%" % round(100 * f, 2)

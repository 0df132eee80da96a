# -----------------------------------------------------------------------------
# servers/http/wrk.py
# -----------------------------------------------------------------------------
#
# Debian's wrk 4.1: its command line for one point and the figures in its
# text output (wrk has no machine-readable output without a Lua script):
# requests, duration, requests/s, the latency percentiles of --latency,
# socket errors and "Non-2xx or 3xx responses".
#
# The bottom layer of servers/http: standard library only.

from __future__ import annotations

import dataclasses
import re
from typing import Optional


class WrkParseError(Exception):
    pass


_UNITS_MS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3, "h": 3600e3}
_TIME = r"([0-9.]+)(us|ms|s|m|h)"


@dataclasses.dataclass(frozen=True)
class WrkResult:
    requests: int
    duration_s: float
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    non_2xx: int          # wrk's "Non-2xx or 3xx responses"
    socket_errors: int    # connect + read + write + timeout
    socket_error_detail: str  # "connect 0, read 3, write 0, timeout 7"


def argv(wrk: str, threads: int, connections: int, seconds: float,
         url: str) -> list[str]:
    """wrk with --latency for `seconds` (whole seconds, at least 1)."""
    return [wrk, "-t%d" % threads, "-c%d" % connections,
            "-d%ds" % max(1, round(seconds)), "--latency", url]


def _time_ms(value: str, unit: str) -> float:
    return float(value) * _UNITS_MS[unit]


def _search(pattern: str, text: str) -> Optional[re.Match[str]]:
    return re.search(pattern, text, re.MULTILINE)


def parse(text: str) -> WrkResult:
    """The figures of one wrk --latency run; raises WrkParseError when a
    required line is missing."""
    total = _search(r"^\s*(\d+) requests in " + _TIME, text)
    rate = _search(r"^Requests/sec:\s+([0-9.]+)", text)
    p50 = _search(r"^\s*50%\s+" + _TIME, text)
    p99 = _search(r"^\s*99%\s+" + _TIME, text)
    missing = [name for name, m in (("requests", total),
                                    ("Requests/sec", rate),
                                    ("latency 50%", p50),
                                    ("latency 99%", p99)) if m is None]
    if missing or not (total and rate and p50 and p99):
        raise WrkParseError("wrk output lacks %s: %r"
                            % (", ".join(missing), text[-300:]))
    non_2xx = _search(r"^\s*Non-2xx or 3xx responses:\s+(\d+)", text)
    errors = _search(r"^\s*Socket errors:\s+connect (\d+), read (\d+), "
                     r"write (\d+), timeout (\d+)", text)
    detail = ""
    socket_errors = 0
    if errors:
        counts = [int(g) for g in errors.groups()]
        socket_errors = sum(counts)
        detail = "connect %d, read %d, write %d, timeout %d" % tuple(counts)
    return WrkResult(
        requests=int(total.group(1)),
        duration_s=_time_ms(total.group(2), total.group(3)) / 1e3,
        requests_per_s=float(rate.group(1)),
        p50_ms=_time_ms(p50.group(1), p50.group(2)),
        p99_ms=_time_ms(p99.group(1), p99.group(2)),
        non_2xx=int(non_2xx.group(1)) if non_2xx else 0,
        socket_errors=socket_errors,
        socket_error_detail=detail)

# -----------------------------------------------------------------------------
# servers/soak/report.py
# -----------------------------------------------------------------------------
#
# The soak's records and what it prints: `ServerRecord` (one server's
# command line, samples, trends, replies checked, hostile connections by
# kind, and what went wrong with the process), `SoakRecord` (the run: its
# parameters, the rule, the failures, the servers, the verdict), the
# verdict on a server's series (`judge_server`), the per-server table, the
# progress line, and the JSON file.
#
# Above trend and procs.

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Optional

from servers.soak.procs import Sample
from servers.soak.trend import SERIES, Trend, judge_series

RULE = ("after a warm-up of the first {warmup:.0%} of the run, a series "
        "leaks when Mann-Kendall's one-sided p < 0.01, and the Theil-Sen "
        "slope times the window's duration exceeds the limit, and each third "
        "of the window's median exceeds the last third's by more than 1/4 "
        "of the limit (limits: RSS max(4 MiB, 10% of the window's start), "
        "descriptors 8, threads 2)")


@dataclasses.dataclass
class ServerRecord:
    name: str
    argv: list[str]
    pid: int
    samples: list[Sample] = dataclasses.field(default_factory=list)
    trends: list[Trend] = dataclasses.field(default_factory=list)
    checked: int = 0
    hostile: dict[str, int] = dataclasses.field(default_factory=dict)
    problem: Optional[str] = None  # exited, crashed, did not stop
    log_tail: str = ""

    @property
    def passed(self) -> bool:
        return self.problem is None and all(t.passed for t in self.trends)


@dataclasses.dataclass
class SoakRecord:
    minutes: float
    interval_s: float
    warmup_fraction: float
    warmup_s: float
    elapsed_s: float
    seed: int
    rule: str
    passed: bool = False
    failures: list[str] = dataclasses.field(default_factory=list)
    servers: list[ServerRecord] = dataclasses.field(default_factory=list)


def judge_server(rec: ServerRecord, warmup_s: float) -> None:
    """Fills rec.trends: one verdict per series (trend.SERIES)."""
    times = [s.t for s in rec.samples]
    rec.trends = [judge_series(name, times,
                               [float(getattr(s, name)) for s in rec.samples],
                               warmup_s)
                  for name in SERIES]


def _fmt(series: str, v: float, signed: bool = False) -> str:
    if series == "rss_kib":
        v /= 1024.0
        return ("%+.2f" if signed else "%.1f") % v
    return ("%+.2f" if signed else "%.0f") % v


def table(soak: SoakRecord) -> str:
    """The per-server table: level, slope, test and verdict per series."""
    head = ("%-9s %-8s %8s %8s %8s %10s %8s %8s %7s  %s"
            % ("server", "series", "start", "end", "max", "slope/min",
               "MK p", "rise", "limit", "verdict"))
    lines = [head, "-" * len(head)]
    label = {"rss_kib": "RSS MiB", "fds": "fds", "threads": "threads"}
    for rec in soak.servers:
        first = True
        for t in rec.trends:
            lines.append("%-9s %-8s %8s %8s %8s %10s %8.2g %8s %7s  %s" % (
                rec.name if first else "", label[t.series],
                _fmt(t.series, t.start), _fmt(t.series, t.end),
                _fmt(t.series, t.max), _fmt(t.series, t.slope_per_min, True),
                t.p, _fmt(t.series, t.rise, True), _fmt(t.series, t.limit),
                t.verdict if t.passed else "%s: %s" % (t.verdict, t.reason)))
            first = False
        hostile = sum(rec.hostile.values())
        lines.append("%-9s %d replies checked, %d hostile connections "
                     "(%s)%s" % ("", rec.checked, hostile,
                                 ", ".join("%s %d" % kv for kv in
                                           sorted(rec.hostile.items())),
                                 "; " + rec.problem if rec.problem else ""))
    return "\n".join(lines)


def clock(seconds: float) -> str:
    s = int(seconds)
    return "%d:%02d" % (s // 60, s % 60)


def progress(elapsed: float, duration: float, checked: dict[str, int],
             hostile: dict[str, dict[str, int]],
             rss_kib: dict[str, int]) -> str:
    names = ("pingpong", "chat", "http")
    return ("soak %s/%s: replies checked %s; hostile connections %s; "
            "RSS MiB %s" % (
                clock(elapsed), clock(duration),
                ", ".join("%s %d" % (n, checked.get(n, 0)) for n in names),
                ", ".join("%s %d" % (n, sum(hostile.get(n, {}).values()))
                          for n in names),
                ", ".join("%s %.1f" % (n, rss_kib.get(n, 0) / 1024.0)
                          for n in names)))


def to_json(soak: SoakRecord) -> dict[str, Any]:
    doc = dataclasses.asdict(soak)
    for rec, out in zip(soak.servers, doc["servers"]):
        out["passed"] = rec.passed
        for t, tout in zip(rec.trends, out["trends"]):
            tout["passed"] = t.passed
    return doc


def write_json(soak: SoakRecord, path: str) -> None:
    """Writes the record whole (a temporary file, then renamed)."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(to_json(soak), f, indent=1)
        f.write("\n")
    os.replace(tmp, path)

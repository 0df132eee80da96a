# -----------------------------------------------------------------------------
# bench/pick/records.py
# -----------------------------------------------------------------------------
#
# The records pick reads the sweeps' results into (results.py fills them,
# and every module above reads them through results): Cell (one
# implementation in one benchmark group, every counter's repetitions with
# its median and CV), Rule (one ranking rule of a file's vocabulary) and
# FloorSummary (the floor's raw numbers, from which stats.drift() decides
# whether the host drifted); and the names that key them.
#
# Names follow the project's contract,
# `<family>/<scenario>/<impl>/<k>:<v>/...`; Google Benchmark's own segments
# (/iterations:N, /repeats:N, /min_time:T, /manual_time, /real_time,
# /threads:N once one of those appeared) and its aggregate suffixes (_mean,
# _median, _stddev, _cv) are set aside, as bench/common/harness.cc's Parse
# does. A group is (scenario, params): one scenario with one set of
# parameters, e.g. queues/throughput/producers:2/consumers:1.
#
# The bottom layer of pick (see pick.py for the layers): standard library
# only.

from __future__ import annotations

import dataclasses
import math
import statistics
from typing import Any, Optional, Union

FAMILIES = ("queues", "threadpool", "logger", "buffer")
AGGREGATES = ("mean", "median", "stddev", "cv")
FLOOR_SCENARIO = "floor"        # <family>/floor/cache-line
FLOOR_IMPL = "cache-line"
DEFAULT_DRIFT_THRESHOLD = 0.20  # when the file's floor has no threshold

# A parameter's value: a number when it parses as one, else the text; None
# for a segment without ":".
ParamValue = Union[int, float, str, None]
Params = tuple[tuple[str, ParamValue], ...]
# A benchmark group: one scenario with one set of parameters.
Group = tuple[str, Params]


class VocabularyError(ValueError):
    """A result file whose ranking rules are missing or malformed, or that
    disagree with what a workload class needs."""


def parse_name(run_name: str) -> tuple[str, str, str, Params]:
    """(family, scenario, impl, params) where params is a tuple of (k, v)."""
    parts = run_name.split("/")
    family = parts[0]
    scenario = parts[1] if len(parts) > 1 else ""
    impl = parts[2] if len(parts) > 2 else ""
    params: list[tuple[str, ParamValue]] = []
    in_suffix = False
    for s in parts[3:]:
        gb_suffix = (s in ("manual_time", "real_time", "process_time") or
                     s.startswith(("iterations:", "repeats:", "min_time:",
                                   "min_warmup_time:")) or
                     (in_suffix and s.startswith("threads:")))
        if gb_suffix:
            in_suffix = True
            continue
        key, sep, text = s.partition(":")
        if not sep:
            params.append((s, None))
            continue
        value: ParamValue = text
        try:
            num = float(text)
            value = int(num) if num.is_integer() else num
        except ValueError:
            pass
        params.append((key, value))
    return family, scenario, impl, tuple(params)


def params_str(params: Params) -> str:
    return "/".join(k if v is None else "%s:%s" % (k, v) for k, v in params)


def group_name(family: str, scenario: str, params: Params) -> str:
    s = "%s/%s" % (family, scenario)
    p = params_str(params)
    return s + "/" + p if p else s


def group_sort_key(group: Group) -> tuple[str, list[tuple[str, Any]]]:
    """(scenario, params) in numeric order of the parameter values."""
    scenario, params = group
    return (scenario, [(k, (0, v, "") if isinstance(v, (int, float))
                        else (1, 0, str(v))) for k, v in params])


@dataclasses.dataclass(eq=False)
class Cell:
    """One implementation in one group: every counter's repetitions."""

    impl: str
    # counter -> [value per repetition]
    samples: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    # (aggregate, counter) -> value
    aggregates: dict[tuple[str, str], float] = dataclasses.field(
        default_factory=dict)
    error: Optional[str] = None
    oversubscribed: bool = False
    # counter -> {process: [value per repetition]}, for a file merged from a
    # sweep run as several processes (merge.merge_parts); else empty.
    by_process: dict[str, dict[int, list[float]]] = dataclasses.field(
        default_factory=dict)

    def reps(self, counter: str) -> list[float]:
        return [v for v in self.samples.get(counter, []) if not math.isnan(v)]

    def process_medians(self, counter: str) -> dict[int, float]:
        """{process: median of its repetitions}; {} for a one-process
        file."""
        out = {}
        for proc, xs in self.by_process.get(counter, {}).items():
            xs = [x for x in xs if not math.isnan(x)]
            if xs:
                out[proc] = statistics.median(xs)
        return out

    def median(self, counter: str) -> float:
        v = self.aggregates.get(("median", counter))
        if v is not None and not math.isnan(v):
            return v
        xs = self.reps(counter)
        return statistics.median(xs) if xs else math.nan

    def cv(self, counter: str) -> Optional[float]:
        """Coefficient of variation (a fraction); None with one repetition."""
        v = self.aggregates.get(("cv", counter))
        if v is not None and not math.isnan(v):
            return v
        xs = self.reps(counter)
        if len(xs) < 2:
            return None
        mean = statistics.fmean(xs)
        return statistics.stdev(xs) / mean if mean else None

    def repetitions(self, counter: str) -> int:
        return len(self.reps(counter))


@dataclasses.dataclass(frozen=True)
class Rule:
    """One entry of the file's rankings (context.serverkit.rankings): how a
    scenario's groups are ranked, with `higher` (direction == "higher")
    added and defaults filled in."""

    scenario: str
    metric: str
    direction: str           # "higher" or "lower"
    higher: bool
    unit: str
    baseline: Optional[str]
    show: tuple[str, ...]    # counters to show beside the metric
    vs_floor: bool           # also shown as multiples of the floor
    reference: bool          # ranked on its own, never in a class


@dataclasses.dataclass(frozen=True)
class FloorSummary:
    """The floor's raw numbers (see floor_summary()). The field order is
    winners.json's "floor" object's."""

    before_p50_ns: Optional[float] = None
    before_p99_ns: Optional[float] = None
    after_p50_ns: Optional[float] = None
    after_p99_ns: Optional[float] = None
    core_pair: Any = None           # [cpu, cpu] as the file says, or None
    round_trips: Any = None
    threshold: float = DEFAULT_DRIFT_THRESHOLD
    row: Optional[str] = None       # the interleaved row's name
    row_p50_ns: Optional[float] = None
    row_p99_ns: Optional[float] = None
    row_cv: Optional[float] = None
    row_reps: int = 0
    row_error: Optional[str] = None
    repetitions: Any = None
    interleaved: Any = None
    cpu_model: Optional[str] = None
    cores: Optional[int] = None
    reference_p50_ns: Optional[float] = None
    reference_from: Optional[str] = None

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name)
                for f in dataclasses.fields(self)}

# -----------------------------------------------------------------------------
# pick/testdata/fixturelib.py
# -----------------------------------------------------------------------------
#
# The pieces make_fixtures.py writes the fixed result sets with: Google
# Benchmark's JSON shape (repetitions, then mean/median/stddev/cv
# aggregates: runs()), the sweeps' vocabulary (context.serverkit: the
# ranking rules, traits and workload sizes per family, the floor before and
# after: vocabulary()), the floor's reference row, a queue round trip's
# counters beside the floor, and write(), which writes one family's file
# under testdata/.

from __future__ import annotations

import json
import os
import statistics
from typing import Any, Callable, Iterable, Optional, Union

HERE = os.path.dirname(os.path.abspath(__file__))


def runs(name: str, counters: dict[str, list[float]], reps: int,
         extra: Optional[dict[str, Any]] = None,
         oversub: int = 0) -> list[dict[str, Any]]:
    """counters: {counter: [value per repetition]}"""
    out = []
    n = len(next(iter(counters.values())))
    base: dict[str, Any] = dict(
        run_name=name + "/iterations:1/manual_time", repetitions=reps,
        threads=1, iterations=1, time_unit="ms")
    for i in range(n):
        b = dict(base, name=base["run_name"], run_type="iteration",
                 repetition_index=i, real_time=1.0, cpu_time=1.0,
                 oversubscribed=oversub)
        for k, v in counters.items():
            b[k] = v[i]
        b.update(extra or {})
        out.append(b)
    if n >= 2:
        aggs: list[tuple[str, Callable[[list[float]], float]]] = [
            ("mean", statistics.fmean), ("median", statistics.median),
            ("stddev", statistics.stdev),
            ("cv", lambda xs: statistics.stdev(xs) / statistics.fmean(xs))]
        for agg, f in aggs:
            b = dict(base, name=base["run_name"] + "_" + agg,
                     run_type="aggregate", aggregate_name=agg,
                     real_time=1.0, cpu_time=1.0, oversubscribed=oversub)
            for k, v in counters.items():
                b[k] = f(v)
            out.append(b)
    return out


def scale(values: Iterable[float], k: float) -> list[float]:
    return [v * k for v in values]


# --- the vocabulary, as the C++ sweeps write it (context.serverkit) ----

def rule(scenario: str, metric: str, direction: str, unit: str,
         baseline: Optional[str], show: Iterable[str] = (),
         vs_floor: bool = False, reference: bool = False) -> dict[str, Any]:
    return dict(scenario=scenario, metric=metric, direction=direction,
                unit=unit, baseline=baseline, show=list(show),
                vs_floor=vs_floor, reference=reference)


FLOOR_RULE = rule("floor", "p50_ns", "lower", "ns", None,
                  ("p99_ns", "p999_ns"), reference=True)
RULES = {
    "queues": [
        rule("throughput", "items_per_second", "higher", "items/s", "mutex"),
        rule("latency", "p50_x_floor", "lower", "x floor", "mutex",
             ("p50_ns", "p99_ns", "p999_ns", "floor_ns", "p99_x_floor"),
             vs_floor=True),
        rule("eventloop", "items_per_second", "higher", "tasks/s",
             "swap-vector", ("wakeups_per_task", "writes_per_task")),
        rule("pairs", "items_per_second", "higher", "items/s", "mutex"),
        rule("burst", "items_per_second", "higher", "items/s", "mutex"),
        FLOOR_RULE],
    "threadpool": [
        rule("tiny", "items_per_second", "higher", "tasks/s", "asio",
             ("p50_ns", "p99_ns")),
        rule("latency", "p50_ns", "lower", "ns", "asio",
             ("p99_ns", "p999_ns")),
        rule("fanout", "items_per_second", "higher", "rounds/s", "asio",
             ("p50_us", "p99_us")),
        rule("sleep", "overhead_pct", "lower", "%", "asio",
             ("wall_ms", "ideal_ms", "overhead_us_per_task",
              "overhead_cal_pct", "mean_sleep_us")),
        FLOOR_RULE],
    "logger": [
        rule("throughput-file", "items_per_second", "higher", "msgs/s",
             "sync", ("bytes_per_second",)),
        rule("throughput-console", "items_per_second", "higher", "msgs/s",
             "sync", ("bytes_per_second",)),
        rule("latency-file", "p50_ns", "lower", "ns", "sync",
             ("p99_ns", "p999_ns")),
        rule("latency-console", "p50_ns", "lower", "ns", "sync",
             ("p99_ns", "p999_ns")),
        FLOOR_RULE],
    "buffer": [
        rule("burger", "bytes_per_second", "higher", "B/s", "linear",
             ("moved_per_iter",)),
        rule("fd_echo", "bytes_per_second", "higher", "B/s", "linear"),
        rule("framed", "bytes_per_second", "higher", "B/s", "linear",
             ("moved_pct", "items_per_second")),
        FLOOR_RULE],
}


def q_traits(topology: str, bounded: bool) -> dict[str, Any]:
    return dict(topology=topology, bounded=bounded, blocking=False)


def log_traits(is_async: bool, server: bool) -> dict[str, Any]:
    return {"async": is_async, "server": server, "bounded": False}


IMPLS: dict[str, dict[str, dict[str, Any]]] = {
    "queues": {"mutex": q_traits("mpmc", False),
               "bounded-mpmc": q_traits("mpmc", True),
               "moodycamel": q_traits("mpmc", False),
               "spsc-ring": q_traits("spsc", True),
               "swap-vector": q_traits("mpsc", False)},
    "threadpool": {"asio": dict(bounded=False, blocking=True),
                   "work-stealing": dict(bounded=False, blocking=True)},
    "logger": {"sync": log_traits(False, True),
               "async-double-buffer": log_traits(True, True),
               "async-queue-moodycamel": log_traits(True, True),
               # The full profile's queue loggers: not in the server.
               "async-queue-tbb": log_traits(True, False)},
    "buffer": {"linear": dict(reference=False, contiguous=True),
               "ring": dict(reference=False, contiguous=False),
               "mirrored": dict(reference=False, contiguous=True),
               # std::string-backed: the conformance tests' reference.
               "string": dict(reference=True, contiguous=True)},
}
SIZES = {
    "queues": {"throughput": {"items": 4000000, "capacity": 8192},
               "latency": {"round_trips": 100000},
               "eventloop": {"tasks": 200000}},
    "threadpool": {"tiny": {"tasks": 200000}, "sleep": {"tasks": 400}},
    "logger": {"latency-file": {"calls": 100000}},
    "buffer": {"burger": {"block": 65536}},
}


Point = Optional[tuple[float, float]]  # (p50_ns, p99_ns)


def vocabulary(family: str, profile: str = "default", reps: int = 5,
               before: Point = (561.0, 902.0),
               after: Point = (575.0, 930.0),
               core_pair: Optional[tuple[int, int]] = (0, 1), cores: int = 2,
               interleaved: bool = True) -> dict[str, Any]:
    def point(p: Point) -> Optional[dict[str, float]]:
        return None if p is None else dict(p50_ns=p[0], p99_ns=p[1])
    return dict(
        schema=1, family=family, profile=profile, repetitions=reps,
        interleaved=interleaved,
        machine=dict(cpu_model="Test CPU @ 2.00GHz", cores=cores),
        floor=dict(core_pair=list(core_pair) if core_pair else None,
                   round_trips=20000, threshold=0.2, before=point(before),
                   after=point(after)),
        rankings=RULES[family], impls=IMPLS[family],
        scenarios=SIZES[family])


def floor_runs(family: str, p50s: list[float]) -> list[dict[str, Any]]:
    """The floor's reference row: two pinned threads bouncing a cache line."""
    return runs("%s/floor/cache-line" % family,
                {"p50_ns": p50s, "p99_ns": scale(p50s, 1.6),
                 "p999_ns": scale(p50s, 2.2)}, len(p50s))


def latency_counters(p50s: list[float], floors: list[float]
                     ) -> dict[str, list[float]]:
    """A queue round trip's counters per repetition: p50/p99/p999 in ns, the
    floor measured beside each repetition, and p50 and p99 as multiples of
    it (per repetition, as the sweep divides them)."""
    p99s, p999s = scale(p50s, 2), scale(p50s, 3)
    return {"p50_ns": p50s, "p99_ns": p99s, "p999_ns": p999s,
            "floor_ns": list(floors),
            "p50_x_floor": [a / f for a, f in zip(p50s, floors)],
            "p99_x_floor": [a / f for a, f in zip(p99s, floors)]}


def write(dirname: str, family: str, benchmarks: list[dict[str, Any]],
          profile: str = "default", cores: int = 2,
          sk: Union[dict[str, Any], None, bool] = None,
          name: Optional[str] = None) -> None:
    """sk: the serverkit context object; False for an older sweep's file."""
    d = os.path.join(HERE, dirname)
    os.makedirs(d, exist_ok=True)
    context: dict[str, Any] = dict(
        date="2026-01-01T00:00:00+00:00", host_name="t", num_cpus=cores,
        cores=str(cores), mhz_per_cpu=2000, library_build_type="debug",
        profile=profile, load_avg=[0.1, 0.1, 0.1], pinning="test")
    if sk is not False:
        context["serverkit"] = sk or vocabulary(family, profile)
    doc = dict(context=context, benchmarks=benchmarks)
    with open(os.path.join(d, (name or family) + ".json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")

# -----------------------------------------------------------------------------
# pick/testdata/roundsfix.py
# -----------------------------------------------------------------------------
#
# Result files of sweeps run in paired rounds, built in memory for
# rounds_test.py (deterministic; write_doc() puts one under a directory).
# Each run is one implementation in one round: repetitions 1, a "round"
# counter and the floor measured before its group's round
# ("round_floor_ns"); context.serverkit.rounds says how the rounds ran.
# The vocabulary (rules, traits) is fixturelib's.
#
#   stable_bimodal()  queues 1:1: floor 150 ns in 9 rounds, 450 ns in 6,
#                     everything slower in the far state, bounded-mpmc
#                     1.5x moodycamel in both (before/after floor 150/450;
#                     far_ratio: another ratio in the far state)
#   flipping(far)     buffer stream (burger + fd_echo): ring 1.3x mirrored
#                     in 9 near rounds, a tie in `far` far rounds
#   tie_budget()      queues 1:1 a tie over 12 rounds (the unit's budget
#                     ended it); latency only 4 rounds
#   part(k, ...)      queues 1:1 as process k of 2 (--part=k/2), 4 rounds
#   pooled_vs_paired()  the pooled leader behind in the paired rounds
#   steady(ratio, n)  queues 1:1 bounded-mpmc over moodycamel, n rounds

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Optional

from pick.testdata.fixturelib import vocabulary

# Round-to-round noise of a ratio: mean 1, symmetric, at most ±3%.
JITTER = [1.00, 1.03, 0.98, 1.01, 0.97, 1.02, 0.99, 1.015, 0.985, 1.005,
          0.995, 1.025, 0.975, 1.01, 0.99, 1.02]


def run(name: str, rnd: int, floor: float, counters: dict[str, float],
        process: Optional[int] = None) -> dict[str, Any]:
    b: dict[str, Any] = dict(
        name=name + "/manual_time", run_name=name + "/manual_time",
        run_type="iteration", repetitions=1, repetition_index=0, threads=1,
        iterations=1, real_time=1.0, cpu_time=1.0, time_unit="ms",
        round=float(rnd), round_floor_ns=floor)
    b.update(counters)
    if process is not None:
        b["process"] = process
    return b


def group_rounds(family: str, scenario: str, params: str, metric: str,
                 values: dict[str, list[float]], floors: list[float]
                 ) -> list[dict[str, Any]]:
    """One group's runs: round k runs every implementation once (values:
    {impl: [value per round]}), the floor floors[k - 1] before it."""
    out = []
    for k, floor in enumerate(floors, start=1):
        for impl, vs in values.items():
            name = "%s/%s/%s" % (family, scenario, impl) + (
                "/" + params if params else "")
            out.append(run(name, k, floor, {metric: vs[k - 1]}))
    return out


def floor_rows(family: str, floors: list[float]) -> list[dict[str, Any]]:
    """The floor's reference row, once per round."""
    return [run("%s/floor/cache-line" % family, k, f,
                dict(p50_ns=f, p99_ns=1.6 * f, p999_ns=2.2 * f))
            for k, f in enumerate(floors, start=1)]


def rounds_ctx(units: dict[str, tuple[list[str], int, str]],
               elapsed: float = 68.2) -> dict[str, Any]:
    """context.serverkit.rounds; units: {name: (scenarios, rounds, stop)}."""
    return dict(target=0.05, budget_s=70.0, min_rounds=3, max_rounds=40,
                elapsed_s=elapsed, units={
                    name: dict(scenarios=sc, rounds=n, stop=stop,
                               seconds=round(elapsed / len(units), 1),
                               half_width=0.043)
                    for name, (sc, n, stop) in units.items()})


def doc(family: str, benchmarks: list[dict[str, Any]],
        rounds: dict[str, Any], floors: list[float]) -> dict[str, Any]:
    sk = vocabulary(family, reps=1, before=(floors[0], 1.6 * floors[0]),
                    after=(floors[-1], 1.6 * floors[-1]))
    sk["rounds"] = rounds
    context = dict(date="2026-01-01T00:00:00+00:00", host_name="t",
                   num_cpus=2, cores="2", mhz_per_cpu=2000,
                   library_build_type="debug", profile="default",
                   load_avg=[0.1, 0.1, 0.1], pinning="test", serverkit=sk)
    return dict(context=context, benchmarks=benchmarks)


def write_doc(directory: str, name: str, d: Mapping[str, Any]) -> str:
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name + ".json")
    with open(path, "w") as f:
        json.dump(d, f)
    return path


def states(near: int, far: int) -> list[float]:
    """Floors of near + far rounds, the far ones spread among the near."""
    out: list[float] = []
    n, f = near, far
    while n or f:
        if f and (not n or len(out) % 3 == 2):
            out.append(450.0)
            f -= 1
        else:
            out.append(150.0)
            n -= 1
    return out


def _queues_1to1(ratios: list[float], floors: list[float],
                 slow: float = 0.6) -> list[dict[str, Any]]:
    """bounded-mpmc over moodycamel by ratios[k] in round k, mutex a third
    of moodycamel; every rate times `slow` in a far round (450 ns)."""
    s = [slow if f > 300 else 1.0 for f in floors]
    moody = [2e7 * s[k] * JITTER[(k + 5) % 16] for k in range(len(floors))]
    return group_rounds(
        "queues", "throughput", "producers:1/consumers:1",
        "items_per_second", {
            "bounded-mpmc": [m * x for m, x in zip(moody, ratios)],
            "moodycamel": moody, "mutex": [m / 3 for m in moody]}, floors)


def stable_bimodal(far_ratio: float = 1.5, far: int = 6) -> dict[str, Any]:
    floors = states(9, far)
    ratios = [(far_ratio if f > 300 else 1.5) * JITTER[k]
              for k, f in enumerate(floors)]
    b = _queues_1to1(ratios, floors) + floor_rows("queues", floors)
    return doc("queues", b, rounds_ctx(
        {"throughput": (["throughput"], 15, "target")}), floors)


def flipping(far: int = 7) -> dict[str, Any]:
    floors = states(9, far)
    ratio = [(1.0 if f > 300 else 1.3) * JITTER[k]
             for k, f in enumerate(floors)]
    b: list[dict[str, Any]] = []
    for scenario, params, rate in (("burger", "kept_pct:95", 4e9),
                                   ("fd_echo", "bytes:1024", 1e9)):
        mirrored = [rate * (0.6 if f > 300 else 1.0) for f in floors]
        b += group_rounds("buffer", scenario, params, "bytes_per_second", {
            "ring": [m * x for m, x in zip(mirrored, ratio)],
            "mirrored": mirrored, "linear": [m / 2 for m in mirrored]},
            floors)
    b += floor_rows("buffer", floors)
    return doc("buffer", b, rounds_ctx(
        {"stream": (["burger", "fd_echo"], len(floors), "max_rounds")}),
        floors)


def tie_budget() -> dict[str, Any]:
    floors = [150.0 + (k % 3) for k in range(12)]
    b = _queues_1to1(JITTER[:12], floors)
    b += group_rounds("queues", "latency", "", "p50_x_floor", {
        "bounded-mpmc": [0.3] * 4, "moodycamel": [0.6] * 4,
        "mutex": [2.0] * 4}, floors[:4])
    b += floor_rows("queues", floors)
    return doc("queues", b, rounds_ctx(
        {"throughput": (["throughput"], 12, "budget"),
         "latency": (["latency"], 4, "budget")}), floors)


def steady(ratio: float, n: int, spread: float = 1.0) -> dict[str, Any]:
    """bounded-mpmc over moodycamel by `ratio` (the jitter times
    `spread`), n rounds on a steady host."""
    floors = [150.0] * n
    ratios = [ratio * (1 + spread * (JITTER[k % 16] - 1)) for k in range(n)]
    b = _queues_1to1(ratios, floors) + floor_rows("queues", floors)
    return doc("queues", b, rounds_ctx(
        {"throughput": (["throughput"], n, "target")}), floors)


def pooled_vs_paired() -> dict[str, Any]:
    """moodycamel leads on the pooled medians, but bounded-mpmc is 1.1x
    moodycamel in 8 of 9 rounds (0.1x in the round where both ran
    fastest)."""
    floors = [150.0] * 9
    moody = [1e7 * k for k in range(1, 10)]
    mpmc = [1.1 * m for m in moody[:8]] + [0.1 * moody[8]]
    b = group_rounds("queues", "throughput", "producers:1/consumers:1",
                     "items_per_second", {
                         "bounded-mpmc": mpmc, "moodycamel": moody,
                         "mutex": [m / 3 for m in moody]}, floors)
    return doc("queues", b + floor_rows("queues", floors), rounds_ctx(
        {"throughput": (["throughput"], 9, "target")}), floors)


def part(k: int, ratio: float, stop: str) -> dict[str, Any]:
    """Process k of 2 (--part=k/2): 4 rounds of bounded-mpmc over
    moodycamel by `ratio`."""
    floors = [150.0] * 4
    ratios = [ratio * JITTER[4 * (k - 1) + j] for j in range(4)]
    b = _queues_1to1(ratios, floors) + floor_rows("queues", floors)
    d = doc("queues", b, rounds_ctx(
        {"throughput": (["throughput"], 4, stop)}, elapsed=30.0 + k),
        floors)
    d["context"]["serverkit"]["part"] = dict(index=k, of=2)
    return d


def drifting_winner(sixth_far: Optional[float] = None) -> dict[str, Any]:
    """queues 1:1: bounded-mpmc about 1.22x moodycamel in 20 near rounds
    and 1.13x in 5 far ones; with sixth_far, a sixth far round at that
    ratio (issue 36's fixture: one round must not withdraw the verdict)."""
    far = 5 if sixth_far is None else 6
    floors = states(20, far)
    ratios = [(1.13 if f > 300 else 1.22) * JITTER[k % 16]
              for k, f in enumerate(floors)]
    if sixth_far is not None:
        last = max(k for k, f in enumerate(floors) if f > 300)
        ratios[last] = sixth_far
    b = _queues_1to1(ratios, floors) + floor_rows("queues", floors)
    return doc("queues", b, rounds_ctx(
        {"throughput": (["throughput"], len(floors), "budget")}), floors)

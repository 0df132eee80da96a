# -----------------------------------------------------------------------------
# pick/decide/error_rates.py
# -----------------------------------------------------------------------------
#
# How often the micro pick's rules are wrong, by seeded simulation through
# pick's own code: each simulated sweep is a FamilyResults in memory, with
# K implementations in one group run in paired rounds (a round-to-round
# spread SIGMA on the log value, the same host state for every contender of
# a round). picking.rank_groups() and picking.decide() choose the leader
# and the runner-up on the sweep's rounds (one process), as pick does; the
# confirmation then runs the pair and the baseline in CONFIRM_PROCESSES
# fresh processes of CONFIRM_ROUNDS rounds (a second FamilyResults,
# fr.confirm, keyed (process, round)), and decide() takes every margin from
# those. Counted: false "ahead" and adoption when all K are equal, the
# coverage of the reported interval over the true ratio, "equivalent
# within ±5%" granted when the leader is truly 1.08x the runner-up (an
# error) and when all are equal (power), and "ahead" at 1.08x (power).
#
# The noise models (NOISES), each with the same SD per run:
#   normal     independent normal runs
#   t3         Student t with 3 degrees of freedom (heavy tails)
#   ar05/ar07  each implementation's noise an AR(1) across the rounds of a
#              process, rho 0.5 / 0.7 (rounds that drift together)
#   shift      normal runs, and each process shifts each implementation by
#              N(0, 3%) (heap, placement)
#   host       normal runs; each process meets one of two host states, and
#              every implementation is 5% faster in one and 5% slower in
#              the other, in a direction of its own (state x candidate,
#              10% apart; the truth is the mean over the states)
# BOUNDS are the nominal levels of the rule plus 3 Monte Carlo standard
# errors at the runs made (check()); calibration_test.py asserts them for
# every model, and that a rule twice as liberal (alpha 0.10) fails them.
#
#   PYTHONPATH=. /usr/bin/python3 -m pick.calibration [--runs=N]   the rows
#
# Imported by calibration_test.py (the bounds, in make test) and run as a
# script for docs/methods.md's table "How often the rules are wrong".

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import sys
from typing import Optional, cast

from pick.read import sweeps
from pick.margin import MARGIN, Standing
from pick.decide.ranking import decide, rank_groups
from pick.decide.paired_rounds import (CONFIRM_PROCESSES,
                                       CONFIRM_ROUNDS,
                                       over_baseline)
from pick.records import ResultContext
from pick import records

GROUP: records.Group = ("throughput", ())
METRIC = "items_per_second"
SIGMA = 0.08        # SD of a run's log value around its implementation's
HOST_SIGMA = 0.30   # SD of a round's host state (cancels in the pair)
SWEEP_ROUNDS = 20   # the sweep's rounds: the default profile's typical n
K = 12              # implementations in the class
ALPHA = 0.05
NOISES = ("normal", "t3", "ar05", "ar07", "shift", "host")
SHIFT_SD = 0.03     # "shift": a process's shift of one implementation
HOST_SPLIT = 0.05   # "host": each implementation +-5% by host state


@dataclasses.dataclass(frozen=True)
class Noise:
    """One noise model (the header's NOISES) by name."""

    name: str = "normal"

    def process(self, impls: list[str], rng: random.Random
                ) -> dict[str, float]:
        """Each implementation's offset in one process."""
        if self.name == "shift":
            return {i: rng.gauss(0.0, SHIFT_SD) for i in impls}
        if self.name == "host":
            state = rng.choice((-1.0, 1.0))
            return {i: state * HOST_SPLIT * _sign(i) for i in impls}
        return {i: 0.0 for i in impls}

    def rho(self) -> float:
        return {"ar05": 0.5, "ar07": 0.7}.get(self.name, 0.0)

    def draw(self, rng: random.Random) -> float:
        """One run's innovation, SD SIGMA."""
        if self.name == "t3":
            # t(3) = z / sqrt(chi2(3) / 3) has variance 3.
            chi2 = sum(rng.gauss(0.0, 1.0) ** 2 for _ in range(3))
            return SIGMA * rng.gauss(0.0, 1.0) / math.sqrt(chi2 / 3.0) / \
                math.sqrt(3.0)
        return rng.gauss(0.0, SIGMA)


def _sign(impl: str) -> float:
    """The direction of impl's host-state effect: its own, fixed."""
    return 1.0 if sum(map(ord, impl)) % 2 else -1.0


def _family(means: dict[str, float], processes: int, rounds: int,
            rng: random.Random, noise: Noise) -> sweeps.FamilyResults:
    """One group, every implementation once a round, `rounds` rounds in
    each of `processes` processes; means are log values (higher is
    better)."""
    fr = sweeps.FamilyResults("queues", "<simulated>", cast(
        ResultContext, {"serverkit": {"rounds": {"units": {}}}}))
    cells = fr.cells.setdefault(GROUP, {})
    rho = noise.rho()
    for proc in range(1, processes + 1):
        offset = noise.process(list(means), rng)
        state = {i: noise.draw(rng) for i in means}   # stationary start
        for k in range(1, rounds + 1):
            host = rng.gauss(0.0, HOST_SIGMA)
            for impl, mu in means.items():
                if k > 1:
                    state[impl] = rho * state[impl] + \
                        math.sqrt(1.0 - rho * rho) * noise.draw(rng)
                cell = cells.setdefault(impl, records.Cell(impl))
                v = math.exp(mu + offset[impl] + host + state[impl])
                cell.by_round[(proc, k)] = {METRIC: v,
                                            "round_floor_ns": 200.0}
                cell.samples.setdefault(METRIC, []).append(v)
    return fr


@dataclasses.dataclass(frozen=True)
class Trial:
    claimed: bool       # the verdict says "ahead" (noise "above")
    standing: Standing
    lo: Optional[float]
    hi: Optional[float]
    truth: float        # the true ratio of the reported pair
    adopted: bool
    over_baseline: Standing     # the leader over the baseline


def trial(means: dict[str, float], rng: random.Random, confirm: bool,
          baseline: str = "impl-00", noise: Noise = Noise(),
          alpha: float = ALPHA) -> Trial:
    """One simulated sweep, decided by pick's code (the header)."""
    fr = _family(means, 1, SWEEP_ROUNDS, rng, noise)
    _, cands, scores, _ = rank_groups(fr, [GROUP], METRIC, True)
    if confirm:
        fr.confirm = _family(means, CONFIRM_PROCESSES, CONFIRM_ROUNDS, rng,
                             noise)
    res = decide(fr, [GROUP], METRIC, True, baseline, cands, scores, alpha,
                 MARGIN, drift_threshold=0.2)
    x = res["paired"]
    truth = math.exp(means[x["a"]] - means[x["b"]])
    adopted = res["noise"] == "above" and res.get("confirmed", False) and \
        over_baseline(res)
    bp = res.get("baseline_paired")
    return Trial(res["noise"] == "above", Standing(x["standing"]),
                 x["lo"], x["hi"], truth, adopted,
                 Standing(bp["standing"]) if bp else Standing.UNKNOWN)


@dataclasses.dataclass(frozen=True)
class Rates:
    runs: int
    ahead: float        # "ahead" or "ahead by more than m" claimed
    ahead_of_baseline: float
    adopted: float
    equivalent: float
    coverage: float     # the interval held the true ratio


def rates(lead: float, runs: int, seed: int, confirm: bool,
          noise: str = "normal", alpha: float = ALPHA) -> Rates:
    """K implementations, one of them `lead` times the others (1: all
    equal), over `runs` seeded sweeps."""
    rng = random.Random(seed)
    means = {"impl-%02d" % i: 0.0 for i in range(K)}
    means["impl-%02d" % (K - 1)] = math.log(lead)
    got = [trial(means, rng, confirm, noise=Noise(noise), alpha=alpha)
           for _ in range(runs)]
    cover = [t for t in got if t.lo is not None and t.hi is not None]
    return Rates(
        runs=runs,
        ahead=sum(t.claimed for t in got) / runs,
        ahead_of_baseline=sum(t.over_baseline.points() > 0
                              for t in got) / runs,
        adopted=sum(t.adopted for t in got) / runs,
        equivalent=sum(t.standing == Standing.EQUIVALENT for t in got) / runs,
        coverage=sum(1 for t in cover if t.lo is not None and
                     t.hi is not None and t.lo <= t.truth <= t.hi) /
        max(1, len(cover)))


def mc_se(p: float, runs: int) -> float:
    """The Monte Carlo standard error of a rate p over runs."""
    return math.sqrt(p * (1.0 - p) / runs)


def bounds(runs: int, alpha: float = ALPHA) -> dict[str, float]:
    """Each rate's bound: its nominal level plus (minus, for coverage) 3
    Monte Carlo standard errors at `runs`. "ahead" is one side of the
    1 - alpha interval (alpha / 2); "equivalent" at 1.08x is a TOST at
    alpha; coverage 1 - alpha."""
    one_side = alpha / 2.0
    return {"ahead": one_side + 3 * mc_se(one_side, runs),
            "equivalent": alpha + 3 * mc_se(alpha, runs),
            "coverage": 1 - alpha - 3 * mc_se(alpha, runs)}


def check(null: Rates, off: Rates) -> list[str]:
    """The bounds these rates break (empty: calibrated), in words."""
    b = bounds(null.runs)
    out = []
    for name, got in (("ahead of the runner-up", null.ahead),
                      ("ahead of the baseline", null.ahead_of_baseline),
                      ("adopted", null.adopted)):
        if got > b["ahead"]:
            out.append("false %s %.2f%% > %.2f%%" % (
                name, 100 * got, 100 * b["ahead"]))
    if off.equivalent > bounds(off.runs)["equivalent"]:
        out.append("false equivalent %.2f%% > %.2f%%" % (
            100 * off.equivalent, 100 * bounds(off.runs)["equivalent"]))
    for which, r in (("null", null), ("1.08x", off)):
        if r.coverage < bounds(r.runs)["coverage"]:
            out.append("coverage at %s %.1f%% < %.1f%%" % (
                which, 100 * r.coverage, 100 * bounds(r.runs)["coverage"]))
    return out


def table(runs: int, seed: int = 36,
          noises: tuple[str, ...] = NOISES) -> list[str]:
    """The Markdown rows of docs/methods.md's micro table: one row per
    noise model, confirmed; the normal model unconfirmed too."""
    b = bounds(runs)
    rows = ["| noise (micro pick, %d implementations, %d sweep rounds, "
            "confirmation %d processes x %d rounds, SD %.2f, %d runs) | "
            "false ahead of runner-up | of baseline | adopted | coverage | "
            "false equivalent at 1.08x | equivalent at 1.00 (power) | "
            "ahead at 1.08x (power) |" % (
                K, SWEEP_ROUNDS, CONFIRM_PROCESSES, CONFIRM_ROUNDS, SIGMA,
                runs),
            "|---|---|---|---|---|---|---|---|",
            "| bound | <= %.2f%% | <= %.2f%% | <= %.2f%% | >= %.1f%% | "
            "<= %.2f%% | - | - |" % (
                100 * b["ahead"], 100 * b["ahead"], 100 * b["ahead"],
                100 * b["coverage"], 100 * b["equivalent"])]
    plan = [(n, True) for n in noises] + [("normal", False)]
    for k, (noise, confirm) in enumerate(plan):
        null = rates(1.0, runs, seed + 2 * k, confirm, noise)
        off = rates(1.08, runs, seed + 2 * k + 1, confirm, noise)
        rows.append("| %s%s | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | "
                    "%.1f%% | %.1f%% |" % (
                        noise, "" if confirm else ", unconfirmed (the "
                        "choosing rounds)", 100 * null.ahead,
                        100 * null.ahead_of_baseline, 100 * null.adopted,
                        100 * min(null.coverage, off.coverage),
                        100 * off.equivalent, 100 * null.equivalent,
                        100 * off.ahead))
    return rows


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=1000)
    args = ap.parse_args(argv)
    print("\n".join(table(args.runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

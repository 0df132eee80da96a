# -----------------------------------------------------------------------------
# pick/calibration.py
# -----------------------------------------------------------------------------
#
# How often the micro pick's rules are wrong, by seeded simulation through
# pick's own code: each simulated sweep is a FamilyResults in memory, with
# K implementations in one group run in paired rounds (a lognormal
# round-to-round spread SIGMA, the same host state for every contender of a
# round). picking.rank_groups() and picking.decide() choose the leader and
# the runner-up on the sweep's rounds, as pick does; the confirmation then
# runs the pair and the baseline for CONFIRM_ROUNDS fresh rounds (a second
# FamilyResults, fr.confirm), and decide() takes every margin from those.
# Counted: false "ahead" (the leader adopted) when all K are equal, the
# coverage of the reported interval over the true ratio, and "equivalent
# within ±5%" granted when the leader is truly 1.08x the runner-up. The same
# counts without the confirmation (margins from the choosing rounds) show
# what it buys.
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

from pick import results as R
from pick.confirm import CONFIRM_ROUNDS
from pick.margin import MARGIN, Standing
from pick.picking import decide, rank_groups
from pick.shapes import ResultContext

GROUP: R.Group = ("throughput", ())
METRIC = "items_per_second"
SIGMA = 0.08        # SD of a run's log value around its implementation's
HOST_SIGMA = 0.30   # SD of a round's host state (cancels in the pair)
SWEEP_ROUNDS = 20   # the sweep's rounds: the default profile's typical n
K = 12              # implementations in the class


def _family(means: dict[str, float], rounds: int, rng: random.Random
            ) -> R.FamilyResults:
    """One group, every implementation once a round; means are log values
    (higher is better)."""
    fr = R.FamilyResults("queues", "<simulated>", cast(
        ResultContext, {"serverkit": {"rounds": {"units": {}}}}))
    cells = fr.cells.setdefault(GROUP, {})
    for k in range(1, rounds + 1):
        host = rng.gauss(0.0, HOST_SIGMA)
        for impl, mu in means.items():
            cell = cells.setdefault(impl, R.Cell(impl))
            v = math.exp(mu + host + rng.gauss(0.0, SIGMA))
            cell.by_round[(1, k)] = {METRIC: v, "round_floor_ns": 200.0}
            cell.samples.setdefault(METRIC, []).append(v)
    return fr


@dataclasses.dataclass(frozen=True)
class Trial:
    standing: Standing
    lo: Optional[float]
    hi: Optional[float]
    truth: float        # the true ratio of the reported pair
    adopted: bool
    over_baseline: Standing     # the leader over the baseline


def trial(means: dict[str, float], rng: random.Random, confirm: bool,
          baseline: str = "impl-00") -> Trial:
    """One simulated sweep, decided by pick's code (the header)."""
    fr = _family(means, SWEEP_ROUNDS, rng)
    _, cands, scores, _ = rank_groups(fr, [GROUP], METRIC, True)
    if confirm:
        fr.confirm = _family(means, CONFIRM_ROUNDS, rng)
    res = decide(fr, [GROUP], METRIC, True, baseline, cands, scores, 0.05,
                 MARGIN, drift_threshold=0.2)
    x = res["paired"]
    truth = math.exp(means[x["a"]] - means[x["b"]])
    adopted = res["noise"] == "above" and res.get("confirmed", False)
    bp = res.get("baseline_paired")
    return Trial(Standing(x["standing"]), x["lo"], x["hi"], truth, adopted,
                 Standing(bp["standing"]) if bp else Standing.UNKNOWN)


@dataclasses.dataclass(frozen=True)
class Rates:
    runs: int
    ahead: float        # "ahead" or "ahead by more than m" claimed
    ahead_of_baseline: float
    adopted: float
    equivalent: float
    coverage: float     # the interval held the true ratio


def rates(lead: float, runs: int, seed: int, confirm: bool) -> Rates:
    """K implementations, one of them `lead` times the others (1: all
    equal), over `runs` seeded sweeps."""
    rng = random.Random(seed)
    means = {"impl-%02d" % i: 0.0 for i in range(K)}
    means["impl-%02d" % (K - 1)] = math.log(lead)
    got = [trial(means, rng, confirm) for _ in range(runs)]
    cover = [t for t in got if t.lo is not None and t.hi is not None]
    return Rates(
        runs=runs,
        ahead=sum(t.standing.points() > 0 for t in got) / runs,
        ahead_of_baseline=sum(t.over_baseline.points() > 0
                              for t in got) / runs,
        adopted=sum(t.adopted for t in got) / runs,
        equivalent=sum(t.standing == Standing.EQUIVALENT for t in got) / runs,
        coverage=sum(1 for t in cover if t.lo is not None and
                     t.hi is not None and t.lo <= t.truth <= t.hi) /
        max(1, len(cover)))


def table(runs: int, seed: int = 36) -> list[str]:
    """The Markdown rows of docs/methods.md's micro table."""
    rows = ["| rule (micro pick, %d implementations, %d sweep rounds, SD "
            "%.2f) | truth | runs | observed | bound |" % (
                K, SWEEP_ROUNDS, SIGMA),
            "|---|---|---|---|---|"]
    for confirm, label in ((True, "confirmed (%d fresh rounds)" %
                            CONFIRM_ROUNDS),
                           (False, "unconfirmed (the choosing rounds)")):
        null = rates(1.0, runs, seed, confirm)
        off = rates(1.08, runs, seed + 1, confirm)
        rows += [
            "| leader \"ahead\" of the runner-up, %s | all equal | %d | "
            "%.1f%% | <= 5%% |" % (label, runs, 100 * null.ahead),
            "| leader \"ahead\" of the baseline, %s | all equal | %d | "
            "%.1f%% | <= 5%% |" % (label, runs, 100 * null.ahead_of_baseline),
            "| interval covers the true ratio, %s | all equal | %d | %.1f%% "
            "| >= 93%% |" % (label, runs, 100 * null.coverage),
            "| \"equivalent within ±5%%\", %s | one 1.08x | %d | %.1f%% | "
            "<= 5%% |" % (label, runs, 100 * off.equivalent),
            "| leader \"ahead\" (power), %s | one 1.08x | %d | %.1f%% | "
            "- |" % (label, runs, 100 * off.ahead)]
    return rows


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=1000)
    args = ap.parse_args(argv)
    print("\n".join(table(args.runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

# -----------------------------------------------------------------------------
# validation/check_calibration.py
# -----------------------------------------------------------------------------
#
# How often the prediction's check (check.py) says what: synthetic servers
# whose cost per unit follows C = C0 + k * gamma * c exactly, c the micro
# cost per operation and gamma the transfer factor (1: the model is true;
# 2.5: the server pays 2.5 times the micro cost difference), run through
# the real fit (model.fit, its joint bootstrap) and the real check. Each
# simulated case: ROUNDS rounds of baseline, candidate and two controls (d
# and 2d ns per operation, d = CONTROL_FRACTION of the baseline's cost per
# operation), every run's log cost with a round effect shared by the
# round's sides (SD SIGMA_ROUND) and its own noise (SD SIGMA_RUN), so a
# round's log ratio has SD sqrt(2) * SIGMA_RUN; MICRO_ROUNDS micro rounds,
# each implementation's log cost with SD SIGMA_MICRO; the candidate's micro
# cost MICRO_RATIO of the baseline's. The share is the baseline
# component's part of the server's cost in situ (k gamma c_base / C).
#
#   /usr/bin/python3 -m validation.check_calibration [--runs N]
#       [--resamples B] [--seed S]
#
# prints the table docs/methods.md quotes ("The check"); --old runs the
# rule this replaced (the measured interval holds the predicted point) for
# comparison. check_calibration_test.py drives a smaller run.

from __future__ import annotations

import argparse
import collections
import math
import random
import sys
from typing import Callable, Optional, Sequence

from pick.decide import paired
from pick.margin import MARGIN
from validation import check
from validation import model

SHARES = (0.01, 0.20, 0.50)
GAMMAS = (1.0, 2.5)
ROUNDS = 12
MICRO_ROUNDS = 5
SIGMA_ROUND, SIGMA_RUN, SIGMA_MICRO = 0.05, 0.06, 0.05
MICRO_RATIO = 0.3
COST, OPS = 10000.0, 2.0          # ns per unit; operations per unit
K = OPS                           # amplification 1
CONTROL_FRACTION = 0.1
SEED = 20261201

# A rule: (the rounds, the model fitted on them, the candidate, the
# margin) -> its outcome, None where it cannot check.
Rule = Callable[[Sequence[model.Round], model.Model, str, float],
                Optional[str]]


def new_rule(rounds: Sequence[model.Round], m: model.Model, cand: str,
             margin: float) -> Optional[str]:
    """check.py's rule."""
    c = check.check(m, cand, margin)
    return None if c is None else c.outcome


def old_rule(rounds: Sequence[model.Round], m: model.Model, cand: str,
             margin: float) -> Optional[str]:
    """The rule check.py replaced: "consistent" where the measured exact
    95% interval (the row's e2e) holds the predicted estimate, else
    "inconsistent"."""
    pred = m.point.predicted.get(cand)
    d = [math.log(r.base / r.candidate) for r in rounds if r.candidate]
    if pred is None or not d:
        return None
    lo, hi = paired.hl_interval(d)
    return check.CONSISTENT if math.exp(lo) <= pred <= math.exp(hi) \
        else check.INCONSISTENT


def case(share: float, gamma: float, rng: random.Random,
         n_rounds: int = ROUNDS) -> tuple[list[model.Round], model.Micro]:
    """One simulated case's rounds and micro rounds (the header)."""
    c_base = share * COST / (K * gamma)
    c0 = COST - K * gamma * c_base
    d = CONTROL_FRACTION * COST / OPS

    def run(true: float, shared: float) -> float:
        return true * math.exp(shared + rng.gauss(0.0, SIGMA_RUN))
    rounds = []
    for _ in range(n_rounds):
        s = rng.gauss(0.0, SIGMA_ROUND)
        rounds.append(model.Round(
            base=run(COST, s),
            controls=((d, run(COST + K * d, s)),
                      (2 * d, run(COST + 2 * K * d, s))),
            ops_per_unit=OPS,
            candidate=run(c0 + K * gamma * MICRO_RATIO * c_base, s)))
    micro: model.Micro = {
        x: {i: c * math.exp(rng.gauss(0.0, SIGMA_MICRO))
            for i in range(MICRO_ROUNDS)}
        for x, c in (("base", c_base), ("cand", MICRO_RATIO * c_base))}
    return rounds, micro


def simulate(share: float, gamma: float, runs: int, resamples: int,
             seed: int = SEED, rule: Rule = new_rule,
             margin: float = MARGIN,
             n_rounds: int = ROUNDS) -> collections.Counter[str]:
    """The outcomes of `runs` seeded cases (run i from seed + i)."""
    out: collections.Counter[str] = collections.Counter()
    for i in range(runs):
        rng = random.Random(seed + i)
        rounds, micro = case(share, gamma, rng, n_rounds)
        m = model.fit(rounds, micro, "base", resamples=resamples,
                      seed=seed + i)
        if m is None:
            out["no fit"] += 1
            continue
        out[rule(rounds, m, "cand", margin) or "not checked"] += 1
    return out


def table(runs: int, resamples: int, seed: int = SEED,
          rule: Rule = new_rule,
          cells: Sequence[tuple[float, float]] = (),
          n_rounds: int = ROUNDS) -> list[str]:
    """The calibration table's Markdown lines."""
    lines = ["| rounds | share | γ | consistent | inconsistent | "
             "uninformative |", "|---|---|---|---|---|---|"]
    for s, g in cells or [(s, g) for s in SHARES for g in GAMMAS]:
        got = simulate(s, g, runs, resamples, seed, rule,
                       n_rounds=n_rounds)
        cols = ["%.1f%%" % (100.0 * got[o] / runs) for o in check.OUTCOMES]
        lines.append("| %d | %g%% | %g | %s |" % (
            n_rounds, 100 * s, g, " | ".join(cols)))
    return lines


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--resamples", type=int, default=model.BOOTSTRAP)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    ap.add_argument("--old", action="store_true",
                    help="the replaced rule (interval holds the point)")
    a = ap.parse_args(argv)
    print("check calibration: %d runs per cell, %d resamples, seeds %d.., "
          "%d rounds, %d micro rounds, SD %.2g (round) + %.2g (run) of log "
          "cost, %.2g of the micro costs, candidate's micro cost %.2g of "
          "the baseline's%s" % (
              a.runs, a.resamples, a.seed, a.rounds, MICRO_ROUNDS,
              SIGMA_ROUND, SIGMA_RUN, SIGMA_MICRO, MICRO_RATIO,
              "; the old rule" if a.old else ""))
    for line in table(a.runs, a.resamples, a.seed,
                      old_rule if a.old else new_rule, n_rounds=a.rounds):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/calibration.py
# -----------------------------------------------------------------------------
#
# How often the validation's rules are wrong, by simulation: seeded
# synthetic cases driven through the validation's own stop rule
# (decide.stop_rule, which rounds.next_round_fits calls)
# and its own verdict (decide.decide), round by round, as a real
# case runs them. Each simulated round gives the candidate's log ratio d ~
# N(log truth, SD) and the control's ~ N(CONTROL, SD): SD 0.08 like the
# real cases' rounds, the control a clear 10% slowdown. A case runs the
# default profile's rounds (cases.PROFILES: 6 to 60), with a
# budget of BUDGET_ROUNDS rounds standing in for its share of the time
# budget (the 2-core runs' budget stops came at 30 to 37 rounds).
#
# What it counts, per truth: false "held" or "refuted" under the null
# (truth 1), how often the reported 95% interval covers the truth at the
# round where the case stopped, and false "equivalent" at a truth just past
# the margin (1.08x). calibration_test.py asserts the bounds;
# main() prints the rows of docs/methods.md's table "How often the rules
# are wrong":
#
#   PYTHONPATH=. /usr/bin/python3 -m validation.calibration

from __future__ import annotations

import dataclasses
import math
import random
import sys
from typing import Optional

from validation import decide as D
from validation.cases import MARGIN, PROFILES, Outcome

SD = 0.08            # the rounds' SD of log ratios, like the real cases'
CONTROL = -0.10      # the control's mean log ratio: a clear slowdown
BUDGET_ROUNDS = 30   # the budget's stand-in, in rounds
RUNS = 4000          # simulated cases per truth
SEED = 3600


@dataclasses.dataclass
class Tally:
    truth: float
    runs: int = 0
    outcomes: dict[str, int] = dataclasses.field(default_factory=dict)
    covered: int = 0        # the reported interval holds the truth
    stops: dict[str, int] = dataclasses.field(default_factory=dict)
    rounds: int = 0         # summed over the runs

    def rate(self, *which: Outcome) -> float:
        return sum(self.outcomes.get(o.value, 0) for o in which) / self.runs

    def coverage(self) -> float:
        return self.covered / self.runs


def one_case(rng: random.Random, truth: float, margin: float = MARGIN,
             budget_rounds: int = BUDGET_ROUNDS
             ) -> tuple[D.Decision, str, int]:
    """One simulated case: rounds until the stop rule (or the budget)
    says stop; its decision, stop reason and rounds."""
    prof = PROFILES["default"]
    win: list[float] = []
    ctrl: list[float] = []
    mu = math.log(truth)
    while True:
        stop: Optional[str] = D.stop_rule(
            win, ctrl, len(win), prof["min_rounds"], prof["max_rounds"],
            margin)
        if stop is None and len(win) >= max(prof["min_rounds"],
                                            budget_rounds):
            stop = "budget"
        if stop:
            return D.decide(win, ctrl, margin), stop, len(win)
        win.append(rng.gauss(mu, SD))
        ctrl.append(rng.gauss(CONTROL, SD))


def simulate(truth: float, runs: int = RUNS, seed: int = SEED,
             margin: float = MARGIN,
             budget_rounds: int = BUDGET_ROUNDS) -> Tally:
    t = Tally(truth)
    for i in range(runs):
        # A stream of its own per truth and case (a str seed is hashed
        # the same way on every run).
        rng = random.Random("%d/%r/%d" % (seed, truth, i))
        d, stop, n = one_case(rng, truth, margin, budget_rounds)
        t.runs += 1
        t.outcomes[d.outcome.value] = t.outcomes.get(d.outcome.value, 0) + 1
        t.stops[stop] = t.stops.get(stop, 0) + 1
        t.rounds += n
        if d.winner is not None and d.winner.low <= truth <= d.winner.high:
            t.covered += 1
    return t


def table(null: Tally, near: Tally, margin: float = MARGIN) -> list[str]:
    """The Markdown table "How often the rules are wrong"."""
    band = "%g%%" % round(100 * margin, 2)
    rows = [
        ("false held or refuted", null, "%.1f%%" % (100 * null.rate(
            Outcome.HELD, Outcome.REFUTED)), "<= 5%"),
        ("95% interval covers the truth at the stop", null,
         "%.1f%%" % (100 * null.coverage()), ">= 93%"),
        ("95% interval covers the truth at the stop", near,
         "%.1f%%" % (100 * near.coverage()), ">= 93%"),
        ("false equivalent within ±" + band, near, "%.1f%%" % (
            100 * near.rate(Outcome.EQUIVALENT)), "<= 5%"),
        ("equivalent within ±%s granted (power, not an error)" % band,
         null, "%.1f%%" % (100 * null.rate(Outcome.EQUIVALENT)), "-"),
    ]
    out = ["| rule | truth | runs | rate or coverage | bound |",
           "|---|---|---|---|---|"]
    for rule, t, value, bound in rows:
        out.append("| %s | %.2fx | %d | %s | %s |" % (
            rule, t.truth, t.runs, value, bound))
    return out


def describe(t: Tally) -> str:
    return "truth %.2fx: %d runs, mean %.1f rounds; stops %s; outcomes %s" % (
        t.truth, t.runs, t.rounds / t.runs,
        ", ".join("%s %d" % kv for kv in sorted(t.stops.items())),
        ", ".join("%s %d" % kv for kv in sorted(t.outcomes.items())))


def main() -> int:
    null, near = simulate(1.0), simulate(1.08)
    for line in table(null, near):
        print(line)
    print()
    print("SD %.2f per round, control %+.2f, rounds %d to %d, budget %d "
          "rounds, target width from %d rounds" % (
              SD, CONTROL, PROFILES["default"]["min_rounds"],
              PROFILES["default"]["max_rounds"], BUDGET_ROUNDS,
              D.MIN_TARGET_ROUNDS))
    for t in (null, near):
        print(describe(t))
    return 0


if __name__ == "__main__":
    sys.exit(main())

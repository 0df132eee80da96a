#!/usr/bin/python3
# -----------------------------------------------------------------------------
# validation/calibration.py
# -----------------------------------------------------------------------------
#
# How often the validation's rules are wrong, by simulation: seeded
# synthetic cases driven through the validation's own stop rule
# (decide.stop_rule, which rounds.next_round_fits calls) and its own
# verdict (decide.decide), round by round and block by block, as a real
# case runs them: block 1 runs half the budget's rounds (run.py's first
# pass; less if its own rounds reach the target), block 2, minutes later,
# runs until the stop rule or the budget.
# Each round gives the candidate's log ratio d = log truth + noise and the
# control's CONTROL + noise, under one of the noise models (NOISES):
#
#   normal   independent N(0, SD), SD 0.08 like the real cases' rounds
#   t3       Student t with 3 df scaled to SD: heavy tails
#   ar0.5    an AR(1) drift of the rounds, rho 0.5 (marginal SD SD),
#   ar0.7    rho 0.7; it runs on through the GAP rounds between blocks
#   host     host state x candidate: the candidate's truth 10% apart in
#            two host states, each lasting DWELL rounds on average (2
#            minutes at about 3 s a round), over independent N(0, SD);
#            the truth is their (geometric) mean
#
# The control runs a clear 10% slowdown under the same noise (the host
# state aside: it touches the candidate only). A case runs the default
# profile's rounds (cases.PROFILES: 6 to 60) within BUDGET_ROUNDS rounds,
# its share of the time budget (the 2-core runs' budget stops came at 30
# to 37 rounds).
#
# What it counts, per noise and truth: false "held" or "refuted" at truth
# 1, how often the carried 95% interval covers the truth where the case
# stopped, false "equivalent" at 1.08x (just past the margin), and
# "equivalent" granted at a true 1.00 (power). calibration_test.py asserts
# the bounds (on fewer runs); main() prints docs/methods.md's table "How
# often the rules are wrong: the validation":
#
#   PYTHONPATH=. /usr/bin/python3 -m validation.calibration [--runs=N]

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import sys
from typing import Callable, Optional

from validation import decide
from validation.cases import MARGIN, PROFILES, Outcome

SD = 0.08            # the rounds' SD of log ratios, like the real cases'
CONTROL = -0.10      # the control's mean log ratio: a clear slowdown
BUDGET_ROUNDS = 30   # the budget's stand-in, in rounds, both blocks
RUNS = 2000          # simulated cases per noise and truth (the table's)
SEED = 3600
HOST = math.log(1.10)   # the candidate's truth apart between host states
DWELL = 40.0            # a host state's mean length, in rounds
GAP = 60                # rounds between a case's blocks (the other cases)
NOISES = ("normal", "t3", "ar0.5", "ar0.7", "host")

Noise = Callable[[int], tuple[float, float]]   # block -> (win, ctrl) noise


def noise_model(name: str, rng: random.Random) -> Noise:
    """Per round (its block given), the noise of the candidate's and the
    control's log ratios under the model `name`."""
    if name == "normal":
        return lambda b: (rng.gauss(0.0, SD), rng.gauss(0.0, SD))
    if name == "t3":
        def t3() -> float:
            chi = sum(rng.gauss(0.0, 1.0) ** 2 for _ in range(3))
            return SD * rng.gauss(0.0, 1.0) / math.sqrt(chi)  # sd sqrt(3)
        return lambda b: (t3(), t3())
    if name.startswith("ar"):
        rho = float(name[2:])
        state = [rng.gauss(0.0, SD), rng.gauss(0.0, SD), 0.0]

        def ar(b: int) -> tuple[float, float]:
            steps = 1 + (GAP if b != state[2] else 0)
            state[2] = b
            keep = rho ** steps
            for i in (0, 1):
                state[i] = keep * state[i] + math.sqrt(
                    1.0 - keep * keep) * rng.gauss(0.0, SD)
            return state[0], state[1]
        return ar
    if name == "host":
        host = [rng.choice((-1.0, 1.0)), 0.0]

        def hosted(b: int) -> tuple[float, float]:
            steps = 1 + (GAP if b != host[1] else 0)
            host[1] = b
            if rng.random() < (1.0 - (1.0 - 2.0 / DWELL) ** steps) / 2.0:
                host[0] = -host[0]
            return (host[0] * HOST / 2.0 + rng.gauss(0.0, SD),
                    rng.gauss(0.0, SD))
        return hosted
    raise ValueError("unknown noise model %r" % name)


@dataclasses.dataclass
class Tally:
    truth: float
    noise: str = "normal"
    runs: int = 0
    outcomes: dict[str, int] = dataclasses.field(default_factory=dict)
    covered: int = 0        # the reported interval holds the truth
    stops: dict[str, int] = dataclasses.field(default_factory=dict)
    rounds: int = 0         # summed over the runs
    disagree: int = 0       # "the blocks disagree"

    def rate(self, *which: Outcome) -> float:
        return sum(self.outcomes.get(o.value, 0) for o in which) / self.runs

    def coverage(self) -> float:
        return self.covered / self.runs


def one_case(rng: random.Random, truth: float, noise: str = "normal",
             margin: float = MARGIN, budget_rounds: int = BUDGET_ROUNDS,
             blocks: int = decide.BLOCKS, widen: bool = True
             ) -> tuple[decide.Decision, str, int]:
    """One simulated case: block 1 runs its share of the budget, the last
    block rounds until the stop rule (or the budget) says stop; its
    decision, stop reason and rounds. blocks=1, widen=False: the rule
    before issue 47."""
    prof = PROFILES["default"]
    draw = noise_model(noise, rng)
    win: list[float] = []
    ctrl: list[float] = []
    keys: list[int] = []
    mu = math.log(truth)
    lo_rounds = prof["min_rounds"]
    for b in range(blocks - 1):     # the earlier passes: their share
        mine: tuple[list[float], list[float]] = ([], [])
        while len(mine[0]) < max(lo_rounds, budget_rounds // blocks) and \
                not decide.stop_rule(mine[0], mine[1], len(mine[0]), lo_rounds,
                                     prof["max_rounds"] // blocks, margin,
                                     widen=widen):
            w, c = draw(b)
            for xs, x in ((win, mu + w), (ctrl, CONTROL + c),
                          (mine[0], mu + w), (mine[1], CONTROL + c)):
                xs.append(x)
            keys.append(b)
    last = blocks - 1
    kw = dict(win_blocks=keys, ctrl_blocks=keys) if blocks > 1 else {}
    while True:
        stop: Optional[str] = decide.stop_rule(
            win, ctrl, len(win), lo_rounds, prof["max_rounds"], margin,
            widen=widen, **kw)
        if stop is None and len(win) >= budget_rounds and \
                keys.count(last) >= lo_rounds:
            stop = "budget"
        if stop:
            return decide.decide(win, ctrl, margin, widen=widen, **kw), stop, \
                len(win)
        w, c = draw(last)
        win.append(mu + w)
        ctrl.append(CONTROL + c)
        keys.append(last)


def simulate(truth: float, runs: int = RUNS, seed: int = SEED,
             noise: str = "normal", margin: float = MARGIN,
             budget_rounds: int = BUDGET_ROUNDS, blocks: int = decide.BLOCKS,
             widen: bool = True) -> Tally:
    t = Tally(truth, noise)
    for i in range(runs):
        # A stream of its own per noise, truth and case (a str seed is
        # hashed the same way on every run).
        rng = random.Random("%d/%s/%r/%d" % (seed, noise, truth, i))
        d, stop, n = one_case(rng, truth, noise, margin, budget_rounds,
                              blocks, widen)
        t.runs += 1
        t.outcomes[d.outcome.value] = t.outcomes.get(d.outcome.value, 0) + 1
        t.stops[stop] = t.stops.get(stop, 0) + 1
        t.rounds += n
        t.disagree += bool(d.disagree)
        if d.winner is not None and d.winner.low <= truth <= d.winner.high:
            t.covered += 1
    return t


def se(p: float, runs: int) -> float:
    """The Monte Carlo standard error of a rate p over runs cases."""
    return math.sqrt(p * (1.0 - p) / runs)


def bound_up(p: float, runs: int) -> float:
    """At most p, plus 3 Monte Carlo standard errors."""
    return p + 3.0 * se(p, runs)


def table(cells: dict[tuple[str, float], Tally],
          margin: float = MARGIN) -> list[str]:
    """The Markdown table: one row per rule, one column per noise."""
    band = "%g%%" % round(100 * margin, 2)
    noises = [n for n in NOISES if (n, 1.0) in cells]
    runs = cells[(noises[0], 1.0)].runs
    rows: list[tuple[str, float, Callable[[Tally], float], str]] = [
        ("false held or refuted", 1.0,
         lambda t: t.rate(Outcome.HELD, Outcome.REFUTED),
         "<= %.1f%%" % (100 * bound_up(0.05, runs))),
        ("95% interval covers the truth at the stop", 1.0,
         Tally.coverage, ">= %.1f%%" % (100 * (0.95 - 3 * se(0.95, runs)))),
        ("95% interval covers the truth at the stop", 1.08,
         Tally.coverage, ">= %.1f%%" % (100 * (0.95 - 3 * se(0.95, runs)))),
        ("false equivalent within ±" + band, 1.08,
         lambda t: t.rate(Outcome.EQUIVALENT),
         "<= %.1f%%" % (100 * bound_up(0.05, runs))),
        ("equivalent within ±%s granted (power)" % band, 1.0,
         lambda t: t.rate(Outcome.EQUIVALENT), "-"),
        ("the blocks disagree", 1.0, lambda t: t.disagree / t.runs, "-"),
        ("mean rounds", 1.0, lambda t: t.rounds / t.runs, "-"),
    ]
    out = ["| rule | truth | " + " | ".join(noises) + " | bound |",
           "|---|---|" + "---|" * len(noises) + "---|"]
    for rule, truth, f, bound in rows:
        cell = ["-" if (n, truth) not in cells else "%.1f" % f(cells[(
            n, truth)]) if rule == "mean rounds" else "%.1f%%" % (
                100 * f(cells[(n, truth)])) for n in noises]
        out.append("| %s | %.2fx | %s | %s |" % (rule, truth,
                                                 " | ".join(cell), bound))
    return out


def describe(t: Tally) -> str:
    return "%s, truth %.2fx: %d runs, mean %.1f rounds; stops %s; " \
        "outcomes %s; blocks disagree %d" % (
            t.noise, t.truth, t.runs, t.rounds / t.runs,
            ", ".join("%s %d" % kv for kv in sorted(t.stops.items())),
            ", ".join("%s %d" % kv for kv in sorted(t.outcomes.items())),
            t.disagree)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=RUNS)
    ap.add_argument("--old", action="store_true",
                    help="the rule before issue 47: one block, the "
                         "rounds-only interval")
    a = ap.parse_args(argv)
    blocks, widen = (1, False) if a.old else (decide.BLOCKS, True)
    cells = {(n, t): simulate(t, a.runs, noise=n, blocks=blocks,
                              widen=widen)
             for n in NOISES for t in (1.0, 1.08)}
    for line in table(cells):
        print(line)
    print()
    print("SD %.2f per round, control %+.2f, rounds %d to %d, budget %d "
          "rounds in %d block(s), %s interval, target width from %d rounds; "
          "host states %.0f%% apart lasting %.0f rounds, %d rounds between "
          "blocks" % (
              SD, CONTROL, PROFILES["default"]["min_rounds"],
              PROFILES["default"]["max_rounds"], BUDGET_ROUNDS, blocks,
              "carried" if widen else "rounds-only", decide.MIN_TARGET_ROUNDS,
              100 * (math.exp(HOST) - 1), DWELL, GAP))
    for t in cells.values():
        print(describe(t))
    return 0


if __name__ == "__main__":
    sys.exit(main())

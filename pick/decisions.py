# -----------------------------------------------------------------------------
# pick/decisions.py
# -----------------------------------------------------------------------------
#
# What pick decides, typed: TypedDicts, so the records stay the plain dicts
# that winners.json and REPORT.md are written from (their keys and key order
# unchanged), while mypy checks every key. The records read from files are
# shapes.py's.
#
#   Noise           one group's noise verdict (stats.noise())
#   PairedStats, HostStatesDict   paired rounds' statistics (paired/,
#                   rounds.py) as ClassPick holds them
#   Ranked          one implementation's place in a class's ranking
#   ClassPick       one workload class decided (picking.pick_class(); the
#                   paired-rounds keys from rounds.py), as winners.json
#                   lists it
#   ReactorEntry, FamilyPick, Picked   one component of the reactor policy,
#                   one family's classes decided, and pick's whole decision
#                   (winners.pick_all())
#
# Standard library and records.py only; the layer above records (see
# pick.py's header).

from __future__ import annotations

from typing import Any, Optional, TypedDict

from pick.records import FloorSummary, RoundsInfo

# A JSON value kept as it is (shapes.Json).
Json = Any


class Noise(TypedDict, total=False):
    """stats.noise()'s verdict on one group (picking.decide() adds the
    group's name)."""
    ratio: float             # cw over cr, > 1: cw better
    cv: Optional[float]      # the larger of the two CVs
    reps: int                # the fewer repetitions of the two
    p: Optional[float]       # the U-test's; None under 2 repetitions
    processes: int           # processes both ran in (merged files)
    split: Optional[str]     # where cw is not ahead in every process
    state: str               # "above", "within" or "unknown"
    group: str


class PairedStats(TypedDict, total=False):
    """paired.Paired as a dict (Paired.as_dict()): A over B per paired
    round, n rounds, median ratio, interval, coverage, sign test p; in a
    ClassPick with a and b (or the group) named, and the host states."""

    a: str
    b: str
    group: str
    n: int
    ratio: float
    lo: Optional[float]
    hi: Optional[float]
    coverage: Optional[float]
    p: Optional[float]
    method: str              # "sign" or "process" (paired.Paired)
    processes: int
    between_share: Optional[float]
    lag1: Optional[float]
    per_process: list[float]
    eq_lo: Optional[float]       # the 90% interval: equivalence (TOST)
    eq_hi: Optional[float]
    standing: str            # margin.Standing's value at the margin
    states: Optional[HostStatesDict]


class HostStatesDict(TypedDict):
    """rounds.HostStates as a dict: the near and far floor states."""

    near_floor_ns: float
    far_floor_ns: float
    near: PairedStats
    far: PairedStats
    p: Optional[float]
    differ: bool


class Ranked(TypedDict):
    """One implementation's place in a class's ranking."""

    impl: str
    score: float
    candidate: bool


class ClassPick(TypedDict, total=False):
    """One class's decision (picking.pick_class(); the paired keys from
    rounds.py)."""

    family: str
    cls: str
    title: str
    metric: Optional[str]
    unit: Optional[str]
    higher: Optional[bool]
    latency: bool
    show: list[str]
    vs_floor: bool
    scenarios: list[str]
    baseline: Optional[str]
    groups: list[str]
    group_keys: list[Json]
    notes: list[str]
    oversubscribed: bool
    rounds: Optional[int]
    budget_ended: bool
    rounds_stop: Optional[str]
    winner: Optional[str]
    runner_up: Optional[str]
    margin_over_runner_up: Optional[float]
    margin_over_baseline: Optional[float]
    noise: str
    verdict: str
    drift_reason: Optional[str]
    p_max: Optional[float]
    cv: Optional[float]
    repetitions: Optional[int]
    group_noise: list[Noise]
    ranking: list[Ranked]
    partial: dict[str, Json]
    host_note: Optional[str]
    paired_notes: list[str]
    paired: PairedStats
    confirmed: bool          # paired's margins from confirmation rounds
    confirm_note: Optional[str]     # why a confirmation file was not used
    shape: list[str]         # workload thread counts the class did not vary
    selection_paired: PairedStats   # the rounds that chose the pair
    baseline_paired: Optional[PairedStats]
    group_paired: list[PairedStats]


class ReactorEntry(TypedDict, total=False):
    """One component of the reactor policy (winners.json's "reactor")."""

    winner: Optional[str]
    baseline: Optional[str]
    micro_ratio: Optional[float]
    source: Optional[str]
    cv: Optional[float]
    adopted: bool
    leader: Optional[str]
    metric: Optional[str]
    higher_is_better: Optional[bool]
    runner_up: Optional[str]
    margin_over_runner_up: Optional[float]
    noise: Optional[str]
    verdict: Optional[str]
    repetitions: Optional[int]
    rounds: Optional[int]
    budget_ended: Optional[bool]
    groups: list[str]
    measured: bool
    micro_paired: dict[str, Json]
    note: Optional[str]
    micro_ratios: dict[str, float]


class FamilyPick(TypedDict, total=False):
    """One family decided (a missing family: missing and no classes)."""

    missing: bool
    profile: str
    file: str
    cores: Optional[int]
    baselines: list[str]
    floor: FloorSummary
    drifted: bool
    drift_reason: Optional[str]
    drift_verdict: Optional[str]
    rounds: Optional[RoundsInfo]
    classes: list[ClassPick]


class Picked(TypedDict):
    """pick's decision: every family's classes and the reactor policy."""

    families: dict[str, FamilyPick]
    reactor: dict[str, ReactorEntry]
    reactor_missing: dict[str, str]
    alpha: float
    min_margin: float

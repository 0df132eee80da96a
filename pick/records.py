# -----------------------------------------------------------------------------
# pick/records.py
# -----------------------------------------------------------------------------
#
# The records pick reads the sweeps' results into (read/sweeps.py fills them,
# and every module above reads them through results): Cell (one
# implementation in one benchmark group, every counter's repetitions with
# its median and CV), Rule (one ranking rule of a file's vocabulary) and
# FloorSummary (the floor's raw numbers, from which stats.drift() decides
# whether the host drifted), RoundsInfo (how the paired rounds of a sweep
# ran: context.serverkit.rounds, rounds_info()); and the names that key
# them.
#
# Names follow the project's contract,
# `<family>/<scenario>/<impl>/<k>:<v>/...`; Google Benchmark's own segments
# (/iterations:N, /repeats:N, /min_time:T, /manual_time, /real_time,
# /threads:N once one of those appeared) and its aggregate suffixes (_mean,
# _median, _stddev, _cv) are set aside, as ParseRunName does
# (bench/harness/internal/run_names.h). A group is (scenario, params): one
# scenario with one set of parameters, e.g.
# queues/throughput/producers:2/consumers:1.
#
# The bottom layer of pick (see __main__.py for the layers): standard library
# only.

from __future__ import annotations

import dataclasses
import math
import statistics
from typing import Any, Mapping, Optional, TypedDict, Union

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
# A run's pairing key in a sweep run in paired rounds: (process, round); the
# process is 1 in a file that was not merged.
RoundKey = tuple[int, int]


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
    # (process, round) -> {counter: value}: the runs of a sweep run in
    # paired rounds (a "round" counter on each run); else empty.
    by_round: dict[RoundKey, dict[str, float]] = dataclasses.field(
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


@dataclasses.dataclass(frozen=True)
class RoundsUnit:
    """One round unit of a sweep run in paired rounds: the scenarios that
    share round numbers, how many rounds ran (over every process of a merged
    file) and what ended them: "target" (the leading pair's interval
    reached the target), "budget" (the time budget) or "max_rounds"."""

    name: str
    scenarios: tuple[str, ...]
    rounds: Optional[int]
    stop: Optional[str]
    seconds: Optional[float]
    half_width: Optional[float]


@dataclasses.dataclass(frozen=True)
class RoundsInfo:
    """context.serverkit.rounds: the sweep's round schedule (target
    half-width, time budget, bounds on the rounds) and its units."""

    target: Optional[float]
    budget_s: Optional[float]
    min_rounds: Optional[int]
    max_rounds: Optional[int]
    elapsed_s: Optional[float]
    units: dict[str, RoundsUnit]
    processes: int           # parts merged (read/sweeps.py), else 1

    def units_for(self, scenarios: Any) -> list[RoundsUnit]:
        """The units that ran any of the scenarios, in name order."""
        want = set(scenarios)
        return [u for _, u in sorted(self.units.items())
                if want & set(u.scenarios)]


def _opt_num(x: Any) -> Optional[float]:
    if isinstance(x, (int, float)) and not isinstance(x, bool) and \
            math.isfinite(x):
        return float(x)
    return None


def _opt_int(x: Any) -> Optional[int]:
    v = _opt_num(x)
    return int(v) if v is not None else None


def rounds_info(sk: Mapping[str, Any]) -> Optional[RoundsInfo]:
    """context.serverkit.rounds as a RoundsInfo; None for a sweep that did
    not run in paired rounds (an older file: the U-test decides)."""
    r = sk.get("rounds")
    if not isinstance(r, dict):
        return None
    units = {}
    raw = r.get("units")
    for name, u in (raw.items() if isinstance(raw, dict) else []):
        if not isinstance(u, dict):
            continue
        sc = u.get("scenarios")
        stop = u.get("stop")
        units[str(name)] = RoundsUnit(
            name=str(name), scenarios=tuple(
                s for s in sc if isinstance(s, str))
            if isinstance(sc, list) else (str(name),),
            rounds=_opt_int(u.get("rounds")),
            stop=stop if isinstance(stop, str) else None,
            seconds=_opt_num(u.get("seconds")),
            half_width=_opt_num(u.get("half_width")))
    parts = r.get("parts")
    return RoundsInfo(
        target=_opt_num(r.get("target")), budget_s=_opt_num(r.get("budget_s")),
        min_rounds=_opt_int(r.get("min_rounds")),
        max_rounds=_opt_int(r.get("max_rounds")),
        elapsed_s=_opt_num(r.get("elapsed_s")), units=units,
        processes=len(parts) if isinstance(parts, list) and parts else 1)


# The records pick reads as JSON, typed (what it decides: records.py):
# TypedDicts, so the objects stay the plain dicts json.load gives, while
# mypy checks every key read.
# Every key is optional (total=False): the files come from several writers
# and ages, and readers .get() what may be missing.
#
#   ResultContext   a result file's context (Google Benchmark's, plus the
#                   sweep's vocabulary under "serverkit": ServerkitContext)
#   ResultDoc       a result file (context, benchmarks)
#   RunContext      the context of pingpong.json, chat.json and http.json
#   EchoPoint       one ping-pong echo point (pingpong.json's "echo")
#   ValidationRow   one row of pingpong.json's "validation": a dataclass,
#                   the one type the validation writes and pick reads
#   PingpongDoc     pingpong.json
#   ChatPoint, ChatDoc   chat.json's points, and chat.json
#   HttpPoint, HttpDoc   http.json's points, and http.json
#
# And the run documents' readers: load_doc(), load_pingpong(),
# load_server_runs() (read/sweeps.py passes them on).
#
# Standard library only; the bottom layer (see __main__.py's header).

# A JSON value that pick only passes on or checks with isinstance().
Json = Any


class ServerkitContext(TypedDict, total=False):
    """context.serverkit: the sweep's vocabulary (results.py reads it)."""

    schema: int
    family: str
    profile: str
    machine: dict[str, Json]
    impls: dict[str, dict[str, Json]]
    scenarios: dict[str, Json]
    rankings: Json
    floor: Json
    repetitions: Optional[int]
    processes: int
    interleaved: Optional[bool]
    rounds: Json
    part: dict[str, int]


class ResultContext(TypedDict, total=False):
    """A result file's "context" (Google Benchmark's keys that pick reads,
    and the sweep's own)."""

    serverkit: ServerkitContext
    profile: str
    cores: int
    num_cpus: int
    host_name: str
    mhz_per_cpu: Union[int, float]
    date: str
    load_avg: list[float]
    pinning: str
    library_build_type: str
    confirms: str       # a confirmation file: the sweep run it confirms


# One row of a result file's "benchmarks": Google Benchmark's fields and
# the run's counters, by their names (open-ended).
BenchmarkRow = dict[str, Json]


class ResultDoc(TypedDict, total=False):
    """A result file (Google Benchmark's JSON) as read/sweeps.py reads
    it."""

    context: ResultContext
    benchmarks: list[BenchmarkRow]


class RunContext(TypedDict, total=False):
    """The "context" of pingpong.json, chat.json and http.json."""

    profile: str
    cores: int
    kernel: str
    seconds_per_point: Union[int, float]
    repetitions: int
    loadavg_at_start: Json
    pin: Json
    rounds: int
    message_size: int
    wrk_threads: int
    nginx_version: str
    nginx_settings: dict[str, Json]


class EchoPoint(TypedDict, total=False):
    """One ping-pong echo point."""

    server: str
    server_threads: int
    blocksize: int
    sessions: int
    repetition: int
    ok: bool
    mib_per_s: float
    server_cpu_ms_per_mib: float
    client_bound: bool


class RunFigures(TypedDict, total=False):
    """One clean run of a validation round, as the verdict reads it: the
    metric's value, the server's CPU per unit of work and in all, where
    the two sides ran, whether the client was at its ceiling, and the
    component's operations from the server's stop line."""

    value: float
    cpu_per_unit: Optional[float]
    client_bound: Optional[bool]
    server_cpus: Optional[str]
    client_cpus: Optional[str]
    server_cpu_s: Optional[float]
    ops: Optional[float]


# A round: each side's figures, None where its run failed.
Round = dict[str, Optional[RunFigures]]

# The sides of a validation case: "winner" is the candidate whatever the
# question; "control2" the control at twice the cost.
SIDES = ("baseline", "winner", "control", "control2")


class RowFormatError(ValueError):
    """A validation row written by another version of the validation."""


@dataclasses.dataclass
class ValidationRow:
    """One case of the end-to-end validation: validation/run.py makes it,
    validation/rounds.py fills it round by round, pingpong.json and
    whatif.json carry it (to_json), pick reads it back (from_json). The
    fields keep the order of the file."""

    component: str
    case: str = "-"
    mode: str = "-"
    protocol: Optional[str] = None
    server_threads: Optional[int] = None
    client_threads: Optional[int] = None
    blocksize: Optional[int] = None
    sessions: Optional[int] = None
    flags: list[str] = dataclasses.field(default_factory=list)
    question: str = "pick"
    question_text: str = ""
    winner: Optional[str] = None
    pick: Optional[str] = None
    baseline: str = ""
    control: str = "-"
    control2: Optional[str] = None
    control_why: Optional[str] = None
    control_cost: Optional[dict[str, Json]] = None
    micro_ratio: Optional[float] = None
    micro_source: Optional[str] = None
    micro_cv: Optional[float] = None
    micro_metric: Optional[str] = None
    origin: str = ""
    metric: Optional[str] = None
    unit: Optional[str] = None
    metric_used: str = "-"
    metric_kind: Optional[str] = None
    metric_why: Optional[str] = None
    workload: Optional[str] = None
    higher_is_better: bool = True
    work: Optional[str] = None
    baseline_median: Optional[float] = None
    winner_median: Optional[float] = None
    control_median: Optional[float] = None
    e2e_ratio: Optional[float] = None
    e2e: Optional[dict[str, Json]] = None
    control_e2e: Optional[dict[str, Json]] = None
    mde: Optional[float] = None
    reason: Optional[str] = None
    cpu_ratio: Optional[float] = None
    rounds: list[Round] = dataclasses.field(default_factory=list)
    stop: Optional[str] = None
    seconds: Optional[float] = None
    log_bytes: list[int] = dataclasses.field(default_factory=list)
    records: list[dict[str, Json]] = dataclasses.field(default_factory=list)
    standing: Optional[str] = None
    margin: Optional[float] = None
    control_fraction: Optional[float] = None
    baseline_flags: list[str] = dataclasses.field(default_factory=list)
    baseline_runs: list[float] = dataclasses.field(default_factory=list)
    baseline_cpu: list[float] = dataclasses.field(default_factory=list)
    winner_flags: list[str] = dataclasses.field(default_factory=list)
    winner_runs: list[float] = dataclasses.field(default_factory=list)
    winner_cpu: list[float] = dataclasses.field(default_factory=list)
    control_flags: list[str] = dataclasses.field(default_factory=list)
    control_runs: list[float] = dataclasses.field(default_factory=list)
    control_cpu: list[float] = dataclasses.field(default_factory=list)
    control2_flags: list[str] = dataclasses.field(default_factory=list)
    control2_runs: list[float] = dataclasses.field(default_factory=list)
    control2_cpu: list[float] = dataclasses.field(default_factory=list)
    block: int = 0
    round_blocks: list[int] = dataclasses.field(default_factory=list)
    control_ns: Optional[int] = None
    control2_ns: Optional[int] = None
    control2_median: Optional[float] = None
    rho: Optional[dict[str, Optional[float]]] = None
    rho_used: Optional[float] = None
    interval_widen: Optional[float] = None
    blocks: int = 1
    e2e90: Optional[dict[str, Optional[float]]] = None
    equivalence_rounds: Optional[int] = None
    blocks_disagree: Optional[str] = None
    outcome: Optional[str] = None
    verdict: Optional[str] = None
    model: Optional[dict[str, Json]] = None
    model_note: Optional[str] = None
    error: Optional[str] = None
    # Why the load, not the client, set the pace (whatif at a set rate).
    paced: Optional[str] = None
    sentence: Optional[str] = None
    rates: Optional[dict[str, Json]] = None   # whatif's rates-only summary

    def name_of(self, side: str) -> str:
        """The implementation (or the control's label) a side runs."""
        name = dict(baseline=self.baseline, winner=self.winner,
                    control=self.control, control2=self.control2)[side]
        return name or "-"

    def injected_ns(self, side: str) -> Optional[int]:
        """A control's injected ns per operation (None until sized)."""
        return dict(control=self.control_ns, control2=self.control2_ns)[side]

    def set_side(self, side: str, what: str, value: Any) -> None:
        """<side>_runs, _cpu, _flags or _median, by the side's name."""
        if side not in SIDES or what not in ("runs", "cpu", "flags",
                                             "median"):
            raise KeyError("%s_%s" % (side, what))
        setattr(self, "%s_%s" % (side, what), value)

    def to_json(self) -> dict[str, Json]:
        return {f.name: getattr(self, f.name)
                for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, d: Mapping[str, Json]) -> "ValidationRow":
        """The row as written; raises RowFormatError for a key this
        version does not know (a file from another version: rerun)."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(k for k in d if k not in known)
        if unknown:
            raise RowFormatError("unknown key%s %s" % (
                "" if len(unknown) == 1 else "s", ", ".join(unknown)))
        if not isinstance(d.get("component"), str):
            raise RowFormatError("no component")
        return cls(**{k: v for k, v in d.items() if v is not None or
                      k not in _NOT_NONE})


# The fields whose default stands for a null in an older file.
_NOT_NONE = {f.name for f in dataclasses.fields(ValidationRow)
             if f.default is not None}


class PingpongDoc(TypedDict, total=False):
    """pingpong.json ("validation": rows, or a mapping with its settings;
    validation.py reads it; "latency": latency_doc.py reads it)."""

    context: RunContext
    echo: list[EchoPoint]
    notes: list[str]
    paired: list[Json]
    validation: Json
    latency: Json


class Quantiles(TypedDict, total=False):
    p50: float
    p99: float


class ChatPoint(TypedDict, total=False):
    """One chat broadcast point."""

    server: str
    threads: int
    clients: int
    ok: bool
    client_bound: bool
    round_ms: Quantiles
    delivery_us: Quantiles
    server_cpu_us_per_delivery: float


class HttpPoint(TypedDict, total=False):
    """One HTTP point under wrk."""

    server: str
    threads: int
    connections: int
    ok: bool
    client_bound: bool
    access_log: bool
    requests_per_s: float
    latency_ms: Quantiles
    server_cpu_us_per_request: float


class ChatDoc(TypedDict, total=False):
    """chat.json."""

    context: RunContext
    points: list[ChatPoint]
    interrupted: bool
    notes: list[str]
    paired: list[Json]


class HttpDoc(TypedDict, total=False):
    """http.json ("latency": latency_doc.py reads it)."""

    context: RunContext
    points: list[HttpPoint]
    interrupted: bool
    notes: list[str]
    paired: list[Json]
    latency: Json


# What pick decides, typed: TypedDicts, so the records stay the plain dicts
# that winners.json and REPORT.md are written from (their keys and key order
# unchanged), while mypy checks every key. The records read from files are
# records.py's.
#
#   Noise           one group's noise verdict (stats.noise())
#   PairedStats, HostStatesDict   paired rounds' statistics (decide/paired.py,
#                   decide/paired_rounds.py) as ClassPick holds them
#   Ranked          one implementation's place in a class's ranking
#   ClassPick       one workload class decided (picking.pick_class(); the
#                   paired-rounds keys from decide/paired_rounds.py), as
#                   winners.json
#                   lists it
#   ReactorEntry, FamilyPick, Picked   one component of the reactor policy,
#                   one family's classes decided, and pick's whole decision
#                   (winners.pick_all())


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

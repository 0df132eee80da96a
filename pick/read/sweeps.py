# -----------------------------------------------------------------------------
# pick/read/sweeps.py
# -----------------------------------------------------------------------------
#
# Reads the sweeps' Google Benchmark JSON (results/<family>.json) into the
# records of records.py: one Cell per (scenario, params, implementation),
# holding every counter's repetitions, gathered in a FamilyResults per file.
# The layers above read results (and the records) through this module.
#
# The vocabulary: every sweep writes its ranking rules and its
# implementations' traits into the JSON context, as `context.serverkit`
# (schema 1): family, profile, repetitions, interleaved, machine {cpu_model,
# cores}, floor {core_pair, round_trips, threshold, before, after}, rankings
# [{scenario, metric, direction, unit, baseline, show, vs_floor, reference}],
# impls {name: traits}, scenarios {scenario: workload sizes}. A file without
# it (an older sweep) is refused: pick does not guess the rules. Each ranking
# entry becomes a Rule.
#
# Paired rounds (context.serverkit.rounds, FamilyResults.rounds()): runs
# carry their round and the floor measured before it (round_floor_ns);
# Cell.by_round keys them by (process, round), for decide/paired_rounds.py to
# pair.
#
# Processes: a file merged from a sweep run as N processes (merge_parts(),
# below) keeps each repetition's process (`"process": K`);
# Cell.process_medians() gives each process's median, which the noise rule
# (decide/stats.py) reads: X is ahead of Y only when every process agrees.
#
# The floor: every family file has a reference row `<family>/floor/cache-line`
# (two pinned threads bouncing cache lines, the next of 64 each round trip;
# p50_ns, p99_ns, p999_ns), measured interleaved with the sweep, besides the
# floor measured before and after it (context.serverkit.floor).
# floor_summary() gathers those raw numbers into a FloorSummary;
# stats.drift() decides from them whether the host drifted.
#
# The sweep's part files joined into one (`pick --merge`): the last
# section, merge_parts().
#
# Standard library only (and records.py, the layer below).

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import math
import os
import statistics
from typing import Any, Optional, TypedDict, cast

from pick.records import (BenchmarkRow, ChatDoc, HttpDoc, PingpongDoc,
                          ResultContext, ResultDoc, ServerkitContext)
from pick.records import (DEFAULT_DRIFT_THRESHOLD,
                          FAMILIES,
                          FLOOR_IMPL,
                          FLOOR_SCENARIO,
                          Cell,
                          FloorSummary,
                          Group,
                          RoundsInfo,
                          Rule,
                          VocabularyError,
                          group_name,
                          group_sort_key,
                          parse_name,
                          rounds_info)


SCHEMA = 1                      # context.serverkit's schema this reads
OLD_SWEEP = ("no ranking rules in its context (written by an older sweep); "
             "rerun the sweep")


def _num(x: Any) -> float:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    return math.nan


@dataclasses.dataclass(eq=False)
class FamilyResults:
    """One family's file: context (with its vocabulary, `sk`), and cells by
    (scenario, params, impl)."""

    family: str
    path: str
    context: ResultContext = dataclasses.field(repr=False)
    # (scenario, params) -> {impl: Cell}
    cells: dict[Group, dict[str, Cell]] = dataclasses.field(
        default_factory=dict, repr=False)
    sk: ServerkitContext = dataclasses.field(init=False, repr=False)
    _rules: Optional[dict[str, Rule]] = dataclasses.field(
        default=None, init=False, repr=False)
    # The confirmation rounds (CONFIRM_DIR/<family>.json): the leaders run
    # again in a fresh process; confirm_note says why a file was not used.
    confirm: Optional[FamilyResults] = dataclasses.field(
        default=None, repr=False)
    confirm_note: Optional[str] = dataclasses.field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.sk = self.context.get("serverkit") or {}

    def profile(self) -> str:
        # as the sweep wrote it
        return self.sk.get("profile") or self.context.get("profile",
                                                          "unknown")

    def cores(self) -> Optional[int]:
        machine = self.sk.get("machine") or {}
        for v in (machine.get("cores"), self.context.get("cores"),
                  self.context.get("num_cpus")):
            if v is None:
                continue
            try:
                return int(v)
            except (TypeError, ValueError):
                continue
        return None

    def cpu_model(self) -> Optional[str]:
        return (self.sk.get("machine") or {}).get("cpu_model")

    def rules(self) -> dict[str, Rule]:
        """{scenario: rule} from the file's rankings."""
        if self._rules is None:
            self._rules = parse_rules(self.path, self.sk)
        return self._rules

    def rounds(self) -> Optional[RoundsInfo]:
        """How the paired rounds ran; None without them (older files)."""
        return rounds_info(self.sk)

    def rule(self, scenario: str) -> Optional[Rule]:
        return self.rules().get(scenario)

    def traits(self, impl: str) -> dict[str, Any]:
        """The implementation's traits from the file ({} when it has none)."""
        t = (self.sk.get("impls") or {}).get(impl)
        return t if isinstance(t, dict) else {}

    def is_reference(self, impl: str) -> bool:
        return self.traits(impl).get("reference") is True

    def scenario_sizes(self) -> dict[str, Any]:
        """{scenario: {size: value}}: the workload sizes the sweep ran."""
        sc = self.sk.get("scenarios")
        return sc if isinstance(sc, dict) else {}

    def floor_cell(self) -> Optional[Cell]:
        per = self.cells.get((FLOOR_SCENARIO, ()), {})
        if FLOOR_IMPL in per:
            return per[FLOOR_IMPL]
        return next(iter(per.values()), None)

    def floor_summary(self) -> FloorSummary:
        return floor_summary(self)

    def groups(self, scenario: Optional[str] = None) -> list[Group]:
        return sorted((k for k in self.cells
                       if scenario is None or k[0] == scenario),
                      key=group_sort_key)

    def scenarios(self) -> list[str]:
        return sorted({s for s, _ in self.cells})

    def impls(self) -> list[str]:
        return sorted({i for per in self.cells.values() for i in per})

    def oversubscribed_groups(self) -> list[Group]:
        return [g for g, per in self.cells.items()
                if any(c.oversubscribed for c in per.values())]


def _stats(xs: list[float]) -> tuple[Optional[float], Optional[float]]:
    """(median, CV) of repetitions; CV None with fewer than two (sample
    standard deviation over the mean, as Google Benchmark's cv aggregate)."""
    xs = [x for x in xs if not math.isnan(x)]
    if not xs:
        return None, None
    med = statistics.median(xs)
    if len(xs) < 2:
        return med, None
    mean = statistics.fmean(xs)
    return med, (statistics.stdev(xs) / mean if mean else None)


def _point(d: Any, key: str) -> Optional[float]:
    if not isinstance(d, dict):
        return None
    v = d.get(key)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
        return float(v)
    return None


def floor_summary(fr: FamilyResults) -> FloorSummary:
    """The floor's raw numbers: before/after p50 and p99 (None when not
    measured), the interleaved row's median p50 / p99, the CV of its p50
    repetitions (computed here from the repetitions), the threshold, and
    `reference_p50_ns`: the floor latency multiples are taken against (the
    row's median p50, else the mean of before and after)."""
    sk = fr.sk
    fl = sk.get("floor")
    if not isinstance(fl, dict):
        fl = {}
    threshold = DEFAULT_DRIFT_THRESHOLD
    t = fl.get("threshold")
    if isinstance(t, (int, float)) and not isinstance(t, bool) and t >= 0:
        threshold = float(t)
    row: Optional[str] = None
    row_error: Optional[str] = None
    row_p50: Optional[float] = None
    row_p99: Optional[float] = None
    row_cv: Optional[float] = None
    row_reps = 0
    cell = fr.floor_cell()
    if cell is not None:
        row = group_name(fr.family, FLOOR_SCENARIO, ()) + "/" + cell.impl
        row_error = cell.error
        reps = cell.reps("p50_ns")
        row_reps = len(reps)
        if reps and not cell.error:
            row_p50, row_cv = _stats(reps)
            row_p99 = _stats(cell.reps("p99_ns"))[0]
    before = _point(fl.get("before"), "p50_ns")
    after = _point(fl.get("after"), "p50_ns")
    reference: Optional[float] = None
    reference_from: Optional[str] = None
    if row_p50:
        reference = row_p50
        reference_from = "interleaved row median"
    elif before and after:
        reference = (before + after) / 2
        reference_from = "mean of before and after"
    return FloorSummary(
        before_p50_ns=before, before_p99_ns=_point(fl.get("before"), "p99_ns"),
        after_p50_ns=after, after_p99_ns=_point(fl.get("after"), "p99_ns"),
        core_pair=fl.get("core_pair"), round_trips=fl.get("round_trips"),
        threshold=threshold, row=row, row_p50_ns=row_p50,
        row_p99_ns=row_p99, row_cv=row_cv, row_reps=row_reps,
        row_error=row_error, repetitions=sk.get("repetitions"),
        interleaved=sk.get("interleaved"), cpu_model=fr.cpu_model(),
        cores=fr.cores(), reference_p50_ns=reference,
        reference_from=reference_from)


def _rule_error(path: str, msg: str) -> VocabularyError:
    return VocabularyError("%s: malformed ranking rules in "
                           "context.serverkit: %s" % (path, msg))


def parse_rules(path: str, sk: ServerkitContext) -> dict[str, Rule]:
    """context.serverkit's rankings as {scenario: rule}; VocabularyError on
    a malformed entry."""
    rankings = sk.get("rankings")
    if not isinstance(rankings, list):
        raise _rule_error(path, "no \"rankings\" list")
    out: dict[str, Rule] = {}
    for k, r in enumerate(rankings):
        if not isinstance(r, dict):
            raise _rule_error(path, "ranking %d is not an object" % k)
        scenario, metric = r.get("scenario"), r.get("metric")
        if not (isinstance(scenario, str) and scenario and
                isinstance(metric, str) and metric):
            raise _rule_error(path, "ranking %d has no scenario or metric"
                              % k)
        if r.get("direction") not in ("higher", "lower"):
            raise _rule_error(path, "%s: direction %r (want \"higher\" or "
                              "\"lower\")" % (scenario, r.get("direction")))
        if scenario in out:
            raise _rule_error(path, "two rankings for scenario %s" % scenario)
        baseline = r.get("baseline")
        show = r.get("show") or []
        out[scenario] = Rule(
            scenario=scenario, metric=metric, direction=r["direction"],
            higher=r["direction"] == "higher", unit=str(r.get("unit") or ""),
            baseline=baseline if isinstance(baseline, str) and baseline
            else None,
            show=tuple(c for c in show if isinstance(c, str))
            if isinstance(show, list) else (),
            vs_floor=r.get("vs_floor") is True,
            reference=r.get("reference") is True)
    return out


def check_vocabulary(path: str, context: Any,
                     family: Optional[str] = None) -> None:
    """Raises VocabularyError unless the context carries a usable
    `serverkit` object (of `family`, when given)."""
    sk = context.get("serverkit") if isinstance(context, dict) else None
    if not isinstance(sk, dict):
        raise VocabularyError("%s: %s" % (path, OLD_SWEEP))
    schema = sk.get("schema")
    if schema != SCHEMA:
        raise VocabularyError("%s: context.serverkit schema %r; this pick "
                              "reads schema %d" % (path, schema, SCHEMA))
    if family is not None and sk.get("family") not in (None, family):
        raise VocabularyError("%s: its context names family %r, not %r" % (
            path, sk.get("family"), family))
    parse_rules(path, cast(ServerkitContext, sk))  # as read: checked here
    if sk.get("impls") is not None and not isinstance(sk["impls"], dict):
        raise _rule_error(path, "\"impls\" is not an object")


def load_family(path: str, family: Optional[str] = None) -> FamilyResults:
    """Reads one Google Benchmark JSON file with its vocabulary; raises
    ValueError on junk, VocabularyError (a ValueError) without usable
    ranking rules. Every message starts with the path. The family is the
    one given, else the file's own (context.serverkit.family), else the
    file name."""
    with open(path) as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            raise ValueError("%s: not JSON (%s)" % (path, e))
    if not isinstance(doc, dict) or "benchmarks" not in doc:
        raise ValueError("%s: no 'benchmarks' list (not Google Benchmark's "
                         "JSON)" % path)
    context = doc.get("context")
    if not isinstance(context, dict):
        context = {}
    if isinstance(context.get("serverkit"), str):
        # Google Benchmark's AddCustomContext writes strings only.
        try:
            context["serverkit"] = json.loads(context["serverkit"])
        except ValueError:
            pass
    check_vocabulary(path, context, family)
    if family is None:
        family = context["serverkit"].get("family") or \
            os.path.splitext(os.path.basename(path))[0]
    res = FamilyResults(family, path, cast(ResultContext, context))
    for b in doc["benchmarks"]:
        fam, scenario, impl, params = parse_name(b.get("run_name", b["name"]))
        if fam != family or not impl:
            continue
        per = res.cells.setdefault((scenario, params), {})
        cell = per.get(impl) or per.setdefault(impl, Cell(impl))
        if b.get("error_occurred"):
            cell.error = b.get("error_message", "error")
            continue
        if _num(b.get("oversubscribed")) > 0:
            cell.oversubscribed = True
        counters = {k: _num(v) for k, v in b.items()
                    if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if b.get("run_type") == "aggregate":
            agg = b.get("aggregate_name", "")
            for k, v in counters.items():
                cell.aggregates[(agg, k)] = v
        else:
            proc = b.get("process")
            rnd = counters.get("round", math.nan)
            if rnd >= 1 and rnd.is_integer():  # a sweep in paired rounds
                cell.by_round[(proc if isinstance(proc, int) else 1,
                               int(rnd))] = counters
            for k, v in counters.items():
                if k == "process":
                    continue
                cell.samples.setdefault(k, []).append(v)
                if isinstance(proc, int) and not isinstance(proc, bool):
                    cell.by_process.setdefault(k, {}).setdefault(
                        proc, []).append(v)
    return res


def load_dir(directory: str) -> tuple[dict[str, FamilyResults], list[str]]:
    """{family: FamilyResults} for every family file present; problems as a
    list of strings, each "<path>: why" (unreadable files, files without
    the vocabulary)."""
    out: dict[str, FamilyResults] = {}
    problems: list[str] = []
    for family in FAMILIES:
        path = os.path.join(directory, family + ".json")
        if not os.path.exists(path):
            continue
        try:
            out[family] = load_family(path, family)
            _attach_confirmation(out[family], directory)
        except ValueError as e:
            problems.append(str(e))
        except (OSError, KeyError) as e:
            problems.append("%s: %s" % (path, e))
    return out, problems


CONFIRM_DIR = "confirm"  # where bench.sh's confirmation writes its rounds


def _attach_confirmation(fr: FamilyResults, directory: str) -> None:
    """fr.confirm from DIR/confirm/<family>.json when it confirms fr's
    sweep run (identity.py; else fr.confirm_note says why not)."""
    path = os.path.join(directory, CONFIRM_DIR, fr.family + ".json")
    if not os.path.exists(path):
        return
    conf = load_family(path, fr.family)
    fr.confirm_note = mismatch(fr.family, fr.path, path,
                               conf.context.get(CONFIRMS))
    if fr.confirm_note is None:
        fr.confirm = conf


# Which sweep run a confirmation file confirms. bench.sh's confirmation
# passes --benchmark_context=confirms=ID (decide/paired_rounds.py), and Google
# Benchmark
# writes it into the file's context; read/sweeps.py attaches the confirmation
# only to the sweep file whose identity is ID. A hash of the file's bytes:
# a copy (cp -r, new file times) keeps it, a new sweep changes it.
#
# Standard library only.

# The context key that carries the identity.
CONFIRMS = "confirms"


def run_identity(path: str) -> str:
    """The sweep file's identity: the first 16 hex digits of the SHA-256
    of its bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def mismatch(family: str, sweep: str, confirm: str, claims: Any
             ) -> Optional[str]:
    """Why the confirmation file `confirm` (whose context says it confirms
    `claims`) does not confirm the sweep file `sweep`, or None when it
    does. A file written before the identity falls back to file times."""
    if isinstance(claims, str) and claims:
        mine = run_identity(sweep)
        if claims == mine:
            return None
        return ("confirm/%s.json confirms another sweep run (%s; %s.json is "
                "%s)" % (family, claims, family, mine))
    if os.path.getmtime(confirm) < os.path.getmtime(sweep):
        return ("confirm/%s.json names no sweep run and is older than "
                "%s.json" % (family, family))
    return None


# The documents of the end-to-end runs, read as they are (their shapes are
# pick.records'): pingpong.json, chat.json, http.json.
def load_doc(directory: str, name: str) -> Optional[dict[str, Any]]:
    """A JSON object file of the directory; None when missing or not one."""
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def load_pingpong(directory: str) -> Optional[PingpongDoc]:
    """pingpong.json as read (its shape unchecked: readers .get() what
    may be missing)."""
    return cast(Optional[PingpongDoc], load_doc(directory, "pingpong.json"))


@dataclasses.dataclass(frozen=True)
class ServerRuns:
    """The server workloads beside the ping-pong, each None when its file
    is missing or unreadable: results/chat.json (//bench:chat) and
    results/http.json (//bench:http)."""
    chat: Optional[ChatDoc] = None
    http: Optional[HttpDoc] = None


def load_server_runs(directory: str) -> ServerRuns:
    return ServerRuns(
        chat=cast(Optional[ChatDoc], load_doc(directory, "chat.json")),
        http=cast(Optional[HttpDoc], load_doc(directory, "http.json")))


# -----------------------------------------------------------------------------
# A sweep's part files joined into one
# -----------------------------------------------------------------------------
#
# `pick --merge OUT PART...`: bench/sweep.sh runs each sweep as N processes
# (--part=K/N, part {index, of} in each file's context) and merge_parts()
# joins their files into one Google Benchmark document: every repetition
# keeps its process (`"process": K`), the context gets `processes` and
# floor.parts (each process's floor before and after). Reading the merged
# file (load_family()), Cell.process_medians() gives each process's median,
# and
# the noise rule (decide/stats.py) counts X ahead of Y only when every process
# agrees, so that a process-level effect (where the heap landed, which vCPUs
# the host gave) makes a tie, never a confident winner.
#
# A sweep in paired rounds (context.serverkit.rounds): each run keeps its
# round, so its pairing key becomes (process, round) (decide/paired_rounds.py);
# the
# merged rounds object keeps every part's (rounds.parts, with its process)
# and sums them per unit (merge_rounds()).
#
# Exit 2 from `pick --merge` (cli.py) when the files are not the N parts of
# one sweep: MergeError says which file and why.

class MergedPart(TypedDict):
    """One process's floor in the merged floor.parts."""

    process: int
    before: Any
    after: Any
    drifted: Any


class MergeError(ValueError):
    """Part files that are not the N processes of one sweep."""


def _read_part(path: str) -> ResultDoc:
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise MergeError("%s: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise MergeError("%s: not JSON (%s)" % (path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"),
                                                   list):
        raise MergeError("%s: no 'benchmarks' list (not Google Benchmark's "
                         "JSON)" % path)
    context = doc.get("context")
    if not isinstance(context, dict):
        raise MergeError("%s: no context" % path)
    try:
        check_vocabulary(path, context)
    except VocabularyError as e:
        raise MergeError(str(e))
    part = context["serverkit"].get("part")
    if not (isinstance(part, dict) and
            all(isinstance(part.get(k), int) for k in ("index", "of"))):
        raise MergeError("%s: no context.serverkit.part (not run with "
                         "--part=K/N)" % path)
    return cast(ResultDoc, doc)  # as read, its vocabulary checked


def merge_parts(paths: list[str]) -> ResultDoc:
    """Joins the result files of one sweep run as N processes (each with
    --part=K/N, K = 1..N) into one Google Benchmark document.

    Every repetition is kept, with `"process": K` added; the parts' own
    aggregates (each over its few repetitions) are dropped, so medians and
    CVs are taken over all repetitions. The context is part 1's, with
    serverkit.repetitions the total, serverkit.processes = N, the floor
    before from the first process and after from the last, and every
    process's before/after in floor.parts. Raises MergeError (a ValueError,
    the message naming the file) unless the files are parts 1..N of one
    family, profile and set of ranking rules."""
    if not paths:
        raise MergeError("no part files to merge")
    docs = [(p, _read_part(p)) for p in paths]
    first_path, first = docs[0]
    sk0 = first["context"]["serverkit"]
    n = sk0["part"]["of"]
    if len(paths) != n:
        raise MergeError("%s says it is one of %d parts; %d file(s) given"
                         % (first_path, n, len(paths)))
    for path, doc in docs[1:]:
        sk = doc["context"]["serverkit"]
        for key in ("family", "profile", "schema", "rankings"):
            if sk.get(key) != sk0.get(key):
                raise MergeError("%s: its %s differs from %s's" % (
                    path, key, first_path))
        if sk["part"]["of"] != n:
            raise MergeError("%s: part of %d, not of %d" % (
                path, sk["part"]["of"], n))
    docs.sort(key=lambda pd: int(pd[1]["context"]["serverkit"]["part"][
        "index"]))
    indices = [d["context"]["serverkit"]["part"]["index"] for _, d in docs]
    if indices != list(range(1, n + 1)):
        raise MergeError("parts %s given; want each of 1..%d once" % (
            ", ".join(map(str, indices)), n))

    out = copy.deepcopy(docs[0][1])
    sk = out["context"]["serverkit"]
    benchmarks: list[BenchmarkRow] = []
    reasons: list[str] = []
    parts: list[MergedPart] = []
    total = 0
    for k, (path, doc) in enumerate(docs, start=1):
        psk = doc["context"]["serverkit"]
        reps = psk.get("repetitions")
        floor = psk.get("floor")
        fl = floor if isinstance(floor, dict) else {}
        parts.append(MergedPart(process=k, before=fl.get("before"),
                                after=fl.get("after"),
                                drifted=fl.get("drifted")))
        for r in fl.get("drift_reasons") or []:
            reasons.append("process %d: %s" % (k, r))
        offset = total
        total += reps if isinstance(reps, int) else 0
        for b in doc["benchmarks"]:
            if not isinstance(b, dict) or b.get("run_type") == "aggregate":
                continue
            b = dict(b, process=k)
            if isinstance(b.get("repetition_index"), int):
                b["repetition_index"] += offset
            benchmarks.append(b)
    for b in benchmarks:
        if "repetitions" in b:
            b["repetitions"] = total
    rounds = merge_rounds([d["context"]["serverkit"].get("rounds")
                           for _, d in docs])
    if rounds is not None:
        sk["rounds"] = rounds
    out["benchmarks"] = benchmarks
    sk.pop("part", None)
    sk["repetitions"] = total
    sk["processes"] = n
    fl = sk.setdefault("floor", {})
    if isinstance(fl, dict):
        fl["before"] = parts[0]["before"]
        fl["after"] = parts[-1]["after"]
        fl["drifted"] = any(p["drifted"] is True for p in parts)
        fl["drift_reasons"] = reasons
        fl["parts"] = parts
    return out


def _stop(stops: list[Any]) -> Any:
    """A unit's stop over its parts: the budget if any part ran out of
    it, else the most rounds if any part reached them, else the target."""
    for stop in ("budget", "max_rounds", "target"):
        if stop in stops:
            return stop
    return next((x for x in stops if x), None)


def _sum(xs: list[Any]) -> Any:
    nums = [x for x in xs if isinstance(x, (int, float)) and
            not isinstance(x, bool)]
    return sum(nums) if nums else None


def merge_rounds(parts: list[Any]) -> Optional[dict[str, Any]]:
    """The parts' context.serverkit.rounds joined (None when no part has
    one): the first part's schedule (target, budget_s, min_rounds,
    max_rounds), elapsed_s summed, `parts` [{process: K, ...part K's
    rounds...}], and per unit its rounds and seconds summed over the parts,
    the widest half-width, and the stop (see _stop())."""
    have = [(k, r) for k, r in enumerate(parts, start=1)
            if isinstance(r, dict)]
    if not have:
        return None
    first = have[0][1]
    out: dict[str, Any] = {k: first.get(k) for k in
                           ("target", "budget_s", "min_rounds", "max_rounds")}
    out["elapsed_s"] = _sum([r.get("elapsed_s") for _, r in have])
    part_units: list[dict[str, Any]] = [
        r["units"] if isinstance(r.get("units"), dict) else {}
        for _, r in have]
    names: list[str] = []
    for units in part_units:
        names += [n for n in units if n not in names]
    summary = {}
    for name in names:
        us = [u for units in part_units for u in [units.get(name)]
              if isinstance(u, dict)]
        widths: list[float] = [u["half_width"] for u in us
                               if isinstance(u.get("half_width"),
                                             (int, float))]
        summary[name] = dict(
            scenarios=us[0].get("scenarios"),
            rounds=_sum([u.get("rounds") for u in us]),
            stop=_stop([u.get("stop") for u in us]),
            seconds=_sum([u.get("seconds") for u in us]),
            half_width=max(widths) if widths else None)
    out["units"] = summary
    out["parts"] = [dict(process=k, **r) for k, r in have]
    return out

# -----------------------------------------------------------------------------
# bench/pick/results.py
# -----------------------------------------------------------------------------
#
# Reads the sweeps' Google Benchmark JSON (results/<family>.json) into cells:
# one cell per (scenario, params, implementation), holding the ranking
# metric's repetitions, its median and CV, and the other counters' medians.
#
# Names follow the project's contract, `<family>/<scenario>/<impl>/<k>:<v>/...`;
# Google Benchmark's own segments (/iterations:N, /repeats:N, /min_time:T,
# /manual_time, /real_time, /threads:N once one of those appeared) and its
# aggregate suffixes (_mean, _median, _stddev, _cv) are set aside, as
# bench/common/harness.cc's Parse does.
#
# The vocabulary: every sweep writes its ranking rules and its
# implementations' traits into the JSON context, as `context.serverkit`
# (schema 1): family, profile, repetitions, interleaved, machine {cpu_model,
# cores}, floor {core_pair, round_trips, threshold, before, after}, rankings
# [{scenario, metric, direction, unit, baseline, show, vs_floor, reference}],
# impls {name: traits}, scenarios {scenario: workload sizes}. A file without
# it (an older sweep) is refused: pick does not guess the rules.
#
# Processes: bench/sweep.sh runs each sweep as N processes (--part=K/N, part
# {index, of} in each file's context) and merge_parts() joins their files
# into one: every repetition keeps its process (`"process": K`), the context
# gets `processes` and floor.parts (each process's floor before and after).
# Cell.process_medians() gives each process's median, which pick's noise
# rule reads: X is ahead of Y only when every process agrees.
#
# The floor: every family file has a reference row `<family>/floor/cache-line`
# (two pinned threads bouncing one cache line; p50_ns, p99_ns, p999_ns),
# measured interleaved with the sweep, besides the floor measured once before
# and once after it (context.serverkit.floor). floor_summary() gathers those
# raw numbers; pick.py decides from them whether the host drifted.
#
# Standard library only: pick.py, report.py, charts.py and the tests share it.

import copy
import json
import math
import os
import statistics

FAMILIES = ("queues", "threadpool", "logger", "buffer")
AGGREGATES = ("mean", "median", "stddev", "cv")
SCHEMA = 1                      # context.serverkit's schema this reads
FLOOR_SCENARIO = "floor"        # <family>/floor/cache-line
FLOOR_IMPL = "cache-line"
DEFAULT_DRIFT_THRESHOLD = 0.20  # when the file's floor has no threshold
OLD_SWEEP = ("no ranking rules in its context (written by an older sweep); "
             "rerun the sweep")


class VocabularyError(ValueError):
    """A result file whose ranking rules are missing or malformed, or that
    disagree with what a workload class needs."""


def parse_name(run_name):
    """(family, scenario, impl, params) where params is a tuple of (k, v)."""
    parts = run_name.split("/")
    family = parts[0]
    scenario = parts[1] if len(parts) > 1 else ""
    impl = parts[2] if len(parts) > 2 else ""
    params = []
    in_suffix = False
    for s in parts[3:]:
        gb_suffix = (s in ("manual_time", "real_time", "process_time") or
                     s.startswith(("iterations:", "repeats:", "min_time:",
                                   "min_warmup_time:")) or
                     (in_suffix and s.startswith("threads:")))
        if gb_suffix:
            in_suffix = True
            continue
        key, sep, value = s.partition(":")
        if not sep:
            params.append((s, None))
            continue
        try:
            num = float(value)
            value = int(num) if num.is_integer() else num
        except ValueError:
            pass
        params.append((key, value))
    return family, scenario, impl, tuple(params)


def params_str(params):
    return "/".join(k if v is None else "%s:%s" % (k, v) for k, v in params)


def group_name(family, scenario, params):
    s = "%s/%s" % (family, scenario)
    p = params_str(params)
    return s + "/" + p if p else s


def group_sort_key(group):
    """(scenario, params) in numeric order of the parameter values."""
    scenario, params = group
    return (scenario, [(k, (0, v, "") if isinstance(v, (int, float))
                        else (1, 0, str(v))) for k, v in params])


def _num(x):
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    return math.nan


class Cell:
    """One implementation in one group: every counter's repetitions."""

    def __init__(self, impl):
        self.impl = impl
        self.samples = {}      # counter -> [value per repetition]
        self.aggregates = {}   # (aggregate, counter) -> value
        self.error = None
        self.oversubscribed = False
        # counter -> {process: [value per repetition]}, for a file merged
        # from a sweep run as several processes (merge_parts); else empty.
        self.by_process = {}

    def reps(self, counter):
        return [v for v in self.samples.get(counter, []) if not math.isnan(v)]

    def process_medians(self, counter):
        """{process: median of its repetitions}; {} for a one-process
        file."""
        out = {}
        for proc, xs in self.by_process.get(counter, {}).items():
            xs = [x for x in xs if not math.isnan(x)]
            if xs:
                out[proc] = statistics.median(xs)
        return out

    def median(self, counter):
        v = self.aggregates.get(("median", counter))
        if v is not None and not math.isnan(v):
            return v
        xs = self.reps(counter)
        return statistics.median(xs) if xs else math.nan

    def cv(self, counter):
        """Coefficient of variation (a fraction); None with one repetition."""
        v = self.aggregates.get(("cv", counter))
        if v is not None and not math.isnan(v):
            return v
        xs = self.reps(counter)
        if len(xs) < 2:
            return None
        mean = statistics.fmean(xs)
        return statistics.stdev(xs) / mean if mean else None

    def repetitions(self, counter):
        return len(self.reps(counter))


class FamilyResults:
    """One family's file: context (with its vocabulary, `sk`), and cells by
    (scenario, params, impl)."""

    def __init__(self, family, path, context):
        self.family = family
        self.path = path
        self.context = context
        self.sk = context.get("serverkit") or {}
        self.cells = {}  # (scenario, params) -> {impl: Cell}
        self._rules = None

    def profile(self):
        return self.sk.get("profile") or self.context.get("profile",
                                                          "unknown")

    def cores(self):
        machine = self.sk.get("machine") or {}
        for v in (machine.get("cores"), self.context.get("cores"),
                  self.context.get("num_cpus")):
            try:
                return int(v)
            except (TypeError, ValueError):
                continue
        return None

    def cpu_model(self):
        return (self.sk.get("machine") or {}).get("cpu_model")

    def rules(self):
        """{scenario: rule}; a rule is the file's ranking entry with `higher`
        (bool) added and defaults filled in."""
        if self._rules is None:
            self._rules = parse_rules(self.path, self.sk)
        return self._rules

    def rule(self, scenario):
        return self.rules().get(scenario)

    def traits(self, impl):
        """The implementation's traits from the file ({} when it has none)."""
        t = (self.sk.get("impls") or {}).get(impl)
        return t if isinstance(t, dict) else {}

    def is_reference(self, impl):
        return self.traits(impl).get("reference") is True

    def scenario_sizes(self):
        """{scenario: {size: value}}: the workload sizes the sweep ran."""
        sc = self.sk.get("scenarios")
        return sc if isinstance(sc, dict) else {}

    def floor_cell(self):
        per = self.cells.get((FLOOR_SCENARIO, ()), {})
        if FLOOR_IMPL in per:
            return per[FLOOR_IMPL]
        return next(iter(per.values()), None)

    def floor_summary(self):
        return floor_summary(self)

    def groups(self, scenario=None):
        return sorted((k for k in self.cells
                       if scenario is None or k[0] == scenario),
                      key=group_sort_key)

    def scenarios(self):
        return sorted({s for s, _ in self.cells})

    def impls(self):
        return sorted({i for per in self.cells.values() for i in per})

    def oversubscribed_groups(self):
        return [g for g, per in self.cells.items()
                if any(c.oversubscribed for c in per.values())]


def _stats(xs):
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


def _point(d, key):
    if not isinstance(d, dict):
        return None
    v = d.get(key)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
        return float(v)
    return None


def floor_summary(fr):
    """The floor's raw numbers: before/after p50 and p99 (None when not
    measured), the interleaved row's median p50 / p99, the CV of its p50
    repetitions (computed here from the repetitions), the threshold, and
    `reference_p50_ns`: the floor latency multiples are taken against (the
    row's median p50, else the mean of before and after)."""
    sk = fr.sk
    fl = sk.get("floor") if isinstance(sk.get("floor"), dict) else {}
    out = dict(before_p50_ns=_point(fl.get("before"), "p50_ns"),
               before_p99_ns=_point(fl.get("before"), "p99_ns"),
               after_p50_ns=_point(fl.get("after"), "p50_ns"),
               after_p99_ns=_point(fl.get("after"), "p99_ns"),
               core_pair=fl.get("core_pair"),
               round_trips=fl.get("round_trips"),
               threshold=DEFAULT_DRIFT_THRESHOLD,
               row=None, row_p50_ns=None, row_p99_ns=None, row_cv=None,
               row_reps=0, row_error=None,
               repetitions=sk.get("repetitions"),
               interleaved=sk.get("interleaved"),
               cpu_model=fr.cpu_model(), cores=fr.cores(),
               reference_p50_ns=None, reference_from=None)
    t = fl.get("threshold")
    if isinstance(t, (int, float)) and not isinstance(t, bool) and t >= 0:
        out["threshold"] = float(t)
    cell = fr.floor_cell()
    if cell is not None:
        out["row"] = group_name(fr.family, FLOOR_SCENARIO, ()) + "/" + \
            cell.impl
        out["row_error"] = cell.error
        reps = cell.reps("p50_ns")
        out["row_reps"] = len(reps)
        if reps and not cell.error:
            out["row_p50_ns"], out["row_cv"] = _stats(reps)
            p99 = _stats(cell.reps("p99_ns"))[0]
            out["row_p99_ns"] = p99
    if out["row_p50_ns"]:
        out["reference_p50_ns"] = out["row_p50_ns"]
        out["reference_from"] = "interleaved row median"
    elif out["before_p50_ns"] and out["after_p50_ns"]:
        out["reference_p50_ns"] = (out["before_p50_ns"] +
                                   out["after_p50_ns"]) / 2
        out["reference_from"] = "mean of before and after"
    return out


def _rule_error(path, msg):
    return VocabularyError("%s: malformed ranking rules in "
                           "context.serverkit: %s" % (path, msg))


def parse_rules(path, sk):
    """context.serverkit's rankings as {scenario: rule}; VocabularyError on
    a malformed entry."""
    rankings = sk.get("rankings")
    if not isinstance(rankings, list):
        raise _rule_error(path, "no \"rankings\" list")
    out = {}
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
        out[scenario] = dict(
            scenario=scenario, metric=metric, direction=r["direction"],
            higher=r["direction"] == "higher", unit=str(r.get("unit") or ""),
            baseline=baseline if isinstance(baseline, str) and baseline
            else None,
            show=[c for c in show if isinstance(c, str)]
            if isinstance(show, list) else [],
            vs_floor=r.get("vs_floor") is True,
            reference=r.get("reference") is True)
    return out


def check_vocabulary(path, context, family=None):
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
    parse_rules(path, sk)
    if sk.get("impls") is not None and not isinstance(sk["impls"], dict):
        raise _rule_error(path, "\"impls\" is not an object")


def load_family(path, family=None):
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
    res = FamilyResults(family, path, context)
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
            for k, v in counters.items():
                if k == "process":
                    continue
                cell.samples.setdefault(k, []).append(v)
                if isinstance(proc, int) and not isinstance(proc, bool):
                    cell.by_process.setdefault(k, {}).setdefault(
                        proc, []).append(v)
    return res


class MergeError(ValueError):
    """Part files that are not the N processes of one sweep."""


def _read_part(path):
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
    return doc


def merge_parts(paths):
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
    docs.sort(key=lambda pd: pd[1]["context"]["serverkit"]["part"]["index"])
    indices = [d["context"]["serverkit"]["part"]["index"] for _, d in docs]
    if indices != list(range(1, n + 1)):
        raise MergeError("parts %s given; want each of 1..%d once" % (
            ", ".join(map(str, indices)), n))

    out = copy.deepcopy(docs[0][1])
    sk = out["context"]["serverkit"]
    benchmarks, total, reasons, parts = [], 0, [], []
    for k, (path, doc) in enumerate(docs, start=1):
        psk = doc["context"]["serverkit"]
        reps = psk.get("repetitions")
        fl = psk.get("floor") if isinstance(psk.get("floor"), dict) else {}
        parts.append(dict(process=k, before=fl.get("before"),
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


def load_dir(directory):
    """{family: FamilyResults} for every family file present; problems as a
    list of strings, each "<path>: why" (unreadable files, files without
    the vocabulary)."""
    out, problems = {}, []
    for family in FAMILIES:
        path = os.path.join(directory, family + ".json")
        if not os.path.exists(path):
            continue
        try:
            out[family] = load_family(path, family)
        except ValueError as e:
            problems.append(str(e))
        except (OSError, KeyError) as e:
            problems.append("%s: %s" % (path, e))
    return out, problems


def load_pingpong(directory):
    path = os.path.join(directory, "pingpong.json")
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and not math.isnan(x)]
    if not xs:
        return math.nan
    return math.exp(sum(math.log(x) for x in xs) / len(xs))

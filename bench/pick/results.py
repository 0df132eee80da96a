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
# Standard library only: pick.py, report.py, charts.py and the tests share it.

import json
import math
import os
import statistics

FAMILIES = ("queues", "threadpool", "logger", "buffer")
AGGREGATES = ("mean", "median", "stddev", "cv")


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

    def reps(self, counter):
        return [v for v in self.samples.get(counter, []) if not math.isnan(v)]

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
    """One family's file: context, and cells by (scenario, params, impl)."""

    def __init__(self, family, path, context):
        self.family = family
        self.path = path
        self.context = context
        self.cells = {}  # (scenario, params) -> {impl: Cell}

    def profile(self):
        return self.context.get("profile", "unknown")

    def cores(self):
        for key in ("cores", "num_cpus"):
            try:
                return int(self.context.get(key))
            except (TypeError, ValueError):
                continue
        return None

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


def load_family(path, family=None):
    """Reads one Google Benchmark JSON file; raises ValueError on junk."""
    with open(path) as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            raise ValueError("%s: not JSON (%s)" % (path, e))
    if not isinstance(doc, dict) or "benchmarks" not in doc:
        raise ValueError("%s: no 'benchmarks' list (not Google Benchmark's "
                         "JSON)" % path)
    if family is None:
        family = os.path.splitext(os.path.basename(path))[0]
    res = FamilyResults(family, path, doc.get("context", {}))
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
            for k, v in counters.items():
                cell.samples.setdefault(k, []).append(v)
    return res


def load_dir(directory):
    """{family: FamilyResults} for every family file present; problems as a
    list of strings (unreadable files)."""
    out, problems = {}, []
    for family in FAMILIES:
        path = os.path.join(directory, family + ".json")
        if not os.path.exists(path):
            continue
        try:
            out[family] = load_family(path, family)
        except (OSError, ValueError, KeyError) as e:
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

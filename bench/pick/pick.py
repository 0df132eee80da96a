#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/pick/pick.py
# -----------------------------------------------------------------------------
#
# From sweeps to a choice: `bazel run //bench:pick`.
#
#   bazel run //bench:pick -- [--results=DIR] [--out=DIR]
#       [--producers=N] [--consumers=N] [--payload=BYTES] [--latency-bound]
#       [--alpha=0.05] [--no-charts]
#   bazel run //bench:pick -- --compare DIR_A DIR_B
#
# Reads results/<family>.json (Google Benchmark's JSON from //bench:queues,
# :threadpool, :logger, :buffer) and results/pingpong.json, and for each
# family and workload class names the winner, its margin over the runner-up
# and over the family's baseline, and whether the margin is larger than the
# noise. Writes results/winners.json (the reactor policy the ping-pong
# validation runs: the "reactor" object), results/REPORT.md and its charts
# (results/*.png, drawn by charts.py with matplotlib).
#
# Workload classes and how a winner is found:
#   A class is a set of benchmark groups (a group: one scenario with one set of
#   parameters, e.g. queues/throughput/producers:2/consumers:1) ranked by one
#   metric. In every group each implementation's median is divided by the
#   group's best; an implementation's class score is the geometric mean of
#   those ratios over the class's groups, so every group weighs the same. Only
#   implementations that ran clean in every group of the class are ranked
#   (the others are listed in the details). Margins are ratios of scores,
#   oriented so that > 1 means "better" (for latency: baseline / winner).
#
# Noise: in each group the winner's repetitions are tested against the
# runner-up's with the two-sided Mann-Whitney U test, the test Google
# Benchmark's compare.py runs (scipy.stats.mannwhitneyu); the margin is
# "above noise" in a group when p < alpha and the margin exceeds the larger
# of the two coefficients of variation. Without scipy only the CV rule
# (margin > 2 x CV) applies. With one repetition (--profile=smoke) the noise
# is unknown and the table says so.
#
# Workload flags narrow the recommendation: --producers / --consumers choose
# the queue classes that fit (1:1, N:1, 1:N, N:N) and the nearest measured
# producer counts (also pool submitters and logger callers); --payload the
# nearest measured message / block size (logger bytes, buffer fd_echo bytes
# and framed msg); --latency-bound keeps the latency classes of the families
# that have one (queues, pools, loggers).
#
# --compare A B: per-benchmark deltas of each family's ranking metric between
# two result directories (two machines, two commits), with the U-test's p.
#
# Exit status: 0; 2 on bad arguments or no results at all; 3 when the
# charts could not be drawn (winners.json and REPORT.md are still written).

import argparse
import datetime
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import results as R  # noqa: E402

# Multi-producer queues only in the reactor's task queue (queues/*.h kTopology).
SPSC_QUEUES = ("spsc-ring", "boost-spsc", "readerwriterqueue")
# The loggers //bench/pingpong:server accepts: the kNames of AllLoggers in
# logger/all_loggers.h. The full logger sweep also runs AsyncQueueLogger over
# every other MPMC queue; those are ranked but not offered to the reactor.
SERVER_LOGGERS = ("sync", "async-double-buffer", "async-queue-bounded-mpmc",
                  "async-queue-moodycamel", "async-queue-mutex", "spdlog-sync",
                  "spdlog-async", "boost-log")


class ClassDef:
    """One workload class of a family."""

    def __init__(self, key, title, scenarios, metric, higher, unit, where=None,
                 applies=None, latency=False, show=(), baseline=None,
                 narrow=None, exclude=()):
        self.key = key
        self.title = title
        self.scenarios = scenarios
        self.metric = metric
        self.higher = higher
        self.unit = unit
        self.where = where or (lambda p: True)    # params dict -> bool
        self.applies = applies or (lambda w: True)  # workload -> bool
        self.latency = latency
        self.show = show
        self.baseline = baseline
        self.narrow = narrow or {}                # param -> workload attribute
        self.exclude = exclude                    # never the winner here


def _shape(p_ok, c_ok):
    def applies(w):
        return ((w.producers is None or p_ok(w.producers)) and
                (w.consumers is None or c_ok(w.consumers)))

    def where(p):
        return p_ok(p.get("producers", 0)) and c_ok(p.get("consumers", 0))
    return where, applies


def _one(n):
    return n == 1


def _many(n):
    return n > 1


def _queue_shape(key, title, p_ok, c_ok):
    where, applies = _shape(p_ok, c_ok)
    return ClassDef(key, title, ["throughput"], "items_per_second", True,
                    "items/s", where=where, applies=applies,
                    narrow={"producers": "producers", "consumers": "consumers"})


FAMILY_SPECS = {
    "queues": dict(
        title="queues", baseline="mutex", not_candidates=(),
        classes=[
            _queue_shape("1:1", "1 producer, 1 consumer", _one, _one),
            _queue_shape("N:1", "many producers, 1 consumer", _many, _one),
            _queue_shape("1:N", "1 producer, many consumers", _one, _many),
            _queue_shape("N:N", "many producers, many consumers", _many,
                         _many),
            ClassDef("latency-bound", "round trip through two queues, p50",
                     ["latency"], "p50_ns", False, "ns", latency=True,
                     show=("p99_ns", "p999_ns")),
            ClassDef("event loop", "tasks posted to one loop thread, "
                     "coalesced wake-ups (the reactor's pattern)",
                     ["eventloop"], "items_per_second", True, "tasks/s",
                     where=lambda p: p.get("coalesce") == 1,
                     baseline="swap-vector", exclude=SPSC_QUEUES,
                     show=("wakeups_per_task", "writes_per_task"),
                     narrow={"producers": "producers"}),
        ]),
    "threadpool": dict(
        title="thread pools", baseline="asio", not_candidates=(),
        classes=[
            ClassDef("tiny tasks", "a flood of tiny tasks (empty and ~1 us)",
                     ["tiny"], "items_per_second", True, "tasks/s",
                     show=("p50_ns", "p99_ns"),
                     narrow={"submitters": "producers"}),
            ClassDef("fan-out", "parallel-for of ~2 us chunks, then wait",
                     ["fanout"], "items_per_second", True, "rounds/s",
                     show=("p50_us", "p99_us")),
            ClassDef("blocking tasks", "tasks that sleep 2 ms (wall time)",
                     ["sleep"], "wall_ms", False, "ms",
                     show=("overhead_pct", "overhead_us_per_task")),
            ClassDef("hand-off latency", "submit-to-start of an idle pool, p50",
                     ["latency"], "p50_ns", False, "ns", latency=True,
                     show=("p99_ns", "p999_ns"),
                     narrow={"submitters": "producers"}),
        ]),
    "logger": dict(
        title="loggers", baseline="sync", not_candidates=(),
        classes=[
            ClassDef("latency-bound", "time per call on the caller's thread, "
                     "p50", ["latency-file", "latency-console"], "p50_ns",
                     False, "ns", latency=True, show=("p99_ns", "p999_ns"),
                     narrow={"callers": "producers", "bytes": "payload"}),
            ClassDef("throughput-bound", "messages until flushed to the kernel",
                     ["throughput-file", "throughput-console"],
                     "items_per_second", True, "msgs/s",
                     show=("bytes_per_second",),
                     narrow={"callers": "producers", "bytes": "payload"}),
        ]),
    "buffer": dict(
        title="buffers", baseline="linear",
        # std::string-backed: the conformance tests' reference, not a
        # candidate for a server (ranked in the details all the same).
        not_candidates=("string",),
        classes=[
            ClassDef("stream", "byte stream: Burger's append/retrieve/prepend"
                     " and read_fd/write_fd echo", ["burger", "fd_echo"],
                     "bytes_per_second", True, "B/s",
                     show=("moved_per_iter",), narrow={"bytes": "payload"}),
            ClassDef("framed", "length-prefixed messages parsed from chunks",
                     ["framed"], "bytes_per_second", True, "B/s",
                     show=("moved_pct",), narrow={"msg": "payload"}),
        ]),
}


class Workload:
    def __init__(self, producers=None, consumers=None, payload=None,
                 latency_bound=False):
        self.producers = producers
        self.consumers = consumers
        self.payload = payload
        self.latency_bound = latency_bound

    def given(self):
        return any(v is not None for v in
                   (self.producers, self.consumers, self.payload)) or \
            self.latency_bound

    def as_dict(self):
        return dict(producers=self.producers, consumers=self.consumers,
                    payload=self.payload, latency_bound=self.latency_bound)

    def describe(self):
        parts = []
        for k in ("producers", "consumers", "payload"):
            v = getattr(self, k)
            if v is not None:
                parts.append("%s=%s" % (k, v))
        if self.latency_bound:
            parts.append("latency-bound")
        return ", ".join(parts) if parts else "any (no workload flags)"


# --- statistics ---------------------------------------------------------------

def better_ratio(a, b, higher):
    """How many times better a is than b (> 1: a is better)."""
    if a is None or b is None or math.isnan(a) or math.isnan(b) or \
            a <= 0 or b <= 0:
        return math.nan
    return a / b if higher else b / a


_UTEST = None


def utest(xs, ys):
    """Two-sided Mann-Whitney U p-value, as compare.py computes it; None when
    scipy is missing or there are too few repetitions."""
    global _UTEST
    if len(xs) < 2 or len(ys) < 2:
        return None
    if _UTEST is None:
        try:
            from scipy.stats import mannwhitneyu
            _UTEST = mannwhitneyu
        except ImportError:
            _UTEST = False
    if not _UTEST:
        return None
    if len(set(xs) | set(ys)) == 1:
        return 1.0
    return float(_UTEST(xs, ys, alternative="two-sided").pvalue)


def scipy_available():
    utest([1.0, 2.0], [3.0, 4.0])
    return bool(_UTEST)


def noise(cw, cr, metric, higher, alpha):
    """Is the winner's margin over the runner-up in one group above noise?"""
    sw, sr = cw.reps(metric), cr.reps(metric)
    ratio = better_ratio(cw.median(metric), cr.median(metric), higher)
    cvs = [c for c in (cw.cv(metric), cr.cv(metric)) if c is not None]
    cvmax = max(cvs) if cvs else None
    n = min(len(sw), len(sr))
    out = dict(ratio=ratio, cv=cvmax, reps=n, p=None)
    if n < 2:
        out["state"] = "unknown"
        return out
    p = utest(sw, sr)
    out["p"] = p
    margin = ratio - 1 if not math.isnan(ratio) else 0.0
    if p is not None:
        above = p < alpha and margin > (cvmax or 0.0)
    else:
        above = margin > 2 * (cvmax or 0.0)
    out["state"] = "above" if above else "within"
    return out


# --- picking --------------------------------------------------------------------

def _nearest(values, want):
    def dist(v):
        if isinstance(v, (int, float)) and v > 0 and want > 0:
            return abs(math.log(v / want))
        try:
            return abs(v - want)
        except TypeError:
            return math.inf
    return min(values, key=lambda v: (dist(v), v))


def class_groups(fr, cdef, workload, notes):
    groups = [g for g in fr.groups() if g[0] in cdef.scenarios and
              cdef.where(dict(g[1]))]
    for pname, attr in cdef.narrow.items():
        want = getattr(workload, attr)
        if want is None:
            continue
        present = {}
        for s, params in groups:
            d = dict(params)
            if pname in d:
                present.setdefault(s, set()).add(d[pname])
        chosen = {s: _nearest(vals, want) for s, vals in present.items()}
        for s, v in sorted(chosen.items()):
            if v != want:
                notes.append("%s/%s: %s:%s not measured, nearest %s:%s" % (
                    fr.family, s, pname, want, pname, v))
        groups = [g for g in groups
                  if pname not in dict(g[1]) or
                  dict(g[1])[pname] == chosen[g[0]]]
    return groups


def rank_groups(fr, groups, metric, higher, allowed=None):
    """Scores (geomean of ratio to each group's best) of the implementations
    that ran clean in every group; the partial ones with the reason."""
    impls = set()
    for g in groups:
        impls |= set(fr.cells[g])
    complete, partial = [], {}
    for impl in sorted(impls):
        missing = [g for g in groups if impl not in fr.cells[g]]
        errors = [g for g in groups if impl in fr.cells[g] and
                  (fr.cells[g][impl].error or
                   math.isnan(fr.cells[g][impl].median(metric)))]
        if missing or errors:
            partial[impl] = ("ran %d of %d groups" % (
                len(groups) - len(missing), len(groups)) if missing else
                "error or no %s in %d group(s)" % (metric, len(errors)))
        else:
            complete.append(impl)
    best = {}
    for g in groups:
        vals = [fr.cells[g][i].median(metric) for i in complete]
        vals = [v for v in vals if v > 0]
        if vals:
            best[g] = max(vals) if higher else min(vals)
    scores = {}
    for impl in complete:
        scores[impl] = R.geomean(
            [better_ratio(fr.cells[g][impl].median(metric), best[g], higher)
             for g in groups if g in best])
    ranking = sorted((i for i in complete if not math.isnan(scores[i])),
                     key=lambda i: -scores[i])
    candidates = [i for i in ranking if allowed is None or i in allowed]
    return ranking, candidates, scores, partial


def decide(fr, groups, metric, higher, baseline, candidates, scores, alpha):
    """Winner, runner-up, margins and the noise verdict over `groups`."""
    out = dict(winner=None, runner_up=None, margin_over_runner_up=None,
               baseline=baseline, margin_over_baseline=None, noise="n/a",
               verdict="", p_max=None, cv=None, repetitions=None,
               group_noise=[])
    if not candidates:
        out["verdict"] = "no implementation ran clean in every group"
        return out
    w = candidates[0]
    out["winner"] = w
    cvs = [fr.cells[g][w].cv(metric) for g in groups]
    cvs = [c for c in cvs if c is not None]
    out["cv"] = statistics.median(cvs) if cvs else None
    out["repetitions"] = min(fr.cells[g][w].repetitions(metric)
                             for g in groups)
    if baseline in scores:
        out["margin_over_baseline"] = scores[w] / scores[baseline]
    if len(candidates) == 1:
        out["noise"] = "n/a"
        out["verdict"] = "only one implementation measured"
        return out
    r = candidates[1]
    out["runner_up"] = r
    out["margin_over_runner_up"] = scores[w] / scores[r]
    per = []
    for g in groups:
        n = noise(fr.cells[g][w], fr.cells[g][r], metric, higher, alpha)
        n["group"] = R.group_name(fr.family, g[0], g[1])
        per.append(n)
    out["group_noise"] = per
    assessed = [n for n in per if n["state"] != "unknown"]
    above = [n for n in assessed if n["state"] == "above"]
    ps = [n["p"] for n in assessed if n["p"] is not None]
    out["p_max"] = max(ps) if ps else None
    if not assessed:
        out["noise"] = "unknown"
        out["verdict"] = ("noise unknown: 1 repetition (smoke profile); run "
                          "the default profile for a verdict")
    elif len(above) == len(assessed):
        out["noise"] = "above"
        out["verdict"] = "larger than the noise in %s" % (
            "its group" if len(assessed) == 1 else
            "all %d groups" % len(assessed))
    elif not above:
        out["noise"] = "within"
        out["verdict"] = "within the noise: a tie with %s" % r
    else:
        out["noise"] = "mixed"
        out["verdict"] = "larger than the noise in %d of %d groups" % (
            len(above), len(assessed))
    return out


def pick_class(fr, spec, cdef, workload, alpha, allowed=None):
    notes = []
    groups = class_groups(fr, cdef, workload, notes)
    baseline = cdef.baseline or spec["baseline"]
    res = dict(family=fr.family, cls=cdef.key, title=cdef.title,
               metric=cdef.metric, unit=cdef.unit, higher=cdef.higher,
               latency=cdef.latency, show=list(cdef.show),
               scenarios=list(cdef.scenarios),
               groups=[R.group_name(fr.family, s, p) for s, p in groups],
               group_keys=groups, notes=notes, oversubscribed=any(
                   c.oversubscribed for g in groups
                   for c in fr.cells[g].values()))
    if not groups:
        res.update(winner=None, verdict="not measured (no %s runs in %s)" % (
            "/".join(cdef.scenarios), os.path.basename(fr.path)),
            noise="n/a", baseline=baseline, ranking=[], partial={})
        return res
    if allowed is None:
        allowed = {i for i in fr.impls() if i not in spec["not_candidates"]}
    allowed = {i for i in allowed if i not in cdef.exclude}
    ranking, candidates, scores, partial = rank_groups(
        fr, groups, cdef.metric, cdef.higher, allowed)
    res.update(decide(fr, groups, cdef.metric, cdef.higher, baseline,
                      candidates, scores, alpha))
    res["ranking"] = [dict(impl=i, score=scores[i],
                           candidate=i in candidates) for i in ranking]
    res["partial"] = partial
    excluded = [i for i in ranking[:1] if i not in candidates]
    if excluded:
        why = ("the test reference" if excluded[0] in spec["not_candidates"]
               else "single-producer" if excluded[0] in SPSC_QUEUES
               else "not accepted by the server")
        res["notes"].append("%s ranks first but is not a candidate here "
                            "(%s)" % (excluded[0], why))
    return res


def pick_family(fr, workload, alpha):
    spec = FAMILY_SPECS[fr.family]
    out = []
    has_latency = any(c.latency for c in spec["classes"])
    for cdef in spec["classes"]:
        if not cdef.applies(workload):
            continue
        if workload.latency_bound and has_latency and not cdef.latency:
            continue
        out.append(pick_class(fr, spec, cdef, workload, alpha))
    return out


def _compact_groups(family, groups):
    """'buffer/{burger/kept_pct:5|95, fd_echo/bytes:64|1024}'"""
    by = {}
    for s, params in groups:
        for k, v in params:
            by.setdefault(s, {}).setdefault(k, [])
            if v not in by[s][k]:
                by[s][k].append(v)
        by.setdefault(s, {})
    parts = []
    for s in sorted(by):
        ps = "/".join("%s:%s" % (k, "|".join(str(v) for v in vs))
                      for k, vs in by[s].items())
        parts.append(s + ("/" + ps if ps else ""))
    if len(parts) == 1:
        return "%s/%s" % (family, parts[0])
    return "%s/{%s}" % (family, ", ".join(parts))


def _reactor_entry(baseline, note):
    return dict(winner=baseline, baseline=baseline, micro_ratio=None,
                source=None, cv=None, measured=False, note=note)


def _entry_from_class(res, groups):
    e = dict(winner=res["winner"] or res["baseline"],
             baseline=res["baseline"],
             micro_ratio=_finite(res.get("margin_over_baseline")),
             source=_compact_groups(res["family"], groups),
             cv=_finite(res.get("cv")), measured=res["winner"] is not None,
             metric=res["metric"], higher_is_better=res["higher"],
             runner_up=res.get("runner_up"),
             margin_over_runner_up=_finite(res.get("margin_over_runner_up")),
             noise=res.get("noise"), verdict=res.get("verdict"),
             repetitions=res.get("repetitions"), groups=res["groups"])
    if res["winner"] == res["baseline"]:
        e["micro_ratio"] = 1.0
    return e


def pick_reactor(loaded, workload, alpha):
    """The reactor's policy: task queue, buffer, logger (winners.json's
    "reactor" object, read by the ping-pong validation)."""
    out = {}
    # Task queue: the eventloop scenario, coalesced wake-ups (the reactor's
    # default), the largest producer count that fits the cores (or the one
    # --producers names).
    fr = loaded.get("queues")
    cdef = [c for c in FAMILY_SPECS["queues"]["classes"]
            if c.key == "event loop"][0]
    if fr is None:
        out["task_queue"] = _reactor_entry("swap-vector", "queues.json missing")
    else:
        notes = []
        groups = class_groups(fr, cdef, Workload(), notes)
        prods = sorted({dict(p).get("producers") for _, p in groups})
        if not prods:
            out["task_queue"] = _reactor_entry(
                "swap-vector", "no queues/eventloop coalesce:1 runs")
        else:
            cores = fr.cores() or 2
            if workload.producers is not None:
                want = _nearest(prods, workload.producers)
            else:
                fit = [p for p in prods if p <= cores]
                want = max(fit) if fit else min(prods)
            groups = [g for g in groups if dict(g[1]).get("producers") == want]
            allowed = {i for i in fr.impls() if i not in SPSC_QUEUES}
            ranking, cands, scores, _ = rank_groups(
                fr, groups, cdef.metric, cdef.higher, allowed)
            res = dict(family="queues", metric=cdef.metric, higher=cdef.higher,
                       groups=[R.group_name("queues", s, p)
                               for s, p in groups])
            res.update(decide(fr, groups, cdef.metric, cdef.higher,
                              "swap-vector", cands, scores, alpha))
            e = _entry_from_class(res, groups)
            e["source"] = res["groups"][0]
            out["task_queue"] = e
    # Buffer: the stream class.
    fr = loaded.get("buffer")
    if fr is None:
        out["buffer"] = _reactor_entry("linear", "buffer.json missing")
    else:
        spec = FAMILY_SPECS["buffer"]
        cdef = spec["classes"][0]
        res = pick_class(fr, spec, cdef, workload, alpha)
        out["buffer"] = _entry_from_class(res, res["group_keys"])
    # Logger: the latency-bound class, among the loggers the server accepts.
    fr = loaded.get("logger")
    if fr is None:
        out["logger"] = _reactor_entry("sync", "logger.json missing")
    else:
        spec = FAMILY_SPECS["logger"]
        cdef = spec["classes"][0]
        res = pick_class(fr, spec, cdef, workload, alpha,
                         allowed=set(SERVER_LOGGERS))
        out["logger"] = _entry_from_class(res, res["group_keys"])
    return out


def _finite(x):
    if x is None:
        return None
    try:
        return None if math.isnan(x) or math.isinf(x) else round(float(x), 4)
    except TypeError:
        return None


def pick_all(loaded, workload, alpha=0.05):
    """Everything winners.json and the report need."""
    families = {}
    for family in R.FAMILIES:
        fr = loaded.get(family)
        if fr is None:
            families[family] = dict(missing=True, classes=[])
        else:
            families[family] = dict(missing=False, profile=fr.profile(),
                                    file=fr.path, cores=fr.cores(),
                                    baseline=FAMILY_SPECS[family]["baseline"],
                                    classes=pick_family(fr, workload, alpha))
    return dict(families=families,
                reactor=pick_reactor(loaded, workload, alpha))


# --- validation (written by bench/pingpong/sweep.py into pingpong.json) -------

HELD_WORDS = ("held", "holds", "confirmed", "yes", "pass", "ok")


def validation_entries(pingpong):
    """The "validation" key of pingpong.json as a list of dicts with at least
    component, micro_ratio, e2e_ratio, verdict; [] when absent. Accepts a
    list of entries, a {component: entry} mapping, or either under
    "components"."""
    if not pingpong or "validation" not in pingpong:
        return []
    v = pingpong["validation"]
    if isinstance(v, dict):
        for key in ("rows", "components"):
            if key in v:
                v = v[key]
                break
    entries = []
    if isinstance(v, dict):
        for k, e in v.items():
            if isinstance(e, dict):
                e = dict(e)
                e.setdefault("component", k)
                entries.append(e)
    elif isinstance(v, list):
        entries = [dict(e) for e in v if isinstance(e, dict)]
    for e in entries:
        e.setdefault("component", e.get("name", "?"))
    return entries


def held(entry):
    h = entry.get("held")
    if isinstance(h, bool):
        return h
    verdict = str(entry.get("verdict", "")).lower()
    if any(w in verdict for w in ("not", "failed", "reversed", "lost",
                                  "did not", "no ")):
        return False
    return any(w in verdict for w in HELD_WORDS)


def validated(entry):
    """False for rows with nothing to validate (the winner is the baseline)
    or that failed to run."""
    verdict = str(entry.get("verdict", "")).lower()
    if "winner" in entry and entry.get("winner") == entry.get("baseline"):
        return False
    return not (verdict.startswith("winner is the baseline") or
                verdict.startswith("error"))


def validation_summary(pingpong):
    """One line: how many micro winners held end to end. A component with
    several cases (e.g. 4 KiB and 16 KiB echo) held when every case held."""
    entries = validation_entries(pingpong)
    if not entries:
        return "validation not run", entries
    rows = [e for e in entries if validated(e)]
    if not rows:
        return ("validation ran, but nothing to validate (every winner is "
                "its baseline, or the runs failed)", entries)
    comps = {}
    for e in rows:
        comps.setdefault(e["component"], []).append(held(e))
    n_held = sum(1 for v in comps.values() if all(v))
    line = "%d of %d micro-benchmark winners held end to end" % (
        n_held, len(comps))
    if len(rows) != len(comps):
        line += " (%d of %d cases)" % (sum(held(e) for e in rows), len(rows))
    return line, entries


# --- output ---------------------------------------------------------------------

def fmt_ratio(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return "%.2fx" % x


def noise_cell(res):
    n = res.get("noise")
    if n == "above":
        extra = []
        if res.get("p_max") is not None:
            extra.append("U-test p<=%.3f" % res["p_max"])
        if res.get("cv") is not None:
            extra.append("CV %.1f%%" % (100 * res["cv"]))
        return "yes" + (" (%s)" % ", ".join(extra) if extra else "")
    if n == "within":
        return "no: tie with %s" % res.get("runner_up")
    if n == "mixed":
        return "partly: " + res["verdict"].replace("larger than the noise "
                                                   "in ", "")
    if n == "unknown":
        return "unknown (1 repetition)"
    return res.get("verdict") or "-"


def recommendation_rows(picked):
    rows = []
    for family in R.FAMILIES:
        fam = picked["families"][family]
        title = FAMILY_SPECS[family]["title"]
        if fam["missing"]:
            rows.append([title, "-", "not measured (results/%s.json missing)"
                         % family, "-", "-", "-"])
            continue
        for res in fam["classes"]:
            if res.get("winner") is None:
                rows.append([title, res["cls"], res["verdict"], "-", "-", "-"])
                continue
            vs_base = fmt_ratio(res.get("margin_over_baseline"))
            if res["winner"] == res["baseline"]:
                vs_base = "(is the baseline)"
            elif res.get("margin_over_baseline") is not None:
                vs_base += " " + res["baseline"]
            else:
                vs_base = "- (%s not run)" % res["baseline"]
            runner = fmt_ratio(res.get("margin_over_runner_up"))
            if res.get("runner_up"):
                runner += " " + res["runner_up"]
            else:
                runner = "- (only one)"
            rows.append([title, res["cls"], res["winner"], runner, vs_base,
                         noise_cell(res)])
    return rows


HEADER = ["family", "workload class", "winner", "margin over runner-up",
          "margin over baseline", "above noise?"]


def text_table(rows, head=HEADER):
    widths = [max(len(str(r[i])) for r in [head] + rows)
              for i in range(len(head))]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(head, widths))]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    return "\n".join(lines)


def winners_json(picked, workload, results_dir, loaded, pingpong):
    fams = {}
    for family, fam in picked["families"].items():
        if fam["missing"]:
            fams[family] = dict(missing=True)
            continue
        classes = {}
        for res in fam["classes"]:
            classes[res["cls"]] = dict(
                winner=res.get("winner"), runner_up=res.get("runner_up"),
                baseline=res.get("baseline"),
                margin_over_runner_up=_finite(res.get("margin_over_runner_up")),
                margin_over_baseline=_finite(res.get("margin_over_baseline")),
                noise=res.get("noise"), verdict=res.get("verdict"),
                p_max=_finite(res.get("p_max")), cv=_finite(res.get("cv")),
                repetitions=res.get("repetitions"), metric=res["metric"],
                higher_is_better=res["higher"], groups=res["groups"],
                notes=res["notes"],
                ranking=[dict(impl=r["impl"], score=_finite(r["score"]))
                         for r in res.get("ranking", [])])
        fams[family] = dict(missing=False, profile=fam["profile"],
                            baseline=fam["baseline"], classes=classes)
    summary, _ = validation_summary(pingpong)
    return dict(
        generated=datetime.datetime.now().astimezone().isoformat(
            timespec="seconds"),
        results_dir=os.path.abspath(results_dir), workload=workload.as_dict(),
        noise_rule=("U-test p < alpha and margin > the larger CV"
                    if scipy_available() else "margin > 2 x CV (no scipy)"),
        families=fams, reactor=picked["reactor"], validation=summary)


# --- compare two result sets ------------------------------------------------------

def metric_for(family, scenario):
    for cdef in FAMILY_SPECS.get(family, {}).get("classes", []):
        if scenario in cdef.scenarios:
            return cdef.metric, cdef.higher
    return None, True


def compare_dirs(a, b, alpha, out=sys.stdout):
    la, pa = R.load_dir(a)
    lb, pb = R.load_dir(b)
    for p in pa + pb:
        print("compare: " + p, file=sys.stderr)
    common = [f for f in R.FAMILIES if f in la and f in lb]
    if not common:
        print("compare: no family file in both %s and %s" % (a, b),
              file=sys.stderr)
        return 2
    print("Ranking metrics, %s -> %s (ratio > 1: B is better; U-test over "
          "the repetitions, alpha %.2f)" % (a, b, alpha), file=out)
    n_sig = n_all = 0
    for family in common:
        fa, fb = la[family], lb[family]
        rows = []
        for g in fa.groups():
            if g not in fb.cells:
                continue
            metric, higher = metric_for(family, g[0])
            if metric is None:
                continue
            for impl in sorted(fa.cells[g]):
                ca, cb = fa.cells[g][impl], fb.cells[g].get(impl)
                if cb is None or ca.error or cb.error:
                    continue
                ma, mb = ca.median(metric), cb.median(metric)
                ratio = better_ratio(mb, ma, higher)
                p = utest(ca.reps(metric), cb.reps(metric))
                sig = "?" if p is None else ("yes" if p < alpha else "no")
                n_all += 1
                n_sig += sig == "yes"
                rows.append([R.group_name(family, g[0], g[1]) + " " + impl,
                             metric, "%.4g" % ma, "%.4g" % mb,
                             fmt_ratio(ratio),
                             "-" if p is None else "%.3f" % p, sig])
        print("\n%s (A: profile %s, B: profile %s)" % (
            family, fa.profile(), fb.profile()), file=out)
        print(text_table(rows, ["benchmark", "metric", "A median",
                                "B median", "B vs A", "p", "significant"]),
              file=out)
    print("\n%d of %d comparisons significant at alpha %.2f%s" % (
        n_sig, n_all, alpha, "" if scipy_available() else
        " (scipy missing: no U-test)"), file=out)
    for f in R.FAMILIES:
        if (f in la) != (f in lb):
            print("note: %s.json only in %s" % (f, a if f in la else b),
                  file=out)
    return 0


# --- main -------------------------------------------------------------------------

def default_results_dir():
    base = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd()
    return os.path.join(base, "results")


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="pick", description="Names the winner of each family and "
        "workload class from the sweeps' results; writes winners.json, "
        "REPORT.md and charts.")
    ap.add_argument("--results", default="",
                    help="directory of <family>.json (default: the "
                    "workspace's results/)")
    ap.add_argument("--out", default="",
                    help="where winners.json, REPORT.md and the charts go "
                    "(default: the results directory)")
    ap.add_argument("--producers", type=int, help="producer threads "
                    "(queue producers, pool submitters, logger callers)")
    ap.add_argument("--consumers", type=int, help="consumer threads (queues)")
    ap.add_argument("--payload", type=int, help="message size in bytes "
                    "(logger lines, buffer blocks and frames)")
    ap.add_argument("--latency-bound", "--latency_bound", dest="latency_bound",
                    action="store_true",
                    help="rank by latency where a family measures it")
    ap.add_argument("--alpha", type=float, default=0.05,
                    help="significance level of the U-test (default 0.05)")
    ap.add_argument("--no-charts", "--no_charts", dest="no_charts",
                    action="store_true", help="write the report without "
                    "charts")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"),
                    help="compare two result directories instead")
    args = ap.parse_args(argv)
    for k in ("producers", "consumers", "payload"):
        v = getattr(args, k)
        if v is not None and v < 1:
            ap.error("--%s must be at least 1" % k)
    return args


def main(argv):
    args = parse_args(argv)
    if args.compare:
        a, b = args.compare
        for d in (a, b):
            if not os.path.isdir(d):
                print("compare: %s is not a directory" % d, file=sys.stderr)
                return 2
        return compare_dirs(a, b, args.alpha)
    results_dir = args.results or default_results_dir()
    out_dir = args.out or results_dir
    if not os.path.isdir(results_dir):
        print("pick: no results directory %s; run the sweeps first (make "
              "bench, or bazel run -c opt //bench:queues ...)" % results_dir,
              file=sys.stderr)
        return 2
    loaded, problems = R.load_dir(results_dir)
    for p in problems:
        print("pick: skipped " + p, file=sys.stderr)
    if not loaded:
        print("pick: no family results (queues.json, threadpool.json, "
              "logger.json, buffer.json) in %s" % results_dir, file=sys.stderr)
        return 2
    workload = Workload(args.producers, args.consumers, args.payload,
                        args.latency_bound)
    pingpong = R.load_pingpong(results_dir)
    picked = pick_all(loaded, workload, args.alpha)
    os.makedirs(out_dir, exist_ok=True)
    doc = winners_json(picked, workload, results_dir, loaded, pingpong)
    winners_path = os.path.join(out_dir, "winners.json")
    with open(winners_path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")

    import report  # noqa: E402 (after the data is safe on disk)
    charts, chart_error = [], None
    if not args.no_charts:
        import charts as C
        try:
            charts = C.draw_all(loaded, pingpong, picked, out_dir)
        except C.ChartsUnavailable as e:
            chart_error = str(e)
    report_path = os.path.join(out_dir, "REPORT.md")
    with open(report_path, "w") as f:
        f.write(report.render(picked, loaded, pingpong, workload, charts,
                              chart_error, results_dir, args, problems))

    print("Recommendation (workload: %s)\n" % workload.describe())
    print(text_table(recommendation_rows(picked)))
    print("\nReactor policy: " + ", ".join(
        "%s %s (%s vs %s)" % (k, e["winner"], fmt_ratio(e["micro_ratio"]),
                              e["baseline"])
        for k, e in picked["reactor"].items()))
    print(validation_summary(pingpong)[0])
    print("winners: %s" % winners_path)
    if chart_error:
        print("pick: charts not drawn: %s" % chart_error, file=sys.stderr)
    print("report: %s" % os.path.abspath(report_path))
    return 3 if chart_error else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/pick/pick.py
# -----------------------------------------------------------------------------
#
# From sweeps to a choice: `bazel run //bench:pick`.
#
#   bazel run //bench:pick -- [--results=DIR] [--out=DIR]
#       [--producers=N] [--consumers=N] [--payload=BYTES] [--latency-bound]
#       [--alpha=0.05] [--min-margin=0.05] [--drift-threshold=0.2]
#       [--no-charts]
#   bazel run //bench:pick -- --compare DIR_A DIR_B
#   bazel run //bench:pick -- --repro RUN1.json RUN2.json
#   bazel run //bench:pick -- --merge OUT.json PART1.json ... PARTN.json
#
# Reads results/<family>.json (Google Benchmark's JSON from //bench:queues,
# :threadpool, :logger, :buffer) and results/pingpong.json, and for each
# family and workload class names the winner, its margin over the runner-up
# and over the family's baseline, and whether the margin is larger than the
# noise. Writes results/winners.json (the reactor policy the ping-pong
# validation runs: the "reactor" object), results/REPORT.md and its charts
# (results/*.png, drawn by charts.py with matplotlib).
#
# One vocabulary: each sweep writes its ranking rules (per scenario: metric,
# direction, unit, baseline, counters to show, vs_floor, reference) and each
# implementation's traits into the file's context (context.serverkit, see
# results.py). Pick keeps only which groups form a workload class (key,
# title, scenarios, the group filter, workload narrowing, the latency flag)
# and takes the rest from the file; a class whose scenarios disagree on
# metric or direction is an error (exit 2). A file without the vocabulary
# (an older sweep) is skipped. Candidates: an implementation whose traits say
# "reference" never wins; the event-loop class and the reactor's task queue
# leave out "topology": "spsc" queues; the reactor's logger is chosen among
# "server": true loggers.
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
# Noise (noise(), the one place the rule lives): in each group the winner's
# repetitions are tested against the runner-up's with the two-sided
# Mann-Whitney U test, the test Google Benchmark's compare.py runs
# (scipy.stats.mannwhitneyu); the margin is "above noise" in a group when
# p < alpha, the margin exceeds the larger of the two coefficients of
# variation, and it exceeds MIN_MARGIN (5%; --min-margin). Without scipy the
# CV rule is margin > 2 x CV (and > the minimum margin). With one repetition
# (--profile=smoke) the noise is unknown and the table says so. A file
# merged from a sweep run as N processes (bench/sweep.sh, --merge) adds one
# condition: the winner's median must be ahead in every process, so that a
# process-level effect (where the heap landed, which vCPUs the host gave)
# makes a tie, never a confident winner.
#
# --merge OUT PART...: joins the files of one sweep run as N processes
# (--part=K/N) into OUT (results.merge_parts); exit 2 when they are not the
# N parts of one sweep.
#
# The floor and drift: every family file has a reference row
# <family>/floor/cache-line (two pinned threads bouncing one cache line),
# ranked on its own, never in a class, and the floor measured before and
# after the sweep. A family "drifted" when the before/after p50 differ by more
# than the file's threshold (max/min - 1 > 0.20) or the CV of the interleaved
# row's p50 repetitions exceeds it; pick computes this itself (drift()). A
# drifted family names no winner ("host drifted: rerun") and the reactor
# keeps its baselines for it. Rules with "vs_floor" (the queue round trip)
# are also shown in REPORT.md as multiples of the floor.
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
# --repro RUN1 RUN2: two result files of one family. Each workload class (no
# workload narrowing) is decided in each run as the recommendation does;
# a winner contradiction is two "above noise" decisions naming different
# winners; a pair contradiction is X beating Y above the noise (in every
# group of the class, same alpha and minimum margin) in one run and Y beating
# X in the other. Prints a row per class, each run's floor and drift, and
# "N contradictions (W winner, P pair) in K classes, M pairs compared" (K:
# the classes measured in both runs).
#
# A run whose host drifted is compared all the same (its classes decided as
# if it had not drifted), and the output says which run drifted: the check
# asks whether the statistics give the same answer twice.
#
# Exit status: 0; 2 on bad arguments, no results at all, or ranking rules
# that contradict a class; 3 when the charts could not be drawn (winners.json
# and REPORT.md are still written). --repro: 0 when the runs agree, 1 on a
# contradiction, 2 on bad or missing files (or files of two families, or
# without the vocabulary).

import argparse
import datetime
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import results as R  # noqa: E402

# --drift-threshold: replaces every file's drift threshold when set (main()).
DRIFT_THRESHOLD = None

# The noise rule's minimum margin: a winner must also beat the runner-up by
# more than this fraction (--min-margin overrides it).
MIN_MARGIN = 0.05


class ClassDef:
    """One workload class of a family: which groups it ranks (pick's own).
    How they are ranked (metric, direction, unit, baseline, counters to show)
    is the file's rule for the class's scenarios; see class_rule(). `fits`
    (traits -> bool) says which implementations may win here; `unfit` says
    why the others may not."""

    def __init__(self, key, title, scenarios, where=None, applies=None,
                 latency=False, narrow=None, fits=None, unfit=""):
        self.key = key
        self.title = title
        self.scenarios = scenarios
        self.where = where or (lambda p: True)    # params dict -> bool
        self.applies = applies or (lambda w: True)  # workload -> bool
        self.latency = latency
        self.narrow = narrow or {}                # param -> workload attribute
        self.fits = fits or (lambda traits: True)
        self.unfit = unfit


def _multi_producer(traits):
    """The reactor's task queue has many producers: no SPSC queue."""
    return traits.get("topology") != "spsc"


def _server_logger(traits):
    """The loggers //bench/pingpong:server accepts."""
    return traits.get("server") is True


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
    return ClassDef(key, title, ["throughput"], where=where, applies=applies,
                    narrow={"producers": "producers", "consumers": "consumers"})


FAMILY_SPECS = {
    "queues": dict(
        title="queues",
        classes=[
            _queue_shape("1:1", "1 producer, 1 consumer", _one, _one),
            _queue_shape("N:1", "many producers, 1 consumer", _many, _one),
            _queue_shape("1:N", "1 producer, many consumers", _one, _many),
            _queue_shape("N:N", "many producers, many consumers", _many,
                         _many),
            ClassDef("latency-bound", "round trip through two queues, p50",
                     ["latency"], latency=True),
            ClassDef("event loop", "tasks posted to one loop thread, "
                     "coalesced wake-ups (the reactor's pattern)",
                     ["eventloop"], where=lambda p: p.get("coalesce") == 1,
                     fits=_multi_producer, unfit="single-producer",
                     narrow={"producers": "producers"}),
        ]),
    "threadpool": dict(
        title="thread pools",
        classes=[
            ClassDef("tiny tasks", "a flood of tiny tasks (empty and ~1 us)",
                     ["tiny"], narrow={"submitters": "producers"}),
            ClassDef("fan-out", "parallel-for of ~2 us chunks, then wait",
                     ["fanout"]),
            ClassDef("blocking tasks", "tasks that sleep 2 ms", ["sleep"]),
            ClassDef("hand-off latency", "submit-to-start of an idle pool, p50",
                     ["latency"], latency=True,
                     narrow={"submitters": "producers"}),
        ]),
    "logger": dict(
        title="loggers",
        classes=[
            ClassDef("latency-bound", "time per call on the caller's thread, "
                     "p50", ["latency-file", "latency-console"], latency=True,
                     narrow={"callers": "producers", "bytes": "payload"}),
            ClassDef("throughput-bound", "messages until flushed to the kernel",
                     ["throughput-file", "throughput-console"],
                     narrow={"callers": "producers", "bytes": "payload"}),
        ]),
    "buffer": dict(
        title="buffers",
        classes=[
            ClassDef("stream", "byte stream: Burger's append/retrieve/prepend"
                     " and read_fd/write_fd echo", ["burger", "fd_echo"],
                     narrow={"bytes": "payload"}),
            ClassDef("framed", "length-prefixed messages parsed from chunks",
                     ["framed"], narrow={"msg": "payload"}),
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


def noise(cw, cr, metric, higher, alpha, min_margin=MIN_MARGIN):
    """Is cw's margin over cr in one group above noise? (The winner's over
    the runner-up's, or one implementation's over another's.) Above: the
    U-test's p < alpha, and the margin exceeds both the larger CV and
    `min_margin`; without scipy, 2 x the larger CV and `min_margin`. In a
    file merged from several processes, also: cw's median is better than
    cr's in every process (else "split" says where it is not)."""
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
        above = p < alpha and margin > max(cvmax or 0.0, min_margin)
    else:
        above = margin > max(2 * (cvmax or 0.0), min_margin)
    # A sweep run as several processes: every process must agree.
    pw, pr = cw.process_medians(metric), cr.process_medians(metric)
    procs = sorted(set(pw) & set(pr))
    out["processes"] = len(procs)
    out["split"] = None
    if len(procs) >= 2:
        per = [(k, better_ratio(pw[k], pr[k], higher)) for k in procs]
        behind = [(k, x) for k, x in per if not x > 1]
        if above and behind:
            above = False
            out["split"] = "behind in process %s" % ", ".join(
                "%d (%s)" % (k, fmt_ratio(x)) for k, x in behind)
    out["state"] = "above" if above else "within"
    return out


def noise_rule(alpha, min_margin):
    every = "; and ahead in every process of a sweep run as several"
    if scipy_available():
        return ("U-test p < %g and margin > max(the larger CV, min margin "
                "%g)%s" % (alpha, min_margin, every))
    return ("margin > max(2 x the larger CV, min margin %g) (no scipy)%s" %
            (min_margin, every))


# --- the floor: did the host drift? ---------------------------------------------

def _ns(x):
    return "-" if x is None else "%.0f" % x


def _pct(x):
    return "-" if x is None else "%.1f%%" % (100 * x)


def floor_detail(fl):
    """'floor p50 561 ns before, 575 ns after; interleaved CV 1.2%'"""
    return "floor p50 %s ns before, %s ns after; interleaved CV %s" % (
        _ns(fl["before_p50_ns"]), _ns(fl["after_p50_ns"]), _pct(fl["row_cv"]))


def drift(fl):
    """Did the host drift during the sweep? From a floor summary
    (results.floor_summary), never from a flag in the file: the before and
    after p50 differ by more than the threshold (max / min - 1), or the CV
    of the interleaved floor row's p50 repetitions exceeds it. Returns
    dict(drifted, reason (the rules that fired), verdict)."""
    t = fl["threshold"] if DRIFT_THRESHOLD is None else DRIFT_THRESHOLD
    fired = []
    b, a = fl["before_p50_ns"], fl["after_p50_ns"]
    if b and a:
        change = max(b, a) / min(b, a) - 1
        if change > t:
            fired.append("before/after p50 differ by %.0f%% > %.0f%%" % (
                100 * change, 100 * t))
    if fl["row_cv"] is not None and fl["row_cv"] > t:
        fired.append("interleaved CV %.1f%% > %.0f%%" % (100 * fl["row_cv"],
                                                        100 * t))
    out = dict(drifted=bool(fired), reason="; ".join(fired) or None,
               verdict=None)
    if fired:
        out["verdict"] = "host drifted: rerun (%s): %s" % (floor_detail(fl),
                                                          out["reason"])
    return out


def family_drift(fr):
    return drift(fr.floor_summary())


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


def class_rule(fr, cdef):
    """The file's ranking rule for a class: dict(metric, higher, unit,
    baseline, show, vs_floor, scenarios) from the rules of its scenarios
    (reference rules, the floor's, left out); None when the file has none.
    Raises results.VocabularyError when the scenarios disagree on metric or
    direction. Unit and baseline: the first scenario's that has one; show:
    the union, in order."""
    have = [fr.rule(s) for s in cdef.scenarios]
    have = [r for r in have if r is not None and not r["reference"]]
    if not have:
        return None
    first = have[0]
    for r in have[1:]:
        if (r["metric"], r["higher"]) != (first["metric"], first["higher"]):
            raise R.VocabularyError(
                "%s: workload class %s/%s spans scenarios ranked differently "
                "(%s: %s, %s is better; %s: %s, %s is better); the sweep's "
                "rankings must agree within a class" % (
                    fr.path, fr.family, cdef.key, first["scenario"],
                    first["metric"], first["direction"], r["scenario"],
                    r["metric"], r["direction"]))
    show = []
    for r in have:
        show += [c for c in r["show"] if c not in show]
    return dict(metric=first["metric"], higher=first["higher"],
                unit=next((r["unit"] for r in have if r["unit"]), ""),
                baseline=next((r["baseline"] for r in have if r["baseline"]),
                              None),
                show=show, vs_floor=any(r["vs_floor"] for r in have),
                scenarios=[r["scenario"] for r in have])


def class_groups(fr, cdef, workload, notes):
    """The class's groups: its scenarios that have a (non-reference) rule in
    the file, filtered by `where`, narrowed to the workload."""
    ranked = []
    for s in cdef.scenarios:
        r = fr.rule(s)
        if r is not None and not r["reference"]:
            ranked.append(s)
        elif r is None and fr.groups(s):
            notes.append("%s has no ranking rule for %s/%s: its groups are "
                         "left out" % (os.path.basename(fr.path), fr.family,
                                       s))
    groups = [g for g in fr.groups() if g[0] in ranked and
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


def candidates_for(fr, cdef):
    """The implementations that may win the class: not a reference, and
    fitting it by their traits."""
    return {i for i in fr.impls() if not fr.is_reference(i) and
            cdef.fits(fr.traits(i))}


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


def decide(fr, groups, metric, higher, baseline, candidates, scores, alpha,
           min_margin=MIN_MARGIN):
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
        n = noise(fr.cells[g][w], fr.cells[g][r], metric, higher, alpha,
                  min_margin)
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
        split = [n for n in assessed if n.get("split")]
        if split:
            out["verdict"] += " (the processes disagree in %d of %d " \
                "group(s))" % (len(split), len(assessed))
    else:
        out["noise"] = "mixed"
        out["verdict"] = "larger than the noise in %d of %d groups" % (
            len(above), len(assessed))
    return out


def _drifted(res, dr):
    """A drifted family's class: no winner, the drift verdict."""
    res.update(winner=None, runner_up=None, margin_over_runner_up=None,
               margin_over_baseline=None, noise="drifted",
               verdict=dr["verdict"], drift_reason=dr["reason"], p_max=None,
               cv=None, group_noise=[])
    return res


def pick_class(fr, cdef, workload, alpha, min_margin=MIN_MARGIN,
               allowed=None, drifted=None):
    """One class of one family, ranked by the file's rule. `allowed`
    narrows the candidates further (the reactor's logger); `drifted`, the
    family's drift() when it drifted, withholds the winner."""
    notes = []
    rule = class_rule(fr, cdef)
    groups = class_groups(fr, cdef, workload, notes) if rule else []
    res = dict(family=fr.family, cls=cdef.key, title=cdef.title,
               metric=rule and rule["metric"], unit=rule and rule["unit"],
               higher=rule["higher"] if rule else None, latency=cdef.latency,
               show=list(rule["show"]) if rule else [],
               vs_floor=bool(rule and rule["vs_floor"]),
               scenarios=list(cdef.scenarios),
               baseline=rule and rule["baseline"],
               groups=[R.group_name(fr.family, s, p) for s, p in groups],
               group_keys=groups, notes=notes, oversubscribed=any(
                   c.oversubscribed for g in groups
                   for c in fr.cells[g].values()))
    if rule is None:
        res.update(winner=None, verdict="not ranked: %s has no ranking rule "
                   "for %s" % (os.path.basename(fr.path),
                               "/".join(cdef.scenarios)),
                   noise="n/a", ranking=[], partial={})
        return res
    if not groups:
        res.update(winner=None, verdict="not measured (no %s runs in %s)" % (
            "/".join(cdef.scenarios), os.path.basename(fr.path)),
            noise="n/a", ranking=[], partial={})
        return res
    cands = candidates_for(fr, cdef)
    if allowed is not None:
        cands &= set(allowed)
    ranking, candidates, scores, partial = rank_groups(
        fr, groups, rule["metric"], rule["higher"], cands)
    res.update(decide(fr, groups, rule["metric"], rule["higher"],
                      rule["baseline"], candidates, scores, alpha,
                      min_margin))
    res["ranking"] = [dict(impl=i, score=scores[i],
                           candidate=i in candidates) for i in ranking]
    res["partial"] = partial
    excluded = [i for i in ranking[:1] if i not in candidates]
    if excluded:
        why = ("a reference, not a candidate" if fr.is_reference(excluded[0])
               else cdef.unfit if not cdef.fits(fr.traits(excluded[0]))
               else "not accepted by the server")
        res["notes"].append("%s ranks first but is not a candidate here "
                            "(%s)" % (excluded[0], why))
    if drifted:
        _drifted(res, drifted)
    return res


def pick_family(fr, workload, alpha, min_margin=MIN_MARGIN):
    spec = FAMILY_SPECS[fr.family]
    dr = family_drift(fr)
    out = []
    has_latency = any(c.latency for c in spec["classes"])
    for cdef in spec["classes"]:
        if not cdef.applies(workload):
            continue
        if workload.latency_bound and has_latency and not cdef.latency:
            continue
        out.append(pick_class(fr, cdef, workload, alpha, min_margin,
                              drifted=dr if dr["drifted"] else None))
    return out


def family_baselines(fr):
    """The baselines the file's (non-reference) rules name, in order."""
    out = []
    for r in fr.rules().values():
        if r["baseline"] and not r["reference"] and r["baseline"] not in out:
            out.append(r["baseline"])
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


def _class_of(family, key):
    return [c for c in FAMILY_SPECS[family]["classes"] if c.key == key][0]


def pick_reactor(loaded, workload, alpha, min_margin=MIN_MARGIN):
    """The reactor's policy: task queue, buffer, logger (winners.json's
    "reactor" object, read by the ping-pong validation). Returns (entries,
    {component: why it has no entry}): without its family's file (or the
    file's rule) a component has no entry, and the validation uses its own
    default for it. A drifted family's component keeps its baseline."""
    out, missing = {}, {}
    # Task queue: the eventloop scenario, coalesced wake-ups (the reactor's
    # default), the largest producer count that fits the cores (or the one
    # --producers names), among the multi-producer queues.
    fr = loaded.get("queues")
    cdef = _class_of("queues", "event loop")
    rule = fr and class_rule(fr, cdef)
    if fr is None:
        missing["task_queue"] = "queues.json missing"
    elif rule is None:
        missing["task_queue"] = "%s has no eventloop ranking rule" % (
            os.path.basename(fr.path))
    else:
        dr = family_drift(fr)
        groups = class_groups(fr, cdef, Workload(), [])
        prods = sorted({dict(p).get("producers") for _, p in groups})
        if dr["drifted"]:
            out["task_queue"] = _reactor_entry(rule["baseline"],
                                               dr["verdict"])
        elif not prods:
            out["task_queue"] = _reactor_entry(
                rule["baseline"], "no queues/eventloop coalesce:1 runs")
        else:
            cores = fr.cores() or 2
            if workload.producers is not None:
                want = _nearest(prods, workload.producers)
            else:
                fit = [p for p in prods if p <= cores]
                want = max(fit) if fit else min(prods)
            groups = [g for g in groups if dict(g[1]).get("producers") == want]
            ranking, cands, scores, _ = rank_groups(
                fr, groups, rule["metric"], rule["higher"],
                candidates_for(fr, cdef))
            res = dict(family="queues", metric=rule["metric"],
                       higher=rule["higher"],
                       groups=[R.group_name("queues", s, p)
                               for s, p in groups])
            res.update(decide(fr, groups, rule["metric"], rule["higher"],
                              rule["baseline"], cands, scores, alpha,
                              min_margin))
            e = _entry_from_class(res, groups)
            e["source"] = res["groups"][0]
            out["task_queue"] = e
    # Buffer: the stream class. Logger: the latency-bound class, among the
    # loggers the server accepts.
    for comp, family, key in (("buffer", "buffer", "stream"),
                              ("logger", "logger", "latency-bound")):
        fr = loaded.get(family)
        cdef = _class_of(family, key)
        rule = fr and class_rule(fr, cdef)
        if fr is None:
            missing[comp] = "%s.json missing" % family
            continue
        if rule is None:
            missing[comp] = "%s has no ranking rule for %s" % (
                os.path.basename(fr.path), "/".join(cdef.scenarios))
            continue
        dr = family_drift(fr)
        if dr["drifted"]:
            out[comp] = _reactor_entry(rule["baseline"], dr["verdict"])
            continue
        allowed = None
        if comp == "logger":
            allowed = {i for i in fr.impls() if _server_logger(fr.traits(i))}
        res = pick_class(fr, cdef, workload, alpha, min_margin,
                         allowed=allowed)
        out[comp] = _entry_from_class(res, res["group_keys"])
    return out, missing


def _finite(x):
    if x is None:
        return None
    try:
        return None if math.isnan(x) or math.isinf(x) else round(float(x), 4)
    except TypeError:
        return None


def pick_all(loaded, workload, alpha=0.05, min_margin=MIN_MARGIN):
    """Everything winners.json and the report need. Raises
    results.VocabularyError when a file's rules contradict a class."""
    families = {}
    for family in R.FAMILIES:
        fr = loaded.get(family)
        if fr is None:
            families[family] = dict(missing=True, classes=[])
        else:
            fl = fr.floor_summary()
            dr = drift(fl)
            families[family] = dict(missing=False, profile=fr.profile(),
                                    file=fr.path, cores=fr.cores(),
                                    baselines=family_baselines(fr), floor=fl,
                                    drifted=dr["drifted"],
                                    drift_reason=dr["reason"],
                                    drift_verdict=dr["verdict"],
                                    classes=pick_family(fr, workload, alpha,
                                                        min_margin))
    reactor, reactor_missing = pick_reactor(loaded, workload, alpha,
                                            min_margin)
    return dict(families=families, reactor=reactor,
                reactor_missing=reactor_missing, alpha=alpha,
                min_margin=min_margin)


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
    if n == "drifted":
        return "host drifted: rerun"
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
            if res.get("noise") == "drifted":
                detail = res["verdict"][len("host drifted: rerun "):]
                rows.append([title, res["cls"], "host drifted: rerun", "-",
                             "-", detail])
                continue
            if res.get("winner") is None:
                rows.append([title, res["cls"], res["verdict"], "-", "-", "-"])
                continue
            vs_base = fmt_ratio(res.get("margin_over_baseline"))
            if res["baseline"] is None:
                vs_base = "- (no baseline)"
            elif res["winner"] == res["baseline"]:
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
    return "\n".join(ln.rstrip() for ln in lines)


def floor_json(fl):
    out = {}
    for k, v in fl.items():
        out[k] = _finite(v) if isinstance(v, float) else v
    return out


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
                higher_is_better=res["higher"], unit=res["unit"],
                groups=res["groups"], notes=res["notes"],
                ranking=[dict(impl=r["impl"], score=_finite(r["score"]))
                         for r in res.get("ranking", [])])
        fams[family] = dict(missing=False, profile=fam["profile"],
                            baselines=fam["baselines"],
                            floor=floor_json(fam["floor"]),
                            drifted=fam["drifted"],
                            drift_reason=fam["drift_reason"], classes=classes)
    summary, _ = validation_summary(pingpong)
    alpha = picked.get("alpha", 0.05)
    min_margin = picked.get("min_margin", MIN_MARGIN)
    return dict(
        generated=datetime.datetime.now().astimezone().isoformat(
            timespec="seconds"),
        results_dir=os.path.abspath(results_dir), workload=workload.as_dict(),
        noise_rule=noise_rule(alpha, min_margin), alpha=alpha,
        min_margin=min_margin, families=fams, reactor=picked["reactor"],
        reactor_missing=picked.get("reactor_missing", {}),
        validation=summary)


# --- compare two result sets ------------------------------------------------------

def metric_for(fr, scenario):
    """(metric, higher) of the file's rule for the scenario; (None, True)
    without one."""
    r = fr.rule(scenario)
    return (r["metric"], r["higher"]) if r else (None, True)


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
            metric, higher = metric_for(fa, g[0])
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


# --- reproducibility of one family's rankings --------------------------------------

def beats(fr, groups, x, y, metric, higher, alpha, min_margin=MIN_MARGIN):
    """X beats Y above the noise in a class: in every one of its groups the
    pairwise noise() test is above, X better."""
    if not groups:
        return False
    for g in groups:
        cx, cy = fr.cells[g].get(x), fr.cells[g].get(y)
        if cx is None or cy is None or cx.error or cy.error:
            return False
        n = noise(cx, cy, metric, higher, alpha, min_margin)
        if n["state"] != "above" or not n["ratio"] > 1:
            return False
    return True


def repro_state(res):
    """One run's decision in a word or two: 'spsc-ring (above, 1.41x over
    bounded-mpmc)', 'tie: a / b'."""
    w, r = res.get("winner"), res.get("runner_up")
    if w is None:
        return res.get("verdict") or "-"
    n = res.get("noise")
    over = "%s over %s" % (fmt_ratio(res.get("margin_over_runner_up")), r)
    if n == "within":
        return "tie: %s / %s" % (w, r)
    if n == "above":
        return "%s (above, %s)" % (w, over)
    if n == "mixed":
        return "%s (%s, %s)" % (w, res["verdict"].replace(
            "larger than the noise", "above"), over)
    if n == "unknown":
        return "%s (noise unknown, %s)" % (w, over)
    return "%s (%s)" % (w, res.get("verdict"))


def repro_class(fr1, fr2, cdef, alpha, min_margin):
    """Decides the class in each run and compares. Returns (row,
    winner contradictions, [pair contradictions], pairs compared, compared)."""
    res = [pick_class(fr, cdef, Workload(), alpha, min_margin)
           for fr in (fr1, fr2)]
    row = [cdef.key, repro_state(res[0]), repro_state(res[1])]
    if not (res[0]["group_keys"] and res[1]["group_keys"] and
            res[0]["ranking"] and res[1]["ranking"]):
        return row + ["not compared (not ranked in both runs)"], 0, [], 0, \
            False
    winner = 0
    if res[0]["noise"] == "above" and res[1]["noise"] == "above" and \
            res[0]["winner"] != res[1]["winner"]:
        winner = 1
    ranked2 = {r["impl"] for r in res[1]["ranking"]}
    common = sorted(r["impl"] for r in res[0]["ranking"]
                    if r["impl"] in ranked2)
    pairs, n_pairs = [], 0
    for a in range(len(common)):
        for b in range(a + 1, len(common)):
            x, y = common[a], common[b]
            n_pairs += 1
            said = []
            for fr, r in zip((fr1, fr2), res):
                args = (r["metric"], r["higher"], alpha, min_margin)
                said.append((beats(fr, r["group_keys"], x, y, *args),
                             beats(fr, r["group_keys"], y, x, *args)))
            if said[0][0] and said[1][1]:
                pairs.append("%s > %s in run 1, %s > %s in run 2" % (x, y, y,
                                                                     x))
            elif said[0][1] and said[1][0]:
                pairs.append("%s > %s in run 1, %s > %s in run 2" % (y, x, x,
                                                                     y))
    what = []
    if winner:
        what.append("winner %s vs %s" % (res[0]["winner"], res[1]["winner"]))
    what += pairs
    row.append("CONTRADICTION: " + "; ".join(what) if what else "agree")
    return row, winner, pairs, n_pairs, True


def floor_line(label, fr):
    fl = fr.floor_summary()
    dr = drift(fl)
    return "%s (%s): %s (%d floor repetition(s)); %s" % (
        label, fr.path, floor_detail(fl), fl["row_reps"],
        "drifted: " + dr["reason"] if dr["drifted"] else "no drift")


def repro(path1, path2, alpha=0.05, min_margin=MIN_MARGIN, out=sys.stdout,
          err=sys.stderr):
    """--repro: do two runs of one family rank the same way? Returns the
    exit status: 0 agree, 1 contradictions, 2 bad files."""
    runs = []
    for path in (path1, path2):
        if not os.path.isfile(path):
            print("repro: %s: no such file" % path, file=err)
            return 2
        try:
            runs.append(R.load_family(path))
        except ValueError as e:
            print("repro: %s" % e, file=err)
            return 2
        except OSError as e:
            print("repro: %s: cannot read (%s)" % (path, e.strerror or e),
                  file=err)
            return 2
    fr1, fr2 = runs
    if fr1.family != fr2.family:
        print("repro: %s is a %s run and %s a %s run; give two runs of the "
              "same family" % (path1, fr1.family, path2, fr2.family),
              file=err)
        return 2
    if fr1.family not in FAMILY_SPECS:
        print("repro: unknown family %r (known: %s)" % (
            fr1.family, ", ".join(R.FAMILIES)), file=err)
        return 2
    print("Reproducibility of %s: run 1 %s, run 2 %s (noise: %s)" % (
        fr1.family, path1, path2, noise_rule(alpha, min_margin)), file=out)
    drifts = [family_drift(fr) for fr in runs]
    rows, n_winner, n_pair, n_pairs, n_classes = [], 0, 0, 0, 0
    try:
        for cdef in FAMILY_SPECS[fr1.family]["classes"]:
            row, w, pairs, np_, compared = repro_class(fr1, fr2, cdef, alpha,
                                                       min_margin)
            rows.append(row)
            n_winner += w
            n_pair += len(pairs)
            n_pairs += np_
            n_classes += compared
    except R.VocabularyError as e:
        print("repro: %s" % e, file=err)
        return 2
    print("", file=out)
    print(text_table(rows, ["class", "run 1", "run 2", "verdict"]), file=out)
    print("", file=out)
    for k, fr in enumerate(runs, 1):
        print(floor_line("run %d" % k, fr), file=out)
    drifted = ["run %d" % k for k, d in enumerate(drifts, 1) if d["drifted"]]
    if drifted:
        print("host drifted during %s: the recommendation withholds that "
              "family's winners (\"host drifted: rerun\"); this check still "
              "compares the statistics of both runs" % " and ".join(drifted),
              file=out)
    n = n_winner + n_pair
    print("%d contradictions (%d winner, %d pair) in %d classes, %d pairs "
          "compared" % (n, n_winner, n_pair, n_classes, n_pairs), file=out)
    return 1 if n else 0


# --- main -------------------------------------------------------------------------

def merge(out_path, parts):
    """--merge: writes the joined document to out_path (through a temporary
    file); 0, or 2 with the reason on stderr."""
    try:
        doc = R.merge_parts(parts)
    except R.MergeError as e:
        print("pick --merge: %s" % e, file=sys.stderr)
        return 2
    tmp = out_path + ".tmp"
    try:
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        os.replace(tmp, out_path)
    except OSError as e:
        print("pick --merge: cannot write %s: %s" % (out_path, e),
              file=sys.stderr)
        return 2
    sk = doc["context"]["serverkit"]
    print("merged %d process(es) of %s, %s repetitions, into %s" % (
        sk["processes"], sk.get("family"), sk.get("repetitions"), out_path))
    return 0


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
    ap.add_argument("--min-margin", "--min_margin", dest="min_margin",
                    type=float, default=MIN_MARGIN,
                    help="smallest margin above the noise, a fraction "
                    "(default %g)" % MIN_MARGIN)
    ap.add_argument("--no-charts", "--no_charts", dest="no_charts",
                    action="store_true", help="write the report without "
                    "charts")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"),
                    help="compare two result directories instead")
    ap.add_argument("--repro", nargs=2, metavar=("RUN1", "RUN2"),
                    help="compare the rankings of two result files of one "
                    "family instead (exit 1 on a contradiction)")
    ap.add_argument("--drift-threshold", "--drift_threshold",
                    dest="drift_threshold", type=float, default=None,
                    help="how far the floor may move (before/after, and the "
                    "interleaved CV) before a family's winners are withheld, "
                    "a fraction (default: the file's, 0.2); a larger one "
                    "names winners on a host that moves, at your risk")
    ap.add_argument("--merge", nargs="+", metavar="FILE",
                    help="OUT PART1 ... PARTN: join the files of one sweep "
                    "run as N processes (--part=K/N) into OUT instead")
    args = ap.parse_args(argv)
    if sum(bool(x) for x in (args.compare, args.repro, args.merge)) > 1:
        ap.error("--compare, --repro and --merge: one at a time")
    if args.merge and len(args.merge) < 2:
        ap.error("--merge OUT PART1 [PART2 ...]: at least one part")
    if not 0 <= args.min_margin < 1:
        ap.error("--min-margin must be a fraction in [0, 1)")
    if args.drift_threshold is not None and not args.drift_threshold > 0:
        ap.error("--drift-threshold must be a positive fraction")
    for k in ("producers", "consumers", "payload"):
        v = getattr(args, k)
        if v is not None and v < 1:
            ap.error("--%s must be at least 1" % k)
    return args


def main(argv):
    global DRIFT_THRESHOLD
    args = parse_args(argv)
    DRIFT_THRESHOLD = args.drift_threshold
    if args.merge:
        return merge(args.merge[0], args.merge[1:])
    if args.repro:
        return repro(args.repro[0], args.repro[1], args.alpha,
                     args.min_margin)
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
    try:
        picked = pick_all(loaded, workload, args.alpha, args.min_margin)
    except R.VocabularyError as e:
        print("pick: %s" % e, file=sys.stderr)
        return 2
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
        ["%s %s (%s vs %s)" % (k, e["winner"], fmt_ratio(e["micro_ratio"]),
                               e["baseline"]) if e["measured"] else
         "%s %s (baseline, not measured)" % (k, e["winner"])
         for k, e in picked["reactor"].items()] +
        ["%s not chosen (%s)" % (k, why)
         for k, why in picked["reactor_missing"].items()]))
    print(validation_summary(pingpong)[0])
    print("winners: %s" % winners_path)
    if chart_error:
        print("pick: charts not drawn: %s" % chart_error, file=sys.stderr)
    print("report: %s" % os.path.abspath(report_path))
    return 3 if chart_error else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

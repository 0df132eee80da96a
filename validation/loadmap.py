# -----------------------------------------------------------------------------
# validation/loadmap.py
# -----------------------------------------------------------------------------
#
# Where a component's choice would matter: the load map (docs/methods.md,
# "Predict, then check"). Over a grid of loads (sessions, message sizes,
# I/O loops: GRIDS per profile) it runs the baseline and its positive
# control only, the control's cost sized to FRACTION of the baseline's
# server CPU per operation so that it shows in a few rounds where the
# candidate's own effect would not; each point's rounds give the exchange
# rate, the baseline's share and the candidate's predicted ratio
# (predict.py). One sentence per component says where the
# prediction leaves the ±m band. At the point where the predicted effect
# is largest, the candidate runs too (with the baseline and control, in
# rotating orders) and the prediction is checked there directly
# (check.py): the model refitted on the point's rounds and the check's
# together, the candidate's measured ratio from the check's, one joint
# resampling of both and of the micro rounds.

from __future__ import annotations

import math
import os
import time
from typing import Any, Optional

from pick.records import Round, RunFigures, ValidationRow
from validation import kinds
from validation import micro
from validation import predict
from validation.metric import log_ratios, metric_choice
from validation.rounds import Runner, figures, ops_of
from validation.cases import (CONTROLS, MARGIN, Outcome, Standing,
                              component_flags, standing)
from validation.decide import decide

# A point of the load map (its grid place, rounds and figures).
Point = dict[str, Any]

# The control's cost at each point, as a fraction of the baseline's server
# CPU per operation: large, so a few rounds find the slope.
FRACTION = 0.3
GRIDS: dict[str, dict[str, Any]] = {
    "smoke": dict(sessions=(1,), block=(64,), loops=(1,), rounds=1,
                  check_rounds=1, budget_s=0.0),
    "default": dict(sessions=(1, 10, 100, 1000), block=(64, 4096),
                    loops=(1, 2), rounds=3, check_rounds=9, budget_s=260.0),
    "full": dict(sessions=(1, 10, 100, 1000, 4000), block=(64, 4096, 65536),
                 loops=(1, 2, 4, 8), rounds=5, check_rounds=12,
                 budget_s=1200.0),
}
# Each component's workload on the ping-pong server (echo).
WORKLOAD: dict[str, tuple[list[str], str]] = {
    "task_queue": (["--reply_via_queue"], "echo, every reply posted through "
                   "a worker loop and back (--reply_via_queue)"),
    "buffer": ([], "echo"),
    "logger": ([], "echo, one log line per message to a file; the server "
                   "on a core more than its loops where there is one"),
    "thread_pool": (["--pool_threads=1", "--work_ns=20000"],
                    "GET /work under wrk (servers/http), 20 us of work per "
                    "request on a pool of 1 thread, 1 I/O loop"),
}
# The pool's points are the HTTP server's: no message size (block 0), and
# one I/O loop, the one submitter its micro pick ranked.
HTTP_COMPONENTS = ("thread_pool",)
_ORDERS = (("baseline", "winner", "control"), ("winner", "control",
                                               "baseline"),
           ("control", "baseline", "winner"))


def grid(profile: str) -> dict[str, Any]:
    """The profile's grid, its loops cut to this machine's cores."""
    g = dict(GRIDS.get(profile, GRIDS["default"]))
    cores = len(os.sched_getaffinity(0))
    g["loops"] = tuple(n for n in g["loops"] if n <= max(1, cores)) or (1,)
    return g


Axes = tuple[tuple[int, ...], tuple[int, ...]]


def axes(comp: str, g: dict[str, Any]) -> Axes:
    """The (loops, blocks) of the component's points."""
    if comp in HTTP_COMPONENTS:
        return (1,), (0,)
    return tuple(g["loops"]), tuple(g["block"])


def _case(comp: str, sessions: int, block: int, loops: int) -> dict[str, Any]:
    flags, mode = WORKLOAD[comp]
    case: dict[str, Any] = dict(
        name="map-%d-%d-%d" % (sessions, block, loops), protocol="echo",
        threads=loops, client_threads=1, block=block, sessions=sessions,
        flags=list(flags), mode=mode)
    if comp == "logger":
        case["server_cores"] = loops + 1
    if comp in HTTP_COMPONENTS:
        case.update(kind="http", protocol="http", block=0, path="/work",
                    server_cores=loops + 1)
    return case


def _run(run: Runner, comp: str, name: str, case: dict[str, Any],
         extra: list[str]) -> Optional[RunFigures]:
    log_file = os.path.join(run.log_dir, "%s-map.log" % comp)
    k = kinds.run("serverkit[%s=%s]" % (comp, name),
                  component_flags(comp, name, log_file, extra) + case["flags"],
                  case,
                  kinds.Settings(run.client, run.pin, run.seconds, run.tmp))
    try:
        os.remove(log_file)
    except OSError:
        pass
    if not k["ok"] or k["value"] is None:
        return None
    return figures(dict(k, ops=ops_of(comp, case.get("kind", "pingpong"),
                                      k.get("server_log", ""))))


def _rounds(run: Runner, comp: str, names: dict[str, str],
            case: dict[str, Any], n: int, sides: tuple[str, ...],
            pt: Point) -> Optional[str]:
    """n rounds of the sides at one point into pt["rounds"]; the control
    sized from the first baseline run; the first failure's reason."""
    for rnd in range(n):
        got: Round = {}
        pt["rounds"].append(got)
        order = [s for s in _ORDERS[rnd % len(_ORDERS)] if s in sides]
        for side in order:
            if side == "control" and not pt.get("control_ns"):
                return "the control could not be sized"
            extra = CONTROLS[comp].flags(pt["control_ns"]) \
                if side == "control" else []
            r = _run(run, comp, names[side], case, extra)
            if r is None:
                return "%s %s failed" % (side, names[side])
            got[side] = r
            ops, cpu = r.get("ops"), r.get("server_cpu_s")
            if side == "baseline" and not pt.get("control_ns") and ops \
                    and cpu:
                pt["control_ns"] = int(max(1.0, round(
                    FRACTION * cpu * 1e9 / ops)))
    return None


def _estimate(x: Optional[dict[str, float]]) -> Optional[dict[str, float]]:
    return None if not x else {k: x[k] for k in ("est", "low", "high")}


def point_figures(pt: Point, comp: str, baseline: str, candidate: str,
                  results_dir: str, work: str) -> None:
    """The point's model from its rounds (validate_predict.predict)."""
    use_cpu, why = metric_choice(ValidationRow(
        component=comp, rounds=pt["rounds"], work=work))
    pt["metric_kind"] = ("server CPU per %s" % work) if use_cpu else \
        "throughput"
    rounds = predict.model_rounds(pt["rounds"], {"control": float(
        pt.get("control_ns") or 0)}, use_cpu, True)
    runs = [r for rnd in pt["rounds"] for r in rnd.values()]
    pt["client_bound"] = any(r.get("client_bound") for r in runs)
    ncores = min((len(str(r.get("server_cpus") or "").split(","))
                  for r in runs), default=0)
    pt["oversubscribed"] = pt["loops"] > ncores if ncores else False
    mc = micro.micro_costs(results_dir, comp, pt["source"], pt["block"],
                           predict.spare_core(pt["rounds"], pt["loops"]))
    got = predict.predict(rounds, mc, baseline) if rounds else None
    if got is None:
        pt["error"] = pt.get("error") or "no model (no clean round or no " \
            "micro cost of the baseline)"
        return
    for k in ("cost_ns_per_unit", "share", "exchange_rate",
              "amplification"):
        pt[k] = got.get(k)
    pt["predicted"] = _estimate(got["predicted"].get(candidate))
    p = pt["predicted"]
    pt["standing"] = standing(p["low"], p["high"], pt["margin"]).value \
        if p else None
    pt["metric_what"] = mc.metric.what


def _over(p: Point) -> str:
    return " (oversubscribed)" if p.get("oversubscribed") else ""


def _where(p: Point) -> str:
    """A point in words; no message size where it has none (block 0)."""
    size = "%d-byte messages, " % p["block"] if p["block"] else ""
    return "%d session(s), %s%d loop(s)%s" % (p["sessions"], size,
                                              p["loops"], _over(p))


def sentence(comp: str, pts: list[Point], margin: float) -> str:
    """Where the candidate's predicted effect leaves the ±m band."""
    ok = [p for p in pts if p.get("predicted")]
    if not ok:
        return "%s: no point of the grid gave a prediction" % comp
    beyond = (Standing.AHEAD_BEYOND.value, Standing.BEHIND_BEYOND.value)
    hits = [p for p in ok if p.get("standing") in beyond]
    if hits:
        first = min(hits, key=lambda p: (p["sessions"], p["loops"],
                                         p["block"]))
        e = first["predicted"]
        return ("%s: would matter (%s by more than %g%%) at %d of %d "
                "points, from about %s (predicted %.3fx [%.3f, "
                "%.3f])") % (
                    comp, "better" if e["est"] > 1 else "worse",
                    round(100 * margin, 2), len(hits), len(ok),
                    _where(first), e["est"], e["low"], e["high"])
    top = max(ok, key=lambda p: abs(math.log(p["predicted"]["est"])))
    e = top["predicted"]
    return ("%s: matters nowhere in this grid: at most %+.1f%% (predicted "
            "%.3fx [%.3f, %.3f] at %s)") % (
                comp, 100 * (e["est"] - 1), e["est"], e["low"], e["high"],
                _where(top))


def check_point(run: Runner, comp: str, names: dict[str, str], pt: Point,
                rounds: int, margin: float,
                results_dir: str = "") -> dict[str, Any]:
    """The candidate run at the point beside the baseline and control;
    its measured ratio against the model's prediction there (the
    header): the outcome, its figures and words."""
    case = _case(comp, pt["sessions"], pt["block"], pt["loops"])
    got: Point = dict(rounds=[], control_ns=pt.get("control_ns"))
    err = _rounds(run, comp, names, case, rounds,
                  ("baseline", "winner", "control"), got)
    out: dict[str, Any] = dict(sessions=pt["sessions"], block=pt["block"],
                               loops=pt["loops"], predicted=pt["predicted"],
                               map_predicted=pt["predicted"],
                               measured=None, outcome=None, rounds=rounds)
    if err:
        out["words"] = "not checked: " + err
        return out
    both = pt.get("rounds", []) + got["rounds"]
    use_cpu, _ = metric_choice(ValidationRow(component=comp, rounds=both,
                                             work=pt["work"]))
    mini = ValidationRow(component=comp, rounds=got["rounds"])
    d = decide(log_ratios(mini, "winner", use_cpu),
               log_ratios(mini, "control", use_cpu), margin)
    if d.winner is None:
        out["words"] = "not checked: " + d.reason
        return out
    out["measured"] = d.winner.as_json()
    out["control_detected"] = d.outcome != Outcome.TOO_WEAK
    if not all(isinstance(out["measured"].get(k), (int, float))
               for k in ("ratio", "low", "high")):
        out["words"] = "not checked: %d round(s) give no interval" % rounds
        return out
    mrounds = predict.model_rounds(both, {"control": float(
        pt.get("control_ns") or 0)}, use_cpu, True)
    spare = predict.spare_core(both, pt["loops"])
    mc = micro.micro_costs(results_dir, comp, pt["source"], pt["block"], spare)
    c = predict.check_json(predict.fits_of(mrounds, mc, names["baseline"]),
                           mc, names["baseline"], names["winner"], margin) \
        if mrounds else None
    if c is None:
        out["words"] = "not checked: no model from the point's rounds"
        return out
    out.update({k: c[k] for k in ("outcome", "log_ratio", "gamma",
                                  "gamma_band", "resamples", "words")})
    out["predicted"] = c["predicted"]
    return out


def run_loadmap(run: Runner, profile: str, todo: dict[str, dict[str, str]],
                results_dir: str, margin: float = MARGIN) -> dict[str, Any]:
    """The load map of each component in todo ({component: {"baseline",
    "winner" (the candidate), "source" (its micro group)}})."""
    g = grid(profile)
    out: dict[str, Any] = dict(
        margin=margin, fraction=FRACTION, rounds=g["rounds"],
        seconds=run.seconds, cores=len(os.sched_getaffinity(0)),
        grid=dict(sessions=list(g["sessions"]), block=list(g["block"]),
                  loops=list(g["loops"])), components={}, budget_s=None)
    budget = g["budget_s"] or math.inf
    out["budget_s"] = None if math.isinf(budget) else budget
    started = time.monotonic()
    n = sum(len(g["sessions"]) * len(axes(c, g)[0]) * len(axes(c, g)[1])
            for c in todo)
    k = 0
    for comp, e in todo.items():
        names = dict(baseline=e["baseline"], winner=e["winner"],
                     control=e["baseline"])
        work = kinds.kind_of(_case(comp, 1, 64, 1)).work
        pts: list[Point] = []
        comp_loops, comp_blocks = axes(comp, g)
        for loops in comp_loops:
            for block in comp_blocks:
                for sessions in g["sessions"]:
                    k += 1
                    pt: Point = dict(
                        sessions=sessions, block=block, loops=loops,
                        rounds=[], error=None, margin=margin,
                        source=e.get("source"), work=work, predicted=None,
                        standing=None)
                    pts.append(pt)
                    if time.monotonic() - started > budget:
                        pt["error"] = "the load map's budget was spent"
                        continue
                    case = _case(comp, sessions, block, loops)
                    pt["error"] = _rounds(run, comp, names, case,
                                          g["rounds"], ("baseline",
                                                        "control"), pt)
                    point_figures(pt, comp, e["baseline"], e["winner"],
                                  results_dir, work)
                    p = pt.get("predicted")
                    run.progress.say(
                        "[loadmap %d/%d] %-10s %5d sessions %6d B %d "
                        "loop(s): %s" % (
                            k, n, comp, sessions, block, loops,
                            pt["error"] or "share %s, %s predicted %s" % (
                                predict.pct_iv(pt.get("share")), e["winner"],
                                predict.ratio_iv(p))))
        entry: dict[str, Any] = dict(
            baseline=e["baseline"], candidate=e["winner"],
            workload=WORKLOAD[comp][1], points=[
                {k2: v for k2, v in p.items() if k2 not in ("rounds",)}
                for p in pts], sentence=sentence(comp, pts, margin),
            check=None, metric_what=next((p["metric_what"] for p in pts
                                          if p.get("metric_what")), None))
        ok = [p for p in pts if p.get("predicted")]
        if ok and time.monotonic() - started <= budget:
            top = max(ok, key=lambda p: abs(math.log(p["predicted"]["est"])))
            entry["check"] = check_point(run, comp, names, top,
                                         g["check_rounds"], margin,
                                         results_dir)
            run.progress.say("[loadmap] %s check at %d sessions, %d B, %d "
                             "loop(s): predicted %s, measured %s: %s" % (
                                 comp, top["sessions"], top["block"],
                                 top["loops"],
                                 predict.ratio_iv(entry["check"]["predicted"]),
                                 predict.measured_iv(
                                     entry["check"]["measured"]),
                                 entry["check"]["words"]))
        run.progress.say("[loadmap] " + entry["sentence"])
        out["components"][comp] = entry
    out["elapsed_s"] = round(time.monotonic() - started, 1)
    return out

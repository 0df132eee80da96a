# -----------------------------------------------------------------------------
# validation/predict.py
# -----------------------------------------------------------------------------
#
# Predict, then check, for one validation row (rounds.decide_row
# calls predict_row) and for one load-map point (loadmap.py): the
# rounds' costs per unit of work and the controls' injected costs become
# model.Rounds; the micro benchmark's costs per operation
# (micro.py) become the prediction of every implementation; the
# candidate's prediction is checked against its measured ratio (check.py:
# one joint resampling of the rounds, the candidate's cost riding along with
# each round, and of the micro rounds; consistent, inconsistent or
# uninformative). The row's "model" key holds it all.

from __future__ import annotations

import math
import statistics
from typing import Any, Optional

from pick.margin import MARGIN
from pick.records import Round, RunFigures, ValidationRow
from validation import check
from validation import micro
from validation import model

# The controls' sides: the cost d, and 2d for the slope's second size.
CONTROL_NAMES = ("control", "control2")


def injected(row: ValidationRow) -> dict[str, float]:
    """Each control's injected ns per operation, 0 where unsized: what
    model_rounds takes."""
    return {side: float(row.injected_ns(side) or 0)
            for side in CONTROL_NAMES}


def cost_of(x: Optional[RunFigures], use_cpu: bool,
            higher: bool) -> Optional[float]:
    """A run's cost per unit of work in ns on the row's metric: the server's
    CPU per unit, or 1/throughput, or the latency itself (ms)."""
    if not x:
        return None
    if use_cpu:
        c = x.get("cpu_per_unit")
        return c * 1e9 if c else None
    v = x.get("value")
    if not v or v <= 0:
        return None
    return float(1e9 / v if higher else v * 1e6)


def ops_per_unit(x: Optional[RunFigures]) -> Optional[float]:
    """The component's operations per unit of work of a run: the server's
    count (tasks, KiB, lines) over its units (CPU over CPU per unit)."""
    ops, cpu, per = (x.get("ops"), x.get("server_cpu_s"),
                     x.get("cpu_per_unit")) if x else (None, None, None)
    if not ops or not cpu or not per:
        return None
    return float(ops / (cpu / per))


def model_rounds(rounds: list[Round], injected: dict[str, float],
                 use_cpu: bool, higher: bool) -> list[model.Round]:
    """The rounds with a clean baseline and at least one clean control, as
    the model's Rounds; injected: {control side: ns per operation}. A
    latency metric's unit (a chat round) has no operation count. The
    candidate's ("winner") cost where the round ran it clean: log(base /
    candidate) is metric.log_ratios' per-round ratio on the same metric."""
    out = []
    for rnd in rounds:
        base = cost_of(rnd.get("baseline"), use_cpu, higher)
        if base is None:
            continue
        controls = tuple(
            (injected[side], c) for side, c in
            ((s, cost_of(rnd.get(s), use_cpu, higher)) for s in injected)
            if c is not None and injected[side] > 0)
        if not controls:
            continue
        n = ops_per_unit(rnd.get("baseline")) if use_cpu or higher else None
        out.append(model.Round(base, controls, n,
                               cost_of(rnd.get("winner"), use_cpu, higher)))
    return out


def spare_core(rounds: list[Round], server_threads: int) -> bool:
    """Whether the server had a core more than its I/O threads in every
    clean baseline run."""
    cpus = [str((r.get("baseline") or {}).get("server_cpus") or "")
            for r in rounds if r.get("baseline")]
    if not cpus or any(not c for c in cpus):
        return False
    return min(len(c.split(",")) for c in cpus) > server_threads


def fits_of(rounds: list[model.Round], mc: micro.MicroCosts, baseline: str
            ) -> dict[str, Optional[model.Model]]:
    """The model from the confirmation's micro costs and from the
    sweep's, None where they lack the baseline."""
    return {src: model.fit(rounds, costs, baseline) if baseline in costs
            else None
            for src, costs in (("confirm", mc.confirm), ("sweep", mc.sweep))}


def predictions(fits: dict[str, Optional[model.Model]], mc: micro.MicroCosts,
                baseline: str) -> dict[str, dict[str, Any]]:
    """Every implementation's predicted ratio, from the confirmation where
    it ran the implementation and the baseline, else from the sweep."""
    out: dict[str, dict[str, Any]] = {}
    for impl in sorted(set(mc.confirm) | set(mc.sweep)):
        src = mc.source_of(impl, baseline)
        fit = fits.get(src) if src else None
        if fit is None or impl not in fit.predicted:
            continue
        e = fit.predicted[impl]
        if not all(math.isfinite(v) for v in (e.est, e.low, e.high)):
            continue
        costs = (mc.confirm if src == "confirm" else mc.sweep)[impl]
        out[impl] = dict(e.as_json(), source=src,
                         micro_ns=statistics.median(costs.values()))
    return out


def predict(rounds: list[model.Round], mc: micro.MicroCosts, baseline: str,
            fits: Optional[dict[str, Optional[model.Model]]] = None
            ) -> Optional[dict[str, Any]]:
    """The model's figures (from the confirmation's micro costs where they
    have the baseline, else the sweep's) and every implementation's
    prediction; None without a fit. fits: fits_of's, where made."""
    fits = fits_of(rounds, mc, baseline) if fits is None else fits
    main = fits["confirm"] or fits["sweep"]
    if main is None:
        return None
    out = model.model_json(main)
    out["micro_from"] = "confirm" if fits["confirm"] else "sweep"
    out["predicted"] = predictions(fits, mc, baseline)
    out.update(metric=mc.metric.key, metric_what=mc.metric.what,
               metric_why=mc.why, micro_params=mc.params,
               micro_files=mc.files)
    return out


def check_json(fits: dict[str, Optional[model.Model]], mc: micro.MicroCosts,
               baseline: str, candidate: str,
               margin: float = MARGIN) -> Optional[dict[str, Any]]:
    """The candidate's check (check.py) from the fit its prediction came
    from, as the row stores it; None without a measured ratio or a
    prediction."""
    src = mc.source_of(candidate, baseline)
    fit = fits.get(src) if src else None
    c = check.check(fit, candidate, margin) if fit is not None else None
    return None if c is None else c.as_json()


def _measured(e2e: Any) -> bool:
    """Whether the row's e2e has a ratio and an interval (enough rounds
    for one): the check needs as many."""
    return isinstance(e2e, dict) and all(
        isinstance(e2e.get(k), (int, float)) for k in ("ratio", "low",
                                                       "high"))


def predict_row(row: ValidationRow, results_dir: str, use_cpu: bool
                ) -> None:
    """The row's "model" (None, with "model_note", where it cannot be
    made): the module header's figures for the row's metric; the
    candidate's prediction and its check against the measured interval;
    for a component with two micro metrics (the logger), the candidate's
    prediction on the one that does not apply too."""
    row.model = None
    if row.component not in micro.FAMILY:  # a probe site: no family
        row.model_note = "no micro family for %s" % row.component
        return
    rounds = model_rounds(row.rounds, injected(row), use_cpu,
                          row.higher_is_better)
    if not rounds:
        row.model_note = "no round with a clean baseline and control"
        return
    spare = spare_core(row.rounds, int(row.server_threads or 1))
    mc = micro.micro_costs(results_dir, row.component, row.micro_source,
                           int(row.blocksize or 0), spare)
    fits = fits_of(rounds, mc, row.baseline)
    got = predict(rounds, mc, row.baseline, fits)
    if got is None:
        row.model_note = ("no micro cost of the baseline %s (%s) in %s" % (
            row.baseline, mc.metric.what, " or ".join(mc.files.values())))
        return
    winner = row.winner or "-"
    cand = got["predicted"].get(winner)
    got["candidate"] = cand
    got["check"] = check_json(
        fits, mc, row.baseline, winner,
        row.margin or MARGIN) if cand and _measured(row.e2e) else None
    if got["check"] and got["check"]["outcome"] == check.INCONSISTENT:
        got["check"]["words"] += "; the micro metric that failed: " + \
            mc.metric.what
    other = [m for k, m in micro.METRICS[row.component].items()
             if k != mc.metric.key]
    if other:
        alt = micro.micro_costs(results_dir, row.component, row.micro_source,
                                int(row.blocksize or 0), not spare)
        alt_got = predict(rounds, alt, row.baseline)
        got["other"] = None if alt_got is None else dict(
            metric=alt.metric.key, metric_what=alt.metric.what,
            why_not=alt.why, candidate=alt_got["predicted"].get(winner))
    row.model = got


def _iv(e: Optional[dict[str, float]], fmt: str = "%.3g") -> str:
    if not e:
        return "n/a"
    return (fmt + " [" + fmt + ", " + fmt + "]") % (e["est"], e["low"],
                                                    e["high"])


def pct_iv(e: Optional[dict[str, float]]) -> str:
    if not e:
        return "n/a"
    return "%.2g%% [%.2g, %.2g]" % (
        100 * e["est"], 100 * e["low"], 100 * e["high"])


def ratio_iv(e: Optional[dict[str, float]]) -> str:
    return "n/a" if not e else "%.3fx [%.3f, %.3f]" % (
        e["est"], e["low"], e["high"])


def measured_iv(e2e: Optional[dict[str, Any]]) -> str:
    """A measured ratio with its interval; the ratio alone where too few
    rounds give no interval."""
    if not e2e or not isinstance(e2e.get("ratio"), (int, float)):
        return "n/a"
    ends = (e2e.get("low"), e2e.get("high"))
    if not all(isinstance(x, (int, float)) for x in ends):
        return "%.3fx (no interval)" % e2e["ratio"]
    return "%.3fx [%.3f, %.3f]" % (e2e["ratio"], e2e["low"], e2e["high"])


def model_sentence(row: ValidationRow) -> str:
    """The row's prediction and its check in one line."""
    m = row.model
    if not m:
        return "%s/%s: no prediction (%s)" % (
            row.component, row.case, row.model_note or "-")
    e2e = row.e2e or {}
    text = ("%s/%s: the baseline %s is %s of the server's %s ns per %s "
            "(exchange rate %s ns per ns injected per %s, %s per %s, "
            "amplification %s; linearity %s); on %s (%s): %s predicted "
            "%s, measured %s: %s" % (
                row.component, row.case, row.baseline,
                pct_iv(m["share"]), "%.4g" % m["cost_ns_per_unit"]["est"],
                row.work, _iv(m["exchange_rate"]),
                (row.control_cost or {}).get("op", "op"),
                _iv(m["ops_per_unit"]), row.work,
                _iv(m["amplification"]), _iv(m["curvature"]),
                m["metric_what"], m["metric_why"], row.winner,
                ratio_iv(m.get("candidate")), measured_iv(e2e),
                (m.get("check") or {}).get("words", "not checked")))
    o = m.get("other")
    if o and o.get("candidate"):
        text += "; on %s it would be %s (not this machine's: %s)" % (
            o["metric_what"], ratio_iv(o["candidate"]), o["why_not"])
    return text

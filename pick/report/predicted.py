# -----------------------------------------------------------------------------
# pick/report/predicted.py
# -----------------------------------------------------------------------------
#
# REPORT.md's "Predict, then check" (document.py places it after the
# validation): per validation case, the model that turns the micro
# benchmark's cost per operation into a predicted end-to-end ratio (the
# baseline's share of the server's cost per unit, the exchange rate the
# positive controls measured, operations per unit, amplification,
# linearity), the candidate's prediction against the measured ratio (the
# check: consistent, inconsistent or uninformative, with its tally), the
# micro metric that applies on this machine, every implementation's
# prediction, and "Where it would matter": the load map's sentence, its
# check and grid per component. read/predictions.py reads the keys; a file
# written before them gets one line saying how to rerun.

from __future__ import annotations

from typing import Any, Optional

from pick.read import predictions
from pick.margin import Standing, short, standing
from pick.report.tables import md_table, ns
from pick.read.predictions import Interval
from pick.records import ValidationRow

HEADING = ("## Predict, then check: why a micro winner does or does not "
           "matter end to end")
NOT_IN_FILE = "Not in this file; rerun `%s`." % predictions.RERUN


def predict_section(pp: Any) -> list[str]:
    """The section's Markdown lines; never raises on a malformed file."""
    lines = [HEADING, ""]
    models, lm = predictions.has_models(pp), predictions.loadmap(pp)
    if not models and lm is None:
        lines.append(NOT_IN_FILE)
        return lines
    if models:
        lines += _models(predictions.rows(pp))
    else:
        lines.append("Predictions per case: " + NOT_IN_FILE)
    lines += ["", "### Where it would matter", ""]
    lines += _loadmap(lm) if lm is not None else [NOT_IN_FILE]
    return lines


def ratio(iv: Optional[Interval]) -> str:
    """'1.012x [1.004, 1.020]'; '-' without an interval."""
    return "-" if iv is None else "%.3fx [%.3f, %.3f]" % iv


def _plain(iv: Optional[Interval]) -> str:
    return "-" if iv is None else "%.3g [%.3g, %.3g]" % iv


def _percent(iv: Optional[Interval]) -> str:
    return "-" if iv is None else "%.3g%% [%.3g, %.3g]" % tuple(
        100 * x for x in iv)


def _measured(e: Any) -> str:
    """A measured comparison: '1.010x [1.001, 1.019] p 0.03, n 12'."""
    iv = predictions.interval(e, "ratio")
    if iv is None:
        return "-"
    e = predictions.mapping(e)
    p, n = predictions.number(e.get("p")), predictions.number(e.get("n"))
    return ratio(iv) + ("" if p is None else " p %.2g" % p) + (
        "" if n is None else ", n %d" % n)


def _linearity(iv: Optional[Interval]) -> str:
    if iv is None:
        return "-"
    return _plain(iv) + (": linear" if iv.low <= 1 <= iv.high
                         else ": not linear")


def _candidate(row: ValidationRow, m: dict[str, Any]) -> str:
    c = predictions.mapping(m.get("candidate"))
    iv = predictions.interval(c)
    if iv is None:
        return "-"
    return "`%s` %s (%s)" % (predictions.text(row.winner, "?"),
                             ratio(iv),
                             predictions.text(c.get("source"), "?"))


# The check's outcomes (validation/check.py), in the tally's order.
OUTCOMES = ("consistent", "inconsistent", "uninformative")


def _outcome(c: Any) -> Optional[str]:
    """A check's outcome; None for a file written before the outcomes
    (its "holds" came from the rule they replaced) or a malformed one."""
    o = predictions.mapping(c).get("outcome")
    return o if o in OUTCOMES else None


def _old(c: dict[str, Any]) -> str:
    """An older file's check: its words, or holds / missed, marked."""
    return predictions.text(c.get("words"),
                            "holds" if c["holds"] else "missed") + \
        " (the replaced interval rule; rerun for the joint check)"


def _check(row: ValidationRow, m: dict[str, Any]) -> str:
    c = m.get("check")
    if isinstance(c, dict):
        if _outcome(c) is None and isinstance(c.get("holds"), bool):
            return _old(c)
        if predictions.text(c.get("words")):
            return str(c["words"])
        if _outcome(c):
            return str(c["outcome"])
    if predictions.interval(m.get("candidate")) is None:
        return "not checked: no prediction for the candidate"
    return "not checked: no measured interval"


def _unit(row: ValidationRow) -> str:
    return predictions.text(row.work, "unit")


def _model_row(row: ValidationRow) -> list[str]:
    head = [predictions.text(row.component, "?"),
            predictions.text(row.case, "?")]
    measured = _measured(row.e2e)
    m = predictions.model(row)
    if m is None:
        note = predictions.text(row.model_note, "no model in this row")
        return head + ["-"] * 6 + ["-", measured, "no prediction: " + note]
    what = predictions.text(m.get("metric_what"),
                            predictions.text(m.get("metric"), "?"))
    src = predictions.text(m.get("micro_from"))
    cost = predictions.interval(m.get("cost_ns_per_unit"))
    share = _percent(predictions.interval(m.get("share")))
    if cost is not None:
        share += " of %s ns per %s" % (ns(cost.est), _unit(row))
    op = predictions.text(
        predictions.mapping(row.control_cost).get("op"), "op")
    ops = predictions.interval(m.get("ops_per_unit"))
    return head + [
        what + (" (%s)" % src if src else ""),
        "`%s`: %s" % (predictions.text(row.baseline, "?"), share),
        _plain(predictions.interval(m.get("exchange_rate"))),
        "-" if ops is None else "%s %s per %s" % (_plain(ops), op,
                                                  _unit(row)),
        _plain(predictions.interval(m.get("amplification"))),
        _linearity(predictions.interval(m.get("curvature"))),
        _candidate(row, m), measured, _check(row, m)]


MODEL_HEAD = ["component", "case", "micro metric (costs from)",
              "baseline's share of the server's cost per unit",
              "exchange rate k", "ops per unit n", "amplification k/n",
              "linearity", "predicted candidate (source)",
              "measured end to end", "check"]


def _models(rows: list[ValidationRow]) -> list[str]:
    lines = [
        "The model: the server's cost per unit of work is C = C0 + k c, "
        "with c the component's cost per operation and k the exchange "
        "rate, the slope of C on the ns per operation the positive "
        "controls inject. With n operations per unit, amplification k/n "
        "(1: a ns in the component costs the server one; above 1 "
        "contention multiplies it; below 1 it hides in idle time), the "
        "baseline's share k c_base / C, and implementation x predicted at "
        "C / (C + k (c_x - c_base)) over the baseline (> 1 better), c_x its "
        "micro cost. Linearity: the rise at the larger control over what "
        "the smaller predicts (1: linear). The check compares the measured "
        "and the predicted ratio from one joint resampling of the "
        "validation's and the micro benchmark's rounds: log(measured / "
        "predicted) and the transfer factor γ = (1/measured − 1) / "
        "(1/predicted − 1), how many times the server's cost difference "
        "exceeds the micro one. Consistent: the measured ratio within ±m of "
        "the prediction, or γ's 95% interval holding 1 inside 1/2 to 2; "
        "inconsistent: γ's interval excludes 1 (it names the micro metric "
        "that failed); uninformative: anything else, as a small share "
        "gives. Only consistent counts as holding.", ""]
    lines += _tally(rows)
    lines.append(md_table(MODEL_HEAD, [_model_row(r) for r in rows]))
    how = sorted({predictions.text(m.get("interval"))
                  for m in map(predictions.model, rows)
                  if m is not None and predictions.text(m.get("interval"))})
    if how:
        lines += ["", "Intervals: %s." % "; ".join(how)]
    lines += _other_lines(rows)
    table = _predicted_table(rows)
    if table:
        lines += ["", "Every implementation's predicted ratio over the "
                  "baseline, best first (source: `confirm`, the "
                  "confirmation's micro costs; `sweep`, the sweep's):", "",
                  table]
    return lines


def _tally(rows: list[ValidationRow]) -> list[str]:
    """'**Checks: 3 consistent, 1 inconsistent, 2 uninformative** ...'
    over the rows that were checked."""
    checks = [predictions.mapping(m.get("check"))
              for m in map(predictions.model, rows) if m is not None]
    outs = [o for o in map(_outcome, checks) if o]
    old = sum(1 for c in checks
              if not _outcome(c) and isinstance(c.get("holds"), bool))
    if not outs and not old:
        return []
    line = "**Checks: %s** (only consistent counts as holding)." % ", ".join(
        "%d %s" % (outs.count(o), o) for o in OUTCOMES)
    if old:
        line += " %d checked by the replaced interval rule: rerun `%s`." % (
            old, predictions.RERUN)
    return [line, ""]


def _other_lines(rows: list[ValidationRow]) -> list[str]:
    """For a row with a second micro metric (the logger's), which one
    applies on this machine and what the other would have predicted."""
    out = []
    for r in rows:
        m = predictions.model(r)
        o = predictions.mapping(m.get("other")) if m else {}
        if not m or not o:
            continue
        cand = predictions.interval(o.get("candidate"))
        out.append(
            "- %s/%s: on this machine the micro metric is %s (%s); on %s "
            "(%s) the candidate `%s` would %s." % (
                predictions.text(r.component, "?"),
                predictions.text(r.case, "?"),
                predictions.text(m.get("metric_what"), "?"),
                predictions.text(m.get("metric_why"), "no reason given"),
                predictions.text(o.get("metric_what"),
                                 predictions.text(o.get("metric"), "?")),
                predictions.text(o.get("why_not"), "no reason given"),
                predictions.text(r.winner, "?"),
                "be predicted at %s" % ratio(cand) if cand
                else "have no prediction"))
    return ["", "Which micro metric applies:", ""] + out if out else []


def _predicted_table(rows: list[ValidationRow]) -> Optional[str]:
    body = []
    for r in rows:
        m = predictions.model(r)
        for name, iv, src, micro in predictions.predicted(m) if m else []:
            mark = " (candidate)" if name == r.winner else \
                " (baseline)" if name == r.baseline else ""
            body.append([predictions.text(r.component, "?"),
                         predictions.text(r.case, "?"),
                         "`%s`%s" % (name, mark), ratio(iv),
                         "-" if micro is None else ns(micro), src])
    if not body:
        return None
    return md_table(["component", "case", "implementation",
                     "predicted over the baseline", "micro ns per op",
                     "source"], body)


def _loadmap(lm: dict[str, Any]) -> list[str]:
    m = predictions.margin(lm)
    grid = predictions.mapping(lm.get("grid"))

    def listed(key: str) -> str:
        v = grid.get(key)
        return ", ".join(str(x) for x in v) if isinstance(v, list) else "?"
    frac = predictions.number(lm.get("fraction"))
    lines = [
        "The model fitted at every load of a grid, on %s cores: sessions "
        "%s, blocks of %s bytes, %s loop(s); each point %s rounds of %s s "
        "(the baseline and a positive control%s). The predicted ratio is "
        "the candidate's over the baseline; its standing reads its "
        "interval against the margin m = %g%%." % (
            lm.get("cores", "?"), listed("sessions"), listed("block"),
            listed("loops"), lm.get("rounds", "?"), lm.get("seconds", "?"),
            "" if frac is None else ", control fraction %g%%" % (100 * frac),
            round(100 * m, 2))]
    comps = predictions.components(lm)
    if not comps:
        return lines + ["", "No component in the load map."]
    for name, c in comps:
        lines += ["", "- **%s** (`%s` vs `%s`; %s): %s %s" % (
            name, predictions.text(c.get("candidate"), "?"),
            predictions.text(c.get("baseline"), "?"),
            predictions.text(c.get("workload"), "workload not given"),
            predictions.text(c.get("sentence"),
                             "no sentence.").rstrip(".") + ".",
            _loadmap_check(c.get("check")))]
        table = _grid_table(c, m)
        if table:
            lines += ["", table]
    full = sorted({name for name, c in comps for pt in predictions.points(c)
                   if (predictions.interval(pt.get("share")) or (0.0, 0,
                                                                 0))[0] > 1})
    if full:
        lines += ["", OVER_FULL % ", ".join(full)]
    return lines


# Why a share can pass 100% (docs/methods.md, "Predict, then check").
OVER_FULL = (
    "A share above 100%% (%s) says the micro operation, as measured, costs "
    "more than the server's whole unit of work at that load: the micro "
    "benchmark includes work the server does not do there. The "
    "predictions rest only on the difference between implementations.")


def _where(c: dict[str, Any]) -> str:
    # Block 0: a point without a message size (the pool's HTTP points).
    size = "" if c.get("block") == 0 else "%s-byte blocks, " % c.get(
        "block", "?")
    return "%s sessions, %s%s loop(s)" % (c.get("sessions", "?"), size,
                                          c.get("loops", "?"))


def _loadmap_check(c: Any) -> str:
    if not isinstance(c, dict):
        return "Not checked end to end."
    pred = predictions.interval(c.get("predicted"))
    words = predictions.text(c.get("words"))
    if _outcome(c) is None and isinstance(c.get("holds"), bool):
        words = _old(c)
    words = words or predictions.text(_outcome(c))
    if predictions.interval(c.get("measured"), "ratio") is None:
        # The writer says why ("not checked: ..."): no measured interval.
        return "Where the predicted effect is largest (%s, predicted %s): " \
            "%s." % (_where(c), ratio(pred), words or "not checked")
    weak = " (the control was not detected)" \
        if c.get("control_detected") is False else ""
    return ("Checked where the predicted effect is largest (%s): "
            "predicted %s, measured %s: %s%s." % (
                _where(c), ratio(pred), _measured(c.get("measured")),
                words or "no verdict", weak))


def _standing(p: dict[str, Any], m: float) -> str:
    """The point's standing in margin.py's short words; computed from the
    predicted interval when the file gives none."""
    s = p.get("standing")
    if isinstance(s, str) and s:
        try:
            return short(Standing(s), m)
        except ValueError:
            return s
    iv = predictions.interval(p.get("predicted"))
    return "-" if iv is None else short(standing(iv.low, iv.high, m), m)


def _grid_table(c: dict[str, Any], m: float) -> Optional[str]:
    body = []
    for p in predictions.points(c):
        flags = [f for f, key in (("oversubscribed", "oversubscribed"),
                                  ("client-bound", "client_bound"))
                 if p.get(key) is True]
        if predictions.text(p.get("error")):
            flags.append("error: " + p["error"])
        body.append([str(p["sessions"]), str(p["block"]), str(p["loops"]),
                     _percent(predictions.interval(p.get("share"))),
                     ratio(predictions.interval(p.get("predicted"))),
                     _standing(p, m), ", ".join(flags) or "-"])
    if not body:
        return None
    return md_table(["sessions", "block", "loops", "baseline's share",
                     "predicted", "standing", "flags"], body)

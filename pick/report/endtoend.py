# -----------------------------------------------------------------------------
# pick/report/endtoend.py
# -----------------------------------------------------------------------------
#
# REPORT.md's "## Validation" section (document.py places it after the
# servers' latency): whether the micro-benchmark winners of the reactor
# policy held end to end, case by case, and how the validation decided
# (read/validation_rows.py reads pingpong.json's "validation").

from __future__ import annotations

from typing import Any, Optional

from pick.report.tables import md_table
from pick.decide.stats import fmt_ratio
from pick.read.validation_rows import validation_problem, validation_summary
from pick.records import PingpongDoc, ValidationRow


def validation_section(pp: Optional[PingpongDoc]) -> list[str]:
    summary, entries = validation_summary(pp)
    lines = ["## Validation: does the choice matter end to end?", ""]
    problem = validation_problem(pp)
    if problem is not None:
        lines.append("Validation unreadable: %s." % problem)
        return lines
    if not entries or pp is None:
        lines.append("Validation not run: results/pingpong.json has no "
                     "\"validation\" key. `bazel run -c opt //bench:pingpong` "
                     "runs our server with the policy in results/winners.json "
                     "(\"reactor\") against the baseline policy.")
        return lines
    lines.append("**%s.**" % (summary[0].upper() + summary[1:]))
    lines.append("")
    head = ["component", "case", "question", "baseline -> candidate",
            "micro ratio", "candidate end to end", "control end to end",
            "control cost per op (injected, measured)", "rounds",
            "MDE (upper)", "metric", "verdict"]
    rows = []
    for e in entries:
        rows.append([
            e.component, e.case, _question(e),
            "%s -> %s" % (e.baseline or "?", e.winner or "?"),
            _ratio(e.micro_ratio), _comparison(e.e2e, e.e2e_ratio),
            _comparison(e.control_e2e, None), _cost(e),
            "%d (%s)" % (len(e.rounds), e.stop or "-") if e.rounds else "-",
            "%.1f%%" % (100 * e.mde) if isinstance(e.mde, (int, float))
            else "-", _metric(e), e.verdict or "-"])
    lines.append(md_table(head, rows))
    v = pp.get("validation")
    if not isinstance(v, dict):
        v = {}
    lines.append("")
    band = _band(v.get("margin"))
    lines.append(
        "Each case runs the baseline, the candidate and a positive control "
        "(the baseline slowed by a stated CPU cost per operation, sized to "
        "%s of the server CPU per operation of the case's first baseline "
        "run), and the control at twice that cost for the prediction "
        "below, in rounds, each round the four in the next order of a "
        "Williams design (each right after each other once), %s s per "
        "run: at least %s rounds, then more until the candidate's interval "
        "is narrow enough to decide equivalence within ±%s (high/low at "
        "most (1+m)^2, from %s rounds) and the control is detected, or the "
        "time budget (%s s) is spent. The candidate is the "
        "micro pick, or, where the pick kept the baseline, the best "
        "alternative: does leaving the baseline matter? End to end: the "
        "Hodges-Lehmann estimate of the per-round ratios to the baseline, "
        "oriented so > 1 is better, [exact 95%% interval], exact "
        "signed-rank p. The metric is the throughput where the server had "
        "its own cores and the client stayed below its ceiling, else the "
        "server's CPU per unit of work (then \"held\" means cheaper, not "
        "faster). A verdict is given only when the rounds detected the "
        "control (otherwise \"instrument too weak\"), from the candidate's "
        "interval against the margin m = %s: held or refuted, the interval "
        "above or below 1 (p < %s); equivalent, inside ±%s; not told "
        "apart, anything else (no evidence either way). MDE (upper): the "
        "smallest change the rounds detect with 80%% power at the spread's "
        "upper 95%% bound, simulated for the exact test at that number of "
        "rounds." % (
            _pct(v.get("control_fraction")), v.get("seconds_per_run", "?"),
            v.get("min_rounds", "?"), band,
            v.get("min_target_rounds", "?"), v.get("budget_s", "?"), band,
            v.get("alpha", 0.05), band))
    for n in v.get("notes", []) or []:
        lines.append("")
        lines.append("Note: %s" % n)
    return lines


def _pct(x: Any) -> str:
    return "%.0f%%" % (100 * x) if isinstance(x, (int, float)) and \
        not isinstance(x, bool) else "?"


def _band(m: Any) -> str:
    """The margin as a percentage, '5%'; '?' in a file without one."""
    return "%g%%" % round(100 * m, 2) if isinstance(m, (int, float)) and \
        not isinstance(m, bool) else "?"


def _question(e: ValidationRow) -> str:
    q = e.question
    if e.origin == "default" or q == "default":
        return "default pair, not a micro pick"
    return {"pick": "micro pick", "alternative": "best alternative (pick "
            "kept the baseline)"}.get(str(q), "-")


def _metric(e: ValidationRow) -> str:
    return e.metric_kind or "-"


def _cost(e: ValidationRow) -> str:
    c = e.control_cost
    if not isinstance(c, dict) or not isinstance(
            c.get("injected_ns"), (int, float)):
        return "-"
    m = c.get("measured_ns")
    return "%.0f ns per %s, %s" % (
        c["injected_ns"], c.get("op", "op"),
        "%.0f ns" % m if isinstance(m, (int, float)) else "n/a")


def _ratio(x: Any) -> str:
    return fmt_ratio(float(x)) if isinstance(x, (int, float)) and \
        not isinstance(x, bool) else "-"


def _comparison(c: Any, ratio: Any) -> str:
    """"1.05x [1.02, 1.08] p 0.008" from a row's comparison dict; the bare
    ratio when the row has none (an older file)."""
    if isinstance(c, dict) and all(isinstance(c.get(k), (int, float))
                                   for k in ("ratio", "low", "high", "p")):
        return "%s [%.2f, %.2f] p %.2g" % (fmt_ratio(c["ratio"]), c["low"],
                                           c["high"], c["p"])
    return _ratio(ratio)

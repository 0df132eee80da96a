# -----------------------------------------------------------------------------
# validation/report.py
# -----------------------------------------------------------------------------
#
# The ping-pong validation's words (run.py runs it): the one sentence
# per row that a report can quote, and the verdict table printed after the
# runs, with its legend, the sentences and the notes.

from __future__ import annotations

import math
import sys
from typing import IO, Any, Optional

from pick.decide import paired
from pick.records import ValidationRow
from validation.cases import MARGIN, Outcome
from validation.predict import model_sentence


def fmt_micro(x: Optional[float]) -> str:
    return "n/a" if x is None else "%.2fx" % x


def fmt_cmp(c: Optional[dict[str, float]]) -> str:
    """A paired comparison as "1.200x [1.15, 1.24] p 0.008"."""
    if not c:
        return "-"
    return "%.3fx [%s, %s] p %.2g" % (c["ratio"], _end(c.get("low")),
                                      _end(c.get("high")), c["p"])


def _end(x: Optional[float]) -> str:
    """An interval's end; "-" for one the rounds cannot bound."""
    return "-" if x is None or not math.isfinite(x) else "%.2f" % x


def fmt_mde(m: Optional[float]) -> str:
    """The MDE at the spread's upper 95% bound (the column says so)."""
    return "n/a" if m is None else "%.1f%%" % (100 * m)


def _band(m: float) -> str:
    return "%g%%" % round(100 * m, 2)


def fmt_cost(row: ValidationRow) -> str:
    """The control's cost per operation: injected, and as measured."""
    c = row.control_cost
    if not c:
        return "-"
    measured = c.get("measured_ns")
    return "%s ns/%s, measured %s" % (
        _ns(c["injected_ns"]), c["op"].split()[0],
        "n/a" if measured is None else _ns(measured))


def _ns(x: float) -> str:
    return "%.3g" % x if abs(x) < 1000 else "%.0f" % x


def sentence(row: ValidationRow) -> str:
    """One line a report can quote."""
    comp, e = row.component, row
    if e.outcome == Outcome.NOTHING_TO_VALIDATE.value:
        return ("%s: no implementation but the baseline %s to run; nothing "
                "to validate" % (comp, e.baseline))
    if e.e2e_ratio is None:
        return "%s: %s vs %s (%s) did not run: %s" % (
            comp, e.winner, e.baseline, e.case, e.error or "")
    if e.micro_ratio is not None:
        where = "; ".join(x for x in (e.micro_metric, e.micro_source) if x)
        micro = "%s's %s over %s in the micro sweep%s" % (
            e.winner, fmt_micro(e.micro_ratio), e.baseline,
            " (%s)" % where if where else "")
    else:
        micro = "%s against %s (no micro ratio)" % (e.winner, e.baseline)
    cost = e.control_cost or {}
    # The reason carries each side's lag-1 autocorrelation (decide.py).
    blocks = " in %d blocks" % e.blocks if e.blocks > 1 else ""
    return ("%s (%s): %s came out %s end to end on %s over %d rounds%s (%s; "
            "%s; control %s, %s ns per %s injected, %s measured: %s): %s; %s"
            % (comp, e.question_text, micro, fmt_cmp(e.e2e),
               e.metric_kind, len(e.rounds), blocks, e.mode,
               e.metric_why, e.control,
               _ns(cost.get("injected_ns", math.nan)), cost.get("op", "op"),
               "n/a" if cost.get("measured_ns") is None
               else _ns(cost["measured_ns"]),
               fmt_cmp(e.control_e2e), e.verdict, e.reason))


HEAD = ["component", "case", "question", "baseline -> candidate", "micro",
        "candidate e2e", "control e2e", "control cost", "rounds",
        "MDE (upper)", "metric", "verdict"]


def _metric(kind: Any) -> str:
    """The metric column: cpu, tput (throughput) or lat (latency)."""
    if not isinstance(kind, str) or not kind:
        return "-"
    return "cpu" if kind.startswith("server CPU") else \
        "lat" if kind.startswith("latency") else "tput"


def table_row(r: ValidationRow) -> list[str]:
    """One row of the verdict table, cell by cell."""
    return [r.component, r.case, r.question,
            "%s -> %s" % (r.baseline, r.winner),
            fmt_micro(r.micro_ratio), fmt_cmp(r.e2e),
            fmt_cmp(r.control_e2e), fmt_cost(r),
            "%d (%s)" % (len(r.rounds), r.stop or "-")
            if r.case != "-" else "-",
            fmt_mde(r.mde),
            _metric(r.metric_kind),
            (r.verdict or "-") + (" [default pair]"
                                  if r.origin == "default" else "")]


LEGEND = (
    "  question: pick (the micro pick against the baseline), alternative "
    "(the pick kept the baseline: its best alternative against it), "
    "default (default pair, not a micro pick)\n"
    "  micro: candidate/baseline as bench:pick reports it (n/a: none "
    "given)\n"
    "  e2e: per-round paired ratio to the baseline, oriented so > 1 is "
    "better: Hodges-Lehmann estimate [95%% interval: the exact one "
    "widened for the rounds' lag-1 autocorrelation and the spread between "
    "the blocks], the rounds' exact signed-rank p; metric tput: "
    "throughput, lat: the chat round's time "
    "(both with the server on its own cores), "
    "cpu: the server's CPU per unit of work (lower is better; cores shared "
    "or the client at its ceiling)\n"
    "  control: the baseline slowed by the injected CPU cost per operation "
    "(sized to %.0f%% of the first baseline run's; a second control at "
    "twice the cost gives the prediction's slope), measured: its server "
    "CPU per operation less the baseline's, median over the rounds\n"
    "  given that the rounds told the control apart: held / refuted: the "
    "candidate's interval above / below 1 (alpha %.2f); equivalent: its "
    "90%% interval inside ±%s (1/(1+m) to 1+m: TOST); not told apart: "
    "anything else, or the blocks disagree; instrument too "
    "weak: the rounds did not tell the control apart\n"
    "  rounds (stop): target (the candidate's 90%% interval narrow enough "
    "for TOST, high/low <= 1+m, from %d rounds, and the "
    "control detected), budget, max_rounds, error; "
    "MDE (upper): the MDE at the spread's upper 95%% bound, the smallest "
    "change the rounds detect with 80%% power (simulated for the exact "
    "test at that n)")


def table_lines(result: dict[str, Any]) -> list[str]:
    """The verdict table, its legend, the sentences and the notes."""
    table = [table_row(r) for r in result["rows"]]
    widths = [max(len(x[i]) for x in [HEAD] + table)
              for i in range(len(HEAD))]
    lines = ["\nvalidation verdicts (candidates from %s; rounds of "
             "baseline, candidate and two controls, %.1f s per run, %d to %d "
             "rounds, margin ±%s)" % (
                 result["winners"], result["seconds_per_run"],
                 result["min_rounds"], result["max_rounds"],
                 _band(result.get("margin", MARGIN)))]
    lines.append("  ".join(h.ljust(w) for h, w in zip(HEAD, widths)).rstrip())
    for x in table:
        lines.append("  ".join(c.ljust(w) for c, w in zip(x, widths)).rstrip())
    for r in result["rows"]:
        if r.mode != "-":
            lines.append("  %s/%s: %s" % (r.component, r.case, r.mode))
    lines.append(LEGEND % (100 * result.get("control_fraction", 0.1),
                           result.get("alpha", 0.05),
                           _band(result.get("margin", MARGIN)),
                           result.get("min_target_rounds", 0)))
    if result["max_rounds"] < paired.min_rounds():
        lines.append("  %d round(s): the exact signed-rank test cannot reach "
                     "p < 0.05 with so few; these verdicts check the "
                     "plumbing, not the components" % result["max_rounds"])
    for r in result["rows"]:
        lines.append("verdict: %s" % r.sentence)
    for r in result["rows"]:
        # A row the model was tried on: a model, or why there is none.
        if r.case != "-" and (r.model is not None or r.model_note):
            lines.append("prediction: " + model_sentence(r))
    for n in result["notes"]:
        lines.append("note: " + n)
    return lines


def print_table(result: dict[str, Any], out: IO[str] = sys.stdout) -> None:
    for line in table_lines(result):
        print(line, file=out)
    out.flush()

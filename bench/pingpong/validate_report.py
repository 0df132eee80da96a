# -----------------------------------------------------------------------------
# bench/pingpong/validate_report.py
# -----------------------------------------------------------------------------
#
# The ping-pong validation's words (validate.py runs it): the one sentence
# per row that a report can quote, and the verdict table printed after the
# runs, with its legend, the sentences and the notes.

from __future__ import annotations

import sys
from typing import IO, Any, Optional

from validate_cases import Outcome

Row = dict[str, Any]


def fmt_micro(x: Optional[float]) -> str:
    return "n/a" if x is None else "%.2fx" % x


def fmt_cmp(c: Optional[dict[str, float]]) -> str:
    """A comparison as "1.200x [1.15, 1.24] p 0.008"."""
    if not c:
        return "-"
    return "%.3fx [%.2f, %.2f] p %.2g" % (c["ratio"], c["low"], c["high"],
                                          c["p"])


def fmt_mde(m: Optional[float]) -> str:
    return "n/a" if m is None else "%.1f%%" % (100 * m)


def sentence(row: Row) -> str:
    """One line a report can quote."""
    comp, e = row["component"], row
    if e["outcome"] == Outcome.NOTHING_TO_VALIDATE.value:
        return "%s: %s is both winner and baseline; nothing to validate" % (
            comp, e["winner"])
    if e["e2e_ratio"] is None:
        return "%s: %s vs %s (%s) did not run: %s" % (
            comp, e["winner"], e["baseline"], e["case"], e.get("error", ""))
    if e["micro_ratio"] is not None:
        where = "; ".join(x for x in (e.get("micro_metric"),
                                      e["micro_source"]) if x)
        micro = "%s's %s over %s in the micro sweep%s" % (
            e["winner"], fmt_micro(e["micro_ratio"]), e["baseline"],
            " (%s)" % where if where else "")
    else:
        micro = "%s against %s (no micro ratio)" % (
            e["winner"], e["baseline"])
    return ("%s: %s came out %s end to end (%s, %s; control %s: %s): %s; %s"
            % (comp, micro, fmt_cmp(e["e2e"]), e["metric_used"], e["mode"],
               e["control"], fmt_cmp(e["control_e2e"]), e["verdict"],
               e["reason"]))


HEAD = ["component", "case", "baseline -> winner", "micro", "winner e2e",
        "control (micro)", "control e2e", "MDE", "verdict"]


def table_row(r: Row) -> list[str]:
    """One row of the verdict table, cell by cell."""
    e2e = fmt_cmp(r.get("e2e"))
    if r["client_bound"] and r.get("e2e"):
        e2e += " c"
    return [r["component"], r["case"],
            "%s -> %s" % (r["baseline"], r["winner"]),
            fmt_micro(r["micro_ratio"]), e2e,
            "%s (%s)" % (r["control"],
                         fmt_micro(r.get("control_micro_ratio"))),
            fmt_cmp(r.get("control_e2e")), fmt_mde(r.get("mde")),
            r["verdict"] + (" [default]" if r["origin"] == "default"
                            else "")]


LEGEND = (
    "  micro: winner/baseline as bench:pick reports it for its benchmark "
    "group (n/a: none given); control (micro): the positive control and "
    "its own micro ratio\n"
    "  e2e: median / median of the baseline, oriented so > 1 is better "
    "(MiB/s, or the server's CPU per MiB where the client was at its "
    "ceiling: c), [bootstrap 95%% interval], two-sided U-test p\n"
    "  held / no difference / refuted: the winner better / not told apart "
    "/ worse at p < %.2f, given that the run told the control apart;\n"
    "  instrument too weak: it did not (no verdict on the winner); MDE: "
    "the smallest change this case's runs could detect (80%% power)\n"
    "  [default]: the pair came from the defaults, not winners.json")


def table_lines(result: dict[str, Any]) -> list[str]:
    """The verdict table, its legend, the sentences and the notes."""
    table = [table_row(r) for r in result["rows"]]
    widths = [max(len(x[i]) for x in [HEAD] + table)
              for i in range(len(HEAD))]
    lines = ["\nvalidation verdicts (winners from %s; %d repetition(s) of "
             "baseline, winner and control, %.1f s per run)" % (
                 result["winners"], result["repetitions"],
                 result["seconds_per_run"])]
    lines.append("  ".join(h.ljust(w) for h, w in zip(HEAD, widths)).rstrip())
    for x in table:
        lines.append("  ".join(c.ljust(w) for c, w in zip(x, widths)).rstrip())
    for r in result["rows"]:
        if r["mode"] != "-":
            lines.append("  %s/%s: %s" % (r["component"], r["case"],
                                          r["mode"]))
    lines.append(LEGEND % result.get("alpha", 0.05))
    if result["repetitions"] < 4:
        lines.append("  %d repetition(s): the exact U-test cannot reach p < "
                     "0.05 with so few runs; these verdicts check the "
                     "plumbing, not the components" % result["repetitions"])
    for r in result["rows"]:
        lines.append("verdict: " + r["sentence"])
    for n in result["notes"]:
        lines.append("note: " + n)
    return lines


def print_table(result: dict[str, Any], out: IO[str] = sys.stdout) -> None:
    for line in table_lines(result):
        print(line, file=out)
    out.flush()

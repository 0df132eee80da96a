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

from validate_cases import NOISE_FLOOR, Outcome

Row = dict[str, Any]


def fmt_micro(x: Optional[float]) -> str:
    return "n/a" if x is None else "%.2fx" % x


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
    return ("%s: %s became %+.1f%% ping-pong %s, %s (noise +-%.1f%%): %s" % (
        comp, micro, (e["e2e_ratio"] - 1) * 100, e["unit"], e["mode"],
        e["noise"] * 100, e["verdict"]))


HEAD = ["component", "case", "baseline -> winner", "micro ratio",
        "e2e ratio (noise)", "baseline", "winner", "cpu ratio", "verdict"]


def table_row(r: Row) -> list[str]:
    """One row of the verdict table, cell by cell."""
    if r["e2e_ratio"] is not None:
        e2e = "%.3fx (+-%.1f%%)" % (r["e2e_ratio"], r["noise"] * 100)
        bm = "%.1f" % r["baseline_median"]
        wm = "%.1f" % r["winner_median"]
        if r["client_bound"]:
            e2e += " c"
    else:
        e2e = bm = wm = "-"
    cpu = "-" if r.get("cpu_ratio") is None else "%.3fx" % r["cpu_ratio"]
    return [r["component"], r["case"],
            "%s -> %s" % (r["baseline"], r["winner"]),
            fmt_micro(r["micro_ratio"]), e2e, bm, wm, cpu,
            r["verdict"] + (" [default]" if r["origin"] == "default"
                            else "")]


LEGEND = (
    "  micro ratio: winner/baseline as bench:pick reports it for its "
    "benchmark group (n/a: none given)\n"
    "  e2e ratio: median winner / median baseline throughput, >1 = "
    "winner faster; noise: half the range of the per-pair ratios, at "
    "least %.0f%%\n"
    "  cpu ratio: server CPU seconds per MiB (per message for the "
    "header protocol), winner / baseline medians, <1 = winner cheaper; "
    "it counts where the client sets the pace (c)\n"
    "  held / no difference / refuted: the winner faster / within noise "
    "/ slower end to end\n"
    "  [default]: the pair came from the defaults, not winners.json; "
    "c: the client used >= 90%% of its CPU in some run")


def table_lines(result: dict[str, Any]) -> list[str]:
    """The verdict table, its legend, the sentences and the notes."""
    table = [table_row(r) for r in result["rows"]]
    widths = [max(len(x[i]) for x in [HEAD] + table)
              for i in range(len(HEAD))]
    lines = ["\nvalidation verdicts (winners from %s; %d repetition(s), "
             "%.1f s per run): medians in MiB/s" % (
                 result["winners"], result["repetitions"],
                 result["seconds_per_run"])]
    lines.append("  ".join(h.ljust(w) for h, w in zip(HEAD, widths)).rstrip())
    for x in table:
        lines.append("  ".join(c.ljust(w) for c, w in zip(x, widths)).rstrip())
    for r in result["rows"]:
        if r["mode"] != "-":
            lines.append("  %s/%s: %s" % (r["component"], r["case"],
                                          r["mode"]))
    lines.append(LEGEND % (NOISE_FLOOR * 100))
    if result["repetitions"] < 2:
        lines.append("  1 repetition: the noise is the floor alone; these "
                     "verdicts check the plumbing, not the components")
    for r in result["rows"]:
        lines.append("verdict: " + r["sentence"])
    for n in result["notes"]:
        lines.append("note: " + n)
    return lines


def print_table(result: dict[str, Any], out: IO[str] = sys.stdout) -> None:
    for line in table_lines(result):
        print(line, file=out)
    out.flush()

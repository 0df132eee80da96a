# -----------------------------------------------------------------------------
# pick/report/tables.py
# -----------------------------------------------------------------------------
#
# The Markdown pieces REPORT.md is written with (report/document.py and its
# sections: families.py, pingpong.py, servers.py, ...): a table, how
# numbers, nanoseconds and coefficients of variation are printed in it, and
# the end-to-end drivers' paired summaries as a table, each interval with
# what it says against the driver's margin (pick/margin.py's words).

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from pick.margin import MARGIN, Standing, standing, words
from pick.decide.paired import MIN_ROUNDS, PairedRatio, fmt_interval
from pick.margin import short
from pick.decide.paired_rounds import over_baseline, rounds_text, test_text
from pick.decide.workloads import FAMILY_SPECS
from pick.decide.stats import fmt_ratio
from pick.records import ClassPick, PairedStats, Picked
from pick import records


def md_table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    esc = [[str(c).replace("|", "\\|") for c in r] for r in rows]
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in esc]
    return "\n".join(out)


def num(x: Optional[float], unit: str = "") -> str:
    """Three significant digits, k / M / G above a thousand (not for times
    or percentages)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    a = abs(x)
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= div and unit not in ("ns", "ms", "%", "us"):
            return "%.3g%s" % (x / div, suffix)
    return "%.3g" % x


def cv(c: Optional[float]) -> str:
    return "-" if c is None else "%.1f%%" % (100 * c)


def ns(x: Optional[float]) -> str:
    """Nanoseconds, whole above 100 (1500, not 1.5e+03)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return "%.0f" % x if abs(x) >= 100 else "%.3g" % x


# How a paired table's standing reads, for the sections' introductions.
STANDING_HOW = (
    "Each standing reads the interval against the run's margin m, with "
    "less CPU or time and more throughput as ahead: ahead by more than m "
    "(the interval's lower end beyond 1+m), ahead (above 1, with what the "
    "interval allows), equivalent within ±m (inside [1/(1+m), 1+m]), or "
    "not told apart; the interval covers this run's noise, one process.")


def paired_table(entries: Sequence[Any],
                 metrics: Sequence[tuple[str, str]]) -> Optional[str]:
    """A driver's paired summary ("paired" in pingpong.json, chat.json and
    http.json: a, b, metric, better, margin, and the statistics at every
    clean point and at the server-bound ones) as one table, metric by
    metric, each side followed by its standing; None without entries."""
    chosen = [(label, e) for key, label in metrics for e in entries
              if e.get("metric") == key]
    if not chosen:
        return None
    rows = [["%s/%s" % (e["a"], e["b"]), label, paired_cell(e["every"]),
             standing_cell(e, "every"), paired_cell(e["server_bound"]),
             standing_cell(e, "server_bound")] for label, e in chosen]
    margins = {_margin(e) for _, e in chosen}
    head = "standing" if len(margins) != 1 else \
        "standing at ±%g%%" % round(100 * margins.pop(), 2)
    return md_table(["A/B", "metric", "every clean point", head,
                     "server-bound points", head], rows)


def _margin(e: Any) -> float:
    m = e.get("margin")
    return float(m) if isinstance(m, (int, float)) and m > 0 else MARGIN


def inverse(x: Optional[float]) -> Optional[float]:
    """1 / x; None for None or x <= 0 (an unbounded end)."""
    return None if x is None or x <= 0 else 1.0 / x


def standing_cell(e: Any, side: str) -> str:
    """What e[side]'s interval says of A against B at e's margin, in
    pick.margin's words, turned so that ahead is better ("better":
    "lower" inverts it): 'serverkit ahead of asio by 2.0-6.1%'; 'no
    interval'; '-' for an entry written without "better"."""
    d = e.get(side)
    better = e.get("better")
    if not d or better not in ("lower", "higher"):
        return "-"
    if d.get("n", 0) < 6:   # as paired_cell: no interval below 6 ratios
        return "no interval"
    lo, hi = d.get("low"), d.get("high")
    if better == "lower":
        lo, hi = inverse(hi), inverse(lo)
    m = _margin(e)
    if standing(lo, hi, m) == Standing.UNKNOWN:
        return "no interval"
    return words(e["a"], e["b"], lo, hi, m)


def paired_cell(d: Any) -> str:
    """'0.97x [0.94, 1.00], p 0.061, n 48'; no interval below 6 ratios."""
    if not d or d.get("ratio") is None:
        return "-"
    if d.get("low") is None or d.get("high") is None or d.get("n", 0) < 6:
        return "%.2fx (n %d, no interval)" % (d["ratio"], d.get("n", 0))
    p = d.get("p")
    return "%.2fx [%.2f, %.2f], p %s, n %d" % (
        d["ratio"], d["low"], d["high"],
        "-" if p is None else "< 0.0001" if p < 0.0001 else "%.2g" % p,
        d["n"])


# The recommendation table (one row per family and workload class: the
# leader, margins, the answer in margin.py's words, and the paired rounds
# that decided it; "(leads a tie)" marks a leader that is not ahead),
# shared by pick's output (plain text, text_table()) and REPORT.md
# (Markdown, report/document.py), and the plain-text table that --compare
# and --repro print too. From paired rounds a margin is the median paired
# ratio with its interval ("1.32x [1.21, 1.45]"); from an older file the
# ratio of class scores.

HEADER = ["family", "workload class", "leader", "margin over runner-up",
          "margin over baseline", "answer", "rounds"]


def as_paired(d: Optional[PairedStats]) -> Optional[PairedRatio]:
    """A ClassPick's paired / baseline_paired as a PairedRatio; None."""
    if not d:
        return None
    return PairedRatio.from_dict(d)


def _paired_noise_cell(res: ClassPick, x: PairedRatio, margin: float) -> str:
    n = res.get("noise")
    where = "" if res.get("confirmed", True) else "; unconfirmed"
    if n in ("above", "within"):
        text = short(x.standing(margin), margin)
        if n == "above":
            text += ": adopted" if res.get("confirmed", True) and \
                over_baseline(res) else ": not adopted"
        return "%s (%s%s)" % (text, test_text(x), where)
    if n == "unknown":
        return "unknown (%d round%s; %d needed)" % (
            x.n, "" if x.n == 1 else "s", MIN_ROUNDS)
    if n == "split":
        return "split by host state"
    if n == "disagree":
        return "the processes disagree"
    return str(res.get("verdict") or "-")


def noise_cell(res: ClassPick, margin: float) -> str:
    """The "answer" column for one class's decision: from paired rounds,
    the standing of the leader over the runner-up against the margin
    (margin.short()); from an older file, the noise rule's verdict."""
    n = res.get("noise")
    x = as_paired(res.get("paired"))
    if x is not None:
        return _paired_noise_cell(res, x, margin)
    if n == "above":
        extra = []
        p_max, cv = res.get("p_max"), res.get("cv")
        if p_max is not None:
            extra.append("U-test p<=%.3f" % p_max)
        if cv is not None:
            extra.append("CV %.1f%%" % (100 * cv))
        return "yes" + (" (%s)" % ", ".join(extra) if extra else "")
    if n == "within":
        return "no: tie with %s" % res.get("runner_up")
    if n == "mixed":
        verdict: str = res["verdict"]
        return "partly: " + verdict.replace("larger than the noise in ", "")
    if n == "unknown":
        return "unknown (1 repetition)"
    if n == "drifted":
        return "host drifted: rerun"
    return res.get("verdict") or "-"


def recommendation_rows(picked: Picked) -> list[list[str]]:
    """The recommendation's rows (HEADER's columns) from winners.pick_all()."""
    rows = []
    margin = picked["min_margin"]
    for family in records.FAMILIES:
        fam = picked["families"][family]
        title = FAMILY_SPECS[family].title
        if fam["missing"]:
            rows.append([title, "-", "not measured (results/%s.json missing)"
                         % family, "-", "-", "-", "-"])
            continue
        for res in fam["classes"]:
            n_rounds = rounds_text(res) if res.get("group_keys") else "-"
            cls = res["cls"] + (" *" if res.get("oversubscribed") else "")
            if res.get("noise") == "drifted":
                detail = res["verdict"][len("host drifted: rerun "):]
                rows.append([title, cls, "host drifted: rerun", "-",
                             "-", detail, n_rounds])
                continue
            if res.get("noise") in ("split", "disagree", "inconsistent"):
                rows.append([title, cls, "none adopted: " +
                             res["verdict"], "-", "-",
                             noise_cell(res, margin), n_rounds])
                continue
            winner = res.get("winner")
            if winner is None:
                rows.append([title, cls, res["verdict"], "-", "-", "-",
                             n_rounds])
                continue
            vs_base = fmt_ratio(res.get("margin_over_baseline"))
            bp = as_paired(res.get("baseline_paired"))
            if bp is not None and bp.n:
                vs_base = fmt_interval(bp)
            if res["baseline"] is None:
                vs_base = "- (no baseline)"
            elif res["winner"] == res["baseline"]:
                vs_base = "(is the baseline)"
            elif res.get("margin_over_baseline") is not None:
                vs_base += " " + res["baseline"]
            else:
                vs_base = "- (%s not run)" % res["baseline"]
            if res.get("noise") == "unknown":
                winner += " (no verdict)"
            elif res.get("noise") != "above":
                winner += " (leads a tie)"
            runner = fmt_ratio(res.get("margin_over_runner_up"))
            x = as_paired(res.get("paired"))
            if x is not None and x.n:
                runner = fmt_interval(x)
            runner_up = res.get("runner_up")
            if runner_up:
                runner += " " + runner_up
            else:
                runner = "- (only one)"
            answer = noise_cell(res, margin)
            if res.get("confirm_note"):
                answer += "; confirmation not used: %s" % res["confirm_note"]
            if res.get("shape"):
                answer += "; measured at another shape than %s" % (
                    ", ".join(res["shape"]))
            rows.append([title, cls, winner, runner, vs_base, answer,
                         n_rounds])
    return rows


def text_table(rows: Sequence[Sequence[Any]],
               head: Sequence[str] = HEADER) -> str:
    """Columns padded to their widest cell, a dashed rule under the head."""
    widths = [max(len(str(r[i])) for r in [head, *rows])
              for i in range(len(head))]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(head, widths))]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    return "\n".join(ln.rstrip() for ln in lines)

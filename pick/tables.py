# -----------------------------------------------------------------------------
# pick/tables.py
# -----------------------------------------------------------------------------
#
# The recommendation table (one row per family and workload class: the
# leader, margins, the answer in margin.py's words, and the paired rounds
# that decided it; "(leads a tie)" marks a leader that is not ahead),
# shared by pick's output (plain text, text_table()) and REPORT.md
# (Markdown, report/document.py), and the plain-text table that --compare
# and --repro print too. From paired rounds a margin is the median paired
# ratio with its interval ("1.32x [1.21, 1.45]"); from an older file the
# ratio of class scores.

from __future__ import annotations

from typing import Any, Optional, Sequence

from pick import results as R
from pick.paired import MIN_ROUNDS, PairedRatio, fmt_interval
from pick.margin import short
from pick.rounds import over_baseline, rounds_text, test_text
from pick.spec import FAMILY_SPECS
from pick.stats import fmt_ratio
from pick.decisions import ClassPick, PairedStats, Picked

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
    for family in R.FAMILIES:
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

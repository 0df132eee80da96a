# -----------------------------------------------------------------------------
# pick/report/answer.py
# -----------------------------------------------------------------------------
#
# REPORT.md's first section, "What to put in your server": one line per
# component and server workload (server_answer.Answer), strongest evidence
# first, then where the load map says the choice changes. The micro
# recommendation table under it is the evidence this answer starts from.

from __future__ import annotations

from typing import Sequence

from pick.report.tables import md_table
from pick.decide.server_answer import BASES, COMPONENTS, WORKLOADS, Answer
from pick.records import Picked
from pick.decide.paired_rounds import CONFIRM_PROCESSES
from pick.decide.stats import MIN_MARGIN, fmt_ratio

HEADER = ["Component", "Server workload", "Put in", "Basis", "Why"]


def answer_rows(found: Sequence[Answer]) -> list[list[str]]:
    comp, wl = dict(COMPONENTS), dict(WORKLOADS)
    order = sorted(found, key=lambda a: (BASES.index(a.basis), [
        c for c, _ in COMPONENTS].index(a.component)))
    return [[comp.get(a.component, a.component),
             wl.get(a.workload, a.workload),
             "`%s`" % a.choice if a.choice else "-", a.basis, a.why]
            for a in order]


def answer_section(found: Sequence[Answer]) -> list[str]:
    L = ["## What to put in your server", ""]
    if not found:
        L += ["No answer: no reactor policy was picked (run the sweeps "
              "first).", ""]
        return L
    L.append("One line per component and workload on which the component "
             "sits, from the strongest evidence there is: measured end to "
             "end (the validation's verdict), else predicted where the "
             "model's check at that workload is consistent, else the micro "
             "sweep alone. A candidate refuted end to end at a workload is "
             "never put in for it.")
    L.append("")
    L.append(md_table(HEADER, answer_rows(found)))
    L.append("")
    loads = []
    for c, label in COMPONENTS:
        text = next((a.load for a in found
                     if a.component == c and a.load), None)
        if text:
            loads.append("- %s: %s." % (label, text))
    if loads:
        L += ["Where the load changes the answer (the validation's load "
              "map: 1 to 1000 sessions, predicted from each component's "
              "exchange rate; a micro pick the map predicts worse than its "
              "baseline by more than the margin is not put in):", ""] + \
            loads + [""]
    return L


# The words under REPORT.md's recommendation table (document.py places
# them): the reactor policy that winners.json hands the validation, and how
# to read the table's margins and answers, for paired rounds or for the
# older sweeps of independent repetitions (U-test and noise).

def reactor_line(picked: Picked) -> str:
    rx = picked["reactor"]
    parts = []
    for key, label in (("task_queue", "task queue"), ("buffer", "buffer"),
                       ("logger", "logger"), ("thread_pool", "thread pool")):
        e = rx.get(key)
        if not e:
            why = picked.get("reactor_missing", {}).get(key)
            if why:
                parts.append("%s not chosen (%s; the validation uses its "
                             "default)" % (label, why))
            continue
        if e.get("measured") is False:
            parts.append("%s `%s` (not measured: %s)" % (
                label, e["winner"], e.get("note", "")))
        elif e.get("adopted") is False:
            parts.append("%s `%s` (%s)" % (label, e["winner"], e["note"]))
        else:
            mp = e.get("micro_paired")
            ratio = ("%.2fx [%.2f, %.2f]" % (mp["ratio"], mp["lo"], mp["hi"])
                     if mp else fmt_ratio(e.get("micro_ratio")))
            parts.append("%s `%s` (%s %s, %s)" % (
                label, e["winner"], ratio, e["baseline"], e.get("source")))
    return ("**Reactor policy** (`winners.json`, \"reactor\"): " +
            "; ".join(parts) + ".")


def _how_to_read_paired(picked: Picked) -> str:
    """Paired rounds in six lines."""
    level = 100 * (1 - picked.get("alpha", 0.05))
    margin = 100 * picked.get("min_margin", MIN_MARGIN)
    return "\n".join([
        "How to read it (paired rounds):",
        "- A round runs every implementation of a group once, back to back "
        "in a fresh random order; a ratio within one round cancels whatever "
        "the host did for longer than the round.",
        "- The sweep's rounds choose each class's leader and runner-up; the "
        "margins come from fresh rounds of those two and the baseline in "
        "%d fresh processes (\"confirmation rounds\"), so that no margin "
        "is estimated on the rounds that chose it and every interval "
        "carries what differs from one process to the next." % (
            CONFIRM_PROCESSES),
        "- A margin is the mean over the processes of each one's median "
        "ratio, with its %.0f%% t interval over the processes, e.g. "
        "\"1.32x [1.21, 1.45]\" (a sweep alone: the rounds' median and "
        "sign-test interval). The answer is what the interval shows "
        "against the margin m = %g%%: ahead by more than m (lower end above "
        "1 + m), ahead (lower end above 1), equivalent within ±m (the %.0f%% "
        "interval inside it: TOST), or not told apart (anything else: not "
        "a claim of no difference); without an interval: unknown. Processes "
        "that point the pair different ways say so, and adopt nothing." % (
            level, margin, 2 * level - 100),
        "- Host states (rounds split by the floor measured before them) are "
        "data: a class is split only when the states differ and their "
        "answers point different ways; a state too short for an interval "
        "claims nothing.",
        "- The reactor adopts a leader that is ahead of the runner-up and "
        "of the baseline in the confirmation rounds; \"(leads a tie)\" "
        "marks one that is not ahead of the runner-up."])


def how_to_read(picked: Picked) -> str:
    fams = [f for f in picked["families"].values() if not f["missing"]]
    if fams and all(f.get("rounds") for f in fams):
        return _how_to_read_paired(picked)
    text = _how_to_read_old(picked)
    if any(f.get("rounds") for f in fams):
        text += "\n\n" + _how_to_read_paired(picked)
    return text


def _how_to_read_old(picked: Picked) -> str:
    alpha = picked.get("alpha", 0.05)
    min_margin = picked.get("min_margin", MIN_MARGIN)
    rule = ("the two-sided Mann-Whitney U test over the repetitions gives "
            "p < %.2f and the margin exceeds both the larger coefficient of "
            "variation and %.0f%%" % (alpha, 100 * min_margin))
    return ("How to read it: a class is one or more benchmark groups, "
            "ranked by the metric the sweep's own rules name; "
            "margins are geometric means over them of the winner's median "
            "against the runner-up's and the baseline's, oriented so that "
            "> 1 is better (for latency: baseline / winner). \"Above noise\""
            " means, in every group, %s. With 5 repetitions the smallest "
            "possible p is 0.008; compare.py asks for 9 or more for a U-test "
            "it trusts. Smoke results have one repetition: no verdict. "
            "\"Host drifted: rerun\": the family's floor (a cache-line "
            "round trip) moved by more than its threshold during the sweep, "
            "so no winner is named." % rule)

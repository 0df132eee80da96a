# -----------------------------------------------------------------------------
# pick/report/recommendation.py
# -----------------------------------------------------------------------------
#
# The words under REPORT.md's recommendation table (document.py places
# them): the reactor policy that winners.json hands the validation, and how
# to read the table's margins and answers, for paired rounds or for the
# older sweeps of independent repetitions (U-test and noise).

from __future__ import annotations

from pick.decisions import Picked
from pick.confirm import CONFIRM_PROCESSES
from pick.stats import MIN_MARGIN, fmt_ratio


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

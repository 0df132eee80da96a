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

from pick.markdown import md_table
from pick.server_answer import BASES, COMPONENTS, WORKLOADS, Answer

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

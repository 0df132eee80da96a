# -----------------------------------------------------------------------------
# pick/decide/confirm.py
# -----------------------------------------------------------------------------
#
# The confirmation plan: which runs confirm the choices of a family's sweep.
# A class's leader is the best of up to 15 implementations, so its margin,
# estimated on the rounds that chose it, is biased up (the winner's curse).
# bench.sh therefore runs, after the first pick, each family once more in
# CONFIRM_PROCESSES fresh processes: the leader, the runner-up and the
# baseline of every class and of the reactor's classes, over the class's
# groups, for CONFIRM_ROUNDS rounds each, merged into
# results/confirm/<family>.json. pick then takes every margin from those
# rounds (decide/paired_rounds.py), with an interval over the processes, so
# that it
# carries the spread between them.
#
#   confirm_filter(picked, family)   the sweep's --benchmark_filter: one
#                                    POSIX extended regular expression
#                                    (the harness's std::regex), or None
#                                    when the family has nothing to confirm
#   confirm_flags(picked, family)    the processes, then the sweep flags
#                                    bench.sh passes: the rounds (one
#                                    process of one round in the smoke
#                                    profile), the sweep run confirmed
#                                    (--benchmark_context=confirms=ID) and
#                                    the filter; "" when nothing to confirm
#
# Standard library and the layers below (results, decisions).

from __future__ import annotations

from typing import Optional

from pick.records import ClassPick, Picked
from pick.read.sweeps import CONFIRMS, run_identity

# The confirmation's fresh processes and rounds in each: rounds inside one
# process share its heap, placement and host state, so the interval is
# taken over the processes' medians (decide/paired.py, process_paired),
# and more processes of fewer rounds buy more of it: t(3) is 3.18 where
# t(2) is 4.30 (docs/methods.md, "Processes"). bench.sh runs process K of every
# family before process K + 1, so the processes sit minutes apart.
CONFIRM_PROCESSES = 4
CONFIRM_ROUNDS = 3

_SPECIAL = set(".[]()*+?{}|^$\\")


def _escape(text: str) -> str:
    """text as a literal in a POSIX extended regular expression."""
    return "".join("\\" + c if c in _SPECIAL else c for c in text)


def _impls(res: ClassPick) -> set[str]:
    """The class's leading pair (as its rounds chose it) and baseline."""
    out: set[str] = set()
    chosen = res.get("selection_paired") or res.get("paired")
    if chosen:
        out |= {chosen["a"], chosen["b"]}
    else:
        out |= {i for i in (res.get("winner"), res.get("runner_up")) if i}
    if res.get("baseline"):
        out.add(str(res["baseline"]))
    return out


def _alternatives(family: str, groups: list[str], impls: set[str]
                  ) -> list[str]:
    """One alternative per group name (family/scenario[/params]): the
    benchmark names family/scenario/IMPL[/params] for impls."""
    out = []
    which = "(%s)" % "|".join(_escape(i) for i in sorted(impls))
    for g in groups:
        parts = g.split("/")
        if len(parts) < 2 or parts[0] != family:
            continue
        rest = "/".join(parts[2:])
        out.append("%s/%s/%s%s" % (_escape(parts[0]), _escape(parts[1]),
                                   which, "/" + _escape(rest) if rest else ""))
    return out


def confirm_filter(picked: Picked, family: str) -> Optional[str]:
    """The filter that runs the family's confirmation (the header)."""
    fam = picked["families"].get(family)
    if not fam or fam.get("missing"):
        return None
    alts: list[str] = []
    for res in fam.get("classes", []):
        impls = _impls(res)
        if len(impls) >= 2 and res.get("groups"):
            alts += _alternatives(family, res["groups"], impls)
    for entry in picked["reactor"].values():
        impls = {i for i in (entry.get("leader"), entry.get("runner_up"),
                             entry.get("baseline")) if i}
        if len(impls) >= 2 and entry.get("groups"):
            alts += _alternatives(family, entry["groups"], impls)
    alts = sorted(set(alts))
    return "^(%s)$" % "|".join(alts) if alts else None


def confirm_flags(picked: Picked, family: str) -> str:
    """The confirmation's processes, then its sweep flags (the header):
    '4 --min_rounds=3 --max_rounds=3 --benchmark_filter=...'; "" when
    none. The smoke profile runs one process of one round."""
    flt = confirm_filter(picked, family)
    if flt is None:
        return ""
    fam = picked["families"][family]
    smoke = fam.get("profile") == "smoke"
    procs, n = (1, 1) if smoke else (CONFIRM_PROCESSES, CONFIRM_ROUNDS)
    # The file names the sweep run it confirms (results.run_identity), so
    # that pick matches the two by content, not by file times.
    ident = run_identity(fam["file"]) if fam.get("file") else ""
    return "%d --min_rounds=%d --max_rounds=%d%s --benchmark_filter=%s" % (
        procs, n, n, " --benchmark_context=%s=%s" % (CONFIRMS, ident)
        if ident else "", flt)

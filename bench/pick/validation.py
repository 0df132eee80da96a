# -----------------------------------------------------------------------------
# bench/pick/validation.py
# -----------------------------------------------------------------------------
#
# The ping-pong validation as bench/pingpong/sweep.py writes it into
# results/pingpong.json ("validation"): for each component of the reactor
# policy (winners.json's "reactor"), did the micro-benchmark winner hold end
# to end against the baseline? Each row carries one exact "outcome"
# (outcome.py: held, no-difference, refuted, too-weak, nothing-to-validate,
# error),
# read here by equality; the "verdict" beside it is text for people.
#
# A file whose rows lack "outcome" (written before the field) or carry a
# value outside the set is refused, not guessed at: validation_entries()
# raises ValidationFormatError, and validation_summary() says "validation
# unreadable: ..." with the reason and how to rerun, and gives no entries, so
# the report and the charts show no validation rather than a decoded one.
# validation_summary() is the one line the recommendation, the report and
# the validation chart share.

from __future__ import annotations

from typing import Any, Optional

from outcome import FIELD, Outcome, OutcomeError, parse_outcome

RERUN = ("rerun the validation: bazel run -c opt //bench:pingpong -- "
         "--validate")


class ValidationFormatError(ValueError):
    """pingpong.json's "validation" rows that pick cannot read."""


def _rows(v: Any) -> list[dict[str, Any]]:
    """The rows of a "validation" value: a list of entries, a {component:
    entry} mapping, or either under "rows" or "components"."""
    if isinstance(v, dict):
        for key in ("rows", "components"):
            if key in v:
                v = v[key]
                break
    entries: list[dict[str, Any]] = []
    if isinstance(v, dict):
        for k, e in v.items():
            if isinstance(e, dict):
                e = dict(e)
                e.setdefault("component", k)
                entries.append(e)
    elif isinstance(v, list):
        entries = [dict(e) for e in v if isinstance(e, dict)]
    for e in entries:
        e.setdefault("component", e.get("name", "?"))
    return entries


def validation_entries(pingpong: Optional[dict[str, Any]]
                       ) -> list[dict[str, Any]]:
    """The "validation" key of pingpong.json as a list of dicts with at least
    component, micro_ratio, e2e_ratio, verdict and outcome (its value as
    written, one of outcome.VALUES); [] when absent. Raises
    ValidationFormatError for a row without "outcome" or with an unknown
    one."""
    if not pingpong or "validation" not in pingpong:
        return []
    entries = _rows(pingpong["validation"])
    for k, e in enumerate(entries):
        where = "validation row %d (%s/%s)" % (
            k + 1, e["component"], e.get("case", "?"))
        if FIELD not in e:
            raise ValidationFormatError(
                "%s has no \"%s\" field (pingpong.json written before it); "
                "%s" % (where, FIELD, RERUN))
        try:
            parse_outcome(e[FIELD])
        except OutcomeError as err:
            raise ValidationFormatError("%s: %s; %s" % (where, err, RERUN))
    return entries


def outcome_of(entry: dict[str, Any]) -> Outcome:
    """The row's outcome (validation_entries() checked it)."""
    return parse_outcome(entry.get(FIELD))


def held(entry: dict[str, Any]) -> bool:
    return outcome_of(entry) is Outcome.HELD


def validated(entry: dict[str, Any]) -> bool:
    """False for rows with nothing to validate (the winner is the baseline)
    or that failed to run."""
    if "winner" in entry and entry.get("winner") == entry.get("baseline"):
        return False
    return outcome_of(entry) not in (Outcome.NOTHING_TO_VALIDATE,
                                     Outcome.ERROR)


def validation_problem(pingpong: Optional[dict[str, Any]]) -> Optional[str]:
    """Why the validation cannot be read (ValidationFormatError's text), or
    None when it can (or is absent)."""
    try:
        validation_entries(pingpong)
    except ValidationFormatError as e:
        return str(e)
    return None


def validation_summary(pingpong: Optional[dict[str, Any]]
                       ) -> tuple[str, list[dict[str, Any]]]:
    """One line: how many micro winners held end to end. A component with
    several cases (e.g. 4 KiB and 16 KiB echo) held when every case held.
    A too-weak case (its positive control not detected) gives no verdict:
    it is counted apart.
    An unreadable validation gives "validation unreadable: <why>" and no
    entries."""
    problem = validation_problem(pingpong)
    if problem is not None:
        return "validation unreadable: %s" % problem, []
    entries = validation_entries(pingpong)
    if not entries:
        return "validation not run", entries
    rows = [e for e in entries if validated(e)]
    if not rows:
        return ("validation ran, but nothing to validate (every winner is "
                "its baseline, or the runs failed)", entries)
    weak = [e for e in rows if outcome_of(e) is Outcome.TOO_WEAK]
    rows = [e for e in rows if outcome_of(e) is not Outcome.TOO_WEAK]
    weak_note = ("%d case%s too weak to tell (the positive control was not "
                 "detected)" % (len(weak), "" if len(weak) == 1 else "s"))
    if not rows:
        return "no end-to-end verdict: " + weak_note, entries
    comps: dict[str, list[bool]] = {}
    for e in rows:
        comps.setdefault(e["component"], []).append(held(e))
    n_held = sum(1 for v in comps.values() if all(v))
    line = "%d of %d micro-benchmark winners held end to end" % (
        n_held, len(comps))
    if len(rows) != len(comps):
        line += " (%d of %d cases)" % (sum(held(e) for e in rows), len(rows))
    if weak:
        line += "; " + weak_note
    return line, entries

# -----------------------------------------------------------------------------
# pick/read/validation_rows.py
# -----------------------------------------------------------------------------
#
# The ping-pong validation as validation/pingpong.py writes it into
# results/pingpong.json ("validation"): for each component of the reactor
# policy (winners.json's "reactor"), does its candidate (the micro pick, or
# the best alternative to the baseline the pick kept, or a default pair)
# differ from the baseline end to end? Each row carries one exact "outcome"
# (outcome.py: held, equivalent, not-told-apart, refuted, too-weak,
# nothing-to-validate, error), read here by equality; the "verdict" beside
# it is text for people, and "standing" and "margin" say what the
# candidate's interval showed against which margin (margin.py).
#
# A file whose rows lack "outcome" (written before the field) or carry a
# value outside the set is refused, not guessed at: validation_entries()
# raises ValidationFormatError, and validation_summary() says "validation
# unreadable: ..." with the reason and how to rerun, and gives no entries, so
# the report and the charts show no validation rather than a decoded one. So
# is a file written before "equivalent" and "not-told-apart" replaced
# "no-difference", which claimed an equivalence it had not shown: its
# outcome is unknown now, and the fix is to rerun.
# validation_summary() is the one line the recommendation, the report and
# the validation chart share.

from __future__ import annotations

from typing import Any, Optional

from pick.outcome import FIELD, Outcome, OutcomeError, parse_outcome
from pick.records import PingpongDoc, RowFormatError, ValidationRow

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
                entries.append(dict(e))
                entries[-1].setdefault("component", k)
    elif isinstance(v, list):
        entries = [dict(e) for e in v if isinstance(e, dict)]
    for e in entries:
        name = e.pop("name", "?")   # an early file's name for it
        e.setdefault("component", name)
    return entries


def validation_entries(pingpong: Optional[PingpongDoc]
                       ) -> list[ValidationRow]:
    """The "validation" key of pingpong.json as ValidationRows (the one
    type the validation writes), their outcome checked (one of
    outcome.VALUES); [] when absent. Raises ValidationFormatError for a
    row without "outcome", with an unknown one, or with a field this
    version does not know."""
    if not pingpong or "validation" not in pingpong:
        return []
    out = []
    for k, e in enumerate(_rows(pingpong["validation"])):
        where = "validation row %d (%s/%s)" % (
            k + 1, e["component"], e.get("case", "?"))
        if FIELD not in e:
            raise ValidationFormatError(
                "%s has no \"%s\" field (pingpong.json written before it); "
                "%s" % (where, FIELD, RERUN))
        try:
            parse_outcome(e[FIELD])
            out.append(ValidationRow.from_json(e))
        except (OutcomeError, RowFormatError) as err:
            raise ValidationFormatError("%s: %s; %s" % (where, err, RERUN))
    return out


def outcome_of(entry: ValidationRow) -> Outcome:
    """The row's outcome (validation_entries() checked it)."""
    return parse_outcome(entry.outcome)


def held(entry: ValidationRow) -> bool:
    return outcome_of(entry) is Outcome.HELD


# The headline's words per outcome, in its order.
COUNTED = ((Outcome.HELD, "held"), (Outcome.EQUIVALENT, "equivalent"),
           (Outcome.NOT_TOLD_APART, "not told apart"),
           (Outcome.REFUTED, "refuted"), (Outcome.TOO_WEAK, "too weak"),
           (Outcome.ERROR, "error"))


def metric_of(entry: ValidationRow) -> str:
    """"cpu" (the server's CPU per unit of work), "throughput", "latency"
    (the chat round's time), or "-" (no verdict ran)."""
    kind = entry.metric_kind
    if not isinstance(kind, str) or not kind:
        return "-"
    if kind.startswith("server CPU"):
        return "cpu"
    return "latency" if kind.startswith("latency") else "throughput"


def validation_problem(pingpong: Optional[PingpongDoc]) -> Optional[str]:
    """Why the validation cannot be read (ValidationFormatError's text), or
    None when it can (or is absent)."""
    try:
        validation_entries(pingpong)
    except ValidationFormatError as e:
        return str(e)
    return None


def validation_summary(pingpong: Optional[PingpongDoc]
                       ) -> tuple[str, list[ValidationRow]]:
    """One line that counts every case's outcome ("end to end, 6 cases:
    held 1, equivalent 1, not told apart 3, refuted 0, too weak 1, error
    0"; then "nothing to validate" where a component had no candidate),
    then which metric the verdicts used, how many cases asked about the best
    alternative to a kept baseline, and how many ran a default pair rather
    than a micro pick. An unreadable validation gives "validation
    unreadable: <why>" and no entries."""
    problem = validation_problem(pingpong)
    if problem is not None:
        return "validation unreadable: %s" % problem, []
    entries = validation_entries(pingpong)
    if not entries:
        return "validation not run", entries
    outcomes = [outcome_of(e) for e in entries]
    cases = [e for e, o in zip(entries, outcomes)
             if o is not Outcome.NOTHING_TO_VALIDATE]
    line = "end to end, %d case%s: %s" % (
        len(cases), "" if len(cases) == 1 else "s",
        ", ".join("%s %d" % (word, outcomes.count(o))
                  for o, word in COUNTED))
    nothing = outcomes.count(Outcome.NOTHING_TO_VALIDATE)
    if nothing:
        line += ", nothing to validate %d (no implementation but the " \
            "baseline)" % nothing
    metrics = [metric_of(e) for e in cases]
    used = [(metrics.count(m), words) for m, words in (
        ("throughput", "throughput"), ("latency", "latency"),
        ("cpu", "the server's CPU per unit of work"))]
    if any(n for n, _ in used):
        line += "; metric: %s" % ", ".join(
            "%s in %d" % (words, n) for n, words in used if n)
    alt = sum(1 for e in cases if e.question == "alternative")
    if alt:
        line += "; %d case%s asked whether leaving the baseline matters " \
            "(the micro pick kept it)" % (alt, "" if alt == 1 else "s")
    default = sum(1 for e in cases if e.origin == "default")
    if default:
        line += "; %d case%s ran a default pair, not a micro pick" % (
            default, "" if default == 1 else "s")
    return line, entries

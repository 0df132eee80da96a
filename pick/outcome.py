# -----------------------------------------------------------------------------
# pick/outcome.py
# -----------------------------------------------------------------------------
#
# The ping-pong validation's outcome vocabulary: one closed set of words,
# written by validation/run.py into every row of pingpong.json's
# "validation" ("outcome": "held", ...) and read back by
# read/validation_rows.py by
# equality, never by matching words in the human "verdict" text beside it.
#
#   held                 the candidate (the micro pick, or the best
#                        alternative to a kept baseline) is better end to
#                        end (its 95% interval against the baseline lies
#                        above 1: signed-rank p < 0.05), and the rounds
#                        detected the positive control
#   equivalent           the control was detected, and the candidate's
#                        interval lies inside [1/(1+m), 1+m] (m the
#                        validation's margin, pick/margin.py)
#   not-told-apart       the control was detected; the candidate's interval
#                        holds 1 and reaches past the margin: neither
#                        better, worse nor equivalent
#   refuted              the candidate is worse end to end (its interval
#                        lies below 1)
#   too-weak             the rounds could not tell the positive control
#                        (the baseline slowed on purpose) from the
#                        baseline: no verdict on the candidate; the row
#                        gives the minimum detectable effect
#   nothing-to-validate  no implementation but the baseline: nothing ran
#   error                a run failed (or the validation was interrupted):
#                        no ratio
#
# A file written before equivalent / not-told-apart (its rows say
# "no-difference") is refused as an unknown outcome: rerun the validation.
#
# Here, at pick's bottom layer (standard library only), because both sides
# import it: pick's modules, and the validation (validation/), which sits
# above pick (pick imports neither servers/ nor validation/).

from __future__ import annotations

import enum
from typing import Any, Final


class Outcome(str, enum.Enum):
    HELD = "held"
    EQUIVALENT = "equivalent"
    NOT_TOLD_APART = "not-told-apart"
    REFUTED = "refuted"
    TOO_WEAK = "too-weak"
    NOTHING_TO_VALIDATE = "nothing-to-validate"
    ERROR = "error"


# The field's name in each row, and its values, as written in the JSON.
FIELD: Final = "outcome"
VALUES = tuple(o.value for o in Outcome)


class OutcomeError(ValueError):
    """A validation row whose "outcome" is missing or outside Outcome."""


def parse_outcome(value: Any) -> Outcome:
    """The Outcome whose value equals `value`; raises OutcomeError."""
    for o in Outcome:
        if value == o.value:
            return o
    raise OutcomeError("unknown %s %s (one of %s)" % (
        FIELD, _shown(value), ", ".join(VALUES)))


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."

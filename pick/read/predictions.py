# -----------------------------------------------------------------------------
# pick/read/predictions.py
# -----------------------------------------------------------------------------
#
# Predict, then check, as the validation writes it into pingpong.json
# (validation/predict.py): each validation row's "model"
# (or "model_note", why it has none) and the load map under
# "validation"."loadmap". Read tolerantly: a value of the wrong type is
# treated as absent, never raised on, so REPORT.md's section
# (report/predicted.py) and the chart (charts/endtoend.py) show what is
# readable and say what is not. Standard library only.

from __future__ import annotations

import math
from typing import Any, NamedTuple, Optional, cast

from pick.margin import MARGIN
from pick.read.validation_rows import ValidationFormatError, validation_entries
from pick.records import PingpongDoc, ValidationRow

RERUN = "bazel run -c opt //bench:pingpong -- --validate"


class Interval(NamedTuple):
    """An estimate with its interval (the model's bootstrap, or a
    measured ratio's)."""

    est: float
    low: float
    high: float


def number(x: Any) -> Optional[float]:
    """x as a finite float; None for anything else (bools included)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def interval(x: Any, key: str = "est") -> Optional[Interval]:
    """{est|ratio, low, high} as an Interval; None unless all three are
    finite numbers."""
    if not isinstance(x, dict):
        return None
    est, low, high = number(x.get(key)), number(x.get("low")), \
        number(x.get("high"))
    if est is None or low is None or high is None:
        return None
    return Interval(est, low, high)


def text(x: Any, default: str = "") -> str:
    return x if isinstance(x, str) and x else default


def mapping(x: Any) -> dict[str, Any]:
    """x when it is a dict, else an empty one."""
    return x if isinstance(x, dict) else {}


def _validation(pp: Any) -> Any:
    return pp.get("validation") if isinstance(pp, dict) else None


def rows(pp: Any) -> list[ValidationRow]:
    """The validation's rows that ran a case (case not "-"); [] when there
    are none or they cannot be read (validation_rows says why)."""
    try:
        entries = validation_entries(
            cast(PingpongDoc, pp) if isinstance(pp, dict) else None)
    except ValidationFormatError:
        return []
    return [r for r in entries if r.case != "-"]


def has_models(pp: Any) -> bool:
    """Whether the file carries predictions at all: some row with a model
    or a note of why it has none (a file written before them has none)."""
    return any(r.model is not None or r.model_note is not None
               for r in rows(pp))


def model(row: ValidationRow) -> Optional[dict[str, Any]]:
    m = row.model
    return m if isinstance(m, dict) else None


def predicted(m: dict[str, Any]) -> list[tuple[str, Interval, str, Any]]:
    """Every implementation's predicted ratio, best first: (name, its
    interval, its source, its micro ns per operation)."""
    out = []
    for name, e in mapping(m.get("predicted")).items():
        iv = interval(e)
        if iv is not None:
            out.append((str(name), iv, text(e.get("source"), "?"),
                        number(e.get("micro_ns"))))
    return sorted(out, key=lambda t: (-t[1].est, t[0]))


def loadmap(pp: Any) -> Optional[dict[str, Any]]:
    """The load map, or None when absent or not a mapping."""
    v = _validation(pp)
    lm = v.get("loadmap") if isinstance(v, dict) else None
    return lm if isinstance(lm, dict) else None


def margin(lm: dict[str, Any]) -> float:
    """The load map's margin m, MARGIN when it has none."""
    m = number(lm.get("margin"))
    return m if m is not None and m > 0 else MARGIN


def components(lm: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The load map's components that are mappings, in the file's order."""
    return [(str(k), c) for k, c in mapping(lm.get("components")).items()
            if isinstance(c, dict)]


def points(comp: dict[str, Any]) -> list[dict[str, Any]]:
    """A component's grid points with integer sessions, block and loops,
    in grid order (block, loops, sessions)."""
    pts = comp.get("points")
    if not isinstance(pts, list):
        return []

    def whole(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)
    good = [p for p in pts if isinstance(p, dict) and
            all(whole(p.get(k)) for k in ("sessions", "block", "loops"))]
    return sorted(good, key=lambda p: (p["block"], p["loops"],
                                       p["sessions"]))

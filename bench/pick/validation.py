# -----------------------------------------------------------------------------
# bench/pick/validation.py
# -----------------------------------------------------------------------------
#
# The ping-pong validation as bench/pingpong/sweep.py writes it into
# results/pingpong.json ("validation"): for each component of the reactor
# policy (winners.json's "reactor"), did the micro-benchmark winner hold end
# to end against the baseline? validation_entries() reads the rows in any of
# the shapes the sweep has written; validation_summary() is the one line the
# recommendation, the report and the validation chart share.

from __future__ import annotations

from typing import Any, Optional

HELD_WORDS = ("held", "holds", "confirmed", "yes", "pass", "ok")


def validation_entries(pingpong: Optional[dict[str, Any]]
                       ) -> list[dict[str, Any]]:
    """The "validation" key of pingpong.json as a list of dicts with at least
    component, micro_ratio, e2e_ratio, verdict; [] when absent. Accepts a
    list of entries, a {component: entry} mapping, or either under
    "components"."""
    if not pingpong or "validation" not in pingpong:
        return []
    v = pingpong["validation"]
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


def held(entry: dict[str, Any]) -> bool:
    h = entry.get("held")
    if isinstance(h, bool):
        return h
    verdict = str(entry.get("verdict", "")).lower()
    if any(w in verdict for w in ("not", "failed", "reversed", "lost",
                                  "did not", "no ")):
        return False
    return any(w in verdict for w in HELD_WORDS)


def validated(entry: dict[str, Any]) -> bool:
    """False for rows with nothing to validate (the winner is the baseline)
    or that failed to run."""
    verdict = str(entry.get("verdict", "")).lower()
    if "winner" in entry and entry.get("winner") == entry.get("baseline"):
        return False
    return not (verdict.startswith("winner is the baseline") or
                verdict.startswith("error"))


def validation_summary(pingpong: Optional[dict[str, Any]]
                       ) -> tuple[str, list[dict[str, Any]]]:
    """One line: how many micro winners held end to end. A component with
    several cases (e.g. 4 KiB and 16 KiB echo) held when every case held."""
    entries = validation_entries(pingpong)
    if not entries:
        return "validation not run", entries
    rows = [e for e in entries if validated(e)]
    if not rows:
        return ("validation ran, but nothing to validate (every winner is "
                "its baseline, or the runs failed)", entries)
    comps: dict[str, list[bool]] = {}
    for e in rows:
        comps.setdefault(e["component"], []).append(held(e))
    n_held = sum(1 for v in comps.values() if all(v))
    line = "%d of %d micro-benchmark winners held end to end" % (
        n_held, len(comps))
    if len(rows) != len(comps):
        line += " (%d of %d cases)" % (sum(held(e) for e in rows), len(rows))
    return line, entries

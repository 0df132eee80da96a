# -----------------------------------------------------------------------------
# bench/pingpong/validate_cases.py
# -----------------------------------------------------------------------------
#
# What the ping-pong validation (validate.py) compares: the swappable
# components, their default pairs, the cases where each matters, the
# repetitions per profile, the noise floor, the verdict words, and the
# winners file.
#
# Winners. results/winners.json (written by `bazel run //bench:pick`, or
# --winners=PATH) holds, under "reactor", one entry per swappable component:
#     {"winner": NAME, "baseline": NAME, "micro_ratio": float|null,
#      "source": "<benchmark group>", "cv": float|null}
# NAMEs are those of the server's --task_queue/--buffer/--logger flags. A
# missing file, malformed JSON, or a missing or malformed entry falls back to
# DEFAULTS for that component, and the output says so (load_winners).
#
# Outcomes. Each row of the validation carries one exact "outcome"
# (bench/pick/outcome.py, read back by bench/pick/validation.py by equality)
# and a "verdict" for people: VERDICT's words, with " (micro n/a)" when the
# winner came without a micro ratio.

from __future__ import annotations

import json
import os
import sys
from typing import Any, Optional

# The outcome vocabulary lives at bench/pick's bottom layer (outcome.py,
# standard library only), which bench/pick's validation.py reads back. This
# module is bench/pingpong's one door to it: the others import Outcome from
# here.
sys.path.append(os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "pick"))
from outcome import Outcome  # noqa: E402

COMPONENTS = ("task_queue", "buffer", "logger")

# Used when winners.json or its entry is missing or malformed.
DEFAULTS = {
    "task_queue": dict(winner="bounded-mpmc", baseline="swap-vector"),
    "buffer": dict(winner="ring", baseline="linear"),
    "logger": dict(winner="async-queue-bounded-mpmc", baseline="sync"),
}

# Where each component matters. Flags other than the component's own are the
# same for the baseline and the winner runs.
CASES: dict[str, list[dict[str, Any]]] = {
    "task_queue": [
        dict(name="reply-via-queue", protocol="echo", threads=2,
             client_threads=2, block=4096, sessions=100,
             flags=["--reply_via_queue"],
             mode="echo 4 KiB, 100 sessions, 2 threads, every reply posted "
                  "through a worker loop and back: --reply_via_queue"),
    ],
    "buffer": [
        dict(name="echo-16k", protocol="echo", threads=1, client_threads=1,
             block=16384, sessions=100, flags=[],
             mode="echo 16 KiB, 100 sessions, 1 thread"),
        dict(name="echo-4k", protocol="echo", threads=1, client_threads=1,
             block=4096, sessions=100, flags=[],
             mode="echo 4 KiB, 100 sessions, 1 thread"),
    ],
    "logger": [
        dict(name="log-per-message", protocol="echo", threads=1,
             client_threads=1, block=4096, sessions=100, flags=[],
             mode="echo 4 KiB, 100 sessions, 1 thread, one log line per "
                  "message to a file on disk"),
    ],
}

# Repetitions (pairs) and seconds per run, per sweep profile.
PROFILES: dict[str, dict[str, Any]] = {
    "smoke": dict(repetitions=1, seconds=0.3),
    "default": dict(repetitions=3, seconds=2.0),
    "full": dict(repetitions=5, seconds=5.0),
}

# Run-to-run noise on 2 shared cores is never below this, however tight a few
# repetitions happen to be.
NOISE_FLOOR = 0.03

SAME = "winner is the baseline; nothing to validate"

# The verdict's words per outcome.
VERDICT = {
    Outcome.HELD: "held",
    Outcome.NO_DIFFERENCE: "no difference",
    Outcome.REFUTED: "refuted",
    Outcome.NOTHING_TO_VALIDATE: SAME,
    Outcome.ERROR: "error",
}
MICRO_NA = " (micro n/a)"


def verdict(outcome: Outcome, micro_ratio: Optional[float]) -> str:
    """The verdict for people: VERDICT's words, with MICRO_NA on a ratio
    measured against a winner that came without a micro ratio."""
    text = VERDICT[outcome]
    if micro_ratio is None and outcome not in (Outcome.NOTHING_TO_VALIDATE,
                                               Outcome.ERROR):
        text += MICRO_NA
    return text


def component_flags(comp: str, name: str, log_file: str) -> list[str]:
    if comp == "task_queue":
        return ["--task_queue=" + name]
    if comp == "buffer":
        return ["--buffer=" + name]
    return ["--logger=" + name, "--log_file=" + log_file]


def metric_of(protocol: str) -> tuple[str, str]:
    """(record key, unit) of a protocol's throughput."""
    return ("mib_per_s", "MiB/s") if protocol == "echo" else \
        ("messages_per_s", "messages/s")


# --- winners -----------------------------------------------------------------

Entry = dict[str, Any]


def _number(v: Any) -> Optional[float]:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def _read_reactor(path: str, notes: list[str]) -> Optional[dict[str, Any]]:
    """winners.json's "reactor" object, or None (with a note) when the file
    is missing, unreadable or without one."""
    if not os.path.exists(path):
        notes.append("%s not found: default winners for every component "
                     "(run `bazel run //bench:pick` first to validate the "
                     "measured ones)" % path)
        return None
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        notes.append("cannot read %s (%s): default winners for every "
                     "component" % (path, str(e).splitlines()[0]))
        return None
    if isinstance(doc, dict) and isinstance(doc.get("reactor"), dict):
        reactor: dict[str, Any] = doc["reactor"]
        return reactor
    notes.append("%s has no \"reactor\" object: default winners for every "
                 "component" % path)
    return None


def _default_entry(comp: str) -> Entry:
    d = DEFAULTS[comp]
    return dict(winner=d["winner"], baseline=d["baseline"], micro_ratio=None,
                source=None, cv=None, origin="default")


def _entry(comp: str, raw: Any, notes: list[str]) -> Entry:
    """One component's entry from winners.json's raw value (None: absent)."""
    d = DEFAULTS[comp]
    if raw is None:
        notes.append("%s: no entry in winners.json: default %s vs %s" % (
            comp, d["winner"], d["baseline"]))
        return _default_entry(comp)
    if not (isinstance(raw, dict) and isinstance(raw.get("winner"), str) and
            raw["winner"]):
        notes.append("%s: malformed entry in winners.json (%s): default "
                     "%s vs %s" % (comp, json.dumps(raw)[:80],
                                   d["winner"], d["baseline"]))
        return _default_entry(comp)
    baseline = raw.get("baseline")
    if not (isinstance(baseline, str) and baseline):
        baseline = d["baseline"]
        notes.append("%s: no baseline in winners.json: %s" % (comp,
                                                              baseline))
    source, metric = raw.get("source"), raw.get("metric")
    entry = dict(winner=raw["winner"], baseline=baseline,
                 micro_ratio=_number(raw.get("micro_ratio")),
                 source=source if isinstance(source, str) else None,
                 cv=_number(raw.get("cv")), origin="winners.json")
    if isinstance(metric, str) and metric:  # optional, for the sentence
        entry["metric"] = metric
    return entry


def load_winners(path: str) -> tuple[dict[str, Entry], list[str]]:
    """Returns ({component: entry}, [notes]); never raises.

    entry: winner, baseline, micro_ratio (float or None), source, cv, origin
    ("winners.json" or "default").
    """
    notes: list[str] = []
    reactor = _read_reactor(path, notes)
    if reactor is None:
        return {comp: _default_entry(comp) for comp in COMPONENTS}, notes
    return {comp: _entry(comp, reactor.get(comp), notes)
            for comp in COMPONENTS}, notes

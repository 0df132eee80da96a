# -----------------------------------------------------------------------------
# bench/pingpong/validate_cases.py
# -----------------------------------------------------------------------------
#
# What the ping-pong validation (validate.py) compares: the swappable
# components, their default pairs and positive controls, the cases where
# each matters, the repetitions per profile, the verdict words, and the
# winners file.
#
# Winners. results/winners.json (written by `bazel run //bench:pick`, or
# --winners=PATH) holds, under "reactor", one entry per swappable component:
#     {"winner": NAME, "baseline": NAME, "micro_ratio": float|null,
#      "source": "<benchmark group>", "cv": float|null,
#      "micro_ratios": {NAME: float}}   (optional: every ranked
#                                        implementation / the baseline)
# NAMEs are those of the server's --task_queue/--buffer/--logger flags. A
# missing file, malformed JSON, or a missing or malformed entry falls back to
# DEFAULTS for that component, and the output says so (load_winners).
#
# Outcomes. Each row of the validation carries one exact "outcome"
# (bench/pick/outcome.py, read back by bench/pick/validation.py by equality)
# and a "verdict" for people: VERDICT's words, with " (micro n/a)" when the
# winner came without a micro ratio.

from __future__ import annotations

import dataclasses
import json
import os
import sys
from typing import Any, Optional, Sequence

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
        # One session: every message crosses to the worker loop and back
        # while both loops idle in between, so a queue that parks and
        # wakes slowly (or wakes its consumer late) adds to every round
        # trip: the latency at the lowest offered load.
        dict(name="reply-via-queue-1", protocol="echo", threads=2,
             client_threads=1, block=64, sessions=1,
             flags=["--reply_via_queue"],
             mode="echo 64 bytes, 1 session (one message in flight), 2 "
                  "threads, every reply posted through a worker loop and "
                  "back: --reply_via_queue"),
        # The broadcast: every message is one task posted to every I/O
        # loop (bench/chat). 2 loops and the accept loop on the server's
        # core, the load test on the other.
        dict(name="chat-1000", kind="chat", protocol="chat", threads=2,
             client_threads=1, block=64, sessions=1000, rounds=50,
             flags=[],
             mode="chat broadcast to 1000 clients, 2 I/O loops, 50 rounds "
                  "of one 64-byte message (bench/chat)"),
        dict(name="chat-5000", kind="chat", protocol="chat", threads=2,
             client_threads=1, block=64, sessions=5000, rounds=20,
             flags=[],
             mode="chat broadcast to 5000 clients, 2 I/O loops, 20 rounds "
                  "of one 64-byte message (bench/chat)"),
    ],
    "buffer": [
        dict(name="echo-16k", protocol="echo", threads=1, client_threads=1,
             block=16384, sessions=100, flags=[],
             mode="echo 16 KiB, 100 sessions, 1 thread"),
        dict(name="stream-64k", protocol="echo", threads=1,
             client_threads=1, block=65536, sessions=10, flags=[],
             mode="echo 64 KiB blocks (streaming), 10 sessions, 1 thread"),
        dict(name="header-growing", protocol="header", threads=1,
             client_threads=1, block=1024, sessions=100, flags=[],
             mode="evpp's header/body, every reply's body one byte longer "
                  "(100 to 1123 bytes), 100 sessions, 1 thread"),
    ],
    # The server gets a core more than its I/O threads (server_cores), so
    # an async logger's backend has somewhere to run; on 2 cores that leaves
    # none to the client alone, so nothing is pinned (each record says
    # which cores each process had).
    "logger": [
        dict(name="log-per-message", protocol="echo", threads=1,
             client_threads=1, block=4096, sessions=100, flags=[],
             server_cores=2,
             mode="echo 4 KiB, 100 sessions, 1 I/O thread, one log line per "
                  "message to a file on disk; the server may use 2 cores"),
        dict(name="http-access-log", kind="http", protocol="http",
             threads=1, client_threads=1, block=0, sessions=50, flags=[],
             server_cores=2,
             mode="GET /collect under wrk -t1 -c50 (bench/http), one "
                  "access-log line per request to a file on disk; the "
                  "server may use 2 cores"),
    ],
}


# The positive control of each component: an implementation that the micro
# sweep ranks far behind the baseline (or one slowed on purpose, named as
# such), run beside the baseline and the winner in every case. A case whose
# run cannot tell the control from the baseline (U-test p >= 0.05, or the
# control not slower) could not have told the winner either: "too-weak".
@dataclasses.dataclass(frozen=True)
class Control:
    name: str            # the component flag's value
    extra: tuple[str, ...]  # flags that make it the control
    label: str           # as tables show it
    why: str

    @property
    def slowed(self) -> bool:
        """Slowed on purpose by its extra flags: no micro ratio of its own
        (the sweep never measured it)."""
        return bool(self.extra)


# The task queue's control is the baseline slowed on purpose: the real
# queues the event-loop sweep ranks far behind (tbb-bounded: 0.33x) are
# behind only where a consumer blocks, and the loop never blocks in its
# queue (it pops with try_pop after the eventfd wakes it), so on 2 cores
# none of them could be told apart end to end (measured 2026-11-23).
CONTROLS: dict[str, Control] = {
    "task_queue": Control(
        "swap-vector", ("--task_queue_slowdown_ns=2000",),
        "swap-vector+2us-per-task",
        "the baseline slowed on purpose: every task popped costs 2 us more "
        "(a busy wait in the loop thread)"),
    "buffer": Control(
        "string", (), "string",
        "a std::string that erases its front on every retrieve (the "
        "buffer sweep's slow reference)"),
    "logger": Control(
        "sync", ("--log_flush_every_line",), "sync+flush-every-line",
        "the sync logger flushing every line: one write(2) per message, "
        "slowed on purpose for this control"),
}

# Repetitions (rounds of baseline, winner and control, rotated) and seconds
# per run, per sweep profile. The exact U-test needs at least 4 runs a side
# to reach p < 0.05 at all (validate_stats.min_p): smoke's one run checks the
# plumbing and is always too-weak.
PROFILES: dict[str, dict[str, Any]] = {
    "smoke": dict(repetitions=1, seconds=0.3),
    "default": dict(repetitions=5, seconds=2.0),
    "full": dict(repetitions=9, seconds=4.0),
}

SAME = "winner is the baseline; nothing to validate"

# The verdict's words per outcome.
VERDICT = {
    Outcome.HELD: "held",
    Outcome.NO_DIFFERENCE: "no difference",
    Outcome.REFUTED: "refuted",
    Outcome.TOO_WEAK: "instrument too weak",
    Outcome.NOTHING_TO_VALIDATE: SAME,
    Outcome.ERROR: "error",
}
MICRO_NA = " (micro n/a)"


def verdict(outcome: Outcome, micro_ratio: Optional[float]) -> str:
    """The verdict for people: VERDICT's words, with MICRO_NA on a ratio
    measured against a winner that came without a micro ratio."""
    text = VERDICT[outcome]
    if micro_ratio is None and outcome not in (Outcome.NOTHING_TO_VALIDATE,
                                               Outcome.ERROR,
                                               Outcome.TOO_WEAK):
        text += MICRO_NA
    return text


def component_flags(comp: str, name: str, log_file: str,
                    extra: Sequence[str] = ()) -> list[str]:
    if comp == "task_queue":
        return ["--task_queue=" + name] + list(extra)
    if comp == "buffer":
        return ["--buffer=" + name] + list(extra)
    return ["--logger=" + name, "--log_file=" + log_file] + list(extra)


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
    ratios = raw.get("micro_ratios")
    if isinstance(ratios, dict):  # optional: the controls' micro ratios
        entry["micro_ratios"] = {k: v for k, v in ratios.items()
                                 if _number(v) is not None}
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

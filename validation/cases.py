# -----------------------------------------------------------------------------
# validation/cases.py
# -----------------------------------------------------------------------------
#
# What the ping-pong validation (run.py) compares: the swappable
# components, their default pairs and positive controls, the cases where
# each matters, the rounds per profile, the question each row answers (the
# candidate), the verdict words, and the winners file.
#
# Winners. results/winners.json (written by `bazel run //bench:pick`, or
# --winners=PATH) holds, under "reactor", one entry per swappable component:
#     {"winner": NAME, "baseline": NAME, "micro_ratio": float|null,
#      "source": "<benchmark group>", "cv": float|null,
#      "leader": NAME,                  (optional: the micro leader the
#                                        pick did not adopt)
#      "micro_ratios": {NAME: float}}   (optional: every ranked
#                                        implementation / the baseline)
# NAMEs are those of the servers' --task_queue/--buffer/--logger/--pool
# flags (--pool: the HTTP server's, as the threadpool sweep names). A
# missing file, malformed JSON, or a missing or malformed entry falls back to
# DEFAULTS for that component, and the output says so (load_winners).
#
# Outcomes. Each row of the validation carries one exact "outcome"
# (pick/outcome.py, read back by pick/read/validation_rows.py by equality), its
# interval's "standing" against the "margin" (pick/margin.py), and a
# "verdict" for people: VERDICT's words and the interval in margin.words'
# terms, with " (micro n/a)" when the candidate came without a micro
# ratio. The row's "winner" key holds the candidate, whatever its question
# (candidate_of).

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Optional, Sequence

# The outcome vocabulary lives at pick's bottom layer (outcome.py,
# standard library only), which pick's validation.py reads back. This
# module is the validation's one door to it: the others import Outcome
# from here.
from pick.outcome import Outcome as Outcome
# The words against a margin (pick/margin.py, standard library only), also
# through this door: decide and rounds take them from here.
from pick.margin import MARGIN as MARGIN, words
from pick.margin import Standing as Standing  # noqa: F401
from pick.margin import standing as standing  # noqa: F401

COMPONENTS = ("task_queue", "buffer", "logger", "thread_pool")

# Used when winners.json or its entry is missing or malformed.
DEFAULTS = {
    "task_queue": dict(winner="bounded-mpmc", baseline="swap-vector"),
    "buffer": dict(winner="ring", baseline="linear"),
    "logger": dict(winner="async-queue-bounded-mpmc", baseline="sync"),
    # The muduo-style pool (a mutex and a condition variable).
    "thread_pool": dict(winner="queue-bounded-mpmc", baseline="mutex"),
}

# Where each component matters. Flags other than the component's own are the
# same for the baseline, candidate and control runs. The default profile
# runs the cases marked default, full runs them all.
CASES: dict[str, list[dict[str, Any]]] = {
    "task_queue": [
        # Few sessions, so each message's hops through the worker loop are
        # a large part of its cost and the rounds stay steady (many
        # sessions made them far noisier: docs/methods.md).
        dict(name="reply-via-queue-10", default=True, protocol="echo",
             threads=1, client_threads=1, block=1024, sessions=10,
             flags=["--reply_via_queue"],
             mode="echo 1 KiB, 10 sessions, 1 I/O thread, every reply posted "
                  "through a worker loop and back: --reply_via_queue"),
        dict(name="reply-via-queue", protocol="echo", threads=2,
             client_threads=2, block=4096, sessions=100,
             flags=["--reply_via_queue"],
             mode="echo 4 KiB, 100 sessions, 2 threads, every reply posted "
                  "through a worker loop and back: --reply_via_queue"),
        # One session: every message crosses to the worker loop and back
        # while both loops idle in between, so a queue that parks and
        # wakes slowly (or wakes its consumer late) adds to every round
        # trip: the latency at the lowest offered load.
        dict(name="reply-via-queue-1", default=True, protocol="echo",
             threads=2, client_threads=1, block=64, sessions=1,
             flags=["--reply_via_queue"],
             mode="echo 64 bytes, 1 session (one message in flight), 2 "
                  "threads, every reply posted through a worker loop and "
                  "back: --reply_via_queue"),
        # The broadcast: every message is one task posted to every I/O
        # loop (servers/chat). 2 loops and the accept loop on the server's
        # core, the load test on the other.
        dict(name="chat-1000", kind="chat", protocol="chat",
             threads=2, client_threads=1, block=64, sessions=1000, rounds=50,
             flags=[],
             mode="chat broadcast to 1000 clients, 2 I/O loops, 50 rounds "
                  "of one 64-byte message (servers/chat)"),
        dict(name="chat-5000", kind="chat", protocol="chat", threads=2,
             client_threads=1, block=64, sessions=5000, rounds=20,
             flags=[],
             mode="chat broadcast to 5000 clients, 2 I/O loops, 20 rounds "
                  "of one 64-byte message (servers/chat)"),
    ],
    "buffer": [
        dict(name="echo-16k", protocol="echo", threads=1,
             client_threads=1, block=16384, sessions=100, flags=[],
             mode="echo 16 KiB, 100 sessions, 1 thread"),
        dict(name="stream-64k", protocol="echo", threads=1,
             client_threads=1, block=65536, sessions=10, flags=[],
             mode="echo 64 KiB blocks (streaming), 10 sessions, 1 thread"),
        dict(name="header-growing", default=True, protocol="header",
             threads=1, client_threads=1, block=1024, sessions=100, flags=[],
             mode="evpp's header/body, every reply's body one byte longer "
                  "(100 to 1123 bytes), 100 sessions, 1 thread"),
    ],
    # server_cores: a core more than the I/O threads, for an async logger's
    # backend, where the machine has one left for the client (kinds.apart:
    # on 2 cores the server has one, the client the other).
    "logger": [
        # One session: a strict ping-pong, every message one log line on
        # the I/O thread's path, and steady rounds (docs/methods.md).
        dict(name="log-per-message-1", default=True, protocol="echo",
             threads=1, client_threads=1, block=4096, sessions=1, flags=[],
             server_cores=2,
             mode="echo 4 KiB, 1 session, 1 I/O thread, one log line per "
                  "message to a file; the server on up to 2 cores"),
        dict(name="log-per-message", protocol="echo",
             threads=1, client_threads=1, block=4096, sessions=100, flags=[],
             server_cores=2,
             mode="echo 4 KiB, 100 sessions, 1 I/O thread, one log line per "
                  "message to a file; the server on up to 2 cores"),
        dict(name="http-access-log", default=True, kind="http",
             protocol="http", threads=1, client_threads=1, block=0,
             sessions=50, flags=[], server_cores=2,
             control_fraction=0.25,  # 10% went undetected (methods.md)
             mode="GET /collect under wrk -t1 -c50 (servers/http), one "
                  "access-log line per request to a file; the "
                  "server on up to 2 cores"),
    ],
    # GET /work (servers/http): the I/O thread submits the route's CPU work
    # to the pool. One connection: each task finds the pool idle and waits
    # for its hand-off, the class the pick ranks (1 submitter). budget_s:
    # the case's cap on its share of a profile's budget.
    "thread_pool": [
        dict(name="http-pool", default=True, kind="http", protocol="http",
             threads=1, client_threads=1, block=0, sessions=1, path="/work",
             flags=["--pool_threads=1", "--work_ns=20000"], server_cores=2,
             budget_s=dict(default=60.0), control_fraction=0.25,  # as above
             mode="GET /work under wrk -t1 "
             "-c1, 20 us of work per request on a pool of 1 thread, the "
             "reply from the I/O loop; the server on up to 2 cores"),
        # 50 connections: the pool is never idle between tasks.
        dict(name="http-pool-50", kind="http", protocol="http", threads=1,
             client_threads=1, block=0, sessions=50, path="/work",
             flags=["--pool_threads=1", "--work_ns=20000"], server_cores=2,
             mode="GET /work under wrk -t1 -c50, 20 us of work per request "
             "on a pool of 1 thread; the server on up to 2 cores"),
    ],
}


# The positive control of each component: the row's baseline slowed on
# purpose by a stated cost per operation (a busy wait that burns thread CPU
# time, components/by_name.h), run beside the baseline and the
# candidate in every round. The cost is sized from the case's own first
# baseline run: CONTROL_FRACTION of the server's CPU per operation, so the
# control should slow the server by about twice the target MDE. A case that
# cannot tell the control from the baseline could not have told the
# candidate either: "too-weak". The server's stop line counts the
# operations (`ops`: a regular expression per workload kind).
@dataclasses.dataclass(frozen=True)
class Control:
    flag: str            # the server flag that takes the cost in ns
    op: str              # the operation that pays it, for people
    ops: dict[str, str]  # workload kind -> regex of the count on the stop line
    per_kib: bool = False  # the count is bytes and the cost is per KiB

    def label(self, baseline: str) -> str:
        return "%s+slowed" % baseline

    def flags(self, ns: int) -> list[str]:
        return ["%s=%d" % (self.flag, ns)]


# components/'s stop line, for a server built on it (whatif's "user"
# workload): "serverkit components: tasks run N, bytes in N, log lines N,
# pool tasks run N".
LIBRARY_LINE = r"serverkit components:"
CONTROLS: dict[str, Control] = {
    "task_queue": Control("--task_queue_slowdown_ns", "task popped",
                          dict(pingpong=r"tasks run (\d+)",
                               chat=r"tasks run (\d+)",
                               user=LIBRARY_LINE + r" tasks run (\d+)")),
    "buffer": Control("--buffer_slowdown_ns_per_kib", "KiB consumed",
                      dict(pingpong=r"bytes in (\d+)",
                           user=LIBRARY_LINE + r".* bytes in (\d+)"),
                      per_kib=True),
    "logger": Control("--log_slowdown_ns", "log line",
                      dict(pingpong=r"messages (\d+)",
                           http=r"replies (\d+) \(200:",
                           user=LIBRARY_LINE + r".* log lines (\d+)")),
    # The I/O thread spins before each submit: the pool's stop line.
    "thread_pool": Control("--pool_slowdown_ns", "task submitted",
                           dict(http=r"pool [^:]*: tasks run (\d+)",
                                user=LIBRARY_LINE +
                                r".* pool tasks run (\d+)")),
    # A probe site (probe/probe.h) in a server serverkit did not build:
    # whatif --probe; user_server.py turns the flags into SERVERKIT_PROBE.
    "probe": Control("--probe_ns", "probe pass",
                     dict(user=r"probe \S+ passes (\d+)")),
}

# What a case aims for: add rounds until the candidate's interval is
# narrow enough to decide equivalence at the margin m (high / low <= (1 +
# m)^2) and the control is detected, or the case's share of the budget is
# spent (decide.stop_rule). The control costs CONTROL_FRACTION of
# the baseline's server CPU, twice the default margin.
CONTROL_FRACTION = 2 * MARGIN

# Rounds (baseline, candidate and two controls, in a Williams order) per
# profile: every case runs min_rounds, then more until its interval is
# narrow enough (above), its share of budget_s is spent or max_rounds;
# seconds per run; which cases: the first of each component (smoke), those
# marked default, or all. The exact signed-rank test needs 6 rounds to
# reach p < 0.05 at all: smoke's one round checks the plumbing and is
# always too-weak.
PROFILES: dict[str, dict[str, Any]] = {
    "smoke": dict(min_rounds=1, max_rounds=1, budget_s=0.0, seconds=0.3,
                  cases="first"),
    "default": dict(min_rounds=6, max_rounds=60, budget_s=380.0,
                    seconds=0.5, cases="default"),
    "full": dict(min_rounds=8, max_rounds=60, budget_s=1500.0, seconds=2.0,
                 cases="all"),
}


def profile_cases(comp: str, which: str) -> list[dict[str, Any]]:
    """The component's cases a profile runs (PROFILES' "cases")."""
    cases = CASES[comp]
    if which == "first":
        return cases[:1]
    if which == "default":
        return [c for c in cases if c.get("default")]
    return list(cases)


# The question a component's row answers (its "question"):
#   pick         the micro pick left the baseline: does it win end to end?
#   alternative  the micro pick is the baseline (a tie or no verdict): does
#                leaving it for the best alternative matter end to end?
#   default      winners.json gave no pair: the DEFAULTS pair, not a pick
QUESTIONS = {
    "pick": "the micro pick against the baseline",
    "alternative": "the best alternative against the baseline the micro "
                   "pick kept",
    "default": "default pair, not a micro pick",
}


def candidate_of(e: dict[str, Any]) -> tuple[Optional[str], str]:
    """(the implementation to run against the baseline, the question): the
    micro pick when it left the baseline; else the leader the pick did not
    adopt, or the best other implementation by micro ratio; None when there
    is no other."""
    if e["origin"] == "default":
        return e["winner"], "default"
    if e["winner"] != e["baseline"]:
        return e["winner"], "pick"
    leader = e.get("leader")
    if isinstance(leader, str) and leader and leader != e["baseline"]:
        return leader, "alternative"
    others: dict[str, float] = {
        k: v for k, v in (e.get("micro_ratios") or {}).items()
        if k != e["baseline"]}
    if others:
        return max(sorted(others), key=lambda k: others[k]), "alternative"
    return None, "alternative"


SAME = "no implementation but the baseline; nothing to validate"

# The verdict's words per outcome; a measured one is followed by what the
# interval says against the margin (margin.words): "held: ring ahead of
# linear by 2.0-8.1%".
VERDICT = {
    Outcome.HELD: "held",
    Outcome.EQUIVALENT: "equivalent",
    Outcome.NOT_TOLD_APART: "not told apart",
    Outcome.REFUTED: "refuted",
    Outcome.TOO_WEAK: "instrument too weak",
    Outcome.NOTHING_TO_VALIDATE: SAME,
    Outcome.ERROR: "error",
}
MICRO_NA = " (micro n/a)"
# The outcomes that say what the candidate's interval shows.
MEASURED = (Outcome.HELD, Outcome.EQUIVALENT, Outcome.NOT_TOLD_APART,
            Outcome.REFUTED)


def verdict(outcome: Outcome, micro_ratio: Optional[float],
            detail: str = "") -> str:
    """The verdict for people: VERDICT's words, then ": " and the detail
    (the interval in words) on a measured outcome, with MICRO_NA on a
    ratio measured against a candidate that came without a micro ratio."""
    text = VERDICT[outcome]
    if detail and outcome in MEASURED:
        text += ": " + detail
    if micro_ratio is None and outcome in MEASURED:
        text += MICRO_NA
    return text


def interval_words(candidate: str, baseline: str, low: Optional[float],
                   high: Optional[float], margin: float = MARGIN) -> str:
    """The candidate's interval against the baseline in margin.words'
    terms: 'ring ahead of linear by 2.0-8.1%'."""
    return words(candidate, baseline, low, high, margin)


def component_flags(comp: str, name: str, log_file: str,
                    extra: Sequence[str] = ()) -> list[str]:
    if comp == "task_queue":
        return ["--task_queue=" + name] + list(extra)
    if comp == "buffer":
        return ["--buffer=" + name] + list(extra)
    if comp == "thread_pool":
        return ["--pool=" + name] + list(extra)
    if comp == "probe":  # "off": no spin, no count; else counting at 0 ns
        return ([] if name == "off" else ["--probe_ns=0"]) + list(extra)
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
    leader = raw.get("leader")
    entry = dict(winner=raw["winner"], baseline=baseline,
                 micro_ratio=_number(raw.get("micro_ratio")),
                 source=source if isinstance(source, str) else None,
                 cv=_number(raw.get("cv")), origin="winners.json",
                 leader=leader if isinstance(leader, str) else None)
    if isinstance(metric, str) and metric:  # optional, for the sentence
        entry["metric"] = metric
    ratios = raw.get("micro_ratios")
    if isinstance(ratios, dict):  # optional: every ranked implementation's
        entry["micro_ratios"] = {k: _number(v) for k, v in ratios.items()
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

# -----------------------------------------------------------------------------
# pick/decide/workloads.py
# -----------------------------------------------------------------------------
#
# The workload classes, pick's own part of the vocabulary: per family, which
# groups form a workload class (key, title, scenarios, the group filter,
# workload narrowing, the latency flag) and which implementations may win it.
# Everything else (per scenario: metric, direction, unit, baseline, counters
# to show, vs_floor, reference; each implementation's traits) comes from the
# result file's context (read/sweeps.py); picking.class_rule() joins the two.
#
# Candidates: an implementation whose traits say "reference" never wins; the
# event-loop class and the reactor's task queue leave out "topology": "spsc"
# queues; the reactor's logger is chosen among "server": true loggers.
#
# Workload flags (Workload) narrow the recommendation: --producers /
# --consumers choose the queue classes that fit (1:1, N:1, 1:N, N:N) and the
# nearest measured producer counts (also pool submitters and logger
# callers); --payload the nearest measured message / block size (logger
# bytes, buffer fd_echo bytes and framed msg); --latency-bound keeps the
# latency classes of the families that have one (queues, pools, loggers).

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional, TypedDict

# A group's parameters as a dict, and an implementation's traits.
ParamsDict = dict[str, Any]
Traits = dict[str, Any]


class WorkloadDict(TypedDict):
    """The workload flags as winners.json writes them."""

    producers: Optional[int]
    consumers: Optional[int]
    payload: Optional[int]
    latency_bound: bool


@dataclasses.dataclass
class Workload:
    """The workload flags; None (False) where not given."""

    producers: Optional[int] = None
    consumers: Optional[int] = None
    payload: Optional[int] = None
    latency_bound: bool = False

    def given(self) -> bool:
        return any(v is not None for v in
                   (self.producers, self.consumers, self.payload)) or \
            self.latency_bound

    def as_dict(self) -> WorkloadDict:
        return WorkloadDict(producers=self.producers,
                            consumers=self.consumers, payload=self.payload,
                            latency_bound=self.latency_bound)

    def serves(self, traits: Traits) -> Optional[str]:
        """Why an implementation with these traits cannot serve the
        workload (a single-producer queue for several producers), or
        None when it can or its traits do not say."""
        topo = traits.get("topology")
        many_p = self.producers is not None and self.producers > 1
        many_c = self.consumers is not None and self.consumers > 1
        if many_p and topo in ("spsc", "spmc"):
            return "single-producer"
        if many_c and topo in ("spsc", "mpsc"):
            return "single-consumer"
        return None

    def unmeasured(self, narrow: dict[str, str]) -> list[str]:
        """The workload's thread counts above 1 that a class with these
        `narrow` parameters does not vary: it measured another shape."""
        return ["%s=%d" % (k, v) for k, v in (
            ("producers", self.producers), ("consumers", self.consumers))
            if v is not None and v > 1 and k not in narrow.values()]

    def slug(self) -> str:
        """The flags as a folder name: "producers-4_latency-bound"."""
        parts = ["%s-%s" % (k, getattr(self, k)) for k in (
            "producers", "consumers", "payload") if getattr(self, k)
            is not None]
        return "_".join(parts + (["latency-bound"] if self.latency_bound
                                 else [])) or "any"

    def describe(self) -> str:
        parts = []
        for k in ("producers", "consumers", "payload"):
            v = getattr(self, k)
            if v is not None:
                parts.append("%s=%s" % (k, v))
        if self.latency_bound:
            parts.append("latency-bound")
        return ", ".join(parts) if parts else "any (no workload flags)"


def _every_group(params: ParamsDict) -> bool:
    return True


def _every_workload(workload: Workload) -> bool:
    return True


def _every_impl(traits: Traits) -> bool:
    return True


@dataclasses.dataclass(eq=False)
class ClassDef:
    """One workload class of a family: which groups it ranks (pick's own).
    How they are ranked (metric, direction, unit, baseline, counters to show)
    is the file's rule for the class's scenarios; see picking.class_rule().
    `where` (a group's params -> bool) filters the groups; `applies`
    (workload -> bool) says whether the class fits the workload flags;
    `narrow` maps a parameter to the Workload attribute that narrows it;
    `fits` (traits -> bool) says which implementations may win here; `unfit`
    says why the others may not."""

    key: str
    title: str
    scenarios: list[str]
    where: Callable[[ParamsDict], bool] = _every_group
    applies: Callable[[Workload], bool] = _every_workload
    latency: bool = False
    narrow: dict[str, str] = dataclasses.field(default_factory=dict)
    fits: Callable[[Traits], bool] = _every_impl
    unfit: str = ""


@dataclasses.dataclass(eq=False)
class FamilySpec:
    """A family's title and its workload classes, in report order."""

    title: str
    classes: list[ClassDef]


def multi_producer(traits: Traits) -> bool:
    """The reactor's task queue has many producers: no SPSC queue."""
    return traits.get("topology") != "spsc"


def server_logger(traits: Traits) -> bool:
    """The loggers //servers/pingpong:server accepts."""
    return traits.get("server") is True


def _shape(p_ok: Callable[[int], bool], c_ok: Callable[[int], bool]
           ) -> tuple[Callable[[ParamsDict], bool],
                      Callable[[Workload], bool]]:
    def applies(w: Workload) -> bool:
        return ((w.producers is None or p_ok(w.producers)) and
                (w.consumers is None or c_ok(w.consumers)))

    def where(p: ParamsDict) -> bool:
        return p_ok(p.get("producers", 0)) and c_ok(p.get("consumers", 0))
    return where, applies


def _one(n: int) -> bool:
    return n == 1


def _many(n: int) -> bool:
    return n > 1


def _queue_shape(key: str, title: str, p_ok: Callable[[int], bool],
                 c_ok: Callable[[int], bool]) -> ClassDef:
    where, applies = _shape(p_ok, c_ok)
    return ClassDef(key, title, ["throughput"], where=where, applies=applies,
                    narrow={"producers": "producers",
                            "consumers": "consumers"})


FAMILY_SPECS = {
    "queues": FamilySpec(
        title="queues",
        classes=[
            _queue_shape("1:1", "1 producer, 1 consumer", _one, _one),
            _queue_shape("N:1", "many producers, 1 consumer", _many, _one),
            _queue_shape("1:N", "1 producer, many consumers", _one, _many),
            _queue_shape("N:N", "many producers, many consumers", _many,
                         _many),
            ClassDef("N:N pairs", "every thread pushes one item, then pops "
                     "one: both ends contended, one thread per core",
                     ["pairs"], applies=_shape(_many, _many)[1],
                     narrow={"threads": "producers"}),
            ClassDef("latency-bound", "round trip through two queues, p50",
                     ["latency"], latency=True),
            ClassDef("event loop", "tasks posted to one loop thread, "
                     "coalesced wake-ups (the reactor's pattern)",
                     ["eventloop"], where=lambda p: p.get("coalesce") == 1,
                     fits=multi_producer, unfit="single-producer",
                     narrow={"producers": "producers"}),
        ]),
    "threadpool": FamilySpec(
        title="thread pools",
        classes=[
            ClassDef("tiny tasks", "a flood of tiny tasks (empty and ~1 us)",
                     ["tiny"], narrow={"submitters": "producers"}),
            ClassDef("fan-out", "parallel-for of ~2 us chunks, then wait",
                     ["fanout"]),
            ClassDef("blocking tasks", "tasks that sleep 2 ms", ["sleep"]),
            ClassDef("hand-off latency",
                     "submit-to-start of an idle pool, p50",
                     ["latency"], latency=True,
                     narrow={"submitters": "producers"}),
        ]),
    "logger": FamilySpec(
        title="loggers",
        classes=[
            ClassDef("latency-bound", "time per call on the caller's thread, "
                     "p50", ["latency-file", "latency-console"], latency=True,
                     narrow={"callers": "producers", "bytes": "payload"}),
            ClassDef("throughput-bound",
                     "messages until flushed to the kernel",
                     ["throughput-file", "throughput-console"],
                     narrow={"callers": "producers", "bytes": "payload"}),
        ]),
    "buffer": FamilySpec(
        title="buffers",
        classes=[
            ClassDef("stream", "byte stream: Burger's append/retrieve/prepend"
                     " and read_fd/write_fd echo", ["burger", "fd_echo"],
                     narrow={"bytes": "payload"}),
            ClassDef("framed", "length-prefixed messages parsed from chunks",
                     ["framed"], narrow={"msg": "payload"}),
        ]),
}


def class_of(family: str, key: str) -> ClassDef:
    """The family's workload class named `key`."""
    return [c for c in FAMILY_SPECS[family].classes if c.key == key][0]

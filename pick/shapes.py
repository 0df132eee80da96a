# -----------------------------------------------------------------------------
# pick/shapes.py
# -----------------------------------------------------------------------------
#
# The records pick reads as JSON, typed (what it decides: decisions.py):
# TypedDicts, so the objects stay the plain dicts json.load gives, while
# mypy checks every key read.
# Every key is optional (total=False): the files come from several writers
# and ages, and readers .get() what may be missing.
#
#   ResultContext   a result file's context (Google Benchmark's, plus the
#                   sweep's vocabulary under "serverkit": ServerkitContext)
#   ResultDoc       a result file (context, benchmarks)
#   RunContext      the context of pingpong.json, chat.json and http.json
#   EchoPoint       one ping-pong echo point (pingpong.json's "echo")
#   ValidationRow   one row of pingpong.json's "validation" as pick reads it
#   PingpongDoc     pingpong.json
#   ChatPoint, ChatDoc   chat.json's points, and chat.json
#   HttpPoint, HttpDoc   http.json's points, and http.json
#
# And the run documents' readers: load_doc(), load_pingpong(),
# load_server_runs() (results.py passes them on).
#
# Standard library only; the bottom layer (see pick.py's header).

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Optional, TypedDict, Union, cast

# A JSON value that pick only passes on or checks with isinstance().
Json = Any


class ServerkitContext(TypedDict, total=False):
    """context.serverkit: the sweep's vocabulary (results.py reads it)."""

    schema: int
    family: str
    profile: str
    machine: dict[str, Json]
    impls: dict[str, dict[str, Json]]
    scenarios: dict[str, Json]
    rankings: Json
    floor: Json
    repetitions: Optional[int]
    processes: int
    interleaved: Optional[bool]
    rounds: Json
    part: dict[str, int]


class ResultContext(TypedDict, total=False):
    """A result file's "context" (Google Benchmark's keys that pick reads,
    and the sweep's own)."""

    serverkit: ServerkitContext
    profile: str
    cores: int
    num_cpus: int
    host_name: str
    mhz_per_cpu: Union[int, float]
    date: str
    load_avg: list[float]
    pinning: str
    library_build_type: str
    confirms: str       # a confirmation file: the sweep run it confirms


# One row of a result file's "benchmarks": Google Benchmark's fields and
# the run's counters, by their names (open-ended).
BenchmarkRow = dict[str, Json]


class ResultDoc(TypedDict, total=False):
    """A result file (Google Benchmark's JSON) as merge.py reads it."""

    context: ResultContext
    benchmarks: list[BenchmarkRow]


class RunContext(TypedDict, total=False):
    """The "context" of pingpong.json, chat.json and http.json."""

    profile: str
    cores: int
    kernel: str
    seconds_per_point: Union[int, float]
    repetitions: int
    loadavg_at_start: Json
    pin: Json
    rounds: int
    message_size: int
    wrk_threads: int
    nginx_version: str


class EchoPoint(TypedDict, total=False):
    """One ping-pong echo point."""

    server: str
    server_threads: int
    blocksize: int
    sessions: int
    repetition: int
    ok: bool
    mib_per_s: float
    server_cpu_ms_per_mib: float
    client_bound: bool


class ValidationRow(TypedDict, total=False):
    """A validation row as pick reads it (validation.validation_entries():
    component always set; outcome checked)."""

    component: str
    name: str
    case: str
    outcome: str
    question: str
    origin: str
    baseline: str
    winner: str
    micro_ratio: Json
    e2e_ratio: Json
    e2e: Json
    control_e2e: Json
    control_cost: Json
    rounds: Json
    stop: Optional[str]
    mde: Json
    metric_kind: Json
    verdict: str


class PingpongDoc(TypedDict, total=False):
    """pingpong.json ("validation": rows, or a mapping with its settings;
    validation.py reads it; "latency": latency_doc.py reads it)."""

    context: RunContext
    echo: list[EchoPoint]
    notes: list[str]
    paired: list[Json]
    validation: Json
    latency: Json


class Quantiles(TypedDict, total=False):
    p50: float
    p99: float


class ChatPoint(TypedDict, total=False):
    """One chat broadcast point."""

    server: str
    threads: int
    clients: int
    ok: bool
    client_bound: bool
    round_ms: Quantiles
    delivery_us: Quantiles
    server_cpu_us_per_delivery: float


class HttpPoint(TypedDict, total=False):
    """One HTTP point under wrk."""

    server: str
    threads: int
    connections: int
    ok: bool
    client_bound: bool
    access_log: bool
    requests_per_s: float
    latency_ms: Quantiles
    server_cpu_us_per_request: float


class ChatDoc(TypedDict, total=False):
    """chat.json."""

    context: RunContext
    points: list[ChatPoint]
    interrupted: bool
    notes: list[str]
    paired: list[Json]


class HttpDoc(TypedDict, total=False):
    """http.json ("latency": latency_doc.py reads it)."""

    context: RunContext
    points: list[HttpPoint]
    interrupted: bool
    notes: list[str]
    paired: list[Json]
    latency: Json


def load_doc(directory: str, name: str) -> Optional[dict[str, Any]]:
    """A JSON object file of the directory; None when missing or not one."""
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def load_pingpong(directory: str) -> Optional[PingpongDoc]:
    """pingpong.json as read (its shape unchecked: readers .get() what
    may be missing)."""
    return cast(Optional[PingpongDoc], load_doc(directory, "pingpong.json"))


@dataclasses.dataclass(frozen=True)
class ServerRuns:
    """The server workloads beside the ping-pong, each None when its file
    is missing or unreadable: results/chat.json (//bench:chat) and
    results/http.json (//bench:http)."""
    chat: Optional[ChatDoc] = None
    http: Optional[HttpDoc] = None


def load_server_runs(directory: str) -> ServerRuns:
    return ServerRuns(
        chat=cast(Optional[ChatDoc], load_doc(directory, "chat.json")),
        http=cast(Optional[HttpDoc], load_doc(directory, "http.json")))

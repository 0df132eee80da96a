# -----------------------------------------------------------------------------
# validation/micro.py
# -----------------------------------------------------------------------------
#
# The micro benchmark's cost per operation of each implementation, per
# round, for the prediction (model.py): read from the sweeps'
# Google Benchmark files beside winners.json (results/<family>.json) and
# from the confirmation rounds (results/confirm/<family>.json), which
# are fresh rounds and so free of the winner's curse; an implementation
# the confirmation did not run is read from the sweep, with its baseline
# from the same file, and says so.
#
# The metric that predicts a case (METRICS, chosen by metric_for):
#   cpu     the total CPU of every thread per operation (`cpu_ns_per_item`,
#           or a single-threaded benchmark's own CPU time): what an
#           operation costs a server with no spare core, where the
#           component's other half (a consumer loop, a logger's backend)
#           runs on the same core as the I/O.
#   caller  the caller's latency (the logger's p50 per call): what an
#           operation costs the I/O thread where the other half has a
#           spare core to run on.
#   handoff the pool's submit-to-start p50 on an idle pool: what a request
#           waits for its task to start where it finds the pool idle.

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import statistics
from typing import Any, Callable, Optional

Bench = dict[str, Any]
# {implementation: {round: ns per operation}}
Costs = dict[str, dict[int, float]]

FAMILY = {"task_queue": "queues", "buffer": "buffer", "logger": "logger",
          "thread_pool": "threadpool"}
# Google Benchmark's own name suffixes, not parameters.
_SUFFIXES = ("iterations:", "min_time:", "repeats:", "threads:")


@dataclasses.dataclass(frozen=True)
class Metric:
    key: str           # "cpu", "caller" or "handoff"
    scenario: str
    what: str          # for people
    value: Callable[[Bench, dict[str, int]], Optional[float]]
    # The parameter chosen by the case's size (nearest measured value).
    sized: Optional[str] = None
    fixed: tuple[tuple[str, int], ...] = ()


def _counter(name: str) -> Callable[[Bench, dict[str, int]],
                                    Optional[float]]:
    def value(b: Bench, params: dict[str, int]) -> Optional[float]:
        v = b.get(name)
        return float(v) if isinstance(v, (int, float)) and v > 0 else None
    return value


def _cpu_per_kib(b: Bench, params: dict[str, int]) -> Optional[float]:
    """server_echo: the server's CPU for one message of `bytes` (read_fd,
    write, retrieve; the peer's calls left out, as the server's CPU per
    message leaves out the client's), per KiB."""
    t, n = b.get("cpu_ns_per_msg"), params.get("bytes")
    if not isinstance(t, (int, float)) or t <= 0 or not n:
        return None
    return float(t) * 1024.0 / n


METRICS: dict[str, dict[str, Metric]] = {
    "task_queue": {"cpu": Metric(
        "cpu", "eventloop", "CPU per task, every thread (the event-loop "
        "class's cpu_ns_per_item)", _counter("cpu_ns_per_item"))},
    # The server's half of an echo only: fd_echo's CPU also pays the
    # peer's write and read, which put the buffer's share over 100%.
    "buffer": {"cpu": Metric(
        "cpu", "server_echo", "the server's CPU per KiB consumed "
        "(server_echo: read_fd, write, retrieve; not the peer's calls)",
        _cpu_per_kib, sized="bytes")},
    "logger": {
        # The server's situation (shared-core-file: caller and backend on
        # one busy core, access-log lines); latency-file's (an unpinned
        # backend beside a caller that sleeps) moved between 0.24 and 2.7
        # us a line (methods.md, "The logger's cost in situ").
        "cpu": Metric("cpu", "shared-core-file", "CPU per line, every "
                      "thread (shared-core-file's cpu_ns_per_item: caller "
                      "and backend on one core)",
                      _counter("cpu_ns_per_item"),
                      fixed=(("callers", 1), ("ws_kib", 64))),
        "caller": Metric("caller", "latency-file", "the caller's p50 per "
                         "line (latency-file, 1 caller)", _counter("p50_ns"),
                         sized="bytes", fixed=(("callers", 1),))},
    # The pick's class (hand-off latency: submit to start on an idle pool)
    # at 1 submitter, the HTTP server's one I/O thread. The sweep has no
    # CPU per task here: the wait it measures is wall time.
    "thread_pool": {"handoff": Metric(
        "handoff", "latency", "the hand-off's p50, submit to start on an "
        "idle pool (latency's p50_ns, 1 submitter)", _counter("p50_ns"),
        fixed=(("submitters", 1),))},
}
# The bytes of a log line the servers write (an access-log or per-message
# line is about this long): the logger's micro size nearest to it.
LOG_LINE_BYTES = 100


def metric_for(comp: str, spare_core: bool) -> tuple[Metric, str]:
    """The micro metric that predicts a case, and why."""
    m = METRICS[comp]
    if "caller" in m and spare_core:
        return m["caller"], ("the server had a core more than its I/O "
                             "threads: the logger's backend runs there, "
                             "and the I/O thread pays the call only")
    if "handoff" in m:
        return m["handoff"], ("a request waits from its task's submit to "
                              "its start: the hand-off's wall time")
    if "caller" in m:
        return m["cpu"], ("the server had no core beyond its I/O threads: "
                          "the backend's CPU is taken from the same core, "
                          "so the whole CPU per line counts")
    return m["cpu"], "the server's core pays every thread's CPU per operation"


def parse_name(name: str) -> Optional[tuple[str, str, str, dict[str, int]]]:
    """(family, scenario, implementation, params) of a run name."""
    parts = name.split("/")
    if len(parts) < 3:
        return None
    params: dict[str, int] = {}
    for p in parts[3:]:
        if ":" not in p or p.startswith(_SUFFIXES):
            continue
        k, _, v = p.partition(":")
        try:
            params[k] = int(v)
        except ValueError:
            continue
    return parts[0], parts[1], parts[2], params


def load(path: str) -> list[Bench]:
    """The file's iteration runs; [] when it is missing or unreadable.
    Parsed once per version of the file: the load map reads the same
    (megabytes of) sweep file at every point."""
    try:
        st = os.stat(path)
    except OSError:
        return []
    return list(_load(path, st.st_mtime_ns, st.st_size))


@functools.lru_cache(maxsize=16)
def _load(path: str, mtime_ns: int, size: int) -> tuple[Bench, ...]:
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return ()
    runs = doc.get("benchmarks") if isinstance(doc, dict) else None
    return tuple(b for b in runs or [] if isinstance(b, dict) and
                 b.get("run_type", "iteration") == "iteration" and
                 not b.get("error_occurred"))


def nearest(values: list[int], want: int) -> Optional[int]:
    """The measured value nearest to want on a log scale."""
    ok = [v for v in values if v > 0]
    if not ok or want <= 0:
        return min(ok) if ok else None
    return min(ok, key=lambda v: (abs(math.log(v / want)), v))


def costs(runs: list[Bench], family: str, metric: Metric,
          params: dict[str, int], size: int) -> tuple[Costs, dict[str, int]]:
    """Per implementation, per round, the metric's ns per operation in the
    group of the scenario with `params` (plus the metric's fixed ones and
    its sized parameter nearest to `size`); the group's params."""
    want = dict(params)
    want.update(dict(metric.fixed))
    mine = []
    for b in runs:
        p = parse_name(str(b.get("name", "")))
        if p and p[0] == family and p[1] == metric.scenario and all(
                p[3].get(k) == v for k, v in want.items()):
            mine.append((b, p))
    if metric.sized:
        v = nearest(sorted({p[3].get(metric.sized, 0) for _, p in mine}),
                    size)
        want[metric.sized] = v or 0
        mine = [(b, p) for b, p in mine if p[3].get(metric.sized) == v]
    out: dict[str, dict[int, list[float]]] = {}
    for b, p in mine:
        if set(p[3]) != set(want):
            continue
        x = metric.value(b, p[3])
        if x is None:
            continue
        rnd = int(b.get("round") or 0)
        out.setdefault(p[2], {}).setdefault(rnd, []).append(x)
    return ({impl: {r: statistics.median(v) for r, v in rounds.items()}
             for impl, rounds in out.items()}, want)


def group_params(group: Optional[str]) -> dict[str, int]:
    """The params of a reactor entry's group: "queues/eventloop/producers:2
    /coalesce:1" gives {"producers": 2, "coalesce": 1}."""
    p = parse_name("-/-/-/" + "/".join((group or "").split("/")[2:]))
    return p[3] if p else {}


@dataclasses.dataclass
class MicroCosts:
    """The costs of one case's metric from the confirmation and the sweep."""
    metric: Metric
    why: str
    params: dict[str, int]
    confirm: Costs
    sweep: Costs
    files: dict[str, str]

    def source_of(self, impl: str, baseline: str) -> Optional[str]:
        """"confirm" where the confirmation ran impl and the baseline, else
        "sweep" where the sweep did; None where neither."""
        for name, c in (("confirm", self.confirm), ("sweep", self.sweep)):
            if impl in c and baseline in c:
                return name
        return None


def micro_costs(results_dir: str, comp: str, group: Optional[str],
                size: int, spare_core: bool) -> MicroCosts:
    """The case's micro costs (the header) from the files in results_dir."""
    metric, why = metric_for(comp, spare_core)
    family = FAMILY[comp]
    params = group_params(group) if metric.scenario == "eventloop" else {}
    files = dict(
        confirm=os.path.join(results_dir, "confirm", family + ".json"),
        sweep=os.path.join(results_dir, family + ".json"))
    size = LOG_LINE_BYTES if comp == "logger" else size
    got = {k: costs(load(f), family, metric, params, size)
           for k, f in files.items()}
    params = got["confirm"][1] if got["confirm"][0] else got["sweep"][1]
    return MicroCosts(metric, why, params, got["confirm"][0],
                      got["sweep"][0], files)

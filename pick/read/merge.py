# -----------------------------------------------------------------------------
# pick/read/merge.py
# -----------------------------------------------------------------------------
#
# `pick --merge OUT PART...`: bench/sweep.sh runs each sweep as N processes
# (--part=K/N, part {index, of} in each file's context) and merge_parts()
# joins their files into one Google Benchmark document: every repetition
# keeps its process (`"process": K`), the context gets `processes` and
# floor.parts (each process's floor before and after). Reading the merged
# file (read/sweeps.py), Cell.process_medians() gives each process's median,
# and
# the noise rule (decide/stats.py) counts X ahead of Y only when every process
# agrees, so that a process-level effect (where the heap landed, which vCPUs
# the host gave) makes a tie, never a confident winner.
#
# A sweep in paired rounds (context.serverkit.rounds): each run keeps its
# round, so its pairing key becomes (process, round) (decide/paired_rounds.py);
# the
# merged rounds object keeps every part's (rounds.parts, with its process)
# and sums them per unit (merge_rounds()).
#
# Exit 2 from `pick --merge` (cli.py) when the files are not the N parts of
# one sweep: MergeError says which file and why.

from __future__ import annotations

import copy
import json
from typing import Any, Optional, TypedDict, cast

from pick.read import sweeps
from pick.records import BenchmarkRow, ResultDoc
from pick import records


class MergedPart(TypedDict):
    """One process's floor in the merged floor.parts."""

    process: int
    before: Any
    after: Any
    drifted: Any


class MergeError(ValueError):
    """Part files that are not the N processes of one sweep."""


def _read_part(path: str) -> ResultDoc:
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise MergeError("%s: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise MergeError("%s: not JSON (%s)" % (path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"),
                                                   list):
        raise MergeError("%s: no 'benchmarks' list (not Google Benchmark's "
                         "JSON)" % path)
    context = doc.get("context")
    if not isinstance(context, dict):
        raise MergeError("%s: no context" % path)
    try:
        sweeps.check_vocabulary(path, context)
    except records.VocabularyError as e:
        raise MergeError(str(e))
    part = context["serverkit"].get("part")
    if not (isinstance(part, dict) and
            all(isinstance(part.get(k), int) for k in ("index", "of"))):
        raise MergeError("%s: no context.serverkit.part (not run with "
                         "--part=K/N)" % path)
    return cast(ResultDoc, doc)  # as read, its vocabulary checked


def merge_parts(paths: list[str]) -> ResultDoc:
    """Joins the result files of one sweep run as N processes (each with
    --part=K/N, K = 1..N) into one Google Benchmark document.

    Every repetition is kept, with `"process": K` added; the parts' own
    aggregates (each over its few repetitions) are dropped, so medians and
    CVs are taken over all repetitions. The context is part 1's, with
    serverkit.repetitions the total, serverkit.processes = N, the floor
    before from the first process and after from the last, and every
    process's before/after in floor.parts. Raises MergeError (a ValueError,
    the message naming the file) unless the files are parts 1..N of one
    family, profile and set of ranking rules."""
    if not paths:
        raise MergeError("no part files to merge")
    docs = [(p, _read_part(p)) for p in paths]
    first_path, first = docs[0]
    sk0 = first["context"]["serverkit"]
    n = sk0["part"]["of"]
    if len(paths) != n:
        raise MergeError("%s says it is one of %d parts; %d file(s) given"
                         % (first_path, n, len(paths)))
    for path, doc in docs[1:]:
        sk = doc["context"]["serverkit"]
        for key in ("family", "profile", "schema", "rankings"):
            if sk.get(key) != sk0.get(key):
                raise MergeError("%s: its %s differs from %s's" % (
                    path, key, first_path))
        if sk["part"]["of"] != n:
            raise MergeError("%s: part of %d, not of %d" % (
                path, sk["part"]["of"], n))
    docs.sort(key=lambda pd: int(pd[1]["context"]["serverkit"]["part"][
        "index"]))
    indices = [d["context"]["serverkit"]["part"]["index"] for _, d in docs]
    if indices != list(range(1, n + 1)):
        raise MergeError("parts %s given; want each of 1..%d once" % (
            ", ".join(map(str, indices)), n))

    out = copy.deepcopy(docs[0][1])
    sk = out["context"]["serverkit"]
    benchmarks: list[BenchmarkRow] = []
    reasons: list[str] = []
    parts: list[MergedPart] = []
    total = 0
    for k, (path, doc) in enumerate(docs, start=1):
        psk = doc["context"]["serverkit"]
        reps = psk.get("repetitions")
        floor = psk.get("floor")
        fl = floor if isinstance(floor, dict) else {}
        parts.append(MergedPart(process=k, before=fl.get("before"),
                                after=fl.get("after"),
                                drifted=fl.get("drifted")))
        for r in fl.get("drift_reasons") or []:
            reasons.append("process %d: %s" % (k, r))
        offset = total
        total += reps if isinstance(reps, int) else 0
        for b in doc["benchmarks"]:
            if not isinstance(b, dict) or b.get("run_type") == "aggregate":
                continue
            b = dict(b, process=k)
            if isinstance(b.get("repetition_index"), int):
                b["repetition_index"] += offset
            benchmarks.append(b)
    for b in benchmarks:
        if "repetitions" in b:
            b["repetitions"] = total
    rounds = merge_rounds([d["context"]["serverkit"].get("rounds")
                           for _, d in docs])
    if rounds is not None:
        sk["rounds"] = rounds
    out["benchmarks"] = benchmarks
    sk.pop("part", None)
    sk["repetitions"] = total
    sk["processes"] = n
    fl = sk.setdefault("floor", {})
    if isinstance(fl, dict):
        fl["before"] = parts[0]["before"]
        fl["after"] = parts[-1]["after"]
        fl["drifted"] = any(p["drifted"] is True for p in parts)
        fl["drift_reasons"] = reasons
        fl["parts"] = parts
    return out


def _stop(stops: list[Any]) -> Any:
    """A unit's stop over its parts: the budget if any part ran out of
    it, else the most rounds if any part reached them, else the target."""
    for stop in ("budget", "max_rounds", "target"):
        if stop in stops:
            return stop
    return next((x for x in stops if x), None)


def _sum(xs: list[Any]) -> Any:
    nums = [x for x in xs if isinstance(x, (int, float)) and
            not isinstance(x, bool)]
    return sum(nums) if nums else None


def merge_rounds(parts: list[Any]) -> Optional[dict[str, Any]]:
    """The parts' context.serverkit.rounds joined (None when no part has
    one): the first part's schedule (target, budget_s, min_rounds,
    max_rounds), elapsed_s summed, `parts` [{process: K, ...part K's
    rounds...}], and per unit its rounds and seconds summed over the parts,
    the widest half-width, and the stop (see _stop())."""
    have = [(k, r) for k, r in enumerate(parts, start=1)
            if isinstance(r, dict)]
    if not have:
        return None
    first = have[0][1]
    out: dict[str, Any] = {k: first.get(k) for k in
                           ("target", "budget_s", "min_rounds", "max_rounds")}
    out["elapsed_s"] = _sum([r.get("elapsed_s") for _, r in have])
    part_units: list[dict[str, Any]] = [
        r["units"] if isinstance(r.get("units"), dict) else {}
        for _, r in have]
    names: list[str] = []
    for units in part_units:
        names += [n for n in units if n not in names]
    summary = {}
    for name in names:
        us = [u for units in part_units for u in [units.get(name)]
              if isinstance(u, dict)]
        widths: list[float] = [u["half_width"] for u in us
                               if isinstance(u.get("half_width"),
                                             (int, float))]
        summary[name] = dict(
            scenarios=us[0].get("scenarios"),
            rounds=_sum([u.get("rounds") for u in us]),
            stop=_stop([u.get("stop") for u in us]),
            seconds=_sum([u.get("seconds") for u in us]),
            half_width=max(widths) if widths else None)
    out["units"] = summary
    out["parts"] = [dict(process=k, **r) for k, r in have]
    return out

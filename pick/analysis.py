# -----------------------------------------------------------------------------
# pick/analysis.py
# -----------------------------------------------------------------------------
#
# The one value every output of pick reads (Google Benchmark's run data,
# handed to each of its reporters): what was decided (the picks), from what
# (the loaded result files, pingpong.json, the servers' runs, the
# validation), for which workload, under which settings. cli.py builds it
# once from the arguments with analyse(); the reporters (reporter.py) only
# read it, so no output can decide anything the others do not see.

from __future__ import annotations

import dataclasses
from typing import Optional

from pick import results as R
from pick.decisions import Picked
from pick.server_answer import Answer, answers, reactor_veto, vetoed
from pick.shapes import PingpongDoc, ValidationRow
from pick.spec import Workload
from pick.validation import validation_summary
from pick.winners import pick_all


@dataclasses.dataclass(frozen=True)
class Settings:
    """The command line's settings that the decisions and the outputs
    use: where the results are read and the outputs written, the U-test's
    significance level, the margin of every answer, the drift threshold
    (None: each file's own), and whether to draw the charts."""

    results_dir: str
    out_dir: str
    alpha: float
    margin: float
    drift_threshold: Optional[float] = None
    charts: bool = True


@dataclasses.dataclass(frozen=True)
class Validation:
    """pingpong.json's validation as validation_summary() reads it: the
    headline (counts of each outcome, or why there is none) and the rows."""

    summary: str
    entries: list[ValidationRow]


@dataclasses.dataclass(frozen=True)
class Analysis:
    """One run of pick: the settings and workload it was given, the files
    it read (with the ones it skipped, and why), and what it decided."""

    settings: Settings
    workload: Workload
    loaded: dict[str, R.FamilyResults]
    problems: tuple[str, ...]
    pingpong: Optional[PingpongDoc]
    servers: R.ServerRuns
    validation: Validation
    picked: Picked
    # What to put in a server, per component and workload (server_answer).
    answers: tuple[Answer, ...] = ()


def analyse(settings: Settings, workload: Workload,
            loaded: dict[str, R.FamilyResults],
            problems: tuple[str, ...] = ()) -> Analysis:
    """The analysis of the family results `loaded` (R.load_dir()'s, with
    the files it skipped), with pingpong.json and the servers' runs read
    from the same directory. Raises R.VocabularyError where ranking rules
    contradict a class."""
    pingpong = R.load_pingpong(settings.results_dir)
    servers = R.load_server_runs(settings.results_dir)
    picked = pick_all(loaded, workload, settings.alpha, settings.margin,
                      settings.drift_threshold)
    summary, entries = validation_summary(pingpong)
    found = answers(picked, entries, _loadmap(pingpong))
    for comp, entry in picked["reactor"].items():
        veto = reactor_veto(found, comp)
        if veto and entry.get("winner") == vetoed(veto):
            entry["winner"] = entry.get("baseline")
            entry["adopted"] = False
            entry["leader"] = vetoed(veto)
            entry["micro_ratio"] = 1.0
            entry["note"] = "kept the baseline %s: %s" % (
                entry.get("baseline"), veto.why)
    return Analysis(settings=settings, workload=workload, loaded=loaded,
                    problems=problems, pingpong=pingpong, servers=servers,
                    validation=Validation(summary, entries), picked=picked,
                    answers=tuple(found))


def _loadmap(pingpong: Optional[PingpongDoc]) -> object:
    v = pingpong.get("validation") if pingpong else None
    return v.get("loadmap") if isinstance(v, dict) else None

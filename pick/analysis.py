# -----------------------------------------------------------------------------
# pick/analysis.py
# -----------------------------------------------------------------------------
#
# The one value every output of pick reads (Google Benchmark's run data,
# handed to each of its reporters): what was decided (the picks), from what
# (the loaded result files, pingpong.json, the servers' runs, the
# validation), for which workload, under which settings. cli.py builds it
# once from the arguments with analyse(); the reporters (analysis.py) only
# read it, so no output can decide anything the others do not see.

from __future__ import annotations

import dataclasses
from typing import Iterable, Optional

from pick.read import sweeps
from pick.records import Picked
from pick.decide.server_answer import Answer, answers, reactor_veto, vetoed
from pick.records import PingpongDoc, ValidationRow
from pick.decide.workloads import Workload
from pick.read.validation_rows import validation_summary
from pick.decide.winners import pick_all
import abc


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
    loaded: dict[str, sweeps.FamilyResults]
    problems: tuple[str, ...]
    pingpong: Optional[PingpongDoc]
    servers: sweeps.ServerRuns
    validation: Validation
    picked: Picked
    # What to put in a server, per component and workload (server_answer).
    answers: tuple[Answer, ...] = ()


def analyse(settings: Settings, workload: Workload,
            loaded: dict[str, sweeps.FamilyResults],
            problems: tuple[str, ...] = ()) -> Analysis:
    """The analysis of the family results `loaded` (R.load_dir()'s, with
    the files it skipped), with pingpong.json and the servers' runs read
    from the same directory. Raises R.VocabularyError where ranking rules
    contradict a class."""
    pingpong = sweeps.load_pingpong(settings.results_dir)
    servers = sweeps.load_server_runs(settings.results_dir)
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


# What every output of pick is: a Reporter (Google Benchmark's
# BenchmarkReporter), one per output: winners.json (cli.py), the
# charts (charts/draw.py), REPORT.md (report/document.py) and the console
# summary (cli.py). Each reads the one Analysis (analysis.py); run()
# calls them in order, and Written carries what an earlier one wrote that a
# later one cites (REPORT.md links the charts; the console names the
# files), so that no reporter calls another.

@dataclasses.dataclass
class Written:
    """What the reporters have written so far: winners.json's path, the
    charts drawn ([(title, file name)]), why none could be (None when
    they could, or were not asked for), and REPORT.md's path."""

    winners: Optional[str] = None
    charts: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    chart_error: Optional[str] = None
    report: Optional[str] = None


class Reporter(abc.ABC):
    """One output of pick, written from the analysis alone (and from what
    the reporters before it wrote)."""

    @abc.abstractmethod
    def report(self, analysis: Analysis, written: Written) -> None:
        """Writes the output; records in `written` what later reporters
        cite."""


def run(reporters: Iterable[Reporter], analysis: Analysis) -> Written:
    """Runs the reporters in their order; what they wrote."""
    written = Written()
    for r in reporters:
        r.report(analysis, written)
    return written

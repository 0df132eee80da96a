# -----------------------------------------------------------------------------
# pick/reporter.py
# -----------------------------------------------------------------------------
#
# What every output of pick is: a Reporter (Google Benchmark's
# BenchmarkReporter), one per output: winners.json (winners_file.py), the
# charts (charts/draw.py), REPORT.md (report/document.py) and the console
# summary (console.py). Each reads the one Analysis (analysis.py); run()
# calls them in order, and Written carries what an earlier one wrote that a
# later one cites (REPORT.md links the charts; the console names the
# files), so that no reporter calls another.

from __future__ import annotations

import abc
import dataclasses
from typing import Iterable, Optional

from pick.analysis import Analysis


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

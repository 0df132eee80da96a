# -----------------------------------------------------------------------------
# pick/winners_file.py
# -----------------------------------------------------------------------------
#
# The reporter of results/winners.json (winners.winners_json() builds the
# document): the reactor policy the ping-pong validation runs, with every
# class decided. Written first, so that the validation finds its policy even
# where the charts or the report fail.

from __future__ import annotations

import json
import os

from pick.analysis import Analysis
from pick.reporter import Reporter, Written
from pick.winners import winners_json


class WinnersFile(Reporter):
    """Writes winners.json into the output directory."""

    def report(self, analysis: Analysis, written: Written) -> None:
        s = analysis.settings
        doc = winners_json(analysis.picked, analysis.workload, s.results_dir,
                           analysis.loaded, analysis.pingpong,
                           analysis.answers)
        path = os.path.join(s.out_dir, "winners.json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        written.winners = path

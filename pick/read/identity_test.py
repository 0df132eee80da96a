# -----------------------------------------------------------------------------
# pick/read/identity_test.py
# -----------------------------------------------------------------------------
#
# A confirmation file is matched to its sweep by the sweep run's identity
# (read/sweeps.py), not by file times: a copy keeps the match, another run's
# confirmation is refused, and the recommendation table says so.

from __future__ import annotations

import os
import shutil
import tempfile
import unittest

from pick.testutil import cls

from pick.read import sweeps
from pick.report import tables
from pick.decide import winners
from pick.decide.paired_rounds import confirm_flags
from pick.read.sweeps import CONFIRMS, run_identity
from pick.decide.workloads import Workload
from pick.testdata import roundsfix as F


class IdentityTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def test_confirmation_matched_by_run_identity(self) -> None:
        """The confirmation names its sweep by content: a copy with new
        file times keeps it, another sweep's is refused in the table."""
        directory = os.path.join(self.tmp, "copied")
        sweep = F.steady(1.5, 12)
        F.write_doc(directory, "queues", sweep)
        ident = run_identity(os.path.join(directory, "queues.json"))
        conf = F.steady(1.03, 10)
        conf["context"][CONFIRMS] = ident
        F.write_doc(os.path.join(directory, sweeps.CONFIRM_DIR), "queues",
                    conf)
        # cp -r: the confirmation now looks older than its sweep.
        os.utime(os.path.join(directory, sweeps.CONFIRM_DIR, "queues.json"),
                 (1, 1))
        loaded, _ = sweeps.load_dir(directory)
        self.assertIsNotNone(loaded["queues"].confirm)
        c = cls(winners.pick_all(loaded, Workload()), "queues", "1:1")
        self.assertTrue(c["confirmed"])
        conf["context"][CONFIRMS] = "0123456789abcdef"
        F.write_doc(os.path.join(directory, sweeps.CONFIRM_DIR), "queues",
                    conf)
        loaded, _ = sweeps.load_dir(directory)
        self.assertIsNone(loaded["queues"].confirm)
        picked = winners.pick_all(loaded, Workload())
        rows = [r for r in tables.recommendation_rows(picked)
                if r[:2] == ["queues", "1:1"]]
        self.assertIn("confirmation not used: confirm/queues.json confirms "
                      "another sweep run (0123456789abcdef; queues.json is "
                      "%s)" % ident, rows[0][5])

    def test_confirm_flags_name_the_sweep_run(self) -> None:
        directory = os.path.join(self.tmp, "flags")
        F.write_doc(directory, "queues", F.steady(1.5, 12))
        loaded, _ = sweeps.load_dir(directory)
        flags = confirm_flags(winners.pick_all(loaded, Workload()), "queues")
        self.assertIn(" --benchmark_context=confirms=%s " % run_identity(
            os.path.join(directory, "queues.json")), flags)


if __name__ == "__main__":
    unittest.main()

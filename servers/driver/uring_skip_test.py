#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/driver/uring_skip_test.py
# -----------------------------------------------------------------------------
#
# uring_skip.skip_unless_uring against stand-in probes: io_uring available
# (returns), not available (the skip line, exit 0), a probe that fails
# otherwise (an error, never a skip).

from __future__ import annotations

import contextlib
import io
import os
import stat
import tempfile
import unittest

from servers.driver import uring_skip

HERE = os.path.dirname(os.path.abspath(__file__))


class SkipUnlessUringTest(unittest.TestCase):
    def probe(self, text: str, rc: int) -> str:
        path = os.path.join(self.tmp.name, "probe%d" % rc)
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho '%s'\nexit %d\n" % (text, rc))
        os.chmod(path, stat.S_IRWXU)
        return path

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_available_returns(self) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            uring_skip.skip_unless_uring(self.probe("io_uring: available", 0))
        self.assertEqual(out.getvalue(), "")

    def test_not_available_says_skipped_and_exits_0(self) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), \
                self.assertRaises(SystemExit) as e:
            uring_skip.skip_unless_uring(
                self.probe("io_uring: not available (EPERM)", 1))
        self.assertEqual(e.exception.code, 0)
        self.assertTrue(out.getvalue().startswith(
            "serverkit-test: SKIPPED io_uring: not available (EPERM)"),
            out.getvalue())

    def test_broken_probe_is_an_error(self) -> None:
        with self.assertRaises(SystemExit) as e:
            uring_skip.skip_unless_uring(self.probe("crashed", 2))
        self.assertNotEqual(e.exception.code, 0)
        self.assertIn("exit 2", str(e.exception.code))


if __name__ == "__main__":
    unittest.main()

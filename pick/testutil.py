# -----------------------------------------------------------------------------
# pick/testutil.py
# -----------------------------------------------------------------------------
#
# What pick's test files (*_test.py) share: the fixed result sets in
# testdata/ (written by testdata/make_fixtures.py), the interpreter and
# script the command-line tests run, picked() / cls(), which decide a
# fixture directory as pick does and find one class's decision in it, and
# leaves() / replaced(), which put a wrong value at every path of a
# fixture (the sections that must never raise on a malformed file).

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import tempfile
import unittest
from typing import Any, Iterator

from pick.read import sweeps
from pick.decide.workloads import Workload
from pick.records import Picked
from pick.charts.plotting import ChartsUnavailable, pyplot
from pick.decide.winners import pick_all

HERE = os.path.dirname(os.path.abspath(__file__))

BASIC = os.path.join(HERE, "testdata", "basic")
SMOKE = os.path.join(HERE, "testdata", "smoke")
OLD = os.path.join(HERE, "testdata", "old")
SHIFTED = os.path.join(HERE, "testdata", "drift", "shifted")
NOISY_FLOOR = os.path.join(HERE, "testdata", "drift", "noisy")
REPRO = os.path.join(HERE, "testdata", "repro")
RUN1, RUN2, RUN3 = (os.path.join(REPRO, "queues-run%d.json" % k)
                    for k in (1, 2, 3))
PARTS = [os.path.join(HERE, "testdata", "parts", "queues-part%d.json" % k)
         for k in (1, 2, 3)]
PY = "/usr/bin/python3"
# The command line of pick, `python -m pick` (the workspace root is on
# PYTHONPATH: //build:python3.sh, or PYTHONPATH=. from the root).
PICK = [PY, "-m", "pick"]


def picked(directory: str, **workload: Any
           ) -> tuple[dict[str, sweeps.FamilyResults], Picked]:
    loaded, problems = sweeps.load_dir(directory)
    assert not problems, problems
    return loaded, pick_all(loaded, Workload(**workload))


def cls(result: Picked, family: str, key: str) -> Any:
    """The class `key` of `family` decided (a ClassPick), untyped: the
    tests read its optional keys without narrowing them."""
    for c in result["families"][family]["classes"]:
        if c["cls"] == key:
            return c
    raise KeyError("%s/%s not in %s" % (family, key, [
        c["cls"] for c in result["families"][family]["classes"]]))


def leaves(x: Any, path: tuple[Any, ...] = ()
           ) -> Iterator[tuple[Any, ...]]:
    """Every path into x's dicts and lists, inner nodes included."""
    items = x.items() if isinstance(x, dict) else enumerate(x) \
        if isinstance(x, list) else []
    for k, v in items:
        yield path + (k,)
        yield from leaves(v, path + (k,))


def replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of doc with `value` at `path`."""
    out = copy.deepcopy(doc)
    node = out
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return out


class ChartCase(unittest.TestCase):
    """A chart test: skipped where matplotlib is missing; self.out is a
    fresh directory, removed after."""

    def setUp(self) -> None:
        try:
            pyplot()
        except ChartsUnavailable as e:
            self.skipTest(str(e))
        self.out = tempfile.mkdtemp()

    def tearDown(self) -> None:
        shutil.rmtree(self.out)


def report_of(case: unittest.TestCase, edit: Any
              ) -> tuple[int, str, str]:
    """pick over a copy of BASIC as results/, after edit(results dir):
    (its exit status, REPORT.md, the directory REPORT.md and the charts
    are in); the copy is removed after the test."""
    tmp = tempfile.mkdtemp()
    case.addCleanup(shutil.rmtree, tmp)
    results = os.path.join(tmp, "results")
    shutil.copytree(BASIC, results)
    edit(results)
    p = subprocess.run([*PICK, "--results", results, "--out", tmp],
                       capture_output=True, text=True)
    case.assertIn(p.returncode, (0, 3), p.stderr)
    with open(os.path.join(tmp, "REPORT.md")) as f:
        return p.returncode, f.read(), tmp

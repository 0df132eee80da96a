# -----------------------------------------------------------------------------
# pick/testutil.py
# -----------------------------------------------------------------------------
#
# What pick's test files (*_test.py) share: the fixed result sets in
# testdata/ (written by testdata/make_fixtures.py), the interpreter and
# script the command-line tests run, and picked() / cls(), which decide a
# fixture directory as pick does and find one class's decision in it.

from __future__ import annotations

import os
from typing import Any

from pick import results as R
from pick.spec import Workload
from pick.decisions import Picked
from pick.winners import pick_all

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
PICK = os.path.join(HERE, "pick.py")


def picked(directory: str, **workload: Any
           ) -> tuple[dict[str, R.FamilyResults], Picked]:
    loaded, problems = R.load_dir(directory)
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

#!/usr/bin/python3
# -----------------------------------------------------------------------------
# build/family_list_test.py
# -----------------------------------------------------------------------------
#
# Every implementation header of a component family is in the family's list:
# a header in queues/ (threadpool/, logger/, buffer/) that declares a class a
# member of the family (a `static_assert(Queue<FooQueue<int>>);` at the top
# level, as the README's "Adding an implementation" asks) must be included
# by all_queues.h (all_pools.h, all_loggers.h, all_buffers.h), and the class
# must be named there. A header left out is otherwise silently missing from
# the typed tests, the sweep and pick. The checker is first run on planted
# fixtures, so it is seen to name what is missing.
#
# Standard library only.

from __future__ import annotations

import dataclasses
import os
import re
import sys
import tempfile
import unittest


@dataclasses.dataclass(frozen=True)
class Family:
    """A component family: its folder, its concept, its list header."""
    folder: str
    concept: str
    list_header: str


FAMILIES = [
    Family("queues", "Queue", "all_queues.h"),
    Family("threadpool", "Executor", "all_pools.h"),
    Family("logger", "Logger", "all_loggers.h"),
    Family("buffer", "Buffer", "all_buffers.h"),
]


def problems(root: str, family: Family) -> list[str]:
    """What is missing from the family's list, one sentence each."""
    folder = os.path.join(root, family.folder)
    with open(os.path.join(folder, family.list_header)) as f:
        listing = f.read()
    asserted = re.compile(r"^static_assert\(%s<(\w+)" % family.concept,
                          re.MULTILINE)
    out = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".h") or name == family.list_header:
            continue
        with open(os.path.join(folder, name)) as f:
            classes = sorted(set(asserted.findall(f.read())))
        if not classes:
            continue
        path = "%s/%s" % (family.folder, name)
        if '#include "%s"' % path not in listing:
            out.append("%s declares %s a %s, but %s/%s does not include it "
                       "(README: Adding an implementation, step 4)"
                       % (path, ", ".join(classes), family.concept,
                          family.folder, family.list_header))
            continue
        for c in classes:
            if not re.search(r"\b%s\b" % c, listing):
                out.append("%s declares %s a %s, but %s/%s does not list it"
                           % (path, c, family.concept, family.folder,
                              family.list_header))
    return out


def workspace_root() -> str:
    """The runfiles root under Bazel, else the source tree."""
    for d in (os.environ.get("TEST_SRCDIR", "") + "/serverkit",
              os.path.dirname(os.path.dirname(os.path.abspath(__file__)))):
        if os.path.isdir(os.path.join(d, "queues")):
            return d
    raise AssertionError("no workspace root with queues/ found")


class PlantedTest(unittest.TestCase):
    """The checker on a made-up family: it must name what is left out."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        os.mkdir(os.path.join(self.root, "queues"))
        self.write("mutex_queue.h",
                   "static_assert(Queue<MutexQueue<int>>);\n")
        self.write("two_lock_queue.h",
                   "static_assert(Queue<TwoLockQueue<int>>);\n")
        self.write("helper.h", "  static_assert(Queue<Q>);\n")

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def write(self, name: str, text: str) -> None:
        with open(os.path.join(self.root, "queues", name), "w") as f:
            f.write(text)

    def test_a_header_left_out_is_named(self) -> None:
        self.write("all_queues.h", '#include "queues/mutex_queue.h"\n'
                   "QueueTemplate<MutexQueue>\n")
        found = problems(self.root, FAMILIES[0])
        self.assertEqual(len(found), 1, found)
        self.assertIn("queues/two_lock_queue.h declares TwoLockQueue",
                      found[0])
        self.assertIn("does not include it", found[0])

    def test_a_class_left_out_is_named(self) -> None:
        self.write("all_queues.h", '#include "queues/mutex_queue.h"\n'
                   '#include "queues/two_lock_queue.h"\n'
                   "QueueTemplate<MutexQueue>\n")
        found = problems(self.root, FAMILIES[0])
        self.assertEqual(len(found), 1, found)
        self.assertIn("TwoLockQueue a Queue, but queues/all_queues.h does "
                      "not list it", found[0])

    def test_a_complete_list_passes(self) -> None:
        self.write("all_queues.h", '#include "queues/mutex_queue.h"\n'
                   '#include "queues/two_lock_queue.h"\n'
                   "QueueTemplate<MutexQueue>, QueueTemplate<TwoLockQueue>\n")
        self.assertEqual(problems(self.root, FAMILIES[0]), [])


class FamiliesTest(unittest.TestCase):
    """The project's four families."""

    def test_every_implementation_is_listed(self) -> None:
        root = workspace_root()
        for family in FAMILIES:
            with self.subTest(family=family.folder):
                self.assertEqual(problems(root, family), [])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)

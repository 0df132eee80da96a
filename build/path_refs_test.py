#!/usr/bin/python3
# -----------------------------------------------------------------------------
# build/path_refs_test.py
# -----------------------------------------------------------------------------
#
# Every repository path a comment or a doc names exists. A file that moves
# leaves comments behind that point at its old place ("servers/pingpong/
# procs.py" after it went to servers/driver/), and nothing else notices.
# Checked: the comments of Python (tokenize's COMMENT tokens), shell, Bazel
# and Makefile files (lines from their first `#`), C++ `//` comments, and
# the whole of every Markdown file, except the dated snapshots under
# docs/results/ (they describe the tree of their day). A path is a token
# that starts with one of the root's folders and ends in a source suffix
# (.py, .cc, .h, .sh, .md, .bzl, .json, .txt). Made-up example names
# (foo_*, a one-letter stem such as x.cc) are not paths. The checker runs
# first on planted trees, so it is seen to name a stale path.
#
# It walks the source tree itself, found through this file's real path,
# and is tagged `external` so Bazel never serves it from the cache.
# Standard library only.

from __future__ import annotations

import io
import os
import re
import tempfile
import tokenize
import unittest

SUFFIXES = ("py", "cc", "h", "sh", "md", "bzl", "json", "txt")
# Folders of the root that are not part of the tree: run outputs, the
# dated snapshots (relative to the root).
SKIPPED = {"results", "docs/results", ".git"}
HASH_FILES = ("BUILD", "Makefile", "WORKSPACE", "run")


def _pattern(tops: list[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w/.$-])((?:%s)/[A-Za-z0-9_./-]*\.(?:%s))"
                      r"(?![\w])" % ("|".join(map(re.escape, tops)),
                                     "|".join(SUFFIXES)))


def _made_up(path: str) -> bool:
    stem = os.path.basename(path).split(".")[0]
    return stem.startswith("foo") or len(stem) == 1


def _python_comments(text: str) -> list[tuple[int, str]]:
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out.append((tok.start[0], tok.string))
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


def _marked(text: str, mark: str) -> list[tuple[int, str]]:
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        k = line.find(mark)
        if k >= 0 and (mark != "#" or not line[:k].strip() or
                       line[k - 1] in " \t"):
            out.append((i, line[k:]))
    return out


def prose(name: str, text: str) -> list[tuple[int, str]]:
    """The (line number, text) of a file's comments, or of all of it for
    Markdown; [] for a file of another kind."""
    if name.endswith(".md"):
        return list(enumerate(text.splitlines(), 1))
    if name.endswith(".py"):
        return _python_comments(text)
    if name.endswith((".sh", ".bzl", ".BUILD")) or name in HASH_FILES:
        return _marked(text, "#")
    if name.endswith((".cc", ".h")):
        return _marked(text, "//")
    return []


def files(root: str) -> list[str]:
    """The files to check under root, relative and `/`-separated."""
    out = []
    for folder, dirs, names in os.walk(root):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        dirs[:] = sorted(
            d for d in dirs
            if not d.startswith("bazel-") and
            (d if rel == "." else rel + "/" + d) not in SKIPPED and
            not os.path.islink(os.path.join(folder, d)))
        for n in sorted(names):
            out.append(n if rel == "." else rel + "/" + n)
    return out


def problems(root: str) -> list[str]:
    """"file:line: names PATH, which does not exist", one per stale path."""
    tops = sorted(d for d in os.listdir(root)
                  if os.path.isdir(os.path.join(root, d)) and
                  not d.startswith((".", "bazel-")) and d not in SKIPPED)
    if not tops:
        return []
    pat = _pattern(tops)
    out = []
    for path in files(root):
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        for line, chunk in prose(os.path.basename(path), text):
            for m in pat.finditer(chunk):
                ref = m.group(1)
                if not _made_up(ref) and \
                        not os.path.exists(os.path.join(root, ref)):
                    out.append("%s:%d: names %s, which does not exist" % (
                        path, line, ref))
    return out


def workspace_root() -> str:
    """The source tree: this file's real path (runfiles link to it)."""
    here = os.path.dirname(os.path.realpath(__file__))
    root = os.path.dirname(here)
    if not os.path.isfile(os.path.join(root, "WORKSPACE")):
        raise AssertionError("no WORKSPACE above %s" % here)
    return root


class PlantedTest(unittest.TestCase):
    """The checker on a made-up tree: it must name each stale path."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.write("servers/driver/procs.py", "x = 1\n")

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def write(self, path: str, text: str) -> None:
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)

    def test_live_paths_pass(self) -> None:
        self.write("servers/http/run.py",
                   "# uses servers/driver/procs.py\nx = 2\n")
        self.write("README.md", "See servers/driver/procs.py.\n")
        self.assertEqual(problems(self.root), [])

    def test_stale_paths_are_named(self) -> None:
        self.write("servers/http/run.py",
                   "x = 2  # servers/pingpong/procs.py spawns it\n")
        self.write("servers/a.h", "// see servers/pingpong/common.h\n")
        self.write("servers/BUILD", "# servers/pingpong/sweep.py\n")
        self.write("docs/x.md", "Run servers/pingpong/sweep.py first.\n")
        self.assertEqual(sorted(problems(self.root)), [
            "docs/x.md:1: names servers/pingpong/sweep.py, which does not "
            "exist",
            "servers/BUILD:1: names servers/pingpong/sweep.py, which does "
            "not exist",
            "servers/a.h:1: names servers/pingpong/common.h, which does "
            "not exist",
            "servers/http/run.py:1: names servers/pingpong/procs.py, which "
            "does not exist"])

    def test_strings_snapshots_and_examples_are_not_checked(self) -> None:
        self.write("servers/t.py", "s = '#include \"servers/gone.h\"'\n")
        self.write("docs/results/old.md", "servers/pingpong/sweep.py\n")
        self.write("docs/y.md", "Add servers/foo_server.cc, or x.cc: "
                   "servers/x.cc.\n")
        self.assertEqual(problems(self.root), [])


class TreeTest(unittest.TestCase):
    def test_every_named_path_exists(self) -> None:
        found = problems(workspace_root())
        self.assertEqual(found, [], "\n".join(found))


if __name__ == "__main__":
    unittest.main()

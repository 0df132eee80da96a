#!/usr/bin/python3
# -----------------------------------------------------------------------------
# build/header_guard_test.py
# -----------------------------------------------------------------------------
#
# Every header's include guard names its path: foo/bar_baz.h is guarded by
# SERVERKIT_FOO_BAR_BAZ_H_ (the path upper-cased, `/` and `.` as `_`), in
# its `#ifndef`, the `#define` right after it and the closing
# `#endif  // SERVERKIT_FOO_BAR_BAZ_H_`. A guard left behind by a move
# otherwise goes unnoticed until two headers share it. The checker is first
# run on planted fixtures, so it is seen to name a wrong guard.
#
# It walks the source tree itself (every .h outside third_party/, hidden
# folders and Bazel's output links), found through this file's real path,
# so a new header is checked without a BUILD edit; the test is tagged
# `external` so Bazel never serves it from the cache. Standard library only.

from __future__ import annotations

import os
import sys
import tempfile
import unittest

# Folders under the root that hold no header of ours.
SKIPPED = {"third_party"}


def expected_guard(path: str) -> str:
    """The guard of the header at `path` (relative, `/`-separated)."""
    return ("SERVERKIT_" + path.upper().replace("/", "_").replace(".", "_")
            + "_")


def guard_problems(path: str, text: str) -> list[str]:
    """What is wrong with the guard of `text`, the header at `path`."""
    want = expected_guard(path)
    lines = [line.rstrip() for line in text.splitlines()]
    code = [line for line in lines if line and not line.startswith("//")]
    ifndef = next((line for line in code if line.startswith("#")), "")
    if not ifndef.startswith("#ifndef "):
        return ["%s: no include guard (want #ifndef %s)" % (path, want)]
    out = []
    have = ifndef.split()[1] if len(ifndef.split()) > 1 else ""
    if have != want:
        out.append("%s: #ifndef %s, want %s" % (path, have, want))
    at = code.index(ifndef) + 1
    after = code[at] if at < len(code) else ""
    if after != "#define " + want:
        out.append("%s: '%s' after the #ifndef, want #define %s"
                   % (path, after, want))
    last = next((line for line in reversed(lines) if line), "")
    if last != "#endif  // " + want:
        out.append("%s: last line '%s', want #endif  // %s"
                   % (path, last, want))
    return out


def headers(root: str) -> list[str]:
    """Every .h under `root`, relative and `/`-separated, sorted."""
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d for d in dirs
            if not d.startswith((".", "bazel-")) and not (
                folder == root and d in SKIPPED)
            and not os.path.islink(os.path.join(folder, d)))
        rel = os.path.relpath(folder, root)
        for name in files:
            if name.endswith(".h"):
                path = name if rel == "." else rel + "/" + name
                out.append(path.replace(os.sep, "/"))
    return sorted(out)


def problems(root: str) -> list[str]:
    """Every guard problem under `root`, one sentence each."""
    out = []
    for path in headers(root):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            out.extend(guard_problems(path, f.read()))
    return out


def workspace_root() -> str:
    """The source tree: this file's real path (runfiles link to it)."""
    here = os.path.dirname(os.path.realpath(__file__))
    root = os.path.dirname(here)
    if not os.path.isfile(os.path.join(root, "WORKSPACE")):
        raise AssertionError("no WORKSPACE above %s" % here)
    return root


def header(guard: str, endif: str = "") -> str:
    return ("// a comment\n\n#ifndef %s\n#define %s\n\nint f();\n\n"
            "#endif  // %s\n" % (guard, guard, endif or guard))


class PlantedTest(unittest.TestCase):
    """The checker on a made-up tree: it must name each wrong guard."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def write(self, path: str, text: str) -> None:
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)

    def test_a_right_guard_passes(self) -> None:
        self.write("servers/pingpong/common.h",
                   header("SERVERKIT_SERVERS_PINGPONG_COMMON_H_"))
        self.assertEqual(problems(self.root), [])

    def test_a_stale_guard_is_named(self) -> None:
        self.write("servers/pingpong/common.h",
                   header("SERVERKIT_BENCH_PINGPONG_COMMON_H_"))
        found = problems(self.root)
        self.assertEqual(len(found), 3, found)
        self.assertIn("servers/pingpong/common.h: #ifndef "
                      "SERVERKIT_BENCH_PINGPONG_COMMON_H_, want "
                      "SERVERKIT_SERVERS_PINGPONG_COMMON_H_", found[0])

    def test_a_stale_endif_comment_is_named(self) -> None:
        self.write("a/b.h", header("SERVERKIT_A_B_H_", endif="SERVERKIT_X_H_"))
        found = problems(self.root)
        self.assertEqual(len(found), 1, found)
        self.assertIn("a/b.h: last line", found[0])

    def test_no_guard_is_named(self) -> None:
        self.write("a/b.h", "#pragma once\nint f();\n")
        self.assertEqual(problems(self.root),
                         ["a/b.h: no include guard (want #ifndef "
                          "SERVERKIT_A_B_H_)"])

    def test_third_party_and_hidden_folders_are_skipped(self) -> None:
        self.write("third_party/x/y.h", "int f();\n")
        self.write(".cache/y.h", "int f();\n")
        self.assertEqual(problems(self.root), [])


class TreeTest(unittest.TestCase):
    """The project's headers."""

    def test_every_guard_names_its_path(self) -> None:
        root = workspace_root()
        self.assertGreater(len(headers(root)), 0)
        found = problems(root)
        self.assertEqual(found, [], "\n" + "\n".join(found))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)

# -----------------------------------------------------------------------------
# bench/pick/layering.py
# -----------------------------------------------------------------------------
#
# What the two layer tests share (bench/pick/layers_test.py and
# bench/pingpong/layout_test.py): a folder's module names, the modules a
# file imports (parsed with ast, imports inside functions included), which
# modules importing one module alone loads in a fresh interpreter, and the
# Python files over a line limit. Test support, standard library only; each
# test keeps its own layer map and its own rules.

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys


def module_names(here: str) -> list[str]:
    """The modules (*.py, without the suffix) in the folder `here`."""
    return sorted(f[:-3] for f in os.listdir(here) if f.endswith(".py"))


def imports(here: str, name: str) -> set[str]:
    """The top-level names of every module `here/name.py` imports."""
    with open(os.path.join(here, name + ".py")) as f:
        tree = ast.parse(f.read(), name + ".py")
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and \
                not node.level:
            out.add(node.module.split(".")[0])
    return out


def loaded_alone(here: str, name: str) -> tuple[int, str, set[str]]:
    """Imports module `name` alone, from `here`, in a fresh interpreter:
    (exit status, stderr, the names in its sys.modules afterwards)."""
    code = ("import importlib, json, sys; sys.path.insert(0, %r); "
            "importlib.import_module(sys.argv[1]); "
            "print(json.dumps(sorted(sys.modules)))" % here)
    p = subprocess.run([sys.executable, "-c", code, name],
                       capture_output=True, text=True, cwd=here)
    if p.returncode != 0:
        return p.returncode, p.stderr, set()
    return 0, p.stderr, set(json.loads(p.stdout.splitlines()[-1]))


def files_over(here: str, max_lines: int) -> list[tuple[str, int]]:
    """(path, lines) of every *.py below `here` longer than max_lines."""
    over = []
    for root, _, files in os.walk(here):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                with open(path) as fh:
                    n = sum(1 for _ in fh)
                if n > max_lines:
                    over.append((path, n))
    return over

# -----------------------------------------------------------------------------
# pick/layering.py
# -----------------------------------------------------------------------------
#
# What the two layer tests share (pick/layers_test.py and
# servers/pingpong/layout_test.py): a folder's module names, the modules a
# file imports (parsed with ast, imports inside functions included; bench/
# pick's modules by their package names, pick.NAME), which modules importing
# one module alone loads in a fresh interpreter, and the Python files over a
# line limit. Test support, standard library only; each
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


# The packages whose modules imports() names one by one ("pick.outcome"):
# pick, whose modules import each other as `from pick import X` or
# `from pick.X import Y`.
PACKAGES = ("pick",)


def imports(here: str, name: str) -> set[str]:
    """The top-level names of every module `here/name.py` imports; a module
    of one of PACKAGES by its qualified name ("pick.stats" for `from pick
    import stats`, `from pick.stats import fmt_ratio` or `import
    pick.stats`; "pick" alone for a name of the package that is not a
    module beside its __init__.py). Relative imports are not counted."""
    with open(os.path.join(here, name + ".py")) as f:
        tree = ast.parse(f.read(), name + ".py")
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {_qualified(a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and \
                not node.level:
            if node.module in PACKAGES:
                out |= {_submodule(node.module, a.name) for a in node.names}
            else:
                out.add(_qualified(node.module))
    return out


def _qualified(dotted: str) -> str:
    """`dotted`'s top-level name, or its package and module for PACKAGES."""
    parts = dotted.split(".")
    if parts[0] in PACKAGES and len(parts) > 1:
        return ".".join(parts[:2])
    return parts[0]


def _submodule(package: str, name: str) -> str:
    """package.name where that is a module of the package (a file or folder
    beside its __init__.py: pick's, this file's folder), else package."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, name)
    if package == os.path.basename(here) and (
            os.path.exists(path + ".py") or os.path.isdir(path)):
        return package + "." + name
    return package


def loaded_alone(here: str, name: str) -> tuple[int, str, set[str]]:
    """Imports module `name` alone, from `here` (first on a fresh
    interpreter's PYTHONPATH, and its current directory; for a package's
    module, the package's parent and "package.module"): (exit status,
    stderr, the names in its sys.modules afterwards)."""
    code = ("import importlib, json, sys; "
            "importlib.import_module(sys.argv[1]); "
            "print(json.dumps(sorted(sys.modules)))")
    path = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=here + (os.pathsep + path if path
                                              else ""))
    p = subprocess.run([sys.executable, "-c", code, name],
                       capture_output=True, text=True, cwd=here, env=env)
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

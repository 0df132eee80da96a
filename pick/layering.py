# -----------------------------------------------------------------------------
# pick/layering.py
# -----------------------------------------------------------------------------
#
# What the layer tests share (pick/layers_test.py and the servers' layout
# tests): a folder's module names, the modules a file imports (parsed with
# ast, imports inside functions included; pick's modules by their package
# names, pick.NAME), which modules importing one module alone loads in a
# fresh interpreter, and the Python files over a line limit; for a package
# with subpackages (pick's report/ and charts/), its modules by dotted name
# and what each imports by full dotted name. Test support, standard library
# only; each test keeps its own layer map and its own rules.

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


def module_file(root: str, module: str) -> str:
    """The file of the dotted `module` under `root` (the folder on the
    import path): root/a/b.py, or root/a/b/__init__.py for a package."""
    path = os.path.join(root, *module.split("."))
    if os.path.isdir(path):
        return os.path.join(path, "__init__.py")
    return path + ".py"


def package_modules(root: str, package: str) -> list[str]:
    """The modules of `package` (a folder under `root`) and of its
    subpackages (folders with an __init__.py), by dotted name: "pick.stats",
    "pick.report" (its __init__.py), "pick.report.document"."""
    out = []
    top = os.path.join(root, *package.split("."))
    for name in sorted(os.listdir(top)):
        path = os.path.join(top, name)
        if name.endswith(".py") and name != "__init__.py":
            out.append(package + "." + name[:-3])
        elif os.path.isfile(os.path.join(path, "__init__.py")):
            sub = package + "." + name
            out.append(sub)
            out.extend(package_modules(root, sub))
    return out


def module_imports(root: str, module: str) -> set[str]:
    """Every module the dotted `module` (its file under `root`) imports, by
    full dotted name: `from a.b import c` names a.b.c where that is a
    module under `root` (a file or a package), else a.b. Relative imports
    are not counted."""
    path = module_file(root, module)
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and \
                not node.level:
            for a in node.names:
                sub = node.module + "." + a.name
                base = os.path.join(root, *sub.split("."))
                out.add(sub if os.path.exists(base + ".py") or
                        os.path.isdir(base) else node.module)
    return out

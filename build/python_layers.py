# -----------------------------------------------------------------------------
# build/python_layers.py
# -----------------------------------------------------------------------------
#
# The project's Python folders in layers, and the checks over them that
# build/python_layers_test.py runs: every folder holding Python has a place
# in UNITS; a module imports only its own unit or units of lower layers (no
# imports between siblings of one layer), so the units import in one
# direction and no loop between folders can form; no module imports itself
# back through others; every Python file stays under the line cap; no
# module edits the import path (every project module is imported by its package
# name, from the workspace root). Within a unit, MODULES orders its modules
# the same way (the maps the packages' headers draw), and each module
# imports alone; the bottoms stay standard library only, and the servers
# and the validation take from pick only its vocabularies and statistics.
# Imports are read with ast (those inside functions too); a bare name that
# is a module of some folder is resolved to that folder, as the path
# edits the check forbids would have. Standard library only.

from __future__ import annotations

import ast
import dataclasses
import json
import os
import subprocess
import sys
from typing import Callable

# Units bottom first: a unit is a package (folder) or a subfolder tree.
# One layer's units may not import each other.
UNITS = [
    ["pick"],
    ["servers", "servers.driver"],
    ["servers.pingpong", "servers.chat", "servers.http",
     "servers.loadgen", "servers.soak"],
    ["validation"],
    ["build"],
]
# Folders never read: Bazel's output links, hidden folders, vendored
# code, results.
# Within a unit, its modules bottom first (tests, *_test and what only tests
# import, sit above them all): a module imports only lower layers of its
# unit, and imported alone it loads no module of its own layer or above.
# pick keeps its own map (pick/layers_test.py).
MODULES = {
    "servers.driver": [["procs", "uring_skip"],
                       ["side_by_side", "latency_point"],
                       ["latency_sweep"]],
    "servers.pingpong": [["hostile_peer", "perf_output", "tables"],
                         ["summary"], ["sweep"], ["msgcost"]],
    "servers.chat": [["codec"], ["run", "tables", "peers"], ["chat_bench"]],
    "servers.http": [["wrk", "nginx", "loops"], ["run", "insitu"],
                     ["tables", "context"], ["latency"], ["http_bench"]],
    "servers.loadgen": [["harness"]],
    "servers.soak": [["procs", "wire", "trend", "leaky_server"],
                     ["hostile", "normal", "report"], ["soak"]],
    "validation": [["model", "micro", "dependence", "metric"],
                   ["cases", "kinds", "check"], ["decide", "predict"],
                   ["report", "calibration", "check_calibration"],
                   ["rounds"], ["loadmap"], ["run"], ["pingpong"]],
    "build": [["python_layers"]],
}
# Modules that import the standard library only (the bottoms every driver
# and test builds on).
STDLIB_ONLY = ("servers.driver.procs", "servers.driver.uring_skip",
               "servers.chat.codec", "servers.pingpong.perf_output",
               "build.python_layers")
# What the servers and the validation take from pick: its vocabularies and
# statistics, never its reading of results.
FROM_PICK = ("pick.outcome", "pick.margin", "pick.ranks", "pick.paired")
# The one module that takes pick's outcome vocabulary for the validation.
OUTCOME_THROUGH = "validation.cases"
SKIP = ("bazel-", ".", "third_party", "results", "__pycache__")
MAX_LINES = 400


def layer_of(unit: str, units: list[list[str]] = UNITS) -> int | None:
    for k, layer in enumerate(units):
        if unit in layer:
            return k
    return None


@dataclasses.dataclass(frozen=True)
class Module:
    """A Python file: its dotted name from the root, path and unit."""
    name: str
    path: str
    unit: str


def unit_of(rel: str, units: list[list[str]] = UNITS) -> str:
    """The unit a file (its path from the root) belongs to: the deepest
    declared unit whose folder holds it, else its top folder."""
    parts = rel.split(os.sep)[:-1]
    known = {u for layer in units for u in layer}
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in known:
            return ".".join(parts[:n])
    return parts[0] if parts else ""


def modules(root: str, units: list[list[str]] = UNITS) -> list[Module]:
    """Every *.py below root outside SKIP, by dotted name."""
    out = []
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs
                         if not any(d.startswith(s) for s in SKIP))
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(top, f)
                rel = os.path.relpath(path, root)
                name = rel[:-3].replace(os.sep, ".")
                if name.endswith(".__init__"):
                    name = name[:-len(".__init__")]
                if os.sep in rel:
                    out.append(Module(name, path, unit_of(rel, units)))
    return out


def imported_names(path: str) -> list[tuple[int, str]]:
    """(line, dotted name) of every absolute import in the file; for
    `from X import a` both X and X.a (a may be a module)."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and \
                not node.level:
            out.append((node.lineno, node.module))
            out += [(node.lineno, node.module + "." + a.name)
                    for a in node.names]
    return out


def resolve(mod: Module, dotted: str,
            by_name: dict[str, Module],
            by_bare: dict[str, list[Module]]) -> list[Module]:
    """The project modules an import of `dotted` in `mod` loads: by full
    name; else, a bare name, the module of that name beside `mod` (the
    script's folder comes first on the path), else every one so named."""
    if dotted in by_name:
        return [by_name[dotted]]
    if "." in dotted:
        return []
    found = by_bare.get(dotted, [])
    beside = [m for m in found
              if os.path.dirname(m.path) == os.path.dirname(mod.path)]
    return beside or found


def edges(mods: list[Module]) -> list[tuple[Module, Module, int]]:
    """(importer, imported, line) for every project import."""
    by_name = {m.name: m for m in mods}
    by_bare: dict[str, list[Module]] = {}
    for m in mods:
        by_bare.setdefault(m.name.rsplit(".", 1)[-1], []).append(m)
    out = []
    for m in mods:
        for line, dotted in imported_names(m.path):
            for dep in resolve(m, dotted, by_name, by_bare):
                if dep is not m and not m.name.startswith(dep.name + "."):
                    out.append((m, dep, line))
    return out


def where(m: Module, line: int, root: str) -> str:
    return "%s:%d" % (os.path.relpath(m.path, root), line)


def unplaced(root: str, units: list[list[str]] = UNITS) -> list[str]:
    """A sentence for each unit holding Python that has no layer."""
    seen = sorted({m.unit for m in modules(root, units)})
    return ["%s holds Python but has no layer in UNITS" % u
            for u in seen if layer_of(u, units) is None]


def wrong_direction(root: str,
                    units: list[list[str]] = UNITS) -> list[str]:
    """A sentence for each import from one unit into another that is not
    in a lower layer."""
    out = []
    for m, dep, line in edges(modules(root, units)):
        if m.unit == dep.unit:
            continue
        a, b = layer_of(m.unit, units), layer_of(dep.unit, units)
        if a is None or b is None or b >= a:
            out.append("%s: %s (%s, layer %s) imports %s (%s, layer %s): "
                       "a unit imports only lower layers" % (
                           where(m, line, root), m.name, m.unit, a,
                           dep.name, dep.unit, b))
    return sorted(set(out))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (or a
    node importing itself), each sorted, in sorted order (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def _unit(m: Module) -> str:
    return m.unit


def _name(m: Module) -> str:
    return m.name


def loops(root: str, units: list[list[str]] = UNITS) -> list[str]:
    """A sentence for each import loop between units, and each between
    modules, naming the imports that close it."""
    es = edges(modules(root, units))
    out = []
    levels: list[tuple[str, Callable[[Module], str]]] = [
        ("folders", _unit), ("modules", _name)]
    for level, key in levels:
        graph: dict[str, set[str]] = {}
        for m, dep, _ in es:
            if key(m) != key(dep) or level == "modules":
                graph.setdefault(key(m), set()).add(key(dep))
        for comp in cycles(graph):
            sites = sorted({"%s -> %s (%s)" % (
                key(m), key(dep), where(m, line, root))
                for m, dep, line in es
                if key(m) in comp and key(dep) in comp and
                key(m) != key(dep)})
            out.append("import loop between %s %s: %s" % (
                level, ", ".join(comp), "; ".join(sites)))
    return out


def path_edits(root: str, units: list[list[str]] = UNITS) -> list[str]:
    """A sentence for each use of the import path list (`path` of
    module `sys`) in a module."""
    out = []
    for m in modules(root, units):
        with open(m.path) as f:
            tree = ast.parse(f.read(), m.path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "path" and \
                    isinstance(node.value, ast.Name) and \
                    node.value.id == "sys":
                out.append("%s: edits the import path (sys's path); import "
                           "by package name instead" % where(
                               m, node.lineno, root))
    return out


def too_long(root: str, units: list[list[str]] = UNITS,
             max_lines: int = MAX_LINES) -> list[str]:
    out = []
    for m in modules(root, units):
        with open(m.path) as f:
            n = sum(1 for _ in f)
        if n > max_lines:
            out.append("%s: %d lines, over %d" % (
                os.path.relpath(m.path, root), n, max_lines))
    return out


def is_test(m: Module) -> bool:
    short = m.name.rsplit(".", 1)[-1]
    return short.endswith("_test") or "testdata" in m.name.split(".") or \
        short in ("testutil", "layering", "__init__") or m.name == m.unit


def module_layer(m: Module,
                 maps: dict[str, list[list[str]]] = MODULES) -> int | None:
    short = m.name[len(m.unit) + 1:]
    for k, layer in enumerate(maps.get(m.unit, [])):
        if short in layer:
            return k
    return None


def module_order(root: str, units: list[list[str]] = UNITS,
                 maps: dict[str, list[list[str]]] = MODULES) -> list[str]:
    """A sentence for each module of a mapped unit without a layer (or a
    layer naming no module), and each import within a unit that does not
    go to a lower layer."""
    mods = modules(root, units)
    out = []
    for unit, layers in sorted(maps.items()):
        have = {m.name[len(unit) + 1:] for m in mods if m.unit == unit}
        for name in sorted({n for layer in layers for n in layer} - have):
            out.append("%s.%s is in MODULES but not in the tree" % (
                unit, name))
        for m in mods:
            if m.unit == unit and not is_test(m) and \
                    module_layer(m, maps) is None:
                out.append("%s has no layer in MODULES[%r]" % (
                    m.name, unit))
    for m, dep, line in edges(mods):
        if m.unit != dep.unit or m.unit not in maps or dep.name == m.unit:
            continue
        a = len(maps[m.unit]) if is_test(m) else module_layer(m, maps)
        b = module_layer(dep, maps)
        if a is not None and b is not None and b >= a:
            out.append("%s: %s (layer %d) imports %s (layer %d): a module "
                       "imports only lower layers" % (
                           where(m, line, root), m.name, a, dep.name, b))
    return sorted(set(out))


def narrow_imports(root: str, units: list[list[str]] = UNITS) -> list[str]:
    """A sentence for each module of STDLIB_ONLY importing past the
    standard library, each import from pick past FROM_PICK outside pick
    and tests, and each import of pick.outcome past OUTCOME_THROUGH."""
    out = []
    for m in modules(root, units):
        if is_test(m) or m.unit == "pick":
            continue
        for line, dotted in imported_names(m.path):
            top = dotted.split(".")[0]
            if m.name in STDLIB_ONLY and top != "__future__" and \
                    top not in sys.stdlib_module_names:
                out.append("%s: %s imports %s, past the standard library" % (
                    where(m, line, root), m.name, top))
            if top == "pick" and dotted != "pick" and not any(
                    dotted == p or dotted.startswith(p + ".")
                    for p in FROM_PICK):
                if not any(p.startswith(dotted + ".") for p in FROM_PICK):
                    out.append("%s: %s imports %s, not one of FROM_PICK" % (
                        where(m, line, root), m.name, dotted))
            if dotted.startswith("pick.outcome") and \
                    m.name != OUTCOME_THROUGH:
                out.append("%s: %s imports pick.outcome; take it from %s" % (
                    where(m, line, root), m.name, OUTCOME_THROUGH))
    return sorted(set(out))


def loaded_alone(root: str, name: str) -> tuple[int, str, set[str]]:
    """Imports module `name` alone in a fresh interpreter with only root on
    PYTHONPATH: (exit status, stderr, its sys.modules afterwards)."""
    code = ("import importlib, json, sys; "
            "importlib.import_module(sys.argv[1]); "
            "print(json.dumps(sorted(sys.modules)))")
    env = dict(os.environ, PYTHONPATH=root)
    p = subprocess.run([sys.executable, "-P", "-c", code, name],
                       capture_output=True, text=True, cwd=root, env=env)
    if p.returncode != 0:
        return p.returncode, p.stderr, set()
    return 0, p.stderr, set(json.loads(p.stdout.splitlines()[-1]))


def not_alone(root: str, units: list[list[str]] = UNITS,
              maps: dict[str, list[list[str]]] = MODULES) -> list[str]:
    """A sentence for each mapped module that fails to import alone, or
    that loads a module of its unit's own layer or above."""
    mods = [m for m in modules(root, units) if not is_test(m) and
            module_layer(m, maps) is not None]
    layer = {m.name: (m.unit, module_layer(m, maps)) for m in mods}
    out = []
    for m in mods:
        rc, err, loaded = loaded_alone(root, m.name)
        if rc != 0:
            out.append("%s does not import alone: %s" % (
                m.name, err.strip().splitlines()[-1:]))
            continue
        mine = layer[m.name][1]
        for other in sorted(loaded & set(layer)):
            u, k = layer[other]
            if other != m.name and u == m.unit and k is not None and \
                    mine is not None and k >= mine:
                out.append("%s loads %s, not of a lower layer" % (
                    m.name, other))
    return out

# -----------------------------------------------------------------------------
# build/python_layers.py
# -----------------------------------------------------------------------------
#
# The one layering rule of the project's Python, read from the real imports
# (ast, imports inside functions too), with no list of modules to keep:
#
#   - no import cycle between modules;
#   - no cycle between the folders of one parent (a package's stages, such
#     as pick.read and pick.decide, or servers.driver and servers.http): at
#     every level the folders import in one direction. A test (*_test.py)
#     sits beside its module but may exercise the stages above it, so its
#     imports count for the module rule only;
#   - the top-level units import in the order of UNITS (a unit imports only
#     those before it), and every top-level folder holding Python is in it;
#   - no module touches sys.path (every module is imported by its package
#     name from the workspace root).
#
# A file past LONG_LINES is reported as a warning only: a long file that
# holds one idea is fine. build/python_layers_test.py runs the checks on
# planted trees first, then on the workspace. Standard library only.

from __future__ import annotations

import ast
import dataclasses
import os

# The top-level units, bottom first: a unit imports only units before it.
UNITS = ["pick", "servers", "validation", "build"]
# Folders never read: Bazel's output links, hidden folders, vendored code,
# results, and examples/ (a workspace of its own).
SKIP = ("bazel-", ".", "third_party", "results", "__pycache__", "examples")
LONG_LINES = 600


@dataclasses.dataclass(frozen=True)
class Module:
    """A Python file: its dotted name from the root, its path, and the
    dotted name of the folder that holds it."""
    name: str
    path: str
    folder: str


def modules(root: str) -> list[Module]:
    """Every *.py in a folder below root, outside SKIP, by dotted name."""
    out = []
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs
                         if not any(d.startswith(s) for s in SKIP))
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(top, f)
            rel = os.path.relpath(path, root)
            if os.sep not in rel:
                continue
            folder = os.path.dirname(rel).replace(os.sep, ".")
            name = rel[:-3].replace(os.sep, ".")
            if name.endswith(".__init__"):
                name = name[:-len(".__init__")]
            out.append(Module(name, path, folder))
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


def edges(mods: list[Module]) -> list[tuple[Module, Module, int]]:
    """(importer, imported, line) for every import of a project module by
    its full name; a package's own __init__ is not counted as imported by
    the modules inside it (Python loads it on the way)."""
    by_name = {m.name: m for m in mods}
    out = []
    for m in mods:
        for line, dotted in imported_names(m.path):
            dep = by_name.get(dotted)
            if dep is not None and dep is not m and \
                    not m.name.startswith(dep.name + "."):
                out.append((m, dep, line))
    return out


def where(m: Module, line: int, root: str) -> str:
    return "%s:%d" % (os.path.relpath(m.path, root), line)


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


def sibling_folders(a: str, b: str) -> tuple[str, str] | None:
    """The two children of a's and b's nearest common folder that lead to
    a and to b (pick.read.x, pick.decide -> pick.read, pick.decide); None
    when one folder holds the other (a package and its own stages)."""
    pa, pb = a.split("."), b.split(".")
    n = 0
    while n < min(len(pa), len(pb)) and pa[n] == pb[n]:
        n += 1
    if n == len(pa) or n == len(pb):
        return None
    return ".".join(pa[:n + 1]), ".".join(pb[:n + 1])


def module_loops(root: str) -> list[str]:
    """A sentence for each import cycle between modules, naming the imports
    that close it."""
    es = edges(modules(root))
    graph: dict[str, set[str]] = {}
    for m, dep, _ in es:
        graph.setdefault(m.name, set()).add(dep.name)
    out = []
    for comp in cycles(graph):
        sites = sorted({"%s -> %s (%s)" % (m.name, dep.name,
                                           where(m, line, root))
                        for m, dep, line in es
                        if m.name in comp and dep.name in comp})
        out.append("import cycle between modules %s: %s" % (
            ", ".join(comp), "; ".join(sites)))
    return out


def is_test(m: Module) -> bool:
    return m.name.endswith("_test")


def folder_loops(root: str) -> list[str]:
    """A sentence for each cycle between folders of one parent, naming the
    imports that close it."""
    es = edges(modules(root))
    graph: dict[str, set[str]] = {}
    sites: dict[tuple[str, str], set[str]] = {}
    for m, dep, line in es:
        pair = sibling_folders(m.folder, dep.folder)
        if pair is None or is_test(m):
            continue
        graph.setdefault(pair[0], set()).add(pair[1])
        sites.setdefault(pair, set()).add("%s -> %s (%s)" % (
            m.name, dep.name, where(m, line, root)))
    out = []
    for comp in cycles(graph):
        closing = sorted(s for (a, b), ss in sites.items()
                         if a in comp and b in comp for s in ss)
        out.append("import cycle between folders %s: %s" % (
            ", ".join(comp), "; ".join(closing)))
    return out


def wrong_direction(root: str, units: list[str] = UNITS) -> list[str]:
    """A sentence for each top-level folder holding Python that is not in
    units, and each import of a unit that is not before the importer's."""
    mods = modules(root)
    out = ["%s holds Python but is not in UNITS" % top
           for top in sorted({m.folder.split(".")[0] for m in mods})
           if top not in units]
    for m, dep, line in edges(mods):
        a, b = m.folder.split(".")[0], dep.folder.split(".")[0]
        if a != b and a in units and b in units and \
                units.index(b) > units.index(a):
            out.append("%s: %s imports %s: %s comes after %s in UNITS" % (
                where(m, line, root), m.name, dep.name, b, a))
    return sorted(set(out))


def path_edits(root: str) -> list[str]:
    """A sentence for each use of the import path list (`path` of module
    `sys`) in a module."""
    out = []
    for m in modules(root):
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


def problems(root: str, units: list[str] = UNITS) -> list[str]:
    """Every breach of the rule in the tree at root."""
    return (module_loops(root) + folder_loops(root) +
            wrong_direction(root, units) + path_edits(root))


def long_files(root: str, limit: int = LONG_LINES) -> list[str]:
    """A warning for each non-test file past limit lines (never a
    failure: a long file that holds one idea is fine)."""
    out = []
    for m in modules(root):
        if is_test(m) or "testdata" in m.folder.split("."):
            continue
        with open(m.path) as f:
            n = sum(1 for _ in f)
        if n > limit:
            out.append("warning: %s: %d lines, past %d; split it only if "
                       "it holds two ideas" % (
                           os.path.relpath(m.path, root), n, limit))
    return out

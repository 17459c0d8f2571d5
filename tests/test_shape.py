"""The grading code's shape: graders.sandbox's modules import one another without a circle
(at module level or inside a function), so each can be read, and loaded, on its own."""

from __future__ import annotations

import ast
from pathlib import Path

import graders.sandbox

PACKAGE = "graders.sandbox"
FOLDER = Path(graders.sandbox.__file__).parent


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that ``path`` imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name.removeprefix(PACKAGE + ".") for alias in node.names
                      if alias.name.startswith(PACKAGE + ".")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if not node.level:  # relative ones (``from . import x``, ``from .x import y``) are ours
                if base != PACKAGE and not base.startswith(PACKAGE + "."):
                    continue
                base = base.removeprefix(PACKAGE).lstrip(".")
            if base:
                found.add(base.split(".")[0])
            else:
                found |= {alias.name for alias in node.names if alias.name in modules}
    return found & modules


def import_graph() -> dict[str, set[str]]:
    modules = {p.stem for p in FOLDER.glob("*.py") if p.stem != "__init__"}
    return {m: _imports(FOLDER / f"{m}.py", modules) - {m} for m in sorted(modules)}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle found by a depth-first walk (empty when the graph is acyclic)."""
    found, state = [], {}

    def walk(node, path):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                walk(nxt, path + [nxt])
        state[node] = "done"

    for node in graph:
        if node not in state:
            walk(node, [node])
    return found


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_graders_sandbox_imports_without_a_circle():
    graph = import_graph()
    assert graph["template_host"] >= {"template", "streams"}  # the walk sees real edges
    assert circles(graph) == []

"""The page's modules import one another one way (issue #39's house item): no module imports,
directly or through others, a module that imports it. State and events live in the bottom
modules (state.js, hooks.js); a module above tells one below what happened by an event."""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).parents[2] / "service" / "static"
IMPORT = re.compile(r"""^import\s[^;]*?from\s+["']\./([\w-]+\.js)["']""", re.M | re.S)


def imports() -> dict[str, set[str]]:
    return {
        path.name: set(IMPORT.findall(path.read_text(encoding="utf-8")))
        for path in STATIC.glob("*.js")
    }


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (the modules in order, the first again at the end), or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_import_reader_sees_every_import() -> None:
    graph = imports()
    assert "table.js" in graph["app.js"] and "i18n.js" in graph["dom.js"]
    assert cycle({"a.js": {"b.js"}, "b.js": {"a.js"}}) == ["a.js", "b.js", "a.js"]


def test_the_page_modules_import_one_way() -> None:
    found = cycle(imports())
    assert found is None, " → ".join(found or [])

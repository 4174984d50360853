"""No import cycles among the acp_tui modules (but one known UI cycle, listed exactly).

The graph is read from the source with `ast`, so every import counts: at module level, inside a
function (a lazy import is still a dependency) and under ``if TYPE_CHECKING``. An import of
``a.b.c`` is an edge to the module ``a.b.c`` only, not to the packages ``a`` and ``a.b`` that
Python runs first: a package's ``__init__`` may import its own modules.
"""

from __future__ import annotations

import ast
from collections.abc import Container, Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "acp_tui"

KNOWN_CYCLES: frozenset[frozenset[str]] = frozenset()
"""Cycles tolerated for now: none."""
"""The cycles allowed for now, each exactly as it stands: one that grows or shrinks fails."""


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules_under(root: Path) -> dict[str, Path]:
    """Every module of the package at ``root``, by dotted name."""
    return {module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def imports_of(tree: ast.AST, module: str, is_package: bool, modules: Container[str]) -> set[str]:
    """The modules among ``modules`` that ``tree`` imports, anywhere in it.

    ``from a import b`` imports the module ``a.b`` when there is one, else a name of ``a``;
    ``import a.b`` imports ``a.b`` (or its nearest enclosing module); relative imports resolve.
    """
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                while parts and ".".join(parts) not in modules:
                    parts.pop()
                if parts:
                    found.add(".".join(parts))
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:
                    found.add(f"{source}.{alias.name}")
                elif source in modules:
                    found.add(source)
    found.discard(module)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports."""
    modules = modules_under(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        graph[name] = imports_of(tree, name, path.name == "__init__.py", modules)
    return graph


def cycles(graph: Mapping[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))
    return found


def describe(found: set[frozenset[str]], graph: Mapping[str, set[str]]) -> str:
    """Each cycle as its modules and what each imports of the others."""
    lines = []
    for component in sorted(found, key=sorted):
        lines.append("cycle:")
        for name in sorted(component):
            lines.append(f"  {name} -> {', '.join(sorted(graph[name] & component))}")
    return "\n".join(lines)


def test_the_acp_tui_modules_import_each_other_without_cycles() -> None:
    graph = import_graph(PACKAGE)
    found = cycles(graph)
    unexpected = found - KNOWN_CYCLES
    assert not unexpected, f"import cycles:\n{describe(unexpected, graph)}"
    stale = KNOWN_CYCLES - found
    assert not stale, (
        "these allowed cycles are gone or have changed, update KNOWN_CYCLES:\n"
        + "\n".join(" ".join(sorted(c)) for c in stale)
    )


# -- the finder itself ------------------------------------------------------------------------


def write(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_a_lazy_import_inside_a_function_is_a_cycle(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import B\n",
            "pkg/b.py": "def f():\n    from pkg.a import A\n",
            "pkg/c.py": "import pkg.a\n",
        },
    )
    assert cycles(import_graph(root)) == {frozenset({"pkg.a", "pkg.b"})}


def test_type_checking_and_relative_imports_count(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "from . import x\n",
            "pkg/sub/x.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from ..y import Y\n",
            "pkg/y.py": "from pkg.sub import x\n",
        },
    )
    graph = import_graph(root)
    assert graph["pkg.sub"] == {"pkg.sub.x"}
    assert graph["pkg.sub.x"] == {"pkg.y"}
    assert cycles(graph) == {frozenset({"pkg.sub.x", "pkg.y"})}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # A package's __init__ importing its modules, which import a sibling: no cycle.
        (
            {
                "pkg/__init__.py": "",
                "pkg/d/__init__.py": "from pkg.d.v1 import V1\n",
                "pkg/d/v1.py": "from pkg.d.base import Base\n",
                "pkg/d/base.py": "",
            },
            set(),
        ),
        # A module importing the package it lives in (for a name defined there): a cycle.
        (
            {
                "pkg/__init__.py": "",
                "pkg/d/__init__.py": "from pkg.d.v1 import V1\nNAME = 1\n",
                "pkg/d/v1.py": "from pkg.d import NAME\n",
            },
            {frozenset({"pkg.d", "pkg.d.v1"})},
        ),
    ],
)
def test_packages_and_their_modules(
    tmp_path: Path, files: dict[str, str], expected: set[frozenset[str]]
) -> None:
    assert cycles(import_graph(write(tmp_path, files))) == expected

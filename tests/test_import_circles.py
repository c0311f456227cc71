"""No two modules of the package import each other, directly or around a longer circle, at module
level or inside a function (issue 29, item 5: the arm's kinds and its kernels had two). Read from
the source with ``ast``, nothing run."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "actuatorlab"


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    found = {}
    for path in package.rglob("*.py"):
        name = ".".join(path.relative_to(package.parent).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module → the package's modules it imports (``from package import module`` counted as the
    module; a package's own ``__init__`` is not an edge of its modules)."""
    modules = _modules(package)
    graph = {}
    for name, path in modules.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:
                    module = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
                targets |= {f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in modules}
                targets.add(module)
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
        graph[name] = {t for t in targets if t in modules and t != name and not name.startswith(t + ".")}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    assert not circles(import_graph()), "modules that import each other: break the circle with a module below both"


def test_a_circle_through_a_function_level_import_is_found(tmp_path):
    package = tmp_path / "actuatorlab"
    (package / "kinds").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "kinds" / "__init__.py").write_text("")
    (package / "kinds" / "a.py").write_text("from .b import f\n")
    (package / "kinds" / "b.py").write_text("def f():\n    from . import a\n")
    assert circles(import_graph(package)) == [["actuatorlab.kinds.a", "actuatorlab.kinds.b"]]

"""The layers of docs/architecture.md hold: no module imports a package of a higher layer, at
module level or inside a function (issue 15). Read from the source with ``ast``, nothing run."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "actuatorlab"
LAYERS = (
    ("cli",),
    ("api",),
    ("fmu",),
    ("scenarios",),
    ("report",),
    ("simulation", "multibody"),
    ("control", "identification", "optimization"),
    ("machines",),
    ("hydraulics", "electromech", "mechanics"),
    ("numerics",),
    ("io", "errors", "validation"),
)
"""Top to bottom; a module may import its own layer and those below. ``io`` (atomic writes,
tables) and the errors and checks are the floor every layer stands on."""
RANK = {package: depth for depth, layer in enumerate(LAYERS) for package in layer}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports(path: Path, package: Path = PACKAGE) -> set[str]:
    """The actuatorlab modules that ``path`` (a file under ``package``) imports, anywhere in it."""
    module = ".".join(path.relative_to(package.parent).with_suffix("").parts)
    if path.name == "__init__.py":
        module = module.rsplit(".", 1)[0]
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:
                target = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
            found.add(target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {t for t in found if t.startswith("actuatorlab.")}


def test_every_package_has_a_layer():
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    packages |= {p.stem for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    assert packages <= set(RANK), f"give {sorted(packages - set(RANK))} a place in LAYERS and docs/architecture.md"


def test_no_module_imports_upward():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _package(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
        for target in _imports(path):
            if source in RANK and RANK[_package(target)] < RANK[source]:
                upward.append(f"{path.relative_to(PACKAGE)} imports {target}")
    assert not upward, "imports against the layer table:\n" + "\n".join(upward)


def test_the_walk_sees_function_level_imports(tmp_path):
    """The check would fail on an upward import hidden inside a function."""
    hidden = tmp_path / "actuatorlab" / "numerics" / "hidden.py"
    hidden.parent.mkdir(parents=True)
    hidden.write_text("def f():\n    from ..scenarios import runner\n")
    assert _imports(hidden, tmp_path / "actuatorlab") == {"actuatorlab.scenarios"}
    assert RANK["scenarios"] < RANK["numerics"]


def test_the_architecture_page_draws_the_same_layers():
    """docs/architecture.md's layer diagram lists these layers, top to bottom, in this order."""
    page = (PACKAGE.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    diagram = page.split("```")[1].strip().splitlines()
    drawn = []
    for line in diagram:
        names = []
        for word in line.split():
            if not (word.endswith("/") or word.endswith(".py")):
                break
            names.append(word.removesuffix("/").removesuffix(".py"))
        drawn.append(tuple(names))
    assert [set(names) for names in drawn] == [set(layer) for layer in LAYERS], drawn

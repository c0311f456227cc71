"""The layers of docs/architecture.md hold: no module imports a package of a higher layer, at
module level or inside a function (issue 15), by an import statement or by name through
``importlib.import_module`` (issue 29). Read from the source with ``ast``, nothing run."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "actuatorlab"
LAYERS = (
    ("cli", "__main__"),
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
        elif _is_import_module(node):
            found.add(_import_module_target(node, module, ".".join(base)))
    return {t for t in found if t.startswith("actuatorlab.")}


def _is_import_module(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) in ("importlib.import_module", "import_module")


def _import_module_target(call: ast.Call, module: str, package: str) -> str:
    """The module (or the package holding it) that ``import_module`` names: a literal, relative
    to ``__package__`` when it starts with dots, or an f-string read up to its first unknown
    part (``f"{__package__}.kinds.{name}"`` → the package ``….scenarios.kinds``). A name that
    cannot be read gives ``"?"``, which the tests refuse."""
    name = call.args[0] if call.args else None
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        text = name.value
        if text.startswith("."):
            level = len(text) - len(text.lstrip("."))
            parts = package.split(".")
            text = ".".join(parts[: len(parts) - level + 1] + [text.lstrip(".")])
        return text
    if isinstance(name, ast.JoinedStr):
        known = {"__package__": package, "__name__": module}
        text = ""
        for part in name.values:
            if isinstance(part, ast.Constant):
                text += part.value
            elif isinstance(part, ast.FormattedValue) and ast.unparse(part.value) in known:
                text += known[ast.unparse(part.value)]
            else:
                break
        return text.rsplit(".", 1)[0] if "." in text else "?"
    return "?"


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


def test_the_walk_reads_imports_by_name(tmp_path):
    """``import_module`` by a literal, a relative literal and an f-string counts as an import."""
    hidden = tmp_path / "actuatorlab" / "numerics" / "by_name.py"
    hidden.parent.mkdir(parents=True)
    hidden.write_text(
        "import importlib\n"
        "def f(name):\n"
        '    importlib.import_module("actuatorlab.report.plots")\n'
        '    importlib.import_module("..io.results", __package__)\n'
        '    return importlib.import_module(f"{__package__}.kinds.{name}")\n'
    )
    assert _imports(hidden, tmp_path / "actuatorlab") == {
        "actuatorlab.report.plots",
        "actuatorlab.io.results",
        "actuatorlab.numerics.kinds",
    }


def test_every_import_by_name_can_be_read():
    """No ``import_module`` takes a name known only at run time: the walk sees every import."""
    unreadable = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if any(
            _is_import_module(node) and _import_module_target(node, "", "") == "?"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    ]
    assert unreadable == [], "name the module imported (a literal, or an f-string of the package and a name)"


def test_every_module_the_kind_table_names_exists():
    """``scenarios.kinds.KINDS`` names each kind's modules by string; each one is a file of
    ``scenarios`` (held to the layers by the walk above) with the class the schema names."""
    from actuatorlab.scenarios.kinds import KINDS

    scenarios = PACKAGE / "scenarios"
    for name, kind in KINDS.items():
        schema_module, schema_class = kind.schema.split(":")
        source = (scenarios / f"{schema_module}.py").read_text(encoding="utf-8")
        assert f"class {schema_class}(" in source, (name, kind.schema)
        for module in (kind.run, kind.batch):
            if module:
                assert (scenarios / "kinds" / f"{module}.py").is_file(), (name, module)


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


def test_the_architecture_page_draws_the_kind_table():
    """docs/architecture.md's "The kinds" table has one row per entry of ``KINDS``, in order,
    with its modules."""
    from actuatorlab.scenarios.kinds import KINDS

    page = (PACKAGE.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## The kinds", 1)[1].split("\n## ", 1)[0]
    rows = [
        [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("| `")
    ]
    assert [tuple(row) for row in rows] == [(name, k.schema, k.run, k.batch) for name, k in KINDS.items()]

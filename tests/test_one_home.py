"""One home per value (issue 29, item 4): every default of a bulk modulus is a named constant of
``hydraulics/fluid.py`` (with its source), never a second literal, and one name spells it."""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path

from actuatorlab.hydraulics import fluid

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "actuatorlab"
BULK_MODULI = {name: value for name, value in vars(fluid).items() if name.endswith("BULK_MODULUS")}


def _classes_with_a_bulk_modulus_default():
    """(module, class name) of every class body that gives ``bulk_modulus`` a default."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(s, ast.AnnAssign) and s.target.id == "bulk_modulus" and s.value is not None
                for s in node.body
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
            ):
                module = ".".join(("actuatorlab", *path.relative_to(PACKAGE).with_suffix("").parts))
                yield module, node.name


def _default(cls) -> float:
    if dataclasses.is_dataclass(cls):
        return next(f.default for f in dataclasses.fields(cls) if f.name == "bulk_modulus")
    return cls.model_fields["bulk_modulus"].default


def test_every_bulk_modulus_default_is_a_fluid_constant():
    found = list(_classes_with_a_bulk_modulus_default())
    assert len(found) >= 8  # the arm, circuit, machine, robot, IEHA, excavator, crane and network classes
    for module, name in found:
        default = _default(getattr(importlib.import_module(module), name))
        assert default in BULK_MODULI.values(), f"{module}.{name}.bulk_modulus = {default!r}: use a fluid.py constant"


def test_no_module_but_fluid_writes_a_bulk_modulus_as_a_number():
    """A literal equal to one of fluid.py's bulk moduli anywhere else is a second home."""
    values = set(BULK_MODULI.values())
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "fluid.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and type(node.value) is float and node.value in values:
                raise AssertionError(
                    f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r} is a fluid.py constant"
                )

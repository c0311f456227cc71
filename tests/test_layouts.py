"""Every packed vector's order is declared once, as a ``numerics.layout.Layout`` (issue 29, item 3):
no index constants from ``range``, every unpacked list of constants names the layout's entries in
its order, and packing goes by name."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import numpy as np
import pytest

from actuatorlab.numerics.layout import Layout

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "actuatorlab"


def _module(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def _unpackings(suffix: str):
    """(path, assignment) of every module-level ``(A, B, …) = <expr><suffix>`` in the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
                value = ast.unparse(node.value)
                if value.endswith(suffix) or value.startswith(suffix):
                    yield path, node


def test_no_layout_is_a_bare_range():
    ranges = [f"{path.relative_to(PACKAGE)}:{node.lineno}" for path, node in _unpackings("range(")]
    assert not ranges, "index constants from range(n): declare a Layout and unpack its .indices\n" + "\n".join(ranges)


def test_every_unpacked_list_names_its_layout_in_order():
    checked, wrong = 0, []
    for path, node in _unpackings(".indices"):
        module = importlib.import_module(_module(path))
        layout = eval(ast.unparse(node.value)[: -len(".indices")], vars(module))  # noqa: S307 (our own source)
        assert isinstance(layout, Layout)
        names = [t.id for t in node.targets[0].elts]
        if names != list(layout.constants()):
            wrong.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {names} != {list(layout.constants())}")
        checked += 1
    assert checked >= 35
    assert not wrong, "constants out of step with their layout:\n" + "\n".join(wrong)


def test_pack_goes_by_name_and_wants_every_entry_once():
    layout = Layout("X_", "a", "b", "c")
    np.testing.assert_array_equal(layout.pack(c=3.0, a=1.0, b=2.0), [1.0, 2.0, 3.0])
    assert layout.pack(a=1, b=2, c=3).dtype == np.float64
    with pytest.raises(ValueError, match=r"missing \['b'\], unknown \['d'\]"):
        layout.pack(a=1.0, c=3.0, d=4.0)
    with pytest.raises(ValueError, match="named twice"):
        Layout("X_", "a", "a")


def test_parameter_vectors_hold_their_fields_by_name():
    from actuatorlab.hydraulics.pressure_dynamics import H_BULK_MODULUS, H_L0, H_VH0
    from actuatorlab.hydraulics.pressure_dynamics_params import PressureDynamics
    from actuatorlab.hydraulics.quasistatic.circuit import I_AH, I_CA, I_CB, I_CPH, I_FHM, ValveCircuit
    from actuatorlab.mechanics.single_arm import SingleArm
    from actuatorlab.mechanics.single_arm_layout import K_BY, K_JP, K_SIN_ALPHA

    circuit = ValveCircuit(max_area={"ph": 1e-4, "tr": 2e-4, "pr": 3e-4, "th": 4e-4, "b": 5e-4})
    cp = circuit.kernel_array()
    assert (cp[I_AH], cp[I_FHM], cp[I_CA]) == (
        circuit.head_area,
        circuit.head_relief_force,
        circuit.regeneration_coefficient,
    )
    assert tuple(cp[I_CPH : I_CB + 1]) == circuit.coefficients
    fluid = PressureDynamics(head_dead_volume=0.7e-3, retracted_length=1.2)
    hp = fluid.kernel_array()
    assert (hp[H_BULK_MODULUS], hp[H_VH0], hp[H_L0]) == (fluid.bulk_modulus, 0.7e-3, 1.2)
    arm = SingleArm()
    ap = arm.kernel_array()
    assert (ap[K_JP], ap[K_BY], ap[K_SIN_ALPHA]) == (arm.pivot_inertia, arm.base[1], np.sin(arm.mount_angle))

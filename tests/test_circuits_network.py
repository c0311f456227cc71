"""Netlists (issue 30): layouts from the classes, one-line errors for bad circuits, the branch
laws' monotonicity, compiled and interpreted kernels agreeing."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actuatorlab.errors import ParameterError, SimulationError
from actuatorlab.hydraulics.circuits import (
    CheckValve,
    CounterbalanceValve,
    Cylinder,
    FixedPump,
    Line,
    Network,
    Orifice,
    ReliefValve,
    SpoolValve,
    Tank,
    VariablePump,
)
from actuatorlab.hydraulics.circuits.branch import B, Branch
from actuatorlab.hydraulics.circuits.kernels import SCRATCH_ROWS, branch_flow, solve_nodes
from actuatorlab.numerics.layout import fields_layout, pack_fields
from actuatorlab.hydraulics.circuits.solvers import solve


def _arm(**changes):
    """Pump, relief, closed-centre spool and a cylinder: the smallest working circuit."""
    parts = {
        "tank": (Tank(), {"port": "T"}),
        "pump": (FixedPump(displacement=50e-6), {"inlet": "T", "outlet": "P"}),
        "relief": (ReliefValve(setting=20e6, band=1e3), {"inlet": "P", "outlet": "T"}),
        "valve": (SpoolValve(), {"P": "P", "T": "T", "A": "A", "B": "B"}),
        "cylinder": (Cylinder(), {"head": "A", "rod": "B"}),
    }
    parts.update(changes)
    return {k: v for k, v in parts.items() if v is not None}


def test_a_component_packs_its_float_fields_in_declaration_order():
    layout = fields_layout(Cylinder)
    assert list(layout.names) == [f.name for f in dataclasses.fields(Cylinder)]
    cylinder = Cylinder(head_area=0.03, rod_area=0.01)
    assert pack_fields(cylinder)[layout.index("rod_area")] == 0.01
    assert [m.name.lower() for m in B] == [f.name for f in dataclasses.fields(Branch)]
    assert list(fields_layout(SpoolValve).names).count("centre") == 0  # a choice, not a packed quantity


def test_a_bad_parameter_names_field_value_and_unit():
    with pytest.raises(ParameterError, match=r"head_area = -1.0 m\^2"):
        Cylinder(head_area=-1.0)
    with pytest.raises(ParameterError, match="centre = 'tandem'"):
        SpoolValve(centre="tandem")
    with pytest.raises(ParameterError, match="volumetric_efficiency"):
        FixedPump(volumetric_efficiency=1.2)


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        (_arm(cylinder=(Cylinder(), {"head": "A"})), "component 'cylinder' port 'rod' is not connected"),
        (_arm(cylinder=(Cylinder(), {"head": "A", "rod": "B", "cap": "C"})), "component 'cylinder' has no port 'cap'"),
        (_arm(cylinder=("a cylinder", {"head": "A"})), "component 'cylinder': str is not a circuit component"),
        (_arm(relief=None), "component 'pump' port 'outlet': the pump is dead-headed at node 'P'"),
        (_arm(line=(Line(), {"port": "X"})), "component 'line' port 'port': node 'X' has no path to a tank"),
        (
            _arm(cbv=(CounterbalanceValve(), {"valve": "A", "load": "A2", "pilot": "nowhere"})),
            "component 'cbv' pilot port 'pilot': node 'nowhere' is joined by no component's flow port",
        ),
        (
            _arm(cbv=(CounterbalanceValve(), {"valve": "A", "load": "A2"})),
            "component 'cbv' pilot port 'pilot' is not connected",
        ),
    ],
)
def test_a_bad_circuit_is_refused_in_one_line_naming_component_and_port(parts, message):
    with pytest.raises(ParameterError, match=message) as caught:
        Network(parts)
    assert "\n" not in str(caught.value)


def test_a_load_sensing_pump_needs_its_ls_pilot():
    parts = _arm(pump=(VariablePump(control="load_sensing"), {"inlet": "T", "outlet": "P"}))
    with pytest.raises(ParameterError, match="component 'pump' pilot port 'ls' is not connected"):
        Network(parts)


def test_a_node_whose_pressure_is_not_unique_is_named():
    """Closed-centre spool in neutral, rod at rest, no leakage: nothing fixes p_A and p_B."""
    network = Network(_arm())
    u = network.input_vector({"pump.speed": 150.0, "cylinder.position": 0.3})
    with pytest.raises(SimulationError, match="node 'A'.*not unique.*declare a leakage") as caught:
        solve(network, u)
    assert "\n" not in str(caught.value)
    leaky = Network(_arm(valve=(SpoolValve(leakage=1e-12), {"P": "P", "T": "T", "A": "A", "B": "B"})))
    assert np.all(np.isfinite(solve(leaky, u)))


def test_unknown_inputs_and_nodes_list_the_valid_names():
    network = Network(_arm())
    with pytest.raises(ParameterError, match="input 'pump.torque'.*pump.speed"):
        network.input_vector({"pump.torque": 1.0})
    with pytest.raises(ParameterError, match="node 'Z'.*T, P, A, B"):
        network.node("Z")


def _rows():
    """One branch of each family of laws, between nodes 0 (a) and 1 (b), pilot node 2."""
    return np.array(
        [
            pack_fields(component.branches({"inlet": 0, "outlet": 1, "pilot": 2, "load": 0, "valve": 1}, {})[-1])
            for component in (
                Orifice(),
                ReliefValve(setting=1e6, band=2e5, leakage=1e-12),
                CheckValve(),
                CounterbalanceValve(setting=3e6, leakage=1e-12),
            )
        ]
        + [pack_fields(SpoolValve(leakage=1e-12).branches({"P": 0, "A": 1, "B": 1, "T": 1}, {"position": 0})[0])]
    )


pressures = st.floats(-2e6, 3e7, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(pa=pressures, pb=pressures, pilot=pressures, delta=st.floats(0.0, 1e7), x=st.floats(-1.0, 1.0))
def test_every_branch_law_is_monotone_in_its_own_pressure_difference(pa, pb, pilot, delta, x):
    """q(a → b) never falls as p_a rises or as p_b falls (a dissipative branch)."""
    dq = np.empty(5)
    u = np.array([x])
    rows = _rows()
    for k in range(rows.shape[0]):
        q = branch_flow(rows, k, np.array([pa, pb, pilot]), u, dq)
        assert branch_flow(rows, k, np.array([pa + delta, pb, pilot]), u, dq) >= q - 1e-15
        assert branch_flow(rows, k, np.array([pa, pb - delta, pilot]), u, dq) >= q - 1e-15


@settings(max_examples=100, deadline=None)
@given(pa=pressures, pb=pressures, pilot=pressures, x=st.floats(-1.0, 1.0))
def test_branch_derivatives_match_differences_and_the_interpreted_twin(pa, pb, pilot, x):
    dq = np.empty(5)
    dq_py = np.empty(5)
    u = np.array([x])
    p = np.array([pa, pb, pilot])
    rows = _rows()
    for k in range(rows.shape[0]):
        q = branch_flow(rows, k, p, u, dq)
        assert branch_flow.py_func(rows, k, p, u, dq_py) == pytest.approx(q, rel=1e-12, abs=1e-18)
        np.testing.assert_allclose(dq_py, dq, rtol=1e-12, atol=1e-20)
        for node, column in ((0, 0), (1, 1)):
            step = 1e-6 * max(1.0, *np.abs(p))
            up, down = p.copy(), p.copy()
            up[node] += step
            down[node] -= step
            right = (branch_flow(rows, k, up, u, np.empty(5)) - q) / step
            left = (q - branch_flow(rows, k, down, u, np.empty(5))) / step
            # a pilot line on the same node (a relief senses its own inlet) adds its column
            total = dq[column] + sum(dq[2 + j] for j in range(3) if rows[k, B.PILOT1 + 2 * j] == node)
            if abs(right - left) <= 1e-3 * max(abs(right), abs(left)):  # no kink of a clamp within the step
                assert total == pytest.approx(0.5 * (right + left), rel=1e-3, abs=1e-15)


def test_compiled_and_interpreted_newton_agree():
    network = Network(_arm(valve=(SpoolValve(leakage=1e-12), {"P": "P", "T": "T", "A": "A", "B": "B"})))
    u = network.input_vector(
        {"pump.speed": 150.0, "valve.position": 0.5, "cylinder.velocity": 0.01, "cylinder.position": 0.3}
    )
    results = []
    for kernel in (solve_nodes, solve_nodes.py_func):
        n = len(network.nodes)
        p = np.zeros(n)
        status = kernel(
            network.rows,
            network.volumes,
            network.gas,
            network.held,
            0.0,
            u,
            1e-3,
            p.copy(),
            p,
            np.empty((n + SCRATCH_ROWS, n)),
            np.empty(5),
        )
        results.append((status, p))
    assert results[0][0] == results[1][0] and results[0][0][0] == 0
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10)


def test_first_order_spool_follows_its_command_exponentially():
    from actuatorlab.hydraulics.circuits.spools import spool_positions

    # a unit step from rest, h = τ: the exact response of τ ẋ = u − x, 1 − e^{−k h/τ}
    x = spool_positions(np.array([0.0, 1.0, 1.0, 1.0]), 0.02, 0.02)
    np.testing.assert_allclose(x, 1.0 - np.exp(-np.arange(4.0)), rtol=1e-12, atol=1e-15)
    command = np.array([0.3, -0.5, 0.2])
    assert np.array_equal(spool_positions(command, 0.01, 0.0), command)  # no dynamics: the command itself


def test_a_scratch_array_of_the_wrong_shape_is_refused_not_written_past():
    from actuatorlab.hydraulics.circuits.solvers import network_step

    network = Network(_arm(valve=(SpoolValve(leakage=1e-12), {"P": "P", "T": "T", "A": "A", "B": "B"})))
    n = len(network.nodes)
    p, u = np.zeros(n), np.zeros(len(network.inputs))
    tables = (network.rows, network.volumes, network.gas, network.held)
    with pytest.raises(ValueError, match="SCRATCH_ROWS"):
        network_step(*tables, 0.0, u, 1e-3, p, p, np.empty((n + 4, n)), np.empty(5))
    with pytest.raises(ValueError, match="SCRATCH_ROWS"):
        solve_nodes(*tables, 0.0, u, 1e-3, p.copy(), p, np.empty((n + 4, n)), np.empty(5))

"""The two models of a netlist agree (issue 30, item 2): the pressure-dynamics solution tends to
the quasistatic one as the bulk modulus grows, its error falling as 1/β over two decades; the
compiled run and its interpreted twin agree."""

from __future__ import annotations

import numpy as np
import pytest

from actuatorlab.errors import SimulationError
from actuatorlab.hydraulics.circuits import Cylinder, FixedPump, Line, Network, ReliefValve, SpoolValve, Tank
from actuatorlab.hydraulics.circuits.solvers import _run, simulate


def _open_centre(bulk_modulus: float) -> Network:
    """Pump, relief, open-centre spool part-way open (bypass and metering edges both passing),
    a cylinder whose rod the mechanics moves; lines on the pump node."""
    return Network(
        {
            "tank": (Tank(), {"port": "T"}),
            "pump": (FixedPump(displacement=50e-6), {"inlet": "T", "outlet": "P"}),
            "relief": (ReliefValve(setting=30e6), {"inlet": "P", "outlet": "T"}),
            "line": (Line(volume=2e-3), {"port": "P"}),
            "valve": (SpoolValve(centre="open", neutral_width=0.6), {"P": "P", "T": "T", "A": "A", "B": "B"}),
            "cylinder": (Cylinder(), {"head": "A", "rod": "B"}),
        },
        bulk_modulus=bulk_modulus,
    )


def _drive(network: Network, t: np.ndarray) -> np.ndarray:
    """Inputs along t: pump at 150 rad/s, spool at 0.3, rod velocity 0.02 + 0.01 sin(2πt) m/s."""
    velocity = 0.02 + 0.01 * np.sin(2 * np.pi * t)
    position = 0.3 + 0.02 * t + 0.01 * (1 - np.cos(2 * np.pi * t)) / (2 * np.pi)
    u = np.zeros((t.size, len(network.inputs)))
    for name, values in (
        ("pump.speed", 150.0),
        ("valve.position", 0.3),
        ("cylinder.velocity", velocity),
        ("cylinder.position", position),
    ):
        u[:, network.inputs.index(name)] = values
    return u


def test_pressure_dynamics_tends_to_the_quasistatic_solution_as_one_over_beta():
    t = np.linspace(0.0, 1.0, 1001)
    reference = simulate(_open_centre(1.5e9), t, _drive(_open_centre(1.5e9), t), model="quasistatic")
    errors = []
    for beta in (1.5e9, 1.5e10, 1.5e11):
        network = _open_centre(beta)
        p = simulate(network, t, _drive(network, t), initial=reference[0], model="pressure")
        errors.append(np.max(np.abs(p - reference)[100:]))
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert errors[0] > 10.0  # Pa: a visible lag at the oil's own stiffness
    np.testing.assert_allclose(ratios, 10.0, rtol=0.1)  # error ∝ 1/β over two decades


def test_the_compiled_run_and_its_interpreted_twin_agree():
    t = np.linspace(0.0, 0.05, 51)
    network = _open_centre(1.5e9)
    u = _drive(network, t)
    p0 = simulate(network, t[:1], u[:1], model="quasistatic")[0]
    results = []
    for loop in (_run, _run.py_func):
        out = np.empty((t.size, p0.size))
        status = loop(
            network.rows, network.volumes, network.gas, network.held, 1 / network.bulk_modulus, t, u, p0.copy(), out
        )
        results.append((status[0], out))
    assert results[0][0] == results[1][0] == 0
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10)


def test_the_pressure_model_needs_a_volume_at_every_free_node():
    network = Network(
        {
            "tank": (Tank(), {"port": "T"}),
            "pump": (FixedPump(), {"inlet": "T", "outlet": "P"}),
            "relief": (ReliefValve(), {"inlet": "P", "outlet": "T"}),
        }
    )
    with pytest.raises(SimulationError, match="pressure-dynamics model needs node volumes"):
        simulate(network, np.linspace(0, 0.01, 3), np.full((3, 1), 100.0), model="pressure")
    with pytest.raises(SimulationError, match="model = 'stiff'"):
        simulate(network, np.linspace(0, 0.01, 3), np.full((3, 1), 100.0), model="stiff")

"""Cylinders of a MuJoCo model driven by a netlist, in both models (multibody.netlist_machine).

The machine: a 1000 kg block on a vertical slide joint lifted by one cylinder through a closed-
centre 4/3 spool from a fixed-displacement pump with a relief. References are closed-form
(statics: f = m g; the pump's whole flow into the head while the relief is shut: v = D ω/(2π A_h))
or an independent root-finding of the coupled cylinder's equations (scipy.optimize.brentq).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from actuatorlab.control.pi import PIController
from actuatorlab.errors import ParameterError
from actuatorlab.hydraulics import circuits as c
from actuatorlab.hydraulics.circuits.actuators import CoupledCylinder
from actuatorlab.hydraulics.circuits.component import orifice_gain
from actuatorlab.hydraulics.circuits.solvers import solve
from actuatorlab.hydraulics.circuits.spools import spool_positions
from actuatorlab.hydraulics.fluid import OIL_DENSITY
from actuatorlab.hydraulics.quasistatic.relaxation import Relaxation
from actuatorlab.multibody.closed_loop import ClosedLoop
from actuatorlab.multibody.netlist_machine import NetlistCylinder, NetlistMujocoSystem

MASS, G = 1000.0, 9.81
XML = f"""<mujoco><option timestep="0.001" integrator="Euler" gravity="0 0 -{G}"/>
<worldbody><body name="block"><joint name="lift" type="slide" axis="0 0 1"/>
<geom type="box" size="0.2 0.2 0.2" mass="{MASS}"/></body></worldbody></mujoco>"""
DISPLACEMENT, SPEED, HEAD_AREA, ROD_AREA = 20e-6, 150.0, 2e-3, 1e-3


def _parts(leakage: float = 1e-15) -> dict:
    return {
        "tank": (c.Tank(), {"port": "T"}),
        "pump": (c.FixedPump(displacement=DISPLACEMENT), {"inlet": "T", "outlet": "P"}),
        "relief": (c.ReliefValve(setting=20e6), {"inlet": "P", "outlet": "T"}),
        "spool": (c.SpoolValve(area=20e-6, leakage=leakage), {"P": "P", "T": "T", "A": "A", "B": "B"}),
        "line": (c.Line(volume=1e-3), {"port": "P"}),
    }


def _lift(model: str, leakage: float = 1e-15) -> NetlistMujocoSystem:
    cylinder = NetlistCylinder(
        "lift", "A", "B", HEAD_AREA, ROD_AREA, stroke=1.0, retracted_length=1.0, joint="lift", length_offset=1.5
    )
    return NetlistMujocoSystem(XML, [cylinder], _parts(leakage), model, relaxation=Relaxation(1e7, 1e5))


def _spool(t):
    return np.where((t > 0.3) & (t < 1.4), 0.5, 0.0)


@pytest.fixture(scope="module")
def runs():
    inputs = {"pump.speed": SPEED, "spool.position": _spool}
    out = {}
    for model in ("quasistatic", "pressure"):
        system = _lift(model)
        out[model] = (system, *system.simulate(1.5, inputs, qpos=[0.0]))
    return out


def test_quasistatic_machine_holds_then_lifts_at_the_pump_flow(runs):
    system, result, p, u = runs["quasistatic"]
    t = result.t
    force = result.channels["lift.force"].values
    velocity = result.channels["lift.rod_velocity"].values
    rest = t < 0.3
    steady = (t > 1.0) & (t < 1.35)
    # at rest and at constant velocity the cylinder carries the weight (statics)
    assert np.allclose(force[rest | steady], MASS * G, rtol=1e-6)
    assert np.abs(result.channels["qpos_0"].values[rest]).max() < 1e-6
    # relief shut (pump pressure below its setting): the pump's whole flow extends the cylinder
    pump = p[:, system.network.node("P")]
    assert pump[steady].max() < 20e6
    assert np.allclose(velocity[steady], DISPLACEMENT * SPEED / (2 * math.pi) / HEAD_AREA, rtol=1e-4)
    # the head pressure is what the weight and the rod side's back pressure need
    head = result.channels["lift.head_pressure"].values
    rod = result.channels["lift.rod_pressure"].values
    assert np.allclose(HEAD_AREA * head - ROD_AREA * rod, force, rtol=1e-9)
    # the recorded velocity column is the rod's velocity (the flows' input)
    column = system.network.inputs.index("lift.velocity")
    assert np.array_equal(u[:, column], velocity)


def test_pressure_dynamics_machine_agrees_with_the_quasistatic_one_in_steady_motion(runs):
    quasi = runs["quasistatic"][1]
    pressure = runs["pressure"][1]
    steady = (quasi.t > 1.0) & (quasi.t < 1.35)  # the oil column still rings (undamped): its mean
    expected = quasi.channels["lift.rod_velocity"].values[steady].mean()
    got = pressure.channels["lift.rod_velocity"].values[steady].mean()
    assert got == pytest.approx(expected, rel=0.01)
    # the lift's height: the oil's compression as the spool opens costs the pressure model ~3 %
    height = quasi.channels["qpos_0"].values[-1]
    assert pressure.channels["qpos_0"].values[-1] == pytest.approx(height, rel=0.04)


def test_coupled_cylinder_solves_its_equations_with_the_network():
    """Supply at P_s through an orifice into the head, the rod through an orifice to tank: the
    quasistatic solve against an independent root-finding of v = v̄ + (A_h p_h − A_r p_r)/β."""
    supply, admittance, free = 10e6, 1e-5, -0.05
    area, eps = 1e-5, 0.05e6
    cylinder = CoupledCylinder(head_area=HEAD_AREA, rod_area=ROD_AREA, admittance=admittance)
    network = c.Network(
        {
            "tank": (c.Tank(), {"port": "T"}),
            "supply": (c.Tank(pressure=supply), {"port": "S"}),
            "in": (c.Orifice(area=area, transition=eps), {"inlet": "S", "outlet": "H"}),
            "out": (c.Orifice(area=area, transition=eps), {"inlet": "R", "outlet": "T"}),
            "cyl": (cylinder, {"head": "H", "rod": "R"}),
        }
    )
    p = solve(network, network.input_vector({"cyl.velocity": free}))
    k = orifice_gain(0.6, area, OIL_DENSITY)

    def drop(flow: float) -> float:  # Δp with k R_ε(Δp) = flow
        return brentq(lambda d: k * d / (d * d + eps * eps) ** 0.25 - flow, -1e9, 1e9, xtol=1e-9)

    def residual(v: float) -> float:
        p_h, p_r = supply - drop(HEAD_AREA * v), drop(ROD_AREA * v)
        return v - free - admittance * (HEAD_AREA * p_h - ROD_AREA * p_r)

    v = brentq(residual, -2.0, 2.0, xtol=1e-14)
    assert p[network.node("H")] == pytest.approx(supply - drop(HEAD_AREA * v), rel=1e-9)
    assert p[network.node("R")] == pytest.approx(drop(ROD_AREA * v), rel=1e-9)


def test_cylinder_inputs_and_names_are_refused_with_one_line():
    system = _lift("quasistatic")
    with pytest.raises(ParameterError, match="moves with the model"):
        system.simulate(0.01, {"lift.velocity": 0.1})
    with pytest.raises(ParameterError, match="not an input of the circuit; its inputs are pump.speed, spool"):
        system.simulate(0.01, {"spool.speed": 0.1})
    with pytest.raises(ParameterError, match="a spool's position lies in"):
        system.simulate(0.01, {"spool.position": 2.0})
    with pytest.raises(ParameterError, match="cylinder 'lift': rod_area"):
        NetlistCylinder("lift", "A", "B", HEAD_AREA, HEAD_AREA, 1.0, 1.0, joint="lift")
    clash = NetlistCylinder("spool", "A", "B", HEAD_AREA, ROD_AREA, 1.0, 1.0, joint="lift", length_offset=1.5)
    with pytest.raises(ParameterError, match="the netlist or another actuator has that name"):
        NetlistMujocoSystem(XML, [clash], _parts())


def test_a_closed_loop_drives_the_spool_to_track_a_stroke_ramp():
    """PI on the stroke (kp 20 /m, kff 1/v_max: the spool's opening per m/s at half opening)
    drives the spool through its lag τ: the applied spool position is the command filtered by
    τ ẋ = u − x (the open-loop inputs' own filter, scipy's lfilter, as the reference), and the
    stroke follows a 0.05 m/s ramp within 5 mm after the first half second."""
    tau = 0.02
    parts = _parts()
    parts["spool"] = (c.SpoolValve(area=20e-6, leakage=1e-15, time_constant=tau), parts["spool"][1])
    cylinder = NetlistCylinder(
        "lift", "A", "B", HEAD_AREA, ROD_AREA, stroke=1.0, retracted_length=1.0, joint="lift", length_offset=1.5
    )
    system = NetlistMujocoSystem(XML, [cylinder], parts, "quasistatic", relaxation=Relaxation(1e7, 1e5))
    start = 0.5  # the stroke at qpos = 0: 1.5 − 1.0 m

    def target(t):
        return start + 0.05 * np.clip(np.asarray(t) - 0.2, 0.0, None)

    loop = ClosedLoop(target, PIController(kp=20.0, ki=0.0, kff=1.0, limit=1.0, sample_time=0.001))
    result, _, u = system.simulate(
        2.0, {"pump.speed": SPEED}, qpos=[0.0], controllers={"lift": loop}, drives={"lift": ["spool.position"]}
    )
    command = result["lift.valve_command"]
    applied = u[:, system.network.inputs.index("spool.position")]
    np.testing.assert_allclose(applied, spool_positions(command, 1e-3, tau), rtol=1e-12, atol=1e-15)
    stroke = result["lift.length"] - 1.0
    after = result.t > 0.7
    assert np.abs(stroke - target(result.t))[after].max() < 5e-3
    with pytest.raises(ParameterError, match="is driven by the inputs too"):
        system.simulate(
            0.01,
            {"spool.position": 0.1},
            qpos=[0.0],
            controllers={"lift": loop},
            drives={"lift": ["spool.position"]},
        )
    with pytest.raises(ParameterError, match="not a spool position of the netlist"):
        system.simulate(0.01, {}, qpos=[0.0], controllers={"lift": loop}, drives={"lift": ["pump.speed"]})

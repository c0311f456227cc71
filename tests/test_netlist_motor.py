"""Hydraulic motors turning hinges of a MuJoCo model from a netlist (multibody.netlist_machine).

The machine: a disk of inertia I on a vertical hinge with a viscous joint damping c, turned by a
motor of displacement D through a gear of ratio i, fed by a fixed-displacement pump through a
fully open closed-centre spool, with a relief. References are closed-form: at steady speed
the pump's whole flow passes the motor, ω = η_v Q / (i D) (rad/s: Q in m³/rad), and the torque
balances the damping, T = c ω = η_m i D Δp / 2π; held under a load moment M with the spool
closed, it turns only at the speed the spool's leakage gives, with T = M + c ω. Bad motors get
one line naming the table.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from actuatorlab.errors import ParameterError, ScenarioError
from actuatorlab.hydraulics import circuits as c
from actuatorlab.multibody.cylinders import SiteLoad
from actuatorlab.multibody.netlist_machine import NetlistMotor, NetlistMujocoSystem
from actuatorlab.scenarios.loading import parse_scenario

INERTIA, DAMPING = 1.0, 0.5
XML = f"""<mujoco><option timestep="0.001" integrator="Euler" gravity="0 0 -9.81"/>
<worldbody><body name="disk"><joint name="turn" type="hinge" axis="0 0 1" damping="{DAMPING}"/>
<site name="rim" pos="1 0 0"/>
<inertial pos="0 0 0" mass="100" diaginertia="{INERTIA} {INERTIA} {INERTIA}"/></body></worldbody></mujoco>"""
PUMP, SPEED = 20e-6, 150.0
D, RATIO, ETA_V, ETA_M = 10e-6, 3.0, 0.95, 0.9


def _parts() -> dict:
    return {
        "tank": (c.Tank(), {"port": "T"}),
        "pump": (c.FixedPump(displacement=PUMP), {"inlet": "T", "outlet": "P"}),
        "relief": (c.ReliefValve(setting=20e6), {"inlet": "P", "outlet": "T"}),
        "spool": (c.SpoolValve(area=20e-6, leakage=1e-15), {"P": "P", "T": "T", "A": "A", "B": "B"}),
        "line": (c.Line(volume=1e-3), {"port": "P"}),
        "hose_a": (c.Line(volume=0.2e-3), {"port": "A"}),
        "hose_b": (c.Line(volume=0.2e-3), {"port": "B"}),
    }


def _motor(**fields) -> NetlistMotor:
    own = dict(gear_ratio=RATIO, volumetric_efficiency=ETA_V, mechanical_efficiency=ETA_M, stiffness=1e4, damping=50.0)
    return NetlistMotor("drive", "turn", "A", "B", D, **(own | fields))


@pytest.mark.parametrize("model", ["quasistatic", "pressure"])
def test_motor_turns_the_hinge_at_the_pump_flow_against_the_joint_damping(model):
    system = NetlistMujocoSystem(XML, [], _parts(), model, motors=[_motor()])
    inputs = {"pump.speed": SPEED, "spool.position": lambda t: np.where(t > 0.2, 1.0, 0.0)}
    result, p, _ = system.simulate(6.0, inputs, qpos=[0.0])
    last = result.t > 5.5
    speed = result["drive.speed"][last]
    expected = ETA_V * PUMP * SPEED / (RATIO * D)  # both flows per radian: the 2π cancels
    torque = result["drive.torque"][last]
    gain = ETA_M * RATIO * D / (2 * math.pi)
    drop = p[last, system.network.node("A")] - p[last, system.network.node("B")]
    assert p[last, system.network.node("P")].max() < 20e6  # the relief shut: the whole flow turns the motor
    if model == "quasistatic":
        assert np.allclose(speed, expected, rtol=1e-4)  # the spool's declared leakage is the rest
        assert np.allclose(torque, DAMPING * speed, rtol=1e-6)  # steady: the torque is the damping's
    else:  # the oil column still rings (1.5 % of critical damping): the mean speed over 3 s
        window = result.t > 3.0
        angle = result["drive.angle"][window]
        mean_speed = (angle[-1] - angle[0]) / (result.t[window][-1] - result.t[window][0])
        assert mean_speed == pytest.approx(expected, rel=0.01)
    assert np.allclose(torque, gain * drop, rtol=1e-9)
    assert result.channels["drive.torque"].unit == "N*m"


def test_a_closed_spool_holds_the_hinge_drifting_only_by_the_spools_leakage():
    """Spool closed, a load moment M on the disk: the motor holds it, and turns only at the speed
    the closed spool's edge leakage g gives its ports (net flow into the inlet
    q = g (p_P − p_A) − g p_A, so ω = 2π η_v q / (i D)), with T = M + c ω."""
    moment, leakage = 40.0, 1e-15
    load = SiteLoad("rim", lambda t: np.zeros((np.size(t), 3)), lambda t: np.tile([0.0, 0.0, -moment], (np.size(t), 1)))
    system = NetlistMujocoSystem(XML, [], _parts(), "quasistatic", motors=[_motor()])
    result, p, _ = system.simulate(1.0, {"pump.speed": SPEED}, loads=[load], qpos=[0.0])
    pump, inlet = p[-1, system.network.node("P")], p[-1, system.network.node("A")]
    drift = 2 * math.pi * ETA_V * leakage * (pump - 2 * inlet) / (RATIO * D)
    assert result["drive.speed"][-1] == pytest.approx(drift, rel=1e-3)
    assert result["drive.torque"][-1] == pytest.approx(moment + DAMPING * drift, rel=1e-9)
    assert abs(result["drive.angle"][-1]) < 1.01 * abs(drift) * 1.0  # no more than that drift over the 1 s


def test_bad_motors_are_refused_with_one_line():
    with pytest.raises(ParameterError, match="motor 'drive': displacement"):
        NetlistMotor("drive", "turn", "A", "B", -1.0)
    with pytest.raises(ParameterError, match="gear_ratio"):
        _motor(gear_ratio=0.0)
    slide = XML.replace('type="hinge"', 'type="slide"')
    with pytest.raises(ParameterError, match="joint 'turn' is a slide joint, not a hinge joint"):
        NetlistMujocoSystem(slide, [], _parts(), "quasistatic", motors=[_motor()])
    with pytest.raises(ParameterError, match="moves with the model"):
        NetlistMujocoSystem(XML, [], _parts(), "quasistatic", motors=[_motor()]).simulate(0.01, {"drive.speed": 1.0})


MACHINE = {
    "kind": "machine",
    "name": "disk",
    "description": "a motor on a hinge",
    "model_file": "disk.xml",
    "duration": "1 s",
    "components": {
        "tank": {"type": "Tank", "ports": {"port": "T"}},
        "pump": {"type": "FixedPump", "ports": {"inlet": "T", "outlet": "P"}, "displacement": PUMP},
        "relief": {"type": "ReliefValve", "ports": {"inlet": "P", "outlet": "T"}},
        "spool": {"type": "SpoolValve", "ports": {"P": "P", "T": "T", "A": "A", "B": "B"}, "leakage": 1e-15},
    },
    "motors": [
        {"name": "drive", "joint": "turn", "ports": {"inlet": "A", "outlet": "B"}, "displacement": "10 cm^3/rev"}
    ],
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["motors"][0].update(ports={"inlet": "A"}), 'ports = { inlet = "A", outlet = "B" }'),
        (lambda d: d["motors"][0].update(name="spool"), "motors[0].name = 'spool' is also a component's"),
        (lambda d: d["motors"][0].update(displacement="10 cm^3"), "displacement"),
        (lambda d: d["motors"][0].update(stiffness="1e8 N/m"), "rotational stiffness"),
        (lambda d: d["motors"][0].update(ports={"inlet": "A", "outlet": "X"}), "'X' has no path to a tank"),
        (
            lambda d: (d.pop("components"), d.update(circuits=[{"name": "main"}])),
            "motors: applies to a netlist of [components]",
        ),
    ],
)
def test_a_bad_motor_table_is_one_line_naming_it(tmp_path, change, message):
    (tmp_path / "disk.xml").write_text(XML)
    data = {**MACHINE, "model_file": str(tmp_path / "disk.xml"), "motors": [dict(MACHINE["motors"][0])]}
    change(data)
    with pytest.raises(ScenarioError) as error:
        parse_scenario(data, "disk.toml")
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_machine_timestep_outside_its_range_is_refused(tmp_path):
    (tmp_path / "disk.xml").write_text(XML)
    data = {**MACHINE, "model_file": str(tmp_path / "disk.xml"), "timestep": "20 ms"}
    with pytest.raises(ScenarioError, match=r"timestep = 0.02 s: give a step in \(0, 10 ms\]"):
        parse_scenario(data, "disk.toml")


def test_a_motors_closed_loop_needs_an_angle_target_and_follows_it():
    """A motor's loop measured on its hinge follows a 0.2 rad/s ramp within 0.01 rad after the
    first half second (quasistatic; the pressure model's lightly damped oil column rings under
    this gain); a loop with no joint (a stroke target) is refused."""
    from actuatorlab.control.pi import PIController
    from actuatorlab.multibody.closed_loop import ClosedLoop

    system = NetlistMujocoSystem(XML, [], _parts(), "quasistatic", motors=[_motor()])
    drives = {"drive": ["spool.position"]}
    loop = ClosedLoop(0.0, PIController(kp=1.0, sample_time=0.001))
    with pytest.raises(ParameterError, match="a motor has no stroke; give its loop a joint angle target"):
        system.simulate(0.01, {"pump.speed": SPEED}, qpos=[0.0], controllers={"drive": loop}, drives=drives)
    turning = ClosedLoop(lambda t: 0.2 * np.asarray(t), PIController(kp=20.0, sample_time=0.001), joint="turn")
    controllers = {"drive": turning}
    result, _, _ = system.simulate(1.0, {"pump.speed": SPEED}, qpos=[0.0], controllers=controllers, drives=drives)
    error = result["drive.angle"] - 0.2 * result.t
    assert np.abs(error[result.t > 0.5]).max() < 0.01

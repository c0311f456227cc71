"""Your own machine without friction (issue 33): each cylinder's relaxation chosen for its load and
the step (and settable per cylinder), one refusal naming every unstable cylinder, a closed chain
that starts at rest, a pose a joint without a cylinder is not balanced in named (or settled), and
end-stop advice that holds when applied.

The models are the test boom of ``machine_models`` (pins, or its closed-chain version with the
cylinder as the model's own barrel and rod) at MuJoCo's step of 2 ms, as downloaded machine models
often have."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from actuatorlab.errors import ActuatorlabError
from actuatorlab.hydraulics.quasistatic.relaxation import Relaxation, default_relaxation
from actuatorlab.multibody.stability import constrained_inverse_masses
from actuatorlab.multibody.system import HydraulicMujocoSystem
from actuatorlab.scenarios.kinds import machine as machine_kind
from actuatorlab.scenarios.loading import load_scenario
from machine_models import CLOSED_CHAIN_LENGTH, write_boom, write_closed_chain_boom

FILE_RELAXATION = '[relaxation]\nstiffness = "5e7 N/m"\ndamping = "5e5 N s/m"\n'
OLD_DEFAULT = '[relaxation]\nstiffness = "5e7 N/m"\ndamping = "2.5e6 N s/m"\n'
"""The one relaxation every cylinder had before it was chosen per cylinder (K, B of ``Relaxation()``)."""
LOAD_STEP = (
    '\n[[loads]]\nbody = "boom"\npoint = ["2.5 m", 0, 0]\n'
    'force = [0, 0, { type = "steps", times = ["0.2 s"], values = ["-10 kN"] }]\n'
)
SECOND_CYLINDER = """
[[cylinders]]
name = "lift2"
circuit = "pump"
base = { site = "ground_pin" }
rod = { site = "boom_pin_2" }
bore = "80 mm"
rod_diameter = "45 mm"
stroke = "0.6 m"
retracted_length = "0.8 m"
"""


def _build(path):
    spec = load_scenario(path)
    system, kwargs, _, notes = machine_kind.build(spec)
    return system, kwargs, notes


def _heavy_boom(folder, relaxation: str, mass: float = 900.0, extra: str = "", duration: str = "1 s"):
    """The test boom at h = 2 ms with a boom of ``mass`` [kg] (inertia mass/2 about its centre),
    held (valve closed) with ``relaxation`` (a table, or "" for the default)."""
    scenario = write_boom(
        folder, duration=duration, **{FILE_RELAXATION: relaxation, "values = [0.6, 0.0]": "values = [0.0, 0.0]"}
    )
    scenario.write_text(scenario.read_text() + extra)
    model = folder / "boom.xml"
    model.write_text(
        model.read_text()
        .replace('timestep="0.001"', 'timestep="0.002"')
        .replace(
            'mass="400" diaginertia="200 200 200"',
            f'mass="{mass!r}" diaginertia="{mass / 2!r} {mass / 2!r} {mass / 2!r}"',
        )
    )
    return scenario


def test_the_default_rule_damps_critically_within_a_quarter_of_the_bound():
    """K = m x²/h², B = 2 m x/h with x = √(4 + q) − 2, q a quarter of the bound: the damping ratio
    B/(2√(Km)) is 1 and h²K/m + 2hB/m is a quarter of the bound (4 on a tree of bodies)."""
    for mass, h, bound in ((2646.0, 0.002, 4.0), (827.0, 0.002, 1.86), (22000.0, 0.001, 4.0)):
        r = default_relaxation(mass, h, bound)
        assert r.damping / (2.0 * math.sqrt(r.stiffness * mass)) == pytest.approx(1.0, rel=1e-12)
        assert (h * h * r.stiffness + 2.0 * h * r.damping) / mass == pytest.approx(bound / 4.0, rel=1e-12)
    assert default_relaxation(1000.0, 1e-3).stiffness == pytest.approx(1000.0 * (5**0.5 - 2) ** 2 / 1e-6)


def test_the_old_fixed_default_rings_where_the_default_for_the_load_holds_still(tmp_path):
    """A boom of 900 kg (effective mass 2 646 kg along the pin line) at h = 2 ms, held, a 10 kN step
    load at its tip at 0.2 s. The old fixed K = 5e7 N/m, B = 2.5e6 N s/m passes the bound at the
    start (h²K/m + 2hB/m = 3.85 < 4) but its step's pole sits near −1: after the load step the
    force alternates from step to step, growing, until the run stops (at 0.242 s, 50 kN against
    the 15 kN holding force). The default for the load (K = 3.7e7 N/m, B = 6.3e5 N s/m, critical)
    settles within 0.1 s: measured, |ℓ − ℓ_end| ≤ 4.3e-7 m and the step-to-step alternation
    ≤ 2.7e-9 m from 0.3 s on; bound 1e-6 m and 1e-8 m."""
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    system, kwargs, _ = _build(_heavy_boom(tmp_path / "old", OLD_DEFAULT, extra=LOAD_STEP))
    (start,) = system.stability(kwargs["qpos"])
    assert start.stable and start.effective_mass == pytest.approx(2646, rel=1e-3)
    with pytest.raises(ActuatorlabError, match="chattering from step to step"):
        system.simulate(**kwargs)

    system, kwargs, notes = _build(_heavy_boom(tmp_path / "new", "", extra=LOAD_STEP))
    chosen = system.actuators[0].relaxation
    assert chosen == default_relaxation(start.effective_mass, 0.002)
    assert "lift K = 3.69e+07 N/m, B = 6.25e+05 N s/m (the default for its effective mass 2646 kg)" in notes[-1]
    result = system.simulate(**kwargs)
    length, t = result["lift.length"], result.t
    assert np.ptp(length[t < 0.2]) < 1e-12  # m: held at rest before the load
    late = t >= 0.3
    assert np.max(np.abs(length[late] - length[-1])) < 1e-6
    alternation = np.abs(length[2:] - 2 * length[1:-1] + length[:-2]) / 4
    assert np.max(alternation[late[1:-1]]) < 1e-8


def test_a_closed_chain_cylinder_is_judged_on_the_mass_its_constraint_carries_on(tmp_path):
    """The closed-chain boom (rod 20 kg, barrel 30 kg, boom 400 kg) at h = 2 ms: the rod's force
    reaches the boom through MuJoCo's soft connect, so the step sees more than the rod's own mass
    (the old check's 19.8 kg; now 233 kg) and the bound is 4 less the constraints' own share
    (solref 2h: 1.88 is left). The default for that load runs and holds the boom still."""
    scenario = write_closed_chain_boom(
        tmp_path, **{'stiffness = "2e6 N/m"\ndamping = "2e4 N s/m"\n': "", "values = [0.6, 0.0]": "values = [0.0, 0.0]"}
    )
    scenario.write_text(scenario.read_text().replace("[relaxation]\n", ""))
    model = tmp_path / "linkage.xml"
    model.write_text(
        model.read_text()
        .replace('timestep="0.001"', 'timestep="0.002"')
        .replace('solref="0.002 1"', 'solref="0.004 1"')
    )
    system, kwargs, notes = _build(scenario)
    (lim,) = system.stability(kwargs["qpos"])
    system.set_pose(kwargs["qpos"])
    tree, _, _ = constrained_inverse_masses(system.model, system.data, system.length_gradients()[1].T.copy())
    tree = 1.0 / tree[0]  # kg: the rod and barrel alone, as the old check had it
    assert lim.effective_mass > 3.0 * tree and 1.5 < lim.bound < 2.0 and lim.stable
    assert system.actuators[0].relaxation == default_relaxation(lim.effective_mass, 0.002, lim.bound)
    result = system.simulate(**kwargs)
    assert np.ptp(result["lift.length"]) < 1e-9 and np.ptp(result["qpos_7"]) < 1e-9


def test_the_file_sets_one_cylinders_relaxation_and_the_rest_get_theirs(tmp_path):
    """Two cylinders on the boom: the one with its own ``relaxation`` keeps it; the other gets the
    default for its load; a top-level ``[relaxation]`` is for every cylinder without its own."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    own = 'retracted_length = "0.8 m"\nrelaxation = { stiffness = "2e7 N/m", damping = "3e5 N s/m" }\ncommand'
    scenario = write_boom(tmp_path / "a", **{FILE_RELAXATION: "", 'retracted_length = "0.8 m"\ncommand': own})
    scenario.write_text(scenario.read_text() + SECOND_CYLINDER)
    system, kwargs, notes = _build(scenario)
    masses = system.effective_masses(kwargs["qpos"])
    relax = {a.name: a.relaxation for a in system.actuators}
    assert relax["lift"] == Relaxation(2e7, 3e5)
    assert relax["lift2"] == default_relaxation(masses["lift2"][0], 0.001)
    assert "lift K = 2e+07 N/m, B = 3e+05 N s/m (given)" in notes[-1]
    system.simulate(**kwargs)  # both stable

    scenario = write_boom(tmp_path / "b", **{'retracted_length = "0.8 m"\ncommand': own})
    scenario.write_text(scenario.read_text() + SECOND_CYLINDER)
    system, _, _ = _build(scenario)
    relax = {a.name: a.relaxation for a in system.actuators}
    assert relax == {"lift": Relaxation(2e7, 3e5), "lift2": Relaxation(5e7, 5e5)}


def test_an_unstable_setting_names_every_unstable_cylinder_in_one_message(tmp_path):
    scenario = write_boom(tmp_path, **{'stiffness = "5e7 N/m"': 'stiffness = "5e10 N/m"'})
    scenario.write_text(scenario.read_text() + SECOND_CYLINDER)
    system, kwargs, _ = _build(scenario)
    with pytest.raises(ActuatorlabError) as error:
        machine_kind.run(load_scenario(scenario))
    message = str(error.value)
    assert message.startswith("2 cylinders are unstable")
    assert "cylinders[0] (lift): relaxation.stiffness = 5e+10 N/m" in message
    assert "cylinders[1] (lift2): relaxation.stiffness = 5e+10 N/m" in message
    assert message.count("set stiffness below") == 2 and "\n" not in message


def test_a_closed_chain_starts_at_rest(tmp_path, monkeypatch):
    """The closed-chain boom held by its cylinder: MuJoCo's soft connect carries the boom's load
    only when it gives a little, so from the exact pose the boom sagged in the first steps and
    rang. Measured before (the run started at the given pose): in the first 0.2 s the hinge's speed
    reached 3.8e-3 rad/s (0.021 m/s or rad/s on the other joints); now, from the pose where the
    soft constraints hold the load (the hinge 0.105 mrad lower), every speed stays 0 to the last
    bit. Bound 1e-7 (m/s or rad/s)."""
    scenario = write_closed_chain_boom(tmp_path, **{"values = [0.6, 0.0]": "values = [0.0, 0.0]"})
    system, kwargs, _ = _build(scenario)
    kwargs["duration"] = 0.2
    result = system.simulate(**kwargs)
    speeds = np.abs(np.column_stack([result[f"qvel_{i}"] for i in range(system.model.nv)]))
    assert speeds.max() < 1e-7
    sag = result["qpos_7"][0] - kwargs["qpos"][7]
    assert -1e-3 < sag < 0.0  # rad: the hinge starts a little lower, where the connect holds it

    monkeypatch.setattr(HydraulicMujocoSystem, "rest_pose", lambda self, qpos, loads=(), free=False: qpos)
    before = system.simulate(**kwargs)
    hinge = np.abs(before["qvel_6"])
    assert hinge.max() > 3e-3  # rad/s: the old start sagged and rang


def test_a_joint_without_a_cylinder_off_balance_is_named_and_settle_finds_its_rest(tmp_path):
    """A flap hinged at the boom's tip, with no cylinder, 20° off its hanging pose: the hold check
    names the flap's joint and the torque left on it [N m], and says what to set; with
    ``settle = true`` the flap moves to where it hangs at rest before the run, and stays there."""
    flap = (
        '<body name="flap" pos="2.5 0 0"><joint name="flap_hinge" type="hinge" axis="0 -1 0"/>'
        '<inertial pos="0 0 -0.3" mass="20" diaginertia="0.5 0.5 0.5"/></body>\n    </body>'
    )
    scenario = write_boom(tmp_path, **{"values = [0.6, 0.0]": "values = [0.0, 0.0]"})
    model = tmp_path / "boom.xml"
    text = model.read_text()
    cut = text.index("    </body>")
    model.write_text(text[:cut] + "    " + flap + text[cut + len("    </body>") :])
    scenario.write_text(
        scenario.read_text().replace(
            'initial_pose = { hinge = "0 deg" }', 'initial_pose = { hinge = "0 deg", flap_hinge = "20 deg" }'
        )
    )
    with pytest.raises(ActuatorlabError) as error:
        machine_kind.run(load_scenario(scenario))
    message = str(error.value)
    torque = 20 * 9.81 * 0.3 * math.sin(math.radians(20))  # N m about the flap's hinge
    found = re.search(r"flap_hinge ([\d.e+-]+) N m", message)
    assert found and float(found.group(1)) == pytest.approx(torque, rel=1e-2)
    assert "settle = true" in message

    scenario.write_text(scenario.read_text().replace("initial_pose =", "settle = true\ninitial_pose ="))
    system, kwargs, _ = _build(scenario)
    result = system.simulate(**kwargs)
    flap_angle = result["qpos_1"]
    assert abs(flap_angle[0]) < 1e-6  # rad: hanging straight down (the boom is horizontal)
    assert np.ptp(flap_angle) < 1e-7 and np.ptp(result["lift.length"]) < 1e-9


def test_end_stop_advice_differs_from_the_given_limits_and_holds_when_applied(tmp_path):
    """The cylinder on a limited slide joint, its stroke 5 mm beyond the joint's range at each end
    (the former advice), driven out at full command: MuJoCo's soft limit lets the rod pass by more
    and the run stops. The new advice widens the stroke by the limit's give under the supply's
    force; applied, the run goes through with the rod stopped by the joint's limit."""
    low, high = CLOSED_CHAIN_LENGTH - 0.05, CLOSED_CHAIN_LENGTH + 0.3
    given = (low - 0.005, high - low + 0.01)
    scenario = write_closed_chain_boom(
        tmp_path,
        **{
            'stroke = "0.6 m"': f'stroke = "{given[1]!r} m"',
            'retracted_length = "0.8 m"': f'retracted_length = "{given[0]!r} m"',
            "values = [0.6, 0.0]": "values = [1.0, 1.0]",
            'duration = "1 s"': 'duration = "4 s"',
        },
    )
    model = tmp_path / "linkage.xml"
    model.write_text(
        model.read_text().replace(
            '<joint name="telescope" type="slide" axis="1 0 0"/>',
            '<joint name="telescope" type="slide" axis="1 0 0" limited="true" range="-0.05 0.3"/>',
        )
    )
    with pytest.raises(ActuatorlabError) as error:
        machine_kind.run(load_scenario(scenario))
    message = str(error.value)
    found = re.search(r"give retracted_length = ([\d.]+) m and stroke = ([\d.]+) m", message)
    assert found, message
    retracted, stroke = float(found.group(1)), float(found.group(2))
    assert retracted < given[0] - 0.01 and retracted + stroke > given[0] + given[1] + 0.01
    assert "solreflimit" in message
    text = scenario.read_text()
    text = text.replace(f'stroke = "{given[1]!r} m"', f'stroke = "{stroke!r} m"')
    text = text.replace(f'retracted_length = "{given[0]!r} m"', f'retracted_length = "{retracted!r} m"')
    scenario.write_text(text)
    system, kwargs, _ = _build(scenario)
    result = system.simulate(**kwargs)
    length = result["lift.length"]
    assert length.max() > high  # the rod reached the joint's limit and passed it a little
    assert length.max() < retracted + stroke

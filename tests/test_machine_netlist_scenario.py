"""The ``machine`` kind on a netlist of ``[components]`` (scenarios.kinds.machine_netlist).

The lift of tests/test_netlist_machine.py (a 1000 kg block on a vertical slide, one cylinder, a
closed-centre spool, a fixed pump with a relief) written as a scenario file. References: the
Python API's run of the same machine (the file must build exactly that system), closed forms
(statics f = m g; the head's flow A_h v of the rod's velocity; the pump's flow D ω/2π), the
energy ledger's own balance, and the built-in excavator-ls (flow sharing of a saturated LS pump:
Manring & Fales ch. 8, as the circuit-ls-bank built-in). Bad files get one line naming the table.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import actuatorlab
from actuatorlab.errors import ScenarioError
from actuatorlab.hydraulics import circuits as c
from actuatorlab.hydraulics.quasistatic.relaxation import Relaxation
from actuatorlab.multibody.netlist_machine import NetlistCylinder, NetlistMujocoSystem
from actuatorlab.scenarios.kinds.machine_netlist import build_netlist
from actuatorlab.scenarios.loading import load_scenario, parse_scenario

MASS, G = 1000.0, 9.81
XML = f"""<mujoco><option timestep="0.001" integrator="Euler" gravity="0 0 -{G}"/>
<worldbody><body name="block"><joint name="lift" type="slide" axis="0 0 1"/>
<geom type="box" size="0.2 0.2 0.2" mass="{MASS}"/></body></worldbody></mujoco>"""
DISPLACEMENT, SPEED, HEAD_AREA, ROD_AREA = 20e-6, 150.0, 2e-3, 1e-3
SCENARIO = f"""
kind = "machine"
name = "lift"
description = "a block lifted through a spool"
model_file = "lift.xml"
duration = "1.5 s"
initial_pose = {{ lift = "0 m" }}

[relaxation]
stiffness = 1e7
damping = 1e5

[components.tank]
type = "Tank"
ports = {{ port = "T" }}

[components.pump]
type = "FixedPump"
ports = {{ inlet = "T", outlet = "P" }}
displacement = {DISPLACEMENT}

[components.relief]
type = "ReliefValve"
ports = {{ inlet = "P", outlet = "T" }}
setting = "200 bar"

[components.spool]
type = "SpoolValve"
ports = {{ P = "P", T = "T", A = "A", B = "B" }}
area = "20 mm^2"
leakage = 1e-15

[components.line]
type = "Line"
ports = {{ port = "P" }}
volume = "1 L"

[[cylinders]]
name = "lift"
ports = {{ head = "A", rod = "B" }}
joint = "lift"
length_offset = "1.5 m"
head_area = {HEAD_AREA}
rod_area = {ROD_AREA}
stroke = "1 m"
retracted_length = "1 m"

[inputs]
"pump.speed" = {SPEED}
"spool.position" = {{ type = "steps", times = [0.3, 1.4], values = [0.5, 0.0] }}
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("lift")
    (path / "lift.xml").write_text(XML)
    (path / "lift.toml").write_text(SCENARIO)
    return path


def _tables(folder, text: str = SCENARIO) -> dict:
    import tomllib

    data = tomllib.loads(text)
    data["model_file"] = str(folder / "lift.xml")
    return data


def test_the_file_builds_the_python_api_machine(folder):
    """Same netlist, cylinder, relaxation and inputs as the API's system: identical runs."""
    spec = load_scenario(folder / "lift.toml")
    system, kwargs, _ = build_netlist(spec)
    result, p, _ = system.simulate(**kwargs)
    cylinder = NetlistCylinder("lift", "A", "B", HEAD_AREA, ROD_AREA, 1.0, 1.0, joint="lift", length_offset=1.5)
    parts = {
        "tank": (c.Tank(), {"port": "T"}),
        "pump": (c.FixedPump(displacement=DISPLACEMENT), {"inlet": "T", "outlet": "P"}),
        "relief": (c.ReliefValve(setting=20e6), {"inlet": "P", "outlet": "T"}),
        "spool": (c.SpoolValve(area=20e-6, leakage=1e-15), {"P": "P", "T": "T", "A": "A", "B": "B"}),
        "line": (c.Line(volume=1e-3), {"port": "P"}),
    }
    api = NetlistMujocoSystem(XML, [cylinder], parts, "quasistatic", Relaxation(1e7, 1e5))
    steps = lambda t: np.where((t >= 0.3) & (t < 1.4), 0.5, 0.0)  # noqa: E731
    expected, p_api, _ = api.simulate(1.5, {"pump.speed": SPEED, "spool.position": steps}, qpos=[0.0])
    assert np.array_equal(result["lift.rod_velocity"], expected["lift.rod_velocity"])
    assert np.array_equal(p, p_api)


def test_a_run_reports_the_circuit_with_the_machine(folder):
    result = actuatorlab.load(folder / "lift.toml").run()
    table = result.table
    t = table["t"].to_numpy()
    rest, steady = t < 0.3, (t > 1.0) & (t < 1.35)
    force = table["lift.force"].to_numpy()
    assert np.allclose(force[rest | steady], MASS * G, rtol=1e-6)  # statics
    velocity = table["lift.rod_velocity"].to_numpy()
    # the head's flow is A_h v (q > 0 into the head: from its first port); the pump's D ω/2π
    assert np.allclose(table["flow.lift.head"].to_numpy(), HEAD_AREA * velocity, rtol=1e-12, atol=1e-15)
    assert np.allclose(table["flow.pump"].to_numpy(), DISPLACEMENT * SPEED / (2 * math.pi), rtol=1e-12)
    assert np.allclose(table["pressure.A"].to_numpy(), table["lift.head_pressure"].to_numpy(), rtol=1e-12)
    assert table["input.spool.position"].to_numpy()[steady].min() == 0.5
    assert table.attrs["units"]["input.pump.speed"] == "rad/s"  # SI, as the circuit kind's
    summary = {key: figure.value for key, figure in result.summary.items()}
    delivered = summary["energy.total.delivered_J"]
    assert abs(summary["energy.total.balance_error_J"]) < 1e-6 * delivered
    # the work on the pins ∫ f ℓ̇ dt is the block's rise m g Δh (at rest at both ends; MuJoCo's
    # Euler step leaves 0.3 %); the ledger's work at the rod's velocity is more by what the
    # relaxation's damper B takes (its spring holds the same m g / K at both ends)
    pins = table["lift.work"].to_numpy()[-1]
    assert pins == pytest.approx(MASS * G * table["qpos_0"].to_numpy()[-1], rel=5e-3)
    assert pins < summary["energy.lift.work_J"] < 1.05 * pins


def test_excavator_ls_shares_a_saturated_pump_between_boom_and_stick():
    """Boom up and stick out on equal spool openings (0.9 of 1.2 cm²) ask for more than the
    pump's 430 L/min: the post-compensators give both meter-in edges the same drop, so their
    flows come out nearly equal (the heavier section's compensator stands open: its spring's
    2 bar of the ~20 bar drop is the difference) and add up to the pump's whole flow."""
    scenario = actuatorlab.load("excavator-ls").set({"duration": "10.5 s", "picture.renderer": "drawing"})
    table = scenario.run().table
    t = table["t"].to_numpy()
    window = (t > 9.8) & (t < 10.5)
    pump = table["flow.pump"].to_numpy()[window]
    full = 240e-6 * 1800 * math.pi / 30 / (2 * math.pi)
    assert np.allclose(pump, full, rtol=1e-3)  # saturated: the whole displacement
    boom = table["flow.boom_meter.PA"].to_numpy()[window]
    stick = table["flow.stick_meter.PB"].to_numpy()[window]
    assert np.allclose(boom / stick, 1.0, atol=0.08)
    assert np.allclose(boom + stick + table["flow.bucket_meter.PA"].to_numpy()[window], pump, rtol=2e-3)


def test_a_closed_loop_on_the_netlist_tracks_its_stroke_target(folder):
    """The lift's spool driven by a PI loop on the stroke instead of [inputs]: a 0.05 m/s ramp
    from the held 0.5 m is followed within 5 mm, and the report has the tracking figure."""
    text = SCENARIO.replace('"spool.position" = { type = "steps", times = [0.3, 1.4], values = [0.5, 0.0] }\n', "")
    text += """
[picture]
renderer = "drawing"

[cylinders.control]
stroke = { type = "piecewise-linear", times = [0.2, 1.4], values = ["0.5 m", "0.56 m"] }
kp = 20
kff = 1
sample_time = "1 ms"
drives = ["spool.position"]
"""
    (folder / "loop.toml").write_text(text)
    result = actuatorlab.load(folder / "loop.toml").run()
    t = result.table["t"].to_numpy()
    error = result.table["lift.tracking_error"].to_numpy()
    assert np.abs(error[t > 0.7]).max() < 5e-3
    assert result.summary["lift.tracking_rms_m"].value < 5e-3
    assert "tracking.png" in result.save(folder / "loop-run")
    for drives, message in (
        (None, "missing"),
        (["spol.position"], "'spol.position' is not a spool position of the netlist; its spools are spool.position"),
        (["pump.speed"], "'pump.speed' is not a spool position"),
    ):
        data = _tables(folder, text)
        if drives is None:
            data["cylinders"][0]["control"].pop("drives")
        else:
            data["cylinders"][0]["control"]["drives"] = drives
        with pytest.raises(ScenarioError) as error:
            parse_scenario(data, "loop.toml")
        assert f"cylinders[0].control.drives: {message}" in str(error.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(circuits=[{"name": "main"}]), "give the hydraulics as [[circuits]] tables"),
        (lambda d: d["cylinders"][0].update(command=0.5), "cylinders[0].command: a cylinder on a netlist moves"),
        (lambda d: d["cylinders"][0].pop("ports"), "cylinders[0].ports: missing"),
        (lambda d: d["cylinders"][0].update(ports={"head": "A"}), 'ports = { head = "A", rod = "B" }'),
        (lambda d: d["cylinders"][0].update(name="spool"), "cylinders[0].name = 'spool' is also a component's"),
        (lambda d: d["inputs"].update({"pump.sped": 1.0}), "not an input of the circuit; its inputs are"),
        (lambda d: d["cylinders"][0].update(ports={"head": "A", "rod": "X"}), "X"),
        (lambda d: d["cylinders"][0].update(head_area=-1.0), "cylinders[0]"),
    ],
)
def test_a_bad_netlist_machine_gets_one_line_naming_its_table(folder, change, message):
    data = _tables(folder)
    change(data)
    with pytest.raises(ScenarioError) as error:
        parse_scenario(data, "lift.toml").check()
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def _crane(counterbalance: bool) -> dict:
    """crane-counterbalance with its loops off, the pump at 300 rpm (20 L/min) and the lift's
    spool opened fully to lower from 0.3 s; without the lift's counterbalance valve its head joins the
    spool's A line directly."""
    import tomllib
    from importlib import resources

    text = (resources.files("actuatorlab.scenarios") / "builtin" / "crane-counterbalance.toml").read_text()
    data = tomllib.loads(text)
    data["model_file"] = str(resources.files("actuatorlab.scenarios") / "builtin" / "models" / "knuckle_crane.xml")
    data["duration"] = "1.5 s"
    data.pop("loads")
    for cylinder in data["cylinders"]:
        cylinder.pop("control")
    data["inputs"] = {
        "pump.speed": "300 rpm",
        "lift_valve.position": {"type": "piecewise-linear", "times": [0.3, 0.4], "values": [0, -1.0]},
    }
    if not counterbalance:
        components = data["components"]
        components.pop("lift_counterbalance")
        components.pop("lift_valve_line")
        for name in ("lift_relief_head", "lift_makeup_head"):
            ports = components[name]["ports"]
            for port, node in ports.items():
                ports[port] = "A_lift" if node == "H_lift" else node
        data["cylinders"][0]["ports"]["head"] = "A_lift"
    return data


def test_the_counterbalance_valve_lowers_the_boom_at_the_pumps_pace_where_the_bare_boom_runs_away():
    """Lowering the lift (an overrunning load) on a 20 L/min pump: through its counterbalance
    valve the boom descends no faster than the pump fills the rod side (Q/A_r) with the rod side
    pressurised; without it the head meters straight to tank, the boom outruns the pump and
    the rod side falls to the make-up check's vacuum (Kikuuwe et al.'s cavitation case)."""
    pump = 66.7e-6 * 300.0 / 60.0  # m³/s
    rod_area = math.pi / 4 * (0.100**2 - 0.060**2)
    runs = {}
    for counterbalance in (True, False):
        spec = parse_scenario(_crane(counterbalance), "crane.toml")
        runs[counterbalance] = actuatorlab.Scenario(spec).run().table
    late = runs[True]["t"].to_numpy() > 0.8
    held = runs[True]
    assert np.all(-held["lift.rod_velocity"].to_numpy()[late] <= pump / rod_area)  # the flows' velocity
    assert held["lift.rod_pressure"].to_numpy()[late].min() > 0.5e6
    bare = runs[False]
    assert -bare["lift.rod_velocity"].to_numpy()[late].min() > 1.5 * pump / rod_area
    assert bare["lift.rod_pressure"].to_numpy()[late].min() < 0.0


def test_motor_ports_held_only_by_small_leakages_still_solve():
    """excavator-ls with the swing spool's leakage at 1e-13 m³/(s Pa): the closed motor ports are
    held by that leakage beside the motor's stiff coupling. Newton confirming each step with a
    second Jacobian stopped at 5.402 s without converging (f7d71ad's solver); ending on the chord
    step, the run goes through."""
    scenario = actuatorlab.load("excavator-ls").set(
        {"duration": "6 s", "components.swing_valve.leakage": 1e-13, "picture.renderer": "drawing"}
    )
    table = scenario.run().table
    assert table["t"].iloc[-1] == pytest.approx(6.0)
    assert np.isfinite(table["pressure.A_swing"]).all()

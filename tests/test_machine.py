"""The ``machine`` scenario kind on the built-in machines (excavator-dig, crane-pick-place).

Checks: the shipped excavator model is the documented machine of ``machines/excavator.py`` and the
scenario file builds the same cylinders as the Python API (identical motion); the machine held at
rest stays put; the pump node balances (Kikuuwe et al. (114): Q = Σ Q_p + bleed + relief, the
bleed flow recomputed here from the recorded P and u_b); pressures stay within the reliefs; the
energy balance closes (supply energy = work + compliance + losses, losses ≥ 0 while the pump
delivers); the
closed loops hold their commands between samples, within the saturation, and track; every file
of a run is written, and `show` fills every default.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from actuatorlab.machines.excavator import DIG_START_POSE, excavator_mjcf
from actuatorlab.multibody.excavator import excavator_system
from actuatorlab.multibody.open_centre import OpenCentreBleed
from actuatorlab.scenarios.kinds import machine as machine_kind
from actuatorlab.scenarios.loading import load_scenario, parse_scenario, scenario_to_toml
from actuatorlab.scenarios.runner import run_scenario


def _short(name: str, duration: float, **changes):
    data = load_scenario(name).model_dump()
    data.update(duration=duration, **changes)
    return parse_scenario(data)


@pytest.fixture(scope="module")
def excavator_run():
    spec = _short("excavator-dig", 6.0)
    system, kwargs, supplies, _ = machine_kind.build(spec)
    return spec, system, kwargs, system.simulate(**kwargs)


@pytest.fixture(scope="module")
def crane_output(tmp_path_factory):
    out = tmp_path_factory.mktemp("crane")
    output, files = run_scenario(load_scenario("crane-pick-place"), out)
    return output, files, out


def test_shipped_excavator_model_is_the_documented_machine():
    from importlib import resources

    models = resources.files("actuatorlab.scenarios") / "builtin" / "models"
    assert (models / "excavator.xml").read_text() == excavator_mjcf()
    assert (models / "excavator_slew.xml").read_text() == excavator_mjcf(slew=True)


def test_excavator_file_builds_the_python_api_machine(excavator_run):
    spec, system, kwargs, result = excavator_run
    reference = excavator_system("quasistatic")
    assert [a.name for a in reference.actuators] == [a.name for a in system.actuators]
    for ours, theirs in zip(system.actuators, reference.actuators):
        assert ours.circuit.kernel_array() == pytest.approx(theirs.circuit.kernel_array(), rel=1e-12)
        assert ours.length_limits == pytest.approx(theirs.length_limits, rel=1e-12)
    np.testing.assert_allclose(kwargs["qpos"], DIG_START_POSE, rtol=1e-12)
    # the same inputs through the Python API: the same motion to round-off
    again = reference.simulate(
        6.0, kwargs["valve_commands"], OpenCentreBleed(0.8, 0.05), kwargs["loads"], qpos=list(DIG_START_POSE)
    )
    for i in range(3):
        np.testing.assert_allclose(result[f"qpos_{i}"], again[f"qpos_{i}"], atol=1e-12)


def test_excavator_is_held_at_rest_during_the_first_second(excavator_run):
    _, _, _, result = excavator_run
    hold = result.t < 1.0  # every command is 0 before 1 s (the file's piecewise-linear commands)
    for i in range(3):
        assert np.ptp(result[f"qpos_{i}"][hold]) < 1e-4


def test_pump_node_balances_and_pressures_stay_within_reliefs(excavator_run):
    _, system, _, result = excavator_run
    circuit = system.actuators[0].circuit
    pressure = result["boom.pump_pressure"]
    bleed = circuit.coefficients[4] * result["boom.bleed"] * np.sqrt(pressure)  # U_b·R(P), (114)
    taken = sum(result[f"{c}.supply_flow"] for c in ("boom", "stick", "bucket"))
    residual = circuit.pump_flow - taken - bleed - result["boom.pump_relief_flow"]
    assert np.max(np.abs(residual)) < 1e-6 * circuit.pump_flow
    assert np.max(pressure) <= circuit.pump_relief_pressure * (1 + 1e-9)
    for c in ("boom", "stick", "bucket"):
        assert np.all(result[f"{c}.pump_relief_flow"] >= 0.0)


def test_energy_balance_closes(crane_output):
    output, _, _ = crane_output
    s = output.summary_dict()
    balance = s["total.work_J"] + s["total.compliance_J"] + s["total.losses_J"]
    assert s["total.energy_J"] == pytest.approx(balance, rel=1e-12)
    assert s["supply.pump.energy_J"] > 0.0
    assert 0.0 < s["total.efficiency"] < 1.0
    cylinders = ("lift", "jib", "telescope")
    # what the cylinders draw is part of what the pump delivers (the rest goes through bleed and relief)
    assert sum(s[f"{c}.hydraulic_energy_J"] for c in cylinders) < s["supply.pump.energy_J"]
    for c in cylinders:
        assert s[f"{c}.valve_losses_J"] > 0.0  # throttling in a valve always dissipates
        balance = s[f"{c}.work_J"] + s[f"{c}.compliance_J"] + s[f"{c}.valve_losses_J"]
        assert s[f"{c}.hydraulic_energy_J"] == pytest.approx(balance, rel=1e-12)


def test_closed_loops_sample_hold_saturate_and_track(crane_output):
    output, _, _ = crane_output
    table = output.table
    t = table["t"]
    for c in ("lift", "jib", "telescope"):
        u = table[f"{c}.valve_command"]
        changes = t[1:][np.diff(u) != 0.0]
        # the PI controller's sample time is 10 ms: the command only changes on its samples
        assert np.allclose(np.round(changes / 0.01) * 0.01, changes, atol=1e-9)
        assert np.max(np.abs(u)) <= 1.0
        error = table[f"{c}.tracking_error"]
        # at the ends of the holds (5.5 s, 10.5 s) the stroke sits on its target
        for end in (5.5, 10.5):
            assert abs(error[np.searchsorted(t, end) - 1]) < 0.015
    assert output.summary_dict()["telescope.tracking_max_m"] < 0.05


def test_run_writes_every_file_and_show_fills_defaults(crane_output):
    _, files, out = crane_output
    expected = {
        "results.parquet",
        "scenario.toml",
        "summary.json",
        "machine.png",
        "strokes.png",
        "forces.png",
        "pressures.png",
        "flows.png",
        "power.png",
        "joints.png",
        "tracking.png",
        "report.html",
    }
    assert expected <= set(files)
    for name in expected:
        assert (out / name).stat().st_size > 0
    import pyarrow.parquet as pq

    schema = pq.read_schema(out / "results.parquet")
    assert schema.field("lift.force").metadata[b"unit"] == b"N"
    text = scenario_to_toml(load_scenario("crane-pick-place"))
    for default in ("drop_actuators = false", "check_interval", "bulk_modulus", "contacts = true", "renderer ="):
        assert default in text
    # the resolved scenario written with a run loads again to the same scenario
    assert load_scenario(out / "scenario.toml") == load_scenario("crane-pick-place")


def test_pressure_dynamics_model_agrees_with_quasistatic():
    quasi = _short("excavator-dig", 4.0)
    pressure = _short("excavator-dig", 4.0, model="pressure-dynamics")
    a = machine_kind.build(quasi)
    b = machine_kind.build(pressure)
    ra, rb = a[0].simulate(**a[1]), b[0].simulate(**b[1])
    gap = max(np.max(np.abs(ra[f"qpos_{i}"] - rb[f"qpos_{i}"])) for i in range(3))
    assert gap < math.radians(3.0)  # the two models of one circuit: the bench's 2.2° over the full cycle


def test_sweep_varies_a_bore_and_a_gain(tmp_path):
    from actuatorlab.scenarios.variants import grid_variants

    base = _short("crane-pick-place", 2.0)
    variants = grid_variants(base, ["cylinders[0].bore=90 mm,110 mm", "cylinders[2].control.kp=5,10"])
    assert len(variants) == 4
    rows = [variants.row(i) for i in range(len(variants))]
    assert {row["cylinders[2].control.kp"] for row in rows} == {5.0, 10.0}
    assert {round(row["cylinders[0].bore"], 9) for row in rows} == {0.09, 0.11}


def test_a_shortened_run_draws_each_instant_of_its_picture_once():
    """crane-pick-place names instants up to 13 s; a 2 s run draws 0 s and its end, once each
    (the drawing renderer, which labels each instant in its legend)."""
    import actuatorlab

    result = actuatorlab.load("crane-pick-place").set({"duration": "2 s", "picture.renderer": "drawing"}).run()
    picture = [fig for fig in result.plot(show=False) if fig.axes[0].get_title().startswith("bodies")][0]
    labels = [text.get_text() for text in picture.axes[0].get_legend().get_texts()]
    assert labels == ["t = 0.00 s", "t = 2.00 s"]


def test_the_render_child_waits_for_its_poses_and_a_failing_platform_falls_back_to_a_drawing(monkeypatch):
    """The render job starts before the poses exist (its child waits for them), renders them when
    given, stops its child when cancelled without them, and where no platform renders the
    picture is the drawing, naming why (each platform's last line of error)."""
    from actuatorlab.report import machine_picture

    system, kwargs, *_ = machine_kind.build(load_scenario("crane-pick-place"))
    poses = np.tile(system.model.qpos0, (2, 1))
    idle = machine_picture.RenderJob(system.model)
    child = idle._child
    idle.cancel()
    assert child.poll() is not None  # stopped, not left waiting
    monkeypatch.setattr(machine_picture, "PLATFORMS", ("no-such-gl", "neither"))
    figure, how = machine_picture.plot_picture(system.model, [0.0, 1.0], poses, [], "auto")
    assert how.startswith("Drawn from the recorded poses") and "no-such-gl:" in how and "neither:" in how
    with pytest.raises(RuntimeError, match='set picture.renderer = "drawing"'):
        machine_picture.plot_picture(system.model, [0.0, 1.0], poses, [], "mujoco")

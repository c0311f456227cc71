"""The built-in scenarios of Kikuuwe et al. Secs. 5–6 and the model comparison, end to end."""

import json
import math
import re
from importlib import resources

import numpy as np
import pytest
from typer.testing import CliRunner

from actuatorlab.cli import app
from actuatorlab.scenarios.kinds import arm, arms_one_pump, gamma_map, network_map
from actuatorlab.scenarios.loading import load_scenario

runner = CliRunner()


def test_regeneration_map_speeds_up_extension_with_u_a():
    """Sec. 5.1, Fig. 8: the free extension velocity and Q_a grow with u_a; Q_a grows with v."""
    out = gamma_map.run(load_scenario("regeneration-map"))
    free = [v for k, v in out.summary_dict().items() if "free_velocity" in k]
    assert len(free) == 5 and np.all(np.diff(free) > 0.0)
    df = out.table[out.table["v"] > 0.05]
    flow = df.pivot(index="v", columns="u_a", values="regeneration_flow").to_numpy()
    assert np.all(flow[:, 0] == 0.0)  # u_a = 0: no regeneration flow
    assert np.all(np.diff(flow[:, 1:], axis=1) >= 0.0)  # grows with u_a
    assert np.all(np.diff(flow[:, -1]) >= 0.0)  # grows with v
    assert [f.file for f in out.figures] == ["gamma_a.png", "regeneration_flow_a.png"]


def test_arm_regeneration_extends_faster_than_without():
    """Sec. 5.2, Fig. 10: moving down from 30 deg with u_a = 0.5 is faster than with u_a = 0."""
    on = arm.simulate_scenario(load_scenario("arm-regeneration"))
    off = arm.simulate_scenario(load_scenario("arm-regeneration-off"))
    assert on["theta"][0] == pytest.approx(math.radians(30))
    moving = (on.t > 0.6) & (on.t < 1.9)
    assert np.mean(on["rod_velocity"][moving]) > 1.5 * np.mean(off["rod_velocity"][moving]) > 0.0
    assert on["theta"][-1] < off["theta"][-1]


def test_second_arm_slows_the_first_on_a_shared_pump():
    """Sec. 6.2, Fig. 13: arm 1 decelerates while arm 2 draws oil (scenario II against I)."""
    busy = arms_one_pump.simulate_scenario(load_scenario("two-arms-one-pump"))
    idle = arms_one_pump.simulate_scenario(load_scenario("two-arms-one-pump-idle"))
    t = busy[0].t
    during = (t > 1.2) & (t < 1.9)
    after = (t > 2.1) & (t < 2.4)
    assert np.mean(busy[0]["theta_rate"][during]) < 0.6 * np.mean(idle[0]["theta_rate"][during])
    assert np.mean(busy[0]["theta_rate"][after]) == pytest.approx(np.mean(idle[0]["theta_rate"][after]), rel=0.1)
    assert np.all(np.abs(idle[1]["theta_rate"][t > 0.3]) < 1e-3)  # idle arm 2 holds (after settling by f/K)
    pump = busy[0]["pump_pressure"]
    assert np.all((pump >= 0.0) & (pump <= 36e6 * (1 + 1e-12)))


def test_two_actuators_map_pressure_falls_with_the_other_actuator_speed():
    """Sec. 6.1, Fig. 12: a larger |v_2| lowers P (and never raises actuator 1's force)."""
    out = network_map.run(load_scenario("two-actuators-map"))
    s = out.summary_dict()
    for letter, speeds, sign in (("a", ["0", "0.1", "0.2", "0.3"], 1), ("b", ["0", "-0.1", "-0.2", "-0.3"], -1)):
        pressure = [s[f"{letter}[v_2={v}].pump_pressure_at_probe_Pa"] for v in speeds]
        force = [s[f"{letter}[v_2={v}].f_1_at_probe_N"] for v in speeds]
        assert np.all(np.diff(pressure) <= 1e-3) and pressure[-1] < pressure[0]
        assert np.all(sign * np.diff(force) <= 1e-6)  # extend: f_1 falls; retract: f_1 rises toward 0


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    out = tmp_path_factory.mktemp("model-comparison")
    result = runner.invoke(app, ["run", "model-comparison", "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    return out


def test_model_comparison_reports_both_models(comparison):
    for name in ("results.parquet", "summary.json", "report.html", "comparison.png", "difference.png"):
        assert (comparison / name).stat().st_size > 0
    s = json.loads((comparison / "summary.json").read_text())
    # the models agree on θ to about a degree away from switching (oil-column ringing remains)
    assert s["theta_max_difference_rad"] < math.radians(1.5)
    assert 0.3 < s["compared_fraction"] < 0.9
    # relaxed step limit (h²K/m + 2hB/m < 4) against RK4 on the stiff pressure model
    assert s["quasistatic_max_step_s"] > 1e3 * s["pressure_dynamics_rk4_max_step_s"]
    assert s["speed_ratio"] > 1.0


def test_one_word_switches_an_arm_scenario_to_pressure_dynamics(tmp_path):
    source = runner.invoke(app, ["show", "arm-relief"]).output
    path = tmp_path / "scenario.toml"
    path.write_text(
        source.replace('model = "quasistatic"', 'model = "pressure-dynamics"').replace(
            'duration = "10 s"', 'duration = "4 s"'
        )
    )
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 0, result.output
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["min_chamber_pressure_Pa"] > -0.1e6
    assert s["max_angle_rad"] > math.radians(8)  # raised about 11.5 deg by the retract command from 3 s to 4 s


def test_arms_on_one_pump_with_pressure_dynamics(tmp_path):
    source = runner.invoke(app, ["show", "two-arms-one-pump"]).output
    path = tmp_path / "scenario.toml"
    path.write_text(source.replace('model = "quasistatic"', 'model = "pressure-dynamics"'))
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 0, result.output
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["final_angle_1_rad"] > math.radians(-30)  # arm 1 was raised


def test_oversized_rk4_step_in_a_scenario_is_a_clear_error(tmp_path):
    source = runner.invoke(app, ["show", "arm-relief"]).output
    path = tmp_path / "scenario.toml"
    path.write_text(
        source.replace('model = "quasistatic"', 'model = "pressure-dynamics"').replace(
            'solver = "LSODA"', 'solver = "RK4"'
        )
    )
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 2
    assert "RK4 with step h = 0.001 s diverged" in result.output and "adaptive stiff solver" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "name, old, new, expected",
    [
        ("model-comparison", 'bulk_modulus = "1.5 GPa"', 'bulk_modulus = "-1 GPa"', "pressure_dynamics.bulk_modulus"),
        ("model-comparison", 'solver = "LSODA"', 'solver = "ode45"', "pressure_dynamics.solver"),
        (
            "arm-regeneration",
            "regeneration_max_area",
            'regeneration_max_area = "1 m" #',
            "circuit.regeneration_max_area",
        ),
        ("two-actuators-map", "u_c = [0.5, 0.5]", "u_c = [0.5, 1.5]", "panels[0].u_c"),
        (
            "two-actuators-map",
            'velocity_range = ["-0.6 m/s", "0.6 m/s"]',
            'velocity_range = ["0.1 m/s", "0.6 m/s"]',
            "velocity_range",
        ),
        ("two-arms-one-pump", "values = [0.6, 0]", "values = [1.6, 0]", "arms[1].valve_command"),
        ("two-arms-one-pump", "bleed = 0.3", "bleed = 1.3", "bleed"),
    ],
)
def test_bad_input_in_the_new_scenarios_names_the_field(tmp_path, name, old, new, expected):
    source = (resources.files("actuatorlab.scenarios") / "builtin" / f"{name}.toml").read_text(encoding="utf-8")
    assert old in source, old
    path = tmp_path / "scenario.toml"
    path.write_text(source.replace(old, new, 1))
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 2, result.output
    assert expected in result.output and "Traceback" not in result.output


def _arm_relief_with(tmp_path, old: str, new: str, model: str = "quasistatic"):
    text = runner.invoke(app, ["show", "arm-relief"]).output
    assert old in text
    path = tmp_path / f"case-{model}.toml"
    path.write_text(text.replace(old, new).replace('model = "quasistatic"', f'model = "{model}"'))
    out = tmp_path / f"out-{model}"
    return runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"]), out


@pytest.mark.parametrize("model", ["quasistatic", "pressure-dynamics"])
def test_a_cylinder_run_to_the_end_of_its_stroke_stops_with_the_time(tmp_path, model):
    """Issue 17: with a 35 bar pump relief the quasistatic rod reached 1.824 m of a 1.8 m cylinder
    and exited 0, while the pressure model refused. Both now stop at the end of travel
    ([cylinder] retracted_length 1 m + stroke 0.8 m), naming the time."""
    result, out = _arm_relief_with(
        tmp_path, 'pump_relief_pressure = "36 MPa"', 'pump_relief_pressure = "35 bar"', model
    )
    assert result.exit_code == 2, result.output
    assert "the cylinder of the arm left its travel [1, 1.8] m at t = " in result.output
    assert "cylinder.stroke" in result.output and not out.exists()


def test_a_ten_times_heavier_arm_stops_at_the_end_of_travel_not_at_minus_180_deg(tmp_path):
    result, _ = _arm_relief_with(tmp_path, 'mass = "2000 kg"', 'mass = "20000 kg"')
    assert result.exit_code == 2 and "left its travel" in result.output, result.output
    theta = float(re.search(r"θ = (\S+) deg", result.output).group(1))
    assert -90.0 < theta < 0.0


def test_the_joint_range_bounds_the_arm_and_must_hold_the_start(tmp_path):
    result, _ = _arm_relief_with(
        tmp_path, 'initial_rate = "0 deg/s"', 'initial_rate = "0 deg/s"\nangle_range = ["-10 deg", "30 deg"]'
    )
    assert result.exit_code == 2 and "the arm left its angle_range [-10, 30] deg at t = " in result.output
    result, _ = _arm_relief_with(
        tmp_path, 'initial_rate = "0 deg/s"', 'initial_rate = "0 deg/s"\nangle_range = ["10 deg", "30 deg"]'
    )
    assert result.exit_code == 2 and "initial_angle = 0 deg lies outside angle_range [10, 30] deg" in result.output


def test_the_stroke_in_the_old_pressure_dynamics_table_is_told_where_it_went(tmp_path):
    """The message keeps its [cylinder]: error text is not read as console markup."""
    result, _ = _arm_relief_with(tmp_path, "[pressure_dynamics]\n", '[pressure_dynamics]\nstroke = "1 m"\n')
    assert result.exit_code == 2
    assert "stroke moved to the [cylinder] table" in result.output and "write them under [cylinder]" in result.output


@pytest.mark.parametrize("name", ["arm-relief", "arm-regeneration", "two-arms-one-pump"])
def test_quasistatic_runs_write_chamber_pressures_that_balance_the_force(name):
    """Issue 17: the quasistatic results had no chamber pressures though the model gives them from
    the state ((61)–(62); (93) with regeneration; (106) on a shared pump). They must reproduce the
    force, f = A_h P_h − A_r P_r, stay within [0, relief], and be marked gauge."""
    scenario = load_scenario(name)
    kind = arms_one_pump if scenario.kind == "arms-one-pump" else arm
    output = kind.run(scenario)
    circuit = scenario.circuit.build()
    suffixes = [f"_{j}" for j in range(1, len(scenario.arms) + 1)] if scenario.kind == "arms-one-pump" else [""]
    for s in suffixes:
        head, rod = np.asarray(output.table[f"head_pressure{s}"]), np.asarray(output.table[f"rod_pressure{s}"])
        force = np.asarray(output.table[f"force{s}"])  # a DataFrame (arms-one-pump) or the arm's columns
        np.testing.assert_allclose(
            circuit.head_area * head - circuit.rod_area * rod, force, rtol=1e-9, atol=1e-9 * circuit.rod_relief_force
        )
        assert head.min() >= 0.0 and head.max() <= circuit.head_relief_pressure * (1 + 1e-12)
        assert rod.min() >= 0.0 and rod.max() <= circuit.rod_relief_pressure * (1 + 1e-12)
        assert output.units[f"head_pressure{s}"] == "Pa (gauge)"


def test_one_arm_on_the_shared_pump_reports_its_pump_pressure():
    """Found by the scenario fuzz test: arms-one-pump with a single [[arms]] table stepped the arm
    on its own pump and then asked for a pump pressure it had not recorded (KeyError)."""
    scenario = load_scenario("two-arms-one-pump")
    single = scenario.model_copy(update={"arms": scenario.arms[:1]})
    output = arms_one_pump.run(single)
    pump = output.table["pump_pressure"].to_numpy()
    circuit = scenario.circuit.build()
    assert np.isfinite(pump).all() and 0.0 < pump.min() and pump.max() <= circuit.pump_relief_pressure * (1 + 1e-12)

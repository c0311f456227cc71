"""`actuatorlab calibrate`: scenario fields fitted to logged channels. References: logs simulated
by the same scenario with known values (the truth), plus white noise of known level."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import actuatorlab
from actuatorlab.cli import app
from actuatorlab.errors import ActuatorlabError

TRUTH = {"arm.mass": 2300.0, "circuit.discharge_coefficient": 0.55, "arm.inertia": 6000.0}
FREE = ["arm.mass=1000 kg..4000 kg", "circuit.discharge_coefficient=0.3..0.9", "arm.inertia"]


def _log(scenario, seed: int, angle_noise=1e-4, pressure_noise=2e4) -> pd.DataFrame:
    """The run's angle [rad] and head pressure [Pa] with white noise (SI columns)."""
    table = scenario.run().table
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "t": table["t"],
            "theta": table["theta"] + angle_noise * rng.standard_normal(len(table)),
            "head_pressure": table["head_pressure"] + pressure_noise * rng.standard_normal(len(table)),
        }
    )


@pytest.fixture(scope="module")
def truth_log():
    return _log(actuatorlab.load("arm-relief").set(TRUTH), 0)


def test_three_fields_of_arm_relief_are_recovered_within_their_intervals(truth_log):
    fit = actuatorlab.calibrate("arm-relief", truth_log, FREE, ["theta", "head_pressure"])
    table = fit.table.set_index("path")
    for path, value in TRUTH.items():
        row = table.loc[path]
        assert row["value"] == pytest.approx(value, rel=2e-3)
        assert row["low"] < value < row["high"] or abs(row["value"] - value) < 4 * row["std_error"]
        assert fit.scenario.get(path) == pytest.approx(row["value"], rel=1e-12)
    assert fit.summary["fit_percent_theta"].value > 99.0
    assert "compiled batches" in fit.notes[0]
    assert any("arm.mass and arm.inertia are correlated" in note for note in fit.notes)  # one load, one arm


def test_the_result_writes_parameters_and_a_calibrated_scenario_that_loads(truth_log, tmp_path):
    fit = actuatorlab.calibrate("arm-relief", truth_log, FREE[:2], "theta")
    fit.save(tmp_path / "cal")
    parameters = json.loads((tmp_path / "cal" / "parameters.json").read_text())
    assert set(parameters["arm.mass"]) >= {"value", "low", "high"} and parameters["arm.mass"]["unit"] == "kg"
    assert parameters["circuit.discharge_coefficient"]["unit"] == ""  # dimensionless
    again = actuatorlab.load(tmp_path / "cal" / "scenario.toml")
    assert again.get("arm.mass") == pytest.approx(parameters["arm.mass"]["value"], rel=1e-9)
    assert (tmp_path / "cal" / "fit_1.png").stat().st_size > 10_000


def test_a_logged_input_drives_the_scenario():
    base = actuatorlab.load("arm-relief")
    command = {"type": "steps", "times": ["2 s", "5 s"], "values": [-0.2, 0.0], "initial": 0.0}
    truth = base.set({"inputs.valve_command": command, "arm.mass": "2500 kg"}).run().table
    log = pd.DataFrame({"t": truth["t"], "theta": truth["theta"], "cmd": truth["valve_command"]})
    fit = actuatorlab.calibrate(base, log, "arm.mass=1000 kg..4000 kg", "theta", inputs={"inputs.valve_command": "cmd"})
    assert fit.scenario.get("arm.mass") == pytest.approx(2500.0, rel=1e-3)  # only with the log's command
    # the calibrated scenario is the given one with the fitted fields; the log's input stays the log's
    assert fit.scenario.spec.inputs.valve_command.times == [3.0, 6.0]


def test_a_kind_without_a_batched_path_is_calibrated_run_by_run():
    base = actuatorlab.load("arm-relief").set({"model": "pressure-dynamics", "simulation.duration": "5 s"})
    log = _log(base.set("arm.mass", "2400 kg"), 1, pressure_noise=1e4)
    fit = actuatorlab.calibrate(base, log, "arm.mass=1000 kg..4000 kg", ["theta", "head_pressure"])
    assert fit.scenario.get("arm.mass") == pytest.approx(2400.0, rel=2e-3)
    assert "one at a time" in fit.notes[0]


def test_a_validation_log_is_reported(truth_log):
    later = _log(actuatorlab.load("arm-relief").set(TRUTH), 5)
    fit = actuatorlab.calibrate("arm-relief", truth_log, FREE[:2], "theta", validate=[later])
    assert fit.summary["validation_fit_percent_theta"].value > 99.0


def test_fields_the_logs_cannot_separate_are_refused_naming_both(truth_log):
    # the valves' flow is C·a: a discharge coefficient and a valve area only ever act as one product
    with pytest.raises(ActuatorlabError, match="cannot separate circuit.(discharge_coefficient|max_area) and"):
        actuatorlab.calibrate(
            "arm-relief", truth_log, ["circuit.discharge_coefficient=0.3..0.9", "circuit.max_area"], "theta"
        )


@pytest.mark.parametrize(
    "free, match, message",
    [
        ("inputs.valve_command", "theta", "is not a number field"),
        ("arm.mas", "theta", "no field 'mas'"),
        ("arm.mass=-5 kg..4000 kg", "theta", "must be a finite number > 0"),
        ("arm.mass=3000 kg..4000 kg", "theta", "lies outside the bounds"),
        ("arm.mass", "thetta", "no channel 'thetta'"),
        ("arm.mass", "rod_force", "no column 'rod_force'"),
    ],
)
def test_bad_input_is_one_line_with_the_remedy(truth_log, free, match, message):
    log = truth_log.assign(thetta=truth_log["theta"])  # a log column the run does not have
    with pytest.raises(ActuatorlabError, match=message) as error:
        actuatorlab.calibrate("arm-relief", log, free, match)
    assert "\n" not in str(error.value)


def test_a_log_shorter_than_the_scenario_is_refused_with_the_remedy(truth_log):
    with pytest.raises(ActuatorlabError, match=r'set its simulation.duration = "4.999 s" or give the whole log'):
        actuatorlab.calibrate("arm-relief", truth_log[truth_log["t"] < 5.0], "arm.mass", "theta")


def test_the_command_writes_the_calibration(truth_log, tmp_path):
    log = truth_log.rename(columns={"theta": "ANGLE"})
    log["ANGLE"] = np.degrees(log["ANGLE"])
    log.to_csv(tmp_path / "log.csv", index=False)
    arguments = ["calibrate", "arm-relief", str(tmp_path / "log.csv"), *(f"--free={free}" for free in FREE)]
    arguments += ["--match", "theta=ANGLE", "--unit", "theta=deg", "--out", str(tmp_path / "out"), "--quiet"]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    parameters = json.loads((tmp_path / "out" / "parameters.json").read_text())
    assert parameters["arm.mass"]["value"] == pytest.approx(2300.0, rel=2e-3)
    bad = CliRunner().invoke(app, [*arguments[:6], "--weight", "theta=heavy", "--match", "theta=ANGLE"])
    assert bad.exit_code != 0 and "write CHANNEL=W with W a number" in bad.output


def test_several_logs_of_different_experiments_are_fitted_together():
    # two loads' worth of motion: the valve command differs, each log drives its own run
    base = actuatorlab.load("arm-relief")
    truth = {"arm.mass": "2300 kg", "arm.inertia": "6000 kg m^2"}
    logs = []
    for level in (-0.3, -0.15):
        command = {"type": "steps", "times": ["3 s", "6 s"], "values": [level, 0.0], "initial": 0.0}
        table = base.set({**truth, "inputs.valve_command": command}).run().table
        logs.append(pd.DataFrame({"t": table["t"], "theta": table["theta"], "cmd": table["valve_command"]}))
    fit = actuatorlab.calibrate(
        base, logs, ["arm.mass=1000 kg..4000 kg", "arm.inertia"], "theta", inputs={"inputs.valve_command": "cmd"}
    )
    assert fit.scenario.get("arm.mass") == pytest.approx(2300.0, rel=1e-3)
    assert fit.scenario.get("arm.inertia") == pytest.approx(6000.0, rel=1e-2)
    assert sum(note.startswith("Fit of log") for note in fit.notes) == 2


def test_a_log_longer_than_a_run_without_a_duration_field_is_refused_with_the_remedy():
    # kinds whose run length is their motion's (crane-vdc, emla-tracking) are checked against the run
    from actuatorlab.scenarios.calibration import Experiment, Match, Simulator

    spec = actuatorlab.load("arm-relief").spec
    log = Experiment("log 1", spec, np.linspace(0.0, 12.0, 13), {"theta": np.zeros(13)}, {"theta": 1.0})
    simulator = Simulator([], [Match("theta", "theta")], [log])
    with pytest.raises(ActuatorlabError, match=r"log 1: runs to 12 s, the scenario's run to 10 s; .*--window 0:10"):
        simulator._sample({"t": np.linspace(0.0, 10.0, 11), "theta": np.zeros(11)}, log)

"""The excavator-dig scenario (issue: hydraulic actuators inside MuJoCo), shortened for CI."""

from actuatorlab.scenarios.loading import load_scenario, parse_scenario
from actuatorlab.scenarios.runner import run_scenario


def test_dig_cycle_runs_with_both_models_and_reports(tmp_path):
    data = load_scenario("excavator-dig").model_dump()
    data["cycle_scale"] = 0.4
    output, files = run_scenario(parse_scenario(data), tmp_path)
    summary = output.summary_dict()
    relief = 34.3e6  # the pump relief of ExcavatorParameters (typical 20 t machine)
    assert 0 < summary["quasistatic.peak_pump_pressure_Pa"] <= relief * 1.02
    assert summary["quasistatic.real_time_factor"] > 5.0  # the 20 x target is measured by bench_excavator.py
    assert summary["max_angle_difference_rad"] < 0.1  # the two actuator models agree on the motion
    assert {"excavator_side_view.png", "excavator_strokes.png"} <= set(files)


def test_an_unstable_relaxation_is_refused_before_anything_runs(tmp_path):
    import pytest

    from actuatorlab.errors import ScenarioError, SimulationError

    data = load_scenario("excavator-dig").model_dump()
    data["stiffness"] = -1.0
    with pytest.raises(ScenarioError, match="stiffness"):
        parse_scenario(data)
    data = load_scenario("excavator-dig").model_dump()
    data.update(stiffness=5e9, cycle_scale=0.2, compare=False)
    with pytest.raises(SimulationError, match="stiffness below"):
        run_scenario(parse_scenario(data), tmp_path)

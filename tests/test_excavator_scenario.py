"""The excavator-dig kind (the excavator's own scenario kind, kept for existing files; the built-in
``excavator-dig`` is now a ``machine`` file, tested in test_machine.py), shortened for CI."""

import pytest

from actuatorlab.errors import ScenarioError, SimulationError
from actuatorlab.scenarios.loading import parse_scenario
from actuatorlab.scenarios.runner import run_scenario

OLD = {"kind": "excavator-dig", "name": "dig", "description": "the excavator's own kind", "timestep": "1 ms"}


def test_dig_cycle_runs_with_both_models_and_reports(tmp_path):
    output, files = run_scenario(parse_scenario({**OLD, "cycle_scale": 0.4}), tmp_path)
    summary = output.summary_dict()
    relief = 34.3e6  # the pump relief of ExcavatorParameters (typical 20 t machine)
    assert 0 < summary["quasistatic.peak_pump_pressure_Pa"] <= relief * 1.02
    assert summary["quasistatic.real_time_factor"] > 5.0  # the 20 x target is measured by bench_excavator.py
    assert summary["max_angle_difference_rad"] < 0.1  # the two actuator models agree on the motion
    assert {"excavator_side_view.png", "excavator_strokes.png"} <= set(files)


def test_an_unstable_relaxation_is_refused_before_anything_runs(tmp_path):
    with pytest.raises(ScenarioError, match="stiffness"):
        parse_scenario({**OLD, "stiffness": -1.0})
    with pytest.raises(SimulationError, match="stiffness below"):
        run_scenario(parse_scenario({**OLD, "stiffness": 5e9, "cycle_scale": 0.2, "compare": False}), tmp_path)


def test_the_machine_file_refuses_an_unstable_relaxation_with_a_stable_k(tmp_path):
    from actuatorlab.scenarios.loading import load_scenario

    data = load_scenario("excavator-dig").model_dump()
    data["relaxation"]["stiffness"] = 5e10
    data["duration"] = 0.5
    out = tmp_path / "out"
    with pytest.raises(SimulationError, match="stiffness below"):
        run_scenario(parse_scenario(data), out)
    assert not out.exists()

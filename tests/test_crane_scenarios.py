"""The crane scenarios (Petrović & Mattila), shortened for CI."""

import pytest

from actuatorlab.errors import ScenarioError
from actuatorlab.scenarios.loading import load_scenario, parse_scenario
from actuatorlab.scenarios.runner import run_scenario


def _run(tmp_path, name, **changes):
    data = load_scenario(name).model_dump()
    data.update(changes)
    return run_scenario(parse_scenario(data), tmp_path)


@pytest.mark.parametrize("plant", ["native", "mujoco"])
def test_diamond_is_tracked_within_millimetres_on_either_plant(tmp_path, plant):
    output, files = _run(tmp_path, "crane-abcd", loops=1, plant=plant)
    summary = output.summary_dict()
    # the paper's Fig. 13 shows millimetre tracking of the diamond; the native run of two loops gives 1.2 mm
    assert summary["max_tip_error_m"] < 3e-3
    assert summary["saturated_fraction"] == 0.0
    assert {"crane_path.png", "crane_forces.png", "crane_pressures.png", "crane_valves.png"} <= set(files)
    assert any(f"Plant: {plant}" in note for note in output.notes)


def test_inverse_dynamics_agree_with_mujoco_within_0_2_percent(tmp_path):
    output, _ = _run(tmp_path, "crane-inverse-dynamics", samples=200, duration=4.0)
    summary = output.summary_dict()
    for name in ("lift", "tilt", "extension"):
        assert summary[f"max_relative_error_{name}"] < 2e-3  # the paper's 0.2 % against Simscape
    assert summary["static_pose_relative_error"] < 2e-3


def test_bad_crane_fields_are_refused():
    data = load_scenario("crane-abcd").model_dump()
    data["plant"] = "bullet"
    with pytest.raises(ScenarioError, match="plant"):
        parse_scenario(data)
    data = load_scenario("crane-abcd").model_dump()
    data["loops"] = 0
    with pytest.raises(ScenarioError, match="loops"):
        parse_scenario(data)

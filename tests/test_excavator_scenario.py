"""The built-in ``excavator-dig`` (a ``machine`` file) refuses a relaxation it cannot run, before
anything runs or is written. Its motion, pressures and the two actuator models' agreement are
tested in test_machine.py; the Python API of the same machine in test_excavator.py."""

import pytest

from actuatorlab.errors import ScenarioError, SimulationError
from actuatorlab.scenarios.loading import load_scenario, parse_scenario
from actuatorlab.scenarios.runner import run_scenario


def _excavator(**relaxation):
    data = load_scenario("excavator-dig").model_dump()
    data["relaxation"].update(relaxation)
    data["duration"] = 0.5
    return data


def test_a_negative_stiffness_is_refused_when_the_file_is_read():
    with pytest.raises(ScenarioError, match="stiffness"):
        parse_scenario(_excavator(stiffness=-1.0))


def test_the_machine_file_refuses_an_unstable_relaxation_with_a_stable_k(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(SimulationError, match="stiffness below"):
        run_scenario(parse_scenario(_excavator(stiffness=5e10)), out)
    assert not out.exists()

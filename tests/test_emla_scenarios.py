"""The EMLA scenarios (Bahari et al.), with small budgets for CI."""

import numpy as np
import pytest

from actuatorlab.errors import ScenarioError
from actuatorlab.scenarios.loading import load_scenario, parse_scenario
from actuatorlab.scenarios.runner import run_scenario


def _run(tmp_path, name, **changes):
    data = load_scenario(name).model_dump()
    for key, value in changes.items():
        if isinstance(value, dict):
            data[key].update(value)
        else:
            data[key] = value
    return run_scenario(parse_scenario(data), tmp_path)


def test_efficiency_maps_are_bounded_and_blank_outside_the_limits(tmp_path):
    output, files = _run(tmp_path, "emla-efficiency-maps", points=41)
    table = output.table
    feasible = table[table["feasible"]]
    assert ((feasible["efficiency"] >= 0) & (feasible["efficiency"] <= 1)).all()
    assert table.loc[~table["feasible"], "efficiency"].isna().all()
    assert {"efficiency_lift.png", "efficiency_tilt.png", "efficiency_extension.png"} <= set(files)
    for name in ("lift", "tilt", "extension"):
        assert 0.5 < output.summary_dict()[f"peak_efficiency_{name}"] < 1.0


def test_bilevel_optimum_is_at_least_as_efficient_as_every_baseline(tmp_path):
    output, files = _run(tmp_path, "emla-bilevel", leader={"max_evaluations": 5, "workers": 1})
    summary = output.summary_dict()
    for baseline in ("effort", "power", "equal"):
        assert summary[f"gain_over_{baseline}_points"] >= 0.0  # the baselines are candidates (Algorithm 1 as built)
    assert 0 < summary["efficiency_total"] < 1 and "comparison.csv" in files


def test_bilevel_resumes_from_its_cache(tmp_path):
    cache = str(tmp_path / "leader.json")
    first, _ = _run(tmp_path / "a", "emla-bilevel", leader={"max_evaluations": 4, "workers": 1, "cache_file": cache})
    again, _ = _run(tmp_path / "b", "emla-bilevel", leader={"max_evaluations": 4, "workers": 1, "cache_file": cache})
    assert again.summary_dict()["follower_solves"] == 0 and again.summary_dict()["cached_solves"] >= 4
    assert again.summary_dict()["efficiency_total"] == pytest.approx(first.summary_dict()["efficiency_total"])


def test_bad_emla_fields_are_refused():
    data = load_scenario("emla-bilevel").model_dump()
    data["leader"]["max_evaluations"] = 1
    with pytest.raises(ScenarioError, match="max_evaluations"):
        parse_scenario(data)
    data = load_scenario("emla-tracking").model_dump()
    data["step"] = 0.01
    with pytest.raises(ScenarioError, match="step"):
        parse_scenario(data)
    assert np.isfinite(load_scenario("emla-tracking").gains.build().delta).all()


def test_tracking_follows_the_optimal_motion_within_the_limits(tmp_path):
    output, files = _run(tmp_path, "emla-tracking", leader={"max_evaluations": 3, "workers": 1}, samples=801)
    summary = output.summary_dict()
    for name in ("lift", "tilt", "extension"):
        assert summary[f"limited_share_{name}"] == 0.0  # no current or voltage clip with the scenario's gains
        assert summary[f"max_error_{name}_m"] < 1e-3
    assert "tracking_currents.png" in files and summary["real_time_factor"] > 1.0

"""Sensitivity analysis through the sweep engine: known indices, the command, bad input."""

import doctest
import importlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))  # the test-only scenario kind beside this file
import ishigami_kind  # noqa: E402

import actuatorlab  # noqa: E402
from actuatorlab.cli import app  # noqa: E402
from actuatorlab.errors import ScenarioError  # noqa: E402
from actuatorlab.scenarios.sensitivity import run_sensitivity  # noqa: E402

runner = CliRunner()
PI = "uniform(-3.141592653589793, 3.141592653589793)"


def test_the_values_the_analytic_ishigami_indices_are_checked_against():
    s1, st = ishigami_kind.analytic_indices(7.0, 0.1)
    assert np.allclose(s1, [0.3139, 0.4424, 0.0], atol=5e-5)  # Saltelli et al. 2008, Sec. 4.9
    assert np.allclose(st, [0.5576, 0.4424, 0.2437], atol=5e-5)


def test_sobol_indices_of_the_ishigami_function_through_the_sweep_engine(tmp_path, monkeypatch):
    ishigami_kind.register(monkeypatch)
    scenario = ishigami_kind.IshigamiScenario()
    result = run_sensitivity(
        scenario, [f"x{i}={PI}" for i in (1, 2, 3)], "sobol", 1024, seed=3, out_dir=tmp_path / "s", workers=2
    )
    assert len(result.index) == 1024 * 8 and (result.index["status"] == "ok").all()
    table = result.table.set_index("parameter")
    s1, st = ishigami_kind.analytic_indices(7.0, 0.1)
    for j, name in enumerate(("x1", "x2", "x3")):
        # the estimates of N = 1024 lie within their bootstrap intervals (and 0.05) of the closed forms
        assert abs(table.loc[name, "S1"] - s1[j]) <= max(table.loc[name, "S1_conf"], 0.05), (name, "S1")
        assert abs(table.loc[name, "ST"] - st[j]) <= max(table.loc[name, "ST_conf"], 0.05), (name, "ST")
    assert table["ST"].idxmin() == "x3" and table["S1"].idxmax() == "x2"
    written = pd.read_parquet(tmp_path / "s" / "sensitivity.parquet")
    pd.testing.assert_frame_equal(written, result.table)
    assert (tmp_path / "s" / "sensitivity.png").exists() and "sensitivity.png" in (
        tmp_path / "s" / "report.html"
    ).read_text()
    again = run_sensitivity(
        scenario,
        [f"x{i}={PI}" for i in (1, 2, 3)],
        "sobol",
        1024,
        seed=3,
        out_dir=tmp_path / "s",
        workers=2,
        resume=True,
    )
    assert again.ran == 0 and again.skipped == 8192
    pd.testing.assert_frame_equal(again.table, result.table)


def test_morris_finds_the_parameters_that_do_not_matter(tmp_path, monkeypatch):
    ishigami_kind.register(monkeypatch)
    scenario = ishigami_kind.IshigamiScenario(a=0.0, b=0.0)  # y = sin x1: x2 and x3 have no effect
    result = run_sensitivity(
        scenario, [f"x{i}={PI}" for i in (1, 2, 3)], "morris", 20, seed=1, out_dir=tmp_path / "m", workers=1
    )
    table = result.table.set_index("parameter")
    assert len(result.index) == 20 * 4
    assert table.loc["x1", "mu_star"] > 0.1
    assert (table.loc[["x2", "x3"], ["mu_star", "sigma", "mu"]].to_numpy() == 0.0).all()


def test_the_python_api_examples_run():
    result = doctest.testmod(
        importlib.import_module("actuatorlab.api.sensitivities"),
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.failed == 0 and result.attempted >= 6
    assert {"sensitivity", "SensitivityResult"} <= set(actuatorlab.__all__)
    assert actuatorlab.sensitivity.__module__ == "actuatorlab.api.sensitivities"


def _sensitivity(*args):
    return runner.invoke(app, ["sensitivity", *args, "--quiet"])


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "sensitivity needs the parameters to vary: give --vary PATH=DISTRIBUTION"),
        (
            ["--vary", "inputs.bleed=uniform(0.1, 0.5)", "--method", "fast"],
            "--method fast: not a sensitivity method; choose one of sobol, morris",
        ),
        (["--vary", "inputs.bleedx=uniform(0.1, 0.5)"], "no field 'bleedx' at inputs; fields there: bleed"),
        (
            ["--vary", "inputs.bleed=uniform(0.1, 0.5)", "--samples", "1000"],
            "--samples 1000: Sobol' sampling needs a power of 2",
        ),
        (["--vary", "inputs.bleed=normal(0.3, 0.05)", "--method", "morris", "--samples", "4"], "give it bounds"),
        (
            ["--vary", "inputs.bleed=uniform(0.1, 0.5)", "--figure", "nonsense"],
            "--figure nonsense: not a key figure of arm-relief; choose from relief_open_time_s, max_abs_force_N",
        ),
        (["--vary", "inputs.bleed=uniform(0.1, 0.5)", "--workers", "0"], "--workers 0: give at least 1"),
    ],
)
def test_bad_requests_are_refused_before_anything_is_written(tmp_path, args, message):
    result = _sensitivity("arm-relief", *args, "--out", str(tmp_path / "s"))
    assert result.exit_code == 2 and message in result.output, result.output
    assert not (tmp_path / "s").exists()


def test_the_command_writes_the_table_and_the_report(tmp_path):
    out = tmp_path / "s"
    result = runner.invoke(
        app,
        [
            "sensitivity",
            "arm-relief",
            "--vary",
            "inputs.bleed=uniform(0.2, 0.4)",
            "--vary",
            "arm.mass=uniform(1.8 t, 2.2 t)",
            "--samples",
            "8",
            "--figure",
            "final_angle_rad",
            "--workers",
            "1",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "final_angle_rad" in result.output and "arm.mass" in result.output
    table = pd.read_csv(out / "sensitivity.csv")
    assert list(table.columns) == ["figure", "parameter", "S1 [1]", "S1_conf [1]", "ST [1]", "ST_conf [1]"]
    assert list(table["parameter"]) == ["inputs.bleed", "arm.mass"]
    assert len(pd.read_parquet(out / "index.parquet")) == 8 * 6


def test_a_failed_run_of_the_design_stops_the_analysis_naming_it(tmp_path):
    from actuatorlab.scenarios.loading import load_scenario

    scenario = load_scenario("arm-relief")
    short = scenario.model_copy(update={"simulation": scenario.simulation.model_copy(update={"duration": 0.5})})
    with pytest.raises(ScenarioError, match=r"runs of the design failed .*relaxation.stiffness.*narrow the --vary"):
        run_sensitivity(
            short, ["relaxation.stiffness=loguniform(1e7 N/m, 1e12 N/m)"], "sobol", 8, out_dir=tmp_path / "s", workers=1
        )
    index = pd.read_parquet(tmp_path / "s" / "index.parquet")  # the runs are kept for a look and --resume
    assert len(index) == 8 * (2 * 1 + 2) and (index["status"] == "failed").any() and (index["status"] == "ok").any()

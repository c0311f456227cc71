"""The command line end to end: built-in scenarios, written files, and errors without tracebacks."""

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import actuatorlab
from actuatorlab.cli import app
from actuatorlab.errors import ScenarioError
from actuatorlab.io.results import read_table
from actuatorlab.scenarios.loading import load_scenario

runner = CliRunner()


@pytest.fixture(scope="module")
def arm_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("arm-relief")
    result = runner.invoke(app, ["run", "arm-relief", "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    return out


def test_arm_relief_writes_every_file(arm_run):
    for name in (
        "results.parquet",
        "scenario.toml",
        "summary.json",
        "report.html",
        "inputs.png",
        "response.png",
        "relief.png",
    ):
        assert (arm_run / name).stat().st_size > 0, name
    assert not list(arm_run.glob("*.tmp*"))
    html = (arm_run / "report.html").read_text()
    assert "response.png" in html and "7.412" in html


def test_arm_relief_reproduces_fig6_qualitatively(arm_run):
    """Kikuuwe et al. Sec. 4.3 / Fig. 6: holds 0–3 s, rises 3–6 s, holds until the rod relief
    opens (f = −F_rM), then drops; |p − ℓ| stays below a few centimetres."""
    df, units = read_table(arm_run / "results.parquet")
    assert units["theta"] == "rad" and units["force"] == "N"
    summary = json.loads((arm_run / "summary.json").read_text())
    t, v, theta, f = df["t"].to_numpy(), df["rod_velocity"].to_numpy(), df["theta"].to_numpy(), df["force"].to_numpy()
    hold = t < 3.0
    assert np.all(v[hold] == 0.0) and np.ptp(theta[hold]) < math.radians(0.5)
    assert theta[int(6.0 / 1e-3)] > math.radians(20)  # the retract command raised the arm
    opened = summary["relief_open_time_s"]
    assert 6.0 < opened < 8.5
    after_close = (t > 6.1) & (t < opened)
    assert np.all(v[after_close] == 0.0)  # closed valves hold until the relief opens
    assert f[t == opened][0] == pytest.approx(-summary["rod_relief_force_N"], rel=1e-9)
    assert theta[-1] < theta[t == opened][0] - math.radians(5)  # the arm dropped
    assert summary["max_stretch_m"] < 0.03
    assert summary["max_abs_force_N"] <= summary["rod_relief_force_N"] * (1 + 1e-9)


def test_gamma_map_writes_fig3_panels(tmp_path):
    result = runner.invoke(app, ["run", "gamma-map", "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.glob("gamma_*.png")) == [f"gamma_{c}.png" for c in "abcd"]
    df, _ = read_table(tmp_path / "results.parquet")
    at_zero = df[df["v"] == 0.0]
    assert np.all(at_zero["f_low"] <= at_zero["f_high"])


def test_scenarios_and_show(tmp_path):
    listing = runner.invoke(app, ["scenarios"])
    assert listing.exit_code == 0 and "arm-relief" in listing.output and "gamma-map" in listing.output
    shown = runner.invoke(app, ["show", "arm-relief"])
    assert shown.exit_code == 0 and 'pump_relief_pressure = "36 MPa"' in shown.output
    path = tmp_path / "resolved.toml"
    path.write_text(shown.output)
    assert load_scenario(path) == load_scenario("arm-relief")


def _arm_file(tmp_path, replace=None, append=""):
    text = runner.invoke(app, ["show", "arm-relief"]).output
    for old, new in (replace or {}).items():
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "bad.toml"
    path.write_text(text + append)
    return path


BAD_INPUTS = {
    "malformed TOML": ({"[circuit]": "[circuit"}, "", "line"),
    "unknown field": ({'mass = "2000 kg"': 'masss = "2000 kg"'}, "", "arm.masss"),
    "wrong unit": ({'pump_relief_pressure = "36 MPa"': 'pump_relief_pressure = "36 m"'}, "", "pump_relief_pressure"),
    "opening of 1.5": ({"bleed = 0.3": "bleed = 1.5"}, "", "inputs.bleed"),
    "negative area": ({'head_area = "0.024 m^2"': 'head_area = "-0.024 m^2"'}, "", "head_area"),
    "unstable step": ({'stiffness = "5e7 N/m"': 'stiffness = "1e12 N/m"'}, "", "stiffness"),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_gives_a_short_error_and_non_zero_exit(tmp_path, case):
    replace, append, field = BAD_INPUTS[case]
    path = _arm_file(tmp_path, replace, append)
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert field in message and message.startswith("error:")
    assert len(message.splitlines()) <= 2
    assert isinstance(result.exception, SystemExit)  # a clean exit, not an escaped exception
    assert not (tmp_path / "out" / "report.html").exists()


def test_unknown_scenario_lists_the_builtins(tmp_path):
    result = runner.invoke(app, ["run", "arm-releif", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "arm-relief" in result.stderr


def test_real_process_prints_no_traceback(tmp_path):
    """The installed command, not the in-process runner: exit status 2 and a two-line message at most."""
    path = _arm_file(tmp_path, {'pump_relief_pressure = "36 MPa"': 'pump_relief_pressure = "36 m"'})
    exe = Path(sys.executable).with_name("actuatorlab")
    proc = subprocess.run([str(exe), "run", str(path), "--quiet"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 2
    assert "expected a pressure" in proc.stderr


def test_an_unwritable_output_folder_is_one_line(tmp_path):
    """Issue 17: `run --out /dev/null/x` ended in a NotADirectoryError traceback."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = runner.invoke(app, ["run", "arm-relief", "--out", str(blocker / "x"), "--quiet"])
    assert result.exit_code == 2, result.output
    assert f"{blocker} is a file, not a folder; choose a folder you can write" in result.output
    assert "Traceback" not in result.output


def test_a_run_replaces_an_earlier_result_whole_and_a_failed_run_leaves_nothing(tmp_path):
    """Issue 17: a run into another scenario's folder kept the old PNGs; a failed run left an
    empty folder."""
    out = tmp_path / "out"
    assert runner.invoke(app, ["run", "gamma-map", "--out", str(out), "--quiet"]).exit_code == 0
    assert runner.invoke(app, ["run", "arm-relief", "--out", str(out), "--quiet"]).exit_code == 0
    assert not list(out.glob("gamma_*.png")) and (out / "response.png").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    text = runner.invoke(app, ["show", "arm-relief"]).output.replace('gravity = "9.81 m/s^2"', "gravity = 1e30")
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    failed = tmp_path / "failed"
    result = runner.invoke(app, ["run", str(bad), "--out", str(failed), "--quiet"])
    assert result.exit_code == 2 and result.output.startswith("error:"), result.output
    assert not failed.exists()
    result = runner.invoke(app, ["run", str(bad), "--out", str(out), "--quiet"])
    assert result.exit_code == 2 and (out / "response.png").exists()  # the earlier result is kept


def test_compiling_a_kernel_is_announced_once(monkeypatch):
    """A kernel that is not in numba's cache is compiled inside ``run``: the simulation reports
    it (``reporting_compiles``, once however many kernels compile), the run's progress prints it
    once; a kernel already compiled says nothing."""
    import io

    import numba as nb
    from rich.console import Console

    import actuatorlab.cli as cli
    from actuatorlab.numerics.kernel_loading import COMPILING, reporting_compiles

    said = io.StringIO()
    monkeypatch.setattr(cli, "err", Console(file=said, width=200))
    progress = cli.DelayedProgress(enabled=True)

    @nb.njit
    def twice(x):
        return 2.0 * x

    @nb.njit
    def thrice(x):
        return 3.0 * x

    with reporting_compiles(lambda: progress(COMPILING, 0.0)):
        twice(1.0), thrice(1.0)
    assert said.getvalue().count("compiling kernels, once per machine") == 1
    with reporting_compiles(lambda: progress(COMPILING, 0.0)):
        twice(2.0)
    progress(COMPILING, 0.0)  # a second report (another process compiling) is not printed again
    assert said.getvalue().count("compiling kernels") == 1
    cli.DelayedProgress(enabled=False)(COMPILING, 0.0)  # --quiet
    assert said.getvalue().count("compiling kernels") == 1


def _commands(command=None, path=()):
    """(path, click command) of every command of the CLI, groups included."""
    import typer

    command = command or typer.main.get_command(app)
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def test_every_help_text_is_printed_as_written():
    """Issue 28: help texts lost "[log]" and "[default: ...]" to rich markup, leaving " ."."""
    seen = 0
    for path, command in _commands():
        result = runner.invoke(app, [*path, "--help"], terminal_width=100)
        assert result.exit_code == 0, (path, result.output)
        text = " ".join(result.output.split())
        assert " ." not in text and " ," not in text, (path, text)
        for param in command.params:
            for fragment in re.findall(r"\[[^\]]*\]", getattr(param, "help", None) or ""):
                assert " ".join(fragment.split()) in text, (path, param.name, fragment)
                seen += 1
    assert seen >= 10
    known = runner.invoke(app, ["identify", "hydraulic-robot", "--help"], terminal_width=100).output
    assert "[log] layout" in " ".join(known.split())


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["identify", "hydraulic-robot", "log.csv", "--known", "known.toml", "--bootstrap", "-5"],
            "--bootstrap -5: give the number of bootstrap re-identifications, 0 or more",
        ),
        (
            ["identify", "hydraulic-robot", "log.csv", "--known", "known.toml", "--seed", "-2"],
            "--seed -2: give a seed >= 0",
        ),
        (
            ["sweep", "arm-relief", "--samples", "2", "--vary", "arm.mass=uniform(1, 2)", "--seed", "-1"],
            "--seed -1: give a seed >= 0",
        ),
        (
            ["sensitivity", "arm-relief", "--samples", "4", "--vary", "arm.mass=uniform(1, 2)", "--seed", "-1"],
            "--seed -1: give a seed >= 0",
        ),
    ],
)
def test_negative_counts_and_seeds_are_refused_in_one_line(tmp_path, monkeypatch, args, message):
    """Issue 28: --bootstrap -5 was accepted (as no bootstrap); a negative --seed ended in numpy's traceback."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "known.toml").write_text("")
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    said = result.output.strip()  # a sweep's progress bar leaves an empty line above
    assert said.startswith(f"error: {message}") and len(said.splitlines()) == 1, result.output
    assert not (tmp_path / "out").exists()


def test_a_negative_bootstrap_seed_in_the_known_file_is_refused():
    from actuatorlab.scenarios.robot_identification import parse_known

    with pytest.raises(ScenarioError, match=r"known.toml: uncertainty.seed: -3: give a seed >= 0"):
        parse_known("[uncertainty]\nseed = -3\n", "known.toml")
    assert parse_known("", "known.toml").uncertainty.seed is None  # derived from the logs
    assert parse_known("[uncertainty]\nseed = 3\n", "known.toml").uncertainty.seed == 3


def test_version_is_printed():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"actuatorlab {actuatorlab.__version__}"

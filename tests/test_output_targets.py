"""Where commands write (issue 28, data loss): never over the user's files unasked, never outside
the output folder by a scenario's name, and no leftovers from killed or failed writes."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

import actuatorlab
from actuatorlab.cli import app
from actuatorlab.errors import ScenarioError
from actuatorlab.fmu import ExportError
from actuatorlab.io import atomic
from actuatorlab.io.output_target import RUN_MANIFEST, OutputTaken
from actuatorlab.scenarios.loading import parse_scenario
from actuatorlab.scenarios.kinds import KINDS
from actuatorlab.scenarios.sources import _builtin_files

runner = CliRunner()
BAD_NAMES = ("", " ", ".", "..", "../../x", "/tmp/x", "a/b", "a\\b", "a\nb", "a\0b")


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> Path:
    """gamma-map without plots, as a scenario file (a run of a second or less)."""
    path = tmp_path_factory.mktemp("scenario") / "quick.toml"
    text = runner.invoke(app, ["show", "gamma-map"]).output
    path.write_text(text.replace("plots = true", "plots = false"), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def result():
    return actuatorlab.load("gamma-map").set("outputs.plots", False).run()


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    message = result.output.strip()
    assert message.startswith("error:") and len(message.splitlines()) == 1 and "Traceback" not in message, message
    return message


def test_a_run_refuses_a_folder_of_the_users_and_with_overwrite_writes_beside_its_files(quick, tmp_path):
    """Issue 28: `run --out DIR` replaced DIR whole; the user's thesis.tex was gone, exit 0."""
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "thesis.tex").write_text("my thesis")
    (out / "figures").mkdir()
    message = _one_line_error(runner.invoke(app, ["run", str(quick), "--out", str(out), "--quiet"]))
    assert f"--out {out}: holds figures/, thesis.tex" in message and "--overwrite" in message, message
    assert _tree(out) == {"thesis.tex": b"my thesis"} and (out / "figures").is_dir()
    result = runner.invoke(app, ["run", str(quick), "--out", str(out), "--quiet", "--overwrite"])
    assert result.exit_code == 0, result.output
    assert (out / "thesis.tex").read_text() == "my thesis" and (out / "figures").is_dir()
    assert (out / "results.parquet").exists() and (out / "report.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thesis"]  # no temporary folder left


def test_overwrite_replaces_the_earlier_runs_files_and_keeps_the_users(quick, tmp_path):
    out = tmp_path / "shared"
    assert runner.invoke(app, ["run", "arm-relief", "--out", str(out), "--quiet"]).exit_code == 0
    (out / "notes.txt").write_text("mine")
    (out / "response.png").write_bytes(b"the user's own")  # same name as a file of the arm's run
    _one_line_error(runner.invoke(app, ["run", str(quick), "--out", str(out), "--quiet"]))
    assert runner.invoke(app, ["run", str(quick), "--out", str(out), "--quiet", "--overwrite"]).exit_code == 0
    assert (out / "notes.txt").read_text() == "mine"
    assert not (out / "inputs.png").exists() and not (out / "relief.png").exists()  # the arm run's, not rewritten
    assert not (out / "response.png").exists()  # listed by the arm run: replaced by it, so its own
    assert tomllib.loads((out / "scenario.toml").read_text())["kind"] == "gamma-map"
    assert runner.invoke(app, ["run", str(quick), "--out", str(out), "--quiet"]).exit_code == 2  # notes.txt


def test_a_run_replaces_its_own_earlier_result_and_an_empty_folder(quick, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for _ in range(2):
        assert runner.invoke(app, ["run", str(quick), "--out", str(empty), "--quiet"]).exit_code == 0
    assert RUN_MANIFEST in os.listdir(empty) and "results.parquet" in os.listdir(empty)


def test_a_run_folder_written_before_manifests_is_recognised_by_its_files(quick, tmp_path):
    """A folder of an earlier version's run (no manifest: the report, scenario, summary, tables and
    the figures the report names) is replaced as a run's; with a file of the user's it is refused."""
    out = tmp_path / "old"
    assert runner.invoke(app, ["run", "arm-relief", "--out", str(out), "--quiet"]).exit_code == 0
    (out / RUN_MANIFEST).unlink()
    (out / "thesis.png").write_bytes(b"mine")  # a figure the report does not name
    message = _one_line_error(runner.invoke(app, ["run", str(quick), "--out", str(out), "--quiet"]))
    assert "holds thesis.png" in message, message
    (out / "thesis.png").unlink()
    assert runner.invoke(app, ["run", str(quick), "--out", str(out), "--quiet"]).exit_code == 0
    assert not (out / "response.png").exists()  # the earlier run's figure went with it
    assert tomllib.loads((out / "scenario.toml").read_text())["kind"] == "gamma-map"


def test_save_refuses_in_python_words_and_overwrite_keeps_the_users_files(result, tmp_path):
    (tmp_path / "data.csv").write_text("1,2")
    with pytest.raises(OutputTaken) as refused:
        result.save(tmp_path)
    message = str(refused.value)
    assert isinstance(refused.value, ScenarioError) and "data.csv" in message and "overwrite=True" in message
    assert "--" not in message, message
    assert os.listdir(tmp_path) == ["data.csv"]
    files = result.save(tmp_path, overwrite=True)
    assert (tmp_path / "data.csv").read_text() == "1,2" and all((tmp_path / f).exists() for f in files)
    with pytest.raises(ScenarioError, match="is a file, not a folder"):
        result.save(tmp_path / "data.csv", overwrite=True)
    assert (tmp_path / "data.csv").read_text() == "1,2"


def test_out_dot_writes_into_the_working_folder_and_leaves_nothing_beside_it(quick, tmp_path, monkeypatch):
    """Issue 28: `--out .` failed (the working folder cannot be moved aside) and left an empty `.*.old`."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    for _ in range(2):
        result = runner.invoke(app, ["run", str(quick), "--out", ".", "--quiet"])
        assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["here"]
    assert not [n for n in os.listdir(here) if n.endswith((".old", ".tmp"))]
    assert (here / "results.parquet").exists()


def test_a_target_that_cannot_be_moved_aside_is_kept_and_leaves_no_old_folder(result, tmp_path, monkeypatch):
    """Issue 28: an undeletable target left an empty `.*.old` beside it."""
    out = tmp_path / "busy"
    result.save(out)
    before = _tree(out)
    real = os.replace

    def busy(src, dst):
        if Path(src) == out:
            raise OSError(errno.EBUSY, "Device or resource busy")
        return real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", busy)
    with pytest.raises(ScenarioError, match="cannot write the results into .*busy"):
        result.save(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["busy"] and _tree(out) == before


def test_the_temporary_folder_of_a_killed_writer_is_removed_by_the_next_write(tmp_path):
    """Issue 28: `kill -9` during the write left a hidden `.NAME-*.tmp` that no later run cleaned."""
    target = tmp_path / "run"
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from actuatorlab.io.atomic import atomic_directory\n"
            f"with atomic_directory({str(target)!r}) as work:\n"
            "    (work / 'half.parquet').write_text('x'); print('writing', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert writer.stdout.readline().strip() == "writing"
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    [left] = [p.name for p in tmp_path.iterdir()]
    assert left.startswith(f".run-{writer.pid}-") and left.endswith(".tmp")
    live = tmp_path / f".other-{os.getppid()}-abcdefgh.tmp"  # a live process's write in progress
    live.mkdir()
    with atomic.atomic_directory(tmp_path / "next") as work:
        (work / "a.txt").write_text("a")
    assert sorted(p.name for p in tmp_path.iterdir()) == [live.name, "next"]


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_every_kind_refuses_a_name_that_is_not_a_plain_name(bad):
    """Issue 28: name = "" or "." made runs/ itself the result; "../../x" or an absolute name wrote
    outside the working folder. Checked in the schema, so every kind and command refuses it."""
    kinds = set()
    for builtin, entry in sorted(_builtin_files().items()):
        doc = tomllib.loads(entry.read_text(encoding="utf-8"))
        doc["name"] = bad
        with pytest.raises(ScenarioError, match=r"name: .* is not a plain name") as refused:
            parse_scenario(doc, builtin)
        assert "\n" not in str(refused.value)
        kinds.add(doc["kind"])
    assert kinds == set(KINDS)


def test_an_experiment_name_is_a_plain_name_too():
    """The identification's experiment names become logs/NAME.parquet."""
    with pytest.raises(ScenarioError, match=r"experiments\[0\]\.name: '\.\./x' is not a plain name"):
        actuatorlab.load("identify-2dof").set("experiments", [{"name": "../x", "angles": [0, 0], "driven": [1]}])


@pytest.mark.parametrize(
    "command", [["run", "{file}"], ["sweep", "{file}", "--grid", "points=11,21"], ["export", "fmu", "{file}"]]
)
def test_no_command_writes_by_a_name_outside_its_folder(quick, tmp_path, monkeypatch, command):
    work = tmp_path / "work" / "deeper"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    for bad in ("../../escaped", "", "."):
        text = quick.read_text().replace('name = "gamma-map"', f"name = {bad!r}".replace("'", '"'))
        scenario = work / "bad.toml"
        scenario.write_text(text)
        result = runner.invoke(app, [part.format(file=scenario) for part in command])
        assert "is not a plain name" in _one_line_error(result)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["bad.toml", "deeper", "work"]


def test_a_sweep_or_sensitivity_refuses_a_folder_of_the_users(tmp_path):
    short = actuatorlab.load("arm-relief").set("simulation.duration", "0.2 s")
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(OutputTaken, match=r"holds keep\.txt, which a sweep did not write.*overwrite=True"):
        actuatorlab.sweep(short, grid={"inputs.bleed": [0.2, 0.4]}, workers=1, out=tmp_path)
    with pytest.raises(OutputTaken, match=r"holds keep\.txt"):
        actuatorlab.sensitivity(short, {"inputs.bleed": "uniform(0.1, 0.5)"}, samples=4, workers=1, out=tmp_path)
    assert os.listdir(tmp_path) == ["keep.txt"]
    result = runner.invoke(app, ["sweep", "arm-relief", "--grid", "inputs.bleed=0.2", "--out", str(tmp_path)])
    assert "add --overwrite" in _one_line_error(result)
    swept = actuatorlab.sweep(short, grid={"inputs.bleed": [0.2, 0.4]}, workers=1, out=tmp_path, overwrite=True)
    assert list(swept.index["status"]) == ["ok", "ok"] and (tmp_path / "keep.txt").read_text() == "mine"
    resumed = actuatorlab.sweep(short, grid={"inputs.bleed": [0.2, 0.4]}, workers=1, out=tmp_path, resume=True)
    assert resumed.skipped == 2  # its own folder now: resumed as before


def test_export_fmu_refuses_to_replace_a_file_that_is_not_an_fmu(tmp_path, monkeypatch):
    notes = tmp_path / "notes.fmu"
    notes.write_text("my notes")
    with pytest.raises(OutputTaken, match="not an FMU archive .*overwrite=True"):
        actuatorlab.export_fmu("arm-relief", notes)
    message = _one_line_error(runner.invoke(app, ["export", "fmu", "arm-relief", "--out", str(notes)]))
    assert "not an FMU archive" in message and "add --overwrite" in message
    assert notes.read_text() == "my notes"
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))  # past the check, the export would build
    with pytest.raises(ExportError, match="no C compiler"):
        actuatorlab.export_fmu("arm-relief", notes, overwrite=True)
    earlier = tmp_path / "earlier.fmu"
    with zipfile.ZipFile(earlier, "w") as archive:
        archive.writestr("modelDescription.xml", "<fmiModelDescription/>")
    with pytest.raises(ExportError, match="no C compiler"):  # an FMU is replaced unasked
        actuatorlab.export_fmu("arm-relief", earlier)

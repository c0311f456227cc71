"""Fuzz: ``actuatorlab export fmu`` with hostile scenario names and descriptions, bad ``--out``
paths and file size limits (issue 28).

Every case either writes an FMU that FMPy reads, whose documentation page runs no script, or
exits 2 with one line starting "error:" and leaves nothing behind; never a traceback. Each FMU
written costs a compilation, so the examples are few.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fmpy")

from hypothesis import HealthCheck, Phase, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import actuatorlab  # noqa: E402
from actuatorlab.cli import app  # noqa: E402
from actuatorlab.fmu.export import export_scenario  # noqa: E402
from fmu_checks import assert_one_line_refusal, assert_valid_hostile_fmu, export_limited  # noqa: E402

runner = CliRunner()
SLOW = settings(
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),  # a shrink would take minutes
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
HOSTILE_PIECES = (
    "<script>alert(1)</script>",
    "</title>",
    "]]>",
    "&amp;",
    "&",
    '"',
    "'",
    "<!--",
    "\x00",
    "\x1b[31m",
    "\ufffe",
    "\n",
    "\t",
)
FOLDERS = (
    "{tmp}",
    "{tmp}",
    "{tmp}/missing",
    "{tmp}/plain",
    "{tmp}/plain/sub",
    "{tmp}/box.fmu",
    "/dev/null",
    "/proc",
    "/sys",
)
"""Where --out points: a folder, one that is missing, a file, a file's missing child, a folder
named like an FMU, a character device, file systems that take no files."""
FILE_NAMES = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/"), max_size=300)
"""A file name (a long one is refused by the system); control characters are left out, a name
with a line break would not be one line."""


def hostile_text(max_size: int):
    return st.lists(st.one_of(st.sampled_from(HOSTILE_PIECES), st.text(max_size=10)), max_size=max_size).map("".join)


@settings(SLOW, max_examples=4)
@given(name=hostile_text(6), description=hostile_text(10), fmi=st.sampled_from(("3", "2")))
def test_hostile_names_and_descriptions_give_a_valid_fmu(name, description, fmi, tmp_path_factory):
    scenario = actuatorlab.load("arm-relief").set("description", description)
    path = export_scenario(scenario.spec, name, tmp_path_factory.mktemp("fuzz-fmu") / "x.fmu", fmi=fmi)
    assert_valid_hostile_fmu(path, name, description)


@settings(SLOW, max_examples=10)
@given(folder=st.sampled_from(FOLDERS), stem=FILE_NAMES, suffix=st.sampled_from((".fmu", ".fmu", ".zip", "", ".FMU")))
@example(folder="{tmp}", stem="a" * 300, suffix=".fmu")  # longer than a file name may be
def test_bad_out_paths_never_end_in_a_traceback(folder, stem, suffix, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz-out")
    (tmp / "plain").write_text("x")
    (tmp / "box.fmu").mkdir()
    out = f"{folder.format(tmp=tmp)}/{stem}{suffix}"
    result = runner.invoke(app, ["export", "fmu", "arm-relief", "--out", out])
    if result.exit_code == 0:
        assert_valid_hostile_fmu(Path(out), "arm-relief", actuatorlab.load("arm-relief").spec.description)
        Path(out).unlink()
    else:
        lines = result.output.strip().splitlines()
        assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error:"), (
            out,
            result.output,
            result.exception,
        )
    assert sorted(p.name for p in tmp.iterdir()) == ["box.fmu", "plain"] and not any((tmp / "box.fmu").iterdir())


@settings(SLOW, max_examples=4)
@given(limit=st.integers(0, 120_000))
def test_any_file_size_limit_writes_a_valid_fmu_or_one_line(limit, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz-limit")
    out, tmpdir = tmp / "out", tmp / "tmp"
    out.mkdir()
    tmpdir.mkdir()
    done = export_limited(limit, out / "arm.fmu", tmpdir)
    if done.returncode == 0:
        assert_valid_hostile_fmu(out / "arm.fmu", "arm-relief", actuatorlab.load("arm-relief").spec.description)
        assert list(tmpdir.iterdir()) == []
    else:
        assert_one_line_refusal(done, out, tmpdir)

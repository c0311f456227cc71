"""Fuzz: scenario files drawn by mutating the built-in ones, run through ``actuatorlab run`` in-process;
and output targets drawn among bad names, files, folders of the user's, ".", nested new folders
and folders that cannot be moved aside (issue 28).

Every case either succeeds with finite, physical outputs or exits 2 with one short message and
leaves no output folder; never a traceback (issue 17). The mutations: a value replaced by a wrong
unit, a negative, zero, NaN, inf or huge number, text, a list or a boolean; a key or table
deleted; an unknown key added; two values swapped; the file truncated.

Sweeps' state (issue 28): a finished sweep with one of its files damaged (truncated, emptied,
overwritten with random bytes or JSON of another shape, deleted) is resumed: every variant in the
index once, as before, or a one-line refusal that leaves a damaged ``sweep.json`` as it is; and
a sweep under a drawn file-size limit (a full disk) ends in one line or succeeds, and ``--resume``
then finishes it.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import json
import math
import shutil
import tomllib
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import tomli_w
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from actuatorlab.cli import app
from clean_refusal import assert_clean_refusal
from actuatorlab.io import atomic
from actuatorlab.io.output_target import RUN_MANIFEST
from actuatorlab.io.results import read_table
from file_limit import one_error_line, run_with_file_limit

runner = CliRunner()
FAST_SCENARIOS = ("arm-relief", "two-arms-one-pump", "gamma-map", "regeneration-map", "arm-regeneration")
BAD_VALUES = (
    -1.0,
    0.0,
    math.nan,
    math.inf,
    1e30,
    -1e30,
    "3 kg",
    "abc",
    "-5 MPa",
    "0 s",
    "1e9 m",
    True,
    [1, 2],
    "nan m",
    "",
)
PRESSURE_OVERSHOOT = 1.05
"""Pressures may exceed the largest relief setting by this factor (pressure-dynamics relief gains)."""


def _resolved(name: str) -> str:
    result = runner.invoke(app, ["show", name])
    assert result.exit_code == 0, result.output
    return result.output


RESOLVED = {}


def _leaves(doc, prefix=()):
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _leaves(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from _leaves(value, (*prefix, i))
    else:
        yield prefix


def _parent(doc, path):
    for key in path[:-1]:
        doc = doc[key]
    return doc


@st.composite
def mutated_files(draw):
    name = draw(st.sampled_from(FAST_SCENARIOS))
    if name not in RESOLVED:
        RESOLVED[name] = _resolved(name)
    text = RESOLVED[name]
    if draw(st.integers(0, 9)) == 0:
        return name, ["truncated"], text[: draw(st.integers(0, len(text)))]
    doc = tomllib.loads(text)
    ops = []
    for _ in range(draw(st.integers(1, 2))):
        paths = [p for p in _leaves(doc) if p[0] != "kind"]
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(("value", "value", "value", "delete", "extra", "swap")))
        if op == "value":
            value = copy.deepcopy(draw(st.sampled_from(BAD_VALUES)))  # never share the list [1, 2]
            _parent(doc, path)[path[-1]] = value
        elif op == "delete":
            cut = path[: draw(st.integers(1, len(path)))]
            while cut and isinstance(cut[-1], int):
                cut = cut[:-1]
            if cut:
                del _parent(doc, cut)[cut[-1]]
        elif op == "extra" and not isinstance(path[-1], int):
            _parent(doc, path)["unknown_key"] = 1.0
        elif op == "swap":
            other = draw(st.sampled_from(paths))
            a, b = _parent(doc, path), _parent(doc, other)
            a[path[-1]], b[other[-1]] = b[other[-1]], a[path[-1]]
        ops.append(f"{op} {'.'.join(map(str, path))}")
    doc.setdefault("outputs", {})["plots"] = False
    return name, ops, tomli_w.dumps(doc)


def _check_physical(out, text):
    table, units = read_table(out / "results.parquet")
    numeric = table.select_dtypes("number")
    assert np.isfinite(numeric.to_numpy()).all(), "non-finite output"
    doc = tomllib.loads(text)
    from actuatorlab.scenarios.loading import parse_scenario  # the resolved file's reliefs, SI

    scenario = parse_scenario(doc, "fuzz")
    circuit = getattr(scenario, "circuit", None)
    if circuit is None:
        return
    ceiling = max(circuit.head_relief_pressure, circuit.rod_relief_pressure, circuit.pump_relief_pressure)
    for column, unit in units.items():
        if unit.startswith("Pa"):
            values = table[column].to_numpy()
            assert values.min() >= -101_325.0 * 1.0001, f"{column} below vacuum"
            assert values.max() <= ceiling * PRESSURE_OVERSHOOT, f"{column} above the reliefs"


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(case=mutated_files())
def test_mutated_scenario_files_never_end_in_a_traceback(case, tmp_path_factory):
    name, ops, text = case
    folder = tmp_path_factory.mktemp("fuzz")
    path, out = folder / "case.toml", folder / "out"
    path.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"])
    where = f"{name} with {ops}"
    if result.exit_code == 0:
        _check_physical(out, (out / "scenario.toml").read_text(encoding="utf-8"))
    else:
        assert_clean_refusal(result, out, where)


# ---------------------------------------------------------------------------------------------
# Issue 28: inputs that ended in a traceback


def _arm_text(append: str = "", replace: tuple[str, str] | None = None) -> str:
    text = _resolved("arm-relief")
    if replace is not None:
        assert replace[0] in text
        text = text.replace(*replace)
    return text + append


def _nested_sums_as_tables(levels: int) -> str:
    """``[inputs.valve_command]`` as ``levels`` sums each holding the next (headers: no inline nesting)."""
    text, key = "", "inputs.valve_command"
    text += f'\n[{key}]\ntype = "sum"\n'
    for _ in range(levels - 1):
        key += ".terms"
        text += f'\n[[{key}]]\ntype = "sum"\n'
    return text + f'\n[[{key}.terms]]\ntype = "constant"\nvalue = 0.0\n'


def _show_file(tmp_path, text: str | bytes):
    path = tmp_path / "case.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return runner.invoke(app, ["show", str(path)])


def _without_valve_command(text: str) -> str:
    start = text.index("[inputs.valve_command]")
    end = text.index("[inputs.external_force]")
    return text[:start] + text[end:]


def test_signals_nest_at_most_32_sums_and_such_a_file_round_trips(tmp_path):
    text = _without_valve_command(_arm_text()) + _nested_sums_as_tables(32)
    shown = _show_file(tmp_path, text)
    assert shown.exit_code == 0, shown.output
    again = _show_file(tmp_path, shown.output)
    assert again.exit_code == 0 and again.output == shown.output


def test_150_nested_sums_are_refused_before_they_are_read_or_written(tmp_path):
    """Issue 28: 150 nested sums ended in a RecursionError writing the resolved TOML."""
    text = _without_valve_command(_arm_text()) + _nested_sums_as_tables(150)
    result = _show_file(tmp_path, text)
    assert_clean_refusal(result, tmp_path / "out", "150 sums")
    assert "inputs.valve_command: sums nest more than 32 levels deep" in result.output


def test_500_nested_inline_sums_are_refused_before_the_toml_parser_recurses(tmp_path):
    """Issue 28: 500 nested sums written inline ended in a RecursionError reading the file."""
    inline = '{type = "sum", terms = [' * 500 + "0.1" + "]}" * 500
    text = _without_valve_command(_arm_text()).replace("[inputs]\n", f"[inputs]\nvalve_command = {inline}\n")
    result = _show_file(tmp_path, text)
    assert_clean_refusal(result, tmp_path / "out", "500 inline sums")
    line = text[: text.index("valve_command = {")].count("\n") + 1
    assert f"case.toml: line {line}: [ and {{ nest more than 80 deep" in result.output


def test_the_api_refuses_nested_sums_built_in_python():
    import pytest

    from actuatorlab.errors import ParameterError
    from actuatorlab.numerics.signals import MAX_SUM_DEPTH, Constant, Sum

    signal = Constant(1.0)
    for _ in range(MAX_SUM_DEPTH):
        signal = Sum((signal, Constant(0.5)))
    assert signal.depth == MAX_SUM_DEPTH and signal.sample(np.zeros(1))[0] == 1.0 + 0.5 * MAX_SUM_DEPTH
    with pytest.raises(ParameterError, match="nests 33 levels of sums, more than 32"):
        Sum((signal,))


@given(text=st.text(st.sampled_from("[]{}\"'#\\\n ab=,"), max_size=60))
def test_the_nesting_scan_agrees_with_the_toml_parser_on_arrays(text):
    """The scan counts brackets outside strings and comments: where the parser reads the text as
    an array of that text, the deepest nesting it builds is the scan's less one."""
    from actuatorlab.scenarios.toml_text import nesting

    try:
        value = tomllib.loads(f"x = [{text}]")["x"]
    except tomllib.TOMLDecodeError:
        return

    def depth(v):
        if isinstance(v, list):
            return 1 + max(map(depth, v), default=0)
        if isinstance(v, dict):
            return 1 + max(map(depth, v.values()), default=0)
        return 0

    assert nesting(f"x = [{text}]")[0] == depth(value)


def test_a_quantity_that_overflows_is_refused_naming_the_field(tmp_path):
    """Issue 28: mass = "2000 kg**1000000000" ended in an OverflowError from pint."""
    for written, field in (
        ('"2000 kg**1000000000"', "arm.mass"),
        ('"1e308 t"', "arm.mass"),
        ("1" + "0" * 400, "arm.mass"),
    ):
        result = _show_file(tmp_path, _arm_text(replace=('mass = "2000 kg"', f"mass = {written}")))
        assert_clean_refusal(result, tmp_path / "out", written)
        assert f"{field}: " in result.output and "overflows" in result.output


def test_a_stroke_no_cylinder_of_its_retracted_length_has_is_refused(tmp_path):
    """Issue 28: a 50 m stroke on a 1 cm retracted length ran."""
    text = _arm_text(replace=('stroke = "0.8 m"', 'stroke = "50 m"')).replace(
        'retracted_length = "1 m"', 'retracted_length = "1 cm"'
    )
    result = _show_file(tmp_path, text)
    assert_clean_refusal(result, tmp_path / "out", "50 m stroke")
    assert "stroke = 50 m on retracted_length = 0.01 m: no cylinder fits" in result.output


def test_files_saved_with_a_bom_or_as_utf16_are_read(tmp_path):
    """Issue 28: a scenario file with a BOM, or saved as UTF-16, got "Invalid statement"."""
    text = _arm_text().replace("description = ", 'description = "Kolben–Stange" # ')
    plain = _show_file(tmp_path, text)
    assert plain.exit_code == 0, plain.output
    for encoding in ("utf-8-sig", "utf-16", "utf-16-be"):
        data = text.encode(encoding) if encoding != "utf-16-be" else b"\xfe\xff" + text.encode(encoding)
        result = _show_file(tmp_path, data)
        assert result.exit_code == 0 and result.output == plain.output, (encoding, result.output)


def test_files_in_other_encodings_are_refused_naming_the_one_to_save_as(tmp_path):
    text = _arm_text().replace("description = ", 'description = "Kolben–Stange" # ')
    for data, what in (
        (text.encode("utf-16-le"), "UTF-16 without a byte-order mark"),
        (text.replace("–", "é").encode("latin-1"), "not UTF-8"),
    ):
        result = _show_file(tmp_path, data)
        assert_clean_refusal(result, tmp_path / "out", what)
        assert f"case.toml: the file is {what}" in result.output and "save it as UTF-8" in result.output


SWEEPS = {  # a kind that runs one variant per call (variants/), and a batched one (batches/, series/)
    "records": ["arm-relief", "--grid", "simulation.duration=0.3 s", "--grid", "inputs.bleed=0.2,0.3,0.4"],
    "batched": ["arm-relief", "--samples", "6", "--vary", "arm.mass=uniform(1800 kg, 2200 kg)", "--keep-series", "2"],
}
FINISHED = {}
"""Layout → (folder of its finished sweep, its index): swept once, copied for each case."""
MACHINE = ("wall_time_s", "loop_time_s", "real_time_factor")


def _sweep_args(layout: str, out) -> list[str]:
    return ["sweep", *SWEEPS[layout], "--workers", "2", "--out", str(out), "--quiet"]


def _finished(layout: str, tmp_path_factory):
    if layout not in FINISHED:
        out = tmp_path_factory.mktemp("finished") / layout
        result = runner.invoke(app, _sweep_args(layout, out))
        assert result.exit_code == 0, result.output
        FINISHED[layout] = out, pd.read_parquet(out / "index.parquet")
    return FINISHED[layout]


def _same_index(out, reference) -> None:
    """``out``'s index holds every variant once, with the reference's values and key figures."""
    index = pd.read_parquet(out / "index.parquet")
    columns = [c for c in reference.columns if c not in MACHINE]
    pd.testing.assert_frame_equal(index[columns], reference[columns], check_exact=True)


DAMAGES = {
    "truncated": lambda data, draw: data[: draw(st.integers(0, max(len(data) - 1, 0)))],
    "empty": lambda data, draw: b"",
    "random bytes": lambda data, draw: draw(st.binary(min_size=1, max_size=64)),
    "other JSON": lambda data, draw: draw(st.sampled_from([b"[]", b"null", b"3", b'"sweep"', b"{}"])),
    "deleted": lambda data, draw: None,
}


NO_SHRINKING = (Phase.explicit, Phase.reuse, Phase.generate)
"""Each case is a sweep: a failure is reported as drawn, not shrunk for minutes."""


@settings(
    max_examples=30,
    deadline=None,
    phases=NO_SHRINKING,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_resuming_a_sweep_with_a_damaged_state_file_never_ends_in_a_traceback(data, tmp_path_factory):
    layout = data.draw(st.sampled_from(sorted(SWEEPS)), label="layout")
    finished, reference = _finished(layout, tmp_path_factory)
    out = tmp_path_factory.mktemp("damaged") / "s"
    shutil.copytree(finished, out)
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and p.suffix in (".json", ".parquet"))
    name = data.draw(st.sampled_from(files), label="file")
    how = data.draw(st.sampled_from(sorted(DAMAGES)), label="damage")
    damaged = DAMAGES[how]((out / name).read_bytes(), data.draw)
    if damaged is None:
        (out / name).unlink()
    else:
        (out / name).write_bytes(damaged)
    result = runner.invoke(app, [*_sweep_args(layout, out), "--resume"])
    if name == "sweep.json" and damaged is not None:  # a manifest that cannot be read is refused and kept
        assert result.exit_code == 2 and "sweep.json is damaged" in result.output, (result.output, result.exception)
        assert len(result.output.strip().splitlines()) == 1 and (out / name).read_bytes() == damaged
        return
    if name == "sweep.json":  # without its state file the folder is no sweep's: refused, nothing touched
        assert result.exit_code == 2 and "which a sweep did not write" in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1 and not (out / name).exists()
        return
    assert result.exit_code == 0, f"{layout}: {name} {how}: {result.output}\n{result.exception!r}"
    _same_index(out, reference)


@settings(
    max_examples=4,
    deadline=None,
    phases=NO_SHRINKING,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(layout=st.sampled_from(sorted(SWEEPS)), limit=st.integers(0, 60_000))
def test_a_sweep_on_a_full_disk_is_one_line_and_resume_finishes_it(layout, limit, tmp_path_factory):
    _, reference = _finished(layout, tmp_path_factory)
    out = tmp_path_factory.mktemp("full") / "s"
    full = run_with_file_limit(limit, *_sweep_args(layout, out))
    if full.returncode != 0:
        assert full.returncode == 2, full.stderr
        one_error_line(full.stderr)
    resumed = runner.invoke(app, [*_sweep_args(layout, out), "--resume"])
    assert resumed.exit_code == 0, f"{layout} under {limit} B: {full.stderr}\n{resumed.output}\n{resumed.exception!r}"
    _same_index(out, reference)


# Output paths and names (issue 28): drawn targets never lose a file of the user's

BAD_NAMES = ("", " ", ".", "..", "../x", "../../x", "<absolute>", "a/b", "a\\b", "x/..", "./x")
"""Scenario names drawn; "<absolute>" stands for an absolute path inside the test's folder."""
USER_FILES = ("thesis.tex", "results.parquet", "report.html", "data/raw.csv", ".hidden")
TARGETS = ("bad name", "nested", "dot", "a file", "user folder", "earlier run", "undeletable")


@st.composite
def output_targets(draw):
    target = draw(st.sampled_from(TARGETS))
    name = draw(st.sampled_from(BAD_NAMES)) if target == "bad name" else "quick"
    files = draw(st.lists(st.sampled_from(USER_FILES), max_size=3, unique=True))
    return target, name, files, draw(st.booleans())


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=output_targets())
def test_drawn_output_targets_keep_the_users_files_and_leave_no_leftovers(case, tmp_path_factory):
    target, name, user_files, overwrite = case
    folder = tmp_path_factory.mktemp("targets")
    work = folder / "work"
    if "quick" not in RESOLVED:
        RESOLVED["quick"] = _resolved("gamma-map").replace("plots = true", "plots = false")
    doc = tomllib.loads(RESOLVED["quick"])
    doc["name"] = str(folder / "elsewhere") if name == "<absolute>" else name
    scenario = folder / "scenario.toml"
    scenario.write_text(tomli_w.dumps(doc), encoding="utf-8")
    work.mkdir()
    out = {"nested": work / "a" / "b", "dot": work, "bad name": work, "a file": work / "a-file"}.get(
        target, work / "out"
    )
    if target == "a file":
        out.write_text("the user's file")
    elif target == "user folder":
        out.mkdir()
    elif target in ("earlier run", "undeletable"):
        assert runner.invoke(app, ["run", str(scenario), "--out", str(out), "--quiet"]).exit_code == 0
    for user_file in user_files if out.is_dir() else ():
        (out / user_file).parent.mkdir(parents=True, exist_ok=True)
        (out / user_file).write_text(f"the user's {user_file}")
    before = _files(folder)
    earlier = set(json.loads((out / RUN_MANIFEST).read_text())["files"]) if (out / RUN_MANIFEST).exists() else set()
    shared = out.is_dir() and any(f.split("/")[0] not in earlier for f in user_files)  # written only with --overwrite
    args = ["run", str(scenario), "--quiet", *(["--overwrite"] if overwrite else [])]
    args += [] if target == "bad name" else ["--out", "." if target == "dot" else str(out)]
    real_replace = atomic.os.replace

    def busy(src, dst):
        if target == "undeletable" and Path(src) == out:
            raise OSError(errno.EBUSY, "Device or resource busy")
        return real_replace(src, dst)

    with contextlib.chdir(work), mock.patch.object(atomic.os, "replace", busy):
        result = runner.invoke(app, args)
    where = f"{case}"
    after = _files(folder)
    assert not [p for p in folder.rglob("*") if p.name.endswith((".tmp", ".old"))], where
    succeeds = (
        target not in ("bad name", "a file") and (overwrite or not shared) and (target != "undeletable" or shared)
    )  # a merge does not move the folder aside
    assert result.exit_code == (0 if succeeds else 2), f"{where}: {result.output}"
    if not succeeds:
        assert result.output.startswith("error:") and len(result.output.strip().splitlines()) == 1, where
        assert "Traceback" not in result.output and after == before, f"{where}: a refused run changed the files"
        return
    own = {*json.loads((out / RUN_MANIFEST).read_text())["files"], RUN_MANIFEST}
    changed = [
        path
        for path, data in before.items()
        if after.get(path) != data
        and not ((folder / path).is_relative_to(out) and (folder / path).relative_to(out).as_posix() in own)
    ]
    assert not changed, f"{where}: {changed} changed"

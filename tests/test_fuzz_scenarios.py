"""Fuzz: scenario files drawn by mutating the built-in ones, run through ``actuatorlab run`` in-process;
and output targets drawn among bad names, files, folders of the user's, ".", nested new folders
and folders that cannot be moved aside (issue 28).

Every case either succeeds with finite, physical outputs or exits 2 with one short message and
leaves no output folder; never a traceback (issue 17). The mutations: a value replaced by a wrong
unit, a negative, zero, NaN, inf or huge number, text, a list or a boolean; a key or table
deleted; an unknown key added; two values swapped; the file truncated.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import json
import math
import tomllib
from pathlib import Path
from unittest import mock

import numpy as np
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from actuatorlab.cli import app
from clean_refusal import assert_clean_refusal
from actuatorlab.io import atomic
from actuatorlab.io.output_target import RUN_MANIFEST
from actuatorlab.io.results import read_table

runner = CliRunner()
FAST_SCENARIOS = ("arm-relief", "two-arms-one-pump", "gamma-map", "regeneration-map", "arm-regeneration")
BAD_VALUES = (-1.0, 0.0, math.nan, math.inf, 1e30, -1e30, "3 kg", "abc", "-5 MPa", "0 s", "1e9 m", True, [1, 2],
              "nan m", "")
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


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
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
    out = {"nested": work / "a" / "b", "dot": work, "bad name": work, "a file": work / "a-file"}.get(target,
                                                                                                  work / "out")
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
    succeeds = (target not in ("bad name", "a file") and (overwrite or not shared)
                and (target != "undeletable" or shared))  # a merge does not move the folder aside
    assert result.exit_code == (0 if succeeds else 2), f"{where}: {result.output}"
    if not succeeds:
        assert result.output.startswith("error:") and len(result.output.strip().splitlines()) == 1, where
        assert "Traceback" not in result.output and after == before, f"{where}: a refused run changed the files"
        return
    own = {*json.loads((out / RUN_MANIFEST).read_text())["files"], RUN_MANIFEST}
    changed = [path for path, data in before.items() if after.get(path) != data
               and not ((folder / path).is_relative_to(out) and (folder / path).relative_to(out).as_posix() in own)]
    assert not changed, f"{where}: {changed} changed"

"""Fuzz: scenario files drawn by mutating the built-in ones, run through ``actuatorlab run`` in-process.

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

import copy
import math
import shutil
import tomllib

import numpy as np
import pandas as pd
import tomli_w
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from actuatorlab.cli import app
from clean_refusal import assert_clean_refusal
from actuatorlab.io.results import read_table
from file_limit import one_error_line, run_with_file_limit

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


@settings(max_examples=30, deadline=None, phases=NO_SHRINKING,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
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
    assert result.exit_code == 0, f"{layout}: {name} {how}: {result.output}\n{result.exception!r}"
    _same_index(out, reference)


@settings(max_examples=4, deadline=None, phases=NO_SHRINKING,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
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

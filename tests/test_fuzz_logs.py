"""Fuzz: log files of both identify commands, drawn by damaging a valid log, run in-process.

Every case either identifies (exit 0) or exits 2 with one short message naming what to change
and leaves no output folder; never a traceback (issue 17). The damage: an empty table, a column
dropped or renamed, a text, NaN, inf or huge cell, repeated or reversed time, rows cut, bytes
truncated or not UTF-8.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from actuatorlab.cli import app
from clean_refusal import assert_clean_refusal

runner = CliRunner()
SAMPLES = 400


def _transfer_function_log() -> pd.DataFrame:
    t = np.arange(SAMPLES) * 1e-3
    x = np.where(t > 0.05, 1.0, 0.0) + 0.2 * np.sin(2 * np.pi * 5.0 * t)
    y = np.cumsum(x) * 1e-3 * 2.0
    return pd.DataFrame({"t": t, "x": x, "y": y})


def _robot_log() -> pd.DataFrame:
    t = np.arange(SAMPLES) * 1e-3
    rng = np.random.default_rng(0)
    columns = {"t": t, "q1": 0.3 + 0.01 * np.sin(6 * t), "q2": np.full(SAMPLES, 0.2)}
    for name in ("p_plus", "p_minus"):
        columns.update({f"{name}{j}": 2e6 + 1e5 * rng.standard_normal(SAMPLES) for j in (1, 2)})
    columns.update({f"u{j}": np.sin(2 * np.pi * 3 * t + j) for j in (1, 2)})
    return pd.DataFrame(columns)


@st.composite
def damaged(draw, base: pd.DataFrame):
    df = base.copy()
    op = draw(st.sampled_from(("cell", "cell", "drop", "rename", "time", "cut", "empty", "bytes")))
    column = draw(st.sampled_from(list(df.columns)))
    if op == "cell":
        row = draw(st.integers(0, len(df) - 1))
        df = df.astype({column: object})
        df.loc[row, column] = draw(st.sampled_from(("abc", "", math.nan, math.inf, -1e308, "1,5", True)))
    elif op == "drop":
        df = df.drop(columns=[column])
    elif op == "rename":
        df = df.rename(columns={column: column.upper() + " [bar]"})
    elif op == "time":
        df["t"] = draw(st.sampled_from((np.zeros(len(df)), df["t"].to_numpy()[::-1], df["t"].to_numpy() * 1e-9)))
    elif op == "cut":
        df = df.iloc[: draw(st.integers(0, 30))]
    elif op == "empty":
        df = df.iloc[:0]
    text = df.to_csv(index=False).encode()
    if op == "bytes":
        text = text[: draw(st.integers(0, len(text)))] + draw(st.sampled_from((b"", b"\xff\xfe\x00", b"\n,,,\n")))
    return op, text


def _check(result, out, what):
    if result.exit_code == 0:
        assert (out / "report.html").exists(), what
    else:
        assert_clean_refusal(result, out, what)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(case=damaged(_transfer_function_log()))
def test_damaged_transfer_function_logs_never_end_in_a_traceback(case, tmp_path_factory):
    op, data = case
    folder = tmp_path_factory.mktemp("tf")
    (folder / "log.csv").write_bytes(data)
    result = runner.invoke(
        app,
        [
            "identify",
            "transfer-function",
            str(folder / "log.csv"),
            "--input",
            "x",
            "--output",
            "y",
            "--structure",
            "I+1",
            "--out",
            str(folder / "out"),
            "--quiet",
        ],
    )
    _check(result, folder / "out", op)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(case=damaged(_robot_log()))
def test_damaged_robot_logs_never_end_in_a_traceback(case, tmp_path_factory):
    op, data = case
    folder = tmp_path_factory.mktemp("robot")
    (folder / "log.csv").write_bytes(data)
    (folder / "known.toml").write_text("")
    result = runner.invoke(
        app,
        [
            "identify",
            "hydraulic-robot",
            str(folder / "log.csv"),
            "--known",
            str(folder / "known.toml"),
            "--out",
            str(folder / "out"),
            "--quiet",
        ],
    )
    _check(result, folder / "out", op)


METADATA = {
    "comment lines": "# HX-LOG 7.2\n# station: rig 3\n# date: 2024-05-01\n",
    "text lines": "HX-LOG 7.2 export\nstation rig 3\n",
}


@pytest.mark.parametrize("kind", list(METADATA))
def test_metadata_above_the_header_gets_the_header_row_to_give(tmp_path, kind):
    """Issue 28: a log with a logger's metadata lines above its header got "no column 't' ... the
    columns are # HX-LOG 7.2" (or a tokenizing error) and no hint of --header-row."""
    above = METADATA[kind]
    header = above.count("\n") + 1
    log = tmp_path / "log.csv"
    log.write_text(above + _transfer_function_log().to_csv(index=False))
    args = [
        "identify",
        "transfer-function",
        str(log),
        "--input",
        "x",
        "--output",
        "y",
        "--structure",
        "I+1",
        "--out",
        str(tmp_path / "out"),
        "--quiet",
    ]
    result = runner.invoke(app, args)
    assert_clean_refusal(result, tmp_path / "out", kind)
    first = repr(above.splitlines()[0])
    assert (
        f"line 1 ({first}) looks like metadata, not column names: the column names seem to be on line {header} "
        f"('t,x,y'); give --header-row {header} (header_row = {header} in [log])"
    ) in result.output
    assert runner.invoke(app, [*args, "--header-row", str(header)]).exit_code == 0


def test_names_behind_a_hash_are_columns_not_metadata(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text("# " + _transfer_function_log().to_csv(index=False))
    result = runner.invoke(
        app,
        [
            "identify",
            "transfer-function",
            str(log),
            "--input",
            "x",
            "--output",
            "y",
            "--out",
            str(tmp_path / "out"),
            "--quiet",
        ],
    )
    assert_clean_refusal(result, tmp_path / "out", "# t")
    assert "no column 't' for t; the columns are # t, x, y: give --column t=NAME" in result.output

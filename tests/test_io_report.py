"""Atomic writes, result files (Parquet, CSV, JSON), figures and the HTML report."""

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from actuatorlab.io import atomic
from actuatorlab.io.atomic import atomic_path, atomic_write_bytes, atomic_write_text
from actuatorlab.io.results import read_labels, read_table, write_csv, write_json, write_table
from actuatorlab.report.html import format_number, render_report, write_report
from actuatorlab.report.plots import (
    GammaCurve,
    Line,
    Panel,
    gamma_map_figure,
    histogram_figure,
    save_figure,
    time_series_figure,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def table():
    t = np.linspace(0.0, 1.0, 11)
    return pd.DataFrame({"t": t, "theta": 0.3 * np.sin(t), "f": 2e4 * t, "u_c": np.cos(t)})


UNITS = {"t": "s", "theta": "rad", "f": "N", "u_c": ""}


# --- atomic writes -------------------------------------------------------------------------


def test_atomic_write_replaces_content(tmp_path):
    target = tmp_path / "a.txt"
    atomic_write_text(target, "old")
    atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    assert os.listdir(tmp_path) == ["a.txt"]


@pytest.mark.parametrize("existing", [True, False])
def test_failed_writer_leaves_old_file_and_no_temporary(tmp_path, existing):
    target = tmp_path / "results.parquet"
    if existing:
        target.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="writer failed"):
        with atomic_path(target) as tmp:
            assert tmp.parent == tmp_path and tmp.suffix == ".parquet"
            tmp.write_bytes(b"half a fi")
            raise RuntimeError("writer failed")
    assert os.listdir(tmp_path) == (["results.parquet"] if existing else [])
    if existing:
        assert target.read_bytes() == b"old"


def test_fsync_precedes_rename_unless_not_durable(tmp_path, monkeypatch):
    calls = []
    fsync, replace = os.fsync, os.replace
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: (calls.append("fsync"), fsync(fd)))
    monkeypatch.setattr(atomic.os, "replace", lambda a, b: (calls.append("replace"), replace(a, b)))
    atomic_write_bytes(tmp_path / "x.bin", b"data")
    assert calls == ["fsync", "replace", "fsync"]  # file, rename, directory
    calls.clear()
    atomic_write_bytes(tmp_path / "y.bin", b"data", durable=False)
    assert calls == ["replace"] and (tmp_path / "y.bin").read_bytes() == b"data"


def test_new_file_gets_ordinary_permissions(tmp_path):
    target = tmp_path / "summary.json"
    atomic_write_text(target, "{}")
    assert target.stat().st_mode & 0o777 == 0o666 & ~atomic._UMASK


# --- result files --------------------------------------------------------------------------


def test_parquet_round_trip_keeps_units_and_labels(tmp_path, table):
    path = tmp_path / "results.parquet"
    write_table(table, path, UNITS, labels={"theta": "θ", "f": "actuator force"})
    back, units = read_table(path)
    pd.testing.assert_frame_equal(back, table)
    assert units == UNITS
    assert read_labels(path) == {"t": "", "theta": "θ", "f": "actuator force", "u_c": ""}
    assert pq.read_schema(path).field("f").metadata[b"unit"] == b"N"


def test_a_table_of_columns_writes_the_file_its_dataframe_writes_without_loading_pandas(tmp_path):
    """Columns (name → array) give the same Parquet content as their DataFrame: NaN as null, ints,
    text, units; and writing them does not import pandas (a run's command does not pay for it)."""
    columns = {
        "t": np.arange(5.0),
        "x": np.array([1.0, np.nan, 3.0, np.nan, 5.0]),
        "n": np.arange(5),
        "status": ["ok", "failed", "ok", "ok", ""],
    }
    units = {"t": "s", "x": "m", "n": "", "status": ""}
    write_table(columns, tmp_path / "columns.parquet", units)
    write_table(pd.DataFrame(columns), tmp_path / "frame.parquet", units)
    (a, a_units), (b, b_units) = read_table(tmp_path / "columns.parquet"), read_table(tmp_path / "frame.parquet")
    pd.testing.assert_frame_equal(a, b)
    assert a_units == b_units == units
    assert pq.read_table(tmp_path / "columns.parquet").column("x").null_count == 2
    code = (
        "import sys, numpy as np\nfrom actuatorlab.io.results import write_table\n"
        f"write_table({{'t': np.arange(3.0), 's': ['a', 'b', 'c']}}, {str(tmp_path / 'c.parquet')!r}, "
        "{'t': 's', 's': ''})\nprint('pandas' in sys.modules)"
    )
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


def test_write_table_needs_every_unit_and_known_columns(tmp_path, table):
    with pytest.raises(ValueError, match=r"missing for columns \['u_c'\]"):
        write_table(table, tmp_path / "r.parquet", {k: UNITS[k] for k in ("t", "theta", "f")})
    with pytest.raises(ValueError, match="not in the table: \\['p'\\]"):
        write_table(table, tmp_path / "r.parquet", UNITS, labels={"p": "pressure"})
    assert os.listdir(tmp_path) == []


def test_csv_header_has_units(tmp_path, table):
    path = tmp_path / "results.csv"
    write_csv(table, path, UNITS)
    lines = path.read_text().splitlines()
    assert lines[0] == "t [s],theta [rad],f [N],u_c"
    assert len(lines) == 1 + len(table)
    back = pd.read_csv(path)
    np.testing.assert_array_equal(back.to_numpy(), table.to_numpy())


def test_json_converts_numpy_and_non_finite(tmp_path):
    path = tmp_path / "summary.json"
    obj = {
        "steps": np.int64(1200),
        "ok": np.bool_(True),
        "peak": np.float32(2.5),
        "trace": np.array([1.0, np.nan, np.inf]),
        "pair": (np.float64(-np.inf), 3),
        "a_first": None,
    }
    write_json(path, obj)
    text = path.read_text()
    assert json.loads(text) == {
        "a_first": None,
        "ok": True,
        "pair": [None, 3],
        "peak": 2.5,
        "steps": 1200,
        "trace": [1.0, None, None],
    }
    assert text.index('"a_first"') < text.index('"trace"') and text.endswith("}\n")
    assert '\n  "ok": true' in text


def test_json_rejects_unknown_types(tmp_path):
    with pytest.raises(TypeError, match="cannot write complex"):
        write_json(tmp_path / "x.json", {"z": 1j})
    assert os.listdir(tmp_path) == []


# --- figures -------------------------------------------------------------------------------


def test_time_series_figure_saves_png(tmp_path, table):
    panels = [
        Panel("Input [-]", [Line("u_c", "$u_c$")]),
        Panel("Angle [deg]", [Line("theta", "θ", scale=180 / np.pi)]),
        Panel("Force [kN]", [Line("f", "f", 1e-3)], hlines=[(-15.0, "$-F_{rM}$")]),
    ]
    fig = time_series_figure(table, panels, title="Arm")
    axes = fig.axes
    assert len(axes) == 3
    assert axes[0].get_legend() is None and axes[2].get_legend() is not None
    np.testing.assert_allclose(axes[1].lines[0].get_ydata(), table["theta"] * 180 / np.pi)
    path = tmp_path / "arm.png"
    save_figure(fig, path)
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    assert os.listdir(tmp_path) == ["arm.png"]


def test_time_series_figure_names_missing_columns(table):
    with pytest.raises(ValueError, match=r"\['p'\] not in the table"):
        time_series_figure(table, [Panel("p [Pa]", [Line("p", "p")])])


def _curve(label, shift):
    v = np.concatenate((-np.geomspace(1.0, 1e-3, 20), np.geomspace(1e-3, 1.0, 20)))
    return GammaCurve(label, v, -1e4 * v + shift, f0_low=-5e3 + shift, f0_high=8e3 + shift)


def test_gamma_curve_polyline_is_vertical_at_zero():
    v, f = _curve("a", 0.0).polyline()
    i = np.flatnonzero(v == 0.0)
    np.testing.assert_array_equal(i, [20, 21])
    np.testing.assert_array_equal(f[i], [8e3, -5e3])  # high end first: Γ is decreasing


def test_gamma_curve_rejects_zero_velocity():
    with pytest.raises(ValueError, match="exclude 0"):
        GammaCurve("bad", np.array([-1.0, 0.0, 1.0]), np.zeros(3), -1.0, 1.0)


@pytest.mark.parametrize("n_curves", [2, 5])
def test_gamma_map_figure_saves_png(tmp_path, n_curves):
    curves = [_curve(f"u_c = {k}", 1e3 * k) for k in range(n_curves)]
    v = np.linspace(-1.0, 1.0, 50)
    segments = {"steep": (v, -1e6 * v), "unbounded": (v, np.where(v > 0, np.inf, 2e3))}
    fig = gamma_map_figure(curves, "Γ and its segments", segments=segments)
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    assert -20 < low and high < 25  # kN: the steep segment does not stretch the axis
    assert len(ax.get_legend().get_texts()) == n_curves
    path = tmp_path / "gamma.png"
    save_figure(fig, path, dpi=80)
    assert path.read_bytes()[:8] == PNG_SIGNATURE


# --- HTML report ---------------------------------------------------------------------------


def _context():
    return {
        "title": "Arm <relief>",
        "description": "Load <script>alert('x')</script> & relief.\n\nSecond paragraph.",
        "key_figures": [
            {"name": "peak force", "value": np.float64(123456.789), "unit": "N", "note": ""},
            {"name": "steps", "value": 4000, "unit": "", "note": "fixed step"},
        ],
        "figures": [
            {"file": "arm.png", "caption": "Fig. 6 <style>"},
            {"file": "gamma_map.png", "caption": "Γ"},
        ],
        "notes": ["h = 1 ms"],
        "scenario_toml": '[scenario]\nname = "arm-relief" # <b>',
        "files": ["results.parquet", "report.html"],
        "generated": "2024-01-01T00:00:00Z",
        "version": "0.1.0",
    }


def test_render_report_escapes_and_lists_figures():
    html = render_report(_context())
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<style>" not in html.split("</style>", 1)[1]
    for name in ("arm.png", "gamma_map.png", "results.parquet"):
        assert f'"{name}"' in html
    assert "1.235e+05" in html and ">4000<" in html
    assert "<link" not in html and "http" not in html


def test_render_report_rejects_unknown_keys_and_absolute_paths():
    with pytest.raises(ValueError, match="unknown report context keys \\['titel'\\]"):
        render_report({"title": "x", "titel": "y"})
    with pytest.raises(ValueError, match="relative"):
        render_report({"title": "x", "figures": [{"file": "/tmp/a.png", "caption": ""}]})
    with pytest.raises(ValueError, match="relative"):
        render_report({"title": "x", "files": ["javascript:alert(1)"]})


def test_write_report(tmp_path):
    path = tmp_path / "report.html"
    write_report(path, {"title": "Only a title"})
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    ("value", "text"),
    [(np.float64(0.000123456), "0.0001235"), (2.0, "2"), (12345, "12345"), (float("nan"), "n/a")],
)
def test_format_number(value, text):
    assert format_number(value) == text


def test_written_report_embeds_its_figures_and_stands_alone(tmp_path):
    """Issue 17: a report moved or mailed alone still shows its pictures."""
    png = b"\x89PNG\r\n\x1a\n" + b"figure bytes"
    (tmp_path / "arm.png").write_bytes(png)
    write_report(
        tmp_path / "report.html",
        {
            "title": "t",
            "figures": [{"file": "arm.png", "caption": "drawn"}, {"file": "missing.png", "caption": "not drawn"}],
        },
    )
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    import base64

    assert f'src="data:image/png;base64,{base64.b64encode(png).decode()}"' in html
    assert 'src="arm.png"' not in html
    assert "missing.png (not drawn) was not drawn" in html


def test_histogram_of_a_sample_constant_to_round_off_draws_one_bar(tmp_path):
    """Issue 17: a Monte Carlo key figure that varies by 1e-15 relative made numpy's bin rule
    raise "Too many bins for data range" and the sweep report died."""
    values = 1e5 + np.linspace(0.0, 1e-10, 40)
    save_figure(histogram_figure(values, "peak force"), tmp_path / "h.png")
    assert len(histogram_figure(values, "x").axes[0].patches) == 1
    assert len(histogram_figure(np.r_[np.zeros(39), 1e6], "x").axes[0].patches) <= 60


def test_a_figure_that_cannot_be_drawn_is_noted_and_the_run_is_kept(tmp_path):
    from actuatorlab.scenarios.output import FigureSpec, ScenarioOutput
    from actuatorlab.scenarios.runner import write_output

    def broken():
        raise ValueError("no data to draw")

    output = ScenarioOutput(
        pd.DataFrame({"t": [0.0, 1.0], "x": [1.0, 2.0]}),
        {"t": "s", "x": "m"},
        {},
        [],
        figures=[FigureSpec("bad.png", "a broken figure", broken)],
    )
    files = write_output(tmp_path, output, "t", "", "")
    assert "results.parquet" in files and "report.html" in files and "bad.png" not in files
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "figure bad.png was not drawn: ValueError: no data to draw" in html


def test_atomic_directory_replaces_the_old_result_whole(tmp_path):
    """Issue 17: a run into another run's folder left the old PNGs mixed in."""
    from actuatorlab.io.atomic import atomic_directory

    target = tmp_path / "run"
    with atomic_directory(target) as work:
        (work / "old.png").write_text("old")
        assert not target.exists()
    with atomic_directory(target) as work:
        (work / "new.png").write_text("new")
    assert sorted(p.name for p in target.iterdir()) == ["new.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_atomic_directory_leaves_nothing_on_failure_or_interrupt(tmp_path):
    from actuatorlab.io.atomic import atomic_directory

    for exc in (ValueError("failed run"), KeyboardInterrupt()):
        with pytest.raises(type(exc)):
            with atomic_directory(tmp_path / "fresh") as work:
                (work / "half.png").write_text("x")
                raise exc
    assert list(tmp_path.iterdir()) == []
    with atomic_directory(tmp_path / "kept") as work:
        (work / "a.txt").write_text("a")
    with pytest.raises(ValueError):
        with atomic_directory(tmp_path / "kept") as work:
            raise ValueError("second run failed")
    assert (tmp_path / "kept" / "a.txt").read_text() == "a"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept"]

"""Logs in a logger's own layout (issue 21): the ``[log]`` table and options of both identify
commands, ``--dry-run``, resampling of a jittered clock, gaps, windows and one-line refusals."""

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from actuatorlab.cli import app
from actuatorlab.errors import ActuatorlabError, ParameterError
from actuatorlab.identification.robot_least_squares import identify
from actuatorlab.machines.sakai_robot import table2_robot, table3_parameters
from actuatorlab.scenarios.log_layout import merge_layout, read_mapped_log
from actuatorlab.scenarios.robot_logs import LOGGER_LAYOUT, read_robot_log, write_logger_example
from actuatorlab.simulation.robot_experiments import Excitation, make_experiments, paper_steps

ROBOT, TRUTH = table2_robot(), table3_parameters()
runner = CliRunner()


@pytest.fixture(scope="module")
def logger(tmp_path_factory):
    """Noise-free Steps 1–3 (1 000 samples each) written as a foreign logger would, and the
    experiments they came from."""
    folder = tmp_path_factory.mktemp("logger")
    experiments = make_experiments(ROBOT, TRUTH, paper_steps(ROBOT), Excitation(duration=7.0, window=(6.0, 7.0)))
    files = write_logger_example(experiments, folder)
    (folder / "known.toml").write_text(LOGGER_LAYOUT)
    return folder, files, experiments


def _table(path):
    return pd.read_csv(path, sep=";", skiprows=3).iloc[1:].reset_index(drop=True)


def test_a_foreign_layout_identifies_as_the_si_logs_do(logger, tmp_path):
    folder, files, experiments = logger
    result = runner.invoke(
        app,
        [
            "identify",
            "hydraulic-robot",
            *map(str, files),
            "--known",
            str(folder / "known.toml"),
            "--out",
            str(tmp_path / "out"),
            "--quiet",
            "--bootstrap",
            "0",
        ],
    )
    assert result.exit_code == 0, result.output
    import json

    found = json.loads((tmp_path / "out" / "parameters.json").read_text())
    reference = identify(ROBOT, experiments).values()
    for name in TRUTH.as_dict():
        # the logger's jittered instants are interpolated back onto the grid: a fraction of a percent
        assert found[name] == pytest.approx(reference[name], rel=5e-3), name


def test_dry_run_prints_what_it_reads_and_writes_nothing(logger, tmp_path):
    folder, files, _ = logger
    result = runner.invoke(
        app,
        [
            "identify",
            "hydraulic-robot",
            str(files[0]),
            "--known",
            str(folder / "known.toml"),
            "--out",
            str(tmp_path / "out"),
            "--dry-run",
        ],
    )
    assert result.exit_code == 0, result.output
    text = result.output
    assert "q2         ← ANGLE_2" in text and "deg, offset 180 → rad" in text
    assert "u1         ← SPOOL_CMD_1      V × 0.12 mm/V → mm (×0.12)" in text
    assert "ignored columns: TIMESTAMP, T_OIL" in text
    assert "resampled onto a uniform grid by linear interpolation" in text
    assert "gaps: line" in text and "filled by linear interpolation" in text
    assert "joint 1 locked at 60 deg, joint 2 driven" in text
    assert not (tmp_path / "out").exists()


def test_a_logger_s_own_suffix_reads_as_text_and_an_unknown_one_is_refused(logger, tmp_path):
    """Loggers name their text files .txt, .dat, .tsv or .log: each reads as CSV with the mapping;
    a spreadsheet is refused naming what to export."""
    folder, files, _ = logger
    known = folder / "known.toml"
    for suffix in (".txt", ".dat"):
        renamed = tmp_path / f"step1{suffix}"
        renamed.write_bytes(files[0].read_bytes())
        result = runner.invoke(app, ["identify", "hydraulic-robot", str(renamed), "--known", str(known), "--dry-run"])
        assert result.exit_code == 0 and "4000 rows" not in result.output and "ANGLE_2" in result.output, result.output
    sheet = tmp_path / "step1.xlsx"
    sheet.write_bytes(b"PK\x03\x04")
    result = runner.invoke(app, ["identify", "hydraulic-robot", str(sheet), "--known", str(known), "--dry-run"])
    assert result.exit_code == 2
    assert "read a delimited-text log (.csv, .tsv, .txt, .dat, .log) or Parquet (.parquet)" in result.output


def test_the_same_mapping_as_command_line_options(logger, tmp_path):
    folder, files, _ = logger
    (tmp_path / "empty.toml").write_text("")
    options = [
        "--header-row",
        "4",
        "--skip-rows",
        "1",
        "--delimiter",
        ";",
        "--time-column",
        "TIME_MS",
        "--unit",
        "t=ms",
        "--max-gap",
        "3",
    ]
    for j in (1, 2):
        options += [
            "--column",
            f"q{j}=ANGLE_{j}",
            "--unit",
            f"q{j}=deg",
            "--column",
            f"p_plus{j}=P_HEAD_{j}",
            "--unit",
            f"p_plus{j}=bar",
            "--column",
            f"p_minus{j}=P_ROD_{j}",
            "--unit",
            f"p_minus{j}=bar",
            "--column",
            f"u{j}=SPOOL_CMD_{j}",
            "--unit",
            f"u{j}=V",
            "--scale",
            f"u{j}=0.12 mm/V",
        ]
    options += ["--offset", "q2=180"]
    result = runner.invoke(
        app,
        ["identify", "hydraulic-robot", str(files[1]), "--known", str(tmp_path / "empty.toml"), *options, "--dry-run"],
    )
    assert result.exit_code == 0, result.output
    assert "joint 1 driven" in result.output and "joint 2 locked at 60 deg" in result.output


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"columns": {"q1": {"column": "ANGLE_9"}}},
            r"step1.csv: no column 'ANGLE_9' for q1; the columns are TIMESTAMP, TIME_MS, ANGLE_1, .*: "
            r"give the column of q1",
        ),
        (
            {"columns": {"q1": {"unit": "bar"}}},
            r"q1 \(column ANGLE_1\): bar cannot be read as rad .*give its unit, e\.g\. \"deg\"",
        ),
        (
            {"columns": {"u1": {"scale": "0.12 bar/V"}}},
            r"u1 \(column SPOOL_CMD_1\): V × 0.12 bar/V cannot be read as mm",
        ),
        (
            {"columns": {"x9": {"column": "T_OIL"}}},
            r"the layout maps 'x9', which this command does not read; map one of t, q1",
        ),
        ({"max_gap": 0}, r"step1.csv: line 506: 1 row with empty or non-finite cells; fill gaps .* --max-gap 1"),
        (
            {"header_row": 1},
            r"step1.csv: line 1 \('# logger: DAQ-16 v4.2, serial 0113'\) looks like metadata, not column "
            r"names: the column names seem to be on line 4 \('TIMESTAMP;TIME_MS;.*'\); give --header-row 4 "
            r"\(header_row = 4 in \[log\]\)",
        ),
        (
            {"columns": {"p_plus1": {"unit": "Pa"}}},
            r"step1.csv: p_plus1 \(column P_HEAD_1\) lies in 3.7\d*e-05 … 3.7\d*e-05 MPa, "
            r"not a working chamber's .* check its unit \(Pa\), e.g. --unit p_plus1=bar",
        ),
        ({"sample_rate": "1 kHz"}, r"both a time column \(columns.t\) and a sample_rate: give one of them"),
    ],
)
def test_every_bad_mapping_is_one_line_naming_what_to_change(logger, change, message):
    import tomllib

    folder, files, _ = logger
    base = tomllib.loads(LOGGER_LAYOUT)["log"]
    overrides = {k: v for k, v in change.items() if k != "columns"}
    if "columns" in change:
        overrides["columns"] = change["columns"]
    with pytest.raises(ActuatorlabError, match=message) as caught:
        read_robot_log(files[0], 2, merge_layout(base, overrides), supply_pressure=ROBOT.supply_pressure)
    assert "\n" not in str(caught.value)


def _clean_log(n=2000, dt=1e-3):
    t = np.arange(n) * dt
    return pd.DataFrame({"time": t * 1e3, "x": np.sin(2 * np.pi * 2 * t), "y": 1e3 * np.cos(2 * np.pi * 2 * t)})


def test_jitter_is_resampled_and_a_jump_of_the_clock_refused_with_its_line(tmp_path):
    df = _clean_log()
    rng = np.random.default_rng(1)
    true_t = df["time"].to_numpy() / 1e3
    jittered = true_t + 1e-4 * rng.uniform(-1, 1, len(true_t))
    df["time"], df["x"] = jittered * 1e3, np.sin(2 * np.pi * 2 * jittered)
    df.to_csv(tmp_path / "log.csv", index=False)
    layout = merge_layout({"columns": {"t": {"column": "time", "unit": "ms"}, "x": {"column": "x", "unit": "mm"}}})
    log = read_mapped_log(tmp_path / "log.csv", layout, {"x": None})
    assert log.resampled and log.jitter_max <= 0.11 and log.mappings[1].target == "m"
    assert np.allclose(np.diff(log.t), 1e-3, rtol=1e-6)
    inner = slice(1, -1)  # the grid's ends may lie a fraction of a period outside the instants: held there
    assert np.max(np.abs(log.values["x"] - 1e-3 * np.sin(2 * np.pi * 2 * log.t))[inner]) < 1e-3 * 2e-4
    df.loc[1000:, "time"] += 0.5  # half a period later from row 1000 on: a clock that jumped
    df.to_csv(tmp_path / "jump.csv", index=False)
    with pytest.raises(
        ParameterError, match=r"jump.csv: the sample at line \d+ .* off the uniform grid, beyond the 25 %"
    ):
        read_mapped_log(tmp_path / "jump.csv", layout, {"x": None})


def test_missing_samples_are_filled_up_to_max_gap_and_a_window_cuts(tmp_path):
    df = _clean_log().drop(index=range(700, 703))  # three samples the logger lost
    df.to_csv(tmp_path / "log.csv", index=False)
    layout = {"columns": {"t": {"column": "time", "unit": "ms"}}}
    with pytest.raises(
        ParameterError,
        match=r"log.csv: 3 samples are missing before line 702 \(time jumps 0.004 s, "
        r"the period is 0.001 s\); fill them with --max-gap 3",
    ):
        read_mapped_log(tmp_path / "log.csv", merge_layout(layout), {"x": None})
    filled = read_mapped_log(tmp_path / "log.csv", merge_layout({**layout, "max_gap": 3}), {"x": None})
    assert len(filled.t) == 2000 and filled.gaps == ["3 missing samples before line 702"]
    cut = read_mapped_log(tmp_path / "log.csv", merge_layout({**layout, "window": ["0.8 s", "1.5 s"]}), {"x": None})
    assert cut.t[0] == pytest.approx(0.8) and cut.t[-1] == pytest.approx(1.5) and not cut.gaps
    df.iloc[:5].assign(time=lambda d: d["time"].where(d.index > 0, -1e308)).to_csv(tmp_path / "jump.csv", index=False)
    with pytest.raises(
        ParameterError,
        match=r"jump.csv: the time jumps 1e\+305 s before line 3, more samples than the "
        r"log holds \(the period is 0.001 s\): cut the jump out with --window",
    ):
        read_mapped_log(tmp_path / "jump.csv", merge_layout({**layout, "max_gap": 3}), {"x": None})


def test_a_log_that_starts_before_the_experiment_is_refused_with_the_window_to_keep(logger, tmp_path):
    _, _, experiments = logger
    e = experiments[1]  # step 2: joint 2 locked
    q = e.q.copy()
    q[:100, 1] += np.linspace(0.05, 0.0, 100)  # joint 2 still moving into its lock for 0.1 s
    frame = pd.DataFrame(
        {
            "t": e.t,
            "q1": q[:, 0],
            "q2": q[:, 1],
            **{f"p_plus{j + 1}": e.p_plus[:, j] for j in (0, 1)},
            **{f"p_minus{j + 1}": e.p_minus[:, j] for j in (0, 1)},
            **{f"u{j + 1}": e.u[:, j] for j in (0, 1)},
        }
    )
    frame.to_csv(tmp_path / "step2.csv", index=False)
    with pytest.raises(
        ParameterError,
        match=r"q2 moves until t = (6\.0\d+) s and then holds still: the log starts before "
        r"the experiment; keep the experiment with --window step2.csv=6\.0\d+:",
    ) as caught:
        read_robot_log(tmp_path / "step2.csv", 2)
    window = str(caught.value).split("--window ")[1].split(" ")[0]
    (tmp_path / "known.toml").write_text("")
    result = runner.invoke(
        app,
        [
            "identify",
            "hydraulic-robot",
            str(tmp_path / "step2.csv"),
            "--known",
            str(tmp_path / "known.toml"),
            "--window",
            window,
            "--dry-run",
        ],
    )
    assert result.exit_code == 0 and "joint 1 driven" in result.output and "joint 2 locked at 60 deg" in result.output
    other = runner.invoke(
        app,
        [
            "identify",
            "hydraulic-robot",
            str(tmp_path / "step2.csv"),
            "--known",
            str(tmp_path / "known.toml"),
            "--window",
            "step9.csv=1:",
            "--dry-run",
        ],
    )
    assert (
        other.exit_code == 2
        and "a window is given for step9.csv, which is not among the logs (step2.csv)" in other.output
    )


def test_transfer_function_logs_take_a_layout_too(tmp_path):
    t = np.arange(3000) * 2e-3
    u = np.where(t > 0.1, 1.0, 0.0) + 0.2 * np.sin(2 * np.pi * 3 * t)
    y = np.cumsum(u) * 2e-3 * 2.0  # an integrator with gain 2 m/s per V, logged in mm
    (tmp_path / "record.csv").write_text(
        "# bench run 7\n" + pd.DataFrame({"stamp": "x", "CMD [V]": u, "POS": y * 1e3}).to_csv(index=False)
    )
    (tmp_path / "layout.toml").write_text(
        '[log]\nheader_row = 2\nsample_rate = "500 Hz"\n'
        '[log.columns]\ny = { column = "POS", unit = "mm" }\n'
        'u = { column = "CMD" }\n'
    )
    args = [
        "identify",
        "transfer-function",
        str(tmp_path / "record.csv"),
        "--input",
        "u",
        "--output",
        "y",
        "--structure",
        "I+1",
        "--layout",
        str(tmp_path / "layout.toml"),
    ]
    dry = runner.invoke(app, [*args, "--dry-run"])
    assert dry.exit_code == 0 and "y          ← POS              mm → m (×0.001)" in dry.output, dry.output
    assert "u          ← CMD              V → V" in dry.output and "time (500 Hz)" in dry.output
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 0, result.output
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert table.loc[table["name"] == "K1", "value"].item() == pytest.approx(2.0, rel=1e-3)
    bad = runner.invoke(app, [*args, "--column", "y=POSITION", "--dry-run"])
    assert bad.exit_code == 2 and "no column 'POSITION' for y; the columns are stamp, CMD, POS" in bad.output


def test_the_report_and_parameters_json_carry_estimates_intervals_bias_and_diagnosis(logger, tmp_path):
    folder, files, _ = logger
    result = runner.invoke(
        app,
        [
            "identify",
            "hydraulic-robot",
            *map(str, files),
            "--known",
            str(folder / "known.toml"),
            "--out",
            str(tmp_path / "out"),
            "--bootstrap",
            "20",
            "--seed",
            "7",
        ],
    )
    assert result.exit_code == 0, result.output
    import json

    record = json.loads((tmp_path / "out" / "parameters.json").read_text())
    assert record["bootstrap_seed"] == 7
    low, high = record["M1_ci95"]
    assert low < record["M1"] < high and record["M1_reported_as"] in ("bias-corrected", "least squares")
    assert set(record) >= {"M1_least_squares", "M1_bias", "M1_se", "b_ci95", "diagnosis", "uncertainty"}
    assert record["uncertainty"].startswith("parametric bootstrap: 20 re-identifications")
    report = (tmp_path / "out" / "report.html").read_text()
    assert "95 % [" in report and "bias" in report and "Diagnosis: " in report and "Noise estimated in step1" in report
    assert "Bootstrap seed 7 (given)" in report
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert {"reported", "reported_as", "least_squares", "bias_percent", "ci95_low", "ci95_high"} <= set(table.columns)


def test_the_bootstrap_repeats_on_the_same_logs_and_its_seed_is_reported_and_honoured(logger, tmp_path):
    """The default seed is derived from the logs: the same logs give the same intervals, the
    notes name the seed, and that seed given back (``seed=`` or ``[uncertainty] seed``)
    repeats the run while another changes it."""
    import actuatorlab

    folder, files, _ = logger
    (tmp_path / "known.toml").write_text(LOGGER_LAYOUT + "\n[uncertainty]\nseed = 5\n")

    def run(known=folder / "known.toml", **seed):
        result = actuatorlab.identify_hydraulic_robot(files, known, bootstrap=3, **seed)
        return result.table[["reported", "bootstrap_sd", "ci95_low", "ci95_high"]], result.notes

    derived, notes = run()
    said = next(n for n in notes if n.startswith("Bootstrap seed "))
    assert "(derived from the logs)" in said, said
    seed = int(said.split()[2])
    pd.testing.assert_frame_equal(run()[0], derived, check_exact=True)
    pd.testing.assert_frame_equal(run(seed=seed)[0], derived, check_exact=True)
    other, notes = run(seed=5)
    assert "Bootstrap seed 5 (given); give it as --seed" in " ".join(notes)
    assert not np.allclose(other["bootstrap_sd"], derived["bootstrap_sd"], rtol=1e-6, atol=0.0)
    pd.testing.assert_frame_equal(run(tmp_path / "known.toml")[0], other, check_exact=True)


def _shifted(experiments, offset):
    """``experiments`` with ``offset`` [Pa] added to every pressure (absolute sensors: one atmosphere)."""
    from dataclasses import replace

    return [replace(e, p_plus=e.p_plus + offset, p_minus=e.p_minus + offset) for e in experiments]


def test_absolute_pressures_read_as_gauge_are_refused_naming_the_columns_and_the_offset(logger, tmp_path):
    """Issue 28: absolute bar read as gauge identified W2 5 % low without a word."""
    import json

    folder, _, experiments = logger
    files = write_logger_example(_shifted(experiments, 101325.0), tmp_path)  # one atmosphere
    args = ["identify", "hydraulic-robot", *map(str, files), "--bootstrap", "0", "--quiet"]
    (tmp_path / "known.toml").write_text(LOGGER_LAYOUT)
    refused = runner.invoke(app, [*args, "--known", str(tmp_path / "known.toml"), "--out", str(tmp_path / "out")])
    assert refused.exit_code == 2 and not (tmp_path / "out").exists(), refused.output
    message = refused.output.strip()
    assert message.startswith("error: step1.csv, step2.csv, step3.csv: the pressures read 1.013 bar (± ")
    assert (
        "above gauge, about one atmosphere (fitted with the torques): absolute sensors read as gauge; give "
        "p_plus1 (P_HEAD_1), p_plus2 (P_HEAD_2), p_minus1 (P_ROD_1), p_minus2 (P_ROD_2) their offset to gauge, "
        "e.g. --offset p_plus1=-1.01325 (bar)"
    ) in message.replace("\n", " ")
    assert "set check_gauge = false in [log]" in message and "Traceback" not in message
    offsets = [f"--offset={p}{j}=-1.01325" for p in ("p_plus", "p_minus") for j in (1, 2)]
    fixed = runner.invoke(
        app, [*args, "--known", str(tmp_path / "known.toml"), *offsets, "--out", str(tmp_path / "fixed")]
    )
    assert fixed.exit_code == 0, fixed.output
    found = json.loads((tmp_path / "fixed" / "parameters.json").read_text())
    assert found["W2"] == pytest.approx(identify(ROBOT, experiments).values()["W2"], rel=5e-3)
    (tmp_path / "gauge.toml").write_text(LOGGER_LAYOUT.replace("max_gap = 3", "max_gap = 3\ncheck_gauge = false"))
    trusted = runner.invoke(app, [*args, "--known", str(tmp_path / "gauge.toml"), "--out", str(tmp_path / "trusted")])
    assert trusted.exit_code == 0, trusted.output


def test_an_offset_to_gauge_given_to_gauge_sensors_is_refused_in_the_api(logger):
    import actuatorlab

    folder, files, _ = logger
    offsets = {"columns": {f"{p}{j}": {"offset": -1.01325} for p in ("p_plus", "p_minus") for j in (1, 2)}}
    with pytest.raises(
        ParameterError,
        match=r"the pressures read 1.013 bar \(± \S+\) below gauge, about one atmosphere "
        r"\(fitted with the torques\): gauge sensors given an offset to gauge; remove "
        r"the offset of p_plus1 \(P_HEAD_1, offset -1.01325 bar\), p_plus2",
    ) as caught:
        actuatorlab.identify_hydraulic_robot(files, folder / "known.toml", layout=offsets, bootstrap=0)
    assert "\n" not in str(caught.value)


def test_the_pressure_offset_is_an_atmosphere_only_when_torques_and_flows_agree(logger):
    """On noisy logs the torques alone see ~0 for gauge pressures and ~1 atm for absolute ones; a
    single causal filter pass biases the torque's offset by about two atmospheres, which the
    fluid rows do not confirm."""
    from dataclasses import replace

    from actuatorlab.identification.pressure_offset import ATMOSPHERE, pressure_offset
    from actuatorlab.identification.robot_least_squares import IdentificationOptions

    _, _, experiments = logger
    rng = np.random.default_rng(3)
    noisy = [
        replace(
            e,
            q=e.q + 2e-5 * rng.standard_normal(e.q.shape) * e.driven(1e-3),
            p_plus=e.p_plus + 5e3 * rng.standard_normal(e.q.shape),
            p_minus=e.p_minus + 5e3 * rng.standard_normal(e.q.shape),
            u=e.u + 1e-3 * rng.standard_normal(e.q.shape),
        )
        for e in experiments
    ]
    options = IdentificationOptions()
    gauge, absolute = (pressure_offset(ROBOT, _shifted(noisy, d), options) for d in (0.0, ATMOSPHERE))
    assert abs(gauge.estimate) < 0.1 * ATMOSPHERE and gauge.atmospheres == 0
    assert absolute.estimate == pytest.approx(ATMOSPHERE, rel=0.1) and absolute.atmospheres == 1
    causal = pressure_offset(ROBOT, noisy, IdentificationOptions(zero_phase=False))
    assert causal.estimate > 0.5 * ATMOSPHERE and causal.atmospheres == 0

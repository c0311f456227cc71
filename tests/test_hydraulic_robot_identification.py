"""Identification of the hydraulic robot of Sakai & Maeshima (spec 003, targets T1–T13)."""

import math

import numpy as np
import pytest
from typer.testing import CliRunner

from actuatorlab.cli import app
from actuatorlab.errors import ParameterError, SimulationError
from actuatorlab.identification.robot_least_squares import (
    IdentificationOptions,
    identify,
    identify_repeated,
    stack_rows,
)
from actuatorlab.identification.sequential import sequential_fluid
from actuatorlab.machines.sakai_robot import table2_robot, table3_parameters
from actuatorlab.scenarios.robot_logs import read_robot_log, write_robot_log
from actuatorlab.mechanics.robot_dynamics import (
    CylinderMount,
    HydraulicRobot,
    RobotParameters,
    cylinder_state,
    mechanical_regressor,
)
from actuatorlab.simulation.robot_simulation import simulate_robot
from actuatorlab.simulation.robot_experiments import (
    Excitation,
    LockedStep,
    holding_pressures,
    make_experiments,
    mid_stroke_angle,
    paper_steps,
    simultaneous_step,
)
from actuatorlab.simulation.robot_search import output_error_search
from actuatorlab.simulation.robot_validation import validate

ROBOT = table2_robot()
TRUTH = table3_parameters()  # Table III means
SHORT = Excitation(duration=7.0, window=(6.0, 7.0))  # 1 000 samples per step: enough for exact data
REALISTIC = Excitation(angle_noise=2e-5, pressure_noise=5e3, spool_noise=1e-3)  # as the identify-2dof scenario


@pytest.fixture(scope="module")
def noise_free():
    return make_experiments(ROBOT, TRUTH, paper_steps(ROBOT), Excitation())


def _relative_errors(identification, truth=TRUTH):
    values, reference = identification.values(), truth.as_dict()
    return {name: abs(values[name] - reference[name]) / reference[name] for name in reference}


def test_mass_matrix_and_coriolis_match_the_papers_2dof_form():
    """Spec §2.2: M(q) = [[M1 + 2R12 cos q2, M2 + R12 cos q2], [M2 + R12 cos q2, M2]] and the printed vector c."""
    m1, m2, r12, fv1, fv2, w1, w2 = TRUTH.mechanical
    q, qd, g = np.array([0.7, 1.1]), np.array([0.3, -0.8]), 9.8
    y = np.empty((2, 7))
    columns = []
    for e in np.eye(2):
        mechanical_regressor(q, np.zeros(2), e, 0.0, 0.0, y)
        columns.append(y @ TRUTH.mechanical)
    c2 = math.cos(q[1])
    expected = np.array([[m1 + 2 * r12 * c2, m2 + r12 * c2], [m2 + r12 * c2, m2]])
    assert np.allclose(np.column_stack(columns), expected, rtol=1e-14)
    mechanical_regressor(q, qd, np.zeros(2), g, 0.0, y)
    s2 = math.sin(q[1])
    printed = np.array(
        [
            -2 * r12 * qd[0] * qd[1] * s2
            - r12 * qd[1] ** 2 * s2
            + fv1 * qd[0]
            + w1 * g * math.sin(q[0])
            + w2 * g * math.sin(q[0] + q[1]),
            r12 * qd[0] ** 2 * s2 + fv2 * qd[1] + w2 * g * math.sin(q[0] + q[1]),
        ]
    )
    assert np.allclose(y @ TRUTH.mechanical, printed, rtol=1e-13)


def test_moment_arm_is_the_derivative_of_the_piston_displacement():
    """T2: J = ds/dq (central difference of the law-of-cosines length)."""
    cyl = ROBOT.cylinder_array()
    for i, q in ((0, math.radians(64.0)), (1, math.radians(85.0))):
        h = 1e-6
        numeric = (cylinder_state(cyl[i], q + h)[0] - cylinder_state(cyl[i], q - h)[0]) / (2 * h)
        assert cylinder_state(cyl[i], q)[1] == pytest.approx(numeric, rel=1e-8)
        assert abs(cylinder_state(cyl[i], mid_stroke_angle(ROBOT, i))[0]) < 1e-12


def test_holding_pressures_hold_the_robot_at_rest():
    """T1: at the holding pressures and u = 0, every rate of the state is zero."""
    angles = np.array([math.radians(60.0), mid_stroke_angle(ROBOT, 1)])
    p_plus, p_minus = holding_pressures(ROBOT, TRUTH, angles)
    t = np.arange(0, 0.2, 1e-3)
    run = simulate_robot(ROBOT, TRUTH, t, np.zeros((len(t), 2)), angles, p_plus, p_minus)
    assert np.abs(run.qdd).max() < 1e-9 and np.abs(run.dp_plus).max() < 1e-3
    assert np.allclose(p_plus + p_minus, ROBOT.supply_pressure)


def test_exact_recovery_of_all_16_parameters(noise_free):
    """T3–T5: exact rates give the truth to 1e-6, the paper's central differences to 1e-3; all positive."""
    exact = identify(ROBOT, noise_free, IdentificationOptions(derivatives="exact"))
    assert max(_relative_errors(exact).values()) < 1e-6
    differences = identify(ROBOT, noise_free, IdentificationOptions(derivatives="central", taps=20))
    assert max(_relative_errors(differences).values()) < 1e-3
    assert all(v > 0 for k, v in differences.values().items() if not k.endswith("_se"))
    # T4/T6: 3 steps × 4 000 samples stack into 12 000 and 24 000 rows; condition numbers O(10)
    assert (exact.mechanical.rows, exact.fluid.rows) == (12000, 24000)
    assert 5 < exact.mechanical.condition < 200 and 5 < exact.fluid.condition < 200


def test_recovery_within_2_percent_with_realistic_noise_and_the_moving_average():
    experiments = make_experiments(ROBOT, TRUTH, paper_steps(ROBOT), REALISTIC, repetitions=3)
    repeated = identify_repeated(ROBOT, experiments, IdentificationOptions(taps=20))
    reference = TRUTH.as_dict()
    for name, row in repeated.table.items():
        assert row["mean"] == pytest.approx(reference[name], rel=0.02), name
        assert row["min"] > 0 and 0 <= row["rsd_percent"] < 5.0, name


def test_noise_free_validation_fits_about_100_percent(noise_free):
    """T10: the identified model re-simulated on held-out 3 Hz data from the logged state."""
    identified = identify(ROBOT, noise_free).parameters
    held_out = make_experiments(
        ROBOT, TRUTH, paper_steps(ROBOT)[:1], Excitation(frequency=3.0, duration=7.0, window=(6.0, 7.0))
    )
    fit = validate(ROBOT, identified, held_out[0]).fit[1]
    assert min(fit.values()) > 99.5


def test_locking_joint_2_at_one_angle_cannot_separate_m1_from_r12():
    """T7: q2min = q2max leaves M1 and R12 collinear; the error names them and the remedy."""
    steps = paper_steps(ROBOT, q2_min=math.radians(80.0), q2_max=math.radians(80.0))
    experiments = make_experiments(ROBOT, TRUTH, steps, SHORT)
    with pytest.raises(ParameterError, match=r"cannot separate M1 from R12.*80°.*another angle"):
        identify(ROBOT, experiments)


def test_a_spool_that_never_reverses_is_named():
    """T7: with u ≥ 0 the head→tank and supply→rod gains have zero columns."""
    experiments = make_experiments(ROBOT, TRUTH, paper_steps(ROBOT), SHORT)
    one_way = [type(e)(e.name, e.t, e.q, e.p_plus, e.p_minus, np.abs(e.u), e.repetition, e.exact) for e in experiments]
    with pytest.raises(ParameterError, match=r"C\+-1, C--1.*spool 1 never goes negative"):
        identify(ROBOT, one_way)


def test_sequential_method_gives_one_b_per_step_and_e1_e2_differ_from_the_coupled():
    """T8: with noise, each step alone gives its own b; E1 and E2 pick different ones."""
    experiments = make_experiments(ROBOT, TRUTH, paper_steps(ROBOT), REALISTIC)
    options = IdentificationOptions()
    sequential = sequential_fluid(ROBOT, experiments, options)
    per_step = np.array(list(sequential.per_experiment_b.values()))
    assert len(per_step) == 3 and np.ptp(per_step) > 1e-4 * per_step.mean()
    coupled = identify(ROBOT, experiments, options).bulk_modulus
    assert sequential.e1["b"] != pytest.approx(sequential.e2["b"], rel=1e-6)
    assert sequential.e1["b"] != pytest.approx(coupled, rel=1e-6)
    # the coupled solution is the least-squares solution of the stacked system, unique
    rows = stack_rows(ROBOT, experiments, options)
    direct = np.linalg.solve(rows.x2.T @ rows.x2, rows.x2.T @ rows.y2)
    assert 1.0 / direct[0] == pytest.approx(coupled, rel=1e-9)


def test_unknown_gravity_recovers_the_tilt_and_the_gravity_loads():
    """T13: a robot on ground tilted by 4°; g·W_i and the tilt from the same stacked rows."""
    tilted = HydraulicRobot(ROBOT.cylinders, gravity_tilt=math.radians(4.0))
    experiments = make_experiments(tilted, TRUTH, paper_steps(tilted), SHORT)
    result = identify(tilted, experiments, IdentificationOptions(derivatives="exact", gravity="unknown"))
    assert result.tilt == pytest.approx(math.radians(4.0), rel=1e-6)
    assert result.gravity_loads == pytest.approx(9.8 * TRUTH.mechanical[-2:], rel=1e-6)


def _three_dof():
    mount = CylinderMount(0.11, 0.33, 0.0, 0.30, 0.075, 7.0e-4, 5.4e-4, 7.9e-5, 7.9e-5)
    robot = HydraulicRobot((mount, mount, mount))
    # a1 = [M1 M2 M3 R12 R13 R23 Fv1 Fv2 Fv3 W1 W2 W3] from link masses 4, 3, 2 kg, lengths 0.5 m,
    # centres at mid-link, I = m l²/12: the Lagrangian basis of the module docstring
    m, length = np.array([4.0, 3.0, 2.0]), 0.5
    inertia_j = m * length**2 / 12 + m * (length / 2) ** 2 + np.array([5.0, 2.0, 0.0]) * length**2
    w = m * length / 2 + np.array([5.0, 2.0, 0.0]) * length
    mech = np.concatenate(
        [np.cumsum(inertia_j[::-1])[::-1], [length * w[1], length * w[2], length * w[2]], [30.0, 10.0, 3.0], w]
    )
    params = RobotParameters(
        mech, 2.33e8, 1e-7 * np.array([[6.3, 6.6, 5.5, 6.3], [6.3, 5.4, 5.4, 6.2], [6.0, 5.8, 5.6, 6.1]])
    )
    return robot, params


def test_a_three_dof_chain_needs_only_steps_as_data():
    robot, params = _three_dof()
    mid = mid_stroke_angle(robot, 0)
    a, b = math.radians(55.0), math.radians(75.0)
    steps = [
        LockedStep("j3", (a, b, mid), (2,)),
        LockedStep("j2a", (a, mid, a), (1,)),
        LockedStep("j2b", (a, mid, b), (1,)),
        LockedStep("j1a", (mid, a, a), (0,)),
        LockedStep("j1b", (mid, b, a), (0,)),
        LockedStep("j1c", (mid, a, b), (0,)),
    ]
    experiments = make_experiments(robot, params, steps, SHORT)
    result = identify(robot, experiments, IdentificationOptions(derivatives="exact"))
    assert max(_relative_errors(result, params).values()) < 1e-6


def test_simulation_refuses_pressures_outside_the_supply_range():
    """T9: an oversized spool input drives a pressure out of [0, p_s]; the error names time and joint."""
    angles = np.array([math.radians(60.0), mid_stroke_angle(ROBOT, 1)])
    p_plus, p_minus = holding_pressures(ROBOT, TRUTH, angles)
    t = np.arange(0, 2.0, 1e-3)
    u = np.zeros((len(t), 2))
    u[:, 1] = 0.3 * np.sin(2 * np.pi * 5.0 * t)
    with pytest.raises(SimulationError, match=r"t = \d+\.\d+ s: a pressure of joint 2 reached .* outside \[0, 7\] MPa"):
        simulate_robot(ROBOT, TRUTH, t, u, angles, p_plus, p_minus, driven=[False, True])


def test_search_baselines_count_trials_whose_state_does_not_exist(noise_free):
    result = output_error_search(ROBOT, noise_free[0], TRUTH, "pso", population=6, generations=2)
    assert result.trials == 12 and 0 < result.failed_trials <= result.trials
    assert set(result.best) == {"M2", "Fv2", "W2", "b", "C++2", "C+-2", "C-+2", "C--2"}


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda df: df.drop(columns=["u2"]),
            r"bad.csv: no column 'u2' for u2; the columns are t, q1, .*--column u2=NAME",
        ),
        (
            lambda df: df.assign(p_plus1=df["p_plus1"].where(df.index != 5)),
            r"bad.csv: line 7: 1 row with empty or non-finite cells; fill gaps .* --max-gap 1",
        ),
        (lambda df: df.iloc[::-1], r"time does not increase at line 3 \([0-9.e+-]+ s after [0-9.e+-]+ s\)"),
        (lambda df: df.iloc[:50], "50 samples are too few"),
        (lambda df: df.iloc[:0], r"bad.csv: the table has a header but no rows"),  # issue 17: was an IndexError
        (
            lambda df: df.astype({"q1": object}).assign(q1=lambda d: d["q1"].where(d.index != 7, "n/a?")),
            r"bad.csv: column q1 holds n/a\? at data row 8 \(line 9 of a CSV file\), not a number",
        ),
    ],
)
def test_bad_logs_are_refused_with_the_remedy(tmp_path, noise_free, change, message):
    import pandas as pd

    write_robot_log(noise_free[0], tmp_path / "log.parquet")
    df = pd.read_parquet(tmp_path / "log.parquet")
    change(df).to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ParameterError, match=message):
        read_robot_log(tmp_path / "bad.csv", 2)[0]


def test_cli_identifies_from_logs_and_writes_parameters_and_report(tmp_path, noise_free):
    for e in noise_free:
        write_robot_log(e, tmp_path / f"{e.name}.parquet")
    (tmp_path / "known.toml").write_text('supply_pressure = "7 MPa"\n[identification]\ntaps = 20\n')
    result = CliRunner().invoke(
        app,
        [
            "identify",
            "hydraulic-robot",
            *(str(tmp_path / f"{e.name}.parquet") for e in noise_free),
            "--known",
            str(tmp_path / "known.toml"),
            "--out",
            str(tmp_path / "out"),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    import tomllib

    truth = tomllib.loads((tmp_path / "out" / "parameters.toml").read_text())["truth"]
    assert truth["bulk_modulus"] == pytest.approx(2.33e8, rel=1e-3)  # Table III mean
    assert (tmp_path / "out" / "report.html").exists()
    bad = CliRunner().invoke(
        app,
        [
            "identify",
            "hydraulic-robot",
            str(tmp_path / "step1.parquet"),
            "--known",
            str(tmp_path / "known.toml"),
            "--out",
            str(tmp_path / "o2"),
        ],
    )
    assert bad.exit_code == 2 and "cannot identify" in bad.output


def test_identify_2dof_scenario_reports_table_iii_and_fits(tmp_path):
    from actuatorlab.scenarios.loading import load_scenario, parse_scenario
    from actuatorlab.scenarios.runner import run_scenario

    base = load_scenario("identify-2dof").model_dump()
    base.update(repetitions=2, search={"population": 4, "generations": 2, "seed": 1})
    base["excitation"].update(duration=7.0, window=(6.0, 7.0))
    output, files = run_scenario(parse_scenario(base), tmp_path)
    summary = output.summary_dict()
    assert summary["max_abs_error_percent"] < 2.0 and summary["all_positive"] == 1.0
    assert summary["pso_failed_trials"] >= 0 and summary["fit_3Hz_step1_joint2_s_percent"] > 80.0
    assert set(output.table["parameter"]) >= {"M1", "R12", "b", "C--2"}
    assert "validation_3Hz_step2_joint1.png" in files and "logs/step1.parquet" in files
    assert read_robot_log(tmp_path / "logs" / "step1.parquet", 2)[0].q.shape == (1000, 2)


def test_simultaneous_motion_identifies_too():
    """The paper's simultaneous approach: both joints driven in one experiment."""
    experiments = make_experiments(ROBOT, TRUTH, [simultaneous_step(ROBOT)], Excitation(amplitude=0.02))
    result = identify(ROBOT, experiments, IdentificationOptions(derivatives="exact"))
    assert max(_relative_errors(result).values()) < 1e-6


def test_unreadable_logs_are_refused_naming_the_file(tmp_path):
    (tmp_path / "broken.parquet").write_bytes(b"not parquet at all")
    (tmp_path / "notes.txt").write_text("t,q1\n")  # a logger's text file: read as CSV, but empty
    (tmp_path / "sheet.xlsx").write_bytes(b"PK\x03\x04")
    with pytest.raises(ParameterError, match="broken.parquet: cannot be read as parquet"):
        read_robot_log(tmp_path / "broken.parquet", 2)
    with pytest.raises(ParameterError, match="notes.txt: the table has a header but no rows"):
        read_robot_log(tmp_path / "notes.txt", 2)
    with pytest.raises(ParameterError, match=r"sheet.xlsx: read a delimited-text log .* or Parquet"):
        read_robot_log(tmp_path / "sheet.xlsx", 2)
    with pytest.raises(ParameterError, match="no such file"):
        read_robot_log(tmp_path / "missing.csv", 2)


def test_a_missing_known_file_is_named_as_such_not_as_a_scenario(tmp_path):
    """Issue 17: a --known file that does not exist was reported as an unknown built-in scenario."""
    result = CliRunner().invoke(
        app,
        [
            "identify",
            "hydraulic-robot",
            str(tmp_path / "log.csv"),
            "--known",
            str(tmp_path / "robot.toml"),
            "--out",
            str(tmp_path / "out"),
        ],
    )
    assert result.exit_code == 2
    assert f"--known {tmp_path / 'robot.toml'}: no such file" in result.output and "built-in" not in result.output


def test_the_paper_robot_is_table_ii_and_its_truth_table_iii():
    """machines.sakai_robot builds through the validated classes; b has one home (Table III)."""
    from actuatorlab.hydraulics.fluid import SAKAI_BULK_MODULUS
    from actuatorlab.scenarios.robot_schema import RobotTruthSpec

    assert ROBOT.supply_pressure == 7.0e6 and ROBOT.cylinders[0].stroke == 0.075
    assert ROBOT.cylinders[1].angle_offset == -math.pi and ROBOT.cylinders[1].head_line_volume == 6.3e-5
    assert TRUTH.bulk_modulus == SAKAI_BULK_MODULUS == RobotTruthSpec().bulk_modulus == 2.33e8
    assert TRUTH.as_dict()["C--2"] == pytest.approx(6.19e-7, rel=1e-12)


@pytest.mark.parametrize(
    "build, message",
    [
        (
            lambda: CylinderMount(0.11, -0.33, 0.0, 0.30, 0.075, 7e-4, 5.4e-4, 0.0, 0.0),
            r"link_distance = -0\.33 m: must be a finite number > 0",
        ),
        (
            lambda: CylinderMount(0.11, 0.33, math.nan, 0.30, 0.075, 7e-4, 5.4e-4, 0.0, 0.0),
            r"angle_offset = nan rad: must be a finite number",
        ),
        (
            lambda: CylinderMount(0.11, 0.33, 0.0, 0.30, 0.075, 7e-4, 5.4e-4, -1e-5, 0.0),
            r"head_line_volume = -1e-05 m\^3: must be a finite number >= 0",
        ),
        (
            lambda: CylinderMount(0.11, 0.33, 0.0, 0.03, 0.075, 7e-4, 5.4e-4, 0.0, 0.0),
            r"mid_stroke_length = 0\.03 m must exceed half the stroke",
        ),
        (
            lambda: HydraulicRobot(ROBOT.cylinders, supply_pressure=0.0),
            r"supply_pressure = 0\.0 Pa: must be a finite number > 0",
        ),
        (
            lambda: HydraulicRobot(ROBOT.cylinders, gravity=-9.8),
            r"gravity = -9\.8 m/s\^2: must be a finite number >= 0",
        ),
        (lambda: HydraulicRobot(()), "cylinders: give one CylinderMount per joint"),
        (
            lambda: RobotParameters(TRUTH.mechanical, -2.33e8, TRUTH.flow_gains),
            r"bulk_modulus = -233000000\.0 Pa: must be",
        ),
        (
            lambda: RobotParameters(np.where(np.arange(7) == 4, np.inf, TRUTH.mechanical), 2.33e8, TRUTH.flow_gains),
            r"mechanical Fv2 = inf N m s/rad: must be a finite number",
        ),
        (
            lambda: RobotParameters(TRUTH.mechanical, 2.33e8, np.where(np.eye(2, 4, 1) > 0, np.nan, TRUTH.flow_gains)),
            r"flow_gains C\+-1 = nan .*: must be a finite number",
        ),
        (
            lambda: RobotParameters(TRUTH.mechanical[:6], 2.33e8, TRUTH.flow_gains),
            r"2 valves need .* 7 mechanical values",
        ),
        (lambda: Excitation(frequency=0.0), r"frequency = 0\.0 Hz: must be a finite number > 0"),
        (lambda: Excitation(pressure_noise=-5e3), r"pressure_noise = -5000\.0 Pa: must be a finite number >= 0"),
        (
            lambda: Excitation(window=(6.0, 12.0)),
            r"window = \(6\.0, 12\.0\) s must lie inside \[0, duration = 10\.0\] s",
        ),
        (
            lambda: IdentificationOptions(taps=2.5),
            r"taps = 2\.5 samples: give 0 \(no averaging\) or a positive integer",
        ),
        (
            lambda: IdentificationOptions(lock_tolerance=-1e-3),
            r"lock_tolerance = -0\.001 rad: must be a finite number >= 0",
        ),
    ],
)
def test_robot_parameter_and_option_classes_name_field_value_unit_and_range(build, message):
    with pytest.raises(ParameterError, match=message):
        build()

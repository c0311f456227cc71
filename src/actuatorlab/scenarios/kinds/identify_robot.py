"""Scenario kind ``identify-robot``: synthetic locked-joint experiments of a hydraulic robot, the
coupled least-squares identification of all its parameters, the sequential method and PSO/GA
for comparison, and cross-validation at another frequency (Sakai & Maeshima, Tables III–IV,
Figs. 6–8). Its figures and key figures also serve the report of an identification from logs
(:mod:`actuatorlab.scenarios.robot_identification`)."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...identification.robot_least_squares import Experiment, Identification, identify, identify_repeated
from ...identification.sequential import sequential_fluid
from ...mechanics.robot_dynamics import MECHANICAL_UNITS, HydraulicRobot, RobotParameters
from ...report.plots import Line, Panel, time_series_figure
from ...simulation.robot_experiments import make_experiments
from ...simulation.robot_search import output_error_search
from ...simulation.robot_validation import Validation, validate
from ..robot_logs import write_robot_log
from ..output import FigureSpec, ScenarioOutput, SummaryFigure
from ..robot_schema import IdentifyRobotScenario

FLOW_GAIN_UNIT = "m^3/(s u Pa^0.5)"


def parameter_unit(name: str) -> str:
    """SI unit of a parameter by name (flow gains per spool unit u)."""
    if name == "b":
        return "Pa"
    if name.startswith("C"):
        return FLOW_GAIN_UNIT
    if name.startswith("gW"):
        return "N m"
    if name == "tilt":
        return "rad"
    return MECHANICAL_UNITS[name.rstrip("0123456789")]


def validation_figure(
    robot: HydraulicRobot, result: Validation, experiment: Experiment, caption: str, tag: str
) -> list[FigureSpec]:
    """Figs. 6–10 style: u, p+/p_s, s/L, p−/p_s, logged against the model, per driven joint;
    ``tag`` tells the files of different data sets apart."""
    specs = []
    for joint, fit in result.fit.items():
        stroke, supply = robot.cylinders[joint].stroke, robot.supply_pressure
        df = pd.DataFrame(
            {
                "t": experiment.t,
                "u": experiment.u[:, joint],
                "pp": experiment.p_plus[:, joint] / supply,
                "pp_model": result.run.p_plus[:, joint] / supply,
                "s": result.measured_s[:, joint] / stroke,
                "s_model": result.run.s[:, joint] / stroke,
                "pm": experiment.p_minus[:, joint] / supply,
                "pm_model": result.run.p_minus[:, joint] / supply,
            }
        )
        panels = [
            Panel("$u$ [spool unit]", [Line("u", "logged")]),
            Panel("$p_+/p_s$", [Line("pp", "logged", style="k-"), Line("pp_model", "model", style="r--")]),
            Panel("$s/L$", [Line("s", "logged", style="k-"), Line("s_model", "model", style="r--")]),
            Panel("$p_-/p_s$", [Line("pm", "logged", style="k-"), Line("pm_model", "model", style="r--")]),
        ]
        name = f"validation_{tag}_{experiment.name}_joint{joint + 1}.png".replace(" ", "_")
        title = (
            f"{experiment.name}, link {joint + 1}: "
            f"FIT s {fit['s']:.1f} %, p+ {fit['p_plus']:.1f} %, p− {fit['p_minus']:.1f} %"
        )
        specs.append(
            FigureSpec(
                name,
                f"{caption} {title}.",
                lambda df=df, panels=panels, title=title: time_series_figure(df, panels, title),
            )
        )
    return specs


def fit_summary(results: Sequence[Validation], label: str) -> list[SummaryFigure]:
    out = []
    for result in results:
        for joint, fit in result.fit.items():
            for state, value in fit.items():
                out.append(
                    SummaryFigure(
                        f"fit_{label}_{result.experiment}_joint{joint + 1}_{state}_percent",
                        value,
                        "%",
                        f"FIT {state} link {joint + 1}, {result.experiment} ({label})",
                    )
                )
    return out


def condition_summary(identification: Identification, seconds: float) -> list[SummaryFigure]:
    return [
        SummaryFigure("condition_X1N", identification.mechanical.condition, "", "cond(X1N), mechanical (paper: 10–11)"),
        SummaryFigure("condition_X2N", identification.fluid.condition, "", "cond(X2N), fluid (paper: 25–27)"),
        SummaryFigure("rows_X1N", identification.mechanical.rows, "", "rows of X1N"),
        SummaryFigure("rows_X2N", identification.fluid.rows, "", "rows of X2N"),
        SummaryFigure(
            "residual_rms_mechanical_N_m", identification.mechanical.residual_rms, "N m", "RMS residual of X1N a1 = Y1N"
        ),
        SummaryFigure(
            "residual_rms_fluid_m3_s", identification.fluid.residual_rms, "m^3/s", "RMS residual of X2N a2 = Y2N"
        ),
        SummaryFigure("identification_time_s", seconds, "s", "least-squares identification wall time (paper: 6.5 s)"),
    ]


def run(scenario: IdentifyRobotScenario, progress=None) -> ScenarioOutput:
    report = progress or (lambda fraction: None)
    robot, truth = scenario.robot.build(), scenario.truth.build()
    steps, options = scenario.locked_steps(), scenario.identification.build()
    excitation = scenario.excitation.build()
    experiments = make_experiments(robot, truth, steps, excitation, scenario.repetitions)
    report(0.3)
    start = time.perf_counter()
    first = identify(robot, [e for e in experiments if e.repetition == 0], options)
    seconds = time.perf_counter() - start
    repeated = identify_repeated(robot, experiments, options)
    report(0.4)
    mean = {name: row["mean"] for name, row in repeated.table.items()}
    identified = (
        RobotParameters.from_vectors(
            np.array([mean[n] for n in first.mechanical.names]),
            np.array([1.0 / mean["b"]] + [mean[n] for n in first.fluid.names[1:]]),
        )
        if options.gravity == "known"
        else truth
    )
    sequential = sequential_fluid(robot, [e for e in experiments if e.repetition == 0], options)
    held_out = make_experiments(
        robot,
        truth,
        steps,
        scenario.excitation.build(frequency=scenario.validation_frequency, seed=scenario.excitation.seed + 1),
        1,
    )
    same = [e for e in experiments if e.repetition == 0]
    checks_same = [validate(robot, identified, e, options.lock_tolerance) for e in same]
    checks_held = [validate(robot, identified, e, options.lock_tolerance) for e in held_out]
    report(0.6)
    searches = {}
    if scenario.search.population > 0:
        single = next(e for e in same if len(np.flatnonzero(e.driven(options.lock_tolerance))) == 1)
        for algorithm in ("pso", "ga"):
            searches[algorithm] = output_error_search(
                robot,
                single,
                identified,
                algorithm,
                scenario.search.population,
                scenario.search.generations,
                scenario.search.seed,
            )
    report(0.9)
    truth_values = truth.as_dict()
    rows = []
    for name, row in repeated.table.items():
        reference = truth_values.get(name, np.nan)
        rows.append(
            {
                "parameter": name,
                "unit": parameter_unit(name),
                "truth": reference,
                "min": row["min"],
                "mean": row["mean"],
                "max": row["max"],
                "rsd_percent": row["rsd_percent"],
                "error_percent": 100.0 * (row["mean"] - reference) / reference,
                "sequential_e1": sequential.e1.get(name, np.nan),
                "sequential_e2": sequential.e2.get(name, np.nan),
                **{a: s.best.get(name, np.nan) for a, s in searches.items()},
            }
        )
    table = pd.DataFrame(rows)
    units = {c: "" for c in table.columns}
    labels = {
        "truth": "value the experiments were generated with",
        "rsd_percent": "relative standard deviation [%]",
        "error_percent": "error of the mean against the truth [%]",
        "sequential_e1": "sequential method, rule E1",
        "sequential_e2": "sequential method, rule E2",
        "pso": "PSO output-error search",
        "ga": "GA output-error search",
    }
    labels = {k: v for k, v in labels.items() if k in table.columns}
    errors = table["error_percent"].abs()
    summary = [
        SummaryFigure(
            "max_abs_error_percent",
            float(errors.max()),
            "%",
            f"largest error of a mean estimate ({table['parameter'][errors.idxmax()]})",
        ),
        SummaryFigure(
            "max_rsd_percent",
            float(table["rsd_percent"].max()),
            "%",
            f"largest RSD over {scenario.repetitions} repetitions (paper: 2.15 %)",
        ),
        SummaryFigure("all_positive", float((table["mean"] > 0).all()), "", "all estimates positive (1 = yes)"),
    ]
    summary += condition_summary(first, seconds)
    summary += [
        SummaryFigure(f"sequential_b_{k}_Pa", v, "Pa", f"b of {k} alone (sequential method)")
        for k, v in sequential.per_experiment_b.items()
    ]
    for algorithm, s in searches.items():
        summary.append(
            SummaryFigure(
                f"{algorithm}_failed_trials",
                s.failed_trials,
                "",
                f"{algorithm.upper()} trials whose state left [0, p_s] or the stroke, of {s.trials}",
            )
        )
    figures = []
    for checks, experiments, frequency, heading in (
        (checks_same, same, excitation.frequency, "Identification data"),
        (checks_held, held_out, scenario.validation_frequency, "Cross-validation on held-out data"),
    ):
        summary += fit_summary(checks, f"{frequency:g}Hz")
        for result, experiment in zip(checks, experiments):
            figures += validation_figure(
                robot, result, experiment, f"{heading} ({frequency:g} Hz):", f"{frequency:g}Hz"
            )
    notes = [
        "Coupled least squares (2)–(3): every experiment's rows stacked, b and the flow gains one column each; "
        f"derivatives by {options.derivatives} differences, {options.taps}-tap moving average on every column.",
        "Readings: τ = moment arm × F, s = l − ℓc, stroke 75 mm, spool unit mm, "
        "FIT = 100(1 − ‖y − ŷ‖/‖y − ȳ‖), joint friction in N m s/rad.",
        "Sequential method: b per experiment "
        + ", ".join(f"{k} {v / 1e6:.4g} MPa" for k, v in sequential.per_experiment_b.items())
        + "; E1 keeps the first, E2 averages — neither is the coupled estimate.",
        "Validation model: the mean identified parameters, started from the logged state, driven by the logged spool.",
    ]
    if searches:
        notes.append(
            "PSO/GA: output error on s/L, p+/p_s, p−/p_s of one locked-joint log, population "
            f"{scenario.search.population}, {scenario.search.generations} generations; a trial whose pressures "
            "leave [0, p_s] fails, as the paper describes."
        )
    attachments = [
        (f"logs/{e.name}.parquet", lambda path, e=e: write_robot_log(e, path))
        for e in same + [type(e)(f"validation_{e.name}", e.t, e.q, e.p_plus, e.p_minus, e.u) for e in held_out]
    ]
    notes.append(
        "logs/: the first repetition's logs and the held-out ones, in the format of `actuatorlab identify "
        "hydraulic-robot`, which identifies from them as from measured data."
    )
    report(1.0)
    return ScenarioOutput(
        table=table, units=units, labels=labels, summary=summary, figures=figures, notes=notes, attachments=attachments
    )

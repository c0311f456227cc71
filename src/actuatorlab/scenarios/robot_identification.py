"""``actuatorlab identify hydraulic-robot``: the known file, the identification of logs with
its parametric bootstrap (bias, standard errors and 95 % intervals that hold on noisy data,
:mod:`actuatorlab.simulation.robot_bootstrap`) and diagnosis, validation, and the outputs:
results.parquet, parameters.json/.toml and the report's key figures and notes."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import tomli_w
from pydantic import ValidationError

from ..errors import ParameterError, ScenarioError
from ..identification.robot_diagnosis import diagnose
from ..identification.robot_least_squares import (
    Experiment,
    Identification,
    identify,
    identify_repeated,
    stack_rows,
)
from ..identification.uncertainty import Z95, BootstrapSummary, noise_levels
from ..io.atomic import atomic_write_text
from ..io.results import write_json
from ..mechanics.robot_dynamics import RobotParameters
from ..simulation.robot_bootstrap import RobotBootstrap, bootstrap_identification
from ..simulation.robot_validation import validate
from .kinds.identify_robot import condition_summary, fit_summary, parameter_unit, validation_figure
from .loading import describe_validation_error
from .log_layout import MappedLog
from .output import ScenarioOutput, SummaryFigure, table_output
from .robot_logs import refuse_atmospheric_offset
from .robot_schema import KnownFile
from .toml_text import decode, parse

METHOD = (
    "parametric bootstrap: {replicates} re-identifications of the logs replayed by the identified model "
    "with measurement noise at the levels estimated from each log (third differences); reported: the "
    "bias-corrected estimate where the bias exceeds 3 standard errors of its mean, else the least-squares "
    "estimate; 95 % interval: reported ± 1.96 bootstrap standard deviations"
)
FORMULA = (
    "least-squares formula σ²(XᵀX)⁻¹ (no bootstrap): assumes independent residuals and exact regressors, "
    "too narrow (up to 10×) on filtered noisy logs; give [uncertainty] replicates = 200"
)


def read_known(path) -> str:
    """The text of the ``--known`` file; a missing or unreadable file is one error naming it."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        reason = "no such file" if isinstance(error, FileNotFoundError) else f"cannot be read ({error})"
        raise ScenarioError(
            f"--known {os.fspath(path)}: {reason}; give the TOML file of the robot's known values "
            "(an empty file means the paper's Table II robot)"
        ) from None
    return decode(data, f"--known {os.fspath(path)}")


def parse_known(text: str, label: str) -> KnownFile:
    """The known values in TOML ``text`` (``""``: the paper's Table II robot), validated; errors
    start with ``label``."""
    data = parse(text, label)
    try:
        known = KnownFile.model_validate(data)
    except ValidationError as error:
        raise ScenarioError(f"{label}: {describe_validation_error(error, KnownFile)}") from None
    try:
        known.build("known")
        known.identification.build()
    except ScenarioError as error:
        raise ScenarioError(f"{label}: {error}") from None
    return known


def parameters_toml(parameters: RobotParameters) -> str:
    """The identified parameters as a ``[truth]`` table of an identify-robot scenario."""
    return tomli_w.dumps(
        {
            "truth": {
                "mechanical": parameters.mechanical.tolist(),
                "bulk_modulus": parameters.bulk_modulus,
                "flow_gains": parameters.flow_gains.tolist(),
            }
        }
    )


def reported_parameters(fit: Identification, summary: BootstrapSummary | None) -> RobotParameters | None:
    """The robot with the reported values (bias-corrected where the bootstrap says so)."""
    if fit.parameters is None or summary is None:
        return fit.parameters
    value = dict(zip(summary.names, summary.reported))
    return RobotParameters.from_vectors(
        np.array([value[n] for n in fit.mechanical.names]),
        np.array([1.0 / value["b"]] + [value[n] for n in fit.fluid.names[1:]]),
    )


def _parameter_rows(fit: Identification, boot: RobotBootstrap | None) -> list[dict]:
    """Per parameter: reported value and how, least squares, bias, spreads, interval."""
    values = fit.values()
    names = [k for k in values if not k.endswith("_se")]
    summary = {r["parameter"]: r for r in boot.summary.rows()} if boot is not None else {}
    rows = []
    for name in names:
        se = values.get(f"{name}_se", np.nan)
        row = summary.get(name) or {
            "parameter": name,
            "estimate": values[name],
            "bias": np.nan,
            "bootstrap_sd": np.nan,
            "bias_corrected": False,
            "reported": values[name],
            "ci95_low": values[name] - Z95 * se,
            "ci95_high": values[name] + Z95 * se,
        }
        rows.append(
            {
                "parameter": name,
                "unit": parameter_unit(name),
                "reported": row["reported"],
                "reported_as": "bias-corrected" if row["bias_corrected"] else "least squares",
                "least_squares": values[name],
                "bias": row["bias"],
                "bias_percent": 100.0 * row["bias"] / abs(values[name]) if values[name] else np.nan,
                "bootstrap_sd": row["bootstrap_sd"],
                "ci95_low": row["ci95_low"],
                "ci95_high": row["ci95_high"],
                "ls_standard_error": se,
            }
        )
    return rows


def _parameter_figures(rows: list[dict], bootstrapped: bool) -> list[SummaryFigure]:
    out = []
    for r in rows:
        bias = (
            f"; bias {r['bias_percent']:+.3g} % "
            f"({'corrected' if r['reported_as'] == 'bias-corrected' else 'not significant'})"
            if bootstrapped
            else "; least-squares formula, too narrow on noisy data"
        )
        out.append(
            SummaryFigure(
                f"parameter_{r['parameter']}",
                r["reported"],
                r["unit"],
                f"{r['parameter']} ({r['reported_as']})",
                f"95 % [{r['ci95_low']:.5g}, {r['ci95_high']:.5g}]{bias}",
            )
        )
    return out


def identify_logs(
    known: KnownFile,
    logs: Sequence[Experiment],
    held_out: Sequence[Experiment],
    read: Sequence[MappedLog] = (),
    replicates: int | None = None,
    seed: int | None = None,
) -> tuple[ScenarioOutput, Identification]:
    """Identify from ``logs`` (pooled, and per repetition group if there are several), bootstrap
    its uncertainty (``replicates``, ``seed``: None the known file's; no seed there: derived from
    the logs), diagnose, and validate on ``held_out`` (or, if none, on the logs themselves);
    ``read`` tells how each log was read. Pressures about one atmosphere off gauge are refused
    unless ``known.log.check_gauge`` is false."""
    robot, options = known.build("known"), known.identification.build()
    replicates = known.uncertainty.replicates if replicates is None else replicates
    seed = known.uncertainty.seed if seed is None else seed
    start = time.perf_counter()
    pooled = identify(robot, logs, options)
    seconds = time.perf_counter() - start
    if known.log.check_gauge:
        refuse_atmospheric_offset(robot, logs, options, list(read[: len(logs)]))
    groups = sorted({e.repetition for e in logs})
    repeated = identify_repeated(robot, logs, options).table if len(groups) > 1 else None
    boot, notes = None, []
    if replicates > 0 and pooled.parameters is not None:
        try:
            boot = bootstrap_identification(robot, logs, options, pooled, replicates, seed, known.uncertainty.workers)
        except ParameterError as error:  # a model that cannot replay a log: report without intervals that hold
            notes.append(f"No bootstrap: {error}.")
    elif replicates > 0:
        notes.append(
            "No bootstrap with gravity = 'unknown' (the robot cannot be re-simulated without W_i and g "
            "apart); the intervals are the least-squares formula's, too narrow on noisy data."
        )
    rows = _parameter_rows(pooled, boot)
    for row in rows if repeated is not None else ():
        row.update({k: repeated[row["parameter"]][k] for k in ("min", "mean", "max", "rsd_percent")})
    summary = _parameter_figures(rows, boot is not None) + condition_summary(pooled, seconds)
    positive = float(all(r["reported"] > 0 for r in rows))
    summary.append(SummaryFigure("all_positive", positive, "", "all estimates positive (1 = yes)"))
    angle_noise = max(
        (float(noise_levels(e.q[:, j]).item()) for e in logs for j in np.flatnonzero(e.driven(options.lock_tolerance))),
        default=0.0,
    )
    diagnosis = diagnose(
        stack_rows(robot, logs, options), pooled, logs, options, None if boot is None else boot.summary, angle_noise
    )
    notes.append("Uncertainty: " + (METHOD.format(replicates=replicates) if boot is not None else FORMULA) + ".")
    if boot is not None:
        summary += [
            SummaryFigure("bootstrap_replicates", boot.replicates, "", "bootstrap re-identifications"),
            SummaryFigure("bootstrap_time_s", boot.seconds, "s", f"bootstrap wall time on {boot.workers} threads"),
        ]
        notes.append(
            f"Bootstrap seed {boot.seed} ({'derived from the logs' if seed is None else 'given'}); "
            "give it as --seed (seed= in Python, [uncertainty] seed) to repeat these draws."
        )
        notes += [
            f"Noise estimated in {e.name}: "
            + ", ".join(f"{k}{j + 1} {v[j]:.3g}" for k, v in levels.items() for j in range(len(v)) if v[j] > 0)
            + " (rad, Pa, spool unit)"
            for e, levels in zip(logs, boot.noise)
        ]
    notes += [f"Diagnosis: {line}" for line in diagnosis] or [
        "Diagnosis: every parameter is determined within ±5 % (95 %), none collinear."
    ]
    notes.append(
        f"Pooled identification of {len(logs)} logs; "
        + (
            f"{len(groups)} repetition groups give min/mean/max/RSD."
            if repeated is not None
            else "one repetition group (add a repetition column for RSD)."
        )
    )
    notes += [
        f"{m.source}: "
        + "; ".join(
            (
                [
                    f"resampled onto a uniform grid ({m.period * 1e3:.4g} ms; jitter max "
                    f"{100 * m.jitter_max:.3g} % of a period; the interpolation smooths the noise the bootstrap "
                    "estimates, so its intervals may be a little narrow)"
                ]
                if m.resampled
                else []
            )
            + ([f"gaps filled by linear interpolation: {', '.join(m.gaps)}"] if m.gaps else [])
        )
        for m in read
        if m.resampled or m.gaps
    ]
    record = _parameters_json(rows, diagnosis, boot, replicates)
    attachments = [("parameters.json", lambda path: write_json(path, record))]
    figures = []
    reported = reported_parameters(pooled, None if boot is None else boot.summary)
    if reported is not None:
        checks = held_out or logs
        results = [validate(robot, reported, e, options.lock_tolerance) for e in checks]
        summary += fit_summary(results, "held-out" if held_out else "identification-data")
        for result, experiment in zip(results, checks):
            figures += validation_figure(robot, result, experiment, "Validation:", "held_out" if held_out else "same")
        if not held_out:
            notes.append(
                "No --validate logs: the model is checked on the identification data, which is not a "
                "cross-validation; give held-out logs (another frequency) with --validate."
            )
        toml = parameters_toml(reported)
        attachments.append(("parameters.toml", lambda path: atomic_write_text(path, toml)))
    output = table_output(rows, summary, figures, notes, attachments)
    return output, pooled


def _parameters_json(rows: list[dict], diagnosis: list[str], boot, replicates: int) -> dict:
    """parameters.json: per parameter ``NAME`` (reported), ``NAME_se`` (bootstrap standard deviation,
    else the formula's), ``NAME_least_squares``, ``NAME_bias``, ``NAME_ci95`` [low, high],
    ``NAME_reported_as``; the method, the bootstrap's seed and the diagnosis."""
    out: dict = {}
    for r in rows:
        name = r["parameter"]
        out[name] = r["reported"]
        out[f"{name}_se"] = r["bootstrap_sd"] if boot is not None else r["ls_standard_error"]
        out.update(
            {
                f"{name}_least_squares": r["least_squares"],
                f"{name}_bias": r["bias"],
                f"{name}_ci95": [r["ci95_low"], r["ci95_high"]],
                f"{name}_reported_as": r["reported_as"],
            }
        )
    out["uncertainty"] = METHOD.format(replicates=replicates) if boot is not None else FORMULA
    if boot is not None:
        out["bootstrap_seed"] = boot.seed
    out["diagnosis"] = diagnosis
    return out

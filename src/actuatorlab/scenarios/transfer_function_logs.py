"""``actuatorlab identify transfer-function``: continuous-time transfer functions fitted to a
logged input–output record by output error (the method of Alfayad et al. Sec. 5.2).

The log is CSV (headers ``name [unit]`` allowed) or Parquet, one row per sample, read through a
layout (:mod:`.log_layout`: the inputs' and output's columns, units and scales, a time column or a
sample rate; a jittered time column is resampled onto a uniform grid). Each ``--input`` column gets
one structure: ``G1`` (integrator and three first-order lags), ``G2`` (integrator and one lag),
``I+N`` (integrator and N lags) or ``N`` (N lags, no integrator). The output is taken relative to
its first sample (start the record at rest).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..identification.transfer_function import LagStructure, fit_transfer_functions
from .log_layout import MappedLog
from ..report.plots import Line, Panel, time_series_figure
from .output import FigureSpec, ScenarioOutput, SummaryFigure

NAMED = {"G1": LagStructure(3), "G2": LagStructure(1)}


def parse_structure(text: str) -> LagStructure:
    """``G1``, ``G2``, ``I+N`` or ``N`` (see the module docstring)."""
    text = text.strip()
    if text.upper() in NAMED:
        return NAMED[text.upper()]
    match = re.fullmatch(r"(I\+)?(\d)", text, flags=re.IGNORECASE)
    if not match:
        raise ParameterError(f"--structure {text!r}: write G1, G2, I+N (integrator and N lags) or N (N lags)")
    return LagStructure(int(match.group(2)), integrator=bool(match.group(1)))


def fit_record(log: MappedLog, inputs: list[str], output: str, structures: list[str]) -> ScenarioOutput:
    """Fit one structure per input to ``output`` of the log read through its layout, and report
    parameters, fit and overlay; errors name the log's source."""
    source = log.source
    if len(structures) not in (1, len(inputs)):
        raise ParameterError(
            f"{len(inputs)} --input columns need one --structure each (or one for all); got {len(structures)}"
        )
    shapes = [parse_structure(s) for s in (structures * len(inputs) if len(structures) == 1 else structures)]
    t, u, y = log.t, np.column_stack([log.values[name] for name in inputs]), log.values[output]
    try:
        fit = fit_transfer_functions(t, u, y - y[0], shapes, names=inputs)
    except ParameterError as error:
        raise ParameterError(f"{source}: {error}") from None
    owners = [name for name, shape in zip(inputs, shapes) for _ in range(shape.n_params)]
    rows = [{"input": owner, **row} for owner, row in zip(owners, fit.table())]
    table = pd.DataFrame(rows)
    summary = [
        SummaryFigure(
            f"parameter_{r['input']}_{r['name']}",
            r["value"],
            "",
            f"{r['name']} of {r['input']}",
            f"95 % [{r['ci95_low']:.5g}, {r['ci95_high']:.5g}]",
        )
        for r in rows
    ]
    summary += [
        SummaryFigure("fit_percent", fit.fit_percent, "%", "NRMSE fit 100(1 − ‖y − ŷ‖/‖y − ȳ‖)"),
        SummaryFigure("fit_wall_time_s", fit.wall_time_s, "s", "fit wall time"),
        SummaryFigure("model_evaluations", fit.nfev, "", "model evaluations"),
    ]
    overlay = pd.DataFrame({"t": t, "measured": y - y[0], "model": fit.y_model})
    figures = [
        FigureSpec(
            "transfer_function_fit.png",
            f"{output} (from its first sample) against the fitted model.",
            lambda: time_series_figure(
                overlay,
                [Panel(output, [Line("measured", "measured", style="k-"), Line("model", "model", style="r--")])],
            ),
        )
    ]
    notes = [f"{name}: {s}" for name, s in zip(inputs, shapes)]
    notes.append(
        "Parameters: K in output/input units (per second with an integrator; SI where the layout gives "
        "units), λ in s; standard errors and 95 % intervals (± 1.96 standard errors) from the sandwich "
        "of the output error's Jacobian at the optimum with an autoregressive model of the residual of "
        f"order {fit.correlation_lags} (0: white residuals), so they hold for correlated residuals; a lag "
        "shorter than a tenth of the sample period is not resolved by the record (standard error n/a)."
    )
    units = {c: "" for c in table.columns}
    return ScenarioOutput(table=table, units=units, labels={}, summary=summary, figures=figures, notes=notes)

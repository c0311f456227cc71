"""What ``actuatorlab calibrate`` reports of a :class:`~.calibration.Calibration`: the fitted
fields with their intervals (results table, ``parameters.json``), fits per channel before and
after (and on the validation logs), overlays, the correlation matrix and the diagnosis."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..io.atomic import atomic_write_text
from ..report.plots import Line, Panel, heatmap_figure, time_series_figure
from .calibration import Calibration, Experiment, Match
from .output import FigureSpec, ScenarioOutput, SummaryFigure, table_output


def calibration_output(
    result: Calibration,
    matches: list[Match],
    experiments: list[Experiment],
    validation: list[Experiment],
    units: dict[str, str],
) -> ScenarioOutput:
    """The run output of a calibration (module docstring); ``units``: each free path's SI unit."""
    rows = [
        {
            "path": f.path,
            "unit": units.get(f.path, ""),
            "value": float(v),
            "low": float(lo),
            "high": float(hi),
            "std_error": float(s),
            "start": f.start,
            "scale": "log" if f.logarithmic else "linear",
        }
        for f, v, lo, hi, s in zip(result.fields, result.values, result.low, result.high, result.std_errors)
    ]
    summary = [
        SummaryFigure(
            f"calibrated_{r['path']}", r["value"], r["unit"], r["path"], f"95 % [{r['low']:.6g}, {r['high']:.6g}]"
        )
        for r in rows
    ]
    for label, fits in (("fit_percent", result.fit), ("validation_fit_percent", result.validation_fit)):
        for m in matches:
            values = [per[m.channel] for per in fits.values()]
            if values:
                summary.append(
                    SummaryFigure(
                        f"{label}_{m.channel}",
                        float(np.mean(values)),
                        "%",
                        f"NRMSE fit of {m.channel}"
                        + (" on the validation logs" if label.startswith("validation") else ""),
                    )
                )
    summary += [
        SummaryFigure("simulations", result.simulations, "", "scenario runs of the fit"),
        SummaryFigure("calibration_time_s", result.seconds, "s", "calibration wall time"),
    ]
    figures = [
        _overlay(f"fit_{i + 1}.png", e, result.start_channels[i], result.channels[i], matches, result.units)
        for i, e in enumerate(experiments)
    ]
    figures += [
        _overlay(f"validation_{i + 1}.png", e, None, result.validation_channels[i], matches, result.units)
        for i, e in enumerate(validation)
    ]
    if len(result.fields) > 1:
        figures.append(_correlation_figure(result))
    notes = [
        "Fitted by output error: residuals (simulated − logged) / σ per channel, σ its noise level "
        "from third differences; 95 % intervals ± 1.96 standard errors of the fitted variable (the "
        "logarithm for a log-scaled field), from the sandwich covariance with an autoregressive model "
        f"of the residual. {result.simulations} runs"
        + (
            " in compiled batches."
            if result.batched
            else ", one at a time (this kind has no batched path for these fields)."
        ),
        *[
            f"Fit of {name} [%]: "
            + ", ".join(f"{c} {result.fit_start[name][c]:.2f} → {v:.2f}" for c, v in fits.items())
            for name, fits in result.fit.items()
        ],
        *[
            f"Validation on {name} [%]: " + ", ".join(f"{c} {v:.2f}" for c, v in fits.items())
            for name, fits in result.validation_fit.items()
        ],
        *result.diagnosis,
    ]
    parameters = {r["path"]: {k: r[k] for k in ("value", "low", "high", "std_error", "start", "unit")} for r in rows}
    parameters["correlation"] = {"paths": [r["path"] for r in rows], "matrix": result.correlation.tolist()}
    text = json.dumps(parameters, indent=2) + "\n"
    return table_output(
        rows, summary, figures, notes, [("parameters.json", lambda path: atomic_write_text(path, text))]
    )


def _overlay(name: str, exp: Experiment, start, final, matches: list[Match], units: dict[str, str]) -> FigureSpec:
    data = {"t": exp.t}
    panels = []
    for m in matches:
        data[f"{m.channel}:log"] = exp.measured[m.channel]
        data[f"{m.channel}:fit"] = final[m.channel]
        lines = [Line(f"{m.channel}:log", "logged", style="k-")]
        if start is not None:
            data[f"{m.channel}:start"] = start[m.channel]
            lines.append(Line(f"{m.channel}:start", "start", style="b:"))
        lines.append(Line(f"{m.channel}:fit", "calibrated", style="r--"))
        panels.append(Panel(f"{m.channel} [{units[m.channel] or '-'}]", lines))
    frame = pd.DataFrame(data)
    what = "at the start and calibrated" if start is not None else "calibrated (validation)"
    return FigureSpec(
        name, f"{exp.name}: logged channels and the scenario's, {what}.", lambda: time_series_figure(frame, panels)
    )


def _correlation_figure(result: Calibration) -> FigureSpec:
    index = np.arange(len(result.fields))
    labels = [f.path for f in result.fields]

    def draw():
        figure = heatmap_figure(index, index, result.correlation, "field", "field", "correlation")
        axes = figure.axes[0]
        axes.set_xticks(index, labels, rotation=30, ha="right")
        axes.set_yticks(index, labels)
        return figure

    return FigureSpec("correlation.png", "Correlation of the fitted fields' estimates.", draw)

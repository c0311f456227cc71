"""``actuatorlab identify transfer-function``: transfer functions fitted to a logged
input–output record by output error (the method of Alfayad et al. Sec. 5.2, to any order).

The log is CSV (headers ``name [unit]`` allowed) or Parquet, one row per sample, read through a
layout (:mod:`.log_layout`: the inputs' and output's columns, units and scales, a time column or a
sample rate; a jittered time column is resampled onto a uniform grid). Each ``--input`` column gets
one structure (:func:`parse_structure`): ``G1`` (integrator and three first-order lags), ``G2``
(integrator and one lag), ``I+N`` (integrator and N lags), ``N`` (N lags); ``NpMz`` (N poles,
complex allowed, and M zeros; ``I+`` before it adds an integrator, ``+d`` after it an input
delay); the discrete-time ``arx(na,nb,nk)`` and ``oe(nb,nf,nk)``. The record is taken to start
at rest: the output relative to its first sample, and so is an input whose structure has no
integrator (its first value is the operating point the static gain acts about); an input of an
integrating structure is taken as logged (its zero stops the output, as a closed valve does).

Several structures for one input are candidates: each is fitted and the one of best validation
fit is chosen (with a validation log), else the one of least AIC, n ln(2V/n) + 2p with V the
cost ½‖y − ŷ‖² and p the parameters (Akaike 1974; MATLAB's ``aic`` without its constant).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..identification.bands import response_bands
from ..identification.discrete import ARXStructure, OEStructure
from ..identification.rational import RationalStructure
from ..identification.transfer_function import LagStructure, TransferFunctionFit, fit_transfer_functions, nrmse_fit
from ..io.results import write_csv
from ..report.plots import Line, Panel, time_series_figure
from .log_layout import MappedLog
from .output import FigureSpec, ScenarioOutput, SummaryFigure, table_output

NAMED = {"G1": LagStructure(3), "G2": LagStructure(1)}
STRUCTURES = (
    "G1, G2, I+N (integrator and N lags), N (N lags), NpMz (N poles, M zeros; I+ before it for an "
    "integrator, +d after it for an input delay: 2p0z, I+3p1z+d), arx(na,nb,nk) or oe(nb,nf,nk)"
)


def parse_structure(text: str):
    """A structure from its name (module docstring), or a one-line error listing the forms."""
    clean = text.strip().replace(" ", "")
    if clean.upper() in NAMED:
        return NAMED[clean.upper()]
    lags = re.fullmatch(r"(I\+)?(\d)", clean, flags=re.IGNORECASE)
    if lags:
        return LagStructure(int(lags.group(2)), integrator=bool(lags.group(1)))
    rational = re.fullmatch(r"(I\+)?(\d+)p(\d+)z(\+d)?", clean, flags=re.IGNORECASE)
    if rational:
        integrator, poles, zeros, delay = rational.groups()
        return _checked(text, RationalStructure, int(poles), int(zeros), bool(integrator), bool(delay))
    polynomial = re.fullmatch(r"(arx|oe)\((\d+),(\d+),(\d+)\)", clean, flags=re.IGNORECASE)
    if polynomial:
        family = ARXStructure if polynomial.group(1).lower() == "arx" else OEStructure
        return _checked(text, family, *(int(g) for g in polynomial.groups()[1:]))
    raise ParameterError(f"--structure {text!r}: write {STRUCTURES}")


def _checked(text: str, family, *args):
    try:
        return family(*args)
    except ParameterError as error:
        raise ParameterError(f"--structure {text!r}: {error}") from None


@dataclass(frozen=True)
class Candidate:
    """One structure fitted to the record: its fit (None when refused, with the reason), and
    with a validation record the model's output simulated on it and its fit [%]."""

    structures: tuple
    fit: TransferFunctionFit | None
    aic: float = np.nan
    validation_fit: float = np.nan
    refused: str = ""
    validation_model: np.ndarray | None = None


def fit_record(
    log: MappedLog, inputs: list[str], output: str, structures: list[str], validation: MappedLog | None = None
) -> ScenarioOutput:
    """Fit one structure per input (or, for one input, each candidate structure) to ``output``
    of the log read through its layout, and report parameters, fit, overlay, Bode plot and step
    response with their bands; ``validation``: a second record the model is checked on."""
    if len(inputs) > 1 and len(structures) not in (1, len(inputs)):
        raise ParameterError(
            f"{len(inputs)} --input columns need one --structure each (or one for all); got {len(structures)}"
        )
    shapes = [parse_structure(s) for s in structures]
    options = [tuple(shapes)] if len(inputs) > 1 else [(s,) for s in shapes]
    if len(inputs) > 1 and len(shapes) == 1:
        options = [tuple(shapes * len(inputs))]
    t, y = log.t, log.values[output] - log.values[output][0]
    candidates = [_candidate(log, validation, inputs, output, option, t, y) for option in options]
    fitted = [c for c in candidates if c.fit is not None]
    if not fitted:
        raise ParameterError(
            f"{log.source}: {candidates[0].refused}" if len(candidates) == 1 else _all_refused(candidates)
        )
    key = (lambda c: -c.validation_fit) if validation is not None else (lambda c: c.aic)
    chosen = min(fitted, key=key)
    return _output(log, validation, inputs, output, chosen, candidates, t, y)


def about_rest(record: MappedLog, inputs: list[str], structures) -> np.ndarray:
    """The inputs (n, channels) as the structures see them (module docstring): relative to their
    first sample unless the structure integrates."""
    columns = [record.values[name] for name in inputs]
    return np.column_stack([u if getattr(s, "integrator", False) else u - u[0] for u, s in zip(columns, structures)])


def _candidate(log, validation, inputs, output, structures, t, y) -> Candidate:
    try:
        fit = fit_transfer_functions(t, about_rest(log, inputs, structures), y, structures, names=inputs)
    except ParameterError as error:
        return Candidate(structures, None, refused=f"{log.source}: {error}")
    n_params = sum(s.n_params for s in structures)
    aic = y.size * np.log(max(2.0 * fit.cost / y.size, np.finfo(float).tiny)) + 2.0 * n_params
    if validation is None:
        return Candidate(structures, fit, float(aic))
    simulated = _on_validation(fit, validation, inputs, log.period)
    checked = nrmse_fit(validation.values[output] - validation.values[output][0], simulated)
    return Candidate(structures, fit, float(aic), checked, validation_model=simulated)


def _on_validation(fit: TransferFunctionFit, validation: MappedLog, inputs, period: float) -> np.ndarray:
    """The model's output simulated on the validation record's inputs (from rest)."""
    discrete = any(isinstance(s, (ARXStructure, OEStructure)) for s in fit.structures)
    if discrete and not np.isclose(validation.period, period, rtol=1e-6):
        raise ParameterError(
            f"{validation.source}: sampled every {validation.period:g} s, the estimation record every {period:g} s; "
            "a discrete-time model holds at its own sample period: give a validation record at the same rate"
        )
    return fit.simulate(about_rest(validation, inputs, fit.structures), validation.period)


def _all_refused(candidates: list[Candidate]) -> str:
    return "no structure fits the record: " + "; ".join(
        f"{'+'.join(map(str, c.structures))}: {c.refused.split(': ', 1)[-1]}" for c in candidates
    )


def _output(log, validation, inputs, output, chosen: Candidate, candidates, t, y) -> ScenarioOutput:
    fit = chosen.fit
    owners = [name for name, shape in zip(inputs, fit.structures) for _ in range(shape.n_params)]
    rows = [{"input": owner, **row} for owner, row in zip(owners, fit.table())]
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
        SummaryFigure("aic", chosen.aic, "", "Akaike's information criterion n ln(2V/n) + 2p"),
        SummaryFigure("fit_wall_time_s", fit.wall_time_s, "s", "fit wall time"),
        SummaryFigure("model_evaluations", fit.nfev, "", "model evaluations"),
    ]
    if validation is not None:
        summary.insert(
            len(rows) + 1,
            SummaryFigure("validation_fit_percent", chosen.validation_fit, "%", f"NRMSE fit on {validation.source}"),
        )
    figures = [_overlay_figure("transfer_function_fit.png", output, t, y, fit.y_model, "the fitted model")]
    if validation is not None:
        y_v = validation.values[output] - validation.values[output][0]
        figures.append(
            _overlay_figure(
                "validation_fit.png",
                output,
                validation.t,
                y_v,
                chosen.validation_model,
                "the model on the validation record",
            )
        )
    figures += _band_figures(fit, inputs, log.period, float(t[-1] - t[0]))
    notes = [f"{name}: {s}" for name, s in zip(inputs, fit.structures)]
    attachments = []
    if len(candidates) > 1:
        orders = _orders_table(candidates, chosen)
        notes += _order_notes(orders, validation is not None)
        attachments.append(("orders.csv", lambda path: write_csv(orders, path, {c: "" for c in orders.columns})))
    notes.append(
        "Parameters: K in output/input units (per second with an integrator; SI where the layout gives "
        "units), λ and delays in s, natural frequencies ωn in rad/s, dampings ζ dimensionless, c_j in s^j, "
        "discrete a, b, f per sample; standard errors and 95 % intervals (± 1.96 standard errors) from the "
        "sandwich of the output error's Jacobian at the optimum with an autoregressive model of the residual of "
        f"order {fit.correlation_lags} (0: white residuals), so they hold for correlated residuals; a pole "
        "faster than ten times the sample rate (a lag under a tenth of the sample period) is not resolved "
        "by the record (standard error n/a)."
    )
    return table_output(rows, summary, figures, notes, attachments)


def _overlay_figure(name: str, output: str, t, measured, model, what: str) -> FigureSpec:
    frame = pd.DataFrame({"t": t, "measured": measured, "model": model})
    return FigureSpec(
        name,
        f"{output} (from its first sample) against {what}.",
        lambda: time_series_figure(
            frame, [Panel(output, [Line("measured", "measured", style="k-"), Line("model", "model", style="r--")])]
        ),
    )


def _band_figures(fit: TransferFunctionFit, inputs, dt: float, duration: float) -> list[FigureSpec]:
    """Bode plot and step response of each input's model with 95 % bands (computed once, when
    the first of them is drawn)."""
    from ..report.transfer_function_plots import bode_figure, step_figure

    @functools.cache
    def bands() -> dict:
        ends = np.cumsum([0] + [s.n_params for s in fit.structures])
        return {
            name: response_bands(s, theta, fit.covariance[a:b, a:b], dt, duration)
            for name, s, theta, a, b in zip(inputs, fit.structures, fit.params, ends[:-1], ends[1:])
        }

    return [
        FigureSpec("bode.png", "Bode plot of the fitted model with its 95 % band.", lambda: bode_figure(bands())),
        FigureSpec(
            "step_response.png",
            "Unit-step response of the fitted model with its 95 % band.",
            lambda: step_figure(bands()),
        ),
    ]


def _orders_table(candidates: list[Candidate], chosen: Candidate) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "structure": ["+".join(map(str, c.structures)) for c in candidates],
            "parameters": [sum(s.n_params for s in c.structures) for c in candidates],
            "fit_percent": [c.fit.fit_percent if c.fit else np.nan for c in candidates],
            "validation_fit_percent": [c.validation_fit for c in candidates],
            "aic": [c.aic for c in candidates],
            "chosen": [c is chosen for c in candidates],
            "refused": [c.refused.split(": ", 1)[-1] for c in candidates],
        }
    )


def _order_notes(orders: pd.DataFrame, validated: bool) -> list[str]:
    rule = "best validation fit" if validated else "least AIC (give --validate LOG to choose by validation fit)"
    lines = [f"Order selection ({rule}), also in orders.csv:"]
    for row in orders.itertuples():
        if row.refused:
            lines.append(f"  {row.structure}: refused — {row.refused}")
            continue
        checked = f", validation {row.validation_fit_percent:.2f} %" if validated else ""
        mark = " ← chosen" if row.chosen else ""
        figures = f"fit {row.fit_percent:.2f} %{checked}, AIC {row.aic:.1f}"
        lines.append(f"  {row.structure}: {row.parameters} parameters, {figures}{mark}")
    return lines

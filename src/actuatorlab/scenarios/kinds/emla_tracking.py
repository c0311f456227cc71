"""Scenario kind ``emla-tracking``: the optimal motion of ``emla-bilevel`` tracked by the three
EMLAs under robust decomposed system control with time- and state-varying load disturbances
(Bahari et al. Figs. 20–23: positions and errors, currents and voltages against their limits)."""

from __future__ import annotations

import numpy as np

from ...electromech.efficiency import load_actuators
from ...report.plots import Line, Panel, time_series_figure
from ...simulation.emla_tracking import simulate_tracking
from ..emla_schema import TrackingScenario
from ..output import FigureSpec, ScenarioOutput, SummaryFigure
from .emla_bilevel import comparison_summary, optimise


def run(scenario: TrackingScenario, progress=None) -> ScenarioOutput:
    result = optimise(scenario, None if progress is None else (lambda f: progress(0.5 * f)), scenario.samples)
    samples = result.samples  # the optimal motion evaluated by the recursion (42) at every sample
    actuators = load_actuators()
    run_ = simulate_tracking(
        actuators,
        samples.t,
        samples.position,
        samples.velocity,
        samples.force,
        gains=scenario.gains.build(),
        disturbance=scenario.disturbance.build(),
        step=scenario.step,
    )
    if progress is not None:
        progress(1.0)
    table = run_.to_dataframe()
    units = {c: _unit(c) for c in table.columns}
    summary = comparison_summary(result)[:4]
    for j, name in enumerate(run_.names):
        limits = run_.limits[name]
        error = run_.errors[:, j]
        summary += [
            SummaryFigure(f"max_error_{name}_m", float(np.abs(error).max()), "m", f"{name}: max position error"),
            SummaryFigure(f"rms_error_{name}_m", float(np.sqrt(np.mean(error**2))), "m", f"{name}: RMS position error"),
            SummaryFigure(
                f"peak_current_{name}_A",
                float(np.abs(run_.i_q[:, j]).max()),
                "A",
                f"{name}: peak |i_q| (limit {limits['max_current']:.3g} A)",
            ),
            SummaryFigure(
                f"peak_voltage_{name}_V",
                float(np.hypot(run_.v_d[:, j], run_.v_q[:, j]).max()),
                "V",
                f"{name}: peak |v_dq| (limit {limits['max_phase_voltage']:.3g} V)",
            ),
            SummaryFigure(
                f"limited_share_{name}",
                float((run_.current_limited[:, j] | run_.voltage_limited[:, j]).mean()),
                "",
                f"{name}: share of samples with a current or voltage clip",
            ),
        ]
    summary.append(
        SummaryFigure(
            "real_time_factor",
            float(run_.counters["real_time_factor"]),
            "",
            "tracking simulation: simulated time / wall time",
        )
    )
    names = run_.names
    figures = [
        FigureSpec(
            "tracking_positions.png",
            "Fig. 20 style: actuator positions against their references.",
            lambda: time_series_figure(
                table,
                [
                    Panel(
                        f"{n} [m]",
                        [Line(f"position_references_{n}", "reference", style="k--"), Line(f"positions_{n}", "RDSC")],
                    )
                    for n in names
                ],
                scenario.name,
            ),
        ),
        FigureSpec(
            "tracking_errors.png",
            "Fig. 21 style: position tracking errors.",
            lambda: time_series_figure(
                table.assign(**{f"e_{n}": run_.errors[:, j] for j, n in enumerate(names)}),
                [Panel("error [µm]", [Line(f"e_{n}", n, 1e6) for n in names])],
                scenario.name,
            ),
        ),
        *(
            FigureSpec(
                f"tracking_{quantity}s.png",
                f"Fig. {number} style: d- and q-axis {quantity}s.",
                lambda symbol=symbol, unit=unit, limit=limit: time_series_figure(
                    table,
                    [
                        Panel(
                            f"{n} [{unit}]",
                            [
                                Line(f"{symbol}_q_{n}", f"{symbol}_q"),
                                Line(f"{symbol}_d_{n}", f"{symbol}_d", style="--"),
                            ],
                            [(run_.limits[n][limit], "limit")],
                        )
                        for n in names
                    ],
                    scenario.name,
                ),
            )
            for quantity, number, symbol, unit, limit in (
                ("current", 22, "i", "A", "max_current"),
                ("voltage", 23, "v", "V", "max_phase_voltage"),
            )
        ),
    ]
    gains = scenario.gains.build()
    notes = [
        f"RDSC gains k = {gains.k}, σ = {gains.sigma}, δ = {gains.delta}, ε = {gains.epsilon}, i_d,ref = 0. "
        "The paper's δ = 75 000 read in SI makes the position loop faster than the velocity loop it drives, so "
        "after a current or voltage clip the loop locks into a limit cycle (the limited_share figures show whether "
        "clips happened).",
        "Disturbance: a bias, a sinusoid, velocity-dependent friction and a position spring, as fractions of each "
        "actuator's max force (scenario table disturbance).",
    ]
    return ScenarioOutput(table=table, units=units, labels={}, summary=summary, figures=figures, notes=notes)


def _unit(column: str) -> str:
    for prefix, unit in (
        ("i_", "A"),
        ("v_", "V"),
        ("torque", "N m"),
        ("forces", "N"),
        ("force_", "N"),
        ("velocit", "m/s"),
        ("position", "m"),
        ("load_positions", "m"),
    ):
        if column.startswith(prefix):
            return unit
    return "s" if column == "t" else ""

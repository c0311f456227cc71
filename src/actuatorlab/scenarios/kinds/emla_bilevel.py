"""Scenario kind ``emla-bilevel``: the leader–follower optimisation of the EMLA crane's motion
(Bahari et al. Algorithm 1): the optimal weights, the optimal trajectory with its actuator
forces, velocities and efficiencies, and the comparison with the fixed-weight baselines."""

from __future__ import annotations

import pandas as pd

from ...mechanics.emla_crane import ACTUATOR_NAMES
from ...optimization.leader import BilevelResult, run_bilevel
from ...report.plots import Line, Panel, time_series_figure
from ..emla_schema import BilevelScenario
from ..output import FigureSpec, ScenarioOutput, SummaryFigure


def optimise(scenario: BilevelScenario, progress=None, samples: int | None = None) -> BilevelResult:
    """Run the bilevel optimisation of ``scenario`` (progress as a fraction of the budget);
    ``samples``: points of the optimal trajectory returned (default: the collocation points)."""
    settings = scenario.leader.build()
    report = None if progress is None else (lambda p: progress(0.9 * p.done / p.budget))
    return run_bilevel(
        settings=settings, cache_path=scenario.leader.cache_file or None, progress=report, n_samples=samples
    )


def comparison_summary(result: BilevelResult) -> list[SummaryFigure]:
    """Efficiencies of the optimum and how far it beats each baseline (percentage points)."""
    optimum = result.optimum
    summary = [
        SummaryFigure("w_effort", optimum.weights[0], "", "optimal weight of ψ1 (effort)"),
        SummaryFigure("w_power", optimum.weights[1], "", "optimal weight of ψ2 (power)"),
        SummaryFigure("duration_s", optimum.duration, "s", "optimal motion time t_M"),
        SummaryFigure("efficiency_total", optimum.efficiency_total, "", "total energy efficiency of the optimum"),
    ]
    summary += [
        SummaryFigure(f"efficiency_{n}", optimum.efficiency_per_actuator[n], "", f"{n} energy efficiency")
        for n in ACTUATOR_NAMES
    ]
    for name, baseline in result.baselines.items():
        summary.append(
            SummaryFigure(
                f"gain_over_{name}_points",
                100.0 * (optimum.efficiency_total - baseline.efficiency_total),
                "%-points",
                f"total efficiency above the {name} baseline ({baseline.efficiency_total:.4f})",
            )
        )
    return summary


def run(scenario: BilevelScenario, progress=None) -> ScenarioOutput:
    result = optimise(scenario, progress)
    table = result.to_frame()
    units = dict(table.attrs.pop("units"))
    summary = comparison_summary(result)
    summary += [
        SummaryFigure("follower_solves", result.n_solved, "", "follower solves run now"),
        SummaryFigure("cached_solves", result.n_cached, "", "taken from the cache"),
        SummaryFigure("wall_time_s", result.elapsed, "s", "bilevel optimisation wall time"),
    ]
    comparison = pd.DataFrame(result.comparison())
    notes = [
        f"Leader criterion: {result.criterion} (total energy efficiency Σp/Σ(p/η) by default: (64) as printed "
        "grows with the free t_M and rewards slow motion). The baselines are candidates, so the optimum is at least "
        "as efficient as each in the criterion.",
        "ψ1 (effort) and ψ2 (mechanical power) are divided by their values on a reference trajectory (rest to "
        "rest, mid-range t_M), so neither dominates by units.",
        *[
            f"{r['name']}: w = ({r['w_effort']:.3f}, {r['w_power']:.3f}), t_M = {r['duration']:.2f} s, efficiency "
            f"lift {r['eta_lift']:.3f}, tilt {r['eta_tilt']:.3f}, extension {r['eta_extension']:.3f}, total "
            f"{r['eta_total']:.4f}"
            for r in result.comparison()
        ],
    ]
    panels = [
        Panel("forces [kN]", [Line(f"f_{n}", n, 1e-3) for n in ACTUATOR_NAMES]),
        Panel("velocities [m/s]", [Line(f"v_{n}", n) for n in ACTUATOR_NAMES]),
        Panel(
            "efficiency", [Line(f"eta_{n}", n) for n in ACTUATOR_NAMES] + [Line("eta_act", "η_Act (68)", style="k--")]
        ),
    ]
    figures = [
        FigureSpec(
            "bilevel_trajectory.png",
            "The optimal motion: actuator forces, velocities and efficiencies.",
            lambda: time_series_figure(table, panels, "optimal trajectory"),
        )
    ]
    attachments = [("comparison.csv", lambda path: _write_comparison(comparison, path))]
    return ScenarioOutput(
        table=table, units=units, labels={}, summary=summary, figures=figures, notes=notes, attachments=attachments
    )


def _write_comparison(comparison: pd.DataFrame, path) -> None:
    from ...io.results import write_csv

    write_csv(comparison, path, {c: "" for c in comparison.columns})

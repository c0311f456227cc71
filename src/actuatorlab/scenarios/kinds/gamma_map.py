"""Scenario kind ``gamma-map``: the static force–velocity maps f ∈ Γ(v) of Fig. 3 (a)–(d)."""

from __future__ import annotations

import string

import numpy as np
import pandas as pd

from ...hydraulics.quasistatic import (
    Openings,
    gamma,
    gamma_interval,
    gamma_segments,
    lam,
)
from ...report.plots import GammaCurve, gamma_map_figure
from ..output import FigureSpec, ScenarioOutput, SummaryFigure
from ..schema import GammaMapScenario

FREE_BETA = 1e-6
"""β [N s/m] used to invert Γ at f = 0 (β v + 0 ∈ Γ(v) with β → 0): the no-load velocity."""


def _as_list(x) -> list[float]:
    return [float(v) for v in np.atleast_1d(x)]


def velocity_grid(v_min: float, v_max: float, points: int) -> np.ndarray:
    """Sorted velocities [m/s] spanning [v_min, v_max] without v = 0 (Γ is a set there)."""
    v = np.linspace(v_min, v_max, points)
    return v[v != 0.0]


def run(scenario: GammaMapScenario, progress=None) -> ScenarioOutput:
    """Evaluate Γ for every (u_c, u_b) of every panel; the set Γ(0) is one row with v = 0."""
    circuit = scenario.circuit.build()
    v = velocity_grid(*scenario.velocity_range, scenario.points)
    rows, figures, summary = [], [], []
    for index, panel in enumerate(scenario.panels):
        letter = string.ascii_lowercase[index]
        u_c, u_b = np.meshgrid(_as_list(panel.u_c), _as_list(panel.u_b), indexing="ij")
        u_c, u_b = u_c.ravel(), u_b.ravel()
        openings = Openings.from_command(u_c[:, None], u_b[:, None])
        forces = gamma(circuit, openings, v[None, :])
        per_curve = Openings.from_command(u_c, u_b)
        low, high = (x.ravel() for x in gamma_interval(circuit, per_curve))
        free = lam(circuit, per_curve, FREE_BETA, 0.0)
        curves = []
        for i in range(u_c.size):
            label = f"u_c = {u_c[i]:g}, u_b = {u_b[i]:g}"
            curves.append(GammaCurve(label, v, forces[i], float(low[i]), float(high[i])))
            rows.append(pd.DataFrame({"panel": letter, "u_c": u_c[i], "u_b": u_b[i], "v": v,
                                      "f_low": forces[i], "f_high": forces[i]}))
            rows.append(pd.DataFrame({"panel": [letter], "u_c": [u_c[i]], "u_b": [u_b[i]], "v": [0.0],
                                      "f_low": [low[i]], "f_high": [high[i]]}))
            summary.append(SummaryFigure(f"{letter}.free_velocity[u_c={u_c[i]:g},u_b={u_b[i]:g}]_m_s",
                                         float(free[i]), "m/s", f"({letter}) v at f = 0, {label}"))
        segments = None
        if u_c.size == 1:
            seg = gamma_segments(circuit, Openings.from_command(u_c[0], u_b[0]), v)
            side = v > 0 if u_c[0] >= 0 else v < 0
            segments = {name: (v[side], values[side]) for name, values in seg.items()
                        if name[0] == ("+" if u_c[0] >= 0 else "-")}
        title = f"({letter}) {panel.title}"
        figures.append(FigureSpec(
            f"gamma_{letter}.png",
            f"Fig. 3({letter}) style: {panel.title}. The vertical segment at v = 0 is the set Γ(0) (65)"
            + ("; dashed lines are the segments of (64)." if segments else "."),
            lambda curves=curves, title=title, segments=segments: gamma_map_figure(curves, title, segments=segments),
        ))
        if progress is not None:
            progress((index + 1) / len(scenario.panels))
    table = pd.concat(rows, ignore_index=True)
    units = {"panel": "", "u_c": "1", "u_b": "1", "v": "m/s", "f_low": "N", "f_high": "N"}
    labels = {"panel": "figure panel", "u_c": "valve command", "u_b": "bleed opening", "v": "rod velocity",
              "f_low": "Γ(v), lower end at v = 0", "f_high": "Γ(v), upper end at v = 0"}
    notes = [
        "Γ from the chamber projections (61)–(62); at v = 0 the set [Γ₊(0), Γ₋(0)] of (65).",
        "Signs: v > 0 extends the rod; f > 0 pushes it out. Openings from the command by (67).",
        f"Free velocity: the v with 0 ∈ Γ(v), computed as Λ(β = {FREE_BETA:g} N s/m, f̄ = 0).",
    ]
    return ScenarioOutput(table=table, units=units, labels=labels, summary=summary, figures=figures, notes=notes)

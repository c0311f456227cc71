"""Scenario kind ``gamma-map``: the static force–velocity maps f ∈ Γ(v) of Fig. 3 (a)–(d), and
with the regeneration valve open f ∈ Γ_reg(v) with its flow Q_a (Fig. 8)."""

from __future__ import annotations

import string

import numpy as np
import pandas as pd

from ...hydraulics.quasistatic import Openings, gamma_interval, gamma_segments
from ...hydraulics.quasistatic.regeneration import gamma_regeneration, lam_regeneration, regeneration_velocity
from ...report.plots import GammaCurve, XYPanel, gamma_map_figure, xy_figure
from ..output import FigureSpec, ScenarioOutput, SummaryFigure
from ..arm_schema import GammaMapScenario

FREE_BETA = 1e-6
"""β [N s/m] used to invert Γ at f = 0 (β v + 0 ∈ Γ(v) with β → 0): the no-load velocity."""

UNITS = {
    "panel": "",
    "u_c": "1",
    "u_b": "1",
    "u_a": "1",
    "v": "m/s",
    "f_low": "N",
    "f_high": "N",
    "regeneration_flow": "m^3/s",
}
"""The unit of each column of the table."""
LABELS = {
    "panel": "figure panel",
    "u_c": "valve command",
    "u_b": "bleed opening",
    "u_a": "regeneration opening",
    "v": "rod velocity",
    "f_low": "Γ(v), lower end at v = 0",
    "f_high": "Γ(v), upper end at v = 0",
    "regeneration_flow": "regeneration flow Q_a rod → head",
}
"""What each column holds."""


def _as_list(x) -> list[float]:
    return [float(v) for v in np.atleast_1d(x)]


def velocity_grid(v_min: float, v_max: float, points: int) -> np.ndarray:
    """Sorted velocities [m/s] spanning [v_min, v_max] without v = 0 (Γ is a set there)."""
    v = np.linspace(v_min, v_max, points)
    return v[v != 0.0]


def run(scenario: GammaMapScenario, progress=None) -> ScenarioOutput:
    """Evaluate Γ_reg (Γ where u_a = 0) for every (u_c, u_b, u_a) of every panel; the set Γ(0)
    is one row with v = 0."""
    circuit = scenario.circuit.build()
    v = velocity_grid(*scenario.velocity_range, scenario.points)
    rows, figures, summary = [], [], []
    for index, panel in enumerate(scenario.panels):
        letter = string.ascii_lowercase[index]
        u_c, u_b, u_a = (
            x.ravel() for x in np.meshgrid(_as_list(panel.u_c), _as_list(panel.u_b), _as_list(panel.u_a), indexing="ij")
        )
        regenerating = bool(np.any(u_a > 0.0))
        openings = Openings.from_command(u_c[:, None], u_b[:, None])
        forces = gamma_regeneration(circuit, openings, u_a[:, None], v[None, :])
        flows = circuit.rod_area * regeneration_velocity(circuit, openings, u_a[:, None], v[None, :])
        per_curve = Openings.from_command(u_c, u_b)
        low, high = (x.ravel() for x in gamma_interval(circuit, per_curve))
        free = lam_regeneration(circuit, per_curve, u_a, FREE_BETA, 0.0)
        curves, flow_curves = [], []
        for i in range(u_c.size):
            label = f"u_c = {u_c[i]:g}, u_b = {u_b[i]:g}" + (f", u_a = {u_a[i]:g}" if regenerating else "")
            curves.append(GammaCurve(label, v, forces[i], float(low[i]), float(high[i])))
            flow_curves.append((label, v, flows[i] * 6e4))
            rows.append(
                pd.DataFrame(
                    {
                        "panel": letter,
                        "u_c": u_c[i],
                        "u_b": u_b[i],
                        "u_a": u_a[i],
                        "v": v,
                        "f_low": forces[i],
                        "f_high": forces[i],
                        "regeneration_flow": flows[i],
                    }
                )
            )
            rows.append(
                pd.DataFrame(
                    {
                        "panel": [letter],
                        "u_c": [u_c[i]],
                        "u_b": [u_b[i]],
                        "u_a": [u_a[i]],
                        "v": [0.0],
                        "f_low": [low[i]],
                        "f_high": [high[i]],
                        "regeneration_flow": [0.0],
                    }
                )
            )
            key = f"u_c={u_c[i]:g},u_b={u_b[i]:g}" + (f",u_a={u_a[i]:g}" if regenerating else "")
            summary.append(
                SummaryFigure(
                    f"{letter}.free_velocity[{key}]_m_s", float(free[i]), "m/s", f"({letter}) v at f = 0, {label}"
                )
            )
        segments = None
        if u_c.size == 1:
            seg = gamma_segments(circuit, Openings.from_command(u_c[0], u_b[0]), v)
            side = v > 0 if u_c[0] >= 0 else v < 0
            segments = {
                name: (v[side], values[side])
                for name, values in seg.items()
                if name[0] == ("+" if u_c[0] >= 0 else "-")
            }
        title = f"({letter}) {panel.title}"
        figures.append(
            FigureSpec(
                f"gamma_{letter}.png",
                f"Fig. 3({letter}) style: {panel.title}. The vertical segment at v = 0 is the set Γ(0) (65)"
                + ("; dashed lines are the segments of (64)." if segments else "."),
                lambda curves=curves, title=title, segments=segments: gamma_map_figure(
                    curves, title, segments=segments
                ),
            )
        )
        if regenerating:
            figures.append(
                FigureSpec(
                    f"regeneration_flow_{letter}.png",
                    f"Fig. 8 style: regeneration flow Q_a = A_r·v̂_a(v) (101) rod → head, {panel.title}.",
                    lambda flow_curves=flow_curves, title=title: xy_figure(
                        [XYPanel("$v$ [m/s]", "$Q_a$ [L/min]", flow_curves)], title=title
                    ),
                )
            )
        if progress is not None:
            progress((index + 1) / len(scenario.panels))
    table = pd.concat(rows, ignore_index=True)
    notes = [
        "Γ from the chamber projections (61)–(62); at v = 0 the set [Γ₊(0), Γ₋(0)] of (65).",
        "Signs: v > 0 extends the rod; f > 0 pushes it out. Openings from the command by (67).",
        f"Free velocity: the v with 0 ∈ Γ(v), computed as Λ(β = {FREE_BETA:g} N s/m, f̄ = 0).",
        "With u_a > 0: Γ_reg (98) with v̂_a (101) and Λ_reg (105); the regeneration valve acts while extending "
        "(û ∈ 𝒰₊ with u_tr > 0), flow rod → head (the text's 'head to rod' is a typo).",
    ]
    return ScenarioOutput(
        table=table, units=dict(UNITS), labels=dict(LABELS), summary=summary, figures=figures, notes=notes
    )

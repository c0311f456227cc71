"""Scenario kind ``network-map``: two identical actuators on one pump, Fig. 12 of Kikuuwe et al."""

from __future__ import annotations

import string

import numpy as np
import pandas as pd

from ...hydraulics.quasistatic import Openings
from ...hydraulics.quasistatic.network import PumpNetwork, gamma_network_interval, pump_relief_flow
from ...report.plots import XYPanel, xy_figure
from ..output import FigureSpec, ScenarioOutput, SummaryFigure
from ..arm_schema import NetworkMapScenario

PROBE_SPEED = 0.2
"""|v_1| [m/s] at which the key figures read f_1 and P (in the direction of actuator 1's command)."""


def run(scenario: NetworkMapScenario, progress=None) -> ScenarioOutput:
    """For every panel and fixed v_2, evaluate f_1, P and the pump relief flow along v_1."""
    circuit = scenario.circuit.build()
    network = PumpNetwork([circuit, circuit])
    v1 = scenario.velocities()
    rows, figures, summary = [], [], []
    for index, panel in enumerate(scenario.panels):
        letter = string.ascii_lowercase[index]
        openings = [Openings.from_command(u_c, panel.u_b) for u_c in panel.u_c]
        direction = 1.0 if panel.u_c[0] >= 0.0 else -1.0
        probe = int(np.argmin(np.abs(v1 - direction * PROBE_SPEED)))
        curves = {"f": [], "P": [], "relief": []}
        for v2 in panel.v_2:
            velocities = np.column_stack([v1, np.full(v1.size, v2)])
            pressure, low, _ = gamma_network_interval(network, openings, velocities)
            relief = pump_relief_flow(network, openings, velocities)
            label = f"v_2 = {v2:g} m/s"
            curves["f"].append((label, v1, low[:, 0] * 1e-3))
            curves["P"].append((label, v1, pressure * 1e-6))
            curves["relief"].append((label, v1, relief * 6e4))
            rows.append(
                pd.DataFrame(
                    {
                        "panel": letter,
                        "v_2": v2,
                        "v_1": v1,
                        "f_1": low[:, 0],
                        "pump_pressure": pressure,
                        "relief_flow": relief,
                    }
                )
            )
            key = f"{letter}[v_2={v2:g}]"
            summary += [
                SummaryFigure(
                    f"{key}.f_1_at_probe_N",
                    float(low[probe, 0]),
                    "N",
                    f"({letter}) f_1 at v_1 = {v1[probe]:.3g} m/s, {label}",
                ),
                SummaryFigure(
                    f"{key}.pump_pressure_at_probe_Pa",
                    float(pressure[probe]),
                    "Pa",
                    f"({letter}) P at v_1 = {v1[probe]:.3g} m/s, {label}",
                ),
            ]
        title = f"({letter}) {panel.title}"
        figures.append(
            FigureSpec(
                f"network_{letter}.png",
                f"Fig. 12 style, {panel.title}: actuator 1's force, the pump pressure (117) and the pump relief flow "
                "Ξ_P(P) (114b) against v_1, one curve per fixed v_2.",
                lambda curves=curves, title=title: xy_figure(
                    [
                        XYPanel("$v_1$ [m/s]", "$f_1$ [kN]", curves["f"]),
                        XYPanel("$v_1$ [m/s]", "$P$ [MPa]", curves["P"]),
                        XYPanel("$v_1$ [m/s]", "relief flow [L/min]", curves["relief"]),
                    ],
                    title=title,
                ),
            )
        )
        if progress is not None:
            progress((index + 1) / len(scenario.panels))
    table = pd.concat(rows, ignore_index=True)
    units = {"panel": "", "v_2": "m/s", "v_1": "m/s", "f_1": "N", "pump_pressure": "Pa", "relief_flow": "m^3/s"}
    labels = {
        "panel": "figure panel",
        "v_2": "velocity of actuator 2",
        "v_1": "velocity of actuator 1",
        "f_1": "force of actuator 1, Γ̂_1(P, v_1) (118)",
        "pump_pressure": "pump pressure P (117)",
        "relief_flow": "pump relief flow Ξ_P(P) (114b)",
    }
    notes = [
        "Two identical actuators of (66) on one pump (Sec. 6.1): P from (117), then f_j ∈ Γ̂_j(P, v_j) (118).",
        "(107m) is read as A_r·P (the paper prints A_r·P_M). Signs: v > 0 extends; f > 0 pushes the rod out.",
        "Expected (paper Sec. 6.1): a larger |v_2| lowers P, the relief flow, and v_1 at a given force f_1.",
    ]
    return ScenarioOutput(table=table, units=units, labels=labels, summary=summary, figures=figures, notes=notes)

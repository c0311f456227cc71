"""Scenario kind ``emla-efficiency-maps``: efficiency of each Table I EMLA over its force and
velocity ranges, infeasible points (current, voltage, speed limits) blank (Bahari et al. Fig. 7)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...electromech.efficiency import efficiency_map, load_actuators
from ...report.plots import heatmap_figure
from ..emla_schema import EfficiencyMapsScenario
from ..output import FigureSpec, ScenarioOutput, SummaryFigure

UNITS = {
    "actuator": "",
    "force": "N",
    "velocity": "m/s",
    "efficiency": "1",
    "feasible": "",
    "electrical_power": "W",
    "mechanical_power": "W",
}
"""The unit of each column of the table."""


def run(scenario: EfficiencyMapsScenario, progress=None) -> ScenarioOutput:
    rows, summary, figures = [], [], []
    actuators = load_actuators()
    for index, (name, actuator) in enumerate(actuators.items()):
        forces = np.linspace(-actuator.max_force, actuator.max_force, scenario.points)
        velocities = np.linspace(-actuator.max_velocity, actuator.max_velocity, scenario.points)
        grid = efficiency_map(actuator, forces, velocities)
        f, v = np.meshgrid(forces, velocities, indexing="ij")
        rows.append(
            pd.DataFrame(
                {
                    "actuator": name,
                    "force": f.ravel(),
                    "velocity": v.ravel(),
                    "efficiency": grid.efficiency.ravel(),
                    "feasible": grid.feasible.ravel(),
                    "electrical_power": grid.electrical_power.ravel(),
                    "mechanical_power": grid.mechanical_power.ravel(),
                }
            )
        )
        motoring = grid.feasible & (grid.mechanical_power > 0)
        summary += [
            SummaryFigure(
                f"peak_efficiency_{name}",
                float(np.nanmax(grid.efficiency)),
                "",
                f"{name} ({actuator.name}): peak efficiency",
            ),
            SummaryFigure(
                f"mean_motoring_efficiency_{name}",
                float(np.nanmean(grid.efficiency[motoring])),
                "",
                f"{name}: mean efficiency over the feasible motoring region",
            ),
            SummaryFigure(
                f"feasible_share_{name}",
                float(grid.feasible.mean()),
                "",
                f"{name}: share of the force–velocity box inside the limits",
            ),
        ]
        figures.append(
            FigureSpec(
                f"efficiency_{name}.png",
                f"Fig. 7 style: efficiency of the {name} EMLA ({actuator.name}); blank where a "
                "current, voltage or speed limit is exceeded.",
                lambda grid=grid, name=name: heatmap_figure(
                    grid.velocities,
                    grid.forces / 1e3,
                    grid.efficiency,
                    "velocity [m/s]",
                    "force [kN]",
                    "efficiency",
                    title=name,
                ),
            )
        )
        if progress is not None:
            progress((index + 1) / len(actuators))
    table = pd.concat(rows, ignore_index=True)
    notes = [
        "Loss models (the paper's loss table is missing): copper, core (hysteresis + eddy in electrical speed), "
        "inverter conduction and switching, friction and screw losses; each parameter's source or assumption is "
        "in electromech/data/actuators.toml.",
        "Signs: f > 0 and v > 0 together are motoring (η = P_out/P_in); opposite signs regenerate "
        "(η = P_in/P_out, 0 where the losses exceed the power).",
    ]
    return ScenarioOutput(table=table, units=dict(UNITS), labels={}, summary=summary, figures=figures, notes=notes)

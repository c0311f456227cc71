"""Scenario kind ``arms-one-pump``: several arms of Sec. 4.3 on one pump (Fig. 13)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...hydraulics.pressure_dynamics import openings_from_command
from ...report.plots import Line, Panel, time_series_figure
from ...simulation.arm import simulate_arms
from ...simulation.pressure_arm import simulate_arms_pressure
from ...numerics.signals import time_grid
from ..output import FigureSpec, ScenarioOutput
from ..arm_schema import ArmsOnePumpScenario
from .arm_inputs import sample_arms_inputs
from .arm_figures import TIMING_FIGURES, arms_figure_info, arms_figure_values, summary_figures, timing_values

ARM_CHANNELS = (
    "valve_command",
    "external_force",
    "theta",
    "theta_rate",
    "rod_velocity",
    "force",
    "head_pressure",
    "rod_pressure",
)


def simulate_scenario(scenario: ArmsOnePumpScenario, progress=None):
    """One ``SimulationResult`` per arm; every result carries the shared pump pressure."""
    t = time_grid(scenario.simulation.step, scenario.simulation.duration)
    units = scenario.arms
    commands, bleed, forces = sample_arms_inputs(scenario, t)
    arms = [u.build(f"arms[{j}]") for j, u in enumerate(units)]
    circuit = scenario.circuit.build()
    circuits = [circuit] * len(arms)
    angles = [u.initial_angle for u in units]
    rates = [u.initial_rate for u in units]
    angle_ranges = [u.angle_range for u in units]
    if scenario.model == "quasistatic":
        return simulate_arms(
            arms,
            circuits,
            scenario.relaxation.build(),
            t,
            commands,
            bleed,
            forces,
            angles,
            rates,
            progress=progress,
            length_range=scenario.cylinder.length_range(),
            angle_ranges=angle_ranges,
            shared_pump=True,
        )
    fluid = scenario.pressure_dynamics
    openings = np.stack([openings_from_command(commands[:, j], bleed) for j in range(len(arms))], axis=1)
    return simulate_arms_pressure(
        arms,
        circuits,
        [fluid.build(scenario.cylinder)] * len(arms),
        t,
        openings,
        forces,
        angles,
        rates,
        initial_low_pressure=fluid.initial_low_pressure,
        solver=fluid.solver,
        rtol=fluid.rtol,
        progress=progress,
        angle_ranges=angle_ranges,
    )


def run(scenario: ArmsOnePumpScenario, progress=None) -> ScenarioOutput:
    """Simulate; tabulate every arm's channels (suffix ``_1``, ``_2``, …) and the pump pressure."""
    return output(scenario, simulate_scenario(scenario, progress))


def output(scenario: ArmsOnePumpScenario, results) -> ScenarioOutput:
    """The table, key figures, plot and notes of simulated ``results`` (one per arm) of ``scenario``."""
    t = results[0].t
    data, units, labels = {"t": t}, {"t": "s"}, {"t": "time"}
    for j, result in enumerate(results, start=1):
        for name in ARM_CHANNELS:
            column = f"{name}_{j}"
            data[column] = result[name]
            units[column] = result.channels[name].unit
            labels[column] = f"{result.channels[name].label}, arm {j}"
    data["pump_pressure"] = results[0]["pump_pressure"]
    units["pump_pressure"] = results[0].channels["pump_pressure"].unit
    labels["pump_pressure"] = "pump pressure P"
    table = pd.DataFrame(data)
    deg = 180.0 / np.pi
    n = len(results)
    arm_lines = lambda name, scale=1.0: [Line(f"{name}_{j}", f"arm {j}", scale) for j in range(1, n + 1)]  # noqa: E731
    panels = [
        Panel("u_c [-]", arm_lines("valve_command")),
        Panel("θ [deg]", arm_lines("theta", deg)),
        Panel("θ̇ [deg/s]", arm_lines("theta_rate", deg)),
        Panel("f [kN]", arm_lines("force", 1e-3)),
        Panel("P [MPa]", [Line("pump_pressure", "pump", 1e-6)]),
    ]
    values = arms_figure_values(
        np.array([r["theta"] for r in results]),
        np.array([r["theta_rate"] for r in results]),
        table["pump_pressure"].to_numpy(),
    )
    summary = [
        *summary_figures(values, arms_figure_info(n)),
        *summary_figures(
            timing_values(scenario.simulation.duration, results[0].counters["loop_time_s"]), TIMING_FIGURES
        ),
    ]
    figures = [
        FigureSpec(
            "arms.png",
            "Fig. 13 style: commands, angles, rates and forces of every arm, and the "
            "shared pump pressure. An arm slows while another draws oil from the pump.",
            lambda: time_series_figure(table, panels, title=f"{scenario.name}"),
        )
    ]
    notes = [
        f"{n} arms of Sec. 4.3 on one pump, model: {scenario.model}"
        + (
            " (relaxed, pump pressure from (126), velocities from Λ̂ (122))."
            if scenario.model == "quasistatic"
            else " (compressible chambers and pump line)."
        ),
        "Signs: u_c < 0 retracts the rod and raises the arm; f > 0 pushes the rod out.",
    ]
    return ScenarioOutput(table, units, labels, summary, figures, notes, results[0].counters)

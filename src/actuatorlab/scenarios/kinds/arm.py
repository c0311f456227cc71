"""Scenario kind ``arm``: the single-DOF arm of Kikuuwe et al. Sec. 4.3 (Figs. 5–6).

The kind is simulated here and presented by :mod:`.arm_output` (see
:data:`~actuatorlab.scenarios.runner.SIMULATED_APART`): the simulation's imports hold no
plotting or table library, so that it can run in a forked child while the parent loads them.
"""

from __future__ import annotations

from ...hydraulics.pressure_dynamics import openings_from_command
from ...simulation.arm import simulate_arm
from ...simulation.pressure_arm import simulate_arms_pressure
from ...simulation.result import SimulationResult
from ...numerics.signals import time_grid
from ..output import ScenarioOutput
from ..arm_schema import ArmScenario
from .arm_batch import sample_inputs
from .arm_output import output


def simulate_scenario(scenario: ArmScenario, progress=None) -> SimulationResult:
    """Sample the inputs on the time grid, check their ranges, and simulate the arm with the
    scenario's ``model``."""
    t = time_grid(scenario.simulation.step, scenario.simulation.duration)
    inputs = sample_inputs(scenario, t)
    arm, circuit = scenario.arm.build(), scenario.circuit.build()
    if scenario.model == "quasistatic":
        return simulate_arm(
            arm,
            circuit,
            scenario.relaxation.build(),
            t,
            inputs["valve_command"],
            inputs["bleed"],
            inputs["external_force"],
            initial_angle=scenario.arm.initial_angle,
            initial_rate=scenario.arm.initial_rate,
            regeneration=inputs["regeneration"],
            progress=progress,
            length_range=scenario.cylinder.length_range(),
            angle_range=scenario.arm.angle_range,
        )
    fluid = scenario.pressure_dynamics
    openings = openings_from_command(inputs["valve_command"], inputs["bleed"], inputs["regeneration"])
    (result,) = simulate_arms_pressure(
        [arm],
        [circuit],
        [fluid.build(scenario.cylinder)],
        t,
        openings[:, None, :],
        inputs["external_force"][:, None],
        [scenario.arm.initial_angle],
        [scenario.arm.initial_rate],
        initial_low_pressure=fluid.initial_low_pressure,
        solver=fluid.solver,
        rtol=fluid.rtol,
        progress=progress,
        angle_ranges=[scenario.arm.angle_range],
    )
    return result


def run(scenario: ArmScenario, progress=None) -> ScenarioOutput:
    """Simulate, then collect the table, the key figures and the Fig. 6-style plots."""
    return output(scenario, simulate_scenario(scenario, progress))

"""Scenario kind ``arm``: the single-DOF arm of Kikuuwe et al. Sec. 4.3 (Figs. 5–6).

The simulation (:func:`simulate_scenario`) and its presentation (:func:`output`, from
:mod:`.arm_output`) are apart, and this module imports no numba until it simulates: a run asked
for two processes simulates in a forked child while this process loads the output's libraries
(``apart`` in :data:`~actuatorlab.scenarios.kinds.KINDS`, :func:`actuatorlab.scenarios.runner.simulate`).
"""

from __future__ import annotations

from ...numerics.signals import time_grid
from ...simulation.result import SimulationResult
from ..arm_schema import ArmScenario
from ..output import ScenarioOutput
from .arm_inputs import sample_inputs
from .arm_output import output


def simulate_scenario(scenario: ArmScenario, progress=None) -> SimulationResult:
    """Sample the inputs on the time grid, check their ranges, build the arm, circuit and
    relaxation or fluid models (a bad value is reported under its table) and simulate the arm
    with the scenario's ``model``: quasistatic (:func:`~actuatorlab.simulation.arm.simulate_arm`)
    or pressure dynamics (:func:`~actuatorlab.simulation.pressure_arm.simulate_arm_pressure`)."""
    from ...simulation.arm import simulate_arm  # numba: here, where the simulation runs
    from ...simulation.pressure_arm import simulate_arm_pressure

    t = time_grid(scenario.simulation.step, scenario.simulation.duration)
    inputs = sample_inputs(scenario, t)
    arm, circuit = scenario.arm.build(), scenario.circuit.build()
    drive = (t, inputs["valve_command"], inputs["bleed"], inputs["external_force"])
    state = {
        "initial_angle": scenario.arm.initial_angle,
        "initial_rate": scenario.arm.initial_rate,
        "regeneration": inputs["regeneration"],
        "angle_range": scenario.arm.angle_range,
    }
    if scenario.model == "quasistatic":
        return simulate_arm(
            arm,
            circuit,
            scenario.relaxation.build(),
            *drive,
            progress=progress,
            **state,
            length_range=scenario.cylinder.length_range(),
        )
    fluid = scenario.pressure_dynamics
    return simulate_arm_pressure(
        arm,
        circuit,
        fluid.build(scenario.cylinder),
        *drive,
        progress=progress,
        **state,
        initial_low_pressure=fluid.initial_low_pressure,
        solver=fluid.solver,
        rtol=fluid.rtol,
    )


def run(scenario: ArmScenario, progress=None) -> ScenarioOutput:
    """Simulate, then collect the table, the key figures and the Fig. 6-style plots."""
    return output(scenario, simulate_scenario(scenario, progress))

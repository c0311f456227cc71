"""The ``arm`` kind's simulation as a :class:`~actuatorlab.io.named_call.NamedCall`, prepared
without numba: the inputs sampled on the time grid and checked, the arm, circuit, relaxation or
fluid models built from the scenario (a bad value is reported here, under its table). The call
runs where numba is loaded: in this process (:func:`.arm.simulate_scenario`) or in a forked child
(``runner.simulate``).
"""

from __future__ import annotations

from ...io.named_call import NamedCall
from ...numerics.signals import time_grid
from ..arm_schema import ArmScenario
from .arm_inputs import sample_inputs


def simulation_call(scenario: ArmScenario) -> NamedCall:
    """The call that simulates ``scenario`` with its ``model``: ``simulation.arm.simulate_arm``
    (quasistatic) or ``simulation.pressure_arm.simulate_arm_pressure``; it returns a
    :class:`~actuatorlab.simulation.result.SimulationResult`."""
    t = time_grid(scenario.simulation.step, scenario.simulation.duration)
    inputs = sample_inputs(scenario, t)
    arm, circuit = scenario.arm.build(), scenario.circuit.build()
    drive = (t, inputs["valve_command"], inputs["bleed"], inputs["external_force"])
    state = {"initial_angle": scenario.arm.initial_angle, "initial_rate": scenario.arm.initial_rate,
             "regeneration": inputs["regeneration"], "angle_range": scenario.arm.angle_range}
    if scenario.model == "quasistatic":
        return NamedCall("actuatorlab.simulation.arm", "simulate_arm", (arm, circuit, scenario.relaxation.build(), *drive),
                         {**state, "length_range": scenario.cylinder.length_range()})
    fluid = scenario.pressure_dynamics
    return NamedCall("actuatorlab.simulation.pressure_arm", "simulate_arm_pressure",
                     (arm, circuit, fluid.build(scenario.cylinder), *drive),
                     {**state, "initial_low_pressure": fluid.initial_low_pressure, "solver": fluid.solver,
                      "rtol": fluid.rtol})

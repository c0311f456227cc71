"""Scenario kind ``arm``: the single-DOF arm of Kikuuwe et al. Sec. 4.3 (Figs. 5–6).

The kind's simulation is prepared by :mod:`.arm_call` (without numba) and its result presented
by :mod:`.arm_output` (without numba either; its ``apart`` modules in
:data:`~actuatorlab.scenarios.kinds.KINDS`): the command runs the call in a forked child that
loaded numba while this process read the scenario, and loads the plotting and table libraries
meanwhile. This module makes the call in-process.
"""

from __future__ import annotations

from ...simulation.result import SimulationResult
from ..arm_schema import ArmScenario
from ..output import ScenarioOutput
from .arm_call import simulation_call
from .arm_output import output


def simulate_scenario(scenario: ArmScenario, progress=None) -> SimulationResult:
    """Sample the inputs on the time grid, check their ranges, and simulate the arm with the
    scenario's ``model`` (:func:`.arm_call.simulation_call`, made here)."""
    return simulation_call(scenario)(progress)


def run(scenario: ArmScenario, progress=None) -> ScenarioOutput:
    """Simulate, then collect the table, the key figures and the Fig. 6-style plots."""
    return output(scenario, simulate_scenario(scenario, progress))

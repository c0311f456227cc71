"""Scenario kinds: each module turns a validated scenario into a ``ScenarioOutput``.

:data:`KINDS` is the one table of kinds: for each, where its schema, its run and (if it has
them) its batched sweep live, and whether a run can be simulated apart. Every module is named
by string and imported when a scenario of that kind is parsed or run, so that an arm file does
not load the crane's, the EMLA's or MuJoCo's stack; ``tests/test_layers.py`` reads the table
and holds these imports to the layers like any other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """Where one scenario kind lives (module names relative to ``actuatorlab.scenarios``).

    ``schema``: "module:Class" of its pydantic schema; ``run``: the module of ``kinds`` with
    ``run(scenario, progress) -> ScenarioOutput``; ``batch``: the module of ``kinds`` with
    ``batch_support`` and ``run_batch`` for compiled sweep batches ("" if none); ``apart``: the
    run module also has ``simulate_scenario(scenario, progress)`` (picklable result; numba
    imported only inside it) and ``output(scenario, result)``, so that a run asked for two
    processes simulates in a forked child (see :func:`actuatorlab.scenarios.runner.simulate`).
    """

    schema: str
    run: str
    batch: str = ""
    apart: bool = False


KINDS: dict[str, Kind] = {
    "arm": Kind("arm_schema:ArmScenario", "arm", batch="arm_batch", apart=True),
    "model-comparison": Kind("arm_schema:ModelComparisonScenario", "model_comparison"),
    "arms-one-pump": Kind("arm_schema:ArmsOnePumpScenario", "arms_one_pump", batch="arm_batch"),
    "gamma-map": Kind("arm_schema:GammaMapScenario", "gamma_map"),
    "network-map": Kind("arm_schema:NetworkMapScenario", "network_map"),
    "identify-robot": Kind("robot_schema:IdentifyRobotScenario", "identify_robot"),
    "ieha": Kind("ieha_schema:IEHAScenario", "ieha"),
    "ieha-identify": Kind("ieha_schema:IEHAIdentifyScenario", "ieha_identify"),
    "ieha-mpc": Kind("ieha_schema:IEHAMPCScenario", "ieha_mpc"),
    "crane-vdc": Kind("crane_schema:CraneVDCScenario", "crane_vdc"),
    "crane-inverse-dynamics": Kind("crane_schema:CraneInverseDynamicsScenario", "crane_inverse_dynamics"),
    "emla-efficiency-maps": Kind("emla_schema:EfficiencyMapsScenario", "emla_efficiency_maps"),
    "emla-bilevel": Kind("emla_schema:BilevelScenario", "emla_bilevel"),
    "emla-tracking": Kind("emla_schema:TrackingScenario", "emla_tracking"),
    "machine": Kind("machine_schema:MachineScenario", "machine"),
    "circuit": Kind("circuit_schema:CircuitScenario", "circuit"),
}
"""Scenario kind (the ``kind`` of a scenario file) → where it lives."""

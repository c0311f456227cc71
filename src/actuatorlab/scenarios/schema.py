"""The registry of scenario kinds' schemas: which pydantic class validates a file of each kind.

A kind's schema module is imported when a file of that kind is parsed, so loading an arm file
does not import the crane's, the EMLA's or MuJoCo's stack. The schemas themselves live in one
module per family (``arm_schema``, ``robot_schema``, ``ieha_schema``, ``crane_schema``,
``emla_schema``, ``machine_schema``) on the shared base of :mod:`.spec_base` and
:mod:`.signal_specs`.
"""

from __future__ import annotations

import importlib

from .signal_specs import SIGNAL_TYPES
from .spec_base import Spec

LOC_TAGS = frozenset(SIGNAL_TYPES) | {"common", "per-valve"}
"""Union tags pydantic inserts into error locations; they are not TOML keys and are dropped."""

SCENARIO_CLASSES: dict[str, str] = {
    "arm": "arm_schema:ArmScenario",
    "model-comparison": "arm_schema:ModelComparisonScenario",
    "arms-one-pump": "arm_schema:ArmsOnePumpScenario",
    "gamma-map": "arm_schema:GammaMapScenario",
    "network-map": "arm_schema:NetworkMapScenario",
    "identify-robot": "robot_schema:IdentifyRobotScenario",
    "ieha": "ieha_schema:IEHAScenario",
    "ieha-identify": "ieha_schema:IEHAIdentifyScenario",
    "ieha-mpc": "ieha_schema:IEHAMPCScenario",
    "crane-vdc": "crane_schema:CraneVDCScenario",
    "crane-inverse-dynamics": "crane_schema:CraneInverseDynamicsScenario",
    "emla-efficiency-maps": "emla_schema:EfficiencyMapsScenario",
    "emla-bilevel": "emla_schema:BilevelScenario",
    "emla-tracking": "emla_schema:TrackingScenario",
    "machine": "machine_schema:MachineScenario",
}
"""Scenario kind → "module:class" of its schema in ``scenarios``, imported when a scenario of
that kind is parsed (an arm file does not load the crane's, the EMLA's or MuJoCo's stack)."""


def scenario_class(kind: str) -> type[Spec]:
    """The schema class of scenarios of ``kind`` (a key of ``SCENARIO_CLASSES``)."""
    module, name = SCENARIO_CLASSES[kind].split(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)


Scenario = Spec
"""Any scenario: a ``Spec`` whose ``kind`` names its class in ``SCENARIO_CLASSES``."""

"""The schema of each scenario kind: which pydantic class validates a file of that kind.

A kind's schema module is imported when a file of that kind is parsed, so loading an arm file
does not import the crane's, the EMLA's or MuJoCo's stack. The schemas themselves live in one
module per family (``arm_schema``, ``robot_schema``, ``ieha_schema``, ``crane_schema``,
``emla_schema``, ``machine_schema``) on the shared base of :mod:`.spec_base` and
:mod:`.signal_specs`.
"""

from __future__ import annotations

import importlib

from ..errors import needs_extras
from .kinds import KINDS
from .signal_specs import SIGNAL_TYPES
from .spec_base import Spec

LOC_TAGS = frozenset(SIGNAL_TYPES) | {"common", "per-valve"}
"""Union tags pydantic inserts into error locations; they are not TOML keys and are dropped."""


def scenario_class(kind: str) -> type[Spec]:
    """The schema class of scenarios of ``kind`` (a key of :data:`~.kinds.KINDS`)."""
    module, name = KINDS[kind].schema.split(":")
    with needs_extras(f"the {kind} kind"):
        return getattr(importlib.import_module(f"{__package__}.{module}"), name)


Scenario = Spec
"""Any scenario: a ``Spec`` whose ``kind`` names its class in :data:`~.kinds.KINDS`."""

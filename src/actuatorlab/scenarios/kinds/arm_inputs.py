"""The inputs of the arm kinds sampled on their time grid, their ranges checked: ``arm``
(``sample_inputs``) and ``arms-one-pump`` (``sample_arms_inputs``), for a single run and a batch
alike. Imports no numba."""

from __future__ import annotations

import numpy as np

from ..arm_schema import INPUT_DIMENSIONS


def sample_inputs(scenario, t: np.ndarray, base=None, sampled: dict | None = None) -> dict[str, np.ndarray]:
    """The ``arm`` scenario's inputs sampled on ``t`` [s], their ranges checked; those whose
    signal is the ``base`` scenario's are taken from its inputs ``sampled`` (a batch's variants
    resample only what they change)."""
    same = (
        []
        if base is None
        else [name for name in INPUT_DIMENSIONS if getattr(scenario.inputs, name) is getattr(base.inputs, name)]
    )
    changed = [name for name in INPUT_DIMENSIONS if name not in same]
    scenario.check_inputs(t, changed)
    signals = scenario.inputs.signals()
    return {name: sampled[name] if name in same else signals[name].sample(t) for name in INPUT_DIMENSIONS}


def sample_arms_inputs(scenario, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``arms-one-pump`` scenario's inputs on ``t`` [s]: valve commands (n, N), bleed (n,),
    external forces [N] (n, N), their ranges checked."""
    scenario.check_inputs(t)
    bleed = scenario.bleed.build("dimensionless", "bleed").sample(t)
    commands = np.column_stack([u.valve_command.build("dimensionless").sample(t) for u in scenario.arms])
    forces = np.column_stack([u.external_force.build("force").sample(t) for u in scenario.arms])
    return commands, bleed, forces

"""Closed-loop valve commands: a cylinder's stroke or a joint of the model driven to a target.

A ``ClosedLoop`` names what is measured — the cylinder's stroke x = ℓ − ℓ₀ [m] (ℓ₀ its fully
retracted pin-to-pin length) or ``joint``'s position qpos [rad for a hinge, m for a slide] — the
target (a signal of time in the same unit) and the sampled PI controller of
:mod:`actuatorlab.control.pi` that turns the error into the valve command u_c. The compiled loop
(:mod:`.loop`) samples it every ``controller.sample_time``, which must be a whole number of
MuJoCo steps. The feed-forward uses the target's rate over the coming sample,
(r(t_j + T) − r(t_j))/T: the target is a planned motion, known ahead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..control.pi import PIController
from ..errors import ParameterError
from .cylinders import Signal
from .inputs import sample_signal
from .model_file import movable_joint
from .loop import CT_EVERY, CT_L0, CT_MODE, CT_PI, CT_QPOS, CTRL_JOINT, CTRL_STROKE, N_CTRL


@dataclass(frozen=True)
class ClosedLoop:
    """A cylinder under closed-loop control: ``target`` (a signal of t [s]: the stroke [m], or
    ``joint``'s qpos [rad or m] when ``joint`` is given) and its ``controller``."""

    target: Signal
    controller: PIController
    joint: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.controller, PIController):
            raise ParameterError(f"controller = {self.controller!r}: give a PIController")
        if self.joint is not None and (not isinstance(self.joint, str) or not self.joint):
            raise ParameterError(f"joint = {self.joint!r}: give the name of a joint of the model")


def steps_per_sample(sample_time: float, h: float, who: str) -> int:
    """The whole number of steps h [s] in ``sample_time`` [s]; ``ParameterError`` otherwise."""
    ratio = sample_time / h
    steps = round(ratio)
    if steps < 1 or abs(ratio - steps) > 1e-9 * max(ratio, 1.0):
        lower = max(1, math.floor(ratio)) * h
        raise ParameterError(
            f"{who}: sample_time = {sample_time:g} s is not a multiple of the model's timestep {h:g} s; give "
            f"{lower:g} s or {(max(1, math.floor(ratio)) + 1) * h:g} s"
        )
    return steps


def control_tables(system, controllers: Mapping[str, ClosedLoop], t: np.ndarray) -> tuple[np.ndarray, ...]:
    """(ctrl (n, N_CTRL), targets (n_steps, n), target rates (n_steps, n)) of the compiled loop
    for ``controllers`` by actuator name on the step grid ``t`` [s] of ``system``."""
    actuators = system.actuators
    n, h = len(actuators), system.timestep
    unknown = sorted(set(controllers) - {a.name for a in actuators})
    if unknown:
        raise ParameterError(
            f"controllers: unknown actuators {unknown}; the actuators are {sorted(a.name for a in actuators)}"
        )
    ctrl = np.zeros((n, N_CTRL))
    ctrl[:, CT_EVERY] = 1.0
    targets = np.zeros((t.size, n))
    rates = np.zeros((t.size, n))
    for i, a in enumerate(actuators):
        loop = controllers.get(a.name)
        if loop is None:
            continue
        who = f"actuator {a.name!r}"
        every = steps_per_sample(loop.controller.sample_time, h, f"{who}: controller")
        if loop.joint is None:
            lo = a.length_limits[0]
            if not math.isfinite(lo):
                raise ParameterError(f"{who}: a stroke target needs the cylinder's retracted length (min_length)")
            ctrl[i, CT_MODE], ctrl[i, CT_L0] = CTRL_STROKE, lo
        else:
            ctrl[i, CT_MODE], ctrl[i, CT_QPOS] = (
                CTRL_JOINT,
                system.model.jnt_qposadr[movable_joint(system.model, loop.joint, f"{who}: joint")],
            )
        ctrl[i, CT_EVERY] = every
        ctrl[i, CT_PI:] = loop.controller.kernel_array()
        period = every * h
        targets[:, i] = sample_signal(f"{who}: target", loop.target, t)
        shifted = sample_signal(f"{who}: target", loop.target, t + period)
        rates[:, i] = (shifted - targets[:, i]) / period
    return ctrl, targets, rates

"""Pressures logged absolute and read as gauge (an offset to gauge forgotten), seen in the
robot's own equations.

A constant δ [Pa] added to every logged chamber pressure adds arm(q)·δ·(A+ − A−) to the torque
a cylinder exerts (the right-hand side of the mechanical rows of
:mod:`~actuatorlab.identification.robot_least_squares`). Fitted as one more column of the
pooled mechanical least squares, beside the inertias, frictions and gravity loads, its estimate
is the offset of the logs' pressures above gauge: about 0 for gauge logs, about one atmosphere
for absolute ones, which the other parameters otherwise absorb (W2 −5 %, M2 +3 % on the
``identify-2dof`` logs of Steps 1–3, whose estimate is then 1.007–1.027 atm, and 0.007–0.027 atm
read as gauge, over four noise seeds).

The torque sees a constant torque error (a model error, or noise in the regressors of a poorly
filtered log: 1.9 atm with a single causal pass, 3.8 atm unfiltered) the same way, so a second,
independent witness must agree: the orifice terms of the fluid rows, whose residual must shrink
when every pressure is moved back by the offset the torques give.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..errors import ParameterError
from ..mechanics.robot_dynamics import HydraulicRobot
from .robot_least_squares import Experiment, IdentificationOptions, Rows, solve_least_squares, stack_rows

ATMOSPHERE = 101325.0
"""The standard atmosphere [Pa]: an absolute sensor's reading minus a gauge one's."""
ATMOSPHERIC_BAND = (0.5, 1.5)
"""Offsets [atm] counted as about one atmosphere (the local air pressure, even on a mountain,
lies well inside; an offset outside is not an atmosphere and is left to the diagnosis)."""
SIGNIFICANCE = 10.0
"""Standard errors by which the offset must differ from 0 to count (the least-squares formula's,
which filtered noisy logs make several times too small)."""


@dataclass(frozen=True)
class PressureOffset:
    """The pressures' offset above gauge fitted with the torques [Pa], its standard error [Pa],
    and ``atmospheres``: +1 if the pressures read about one atmosphere above gauge (absolute
    sensors read as gauge), −1 if about one below (an offset to gauge given to gauge sensors), either
    confirmed by the fluid rows, else 0."""

    estimate: float
    standard_error: float
    atmospheres: int


def pressure_offset(
    robot: HydraulicRobot, experiments: Sequence[Experiment], options: IdentificationOptions
) -> PressureOffset | None:
    """The common offset of every logged pressure above gauge (module docstring); None if these
    logs cannot separate it from the mechanical parameters (its column collinear with theirs)."""
    rows = stack_rows(robot, experiments, options, pressure_offset=True)
    try:
        fit = solve_least_squares(rows.x1, rows.y1, rows.names1, "mechanical", experiments)
    except ParameterError:
        return None
    estimate, standard_error = float(fit.estimate[-1]), float(fit.standard_error[-1])
    size = abs(estimate) / ATMOSPHERE
    sign = 1 if estimate > 0 else -1
    if not (ATMOSPHERIC_BAND[0] <= size <= ATMOSPHERIC_BAND[1] and abs(estimate) > SIGNIFICANCE * standard_error):
        sign = 0
    elif not _fluid_agrees(robot, experiments, options, rows, estimate):
        sign = 0
    return PressureOffset(estimate, standard_error, sign)


def _fluid_agrees(
    robot: HydraulicRobot, experiments: Sequence[Experiment], options: IdentificationOptions, rows: Rows, offset: float
) -> bool:
    """Whether the fluid rows fit better with every pressure moved by −``offset`` [Pa] than as logged."""
    moved = stack_rows(
        robot, [replace(e, p_plus=e.p_plus - offset, p_minus=e.p_minus - offset) for e in experiments], options
    )
    try:
        return (
            solve_least_squares(moved.x2, moved.y2, moved.names2, "fluid").residual_rms
            < solve_least_squares(rows.x2, rows.y2, rows.names2, "fluid").residual_rms
        )
    except ParameterError:
        return False

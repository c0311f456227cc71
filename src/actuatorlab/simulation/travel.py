"""End-of-travel checks of the arm simulations, shared by both actuator models.

Neither the quasistatic nor the pressure-dynamics cylinder has end stops, so a run whose pin
distance ℓ [m] leaves the cylinder's travel [retracted length, retracted length + stroke], or
whose arm angle θ [rad] leaves a joint range the scenario gives, is outside the model: it stops
with an error that names the first such sample, instead of returning a non-physical motion.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import SimulationError


def check_travel(
    t: np.ndarray,
    length: np.ndarray,
    length_range: tuple[float, float] | None,
    theta: np.ndarray,
    angle_range: tuple[float, float] | None,
    which: str = "the arm",
) -> None:
    """Raise ``SimulationError`` at the first sample of ``t`` [s] where ``length`` [m] leaves
    ``length_range`` or ``theta`` [rad] leaves ``angle_range`` (either range None: unchecked)."""
    first = _first_outside(length, length_range)
    first_angle = _first_outside(theta, angle_range)
    if first is None and first_angle is None:
        return
    state = lambda k: f"t = {t[k]:.4g} s (θ = {math.degrees(theta[k]):.4g} deg, ℓ = {length[k]:.6g} m)"  # noqa: E731
    if first is not None and (first_angle is None or first <= first_angle):
        low, high = length_range
        raise SimulationError(
            f"the cylinder of {which} left its travel [{low:.4g}, {high:.4g}] m at {state(first)}; neither model "
            "has end stops: give cylinder.stroke or cylinder.retracted_length that cover the motion, or change "
            "the inputs or loads (a pump or relief that cannot hold the load lets it run to the end)"
        )
    low, high = angle_range
    raise SimulationError(
        f"{which} left its angle_range [{math.degrees(low):.4g}, {math.degrees(high):.4g}] deg at "
        f"{state(first_angle)}: widen angle_range, or change the inputs or loads"
    )


def outside(values: np.ndarray, low, high) -> np.ndarray:
    """Where ``values`` lie outside [``low``, ``high``] (arrays broadcast)."""
    return (values < low) | (values > high)


def _first_outside(values: np.ndarray, bounds: tuple[float, float] | None) -> int | None:
    if bounds is None:
        return None
    left = outside(values, bounds[0], bounds[1])
    return int(np.argmax(left)) if left.any() else None

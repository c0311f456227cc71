"""Closed-valve stability of cylinders stepped with MuJoCo.

With the valves closed each cylinder is a spring–damper on the effective mass along its pin
line, m = 1/(gᵀ M⁻¹ g) [kg], g = (dℓ/dq)ᵀ (on a slide joint m = 1/(M⁻¹)_dd); the scheme of
:mod:`.kernels` (the force from q_k, then semi-implicit Euler) is stable iff
h²K/m + 2hB/m < 4 (as in :mod:`actuatorlab.simulation.arm`). For a quasistatic cylinder K
[N/m] and B [N s/m] are its relaxation; for a pressure cylinder K is the oil-column stiffness
β(A_h²/V_h + A_r²/V_r) at its piston position and B = 0 (its valve damping is integrated
implicitly). The system (:mod:`.system`) evaluates the bound before a run at the initial pose
and along it (the effective masses change with the pose); an unstable combination raises
``SimulationError`` with the largest stable K (and along the run the time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import SimulationError
from ..hydraulics.pressure_dynamics import H_BULK_MODULUS, H_L0, H_STROKE, H_VH0, H_VR0
from ..hydraulics.quasistatic.circuit import I_AH, I_AR
from ..hydraulics.quasistatic.relaxation import stable_relaxation_advice
from .cylinders import G_DAMPING, G_STIFFNESS, CylinderArrays, QuasistaticCylinder


@nb.njit(cache=True, inline="always", error_model="numpy")
def oil_column_stiffness(cp, hp, length: float) -> float:
    """β(A_h²/V_h + A_r²/V_r) [N/m] of a pressure cylinder at pin length ``length`` [m], the piston
    position x = ℓ − ℓ₀ clipped to the stroke; ``cp``, ``hp``: its circuit and fluid vectors."""
    stroke = hp[H_STROKE]
    x = min(max(length - hp[H_L0], 0.0), stroke)
    ah = cp[I_AH]
    ar = cp[I_AR]
    return hp[H_BULK_MODULUS] * (ah * ah / (hp[H_VH0] + ah * x) + ar * ar / (hp[H_VR0] + ar * (stroke - x)))


@dataclass(frozen=True)
class ActuatorStability:
    """Closed-valve stability of one cylinder at a pose: effective mass m [kg] along the pin
    line, stiffness K [N/m] and damping B [N s/m] used in h²K/m + 2hB/m < 4, the largest stable
    K at that B and h, and whether the combination is stable."""

    name: str
    effective_mass: float
    stiffness: float
    damping: float
    max_stiffness: float
    stable: bool


def closed_valve_bound(
    arrays: CylinderArrays, pressure: np.ndarray, h: float, lengths: np.ndarray, inv_mass: np.ndarray
) -> tuple[np.ndarray, ...]:
    """(1/m, K, B, stable) arrays (n,) of the cylinders of ``arrays`` at step ``h`` [s], pin
    lengths ``lengths`` [m] and inverse effective masses ``inv_mass`` [1/kg]; ``pressure``: the
    indices of the pressure cylinders; stable = (h²K + 2hB)/m < 4."""
    stiffness, damping = arrays.gain[:, G_STIFFNESS].copy(), arrays.gain[:, G_DAMPING].copy()
    for i in pressure:  # the oil column of a pressure cylinder at its piston position
        stiffness[i] = oil_column_stiffness(arrays.cps[i], arrays.hps[i], float(lengths[i]))
        damping[i] = 0.0
    stable = (h * h * stiffness + 2.0 * h * damping) * inv_mass < 4.0
    return inv_mass, stiffness, damping, stable


def stability_limits(names: list[str], h: float, inv_mass, stiffness, damping, stable) -> list[ActuatorStability]:
    """The ``ActuatorStability`` of each cylinder from the arrays of ``closed_valve_bound``."""
    out = []
    for i, name in enumerate(names):
        inv = float(inv_mass[i])
        mass = 1.0 / inv if inv > 0.0 else math.inf
        max_k = max(4.0 - 2.0 * h * damping[i] * inv, 0.0) / (h * h * inv) if inv > 0.0 else math.inf
        out.append(ActuatorStability(name, mass, float(stiffness[i]), float(damping[i]), max_k, bool(stable[i])))
    return out


def unstable_error(actuator, lim: ActuatorStability, h: float, when: str) -> SimulationError:
    """The error for an unstable ``lim`` of ``actuator`` at step ``h`` [s]; ``when`` says where
    (the initial pose or a time)."""
    line = "its slide joint" if actuator.joint is not None else "the pin line"
    if isinstance(actuator, QuasistaticCylinder):
        m = lim.effective_mass
        remedy = stable_relaxation_advice(m, h, lim.damping)
        return SimulationError(
            f"actuator {actuator.name!r}: relaxation.stiffness = {lim.stiffness:.3g} N/m and damping = "
            f"{lim.damping:.3g} N s/m are unstable with MuJoCo's step h = {h:g} s {when} (effective mass "
            f"{m:.4g} kg along {line}; the bound h²K/m + 2hB/m < 4): {remedy}, or reduce the model's timestep"
        )
    return SimulationError(
        f"actuator {actuator.name!r}: the oil column (stiffness {lim.stiffness:.3g} N/m) is unstable with MuJoCo's "
        f"step h = {h:g} s {when} on the effective mass {lim.effective_mass:.4g} kg along {line} (largest "
        f"stable stiffness {lim.max_stiffness:.3g} N/m): reduce the timestep below "
        f"{2.0 * math.sqrt(lim.effective_mass / lim.stiffness):.3g} s or use a QuasistaticCylinder"
    )

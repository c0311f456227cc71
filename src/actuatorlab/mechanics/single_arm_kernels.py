"""Compiled geometry and torque of the single-DOF arm of Kikuuwe et al. Sec. 4.3, eqs. (79)–(89).

The kernels behind ``single_arm.SingleArm``: they read its parameter vector ``kernel_array()``
(layout ``K_*`` of :mod:`.single_arm_layout`), so the arm's time loops in ``simulation`` call them
directly. θ [rad] from the horizontal, counter-clockwise positive; f > 0 pushes the rod out;
f_ey [N] is the vertical load at the arm tip, positive upward.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .single_arm_layout import K_ALPHA, K_BX, K_BY, K_COS_ALPHA, K_LF, K_LG, K_LM, K_MG, K_SIN_ALPHA


@nb.njit(cache=True, inline="always", error_model="numpy")
def arm_geometry(params: np.ndarray, theta: float) -> tuple[float, float, float]:
    """(ℓ, dℓ/dθ, cos θ): cylinder length (80) [m], lever arm [m/rad] and cos θ at angle θ."""
    return arm_geometry_at(params, math.cos(theta - params[K_ALPHA]), math.sin(theta - params[K_ALPHA]))


@nb.njit(cache=True, inline="always", error_model="numpy")
def arm_geometry_at(params: np.ndarray, c: float, s: float) -> tuple[float, float, float]:
    """``arm_geometry`` from (c, s) = (cos(θ − α), sin(θ − α)), for loops that carry the pair.

    With e = (r_m − r_b)/ℓ the rod direction, dℓ/dθ = e·dr_m/dθ = r_m × e (dr_m/dθ = [−r_my, r_mx]);
    the cylinder's torque about the pivot, r_m × (e f), is therefore (dℓ/dθ)·f. Since
    r_m × (r_m − r_b) = −r_m × r_b, dℓ/dθ = L_m (b_y c − b_x s)/ℓ; cos θ = c cos α − s sin α.
    """
    dx = -params[K_LM] * c - params[K_BX]
    dy = -params[K_LM] * s - params[K_BY]
    length = math.sqrt(dx * dx + dy * dy)
    lever = params[K_LM] * (c * params[K_BY] - s * params[K_BX]) / length
    return length, lever, c * params[K_COS_ALPHA] - s * params[K_SIN_ALPHA]


@nb.njit(cache=True, error_model="numpy")
def arm_curvature(params: np.ndarray, theta: float, length: float, lever: float) -> float:
    """d²ℓ/dθ² [m/rad²] at θ, given ℓ and dℓ/dθ from ``arm_geometry``.

    Differentiating ℓ dℓ/dθ = (r_m − r_b)·dr_m/dθ with d²r_m/dθ² = −r_m and |dr_m/dθ| = L_m:
    d²ℓ/dθ² = (L_m² − (r_m − r_b)·r_m − (dℓ/dθ)²)/ℓ.
    """
    rmx = -params[K_LM] * math.cos(theta - params[K_ALPHA])
    rmy = -params[K_LM] * math.sin(theta - params[K_ALPHA])
    dot = (rmx - params[K_BX]) * rmx + (rmy - params[K_BY]) * rmy
    return (params[K_LM] * params[K_LM] - dot - lever * lever) / length


@nb.njit(cache=True, inline="always", error_model="numpy")
def arm_torque(params: np.ndarray, cos_theta: float, lever: float, f: float, f_ey: float) -> float:
    """Right-hand side of (79) [N m]: gravity, cylinder force f (> 0 pushes) through the lever arm
    dℓ/dθ, and the vertical load f_ey at L_f; ``cos_theta`` and ``lever`` from ``arm_geometry``."""
    return cos_theta * (params[K_LF] * f_ey - params[K_LG] * params[K_MG]) + lever * f


@nb.njit(cache=True, error_model="numpy")
def length_and_lever(params: np.ndarray, theta: np.ndarray, out: np.ndarray) -> None:
    """ℓ [m] into ``out[0, i]`` and dℓ/dθ [m/rad] into ``out[1, i]`` at the angles ``theta[i]`` [rad]."""
    for i in range(theta.size):
        out[0, i], out[1, i], _ = arm_geometry(params, theta[i])


@nb.njit(cache=True, error_model="numpy")
def torques(params: np.ndarray, theta: np.ndarray, f: np.ndarray, f_ey: np.ndarray, out: np.ndarray) -> None:
    """``arm_torque`` [N m] into ``out[i]`` at θ_i [rad], cylinder force f_i [N] and tip load f_ey,i [N]."""
    for i in range(theta.size):
        _, lever, cos_theta = arm_geometry(params, theta[i])
        out[i] = arm_torque(params, cos_theta, lever, f[i], f_ey[i])


@nb.njit(cache=True, error_model="numpy")
def arm_torque_slope(params: np.ndarray, theta: float, curvature: float, f: float, f_ey: float) -> float:
    """∂τ/∂θ [N m/rad] of ``arm_torque`` at fixed forces f and f_ey (curvature = d²ℓ/dθ²)."""
    s = math.sin(theta)
    return params[K_LG] * s * params[K_MG] + curvature * f - params[K_LF] * s * f_ey

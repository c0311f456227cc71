"""Advancing a carried (cos φ, sin φ) pair by a small angle, numba-compiled.

A time loop that needs cos and sin of an angle that changes by a small δ per step can rotate
the pair it carries instead of calling the trigonometric functions again: one Horner polynomial
and a 2 × 2 rotation lie on the step's critical path instead of a ``sincos`` call.
"""

from __future__ import annotations

import math

import numba as nb

SERIES_LIMIT = 0.1
"""|δ| [rad] up to which cos δ and sin δ come from their Taylor series: the first omitted terms,
δ¹⁰/10! and δ¹¹/11!, are then below 3e-17, under half an ulp of 1 (and of sin δ ≈ δ)."""


@nb.njit(cache=True, inline="always", error_model="numpy")
def rotate_unit(c: float, s: float, delta: float) -> tuple[float, float]:
    """(cos(φ + δ), sin(φ + δ)) from (c, s) = (cos φ, sin φ) and δ [rad].

    For |δ| ≤ SERIES_LIMIT, cos δ and sin δ are their series to δ⁸ and δ⁹ (exact to round-off);
    beyond it, ``math.cos``/``math.sin``. Round-off accumulates as a random walk, about 1e-16 per
    step: a loop should restart the pair from the angle itself now and then.
    """
    if abs(delta) <= SERIES_LIMIT:
        d2 = delta * delta
        cd = 1.0 - d2 * (1.0 / 2.0 - d2 * (1.0 / 24.0 - d2 * (1.0 / 720.0 - d2 * (1.0 / 40320.0))))
        sd = delta * (1.0 - d2 * (1.0 / 6.0 - d2 * (1.0 / 120.0 - d2 * (1.0 / 5040.0 - d2 * (1.0 / 362880.0)))))
    else:
        cd = math.cos(delta)
        sd = math.sin(delta)
    return c * cd - s * sd, s * cd + c * sd

"""Bracketed root finding for monotone scalar functions, numba-compiled.

``find_root(f, args, lo, hi, xtol, max_iter)`` finds x in [lo, hi] with f(x, *args) = 0 when
f(lo) and f(hi) have opposite signs (or one is zero). ``f`` must be an ``@njit`` function;
``args`` a tuple of its extra arguments. The method is false position with the Anderson–Björck
correction (superlinear on smooth pieces), falling back to a bisection step whenever an
interpolated step would shrink the bracket by less than half, so the bracket at least halves
every two iterations even on the kinks of piecewise-parabolic functions.

Returns (x, iterations, status): ``ROOT_OK`` when the bracket is narrower than ``xtol`` or f(x)
is exactly 0, ``ROOT_NO_BRACKET`` when f(lo) and f(hi) have the same sign (x = nan),
``ROOT_MAX_ITER`` when ``max_iter`` iterations did not converge (x = the last midpoint).
Callers turn a non-OK status into an error; nothing here returns a value silently.

Compiled with ``inline="always"`` and without a cache of its own: numba caches a kernel that
calls it (the call is inlined at the IR level), whereas a separately compiled ``find_root``
taking a function argument would make every caller uncacheable ("dynamic globals").

Twin: the exported FMU's C ``fmu/c/quasistatic.c`` (``tests/test_fmu_twins.py``: equal to 1e-12); change both together.
"""

from __future__ import annotations

import math

import numba as nb

ROOT_OK = 0
ROOT_NO_BRACKET = 1
ROOT_MAX_ITER = 2


@nb.njit(inline="always", error_model="numpy")
def find_root(f, args, lo: float, hi: float, xtol: float, max_iter: int) -> tuple[float, int, int]:
    """Root of f(·, *args) in [lo, hi] to within ``xtol``; see the module docstring."""
    f_lo = f(lo, *args)
    if f_lo == 0.0:
        return lo, 0, ROOT_OK
    f_hi = f(hi, *args)
    if f_hi == 0.0:
        return hi, 0, ROOT_OK
    if (f_lo > 0.0) == (f_hi > 0.0) or not (math.isfinite(f_lo) and math.isfinite(f_hi)):
        return math.nan, 0, ROOT_NO_BRACKET
    # f keeps its sign at each end of the bracket; the stored end values are only weights of the
    # interpolation (Anderson–Björck scales them down, to 0 if they underflow), never sign tests
    hi_positive = f_hi > 0.0
    for iteration in range(1, max_iter + 1):
        width = hi - lo
        if width <= xtol:
            return 0.5 * (lo + hi), iteration - 1, ROOT_OK
        weight = f_hi - f_lo
        x = (lo * f_hi - hi * f_lo) / weight if weight != 0.0 else lo
        if not (lo < x < hi):
            x = 0.5 * (lo + hi)
        f_x = f(x, *args)
        if f_x == 0.0:
            return x, iteration, ROOT_OK
        if (f_x > 0.0) == hi_positive:
            # the root lies in [lo, x]; Anderson–Björck scaling of the retained end
            scale = 1.0 - f_x / f_hi if f_hi != 0.0 else 0.5
            hi, f_hi = x, f_x
            f_lo *= scale if scale > 0.0 else 0.5
        else:
            scale = 1.0 - f_x / f_lo if f_lo != 0.0 else 0.5
            lo, f_lo = x, f_x
            f_hi *= scale if scale > 0.0 else 0.5
        if hi - lo > 0.5 * width:
            mid = 0.5 * (lo + hi)
            f_mid = f(mid, *args)
            if f_mid == 0.0:
                return mid, iteration, ROOT_OK
            if (f_mid > 0.0) == hi_positive:
                hi, f_hi = mid, f_mid
            else:
                lo, f_lo = mid, f_mid
    return 0.5 * (lo + hi), max_iter, ROOT_MAX_ITER

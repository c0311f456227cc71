"""Nonsmooth scalar primitives of Kikuuwe et al., Secs. 2.1–2.2, numba-compiled.

Each primitive is written once as a scalar ``@njit`` kernel (name ending in ``_scalar``, for use
inside other compiled kernels) and exposed as a NumPy ufunc of the same law that works on
scalars and arrays (broadcasting):

- ``S(x) = sgn(x)·x²``  (15), ``R(x) = sgn(x)·√|x|``  (16), inverse of each other;
- ``psi(u1, u2) = u1²u2²/(u1² + u2²)``, 0 when both are 0  (19): two orifices in series;
- ``proj(x, lo, hi) = max(lo, min(hi, x))``  (12);
- ``gsgn(a, x, b)``: b for x > 0, a for x < 0, the interval [min(a,b), max(a,b)] at x = 0 (9),
  returned as the pair (low, high);
- ``ldiv(x, a)``: x/a with the limits of a closed orifice, x/0 = sgn(x)·∞ and 0/0 = 0;
- ``phi_a(b, c, a)``: the root of S(x)/a + b·x + c = 0 (Proposition 1, (20), (30));
- ``phi_b(b, c, a0, a1, x1)``: the root of S(x)/a0 + S(x − x1)/a1 + b·x + c = 0
  (Proposition 2, (29), (31)).

Division by a zero coefficient follows the limit (S(x)/0 = ±∞, 0/0 = 0): ``phi_a`` with a = 0
is 0, ``phi_b`` with a0 = 0 is 0 and with a1 = 0 (a0 > 0) is x1.

Reading of (29): the printed case conditions "a0(bx + c)" are taken as a0·(b·x1 + c), as the
fourth condition prints it; a brute-force check agrees (tests). Every quadratic root is
written in rationalised form (no difference of nearly equal numbers) and discriminants are
clipped at 0 against round-off.

Twin: the exported FMU's C ``fmu/c/quasistatic.c`` (``tests/test_fmu_twins.py``: equal to 1e-12); change both together.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

_F = "float64"
_TINY = 2.2250738585072014e-308
"""Smallest normal float: a guard denominator that turns 0/0 into 0 without a branch."""


@nb.njit(cache=True, inline="always", error_model="numpy")
def s_scalar(x: float) -> float:
    """S(x) = sgn(x)·x² (15)."""
    return x * abs(x)


@nb.njit(cache=True, inline="always", error_model="numpy")
def r_scalar(x: float) -> float:
    """R(x) = sgn(x)·√|x| (16)."""
    return math.copysign(math.sqrt(abs(x)), x) if x != 0.0 else 0.0


@nb.njit(cache=True, inline="always", error_model="numpy")
def psi_scalar(u1: float, u2: float) -> float:
    """ψ(u1, u2) = u1²u2²/(u1² + u2²), 0 if u1 = u2 = 0 (19); 1/ψ = 1/u1² + 1/u2²."""
    a = u1 * u1
    b = u2 * u2
    return a * b / max(a + b, _TINY)


@nb.njit(cache=True, inline="always", error_model="numpy")
def proj_scalar(x: float, lo: float, hi: float) -> float:
    """proj_[lo, hi](x) = max(lo, min(hi, x)) (12)."""
    return max(lo, min(hi, x))


@nb.njit(cache=True, inline="always", error_model="numpy")
def ldiv_scalar(x: float, a: float) -> float:
    """x/a for a > 0, with the limits x/0 = sgn(x)·∞ and 0/0 = 0 (a ≥ 0)."""
    if a > 0.0:
        return x / max(a, _TINY)
    if x > 0.0:
        return math.inf
    if x < 0.0:
        return -math.inf
    return 0.0


@nb.njit(cache=True, inline="always", error_model="numpy")
def s_ldiv_scalar(x: float, a: float) -> float:
    """S(x)/a for a ≥ 0, with the limits of a closed orifice decided by the sign of x,
    sgn(x)·∞ for a = 0, x ≠ 0, and 0 for x = 0. (``ldiv_scalar(s_scalar(x), a)`` would see
    S(x) underflow to 0 for 0 < |x| < 1e-154 and return 0/0 = 0.)"""
    if a > 0.0:
        return s_scalar(x) / a
    if x > 0.0:
        return math.inf
    if x < 0.0:
        return -math.inf
    return 0.0


@nb.njit(cache=True, error_model="numpy")
def phi_a_scalar(b: float, c: float, a: float) -> float:
    """Root x of S(x)/a + b·x + c = 0 for a ≥ 0, b > 0 (Proposition 1).

    Rationalised (20): x = −sgn(c)·2a|c| / (√(a²b² + 4a|c|) + a·b).
    """
    ac = abs(c)
    x = 2.0 * a * ac / max(math.sqrt(a * a * b * b + 4.0 * a * ac) + a * b, _TINY)
    return -x if c > 0.0 else x


@nb.njit(cache=True, error_model="numpy")
def phi_b_scalar(b: float, c: float, a0: float, a1: float, x1: float) -> float:
    """Root x of S(x)/a0 + S(x − x1)/a1 + b·x + c = 0 for a0, a1 ≥ 0, b > 0 (Proposition 2).

    g(x) = S(x)/a0 + S(x − x1)/a1 + b·x + c is strictly increasing; the signs of
    a1·g(0) = a1·c − S(x1) and a0·g(x1) = S(x1) + a0·(b·x1 + c) place the root relative to 0
    and x1, which selects one of the four cases of (29):

    1. x ≤ min(0, x1): (a0 + a1)x² − a0(a1 b + 2x1)x + a0(x1² − a1 c) = 0, smaller root;
    2. x ≥ max(0, x1): (a0 + a1)x² + a0(a1 b − 2x1)x + a0(x1² + a1 c) = 0, larger root;
    3. x1 ≤ x ≤ 0:     x = −2a0(a1 c + x1²) / (q + √(q² − 4(a0 − a1)a0(a1 c + x1²))), q = a0(a1 b − 2x1);
    4. 0 ≤ x ≤ x1:     x = 2a0(x1² − a1 c) / (q + √(q² + 4(a1 − a0)a0(x1² − a1 c))), q = a0(a1 b + 2x1).
    """
    if a0 == 0.0:
        return 0.0
    if a1 == 0.0:
        return x1
    g0 = a1 * c - s_scalar(x1)  # sign of g(0)
    g1 = s_scalar(x1) + a0 * (b * x1 + c)  # sign of g(x1)
    if g0 >= 0.0 and g1 >= 0.0:
        # case 1: both negative-side squares; smaller root of p x² + q x + r
        p = a0 + a1
        q = -a0 * (a1 * b + 2.0 * x1)
        r = a0 * (x1 * x1 - a1 * c)
        d = math.sqrt(max(q * q - 4.0 * p * r, 0.0))
        if q >= 0.0:
            return (-q - d) / (2.0 * p)
        return 2.0 * r / (-q + d)
    if g0 <= 0.0 and g1 <= 0.0:
        # case 2: larger root of p x² + q x + r
        p = a0 + a1
        q = a0 * (a1 * b - 2.0 * x1)
        r = a0 * (x1 * x1 + a1 * c)
        d = math.sqrt(max(q * q - 4.0 * p * r, 0.0))
        if q <= 0.0:
            return (-q + d) / (2.0 * p)
        return 2.0 * r / (-q - d)
    if g1 <= 0.0:
        # case 3: x1 ≤ x ≤ 0 (g(x1) ≤ 0 ≤ g(0))
        q = a0 * (a1 * b - 2.0 * x1)
        r = a0 * (a1 * c + x1 * x1)
        d = math.sqrt(max(q * q - 4.0 * (a0 - a1) * r, 0.0))
        den = q + d
        return -2.0 * r / den if den > 0.0 else 0.0
    # case 4: 0 ≤ x ≤ x1 (g(0) ≤ 0 ≤ g(x1))
    q = a0 * (a1 * b + 2.0 * x1)
    r = a0 * (x1 * x1 - a1 * c)
    d = math.sqrt(max(q * q + 4.0 * (a1 - a0) * r, 0.0))
    den = q + d
    return 2.0 * r / den if den > 0.0 else 0.0


_UFUNCS = {
    # public name: (scalar kernel, number of float64 arguments)
    "S": (s_scalar, 1),
    "R": (r_scalar, 1),
    "psi": (psi_scalar, 2),
    "proj": (proj_scalar, 3),
    "ldiv": (ldiv_scalar, 2),
    "phi_a": (phi_a_scalar, 3),
    "phi_b": (phi_b_scalar, 5),
}


def __getattr__(name: str):
    """Build the ufunc ``name`` of ``_UFUNCS`` on first use (loading them all costs ~0.3 s at import)."""
    if name not in _UFUNCS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    kernel, arity = _UFUNCS[name]
    ufunc = nb.vectorize([f"{_F}({','.join([_F] * arity)})"], cache=True)(kernel)
    globals()[name] = ufunc
    return ufunc


def gsgn(a, x, b) -> tuple[np.ndarray, np.ndarray]:
    """gsgn(a, x, b) (9) on arrays: the pair (low, high), equal where x ≠ 0."""
    a, x, b = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (a, x, b)))
    value = np.where(x > 0.0, b, a)
    low = np.where(x == 0.0, np.minimum(a, b), value)
    high = np.where(x == 0.0, np.maximum(a, b), value)
    return low, high

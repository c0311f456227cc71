"""Nonsmooth primitives (Kikuuwe et al. Sec. 2) against brute-force root finding."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from actuatorlab.numerics.nonsmooth import (
    R,
    S,
    gsgn,
    phi_a,
    phi_a_scalar,
    phi_b,
    phi_b_scalar,
    proj,
    psi,
)

log_uniform = lambda lo, hi: st.floats(lo, hi).map(lambda e: 10.0**e)  # noqa: E731
signed = st.tuples(st.sampled_from([-1.0, 1.0]), log_uniform(-6, 7)).map(lambda p: p[0] * p[1])


def _root(g, scale):
    """Bracket and solve g(x) = 0 for a strictly increasing g (independent of the closed forms)."""
    lo, hi = -scale, scale
    while g(lo) > 0:
        lo *= 2.0
    while g(hi) < 0:
        hi *= 2.0
    return brentq(g, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)


def _close(x, ref, terms):
    """Agreement up to round-off of the equation's largest term (in units of x via its slope)."""
    return abs(x - ref) <= 1e-9 * max(abs(ref), 1e-300) or abs(x - ref) <= terms


def test_signed_square_and_root_are_inverse():
    x = np.linspace(-3, 3, 61)
    np.testing.assert_allclose(R(S(x)), x, rtol=1e-15, atol=0)
    np.testing.assert_allclose(S(R(x)), x, rtol=1e-14, atol=1e-15)
    assert S(-2.0) == -4.0 and R(-4.0) == -2.0 and R(0.0) == 0.0


def test_psi_is_series_orifice_and_zero_when_closed():
    assert psi(0.0, 0.0) == 0.0 and psi(0.0, 3.0) == 0.0
    u1, u2 = 0.3, 0.7
    assert math.isclose(1.0 / psi(u1, u2), 1.0 / u1**2 + 1.0 / u2**2, rel_tol=1e-14)


def test_proj_and_gsgn():
    assert proj(5.0, 0.0, 1.0) == 1.0 and proj(-5.0, 0.0, 1.0) == 0.0 and proj(0.5, 0.0, 1.0) == 0.5
    low, high = gsgn(np.array([3.0, 3.0, 3.0]), np.array([-1.0, 0.0, 2.0]), np.array([-2.0, -2.0, -2.0]))
    np.testing.assert_array_equal(low, [3.0, -2.0, -2.0])
    np.testing.assert_array_equal(high, [3.0, 3.0, -2.0])


@settings(max_examples=400, deadline=None)
@given(b=log_uniform(-3, 7), c=signed, a=log_uniform(-9, 3))
def test_phi_a_solves_its_equation(b, c, a):
    """Proposition 1: Φ_A(b, c, a) is the root of S(x)/a + b x + c = 0."""
    x = phi_a(b, c, a)
    ref = _root(lambda y: S(y) / a + b * y + c, abs(c) / b)
    assert _close(x, ref, 1e-12 * abs(c) / b)


@settings(max_examples=600, deadline=None)
@given(
    b=log_uniform(-3, 7),
    c=signed,
    a0=log_uniform(-9, 3),
    a1=log_uniform(-9, 3),
    x1=st.floats(-2.0, 2.0),
)
def test_phi_b_solves_its_equation(b, c, a0, a1, x1):
    """Proposition 2 with the b·x1 reading of (29): root of S(x)/a0 + S(x − x1)/a1 + b x + c = 0."""
    x = phi_b(b, c, a0, a1, x1)
    g = lambda y: S(y) / a0 + S(y - x1) / a1 + b * y + c  # noqa: E731
    ref = _root(g, abs(c) / b + abs(x1) + 1e-12)
    # tolerance: round-off of the largest term, divided by the slope at the root
    slope = 2 * abs(ref) / a0 + 2 * abs(ref - x1) / a1 + b
    largest = max(abs(c), b * abs(ref), ref * ref / a0, (ref - x1) ** 2 / a1)
    assert _close(x, ref, 1e-12 * largest / slope + 1e-14 * (abs(x1) + abs(ref)))


def test_phi_limits_of_closed_orifices():
    assert phi_a(2.0, 5.0, 0.0) == 0.0
    assert phi_b(2.0, 5.0, 0.0, 1.0, 0.3) == 0.0  # a0 = 0: S(x)/0 pins x at 0
    assert phi_b(2.0, 5.0, 1.0, 0.0, 0.3) == 0.3  # a1 = 0: S(x − x1)/0 pins x at x1


def test_phi_b_equal_coefficients_cases_3_and_4():
    """a1 = a0 makes cases 3 and 4 linear; the rationalised forms stay valid."""
    for x1, c in ((-0.5, 0.1), (0.5, -0.1)):
        x = phi_b(1.0, c, 1.0, 1.0, x1)
        ref = _root(lambda y, x1=x1, c=c: S(y) + S(y - x1) + y + c, 2.0)
        assert abs(x - ref) < 1e-14


@pytest.mark.parametrize("args", [(2.5e6, -3e5, 1.5e-7), (1.0, 2.0, 1.0), (3.0, -0.1, 1e-9)])
def test_phi_a_compiled_matches_interpreted(args):
    assert phi_a_scalar(*args) == phi_a_scalar.py_func(*args)


@pytest.mark.parametrize(
    "args", [(2.5e6, -3e5, 1.5e-7, 2.4e-8, 0.35), (1.0, 0.5, 1.0, 2.0, 0.3), (1.0, -5.0, 0.1, 0.2, -0.7)]
)
def test_phi_b_compiled_matches_interpreted(args):
    assert phi_b_scalar(*args) == pytest.approx(phi_b_scalar.py_func(*args), rel=1e-15, abs=1e-300)

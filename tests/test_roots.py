"""Bracketed root finding of numerics/roots.py against scipy.optimize.brentq."""

import math

import numba as nb
import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from actuatorlab.numerics.roots import ROOT_MAX_ITER, ROOT_NO_BRACKET, ROOT_OK, find_root


@nb.njit(cache=True)
def kinked(x, knots, slopes, centres, weights, offset):
    """offset + 1e-3·x + Σ slopes_i·max(x − knots_i, 0) + Σ weights_j·S(x − centres_j): strictly
    increasing, piecewise linear and parabolic with kinks, like Ξ_v and Ξ_f of the regeneration."""
    total = offset + 1e-3 * x
    for i in range(knots.size):
        total += slopes[i] * max(x - knots[i], 0.0)
    for j in range(centres.size):
        d = x - centres[j]
        total += weights[j] * d * abs(d)
    return total


@nb.njit  # no cache: a caller passing a function to find_root embeds its address (see regeneration.py)
def kinked_root_compiled(knots, slopes, centres, weights, offset, lo, hi, xtol):
    """find_root called from compiled code, the way the kernels use it."""
    return find_root(kinked, (knots, slopes, centres, weights, offset), lo, hi, xtol, 200)


@nb.njit(cache=True)
def shifted_cube(x, a):
    return (x - a) ** 3


@nb.njit(cache=True)
def not_finite(x):
    return math.inf if x > 0.0 else -1.0


points = st.lists(st.floats(-10.0, 10.0), min_size=1, max_size=6)
gains = st.lists(st.floats(0.0, 1e3), min_size=6, max_size=6)


@settings(max_examples=150, deadline=None)
@given(knots=points, slopes=gains, centres=points, weights=gains, offset=st.floats(-1e4, 1e4))
# found by hypothesis: f at an end underflows to a subnormal and its scaled weight to 0, which
# once flipped the bracket's sign test and once divided by zero
@example(
    knots=[0.0, 0.0, 0.0, 0.0, 0.5],
    slopes=[0.0, 0.0, 0.0, 0.0, 478.0, 0.0],
    centres=[0.0, 3.0, 0.0],
    weights=[0.0, 285.0, 5e-324, 0.0, 0.0, 0.0],
    offset=0.0,
)
@example(
    knots=[0.0, 0.0, 0.0, 0.0, 0.5],
    slopes=[0.0, 0.0, 0.0, 0.0, 478.0, 0.0],
    centres=[0.0],
    weights=[0.0] * 6,
    offset=5e-324,
)
def test_matches_brentq_on_monotone_piecewise_functions(knots, slopes, centres, weights, offset):
    args = (
        np.array(knots),
        np.array(slopes[: len(knots)]),
        np.array(centres),
        np.array(weights[: len(centres)]),
        offset,
    )
    lo, hi = -20.0, 20.0

    def f(x):
        return kinked(x, *args)

    assume(f(lo) < 0.0 < f(hi))  # a root inside; test_no_bracket_status covers the rest
    ref = brentq(f, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)
    xtol = 1e-10
    x, iterations, status = kinked_root_compiled(*args, lo, hi, xtol)
    assert status == ROOT_OK
    # the final bracket (width ≤ xtol) holds the root and x is its midpoint
    assert abs(x - ref) <= 0.5 * xtol + 1e-13
    # work budget: the bracket at least halves every iteration (roots.py)
    assert iterations <= math.ceil(math.log2((hi - lo) / xtol)) + 1
    assert find_root(kinked, args, lo, hi, xtol, 200) == (x, iterations, status)  # from Python too


def test_exact_zero_at_an_end_returns_it():
    assert find_root(shifted_cube, (1.0,), 1.0, 3.0, 1e-12, 50) == (1.0, 0, ROOT_OK)
    assert find_root(shifted_cube, (3.0,), 1.0, 3.0, 1e-12, 50) == (3.0, 0, ROOT_OK)


def test_no_bracket_status():
    x, iterations, status = find_root(shifted_cube, (5.0,), 1.0, 3.0, 1e-12, 50)
    assert status == ROOT_NO_BRACKET and math.isnan(x) and iterations == 0
    # a non-finite end value is no usable bracket either
    assert find_root(not_finite, (), -1.0, 1.0, 1e-12, 50)[2] == ROOT_NO_BRACKET


def test_max_iter_status_returns_the_last_midpoint():
    x, iterations, status = find_root(shifted_cube, (math.pi,), 0.0, 10.0, 1e-15, 3)
    assert status == ROOT_MAX_ITER and iterations == 3
    # three iterations at least halve the bracket three times
    assert abs(x - math.pi) <= 10.0 / 2**3
    x, iterations, status = find_root(shifted_cube, (math.pi,), 0.0, 10.0, 1e-12, 100)
    assert status == ROOT_OK and x == pytest.approx(math.pi, abs=1e-12)

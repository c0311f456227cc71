"""Carried (cos, sin) pairs rotated by small angles (numerics/rotation.py)."""

import math

import numba as nb
import numpy as np
import pytest

from actuatorlab.numerics.rotation import SERIES_LIMIT, rotate_unit


@pytest.mark.parametrize("delta", [0.0, 1e-9, -3e-4, 0.01, -0.07, SERIES_LIMIT, -SERIES_LIMIT, 0.3, -2.5])
def test_one_rotation_matches_the_angle_sum(delta):
    phi = 0.7
    c, s = rotate_unit(math.cos(phi), math.sin(phi), delta)
    # reference: math.cos/math.sin of the summed angle
    assert c == pytest.approx(math.cos(phi + delta), abs=4e-16)
    assert s == pytest.approx(math.sin(phi + delta), abs=4e-16)


@nb.njit(cache=True)
def _walk(deltas):
    c, s = 1.0, 0.0
    for d in deltas:
        c, s = rotate_unit(c, s, d)
    return c, s


def test_round_off_stays_small_over_a_long_walk():
    """2e5 steps (the arm loop's longest run between restarts) of rates up to 10 rad/s at 1 ms:
    the pair stays within 1e-13 of cos/sin of the summed angle and of the unit circle."""
    deltas = np.random.default_rng(1).uniform(-0.01, 0.01, 200_000)
    c, s = _walk(deltas)
    total = math.fsum(deltas)
    assert abs(c - math.cos(total)) < 1e-13 and abs(s - math.sin(total)) < 1e-13
    assert abs(math.hypot(c, s) - 1.0) < 1e-13

"""Triangle loop closure of a revolute segment (Petrović & Mattila eqs. 18–23), spec 6 item 1."""

import math

import numpy as np
import pytest

from actuatorlab.errors import ParameterError
from actuatorlab.mechanics.linkage import (
    TriangleLinkage,
    angle_from_stroke,
    loop_angles,
    segment_motion,
    stroke_from_angle,
)

# lift segment of the lab crane, spec 3.2 [R]
LIFT = TriangleLinkage(1.0071227324212, 0.37610632101293, 0.83, 0.59, "lift")
ANGLES = np.linspace(*LIFT.angle_range(), 9)[1:-1]


def _motion(q, qd, qdd, compiled=True):
    out = np.empty(13)
    fn = segment_motion if compiled else segment_motion.py_func
    fn(LIFT.length, LIFT.length1, LIFT.x0, q, qd, qd, qdd, out)
    return out


@pytest.mark.parametrize("q", ANGLES)
def test_loop_angles_close_the_triangle(q):
    x, ell = stroke_from_angle(LIFT.length, LIFT.length1, LIFT.x0, q)
    q1, q2 = loop_angles(LIFT.length, LIFT.length1, ell)
    assert q1 + q2 == pytest.approx(q, abs=1e-12)  # spec 2.5: q = q_j1 + q_j2
    assert -math.pi < q1 < 0 and -math.pi < q2 < 0
    # independent: the rod pin seen from the base pin, law of cosines by atan2
    pin = np.array([LIFT.length + LIFT.length1 * math.cos(q), LIFT.length1 * math.sin(q)])
    assert ell == pytest.approx(np.hypot(*pin), rel=1e-14)
    assert q1 == pytest.approx(math.atan2(pin[1], pin[0]), abs=1e-12)
    assert angle_from_stroke(LIFT.length, LIFT.length1, LIFT.x0, x) == pytest.approx(q, abs=1e-10)


@pytest.mark.parametrize("q", ANGLES)
def test_rates_and_accelerations_match_finite_differences(q):
    qd, qdd, h = 0.7, -1.3, 1e-5

    def geometry(t):
        qt = q + qd * t + 0.5 * qdd * t * t
        out = _motion(qt, 0.0, 0.0)
        return out[[1, 2, 3]]  # x, q1, q2

    m = _motion(q, qd, qdd)
    first = (geometry(h) - geometry(-h)) / (2 * h)
    second = (geometry(h) - 2 * geometry(0.0) + geometry(-h)) / h**2
    np.testing.assert_allclose(m[[4, 5, 6]], first, rtol=1e-7)  # (21)-(23)
    np.testing.assert_allclose(m[[10, 11, 12]], second, rtol=1e-4, atol=1e-6)
    assert m[5] + m[6] == pytest.approx(qd, rel=1e-12)
    assert m[11] + m[12] == pytest.approx(qdd, rel=1e-10)


def test_required_rates_use_measured_geometry():
    """(38)-(43): q̇_r enters linearly through the measured Jacobians (spec 2.2)."""
    q, qd = ANGLES[3], 0.4
    out = np.empty(13)
    segment_motion(LIFT.length, LIFT.length1, LIFT.x0, q, qd, 2 * qd, 0.0, out)
    np.testing.assert_allclose(out[7:10], 2 * out[4:7], rtol=1e-13)


def test_compiled_and_python_agree():
    np.testing.assert_allclose(
        _motion(ANGLES[2], 0.3, 0.2),
        _motion(ANGLES[2], 0.3, 0.2, compiled=False),
        rtol=1e-14,
    )


def test_wrappers_and_ranges():
    lo, hi = LIFT.angle_range()
    assert LIFT.stroke_at(lo) == pytest.approx(0.0, abs=1e-12)
    # the lift cylinder's full stroke would flatten the triangle: the range stops short of q = 0
    assert hi < 0.0
    assert LIFT.angle_at(LIFT.stroke_at(ANGLES)) == pytest.approx(ANGLES)
    with pytest.raises(ParameterError, match="outside"):
        LIFT.stroke_at(lo - 0.1)
    with pytest.raises(ParameterError, match="outside"):
        LIFT.stroke_at(0.3)  # positive angle: mirrored triangle, not covered by (19)-(20)
    with pytest.raises(ParameterError, match="stroke x"):
        LIFT.angle_at(0.7)
    with pytest.raises(ParameterError, match="flat triangle"):
        LIFT.angle_at(0.58)  # inside the 0.59 m stroke, but L + L1 < x0 + 0.58 (spec 3.2 lift geometry)


@pytest.mark.parametrize(
    "args, text",
    [
        ((1.0, 0.4, -0.8, 0.5), "x0"),
        ((1.0, 0.4, 1.5, 0.5), "x0"),
        ((1.0, 0.4, 0.60001, 0.5), "flat"),
        ((1.0, float("nan"), 0.8, 0.5), "length1"),
    ],
)
def test_bad_linkage_raises(args, text):
    with pytest.raises(ParameterError, match=text):
        TriangleLinkage(*args)

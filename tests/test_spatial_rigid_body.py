"""Spatial algebra (Petrović & Mattila eqs. 3–6) and rigid-body VDC dynamics (eqs. 7–8)."""

import numpy as np
import pytest

from actuatorlab.errors import ParameterError
from actuatorlab.mechanics.rigid_body import (
    RigidBody,
    coriolis_matrix,
    gravity_force,
    mass_matrix,
    net_force,
    required_net_force,
)
from actuatorlab.numerics.spatial import (
    force_to_parent,
    rot_x,
    rot_y,
    rot_z,
    skew,
    transform_matrix,
    velocity_to_child,
)

RNG = np.random.default_rng(7)


def _rotation(a, b, c):
    return rot_z(a) @ rot_y(b) @ rot_x(c)


def _body():
    a = RNG.normal(size=(3, 3))
    inertia = a @ a.T + np.eye(3)
    return RigidBody(12.5, tuple(RNG.normal(size=3)), inertia).packed()


def test_skew_is_cross_product():
    r, a = RNG.normal(size=3), RNG.normal(size=3)
    np.testing.assert_allclose(skew(r) @ a, np.cross(r, a), rtol=1e-14)  # eq. (6)


def test_rotations_are_proper_and_compose():
    rot = _rotation(0.3, -1.1, 2.0)
    np.testing.assert_allclose(rot @ rot.T, np.eye(3), atol=1e-14)
    assert np.linalg.det(rot) == pytest.approx(1.0)
    np.testing.assert_allclose(rot_z(0.4) @ rot_z(0.5), rot_z(0.9), atol=1e-15)
    np.testing.assert_allclose(rot_z(np.pi / 2) @ [1.0, 0, 0], [0, 1.0, 0], atol=1e-15)


@pytest.mark.parametrize("compiled", [True, False])
def test_transforms_match_eq5_and_conserve_power(compiled):
    rot, r = _rotation(0.7, 0.2, -0.4), RNG.normal(size=3)
    force, vel = RNG.normal(size=6), RNG.normal(size=6)
    f2p = force_to_parent if compiled else force_to_parent.py_func
    v2c = velocity_to_child if compiled else velocity_to_child.py_func
    u = transform_matrix(rot, r)
    np.testing.assert_allclose(f2p(rot, r, force), u @ force, rtol=1e-13, atol=1e-13)  # eq. (4)
    np.testing.assert_allclose(v2c(rot, r, vel), u.T @ vel, rtol=1e-13, atol=1e-13)  # eq. (3)
    # virtual power is frame-invariant: (U^T V)^T F_B = V^T (U F_B)
    assert v2c(rot, r, vel) @ force == pytest.approx(vel @ f2p(rot, r, force), rel=1e-13)


def test_velocity_transform_is_rigid_body_kinematics():
    """Independent: the velocity of a point r on a body is v + ω × r (world components)."""
    v, w = RNG.normal(size=3), RNG.normal(size=3)
    rot, r = _rotation(-0.3, 0.5, 1.0), RNG.normal(size=3)
    out = velocity_to_child(rot, r, np.concatenate((v, w)))
    np.testing.assert_allclose(rot @ out[:3], v + np.cross(w, r), rtol=1e-13)
    np.testing.assert_allclose(rot @ out[3:], w, rtol=1e-13)


def test_coriolis_matrix_is_skew_symmetric_and_mass_matrix_positive():
    body = _body()
    c = coriolis_matrix(body, RNG.normal(size=3))
    np.testing.assert_allclose(c + c.T, 0.0, atol=1e-12)  # used by the stability proof (App. C)
    assert np.linalg.eigvalsh(mass_matrix(body)).min() > 0.0


@pytest.mark.parametrize("compiled", [True, False])
def test_fused_net_force_matches_matrix_form(compiled):
    body = _body()
    v, dv, vr, dvr = (RNG.normal(size=6) for _ in range(4))
    rot_aw, g_w = _rotation(0.1, 0.2, 0.3), np.array([0.0, 9.8066, 0.0])
    nf = net_force if compiled else net_force.py_func
    g_body = rot_aw @ g_w
    expected = mass_matrix(body) @ dv + coriolis_matrix(body, v[3:]) @ v + gravity_force(body, rot_aw, g_w)
    np.testing.assert_allclose(nf(body, dv, v, v[3:], g_body), expected, rtol=1e-12)  # eq. (7)
    gain = np.diag(RNG.uniform(1, 5, size=6))
    expected_r = (
        mass_matrix(body) @ dvr + coriolis_matrix(body, v[3:]) @ vr + gravity_force(body, rot_aw, g_w) + gain @ (vr - v)
    )
    np.testing.assert_allclose(required_net_force(body, dvr, vr, v, gain, g_body), expected_r, rtol=1e-12)  # (8)


def test_net_force_equals_newton_euler_of_a_tumbling_body():
    """Independent: differentiate world momentum and angular momentum of an analytic motion
    numerically; F* (7) must equal the wrench about the frame origin that produces it."""
    m, com = 7.0, np.array([0.3, -0.2, 0.1])
    inertia = np.array([[2.0, 0.3, -0.1], [0.3, 1.5, 0.2], [-0.1, 0.2, 1.0]])
    body = RigidBody(m, tuple(com), inertia).packed()
    g_up = np.array([0.0, 9.8066, 0.0])

    def pose(t):
        return rot_z(0.8 * t + 0.3 * t**2) @ rot_x(0.5 * np.sin(t)), np.array([np.sin(t), t**2, 0.3 * t**3])

    def omega_world(t, h=1e-6):
        (r1, _), (r0, _) = pose(t + h), pose(t - h)
        rdot = (r1 - r0) / (2 * h)
        w = rdot @ pose(t)[0].T
        return np.array([w[2, 1], w[0, 2], w[1, 0]])

    def momenta(t):
        rot, _ = pose(t)
        h = 1e-6

        def pc(s):
            return pose(s)[1] + pose(s)[0] @ com

        vc = (pc(t + h) - pc(t - h)) / (2 * h)
        return m * vc, rot @ inertia @ rot.T @ omega_world(t)

    t, h = 0.7, 1e-4
    rot, _ = pose(t)
    lin1, ang1 = momenta(t + h)
    lin0, ang0 = momenta(t - h)
    force_w = (lin1 - lin0) / (2 * h) + m * g_up
    moment_w = (ang1 - ang0) / (2 * h) + np.cross(rot @ com, force_w)
    expected = np.concatenate((rot.T @ force_w, rot.T @ moment_w))

    def body_velocity(s):
        r_s, _ = pose(s)
        e = 1e-6
        pdot = (pose(s + e)[1] - pose(s - e)[1]) / (2 * e)
        return np.concatenate((r_s.T @ pdot, r_s.T @ omega_world(s)))

    v = body_velocity(t)
    dv = (body_velocity(t + h) - body_velocity(t - h)) / (2 * h)
    got = net_force(body, dv, v, v[3:], rot.T @ g_up)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"mass": -1.0}, "mass"),
        ({"mass": 1.0, "com": (0.0, 1.0)}, "com"),
        ({"mass": 1.0, "inertia": ((1, 0.5, 0), (0, 1, 0), (0, 0, 1))}, "symmetric"),
        (
            {"mass": 1.0, "inertia": ((1, 0, 0), (0, -1, 0), (0, 0, 1))},
            "centre of mass",
        ),
    ],
)
def test_bad_body_parameters_raise(kwargs, field):
    with pytest.raises(ParameterError, match=field):
        RigidBody(**kwargs)

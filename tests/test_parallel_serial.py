"""Newton–Euler recursion of the parallel–serial manipulator (Petrović & Mattila Sec. 3),
spec 6 items 2–6 and the lab crane of spec 3.2."""

import math

import numpy as np
import pytest
import sympy as sp

from actuatorlab.errors import ParameterError
from actuatorlab.machines.lab_crane import crane_q_from_theta, lab_crane, lab_crane_initial_pose
from actuatorlab.mechanics.linkage import TriangleLinkage
from actuatorlab.mechanics.parallel_serial import (
    FrameOffset,
    ParallelSerialManipulator,
    RevoluteSegment,
)
from actuatorlab.mechanics.parallel_serial_kernels import (
    B0,
    B1,
    B3,
    B4,
    EXIT,
    N_BODIES,
    TC,
    backward_pass,
    revolute_actuator_force,
)
from actuatorlab.mechanics.rigid_body import RigidBody
from actuatorlab.numerics.spatial import rot_z, transform_matrix

RNG = np.random.default_rng(11)
CRANE = lab_crane()


def _zbody(name, m, cx, cy, izz):
    return RigidBody(m, (cx, cy, 0.0), ((0.1, 0, 0), (0, 0.2, 0), (0, 0, izz)), name)


def _one_segment(base_angle=0.4):
    """A single massive segment on a fixed base (test geometry, not from the paper)."""
    seg = RevoluteSegment(
        linkage=TriangleLinkage(1.0, 0.4, 0.8, 0.5, "test"),
        rod_length=0.6,
        exit=FrameOffset.planar(0.3, 0.1, 0.05, "exit"),
        link_base=_zbody("B0", 30.0, 0.2, 0.1, 2.0),
        link=_zbody("B1", 50.0, 0.6, 0.1, 3.0),
        case=_zbody("B3", 15.0, 0.3, 0.0, 0.9),
        rod=_zbody("B4", 10.0, 0.35, 0.02, 0.5),
    )
    return ParallelSerialManipulator(FrameOffset.planar(base_angle, 0.2, -0.1, "base"), (seg,))


def _random_pose(manip):
    lim = manip.coordinate_limits
    return lim[:, 0] + (lim[:, 1] - lim[:, 0]) * RNG.uniform(0.1, 0.9, size=len(lim))


def _planar(v):
    out = np.zeros(6)
    out[[0, 1, 5]] = v
    return out


@pytest.mark.parametrize("sample", range(3))
def test_velocity_loop_closure(sample):
    """(30): T_cj reached through chain 1j equals T_2j reached through chain 2j (29), also for
    the time derivatives; segment 2 has a moving B_c2."""
    q, qd, qdd = _random_pose(CRANE), RNG.normal(size=3), RNG.normal(size=3)
    work = CRANE.state(q, qd, qdd)
    seg = CRANE.arrays[0]
    for j in range(2):
        lc, q2 = seg[j, 3], work.lk[j, 3]
        u = transform_matrix(rot_z(q2), np.array([lc, 0.0, 0.0]))
        v_t2 = u.T @ work.v[j, B4]
        v_t2[5] += work.lk[j, 6]
        np.testing.assert_allclose(v_t2, work.v[j, TC], atol=1e-13)
        dv_t2 = u.T @ work.dv[j, B4]
        dv_t2[:3] -= work.lk[j, 6] * np.cross([0, 0, 1.0], u.T[:3] @ work.v[j, B4])
        dv_t2[3:] -= work.lk[j, 6] * np.cross([0, 0, 1.0], u.T[3:] @ work.v[j, B4])
        dv_t2[5] += work.lk[j, 12]
        np.testing.assert_allclose(dv_t2, work.dv[j, TC], atol=1e-12)


def test_theorem3_and_theorem4_against_direct_solve():
    """(68) equals the solution of (61), (63), (64) under (57)–(59); (69) equals (62)+(65)+(66)."""
    manip = _one_segment()
    q = _random_pose(manip)
    work = manip.state(q, np.zeros(1), np.zeros(1))
    seg, _, trf, _ = manip.arrays
    L, L1, lc = seg[0, 0], seg[0, 1], seg[0, 3]
    ell, q1, q2 = work.lk[0, 0], work.lk[0, 2], work.lk[0, 3]
    fstar = np.zeros((1, N_BODIES, 6))
    for k in (B0, B1, B3, B4):
        fstar[0, k] = _planar(RNG.normal(scale=100.0, size=3))
    tool = _planar(RNG.normal(scale=100.0, size=3))
    f = np.empty(1)
    fc = np.empty((1, 6))
    backward_pass(seg, trf, work.lk, q, fstar, tool, f, fc, work.tmp)

    u_b1p1 = transform_matrix(rot_z(-q2), np.array([L1, 0.0, 0.0]))
    u_b4p1 = transform_matrix(np.eye(3), np.array([lc, 0.0, 0.0]))
    u_b3b4 = transform_matrix(np.eye(3), np.array([ell - lc, 0.0, 0.0]))
    exit_ = manip.segments[0].exit
    u_b1e1 = transform_matrix(np.eye(3), np.array([L1, 0.0, 0.0])) @ transform_matrix(
        np.array(exit_.rotation), np.array(exit_.translation)
    )

    def residual(x):
        p1 = _planar([x[0], x[1], 0.0])  # (58)
        b4 = _planar([x[2], x[3], x[4]])
        b3 = _planar([x[5], x[6], 0.0])  # (59)
        b1 = _planar([x[7], x[8], 0.0])  # (57)
        r61 = b1 - (fstar[0, B1] + u_b1e1 @ tool - u_b1p1 @ p1)
        r63 = b4 - (fstar[0, B4] + u_b4p1 @ p1)
        r64 = b3 - (fstar[0, B3] + u_b3b4 @ b4)
        return np.concatenate([r[[0, 1, 5]] for r in (r61, r63, r64)])

    r0 = residual(np.zeros(9))
    jac = np.column_stack([residual(e) - r0 for e in np.eye(9)])
    x = np.linalg.solve(jac, -r0)
    assert f[0] == pytest.approx(x[2], rel=1e-10)  # (67): f_c = x_f^T B4F
    b1 = _planar([x[7], x[8], 0.0])
    b3 = _planar([x[5], x[6], 0.0])
    b0 = fstar[0, B0] + transform_matrix(rot_z(q[0]), np.array([L, 0.0, 0.0])) @ b1  # (62)
    b2 = transform_matrix(rot_z(q1), np.zeros(3)) @ b3  # (65)
    np.testing.assert_allclose(fc[0], b0 + b2, rtol=1e-10, atol=1e-9)  # (66) vs (69)


def test_closed_form_compiled_and_python_agree():
    args = (0.3, 0.7, 1.1, -0.9, *(RNG.normal(size=(4, 6))))
    assert revolute_actuator_force(*args) == pytest.approx(revolute_actuator_force.py_func(*args), rel=1e-14)


@pytest.mark.parametrize("sample", range(3))
def test_power_balance(sample):
    """Spec 6 item 5: Σ_A V_A^T F*_A = Σ f ẋ − V_D^T F_D (fixed base) for arbitrary F*."""
    q, qd = _random_pose(CRANE), RNG.normal(size=3)
    work = CRANE.state(q, qd, np.zeros(3))
    inert = CRANE.arrays[1]
    fstar = RNG.normal(scale=50.0, size=work.fstar.shape) * (inert[:, :, :1] > 0)
    tool = RNG.normal(scale=50.0, size=6)
    f = np.empty(3)
    backward_pass(CRANE.arrays[0], CRANE.arrays[2], work.lk, q, fstar, tool, f, work.fc, work.tmp)
    body_power = np.einsum("jki,jki->", work.v[:, :N_BODIES], fstar)
    piston_rates = np.array([work.lk[0, 4], work.lk[1, 4], qd[2]])
    assert body_power == pytest.approx(f @ piston_rates - work.v[-1, EXIT] @ tool, rel=1e-10)


def _lagrange_force(manip, q_val, qd_val, qdd_val):
    """Independent Lagrange model of one segment (sympy): planar rotations about z, gravity −y,
    q_j1 by atan2 (not eqs. 19–20), f_c = Q_q/(dx/dq) by virtual work."""
    seg = manip.segments[0]
    lk = seg.linkage
    t = sp.symbols("t")
    q = sp.Function("q")(t)
    alpha = sp.Float(math.atan2(manip.base.rotation[1][0], manip.base.rotation[0][0]))
    p0 = sp.Matrix(manip.base.translation[:2])

    def rz(a):
        return sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])

    ell = sp.sqrt(lk.length**2 + lk.length1**2 + 2 * lk.length * lk.length1 * sp.cos(q))
    q1 = sp.atan2(lk.length1 * sp.sin(q), lk.length + lk.length1 * sp.cos(q))
    o1 = p0 + rz(alpha) * sp.Matrix([lk.length, 0])
    o4 = p0 + rz(alpha + q1) * sp.Matrix([ell - seg.rod_length, 0])
    parts = [
        (seg.link, o1, alpha + q),
        (seg.case, p0, alpha + q1),
        (seg.rod, o4, alpha + q1),
    ]
    kinetic, potential = 0, 0
    for body, origin, angle in parts:
        com = origin + rz(angle) * sp.Matrix(body.com[:2])
        vel = com.diff(t)
        kinetic += (
            sp.Rational(1, 2) * body.mass * (vel.T * vel)[0]
            + sp.Rational(1, 2) * body.inertia[2][2] * angle.diff(t) ** 2
        )
        potential += body.mass * manip.gravity * com[1]
    lag = kinetic - potential
    qd, qdd = q.diff(t), q.diff(t, 2)
    eq = lag.diff(qd).diff(t) - lag.diff(q)
    dxdq = ell.diff(q)
    s_q, s_qd, s_qdd = sp.symbols("s_q s_qd s_qdd")
    expr = (eq / dxdq).subs(qdd, s_qdd).subs(qd, s_qd).subs(q, s_q)
    return float(sp.lambdify((s_q, s_qd, s_qdd), expr)(q_val, qd_val, qdd_val))


def test_actuator_force_matches_independent_lagrange_model():
    """Spec 6 item 6: (68) vs Lagrange, massive case and piston, fixed base, gravity."""
    manip = _one_segment()
    lo, hi = manip.coordinate_limits[0]
    for q, qd, qdd in (
        (lo + 0.3 * (hi - lo), 0.7, 1.3),
        (lo + 0.8 * (hi - lo), -1.1, 0.4),
    ):
        f68 = manip.actuator_forces([q], [qd], [qdd])[0]
        assert f68 == pytest.approx(_lagrange_force(manip, q, qd, qdd), rel=1e-8)


def test_forward_dynamics_inverts_inverse_dynamics():
    q, qd, qdd = _random_pose(CRANE), RNG.normal(size=3), RNG.normal(size=3)
    f = CRANE.actuator_forces(q, qd, qdd)
    np.testing.assert_allclose(CRANE.accelerations(q, qd, f), qdd, rtol=1e-9, atol=1e-9)


def test_joint_space_mass_matrix_is_symmetric_positive_definite():
    """Independent of the recursion's algebra: M_q = diag(∂x/∂q) A(q) must be symmetric."""
    q = _random_pose(CRANE)
    work = CRANE.state(q, np.zeros(3), np.zeros(3))
    jac = np.eye(3)
    for j in range(2):
        jac[j, j] = (
            -CRANE.segments[j].linkage.length * CRANE.segments[j].linkage.length1 * math.sin(q[j]) / work.lk[j, 0]
        )
    m_q = jac @ CRANE.actuator_inertia(q)
    np.testing.assert_allclose(m_q, m_q.T, rtol=1e-9, atol=1e-9 * np.abs(m_q).max())
    assert np.linalg.eigvalsh(0.5 * (m_q + m_q.T)).min() > 0.0


@pytest.mark.parametrize("theta", [(45.0, -90.0, 0.5), (30.0, -60.0, 0.2), (60.0, -110.0, 0.9)])
def test_lab_crane_tool_position_matches_authors_closed_form(theta):
    """Spec 3.2: TCP forward kinematics `WrWD22.m` [R] with q1 = −π/2 − β1 − β2 + Θ1, q2 = Θ2 − β3 − β4."""
    th1, th2, xt2 = math.radians(theta[0]), math.radians(theta[1]), theta[2]
    k = -0.00152855 - 0.000928646 * xt2
    x = (
        -0.189261
        + (1.99949 + xt2) * math.cos(th1 + th2)
        + (-0.100002 + k * math.cos(th2)) * math.sin(th1)
        + math.cos(th1) * (1.59687 + k * math.sin(th2))
        - 0.152638 * math.sin(th1 + th2)
    )
    y = (
        0.85
        + math.sin(th1) * (1.59687 + (1.99949 + xt2) * math.cos(th2) + (-0.154167 - 0.000928646 * xt2) * math.sin(th2))
        + math.cos(th1) * (0.100002 + (0.154167 + 0.000928646 * xt2) * math.cos(th2) + (1.99949 + xt2) * math.sin(th2))
    )
    pos, _ = CRANE.tool_pose([*crane_q_from_theta(th1, th2), xt2])
    np.testing.assert_allclose(pos, [x, y, -0.0092303], atol=2e-5)


def test_lab_crane_static_forces_are_near_the_authors_initial_pressures():
    """Spec 3.2 initial state: p_a1 = 130 bar, p_b1 = 30.9148 bar, p_a2 = 90 bar, p_b2 = 35.7169 bar
    hold the crane; A_a = 5.026548e-3, A_b = 3.436117e-3 m². The authors' Simscape model had joint
    damping and its own body split, so agree within 3 %."""
    q0 = lab_crane_initial_pose()
    area_a, area_b = math.pi * 0.04**2, math.pi * (0.04**2 - 0.0225**2)
    held = np.array([area_a * 130e5 - area_b * 30.9148e5, area_a * 90e5 - area_b * 35.7169e5])
    for variant in ("corrected", "as_given"):
        f = lab_crane(variant).actuator_forces(q0, np.zeros(3), np.zeros(3))
        np.testing.assert_allclose(f[:2], held, rtol=0.03)


def test_variants_differ_by_less_than_a_third_of_a_percent():
    """Spec 3.2: static holding forces change by at most 0.33 % between the two sets."""
    q0 = lab_crane_initial_pose()
    a = lab_crane("as_given").actuator_forces(q0, np.zeros(3), np.zeros(3))
    b = lab_crane("corrected").actuator_forces(q0, np.zeros(3), np.zeros(3))
    assert np.max(np.abs(a[:2] - b[:2]) / np.abs(b[:2])) < 0.0033
    assert not np.allclose(a, b)


def test_bad_inputs_raise_clear_errors():
    q0 = lab_crane_initial_pose()
    with pytest.raises(ParameterError, match="q1 = .* is outside"):
        CRANE.actuator_forces([0.1, q0[1], q0[2]], np.zeros(3), np.zeros(3))
    with pytest.raises(ParameterError, match="xt2"):
        CRANE.actuator_forces([q0[0], q0[1], 1.5], np.zeros(3), np.zeros(3))
    with pytest.raises(ParameterError, match="3 values"):
        CRANE.actuator_forces(q0[:2], np.zeros(3), np.zeros(3))
    with pytest.raises(ParameterError, match="qd"):
        CRANE.actuator_forces(q0, [0.0, np.nan, 0.0], np.zeros(3))
    with pytest.raises(ParameterError, match="variant"):
        lab_crane("paper")
    with pytest.raises(ParameterError, match="rod_length"):
        RevoluteSegment(
            TriangleLinkage(1.0, 0.4, 0.8, 0.5),
            0.9,
            FrameOffset(),
            *(_zbody("b", 1, 0, 0, 1),) * 4,
        )
    with pytest.raises(ParameterError, match="orthonormal"):
        FrameOffset(((1, 0, 0), (0, 2, 0), (0, 0, 1)))

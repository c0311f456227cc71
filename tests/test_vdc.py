"""Virtual decomposition control (Petrović & Mattila Sec. 4–5), spec 6 item 9, and the crane's
closed-loop simulation."""

import numpy as np
import pytest

from actuatorlab.control.vdc import (
    VDCGains,
    force_command,
    lab_crane_gains,
    piston_motion,
    required_actuator_forces,
    required_rates,
)
from actuatorlab.numerics.filters import derivative_filter, filter_reset, filter_step
from actuatorlab.errors import ParameterError, SimulationError
from actuatorlab.hydraulics.servo_cylinder import (
    chamber_rates,
    friction_force,
    piston_force,
    valve_flows,
)
from actuatorlab.machines.lab_crane import lab_crane, lab_crane_hydraulics, lab_crane_initial_pose
from actuatorlab.mechanics.parallel_serial_kernels import new_work
from actuatorlab.mechanics.rigid_body import mass_matrix
from actuatorlab.numerics.trajectory import quintic_segments
from actuatorlab.simulation.crane import simulate_crane
from actuatorlab.simulation.crane_reference import diamond_waypoints, joint_reference

RNG = np.random.default_rng(3)
CRANE = lab_crane()
HYD = lab_crane_hydraulics()
GAINS = lab_crane_gains()


def _random_state():
    lim = CRANE.coordinate_limits
    q = lim[:, 0] + (lim[:, 1] - lim[:, 0]) * RNG.uniform(0.2, 0.8, size=3)
    return (
        q,
        RNG.normal(scale=0.05, size=3),
        RNG.uniform(40e5, 150e5, size=3),
        RNG.uniform(20e5, 120e5, size=3),
    )


def _control(q, qd, pa, pb, q_d, qd_d, qdd_d, dfpr):
    """Required quantities and unsaturated valve inputs of one VDC sample."""
    cyl, valve, fric = HYD.packed()
    seg, inert, trf, base = CRANE.arrays
    qd_r, qdd_r = np.empty(3), np.empty(3)
    required_rates(np.array(GAINS.lam), q, qd, q_d, qd_d, qdd_d, qd_r, qdd_r)
    work_r, work_m, f_cr = new_work(2), new_work(2), np.empty(3)
    required_actuator_forces(
        seg,
        inert,
        trf,
        base,
        GAINS.body_gains(2),
        q,
        qd,
        qd_r,
        qdd_r,
        np.zeros(6),
        work_r,
        work_m,
        f_cr,
    )
    x, xd, xd_r = np.empty(3), np.empty(3), np.empty(3)
    piston_motion(seg, work_r[0], q, qd, qd_r, x, xd, xd_r)
    f_pr = f_cr + np.array([friction_force(fric[i], xd_r[i]) for i in range(3)])
    u = np.array(
        [
            force_command(
                cyl[i],
                valve[i],
                GAINS.kx[i],
                GAINS.kf[i],
                f_pr[i],
                dfpr[i],
                pa[i],
                pb[i],
                x[i],
                xd[i],
                xd_r[i],
            )[1]
            for i in range(3)
        ]
    )
    return work_r, x, xd, xd_r, f_pr, u


def _plant(q, qd, pa, pb, x, xd, u):
    """Exact plant: piston force rates (87) and accelerations at valve inputs u."""
    cyl, valve, fric = HYD.packed()
    dfp, fc = np.empty(3), np.empty(3)
    for i in range(3):
        qa, qb = valve_flows(valve[i], u[i], pa[i], pb[i])
        dpa, dpb = chamber_rates(cyl[i], qa, qb, x[i], xd[i], pa[i], pb[i])
        dfp[i] = cyl[i, 0] * dpa - cyl[i, 1] * dpb
        fc[i] = piston_force(cyl[i], pa[i], pb[i]) - friction_force(fric[i], xd[i])
    return dfp, CRANE.accelerations(q, qd, fc)


@pytest.mark.parametrize("sample", range(4))
def test_force_error_law(sample):
    """Spec 6 item 9 [V]: with the exact valve inverse (91), ė_f = −β k_f e_f − β k_x e_v."""
    q, qd, pa, pb = _random_state()
    dfpr = RNG.normal(scale=1e4, size=3)
    _, x, xd, xd_r, f_pr, u = _control(q, qd, pa, pb, q + 0.01, qd + 0.02, np.zeros(3), dfpr)
    assert np.all(np.abs(u) < 10.0), "state chosen inside the unsaturated range"
    dfp, _ = _plant(q, qd, pa, pb, x, xd, u)
    cyl = HYD.packed()[0]
    e_f = f_pr - (cyl[:, 0] * pa - cyl[:, 1] * pb)
    beta, kx, kf = 800e6, np.array(GAINS.kx), np.array(GAINS.kf)
    np.testing.assert_allclose(dfpr - dfp, -beta * kf * e_f - beta * kx * (xd_r - xd), rtol=1e-8, atol=1e-6)


@pytest.mark.parametrize("sample", range(4))
def test_lyapunov_function_decreases_on_exact_model(sample):
    """(95)–(99) with fixed base and free tool (p_Bc1 = p_E = 0): along the exact closed loop
    v̇ = −Σ e_A^T K_A e_A − Σ (k_f/k_x) e_f² − Σ e_v (f_f(ẋ_r) − f_f(ẋ)) < 0, where v̇ is
    computed directly from the plant: Σ e_A^T M_A (dV_r − dV) + Σ e_f ė_f/(β k_x)."""
    q, qd, pa, pb = _random_state()
    q_d, qd_d, qdd_d = (
        q + RNG.normal(scale=0.02, size=3),
        RNG.normal(scale=0.05, size=3),
        RNG.normal(size=3),
    )
    dfpr = RNG.normal(scale=1e4, size=3)
    work_r, x, xd, xd_r, f_pr, u = _control(q, qd, pa, pb, q_d, qd_d, qdd_d, dfpr)
    dfp, qdd = _plant(q, qd, pa, pb, x, xd, u)
    actual = CRANE.state(q, qd, qdd)
    inert = CRANE.arrays[1]
    v_r, dv_r = work_r[1], work_r[2]
    vdot_mech, damping = 0.0, 0.0
    for j in range(2):
        for k in range(7):
            e = v_r[j, k] - actual.v[j, k]
            vdot_mech += e @ mass_matrix(inert[j, k]) @ (dv_r[j, k] - actual.dv[j, k])
            if inert[j, k, 0] > 0:
                damping += GAINS.body_gain * e @ e
    cyl, _, fric = HYD.packed()
    e_f = f_pr - (cyl[:, 0] * pa - cyl[:, 1] * pb)
    beta, kx, kf = 800e6, np.array(GAINS.kx), np.array(GAINS.kf)
    vdot = vdot_mech + np.sum(e_f * (dfpr - dfp) / (beta * kx))
    friction_term = np.sum(
        (xd_r - xd) * np.array([friction_force(fric[i], xd_r[i]) - friction_force(fric[i], xd[i]) for i in range(3)])
    )
    expected = -damping - np.sum(kf / kx * e_f**2) - friction_term
    assert vdot == pytest.approx(expected, rel=1e-7, abs=1e-6)
    assert vdot < 0.0


def test_required_rates_law():
    """(35)–(37): ṙ_r = ṙ_d + λ (r_d − r), q̈_r its derivative."""
    lam = np.array([3.0, 2.0])
    qd_r, qdd_r = np.empty(2), np.empty(2)
    required_rates(
        lam,
        np.array([0.1, 0.2]),
        np.array([0.0, 1.0]),
        np.array([0.2, 0.0]),
        np.array([0.5, 0.5]),
        np.array([1.0, 0.0]),
        qd_r,
        qdd_r,
    )
    np.testing.assert_allclose(qd_r, [0.5 + 0.3, 0.5 - 0.4])
    np.testing.assert_allclose(qdd_r, [1.0 + 1.5, 0.0 - 1.0])


def test_derivative_filter():
    """H(s) = ω² s/(s + ω)²: a ramp's slope after the transient, zero on a constant after reset."""
    dt, coef = 1e-3, derivative_filter(8.0, 1e-3)
    state = np.zeros(2)
    filter_reset(coef, state, 5e4)
    assert max(abs(filter_step(coef, state, 5e4)) for _ in range(100)) < 1e-9
    state = np.zeros(2)
    filter_reset(coef, state, 0.0)
    out = [filter_step(coef, state, 2e3 * k * dt) for k in range(3000)]
    assert out[-1] == pytest.approx(2e3, rel=1e-6)
    assert np.sum(coef[:3]) == pytest.approx(0.0, abs=1e-15)  # no output at DC
    with pytest.raises(ParameterError, match="Nyquist"):
        VDCGains((3.0,), (1e-3,), (1e-8,), derivative_cutoff=600.0)
    with pytest.raises(ParameterError, match="kx"):
        VDCGains((3.0, 3.0), (1e-3,), (1e-8, 1e-8))
    with pytest.raises(ParameterError, match="lam"):
        VDCGains((-3.0,), (1e-3,), (1e-8,))


def test_quintic_segments_are_rest_to_rest():
    t, p, pd, _ = quintic_segments(np.array([[0.0, 0.0], [1.0, 2.0], [0.0, 1.0]]), 2.0, 1e-3)
    k = np.searchsorted(t, [0.0, 2.0, 4.0])
    np.testing.assert_allclose(p[k], [[0, 0], [1, 2], [0, 1]], atol=1e-12)
    np.testing.assert_allclose(pd[k], 0.0, atol=1e-12)
    assert np.max(np.abs(np.gradient(p[:, 0], t) - pd[:, 0])) < 1e-3


def test_closed_loop_tracks_first_diamond_segment():
    """Paper Sec. 7 test 2 (first segment, start pose → A, 2 s): exact model, no noise; the
    tool follows within millimetres, pressures stay in (p_r, p_s), no saturation."""
    q0 = lab_crane_initial_pose()
    start, _ = CRANE.tool_pose(q0)
    waypoints = diamond_waypoints(start[:2], loops=1)[:2]
    reference = joint_reference(CRANE, np.vstack([waypoints, waypoints[-1:]]), 2.0, 1e-3, q0)
    run = simulate_crane(reference, CRANE, HYD, GAINS, substeps=2)
    err = np.linalg.norm(run.tip - run.tip_ref, axis=1)
    assert err.max() < 5e-3
    assert err[-1] < 1e-3  # converging while holding A (100)
    assert run.p_a.min() > 10e5 and run.p_b.min() > 10e5 and max(run.p_a.max(), run.p_b.max()) < 185e5
    assert run.counters["saturated_fraction"] == 0.0
    # achieved piston forces follow the required ones (Fig. 14): lift and tilt within 2 % of their
    # peak, the extension within 6 % (its force loop is slow: β k_f = 6.4 1/s with the [R] gains)
    err_f = np.abs(run.f_p - run.f_pr).max(axis=0) / np.abs(run.f_pr).max(axis=0)
    assert np.all(err_f < [0.02, 0.02, 0.06])


def test_reference_outside_the_workspace_raises():
    q0 = lab_crane_initial_pose()
    with pytest.raises(SimulationError, match="out of reach"):
        joint_reference(CRANE, np.array([[2.746, 0.392], [8.0, 0.0]]), 2.0, 1e-3, q0)
    with pytest.raises(SimulationError, match="outside"):
        joint_reference(CRANE, np.array([[2.746, 0.392], [1.2, 3.2]]), 2.0, 1e-3, q0)


def test_closed_loop_with_spool_dynamics_and_bad_initial_pressures():
    """A 10 ms first-order spool (outside the proof's assumptions) still tracks the first
    segment; initial pressures violating Assumption 5 are rejected."""
    q0 = lab_crane_initial_pose()
    start, _ = CRANE.tool_pose(q0)
    reference = joint_reference(CRANE, diamond_waypoints(start[:2], loops=1)[:2], 2.0, 1e-3, q0)
    slow = lab_crane_hydraulics(spool_time_constant=0.01)
    run = simulate_crane(reference, CRANE, slow, GAINS)
    assert np.linalg.norm(run.tip - run.tip_ref, axis=1).max() < 1e-2
    with pytest.raises(ParameterError, match="Assumption 5"):
        simulate_crane(
            reference,
            CRANE,
            HYD,
            GAINS,
            initial_pressures=(np.full(3, 200e5), np.full(3, 30e5)),
        )

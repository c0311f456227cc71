"""Bilevel trajectory optimisation of the EMLA-driven crane (Bahari et al., spec 004 §2.6–2.7;
reproduction targets §5 items 6, 9, 12)."""

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actuatorlab.electromech import actuation_efficiency
from actuatorlab.errors import ParameterError
from actuatorlab.machines.lab_crane import emla_lab_crane, lab_crane
from actuatorlab.mechanics.emla_crane import quadratic_velocity_terms
from actuatorlab.numerics.bspline import ClampedBSpline
from actuatorlab.optimization.follower import Follower
from actuatorlab.optimization.leader import BASELINES, LeaderSettings, run_bilevel
from actuatorlab.optimization.trajectory_efficiency import summarise_efficiency
from actuatorlab.optimization.trajectory_task import FollowerSettings, TrajectoryTask

RNG = np.random.default_rng(4)
SMALL = FollowerSettings(n_ctrl=8, n_intervals=24, grid=(13, 13, 7))


@pytest.fixture(scope="module")
def crane():
    return emla_lab_crane()


@pytest.fixture(scope="module")
def follower(crane):
    return Follower(crane)


@dataclass(frozen=True)
class Rating:
    """Stand-in actuator with only the ratings the follower reads."""

    max_force: float
    max_velocity: float
    stroke: float


# -- B-splines (41) ---------------------------------------------------------------------------
@pytest.mark.parametrize("degree", [3, 4, 5])
def test_bspline_derivatives_match_finite_differences(degree):
    spline = ClampedBSpline(n_ctrl=9, degree=degree)
    c = RNG.normal(size=(9, 3))
    duration = 2.7
    t = np.sort(RNG.uniform(0.05, 2.65, 37))  # off the knots, where the third derivative jumps
    _, qd, qdd = spline.evaluate(c, duration, t)
    h = 1e-5
    qp, qdp, _ = spline.evaluate(c, duration, t + h)
    qm, qdm, _ = spline.evaluate(c, duration, t - h)
    scale = np.abs(qd).max()
    np.testing.assert_allclose((qp - qm) / (2 * h), qd, atol=1e-7 * scale)
    np.testing.assert_allclose((qdp - qdm) / (2 * h), qdd, atol=1e-6 * np.abs(qdd).max())


def test_bspline_clamped_boundary_conditions():
    spline = ClampedBSpline(n_ctrl=10, degree=5)
    c = RNG.normal(size=(10, 2))
    q, qd, _ = spline.evaluate(c, 3.0, [0.0, 3.0])
    np.testing.assert_allclose(q, c[[0, -1]], atol=1e-14)  # clamped: end points interpolated
    s = np.linspace(0, 1, 11)
    np.testing.assert_allclose(spline.basis(s).sum(axis=1), 1.0, atol=1e-14)  # partition of unity
    guess = spline.interpolating_guess([0.0, 1.0], [2.0, -1.0])
    q, qd, _ = spline.evaluate(guess, 2.0, [0.0, 2.0])
    np.testing.assert_allclose(q, [[0.0, 1.0], [2.0, -1.0]], atol=1e-14)
    np.testing.assert_allclose(qd, 0.0, atol=1e-13)  # rest to rest


@pytest.mark.parametrize("kwargs", [{"degree": 2}, {"n_ctrl": 4}, {"n_ctrl": 5, "degree": 5}])
def test_bspline_rejects_bad_settings(kwargs):
    with pytest.raises(ParameterError):
        ClampedBSpline(**kwargs)


# -- the EMLA crane (42) ------------------------------------------------------------------------
def test_emla_crane_forces_are_the_cylinder_forces_and_split_exactly(crane):
    lim = crane.joint_limits()
    q = lim[:, 0] + (lim[:, 1] - lim[:, 0]) * RNG.uniform(0.2, 0.8, size=(6, 3))
    qd, qdd = RNG.normal(size=(6, 3)), RNG.normal(size=(6, 3))
    f = crane.actuator_forces(q, qd, qdd)
    ref = np.array([lab_crane().actuator_forces(*row) for row in zip(q, qd, qdd)])
    np.testing.assert_allclose(f, ref, rtol=1e-12, atol=1e-8)  # same pins, same (68)
    g, a, c = crane.dynamics_terms(q)
    split = g + np.einsum("nij,nj->ni", a, qdd) + np.einsum("nij,nj->ni", c, quadratic_velocity_terms(qd))
    np.testing.assert_allclose(split, f, rtol=1e-10, atol=1e-6 * np.abs(f).max())


def test_emla_velocity_is_the_stroke_rate(crane):
    spline = ClampedBSpline(8, 5)
    c = spline.interpolating_guess([-2.0, -2.4, 0.2], [-1.6, -2.1, 0.9])
    t = np.linspace(0.1, 2.9, 15)
    q, qd, _ = spline.evaluate(c, 3.0, t)
    x, v = crane.actuator_states(q, qd)
    h = 1e-6
    xp, _ = crane.actuator_states(spline.evaluate(c, 3.0, t + h)[0], qd)
    xm, _ = crane.actuator_states(spline.evaluate(c, 3.0, t - h)[0], qd)
    np.testing.assert_allclose((xp - xm) / (2 * h), v, atol=1e-7)
    np.testing.assert_allclose(x, np.array([lab_crane().piston_strokes(r) for r in q]), atol=1e-14)


# -- follower (43), (53)–(57) -------------------------------------------------------------------
@pytest.mark.parametrize("weights", [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)])
def test_follower_meets_every_bound(follower, weights):
    sol = follower.solve(weights)
    assert sol.success, sol.status
    viol = follower.bound_violation(sol)  # on the recursion's samples at the collocation points
    assert viol["q"] == 0.0 and viol["duration"] == 0.0
    assert viol["force"] == 0.0 and viol["velocity"] <= 1e-6 and viol["qd"] <= 1e-6
    assert viol["boundary_q"] <= 1e-9 and viol["boundary_qd"] <= 1e-9
    # q bounds hold at every t (bounds on the control points, convex hull)
    dense = follower.trajectory(sol, 500)
    assert np.all(dense.q >= follower.q_lower - 1e-12) and np.all(dense.q <= follower.q_upper + 1e-12)
    t_lo, t_hi = follower.task.duration_bounds
    assert t_lo <= sol.duration <= t_hi  # its time (≤ 5 s) is measured by benchmarks/, not under the suite's load


def test_follower_criteria_and_warm_start(follower):
    sol = follower.solve((0.8, 0.2))
    assert sol.psi == pytest.approx(follower.criteria(sol.control_points, sol.duration))
    # objective is the scaled weighted sum of the criteria (56), (57), up to the fit's error
    expected = 0.8 * sol.psi[0] / follower.psi_reference[0] + 0.2 * sol.psi[1] / follower.psi_reference[1]
    assert sol.objective == pytest.approx(expected, rel=1e-3)
    again = follower.solve((0.8, 0.2), warm_start=sol)
    assert again.iterations <= 2 and again.objective == pytest.approx(sol.objective, rel=1e-6)
    # effort-only moves fast, power-only slowly: the scaling lets both criteria act
    fast, slow = follower.solve((1.0, 0.0)), follower.solve((0.0, 1.0))
    assert fast.duration < slow.duration
    assert fast.psi[0] < slow.psi[0] and slow.psi[1] < fast.psi[1]


def test_fitted_dynamics_error_is_small(follower, crane):
    assert np.all(follower.model_error < 1e-2 * crane.max_force)


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"duration_bounds": (5.0, 2.0)}, "t_ML < t_MU"),
        ({"q_initial": (-2.1, -2.2)}, "give 3 finite numbers"),
    ],
)
def test_task_rejects_bad_values(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        TrajectoryTask(**kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"q_lower": (-1.5, -2.9, 0.0), "q_upper": (-1.6, -2.0, 1.0)}, "q_lower < q_upper"),
        ({"q_initial": (-2.3, -2.2, 0.8)}, "outside"),
        ({"force_upper": (1e6, 2e4, 1e4)}, "exceeds the EMLA rating"),
        ({"qd_lower": (0.1, -0.5, -0.5)}, "exclude 0"),
        ({"q_upper": (-1.4, -2.0, 1.5)}, "leave the EMLA crane"),
    ],
)
def test_follower_rejects_infeasible_tasks(crane, kwargs, match):
    with pytest.raises(ParameterError, match=match):
        Follower(crane, TrajectoryTask(**kwargs), SMALL)


def test_force_beyond_the_actuator_limit_is_refused():
    weak = emla_lab_crane((Rating(65e3, 0.35, 0.59), Rating(5e3, 0.8, 0.59), Rating(12e3, 0.75, 1.1)))
    with pytest.raises(ParameterError, match="tilt force at q_initial .* infeasible"):
        Follower(weak, TrajectoryTask(), SMALL)
    with pytest.raises(ParameterError, match="exceeds its rating"):
        weak.check_force_limits([[0.0, 6e3, 0.0]])


def test_bad_weights_and_leader_settings(follower):
    with pytest.raises(ParameterError, match="weights"):
        follower.solve((-1.0, 1.0))
    with pytest.raises(ParameterError, match="excludes the"):
        LeaderSettings(weight_lower=(0.1, 0.0))
    with pytest.raises(ParameterError, match="criterion"):
        LeaderSettings(criterion="fastest")


# -- η_Act (68) -----------------------------------------------------------------------------------
def test_actuation_efficiency_paper_example():
    # spec 004 §5 item 6: 500, 250, 200 W at 73.1, 66.2, 57.5 % → ≈ 67.4 %
    eta = actuation_efficiency([0.731, 0.662, 0.575], [500.0, 250.0, 200.0], [1.0, 1.0, 1.0])
    assert float(eta) == pytest.approx(0.674, abs=5e-4)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(1e-3, 1e5), min_size=3, max_size=3),
    st.lists(st.floats(0.01, 1.0), min_size=3, max_size=3),
)
def test_actuation_efficiency_lies_between_min_and_max(power, eta):
    p, e = np.array(power), np.array(eta)
    value = float(actuation_efficiency(e, p, np.ones(3)))
    assert e.min() * (1 - 1e-12) <= value <= e.max() * (1 + 1e-12)
    same = float(actuation_efficiency(np.full(3, e[0]), p, np.ones(3)))
    assert same == pytest.approx(e[0], rel=1e-12)


def test_efficiency_summary_bounds(follower, crane):
    sol = follower.solve((0.5, 0.5))
    samples = follower.trajectory(sol)
    s = summarise_efficiency(crane, samples, sol.duration)
    motoring = samples.power > 0
    for i, name in enumerate(("lift", "tilt", "extension")):
        e = s.eta[motoring[:, i], i]
        assert e.min() - 1e-12 <= s.per_actuator[name] <= e.max() + 1e-12
    assert np.all((s.eta_act >= 0) & (s.eta_act <= 1))
    assert s.eta_act[0] < 1e-9 and s.eta_act[-1] < 1e-9  # rest states (q̇ = 0 up to round-off)
    dt = sol.duration / (len(samples.t) - 1)
    assert s.objective == pytest.approx(0.5 * dt * np.sum(s.eta_act**2))  # (64)


# -- leader (64), (67), Algorithm 1 ----------------------------------------------------------------
def test_small_leader_run_beats_the_baselines_and_resumes(tmp_path):
    cache = tmp_path / "bilevel.json"
    seen = []
    leader = LeaderSettings(max_evaluations=6, n_directions=1, workers=1)
    result = run_bilevel(
        task=TrajectoryTask(), follower_settings=SMALL, settings=leader, cache_path=cache, progress=seen.append
    )
    assert len(seen) == 6 and result.n_solved == 6
    assert set(result.baselines) == set(BASELINES)
    best = result.optimum.score(leader.criterion)
    for ev in result.baselines.values():
        assert best >= ev.score(leader.criterion)
    assert 0.0 < result.efficiency_total <= 1.0
    frame = result.to_frame()
    assert len(frame) == SMALL.n_intervals + 1 and frame.attrs["units"]["f_lift"] == "N"
    data = json.loads(cache.read_text())
    assert len(data["evaluations"]) == 6
    again = run_bilevel(task=TrajectoryTask(), follower_settings=SMALL, settings=leader, cache_path=cache)
    assert again.n_solved == 0 and again.n_cached == 6 and again.weights == result.weights
    with pytest.raises(ParameterError, match="another problem"):
        run_bilevel(
            task=TrajectoryTask(duration_bounds=(1.0, 6.0)), follower_settings=SMALL, settings=leader, cache_path=cache
        )


def test_leader_in_parallel_workers():
    leader = LeaderSettings(max_evaluations=4, n_directions=1, workers=2)
    result = run_bilevel(follower_settings=SMALL, settings=leader)
    assert result.n_solved == 4
    assert all(ev.success for ev in result.evaluations)
    assert result.optimum.score(leader.criterion) >= max(ev.score(leader.criterion) for ev in result.baselines.values())
    assert not math.isnan(result.efficiency_total)


def test_emla_crane_refuses_samples_outside_the_workspace(crane):
    q = [[-1.8, -2.3, 0.5], [-1.8, -2.3, 1.5]]
    with pytest.raises(ParameterError, match="sample 1: xt2"):
        crane.actuator_states(q, np.zeros((2, 3)))
    with pytest.raises(ParameterError, match="sample 1: xt2"):
        crane.dynamics_terms(q)

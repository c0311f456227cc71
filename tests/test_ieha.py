"""IEHA nonlinear model (Alfayad et al. 2016): kinematics (5)–(8), step response, volume
balance, parameter validation. References: spec shared/spec/000-*.md §7 (targets 1–3, 8–11)."""

import math

import numpy as np
import pytest

from actuatorlab.errors import ParameterError, SimulationError
from actuatorlab.hydraulics.ieha import (
    I_PISTON,
    I_Y,
    N_AUX,
    IEHAParams,
    ieha_rhs,
    piston_phases,
    piston_reach,
    piston_reach_rate,
)
from actuatorlab.simulation.ieha import backdrive_run, simulate_ieha, step_run

P = IEHAParams()
RB = P.ring_radius
OMEGA = P.shaft_speed


@pytest.mark.parametrize("e", [0.0, 1e-4, 4e-4, -3e-4])
def test_reach_endpoints_eq5(e):
    # spec §7-1: L(θ=0) = R_b − E, L(θ=π) = R_b + E, stroke 2E (Eq. 7)
    assert piston_reach(e, 0.0, RB) == pytest.approx(RB - e, abs=1e-15)
    assert piston_reach(e, math.pi, RB) == pytest.approx(RB + e, abs=1e-15)


def test_reach_rate_is_time_derivative_of_reach_eq6():
    # spec §7-2: (6) is the exact derivative of (5) along any E(t) with θ = ωt + φ
    def e_of_t(t):
        return 2e-4 + 1.5e-4 * math.sin(300.0 * t)

    def edot(t):
        return 1.5e-4 * 300.0 * math.cos(300.0 * t)

    h = 1e-8
    for t in np.linspace(0.0, 0.02, 37):
        for phi in (0.0, 1.3, 4.0):
            numeric = (
                piston_reach(e_of_t(t + h), OMEGA * (t + h) + phi, RB)
                - piston_reach(e_of_t(t - h), OMEGA * (t - h) + phi, RB)
            ) / (2 * h)
            exact = piston_reach_rate(e_of_t(t), edot(t), OMEGA * t + phi, OMEGA, RB)
            assert exact == pytest.approx(numeric, rel=1e-5, abs=1e-9)
            assert exact == piston_reach_rate.py_func(e_of_t(t), edot(t), OMEGA * t + phi, OMEGA, RB)


def test_mean_delivered_flow_eq8_and_ripple():
    # spec §7-3: mean of Σ delivery-half flows = 2 N S_p E · (rev/s); ripple at 2N·f for odd N
    e = 4e-4
    n_samples = 3000
    t = np.arange(n_samples) / n_samples / (OMEGA / (2 * math.pi))  # one revolution
    rate = np.array(
        [[piston_reach_rate(e, 0.0, OMEGA * tk + phi, OMEGA, RB) for phi in piston_phases(P.n_pistons)] for tk in t]
    )
    delivered = np.sum(np.maximum(-P.piston_area * rate, 0.0), axis=1)
    expected = 2 * P.n_pistons * P.piston_area * e * 50.0  # 3000 rpm = 50 rev/s
    assert delivered.mean() == pytest.approx(expected, rel=1e-6)
    assert P.mean_flow(e) == pytest.approx(expected, rel=1e-12)
    spectrum = np.abs(np.fft.rfft(delivered - delivered.mean()))
    assert np.argmax(spectrum) == 2 * P.n_pistons  # harmonic index per revolution → 1500 Hz


def test_compiled_rhs_matches_python_twin():
    rng = np.random.default_rng(1)
    y = P.initial_state()
    y[:7] = [2e-4, 0.01, 1e5, 3e5, 2e3, 0.01, 0.02]
    y[I_PISTON:] += rng.normal(0, 2e4, P.n_pistons)
    u = np.array([3e-4, 100.0])
    k = P.kernel_array()
    outs = []
    for fn in (ieha_rhs, ieha_rhs.py_func):
        out, aux, dp = np.empty(y.size), np.empty(N_AUX), np.empty((P.n_pistons, 4))
        fn(0.0123, y, u, k, out, aux, dp)
        outs.append(out)
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-10, atol=1e-6)


@pytest.fixture(scope="module")
def step():
    return step_run(duration=0.06)


def test_step_eccentricity_follows_x(step):
    # paper Fig. 5: E follows X = 0.04 cm with a response time ≈ 7 ms
    x = 0.04e-2
    after = step.t >= 0.007
    assert np.all(np.abs(step.eccentricity[after] - x) < 0.02 * x)
    assert step.eccentricity[np.searchsorted(step.t, 0.0005)] < 0.9 * x  # not instantaneous


def test_step_flow_and_velocity_match_kinematics(step):
    # mean pump flow = Q_mac (8) at E = X; rod velocity ≈ Q/S_A once the load accelerated,
    # averaged over ≈ 2 periods of the lightly damped load resonance (≈ 69 Hz)
    window = step.t >= 0.03
    q = P.mean_flow(0.04e-2)
    assert step.pump_flow[window].mean() == pytest.approx(q, rel=0.02)
    assert step.v[window].mean() == pytest.approx(q / P.area_a, rel=0.02)


def test_volume_balance_without_leakage():
    # oil from P_rp minus oil vented = growth of all chamber volumes + compression Σ∫(V/β)dp
    r = step_run(duration=0.02)
    s = r.states
    theta = OMEGA * r.t[:, None] + piston_phases(P.n_pistons)[None, :]
    e = s[:, 0][:, None]
    reach = np.sqrt(RB**2 - e**2 * np.sin(theta) ** 2) - e * np.cos(theta)
    v_p = P.piston_dead_volume + P.piston_area * (reach - RB + P.max_eccentricity)
    v_a = P.chamber_volume_a + P.area_a * s[:, I_Y]
    v_b = P.chamber_volume_b - P.area_b * s[:, I_Y]
    volumes = np.column_stack([v_p, v_a, v_b])
    pressures = np.column_stack([s[:, I_PISTON:], s[:, 3], s[:, 4]])
    inflow = np.trapezoid(r.supply_flow - r.vent_flow, r.t)
    stored = np.sum(volumes[-1] - volumes[0]) + np.sum(np.trapezoid(volumes, pressures, axis=0)) / P.bulk_modulus
    gross = np.trapezoid(r.supply_flow, r.t)
    assert gross > 1e-7
    # residual of the time discretisation (BDF2 at 20 µs, Newton tolerance, trapezoid quadrature
    # of the switching port flows) < 0.1 %; a sign or wiring error gives tens of per cent
    assert abs(stored - inflow) < 3e-3 * gross


def test_backdrive_holds_then_yields_to_force():
    # §5.3 / spec §7-12: after closing the valve E returns to ≈ 0 and the pump blocks the
    # cylinder; the sinusoidal force then moves Y only a little (compressibility, back-drive)
    r = backdrive_run(duration=0.45, close_time=0.2, force_amplitude=600.0, force_frequency=5.0)
    held = r.t >= 0.25
    assert np.max(np.abs(r.eccentricity[held])) < 0.05 * 0.04e-2
    moving = r.t < 0.2
    assert np.ptp(r.y[moving]) > 5e-3
    assert 0.0 < np.ptp(r.y[held]) < 2e-3


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"area_a": -1e-4}, "area_a"),
        ({"chamber_volume_b": 0.0}, "chamber_volume_b"),
        ({"bulk_modulus": float("nan")}, "bulk_modulus"),
        ({"internal_leakage": -1.0}, "internal_leakage"),
        ({"max_eccentricity": 4e-3}, "max_eccentricity"),
        ({"n_pistons": 2.5}, "n_pistons"),
        ({"piston_dead_volume": -1e-9}, "piston_dead_volume"),
    ],
)
def test_bad_parameters_rejected(changes, field):
    with pytest.raises(ParameterError, match=field):
        P.replace(**changes)


def test_unknown_parameter_and_oversized_input_rejected():
    with pytest.raises(ParameterError, match="valid names"):
        P.replace(stroke=0.1)
    t = np.arange(11) * 1e-4
    with pytest.raises(ParameterError, match="E_max"):
        simulate_ieha(P, t, 0.06e-2)


def test_rod_leaving_stroke_raises_simulation_error():
    small = P.replace(chamber_volume_b=2e-7)
    with pytest.raises(SimulationError, match="volume"):
        step_run(small, duration=0.05)


def test_external_leakage_slows_the_loaded_rod_by_its_flow():
    # (11): Q_leakA = K_ex P_A leaves chamber A, so the rod loses K_ex P_A / S_A of its speed;
    # viscous load damping (ζ ≈ 0.9) removes the load oscillation so the speed is steady
    t = np.arange(0.0, 0.08, 2e-5)
    window = t >= 0.04
    damped = P.replace(load_damping=8000.0)
    tight = simulate_ieha(damped, t, 0.04e-2, 300.0)
    leaky = simulate_ieha(damped.replace(external_leakage=2e-13), t, 0.04e-2, 300.0)
    expected = -2e-13 * leaky.p_a[window].mean() / P.area_a
    assert leaky.p_a[window].mean() > 20e5  # (300 N + b v)/S_A
    assert leaky.v[window].mean() - tight.v[window].mean() == pytest.approx(expected, rel=0.05)


def test_jacobian_matches_central_differences():
    # compiled Jacobian (FD carriage/cylinder columns, analytic piston columns) vs a plain
    # central-difference Jacobian of the right-hand side
    from actuatorlab.hydraulics.ieha import ieha_jacobian
    from actuatorlab.simulation.ieha import state_scale

    y = P.initial_state()
    y[:7] = [2.5e-4, 0.02, 2e5, 4e5, 3e3, 0.01, 0.03]
    y[I_PISTON:] = np.linspace(3.5e5, 1.05e6, P.n_pistons)
    u = np.array([3e-4, 50.0])
    k = P.kernel_array()
    t = 0.0137
    m = y.size
    f0, aux, dp = np.empty(m), np.empty(N_AUX), np.empty((P.n_pistons, 4))
    ieha_rhs(t, y, u, k, f0, aux, dp)
    jac = np.empty((m, m))
    ieha_jacobian(t, y.copy(), u, k, f0, state_scale(P), jac, np.empty(m), aux, dp)
    ref = np.empty((m, m))
    scale = state_scale(P)
    for j in range(m):
        h = 1e-6 * max(abs(y[j]), scale[j])
        up, down = y.copy(), y.copy()
        up[j] += h
        down[j] -= h
        fu, fd = np.empty(m), np.empty(m)
        ieha_rhs(t, up, u, k, fu, aux, dp)
        ieha_rhs(t, down, u, k, fd, aux, dp)
        ref[:, j] = (fu - fd) / (2 * h)
    row_scale = np.max(np.abs(ref), axis=1, keepdims=True) + 1e-300
    np.testing.assert_allclose(jac / row_scale, ref / row_scale, atol=2e-4)


def test_check_valves_keep_the_chambers_above_vacuum():
    """The back-drive load pulls on the blocked chambers: without check valves (the paper) the
    gauge pressure falls below −1 bar (absolute vacuum); with them it stays near the tank's 0."""
    from actuatorlab.simulation.ieha import backdrive_run

    paper = backdrive_run(duration=1.0, close_time=0.3, force_amplitude=600.0)
    valved = backdrive_run(P.replace(check_valve_radius=0.002), duration=1.0, close_time=0.3, force_amplitude=600.0)
    assert min(paper.p_a.min(), paper.p_b.min()) < -1e5
    assert min(valved.p_a.min(), valved.p_b.min()) > -0.2e5


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"internal_leakage": -1.0}, r"ieha\.internal_leakage = -1\.0 m\^3/\(s Pa\): must be a finite number >= 0"),
        ({"load_damping": float("inf")}, r"ieha\.load_damping = inf N s/m: must be a finite number >= 0"),
        (
            {"discharge_coefficient": 0.0},
            r"ieha\.discharge_coefficient = 0\.0 \(dimensionless\): must be a finite number > 0",
        ),
        ({"shaft_speed": -1.0}, r"ieha\.shaft_speed = -1\.0 rad/s: must be a finite number > 0"),
        ({"n_pistons": 0}, r"ieha\.n_pistons = 0 pistons: must be an integer >= 1"),
    ],
)
def test_bad_parameters_name_their_unit_and_range(changes, message):
    with pytest.raises(ParameterError, match=message):
        P.replace(**changes)

"""Several actuators on one pump (Kikuuwe et al. Sec. 6, (106)–(126)).

The brute-force reference below is written from the spec alone (no package kernel): Γ̂ from the
segment nesting (106b)/(106c) with (106d–g), Γ̂(P, 0) as its one-sided limits v → 0±, the pump
flow from (108) with the chamber forces of (113), Λ̂ by scipy's brentq on β v + f̄ − Γ̂(P, v) and
P by an outer brentq on the node balance (114)/(123), following (117)/(126).

Tolerances follow from the network's stopping rule |Ξ(P)| ≤ FLOW_RTOL·Q: each pump flow rises with
P, so a velocity is off by at most FLOW_RTOL·Q/A_j, and P by FLOW_RTOL·Q/|dΞ/dP| with
|dΞ/dP| ≥ U_b/(2√P_M) from the bleed alone.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from actuatorlab.errors import ParameterError
from actuatorlab.hydraulics.quasistatic import (
    Openings,
    ValveCircuit,
    gamma,
    gamma_interval,
    lam,
    normalised_openings,
    relaxed_step,
)
from actuatorlab.hydraulics.quasistatic.kernels import gamma_zero_at_scalar
from actuatorlab.hydraulics.quasistatic.network import (
    FLOW_RTOL,
    PumpNetwork,
    gamma_hat_scalar,
    gamma_network,
    gamma_network_interval,
    lam_network,
    network_openings,
    new_pump_state,
    pump_flow_scalar,
    pump_pressure,
    pump_relief_flow,
    relaxed_network_step,
    relaxed_network_step_kernel,
)

CIRCUIT = ValveCircuit.paper_example()
AH, AR = CIRCUIT.head_area, CIRCUIT.rod_area
FHM, FRM = CIRCUIT.head_relief_force, CIRCUIT.rod_relief_force
PM, Q = CIRCUIT.pump_relief_pressure, CIRCUIT.pump_flow
EPS_FLOW = FLOW_RTOL * Q  # m³/s, the network's node-balance tolerance
DV = 2.0 * EPS_FLOW / AR  # m/s: velocity tolerance, FLOW_RTOL·Q/A_j with the smaller area, doubled
V_GRID = np.concatenate((-np.geomspace(2.0, 1e-6, 60), np.geomspace(1e-6, 2.0, 60)))


def p_tolerance(u_b: float) -> float:
    """[Pa] FLOW_RTOL·Q/|dΞ/dP| with |dΞ/dP| ≥ U_b/(2√P_M), doubled, plus the reference's 1e-6 Pa."""
    ub = CIRCUIT.coefficients[4] * u_b
    return 2.0 * EPS_FLOW * 2.0 * math.sqrt(PM) / ub + 1e-6


# ----------------------------------------------------------------------------------------------
# independent reference, Python floats


def _over(v, a2):
    """S(v)/a2 with the closed-valve limit ±∞ (a2 = 0)."""
    return v * abs(v) / a2 if a2 > 0.0 else math.copysign(math.inf, v)


def gamma_hat_ref(uh, pressure, v):
    """Γ̂(P, v) for v ≠ 0 from the segment nesting (106b)/(106c), segments (64f–s), (106d–g)."""
    ph2, tr2, pr2, th2 = (uh[j] ** 2 for j in range(4))
    if v > 0.0:
        s0a, s0b = FHM - _over(v, tr2), FHM - FRM
        s2a = AH * pressure - _over(v, ph2) - _over(v, tr2)
        s2b = AH * pressure - _over(v, ph2) - FRM
        return max(min(max(s0a, s0b), max(s2a, s2b)), -_over(v, tr2), -FRM)
    s0a, s0b = -FRM - _over(v, th2), -FRM + FHM
    s2a = -AR * pressure - _over(v, pr2) - _over(v, th2)
    s2b = -AR * pressure - _over(v, pr2) + FHM
    return min(max(min(s0a, s0b), min(s2a, s2b)), -_over(v, th2), FHM)


def gamma_zero_ref(uh, pressure):
    """Γ̂(P, 0) = [Γ̂(P, 0+), Γ̂(P, 0−)], the one-sided limits of (106) (tests the A_r·P reading of (107m))."""
    return gamma_hat_ref(uh, pressure, 1e-300), gamma_hat_ref(uh, pressure, -1e-300)


def mode_ref(uh):
    return 1 if uh[0] > 0 or uh[1] > 0 else (-1 if uh[2] > 0 or uh[3] > 0 else 0)


def pump_flow_ref(uh, pressure, v, f):
    """Q_p of (108), chamber forces of (113); zero at v = 0 (spec target 13, P ≤ P_hM, P_rM here)."""
    mode = mode_ref(uh)
    if v == 0.0 or mode == 0:
        return 0.0
    if mode == 1:
        f_h = f + min(max(_over(v, uh[1] ** 2), 0.0), FRM)
        return AH * uh[0] * math.sqrt(max(AH * pressure - f_h, 0.0))
    f_r = min(max(-_over(v, uh[3] ** 2), 0.0), FHM) - f
    return AR * uh[2] * math.sqrt(max(AR * pressure - f_r, 0.0))


def lam_hat_ref(uh, pressure, beta, fbar):
    """Λ̂(P, β, f̄) (121): brentq on β v + f̄ − Γ̂(P, v) on the side of 0 that Γ̂(P, 0) selects."""
    low, high = gamma_zero_ref(uh, pressure)
    if low <= fbar <= high:
        return 0.0
    vmax = (FHM + FRM + abs(fbar)) / beta

    side = low if fbar < low else high  # Γ̂(P, 0±) on the side the root lies

    def g(v):
        return beta * v + fbar - (gamma_hat_ref(uh, pressure, v) if v != 0.0 else side)

    if fbar < low:
        return brentq(g, 0.0, vmax, xtol=1e-15, rtol=8.9e-16)
    return brentq(g, -vmax, 0.0, xtol=1e-15, rtol=8.9e-16)


def balance_ref(uhs, u_b, flows_at):
    """Ξ(P) = Q − U_b R(P) − Σ flows_at(P) (114b)/(123b)."""
    ub = CIRCUIT.coefficients[4] * u_b
    return lambda pressure: Q - ub * math.sqrt(pressure) - sum(flows_at(pressure))


def solve_pressure_ref(balance):
    """(117)/(126): P_M if Ξ(P_M) ≥ 0, else brentq on [0, P_M]."""
    if balance(PM) >= 0.0:
        return PM
    return brentq(balance, 0.0, PM, xtol=1e-7, rtol=8.9e-16)


def lam_network_ref(uhs, u_b, beta, fbar):
    """(P, v) of (119)–(126) by nested brentq."""

    def velocities(pressure):
        return [lam_hat_ref(uh, pressure, b, fb) for uh, b, fb in zip(uhs, beta, fbar)]

    def flows(pressure):
        return [
            pump_flow_ref(uh, pressure, v, fb + b * v) for uh, v, b, fb in zip(uhs, velocities(pressure), beta, fbar)
        ]

    pressure = solve_pressure_ref(balance_ref(uhs, u_b, flows))
    return pressure, np.array(velocities(pressure))


def static_balance_ref(uhs, u_b, v):
    """Ξ_P(P) of (114b) at given velocities."""

    def flows(pressure):
        return [
            pump_flow_ref(uh, pressure, vj, gamma_hat_ref(uh, pressure, vj) if vj else 0.0) for uh, vj in zip(uhs, v)
        ]

    return balance_ref(uhs, u_b, flows)


# ----------------------------------------------------------------------------------------------
# strategies: N actuators of the paper's circuit, each extending, retracting or holding, with
# independent valve openings (meter-in or meter-out only included), one shared bleed opening

opening = st.one_of(st.just(0.0), st.floats(0.02, 1.0))
actuator = st.tuples(st.sampled_from(["extend", "retract", "hold"]), opening, opening)


def make_openings(actuators, u_b):
    out = []
    for mode, first, second in actuators:
        if mode == "extend":
            out.append(Openings(u_ph=first, u_tr=second, u_b=u_b))
        elif mode == "retract":
            out.append(Openings(u_pr=first, u_th=second, u_b=u_b))
        else:
            out.append(Openings(u_b=u_b))
    return out


# ----------------------------------------------------------------------------------------------
# N = 1 reduces to the single-actuator functions (spec sec. 6, target 14)

ONE = PumpNetwork([CIRCUIT])


@pytest.mark.parametrize("u_c", (-1.0, -0.5, -0.1, 0.0, 0.1, 0.5, 1.0))
@pytest.mark.parametrize("u_b", (0.0, 0.2, 0.3, 1.0))
def test_one_actuator_network_is_the_single_actuator(u_c, u_b):
    """Tolerances: forces at a given v, A_h·δP (δP from p_tolerance; 1e-6 N when u_b = 0, where
    P = P_M or Γ does not depend on P); velocities DV; relaxed step p to h·DV, f to β·DV."""
    o = Openings.from_command(u_c, u_b)
    df = AH * p_tolerance(u_b) if u_b > 0 else 1e-6
    _, f = gamma_network(ONE, [o], V_GRID[:, None])
    np.testing.assert_allclose(f[:, 0], gamma(CIRCUIT, o, V_GRID), rtol=1e-12, atol=df)
    _, low, high = gamma_network_interval(ONE, [o], [0.0])
    np.testing.assert_allclose(np.concatenate((low, high)), gamma_interval(CIRCUIT, o), rtol=1e-12, atol=df)
    fbar = np.linspace(-2.2e6, 2.2e6, 89)[:, None]
    for beta in (1e3, 2.55e6, 1e8):
        _, v = lam_network(ONE, [o], beta, fbar)
        np.testing.assert_allclose(v[:, 0], lam(CIRCUIT, o, beta, fbar[:, 0]), rtol=1e-12, atol=DV)
    K, B, h = 5e7, 2.5e6, 1e-3
    l_now = np.linspace(-0.03, 0.03, 25)[:, None]
    _, p, f = relaxed_network_step(ONE, [o], K, B, h, 0.0, 0.001, l_now)
    p_ref, f_ref = relaxed_step(CIRCUIT, o, K, B, h, 0.0, 0.001, l_now[:, 0])
    np.testing.assert_allclose(p[:, 0], p_ref, rtol=0, atol=h * DV)
    np.testing.assert_allclose(f[:, 0], f_ref, rtol=1e-12, atol=(B + h * K) * DV)


def test_one_extending_actuator_pump_pressure_is_eq_57():
    """One actuator in 𝒰₊: (57), P = min(P_M, S((Q − A_h v)/U_b)), while the head is fed
    (A_h P ≥ S(v)/û_ph², (56a)); beyond, the head cavitates (F_h = 0, segment +3) and the node
    balance (50d) reads A_h û_ph R(A_h P) + U_b R(P) = Q."""
    o = Openings.from_command(0.5, 0.3)
    ub = CIRCUIT.coefficients[4] * 0.3
    uph = normalised_openings(CIRCUIT, o)[0]
    v = np.linspace(0.01, 0.34, 34)
    fed = np.minimum(PM, ((Q - AH * v) / ub) ** 2)
    cavitating = (Q / (AH**1.5 * uph + ub)) ** 2
    ref = np.where(AH * fed >= v**2 / uph**2, fed, cavitating)
    assert np.any(ref == PM) and np.any(ref == cavitating) and np.any((ref < PM) & (ref != cavitating))
    np.testing.assert_allclose(pump_pressure(ONE, [o], v[:, None]), ref, rtol=0, atol=p_tolerance(0.3))


# ----------------------------------------------------------------------------------------------
# the pump node


@settings(max_examples=150, deadline=None)
@given(
    actuators=st.lists(actuator, min_size=1, max_size=3),
    u_b=st.one_of(st.just(0.0), st.floats(0.05, 1.0)),
    data=st.data(),
)
def test_pump_pressure_balances_the_node(actuators, u_b, data):
    """0 ≤ P ≤ P_M; Ξ_P ≥ 0 and Ξ_P·(P_M − P) = 0 (114a); Ξ_P from the reference (108) is the
    returned relief flow at P_M and within the search tolerance of 0 below it."""
    n = len(actuators)
    network = PumpNetwork([CIRCUIT] * n)
    openings = make_openings(actuators, u_b)
    # |v| ≥ 1e-9 m/s: below ~1e-154 m/s S(v) underflows to 0 in the kernels and a closed valve's
    # S(v)/0 reads 0/0 = 0 (a kernels.py limitation, shared with the single-actuator Γ)
    speed = st.one_of(st.just(0.0), st.floats(1e-9, 1.0), st.floats(-1.0, -1e-9))
    v = np.array(data.draw(st.lists(speed, min_size=n, max_size=n)))
    pressure, low, high = gamma_network_interval(network, openings, v)
    relief = pump_relief_flow(network, openings, v)
    assert pressure == pump_pressure(network, openings, v)
    assert 0.0 <= pressure <= PM
    assert relief >= 0.0 and relief * (PM - pressure) == 0.0
    balance = static_balance_ref(network_openings(network, openings), u_b, v)
    if pressure < PM:
        assert abs(balance(pressure)) <= EPS_FLOW * (1 + 1e-6)
    else:
        assert balance(PM) == pytest.approx(relief, rel=1e-9, abs=1e-15)
    uhs = network_openings(network, openings)
    for j in range(n):
        if v[j] == 0.0:
            ref = gamma_zero_ref(uhs[j], pressure)
            assert (low[j], high[j]) == pytest.approx(ref, rel=1e-12, abs=1e-6)
        else:
            assert low[j] == high[j] == pytest.approx(gamma_hat_ref(uhs[j], pressure, v[j]), rel=1e-12, abs=1e-6)


@pytest.mark.parametrize("u_c", (-1.0, -0.5, 0.0, 0.5, 1.0))
@pytest.mark.parametrize("actuators", ("both", "meter-in", "meter-out"))
def test_pump_flow_is_zero_at_zero_velocity(u_c, actuators):
    """Spec target 13: Q̂_p(P, 0, Γ̂(P, 0)) = 0 for every f in the interval, P ∈ [0, P_M], and
    the flow tends to 0 as v → 0± along Γ̂ (continuity of (113) at v = 0)."""
    first = abs(u_c) if actuators != "meter-out" else 0.0
    second = abs(u_c) if actuators != "meter-in" else 0.0
    o = Openings(u_ph=first, u_tr=second, u_b=0.2) if u_c > 0 else Openings(u_pr=first, u_th=second, u_b=0.2)
    cp, uh = CIRCUIT.kernel_array(), normalised_openings(CIRCUIT, o)
    for pressure in np.linspace(0.0, PM, 13):
        low, high = gamma_zero_at_scalar(cp, uh, pressure)
        for f in np.linspace(low, high, 7):
            assert pump_flow_scalar(cp, uh, pressure, 0.0, f) == 0.0
        for v in (1e-9, -1e-9):
            assert pump_flow_scalar(cp, uh, pressure, v, gamma_hat_scalar(cp, uh, pressure, v)) < 1e-8 * Q


def test_held_rod_feeds_a_head_relief_set_below_the_pump_relief():
    """With P_hM < P_M a held actuator in 𝒰₊ takes pump flow through its head relief at
    F_h = F_hM (55): the node balance is Q = U_b R(P) + A_h û_ph R(A_h P − F_hM), and Γ̂(P, 0)
    collapses to F_hM."""
    weak = ValveCircuit(head_relief_pressure=20e6)
    o = Openings.from_command(0.5, 0.2)
    ub, uph = weak.coefficients[4] * 0.2, normalised_openings(weak, o)[0]
    fhm = weak.head_relief_force

    def balance(p):
        return Q - ub * math.sqrt(p) - AH * uph * math.sqrt(max(AH * p - fhm, 0.0))

    ref = brentq(balance, fhm / AH, PM, xtol=1e-6)
    pressure, low, high = gamma_network_interval(PumpNetwork([weak]), [o], [0.0])
    assert pressure == pytest.approx(ref, abs=p_tolerance(0.2)) and 20e6 < pressure < PM
    assert low[0] == high[0] == fhm


# ----------------------------------------------------------------------------------------------
# Λ_mul against brute force


@settings(max_examples=150, deadline=None)
@given(
    actuators=st.lists(actuator, min_size=2, max_size=3),
    u_b=st.one_of(st.just(0.0), st.floats(0.05, 1.0)),
    data=st.data(),
)
def test_lam_network_matches_brute_force(actuators, u_b, data):
    """diag(β) v + f̄ ∈ Γ_mul(v) (119): v within DV of the nested-brentq reference, P within
    p_tolerance (when U_b > 0: with U_b = 0 and P-independent flows P need not be unique), and
    f_j = f̄_j + β_j v_j ∈ Γ̂_j(P, v_j) of the reference at the returned P."""
    n = len(actuators)
    network = PumpNetwork([CIRCUIT] * n)
    openings = make_openings(actuators, u_b)
    beta = 10.0 ** np.array(data.draw(st.lists(st.floats(3.0, 8.0), min_size=n, max_size=n)))
    fbar = np.array(data.draw(st.lists(st.floats(-2.2e6, 2.2e6), min_size=n, max_size=n)))
    pressure, v = lam_network(network, openings, beta, fbar)
    uhs = network_openings(network, openings)
    p_ref, v_ref = lam_network_ref(uhs, u_b, beta, fbar)
    np.testing.assert_allclose(v, v_ref, rtol=1e-9, atol=DV)
    if u_b > 0.0:
        assert pressure == pytest.approx(p_ref, abs=p_tolerance(u_b))
    for j in range(n):
        f = fbar[j] + beta[j] * v[j]
        if v[j] == 0.0:
            low, high = gamma_zero_ref(uhs[j], pressure)
            assert low - 1e-6 <= f <= high + 1e-6
        else:
            assert f == pytest.approx(gamma_hat_ref(uhs[j], pressure, v[j]), rel=1e-9, abs=1e-6)


def test_relaxed_step_is_backward_euler_at_the_static_pump_pressure():
    """Algorithm H: f_k = K(p_k − ℓ_k) + B(v − ℓ̇) (71a), f_k ∈ Γ_mul(v) (71b), and the P of (126)
    is the P of (117) at the step's velocities (the same node balance)."""
    network = PumpNetwork([CIRCUIT] * 3)
    openings = [Openings.from_command(u_c, 0.2) for u_c in (0.6, -0.4, 0.8)]
    K, B, h = np.array([5e7, 4e7, 6e7]), 2.5e6, 1e-3
    p_prev, l_prev = np.array([0.0, 0.1, -0.05]), np.array([0.001, 0.1, -0.05])
    l_now = l_prev + np.array([[-2e-4, 3e-4, -1e-4], [-1e-3, -1e-3, 2e-4], [5e-4, 0.0, -5e-4]])
    pressure, p, f = relaxed_network_step(network, openings, K, B, h, p_prev, l_prev, l_now)
    v = (p - p_prev) / h
    np.testing.assert_allclose(f, K * (p - l_now) + B * (v - (l_now - l_prev) / h), rtol=1e-9, atol=1e-3)
    p_static, low, high = gamma_network_interval(network, openings, v)
    np.testing.assert_allclose(p_static, pressure, rtol=0, atol=p_tolerance(0.2))
    assert np.all((f >= low - 1.0) & (f <= high + 1.0))  # 1 N ≥ A_h·δP + β·DV
    assert np.all(pressure < PM) and np.all(v != 0.0)


def test_step_kernel_warm_start_does_not_change_the_answer():
    """A time loop passes pump_state from step to step; the result equals a cold start's within
    the tolerances, and the state holds the returned P."""
    n = 4
    network = PumpNetwork([CIRCUIT] * n)
    cps = network.kernel_array()
    uhs = network_openings(network, [Openings.from_command(u_c, 0.2) for u_c in (0.5, -0.5, 0.7, -0.3)])
    K, B, h = np.full(n, 5e7), np.full(n, 2.5e6), 1e-3
    rng = np.random.default_rng(3)
    p, l_prev = np.zeros(n), np.zeros(n)
    warm = new_pump_state(network)
    out = [np.empty(n) for _ in range(6)]
    for _ in range(200):
        l_now = l_prev + rng.normal(0.0, 2e-4, n)
        pressure, status = relaxed_network_step_kernel(cps, uhs, K, B, h, p, l_prev, l_now, *out[:3], warm)
        cold_pressure, cold_status = relaxed_network_step_kernel(
            cps, uhs, K, B, h, p, l_prev, l_now, *out[3:], new_pump_state(network)
        )
        assert status == cold_status == 0 and warm[0] == pressure
        assert pressure == pytest.approx(cold_pressure, abs=2 * p_tolerance(0.2))
        np.testing.assert_allclose(out[2], out[5], rtol=0, atol=DV)
        p, l_prev = out[0].copy(), l_now


# ----------------------------------------------------------------------------------------------
# Fig. 12 (spec E5): two identical actuators, u_c = ±0.5, u_b = 0.2


@pytest.mark.parametrize("u_c", (0.5, -0.5))
def test_fig12_a_faster_second_actuator_lowers_pressure_relief_and_force(u_c):
    """A larger |v_2| lowers P, the relief flow Ξ_P, and the force actuator 1 exerts along its
    motion, sgn(v_1)·f_1, at a given v_1; since Γ̂ decreases, |v_1| at a given force drops."""
    network = PumpNetwork([CIRCUIT, CIRCUIT])
    openings = [Openings.from_command(u_c, 0.2)] * 2
    sign = math.copysign(1.0, u_c)
    v1 = sign * np.linspace(0.01, 0.5, 50)
    v2 = sign * np.array([0.05, 0.1, 0.15, 0.2, 0.3])
    grid = np.stack(np.broadcast_arrays(v1[None, :], v2[:, None]), axis=-1)  # (v_2, v_1, 2)
    pressure, f = gamma_network(network, openings, grid)
    relief = pump_relief_flow(network, openings, grid)
    along = sign * f[..., 0]
    tol_p, tol_f = p_tolerance(0.2), AH * p_tolerance(0.2)
    assert np.all(np.diff(pressure, axis=0) <= tol_p) and np.any(np.diff(pressure, axis=0) < -1e5)
    assert np.all(np.diff(relief, axis=0) <= 1e-15) and np.any(np.diff(relief, axis=0) < -1e-4)
    assert np.all(np.diff(along, axis=0) <= tol_f) and np.any(np.diff(along, axis=0) < -1e4)
    assert relief[0, 0] > 0.0 and pressure[-1, -1] < PM  # the relief is open at small flows only


# ----------------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"pump_flow": 400.0 / 60000.0}, "pump_flow"),
        ({"pump_relief_pressure": 30e6}, "pump_relief_pressure"),
        ({"max_area": {"ph": 1e-4, "tr": 1e-4, "pr": 1e-4, "th": 1e-4, "b": 2e-4}}, r"coefficients\[4\]"),
    ],
)
def test_network_rejects_circuits_with_different_pumps(kwargs, field):
    other = ValveCircuit(**kwargs)
    with pytest.raises(ParameterError, match=rf"actuator 2 has {field}.*actuator 0 has"):
        PumpNetwork([CIRCUIT, CIRCUIT, other])
    with pytest.raises(ParameterError, match="at least one"):
        PumpNetwork([])


def test_network_accepts_different_cylinders_on_one_pump():
    big = ValveCircuit(head_area=0.05, rod_area=0.03, head_relief_pressure=38e6)
    network = PumpNetwork([CIRCUIT, big])
    assert network.size == 2 and network.kernel_array().shape == (2, CIRCUIT.kernel_array().size)
    pressure, v = lam_network(network, [Openings.from_command(0.5, 0.2)] * 2, 2.55e6, [-1e5, -1e5])
    assert 0.0 < pressure < PM and v[1] < v[0]  # the bigger head needs more flow per m/s


def test_network_rejects_bad_openings_and_shapes():
    network = PumpNetwork([CIRCUIT, CIRCUIT])
    o = Openings.from_command(0.5, 0.2)
    with pytest.raises(ParameterError, match=r"openings\[1\]\.u_b = 0\.3.*same u_b"):
        network_openings(network, [o, Openings.from_command(0.5, 0.3)])
    with pytest.raises(ParameterError, match="got 3 Openings for a network of 2"):
        pump_pressure(network, [o, o, o], [0.1, 0.1])
    with pytest.raises(ParameterError, match="scalar openings"):
        network_openings(network, [o, Openings.from_command([0.5, 0.6], 0.2)])
    with pytest.raises(ParameterError, match=r"velocities: shape \(3,\) must end in N = 2"):
        pump_pressure(network, [o, o], [0.1, 0.1, 0.1])
    with pytest.raises(ParameterError, match=r"shape \(\) must end in N = 2"):
        pump_pressure(network, [o, o], 0.1)
    with pytest.raises(ParameterError, match="finite"):
        pump_pressure(network, [o, o], [0.1, np.nan])
    with pytest.raises(ParameterError, match="gamma_network_interval"):
        gamma_network(network, [o, o], [0.1, 0.0])
    with pytest.raises(ParameterError, match="impedance must be > 0"):
        lam_network(network, [o, o], [2.55e6, 0.0], [0.0, 0.0])
    with pytest.raises(ParameterError, match=r"K = .*length 2"):
        relaxed_network_step(network, [o, o], [5e7, 5e7, 5e7], 2.5e6, 1e-3, 0.0, 0.0, [0.0, 0.0])
    with pytest.raises(ParameterError, match="B > 0"):
        relaxed_network_step(network, [o, o], 5e7, [2.5e6, 0.0], 1e-3, 0.0, 0.0, [0.0, 0.0])

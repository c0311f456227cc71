"""Regeneration valve rod → head (Kikuuwe et al. Sec. 5, (90)–(105); spec 001 sec. 2.13)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from actuatorlab.errors import ParameterError, SimulationError
from actuatorlab.hydraulics.quasistatic import (
    Openings,
    ValveCircuit,
    gamma,
    gamma_interval,
    lam,
    normalised_openings,
    relaxed_step,
)
from actuatorlab.hydraulics.quasistatic.regeneration import (
    _gamma_loop,
    _lam_loop,
    _step_loop,
    _velocity_loop,
    gamma_regeneration,
    lam_regeneration,
    regeneration_velocity,
    relaxed_regeneration_step,
)

CIRCUIT = ValveCircuit.paper_example()
AH, AR = CIRCUIT.head_area, CIRCUIT.rod_area
FHM, FRM = CIRCUIT.head_relief_force, CIRCUIT.rod_relief_force
PM, Q = CIRCUIT.pump_relief_pressure, CIRCUIT.pump_flow
PAPER = Openings.from_command(0.5, 0.2)  # Sec. 5.1, Fig. 8: u_c = 0.5, u_b = 0.2
U_A = np.array([0.0, 0.25, 0.5, 1.0])
V = np.concatenate((-np.geomspace(2.0, 1e-6, 60), np.geomspace(1e-6, 3.0, 400)))


def ua_hat(u_a):
    """û_a = c_a u_a / A_r^{3/2} (Sec. 5), c_a = C_a a_a √(2/ρ)."""
    return 0.6 * 1e-4 * math.sqrt(2.0 / 850.0) * u_a / AR**1.5


# ---- independent reference: (61b), (62b), (95), (98) in plain Python, solved with brentq ----


def _over(x, a2):
    """x / a2 with the limits of a closed orifice: x/0 = sgn(x)·∞, 0/0 = 0."""
    return x / a2 if a2 > 0 else (math.copysign(math.inf, x) if x != 0 else 0.0)


def _head_plus(uh, x):
    """Γ_h+(x) (61b): proj_[0, F_hM](min(A_h P_M, −A_h³ S(x − Q/A_h)/U_b²) − S(x)/û_ph²)."""
    d = x - Q / AH
    pump = min(AH * PM, -_over(AH**3 * d * abs(d), uh[4] ** 2))
    return min(max(pump - _over(x * abs(x), uh[0] ** 2), 0.0), FHM)


def _rod_plus(uh, x):
    """Γ_r+(x) (62b): proj_[0, F_rM](S(x)/û_tr²)."""
    return min(max(_over(x * abs(x), uh[1] ** 2), 0.0), FRM)


def _tight_root(f, lo, hi):
    return brentq(f, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)


def reference_va(uh, ua, v):
    """v̂_a (101): 0 under condition C, else brentq on Ξ_v(v, ·) (95) over [0, v]."""
    a_hat = AR / AH

    def xi_v(va):
        return va * abs(va) - ua**2 * (_rod_plus(uh, v - va) - a_hat * _head_plus(uh, v - a_hat * va))

    if ua == 0 or uh[1] == 0 or v <= 0 or xi_v(0.0) >= 0:
        return 0.0
    return _tight_root(xi_v, 0.0, v)


def reference_gamma(uh, ua, v):
    """Γ_reg(v) (98) for v > 0 from (94b) with the reference v̂_a."""
    va = reference_va(uh, ua, v)
    return _head_plus(uh, v - AR / AH * va) - _rod_plus(uh, v - va)


def reference_lam(openings, u_a, beta, fbar):
    """Λ_reg: the root of β v + f̄ − Γ_reg(v), bracketed on v as spec 001 sec. 2.13 suggests,
    not by the alternation (105). For f̄ ≥ Γ₊(0) the solution has v ≤ 0, where Γ_reg = Γ, so it
    is Λ (checked against brute force in test_quasistatic)."""
    uh = normalised_openings(CIRCUIT, openings)
    low = float(gamma_interval(CIRCUIT, openings)[0])
    if fbar >= low:
        return float(lam(CIRCUIT, openings, beta, fbar))

    def g(v):
        return beta * v + fbar - (low if v == 0 else reference_gamma(uh, ua_hat(u_a), v))

    return _tight_root(g, 0.0, (FHM - fbar) / beta)


# ---- tests ----


@pytest.mark.parametrize("u_c,u_b", [(0.5, 0.2), (1.0, 0.0), (0.05, 1.0), (0.0, 0.3), (-0.5, 0.2), (-1.0, 0.0)])
def test_closed_valve_is_the_plain_model(u_c, u_b):
    """Spec 001 sec. 6 item 14: with u_a = 0, Γ_reg = Γ and Λ_reg = Λ, bit for bit, and the step is (72)."""
    o = Openings.from_command(u_c, u_b)
    np.testing.assert_array_equal(gamma_regeneration(CIRCUIT, o, 0.0, V), gamma(CIRCUIT, o, V))
    assert np.all(regeneration_velocity(CIRCUIT, o, 0.0, V) == 0.0)
    fbar = np.linspace(-2.2e6, 1.2e6, 69)
    for beta in (1e3, 1e5, 2.55e6):
        v, iterations = lam_regeneration(CIRCUIT, o, 0.0, beta, fbar, return_iterations=True)
        np.testing.assert_array_equal(v, lam(CIRCUIT, o, beta, fbar))
        assert np.all(iterations == 0)
    l_now = np.linspace(-0.02, 0.02, 9)
    step = relaxed_regeneration_step(CIRCUIT, o, 0.0, 5e7, 2.5e6, 1e-3, 0.0, 0.001, l_now)
    plain = relaxed_step(CIRCUIT, o, 5e7, 2.5e6, 1e-3, 0.0, 0.001, l_now)
    np.testing.assert_array_equal(step[0], plain[0])
    np.testing.assert_array_equal(step[1], plain[1])


@pytest.mark.parametrize(
    "openings",
    [Openings.from_command(-0.5, 0.2), Openings.from_command(0.0, 0.2), Openings(u_ph=0.5, u_b=0.2)],
    ids=["retract", "hold", "no-meter-out"],
)
def test_valve_has_no_effect_outside_extend_mode_or_with_u_tr_closed(openings):
    """Condition C of (98): û ∉ 𝒰₊; and u_tr = 0, which Sec. 5 assumes away (module docstring)."""
    np.testing.assert_array_equal(gamma_regeneration(CIRCUIT, openings, 1.0, V), gamma(CIRCUIT, openings, V))
    fbar = np.linspace(-2.2e6, 1.2e6, 69)
    np.testing.assert_array_equal(
        lam_regeneration(CIRCUIT, openings, 1.0, 1e5, fbar), lam(CIRCUIT, openings, 1e5, fbar)
    )


opening = st.floats(0.01, 1.0)


@settings(max_examples=60, deadline=None)
@given(
    u_c=opening,
    u_b=opening,
    u_a=st.one_of(st.just(0.0), opening),
    beta=st.floats(3.0, 8.0).map(lambda e: 10.0**e),
    fbar=st.floats(-2.2e6, 1.2e6),
)
def test_lam_regeneration_matches_brute_force(u_c, u_b, u_a, beta, fbar):
    """Λ_reg of (105) solves β v + f̄ ∈ Γ_reg(v) (102), across the relief branches
    (f̄ ≤ −F_rM: rod relief, f̄ ≥ Γ₊(0): held or head relief), to 1e-9 relative."""
    o = Openings.from_command(u_c, u_b)
    v = float(lam_regeneration(CIRCUIT, o, u_a, beta, fbar))
    assert v == pytest.approx(reference_lam(o, u_a, beta, fbar), rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    u_ph=st.one_of(st.just(0.0), opening),
    u_tr=opening,
    u_b=opening,
    u_a=opening,
    v=st.floats(1e-6, 3.0),
)
def test_gamma_and_flow_match_reference(u_ph, u_tr, u_b, u_a, v):
    """Γ_reg (98) and v̂_a (101), including meter-out only (u_ph = 0, the head cavitates)."""
    o = Openings(u_ph=u_ph, u_tr=u_tr, u_b=u_b)
    uh = normalised_openings(CIRCUIT, o)
    assert float(regeneration_velocity(CIRCUIT, o, u_a, v)) == pytest.approx(
        reference_va(uh, ua_hat(u_a), v), rel=1e-12, abs=1e-15
    )
    assert float(gamma_regeneration(CIRCUIT, o, u_a, v)) == pytest.approx(
        reference_gamma(uh, ua_hat(u_a), v), rel=1e-9, abs=1e-6
    )


@pytest.mark.parametrize("u_c", (0.05, 0.2, 0.5, 1.0))
@pytest.mark.parametrize("u_b", (0.02, 0.2, 1.0))
def test_gamma_regeneration_is_monotone_and_flow_bounded(u_c, u_b):
    """Spec 001 sec. 2.13 Facts: 0 ≤ v_a ≤ max(v, 0), v_a = 0 for v < 0; Γ_reg non-increasing
    (observed in the spec, needed for Λ_reg to be unique), Γ_reg ≥ Γ for v > 0 and Γ_reg(0+) = Γ₊(0)."""
    o = Openings.from_command(u_c, u_b)
    u_a = U_A[1:, None]
    g = gamma_regeneration(CIRCUIT, o, u_a, V)
    va = regeneration_velocity(CIRCUIT, o, u_a, V)
    assert np.all(np.diff(g, axis=-1) <= 1e-6)
    assert np.all((va >= 0.0) & (va <= np.maximum(V, 0.0)))
    assert np.all(va[:, V < 0] == 0.0) and np.all(regeneration_velocity(CIRCUIT, o, u_a, 0.0) == 0.0)
    assert np.all(g[:, V > 0] >= gamma(CIRCUIT, o, V[V > 0]) - 1e-6)
    low = gamma_interval(CIRCUIT, o)[0]
    np.testing.assert_allclose(gamma_regeneration(CIRCUIT, o, u_a, 1e-12), low, atol=1e-3)


def test_fig8_extension_speed_rises_with_u_a_most_under_stretching_loads():
    """E3 (Sec. 5.1, Fig. 8): at a given load, v rises with u_a, far more for f < 0 than f > 0."""
    beta = 1e-3  # β → 0 inverts Γ_reg: f ∈ Γ_reg(v)
    loads = np.array([-4e5, -2e5, -1e5, 0.0, 1e5, 2e5, 4e5])
    v = lam_regeneration(CIRCUIT, PAPER, U_A[:, None], beta, loads)
    assert np.all(np.diff(v, axis=0) >= 0.0)
    stretching, pushing = loads < 0, loads > 0
    assert np.all(np.diff(v[:, stretching], axis=0) > 0.0)
    gain = v[-1] / v[0]
    assert gain[stretching].min() > 2.0 * gain[pushing].max()


def test_cavitating_head_splits_rod_flow_between_tr_and_a():
    """Closed form for a stretching load, head cavitating (Γ_h+ = 0): rod oil leaves through tr
    and a in parallel at the same pressure drop F_r = −f̄ − βv ((93b), (93f) with F_h = 0), so
    v − v_a = û_tr R(F_r), v_a = û_a R(F_r): v = Φ_A(β, f̄, (û_tr + û_a)²), i.e. the root of
    S(v)/(û_tr + û_a)² + βv + f̄ = 0 (Proposition 1), and v_a/v = û_a/(û_tr + û_a)."""
    uh_tr = normalised_openings(CIRCUIT, PAPER)[1]
    beta, fbar = 1e3, -2e5
    for u_a in U_A:
        c2 = (uh_tr + ua_hat(u_a)) ** 2
        closed = 2.0 * c2 * -fbar / (beta * c2 + math.sqrt((beta * c2) ** 2 - 4.0 * c2 * fbar))
        v = float(lam_regeneration(CIRCUIT, PAPER, u_a, beta, fbar))
        assert v == pytest.approx(closed, rel=1e-9)
        va = float(regeneration_velocity(CIRCUIT, PAPER, u_a, v))
        assert va == pytest.approx(v * ua_hat(u_a) / (uh_tr + ua_hat(u_a)), rel=1e-9, abs=1e-15)


def test_regeneration_flow_rises_with_opening_and_speed():
    """E3 (Fig. 8, lower panel): Q_a = A_r v_a increases with u_a and with v."""
    v = np.linspace(0.01, 2.0, 200)
    q_a = AR * regeneration_velocity(CIRCUIT, PAPER, U_A[:, None], v)
    assert np.all(np.diff(q_a, axis=0) >= 0.0) and np.all(np.diff(q_a, axis=1) >= -1e-15)
    assert np.all(np.diff(q_a[:, -1]) > 0.0)  # strictly at a high speed
    assert np.all(np.diff(q_a[-1, v > 0.3]) > 0.0)


def test_relaxed_regeneration_step_is_backward_euler_of_the_inclusion():
    """Algorithm (72) with Λ_reg: f_k ∈ Γ_reg(v), v = (p_k − p_{k−1})/h, and (71a)."""
    K, B, h = 5e7, 2.5e6, 1e-3
    o = Openings.from_command(0.5, 0.3)
    l_now = 0.001 + np.linspace(-0.002, 0.004, 13)
    p, f = relaxed_regeneration_step(CIRCUIT, o, 0.5, K, B, h, 0.0, 0.001, l_now)
    v = p / h
    np.testing.assert_allclose(f, K * (p - l_now) + B * (v - (l_now - 0.001) / h), rtol=1e-12, atol=1e-3)
    moving = v != 0.0
    np.testing.assert_allclose(f[moving], gamma_regeneration(CIRCUIT, o, 0.5, v[moving]), rtol=1e-8, atol=1e-3)
    assert np.any(regeneration_velocity(CIRCUIT, o, 0.5, v) > 0.0)  # the valve took part


def test_iteration_counts_of_the_alternation():
    """Spec 001 sec. 2.13 [DERIVED]: (105) converges slowly, 361 alternations at β = 1e5 N s/m,
    f̄ = 0 and 35 at f̄ = −4e5 N (ε_f = 1e-6 N); our ε_f = 1e-10·β·v is of the same size here."""
    _, n = lam_regeneration(CIRCUIT, PAPER, 0.5, 1e5, np.array([0.0, -4e5]), return_iterations=True)
    assert 150 < n[0] < 800 and 10 < n[1] < 100


def test_rejects_what_the_model_does_not_cover():
    with pytest.raises(ParameterError, match=r"rod_area = 0.012 m\^2 >= head_area = 0.01 m\^2.*rod_area < head_area"):
        ValveCircuit(head_area=0.01, rod_area=0.012)  # (90) A_h >= A_r holds for every circuit
    with pytest.raises(ParameterError, match=r"rod_area = 0.012 m\^2 >= head_area"):
        ValveCircuit(head_area=0.012, rod_area=0.012)
    with pytest.raises(ParameterError, match=r"u_a = 1.5.*\[0, 1\]"):
        gamma_regeneration(CIRCUIT, PAPER, 1.5, 0.1)
    with pytest.raises(ParameterError, match=r"u_a = .*-0.1.*\[0, 1\]"):
        regeneration_velocity(CIRCUIT, PAPER, [0.2, -0.1], 0.1)
    closed_bleed = Openings.from_command(0.5, 0.0)
    with pytest.raises(ParameterError, match=r"bleed closed.*\(61b\) jumps.*u_b > 0"):
        lam_regeneration(CIRCUIT, closed_bleed, 0.5, 1e5, 0.0)
    with pytest.raises(ParameterError, match="bleed closed"):
        gamma_regeneration(CIRCUIT, closed_bleed, 0.5, 0.5)
    with pytest.raises(ParameterError, match="bleed closed"):
        relaxed_regeneration_step(CIRCUIT, closed_bleed, 0.5, 5e7, 2.5e6, 1e-3, 0.0, 0.0, 0.001)
    # no flow through the valve (a pushing load, Ξ_v(Λ, 0) ≥ 0): the closed bleed does not matter
    assert lam_regeneration(CIRCUIT, closed_bleed, 0.5, 1e5, 4e5) == lam(CIRCUIT, closed_bleed, 1e5, 4e5)
    with pytest.raises(ParameterError, match="gamma_interval"):
        gamma_regeneration(CIRCUIT, PAPER, 0.5, [0.1, 0.0])
    with pytest.raises(ParameterError, match="impedance"):
        lam_regeneration(CIRCUIT, PAPER, 0.5, 0.0, 0.0)
    with pytest.raises(ParameterError, match="max_iterations"):
        lam_regeneration(CIRCUIT, PAPER, 0.5, 1e5, 0.0, max_iterations=0)


def test_iteration_cap_raises_with_the_case_and_residuals():
    with pytest.raises(
        SimulationError, match=r"1 alternations.*impedance = 100000.0.*fbar = 0.0.*u_a = 0.5.*Xi_f.*Xi_v"
    ):
        lam_regeneration(CIRCUIT, PAPER, 0.5, 1e5, 0.0, max_iterations=1)
    # a nearly closed bleed makes (105) crawl (~3e4 alternations here, module docstring); the
    # step (β = B = 2.08e6 N s/m, f̄ = −B(ℓ_k − ℓ_{k−1})/h = −1.277e6 N) stops at its cap
    crawl = Openings(u_ph=0.962, u_tr=0.0129, u_b=1e-4)
    with pytest.raises(SimulationError, match=r"10000 alternations.*l_now = 0.000614.*u_a = 0.226"):
        relaxed_regeneration_step(CIRCUIT, crawl, 0.226, 0.0, 2.08e6, 1e-3, 0.0, 0.0, 0.000614)


def test_compiled_loops_can_be_cached():
    """The kernels pass functions to the root search; they must still hold no dynamic globals,
    or numba recompiles them (seconds) in every process that steps an actuator."""
    gamma_regeneration(CIRCUIT, PAPER, 0.5, 0.3)
    regeneration_velocity(CIRCUIT, PAPER, 0.5, 0.3)
    relaxed_regeneration_step(CIRCUIT, PAPER, 0.5, 5e7, 2.5e6, 1e-3, 0.0, 0.0, 0.001)
    lam_regeneration(CIRCUIT, PAPER, 0.5, 1e5, 0.0)
    for loop in (_gamma_loop, _velocity_loop, _lam_loop, _step_loop):
        assert loop.overloads and all(not c.library.has_dynamic_globals for c in loop.overloads.values())

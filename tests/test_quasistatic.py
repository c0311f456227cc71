"""The quasistatic map Γ and its relaxation Λ (Kikuuwe et al. Secs. 3–4)."""

import itertools

import numba as nb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actuatorlab.errors import ParameterError
from actuatorlab.hydraulics.quasistatic import (
    Openings,
    Relaxation,
    ValveCircuit,
    gamma,
    gamma_interval,
    gamma_segments,
    lam,
    relaxed_rate,
    relaxed_step,
)
from actuatorlab.hydraulics.quasistatic.kernels import lam_scalar, openings_at
from actuatorlab.hydraulics.quasistatic.circuit import normalised_openings

CIRCUIT = ValveCircuit.paper_example()
FHM, FRM = CIRCUIT.head_relief_force, CIRCUIT.rod_relief_force
U_C = (-1.0, -0.7, -0.5, -0.2, -0.01, 0.0, 0.01, 0.2, 0.5, 0.7, 1.0)
U_B = (0.0, 0.2, 0.3, 0.6, 1.0)
V = np.concatenate((-np.geomspace(2.0, 1e-9, 300), np.geomspace(1e-9, 2.0, 300)))


def test_paper_example_constants():
    """Spec 001 sec. 3 [DERIVED] constants from (66)."""
    assert CIRCUIT.coefficients[0] == pytest.approx(2.910428e-6, rel=1e-6)
    assert FHM == pytest.approx(1.008e6) and FRM == pytest.approx(4.8e5)
    uh = normalised_openings(CIRCUIT, Openings.from_command(0.5, 0.2))
    assert uh[0] == pytest.approx(3.913902e-4, rel=1e-6)  # û_ph
    assert uh[1] == pytest.approx(1.107019e-3, rel=1e-6)  # û_tr
    assert uh[4] == pytest.approx(5.820855e-7, rel=1e-6)  # U_b(0.2)


@pytest.mark.parametrize("u_c,u_b", list(itertools.product(U_C, U_B)))
def test_gamma_non_increasing_and_interval_is_its_limit(u_c, u_b):
    o = Openings.from_command(u_c, u_b)
    g = gamma(CIRCUIT, o, V)
    assert np.all(np.diff(g) <= 1e-6)
    low, high = gamma_interval(CIRCUIT, o)
    assert low <= high
    # Γ(0) = [Γ₊(0), Γ₋(0)] are the one-sided limits of Γ (65)
    assert gamma(CIRCUIT, o, 1e-12) == pytest.approx(low, abs=1e-3)
    assert gamma(CIRCUIT, o, -1e-12) == pytest.approx(high, abs=1e-3)


def test_hold_mode_is_the_relief_interval():
    """Spec 001 sec. 6 item 2: in 𝒰₀, Γ = F_hM for v < 0, −F_rM for v > 0, [−F_rM, F_hM] at 0 (49)."""
    for u_b in (0.0, 0.3):
        o = Openings.from_command(0.0, u_b)
        np.testing.assert_array_equal(gamma(CIRCUIT, o, V), np.where(V > 0, -FRM, FHM))
        assert gamma_interval(CIRCUIT, o) == (-FRM, FHM)


def test_off_mode_branches_are_relief_forces():
    """Spec 001 sec. 6 item 3 (Table 1 first and last rows)."""
    assert np.all(gamma(CIRCUIT, Openings.from_command(-0.5, 0.2), V[V > 0]) == -FRM)
    assert np.all(gamma(CIRCUIT, Openings.from_command(0.5, 0.2), V[V < 0]) == FHM)


@pytest.mark.parametrize("u_c,u_b", list(itertools.product((-1.0, -0.5, -0.1, 0.1, 0.5, 1.0), (0.05, 0.2, 1.0))))
def test_chamber_projections_equal_segment_nesting(u_c, u_b):
    """(61)–(62) and the max/min nesting of the segments (64c)/(64e) are the same map."""
    o = Openings.from_command(u_c, u_b)
    g = gamma_segments(CIRCUIT, o, V)
    mx, mn = np.maximum, np.minimum
    plus = mx(mx(mn(mn(mx(g["+0a"], g["+0b"]), mx(g["+1a"], g["+1b"])), mx(g["+2a"], g["+2b"])), g["+3"]), -FRM)
    minus = mn(mn(mx(mx(mn(g["-0a"], g["-0b"]), mn(g["-1a"], g["-1b"])), mn(g["-2a"], g["-2b"])), g["-3"]), FHM)
    nested = np.where(V > 0, plus, minus)
    np.testing.assert_allclose(gamma(CIRCUIT, o, V), nested, rtol=1e-12, atol=1e-6)


def test_gamma_rejects_zero_velocity_with_remedy():
    with pytest.raises(ParameterError, match="gamma_interval"):
        gamma(CIRCUIT, Openings.from_command(0.5, 0.2), [0.1, 0.0])


def _lam_brute_force(openings, beta, fbar):
    """Bisection on β v + f̄ − Γ(v), with Γ from the chamber projections (61)–(62) and (65),
    elementwise over the forces ``fbar`` (every bisection takes the same 200 halvings)."""
    fbar = np.asarray(fbar, dtype=float)
    low, high = gamma_interval(CIRCUIT, openings)
    reach = (FHM + FRM + np.abs(fbar)) / beta
    lo, hi = np.where(fbar < low, 0.0, -reach), np.where(fbar < low, reach, 0.0)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        below = (mid == 0.0) | (beta * mid + fbar - gamma(CIRCUIT, openings, mid) < 0.0)
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return np.where((low <= fbar) & (fbar <= high), 0.0, 0.5 * (lo + hi))[()]


@pytest.mark.parametrize("u_c", (-1.0, -0.6, -0.3, 0.0, 0.3, 0.6, 1.0))
@pytest.mark.parametrize("u_b", (0.0, 0.2, 0.3, 1.0))
def test_lam_matches_brute_force(u_c, u_b):
    """Λ of (73)–(74) solves β v + f̄ ∈ Γ(v), including 𝒰₀ and the relief branches."""
    o = Openings.from_command(u_c, u_b)
    fbars = np.concatenate((np.linspace(-2.2e6, 2.2e6, 45), [-FRM - 1.0, FHM + 1.0, 0.0]))
    for beta in (1e3, 1e5, 2.55e6, 1e8):
        v = lam(CIRCUIT, o, beta, fbars)
        ref = _lam_brute_force(o, beta, fbars)
        np.testing.assert_allclose(v, ref, rtol=1e-9, atol=1e-12)


def test_lam_is_continuous_in_fbar():
    o = Openings.from_command(0.5, 0.2)
    beta = 2.55e6
    fbar = np.linspace(-2e6, 2e6, 400001)
    v = lam(CIRCUIT, o, beta, fbar)
    # Λ is Lipschitz with constant 1/β: Γ is non-increasing
    assert np.max(np.abs(np.diff(v))) <= (fbar[1] - fbar[0]) / beta * (1 + 1e-9)


def test_lam_vectorises_over_openings():
    o = Openings.from_command(np.array([-0.5, 0.0, 0.5]), 0.2)
    v = lam(CIRCUIT, o, 2.55e6, -2e5)
    for i, u_c in enumerate((-0.5, 0.0, 0.5)):
        assert v[i] == lam(CIRCUIT, Openings.from_command(u_c, 0.2), 2.55e6, -2e5)


def test_lam_compiled_matches_interpreted():
    cp = CIRCUIT.kernel_array()
    for u_c, fbar in ((0.5, -3e5), (-0.5, 2e5), (0.0, -6e5), (0.7, 9e5)):
        uh = normalised_openings(CIRCUIT, Openings.from_command(u_c, 0.2))
        assert lam_scalar(cp, uh, 2.55e6, fbar) == pytest.approx(lam_scalar.py_func(cp, uh, 2.55e6, fbar), rel=1e-14)


@nb.njit(cache=True)
def _lam_row_and_tuple(cp, uh, beta, fbar):
    return lam_scalar(cp, uh[0], beta, fbar), lam_scalar(cp, openings_at(uh, 0), beta, fbar)


def test_openings_tuple_gives_the_same_lam_as_the_row():
    """Time loops pass û as a tuple (``openings_at``); every branch must read it as the row."""
    cp = CIRCUIT.kernel_array()
    for u_c, u_b, fbar in ((0.5, 0.2, -3e5), (-0.5, 0.2, 2e5), (0.0, 0.3, -6e5), (0.0, 0.3, 1e4), (-0.3, 0.0, 9e5)):
        uh = normalised_openings(CIRCUIT, Openings.from_command(np.array([u_c]), u_b))
        by_row, by_tuple = _lam_row_and_tuple(cp, uh, 2.55e6, fbar)
        assert by_tuple == by_row


def test_fig3_trends_velocity_rises_with_command_and_falls_with_bleed():
    """Fig. 3(c): at fixed f, v increases with u_c; Fig. 3(d): v decreases with u_b."""
    beta = 1e-3  # β → 0 inverts Γ: f ∈ Γ(v)
    forces = np.array([-3e5, -1e5, 0.0, 2e5, 5e5])
    u_c = np.linspace(-1, 1, 41)[:, None]
    v = lam(CIRCUIT, Openings.from_command(u_c, 0.2), beta, forces)
    assert np.all(np.diff(v, axis=0) >= -1e-12)
    u_b = np.linspace(0, 1, 21)[:, None]
    v = lam(CIRCUIT, Openings.from_command(0.7, u_b), beta, forces)
    assert np.all(np.diff(v, axis=0) <= 1e-12)
    assert v[-1, 2] < v[0, 2]  # the bleed loses flow: strictly slower at f = 0


def test_relaxed_step_is_backward_euler_of_the_inclusion():
    """Algorithm (72) returns f_k ∈ Γ(v) with v = (p_k − p_{k−1})/h, eq. (71)."""
    K, B, h = 5e7, 2.5e6, 1e-3
    o = Openings.from_command(np.array([-0.5, 0.0, 0.5])[:, None], 0.3)
    l_now = np.linspace(-0.02, 0.02, 9)
    p, f = relaxed_step(CIRCUIT, o, K, B, h, 0.0, 0.001, l_now)
    v = p / h
    assert np.allclose(f, K * (p - l_now) + B * (v - (l_now - 0.001) / h), rtol=1e-12, atol=1e-3)
    moving = v != 0
    np.testing.assert_allclose(
        f[moving],
        gamma(
            CIRCUIT,
            Openings.from_command(np.broadcast_to(np.array([-0.5, 0.0, 0.5])[:, None], v.shape)[moving], 0.3),
            v[moving],
        ),
        rtol=1e-9,
    )
    low, high = gamma_interval(CIRCUIT, o)
    low, high = np.broadcast_to(low, v.shape), np.broadcast_to(high, v.shape)
    assert np.all((f[~moving] >= low[~moving] - 1e-6) & (f[~moving] <= high[~moving] + 1e-6))


def test_relaxed_rate_solves_the_dai():
    """ODE (70): ṗ = Λ(B, K(p − ℓ) − Bℓ̇) gives f = K(p − ℓ) + B(ṗ − ℓ̇) ∈ Γ(ṗ)."""
    o = Openings.from_command(0.5, 0.3)
    rate, f = relaxed_rate(CIRCUIT, o, 5e7, 2.5e6, p=0.0, l=-0.004, l_rate=0.05)
    assert rate > 0 and f == pytest.approx(gamma(CIRCUIT, o, rate), rel=1e-12)
    assert f == pytest.approx(5e7 * 0.004 + 2.5e6 * (rate - 0.05), rel=1e-12)


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"head_area": -0.01}, "head_area"),
        ({"max_area": {"ph": 1e-4}}, "max_area"),
        ({"oil_density": 0}, "oil_density"),
    ],
)
def test_circuit_rejects_bad_parameters(kwargs, field):
    with pytest.raises(ParameterError, match=field):
        ValveCircuit(**kwargs)


def test_openings_reject_out_of_range_and_mixed_modes():
    with pytest.raises(ParameterError, match=r"u_ph = 1.5.*\[0, 1\]"):
        Openings(u_ph=1.5)
    with pytest.raises(ParameterError, match="one mode at a time"):
        Openings(u_ph=0.5, u_th=0.5)
    with pytest.raises(ParameterError, match="relaxation.damping"):
        Relaxation(5e7, 0.0)


opening = st.one_of(st.just(0.0), st.floats(0.01, 1.0))


@settings(max_examples=300, deadline=None)
@given(
    mode=st.sampled_from(["extend", "retract"]),
    first=opening,
    second=opening,
    u_b=opening,
    beta=st.floats(3.0, 8.0).map(lambda e: 10.0**e),
    fbar=st.floats(-2.2e6, 2.2e6),
)
def test_lam_matches_brute_force_for_independent_openings(mode, first, second, u_b, beta, fbar):
    """Openings the command (67) never produces, e.g. meter-out only (u_tr > 0, u_ph = 0), are
    handled by the limits of the closed orifices (spec 001, ambiguity 10)."""
    o = Openings(u_ph=first, u_tr=second, u_b=u_b) if mode == "extend" else Openings(u_pr=first, u_th=second, u_b=u_b)
    v = float(lam(CIRCUIT, o, beta, fbar))
    assert v == pytest.approx(_lam_brute_force(o, beta, fbar), rel=1e-9, abs=1e-12)


def test_closed_valve_limit_survives_underflow_of_s():
    """S(v) underflows to 0 for |v| < 1e-154; a closed valve must still give its limit ±∞
    (Γ = −F_rM for v > 0 in 𝒰₀, Table 1), not 0/0 = 0."""
    circuit = ValveCircuit.paper_example()
    hold = Openings.from_command(0.0, 0.2)
    assert gamma(circuit, hold, 1e-300) == pytest.approx(-circuit.rod_relief_force)
    assert gamma(circuit, hold, -1e-300) == pytest.approx(circuit.head_relief_force)

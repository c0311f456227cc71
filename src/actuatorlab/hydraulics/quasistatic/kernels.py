"""Compiled scalar kernels of the quasistatic actuator (Kikuuwe et al. (61)–(65), (73)–(74)).

Every kernel takes ``cp``, the circuit vector of ``ValveCircuit.kernel_array()`` (layout
``I_*``), and ``uh``, the normalised openings û = [û_ph, û_tr, û_pr, û_th, U_b] of
``normalised_openings`` (layout ``J_*``). Sign conventions: v > 0 extends the rod, f > 0 pushes
the rod out. Divisions by a closed valve's û² or by U_b² follow the limits (S(v)/0 = ±∞,
0/0 = 0) through ``ldiv_scalar``; Λ needs none, since û² enters Φ_A/Φ_B as a multiplier.
``lam_loop`` and ``relaxed_step_loop`` run Λ and the relaxed step over rows of openings, for
the public ``relaxation.lam`` and ``relaxation.relaxed_step``.

Twin: the exported FMU's C ``fmu/c/quasistatic.c`` (``tests/test_fmu_twins.py``: equal to 1e-12); change both together.
"""

from __future__ import annotations

import numba as nb

from ...numerics.nonsmooth import (
    ldiv_scalar,
    phi_a_scalar,
    phi_b_scalar,
    proj_scalar,
    psi_scalar,
    s_ldiv_scalar,
    s_scalar,
)
from .circuit import I_AH, I_AR, I_FHM, I_FRM, I_PM, I_Q, J_B, J_PH, J_PR, J_TH, J_TR, N_CIRCUIT

MODE_HOLD = 0
MODE_EXTEND = 1
MODE_RETRACT = -1
assert N_CIRCUIT == 12, "circuit_at lists the 12 entries of a circuit vector"


@nb.njit(cache=True, inline="always", error_model="numpy")
def openings_at(uh, k: int) -> tuple[float, float, float, float, float]:
    """Row k of normalised openings (n, 5) as a tuple, which every kernel accepts in place of the
    row: kernels index û by the constants J_*. In a time loop the tuple costs nothing, where a
    row view costs atomic reference counting at every step."""
    return uh[k, J_PH], uh[k, J_TR], uh[k, J_PR], uh[k, J_TH], uh[k, J_B]


@nb.njit(cache=True, inline="always", error_model="numpy")
def circuit_at(cps, k: int) -> tuple[float, ...]:
    """Row k of circuit vectors (n, N_CIRCUIT) as a tuple, accepted in place of the row as
    ``openings_at``'s tuple is: a root search that evaluates every actuator's Λ̂ and pump flow
    several times per step would otherwise pay the row views' atomic reference counts each time
    (four fifths of a shared-pump step before this was used)."""
    return (
        cps[k, 0],
        cps[k, 1],
        cps[k, 2],
        cps[k, 3],
        cps[k, 4],
        cps[k, 5],
        cps[k, 6],
        cps[k, 7],
        cps[k, 8],
        cps[k, 9],
        cps[k, 10],
        cps[k, 11],
    )


@nb.njit(cache=True, inline="always", error_model="numpy")
def mode_scalar(uh) -> int:
    """Input mode (38): 1 in 𝒰₊ (ph or tr open), −1 in 𝒰₋ (pr or th open), 0 in 𝒰₀.

    u = 0 (bleed closed too) belongs to no set of (38); it is treated as 𝒰₀, whose Γ does not
    depend on U_b.
    """
    if uh[J_PH] > 0.0 or uh[J_TR] > 0.0:
        return MODE_EXTEND
    if uh[J_PR] > 0.0 or uh[J_TH] > 0.0:
        return MODE_RETRACT
    return MODE_HOLD


@nb.njit(cache=True, inline="always", error_model="numpy")
def gamma_zero_at_scalar(cp, uh, pump_cap: float) -> tuple[float, float]:
    """(Γ₊(0), Γ₋(0)) of (65)/(107) with the pump-side pressure capped at ``pump_cap`` [Pa].

    Γ_h+(0) = min(F_hM, A_h·cap) if û_ph > 0 else 0;  Γ_r+(0) = 0 if û_tr > 0 else F_rM;
    Γ_h−(0) = 0 if û_th > 0 else F_hM;  Γ_r−(0) = min(F_rM, A_r·cap) if û_pr > 0 else 0.
    One actuator on its own pump: cap = min(P_M, Q²/U_b²) (65); on a shared pump at pressure P:
    cap = P (107), with (107m) read as A_r·P.
    """
    fhm = cp[I_FHM]
    frm = cp[I_FRM]
    gh_plus = min(fhm, cp[I_AH] * pump_cap) if uh[J_PH] > 0.0 else 0.0
    gr_plus = 0.0 if uh[J_TR] > 0.0 else frm
    gh_minus = 0.0 if uh[J_TH] > 0.0 else fhm
    gr_minus = min(frm, cp[I_AR] * pump_cap) if uh[J_PR] > 0.0 else 0.0
    return gh_plus - gr_plus, gh_minus - gr_minus


@nb.njit(cache=True, inline="always", error_model="numpy")
def gamma_zero_scalar(cp, uh) -> tuple[float, float]:
    """(Γ₊(0), Γ₋(0)), the ends of the set Γ(0) (65); Γ₊(0) ≤ Γ₋(0).

    The pump pressure at rest is capped by the relief, P_M, and by the bleed, Q²/U_b² (∞ if U_b = 0).
    """
    bleed_pressure = ldiv_scalar(cp[I_Q] * cp[I_Q], uh[J_B] * uh[J_B])
    return gamma_zero_at_scalar(cp, uh, min(cp[I_PM], bleed_pressure))


@nb.njit(cache=True, inline="always", error_model="numpy")
def head_plus_scalar(cp, uh, pump_force: float, v: float) -> float:
    """Γ_h+ (61b) for v > 0 given the head force the pump side can supply, ``pump_force`` [N]:
    proj_[0, F_hM](pump_force − S(v)/û_ph²)."""
    return proj_scalar(pump_force - s_ldiv_scalar(v, uh[J_PH] * uh[J_PH]), 0.0, cp[I_FHM])


@nb.njit(cache=True, inline="always", error_model="numpy")
def rod_plus_scalar(cp, uh, v: float) -> float:
    """Γ_r+ (62b) for v > 0: the rod chamber meters out to tank, proj_[0, F_rM](S(v)/û_tr²)."""
    return proj_scalar(s_ldiv_scalar(v, uh[J_TR] * uh[J_TR]), 0.0, cp[I_FRM])


@nb.njit(cache=True, inline="always", error_model="numpy")
def head_minus_scalar(cp, uh, v: float) -> float:
    """Γ_h− (61c) for v < 0: the head chamber meters out to tank, proj_[0, F_hM](−S(v)/û_th²)."""
    return proj_scalar(-s_ldiv_scalar(v, uh[J_TH] * uh[J_TH]), 0.0, cp[I_FHM])


@nb.njit(cache=True, inline="always", error_model="numpy")
def rod_minus_scalar(cp, uh, pump_force: float, v: float) -> float:
    """Γ_r− (62c) for v < 0 given the rod force the pump side can supply, ``pump_force`` [N]:
    proj_[0, F_rM](pump_force + S(v)/û_pr²)."""
    return proj_scalar(pump_force + s_ldiv_scalar(v, uh[J_PR] * uh[J_PR]), 0.0, cp[I_FRM])


@nb.njit(cache=True, inline="always", error_model="numpy")
def head_pump_force_scalar(cp, uh, v: float) -> float:
    """min(A_h P_M, −A_h³ S(v − Q/A_h)/U_b²) [N]: the pump's head force, capped by the relief and
    by the bleed, for v > 0 (61b)."""
    ah = cp[I_AH]
    return min(ah * cp[I_PM], -ldiv_scalar(ah * ah * ah * s_scalar(v - cp[I_Q] / ah), uh[J_B] * uh[J_B]))


@nb.njit(cache=True, inline="always", error_model="numpy")
def rod_pump_force_scalar(cp, uh, v: float) -> float:
    """min(A_r P_M, A_r³ S(v + Q/A_r)/U_b²) [N]: the pump's rod force for v < 0 (62c)."""
    ar = cp[I_AR]
    return min(ar * cp[I_PM], ldiv_scalar(ar * ar * ar * s_scalar(v + cp[I_Q] / ar), uh[J_B] * uh[J_B]))


@nb.njit(cache=True, error_model="numpy")
def gamma_head_plus_scalar(cp, uh, v: float) -> float:
    """Γ_h+(v) (61b) of one actuator on its own pump, v ≥ 0."""
    return head_plus_scalar(cp, uh, head_pump_force_scalar(cp, uh, v), v)


@nb.njit(cache=True, error_model="numpy")
def gamma_plus_scalar(cp, uh, v: float) -> float:
    """Γ₊(v) = Γ_h+(v) − Γ_r+(v) for v > 0, from (61b) and (62b)."""
    return gamma_head_plus_scalar(cp, uh, v) - rod_plus_scalar(cp, uh, v)


@nb.njit(cache=True, error_model="numpy")
def gamma_minus_scalar(cp, uh, v: float) -> float:
    """Γ₋(v) = Γ_h−(v) − Γ_r−(v) for v < 0, from (61c) and (62c)."""
    return head_minus_scalar(cp, uh, v) - rod_minus_scalar(cp, uh, rod_pump_force_scalar(cp, uh, v), v)


@nb.njit(cache=True, inline="always", error_model="numpy")
def lam_plus_at_scalar(cp, uh, impedance: float, fbar: float, pump_pressure: float, bleed_segments: bool) -> float:
    """Λ₊(β, f̄) of (74g): the root of βv + f̄ = Γ₊(v) from the segment roots (73a–h).

    ``pump_pressure`` [Pa] replaces P_M in the segments 2a/2b; ``bleed_segments`` keeps the
    bleed-limited segments 1a/1b. One actuator on its own pump: (P_M, True); on a shared pump
    at pressure P: (P, False), which gives Λ̂₊(P, β, f̄) of (122) with the roots (122i–j).
    """
    ah = cp[I_AH]
    fhm = cp[I_FHM]
    frm = cp[I_FRM]
    ph2 = uh[J_PH] * uh[J_PH]
    tr2 = uh[J_TR] * uh[J_TR]
    series = psi_scalar(uh[J_PH], uh[J_TR])
    pump = ah * pump_pressure
    v0a = phi_a_scalar(impedance, fbar - fhm, tr2)
    v0b = (fhm - frm - fbar) / impedance
    v2a = phi_a_scalar(impedance, fbar - pump, series)
    v2b = phi_a_scalar(impedance, fbar - pump + frm, ph2)
    v3 = phi_a_scalar(impedance, fbar, tr2)
    vrm = (-frm - fbar) / impedance
    inner = min(max(v0a, v0b), max(v2a, v2b))
    if bleed_segments:
        bleed = uh[J_B] * uh[J_B] / (ah * ah * ah)
        x1 = cp[I_Q] / ah
        v1a = phi_b_scalar(impedance, fbar, series, bleed, x1)
        v1b = phi_b_scalar(impedance, fbar + frm, ph2, bleed, x1)
        inner = min(inner, max(v1a, v1b))
    return max(inner, v3, vrm)


@nb.njit(cache=True, inline="always", error_model="numpy")
def lam_minus_at_scalar(cp, uh, impedance: float, fbar: float, pump_pressure: float, bleed_segments: bool) -> float:
    """Λ₋(β, f̄) of (74h): the root of βv + f̄ = Γ₋(v) from the segment roots (73i–p).

    ``pump_pressure`` and ``bleed_segments`` as in ``lam_plus_at_scalar``; (P, False) gives
    Λ̂₋(P, β, f̄) of (122) with the roots (122k–l).
    """
    ar = cp[I_AR]
    fhm = cp[I_FHM]
    frm = cp[I_FRM]
    pr2 = uh[J_PR] * uh[J_PR]
    th2 = uh[J_TH] * uh[J_TH]
    series = psi_scalar(uh[J_PR], uh[J_TH])
    pump = ar * pump_pressure
    v0a = phi_a_scalar(impedance, fbar + frm, th2)
    v0b = (fhm - frm - fbar) / impedance
    v2a = phi_a_scalar(impedance, fbar + pump, series)
    v2b = phi_a_scalar(impedance, fbar + pump - fhm, pr2)
    v3 = phi_a_scalar(impedance, fbar, th2)
    vhm = (fhm - fbar) / impedance
    inner = max(min(v0a, v0b), min(v2a, v2b))
    if bleed_segments:
        bleed = uh[J_B] * uh[J_B] / (ar * ar * ar)
        x1 = -cp[I_Q] / ar
        v1a = phi_b_scalar(impedance, fbar, series, bleed, x1)
        v1b = phi_b_scalar(impedance, fbar - fhm, pr2, bleed, x1)
        inner = max(inner, min(v1a, v1b))
    return min(inner, v3, vhm)


@nb.njit(cache=True, inline="always", error_model="numpy")
def lam_from_interval_scalar(
    cp, uh, impedance: float, fbar: float, low: float, high: float, pump_pressure: float, bleed_segments: bool
) -> float:
    """The case table (74f) given Γ(0) = [low, high]; Λ₊/Λ₋ as in ``lam_plus_at_scalar``.

    f̄ < low: v > 0, from Λ₊ in 𝒰₊ and v_rM = (−F_rM − f̄)/β otherwise (rod relief open);
    f̄ > high: v < 0, from Λ₋ in 𝒰₋ and v_hM = (F_hM − f̄)/β otherwise (head relief open);
    else v = 0 (the set-valued part of Γ holds the rod). The same table completes (122h) with
    its missing 𝒰₀ cases and strict inequalities.
    """
    if fbar < low:
        if mode_scalar(uh) == MODE_EXTEND:
            return lam_plus_at_scalar(cp, uh, impedance, fbar, pump_pressure, bleed_segments)
        return (-cp[I_FRM] - fbar) / impedance
    if fbar > high:
        if mode_scalar(uh) == MODE_RETRACT:
            return lam_minus_at_scalar(cp, uh, impedance, fbar, pump_pressure, bleed_segments)
        return (cp[I_FHM] - fbar) / impedance
    return 0.0


@nb.njit(cache=True, inline="always", error_model="numpy")
def lam_scalar(cp, uh, impedance: float, fbar: float) -> float:
    """Λ(β, f̄) (74f): the unique v with βv + f̄ ∈ Γ(v), for β > 0."""
    low, high = gamma_zero_scalar(cp, uh)
    return lam_from_interval_scalar(cp, uh, impedance, fbar, low, high, cp[I_PM], True)


@nb.njit(cache=True, inline="always", error_model="numpy")
def relaxation_terms_scalar(stiffness, damping, h, p_prev, l_prev, l_now) -> tuple[float, float]:
    """(β, f̄) of algorithm (72): the step's impedance β = B + hK [N s/m] and
    f̄ = K(p_{k−1} − ℓ_k) − (B/h)(ℓ_k − ℓ_{k−1}) [N].

    B/h is formed before the length difference arrives, so no division lies on a time loop's
    chain from ℓ_k to f_k.
    """
    return damping + h * stiffness, stiffness * (p_prev - l_now) - (damping / h) * (l_now - l_prev)


@nb.njit(cache=True, inline="always", error_model="numpy")
def relaxed_step_scalar(cp, uh, stiffness, damping, h, p_prev, l_prev, l_now) -> tuple[float, float, float]:
    """One backward-Euler step of the relaxed actuator, algorithm (72); returns (p_k, f_k, v_k).

    (β, f̄) from ``relaxation_terms_scalar``,  v = Λ(β, f̄),  p_k = p_{k−1} + h v,  f_k = f̄ + β v.
    """
    impedance, fbar = relaxation_terms_scalar(stiffness, damping, h, p_prev, l_prev, l_now)
    v = lam_scalar(cp, uh, impedance, fbar)
    return p_prev + h * v, fbar + impedance * v, v


@nb.njit(cache=True, error_model="numpy")
def lam_loop(cp, uh, impedance, fbar, out) -> None:
    """Λ(β_i, f̄_i) [m/s] into ``out[i]`` for rows ``uh[i]`` of openings (n, 5), β [N s/m], f̄ [N]."""
    for i in range(out.size):
        out[i] = lam_scalar(cp, uh[i], impedance[i], fbar[i])


@nb.njit(cache=True, error_model="numpy")
def relaxed_step_loop(cp, uh, stiffness, damping, h, p_prev, l_prev, l_now, p_out, f_out) -> None:
    """``relaxed_step_scalar`` row by row: (p_k [m], f_k [N]) into ``p_out[i]``, ``f_out[i]``."""
    for i in range(p_out.size):
        p_out[i], f_out[i], _ = relaxed_step_scalar(cp, uh[i], stiffness, damping, h, p_prev[i], l_prev[i], l_now[i])


@nb.njit(cache=True, error_model="numpy")
def chamber_forces_scalar(cp, uh, v: float, f: float) -> tuple[float, float]:
    """Chamber forces (F_h, F_r) = (A_h P_h, A_r P_r) [N] of the quasistatic state at (v, f).

    v > 0: (Γ_h+(v), Γ_r+(v)) (61b), (62b); v < 0: (Γ_h−(v), Γ_r−(v)) (61c), (62c); both
    single-valued. At v = 0 the model fixes only F_h − F_r = f; the least pair is returned,
    (max(f, 0), max(−f, 0)): the unloaded chamber at tank pressure.
    """
    if v > 0.0:
        return gamma_head_plus_scalar(cp, uh, v), rod_plus_scalar(cp, uh, v)
    if v < 0.0:
        return head_minus_scalar(cp, uh, v), rod_minus_scalar(cp, uh, rod_pump_force_scalar(cp, uh, v), v)
    return max(f, 0.0), max(-f, 0.0)

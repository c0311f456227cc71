"""Compiled scalar kernels of the quasistatic actuator (Kikuuwe et al. (61)–(65), (73)–(74)).

Every kernel takes ``cp``, the circuit vector of ``ValveCircuit.kernel_array()`` (layout
``I_*``), and ``uh``, the normalised openings û = [û_ph, û_tr, û_pr, û_th, U_b] of
``normalised_openings`` (layout ``J_*``). Sign conventions: v > 0 extends the rod, f > 0 pushes
the rod out. Divisions by a closed valve's û² or by U_b² follow the limits (S(v)/0 = ±∞,
0/0 = 0) through ``ldiv_scalar``; Λ needs none, since û² enters Φ_A/Φ_B as a multiplier.
"""

from __future__ import annotations

import numba as nb

from ...numerics.nonsmooth import ldiv_scalar, phi_a_scalar, phi_b_scalar, proj_scalar, psi_scalar, s_scalar
from .circuit import I_AH, I_AR, I_FHM, I_FRM, I_PM, I_Q, J_B, J_PH, J_PR, J_TH, J_TR

MODE_HOLD = 0
MODE_EXTEND = 1
MODE_RETRACT = -1


@nb.njit(cache=True, inline="always")
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


@nb.njit(cache=True)
def gamma_zero_scalar(cp, uh) -> tuple[float, float]:
    """(Γ₊(0), Γ₋(0)), the ends of the set Γ(0) (65); Γ₊(0) ≤ Γ₋(0).

    Γ_h+(0) = min(F_hM, A_h P_M, A_h Q²/U_b²) if û_ph > 0 else 0;  Γ_r+(0) = 0 if û_tr > 0 else F_rM;
    Γ_h−(0) = 0 if û_th > 0 else F_hM;  Γ_r−(0) = min(F_rM, A_r P_M, A_r Q²/U_b²) if û_pr > 0 else 0.
    """
    ah = cp[I_AH]
    ar = cp[I_AR]
    fhm = cp[I_FHM]
    frm = cp[I_FRM]
    bleed_pressure = ldiv_scalar(cp[I_Q] * cp[I_Q], uh[J_B] * uh[J_B])  # Q²/U_b², ∞ if U_b = 0
    gh_plus = min(fhm, ah * cp[I_PM], ah * bleed_pressure) if uh[J_PH] > 0.0 else 0.0
    gr_plus = 0.0 if uh[J_TR] > 0.0 else frm
    gh_minus = 0.0 if uh[J_TH] > 0.0 else fhm
    gr_minus = min(frm, ar * cp[I_PM], ar * bleed_pressure) if uh[J_PR] > 0.0 else 0.0
    return gh_plus - gr_plus, gh_minus - gr_minus


@nb.njit(cache=True)
def gamma_plus_scalar(cp, uh, v: float) -> float:
    """Γ₊(v) = Γ_h+(v) − Γ_r+(v) for v > 0, from (61b) and (62b)."""
    ah = cp[I_AH]
    sv = s_scalar(v)
    bleed = -ldiv_scalar(ah * ah * ah * s_scalar(v - cp[I_Q] / ah), uh[J_B] * uh[J_B])
    head = proj_scalar(min(ah * cp[I_PM], bleed) - ldiv_scalar(sv, uh[J_PH] * uh[J_PH]), 0.0, cp[I_FHM])
    rod = proj_scalar(ldiv_scalar(sv, uh[J_TR] * uh[J_TR]), 0.0, cp[I_FRM])
    return head - rod


@nb.njit(cache=True)
def gamma_minus_scalar(cp, uh, v: float) -> float:
    """Γ₋(v) = Γ_h−(v) − Γ_r−(v) for v < 0, from (61c) and (62c)."""
    ar = cp[I_AR]
    sv = s_scalar(v)
    head = proj_scalar(-ldiv_scalar(sv, uh[J_TH] * uh[J_TH]), 0.0, cp[I_FHM])
    bleed = ldiv_scalar(ar * ar * ar * s_scalar(v + cp[I_Q] / ar), uh[J_B] * uh[J_B])
    rod = proj_scalar(min(ar * cp[I_PM], bleed) + ldiv_scalar(sv, uh[J_PR] * uh[J_PR]), 0.0, cp[I_FRM])
    return head - rod


@nb.njit(cache=True)
def lam_plus_scalar(cp, uh, beta: float, fbar: float) -> float:
    """Λ₊(β, f̄) of (74g): the root of βv + f̄ = Γ₊(v) from the segment roots (73a–h)."""
    ah = cp[I_AH]
    fhm = cp[I_FHM]
    frm = cp[I_FRM]
    ph2 = uh[J_PH] * uh[J_PH]
    tr2 = uh[J_TR] * uh[J_TR]
    series = psi_scalar(uh[J_PH], uh[J_TR])
    bleed = uh[J_B] * uh[J_B] / (ah * ah * ah)
    x1 = cp[I_Q] / ah
    pump = ah * cp[I_PM]
    v0a = phi_a_scalar(beta, fbar - fhm, tr2)
    v0b = (fhm - frm - fbar) / beta
    v1a = phi_b_scalar(beta, fbar, series, bleed, x1)
    v1b = phi_b_scalar(beta, fbar + frm, ph2, bleed, x1)
    v2a = phi_a_scalar(beta, fbar - pump, series)
    v2b = phi_a_scalar(beta, fbar - pump + frm, ph2)
    v3 = phi_a_scalar(beta, fbar, tr2)
    vrm = (-frm - fbar) / beta
    return max(min(max(v0a, v0b), max(v1a, v1b), max(v2a, v2b)), v3, vrm)


@nb.njit(cache=True)
def lam_minus_scalar(cp, uh, beta: float, fbar: float) -> float:
    """Λ₋(β, f̄) of (74h): the root of βv + f̄ = Γ₋(v) from the segment roots (73i–p)."""
    ar = cp[I_AR]
    fhm = cp[I_FHM]
    frm = cp[I_FRM]
    pr2 = uh[J_PR] * uh[J_PR]
    th2 = uh[J_TH] * uh[J_TH]
    series = psi_scalar(uh[J_PR], uh[J_TH])
    bleed = uh[J_B] * uh[J_B] / (ar * ar * ar)
    x1 = -cp[I_Q] / ar
    pump = ar * cp[I_PM]
    v0a = phi_a_scalar(beta, fbar + frm, th2)
    v0b = (fhm - frm - fbar) / beta
    v1a = phi_b_scalar(beta, fbar, series, bleed, x1)
    v1b = phi_b_scalar(beta, fbar - fhm, pr2, bleed, x1)
    v2a = phi_a_scalar(beta, fbar + pump, series)
    v2b = phi_a_scalar(beta, fbar + pump - fhm, pr2)
    v3 = phi_a_scalar(beta, fbar, th2)
    vhm = (fhm - fbar) / beta
    return min(max(min(v0a, v0b), min(v1a, v1b), min(v2a, v2b)), v3, vhm)


@nb.njit(cache=True)
def lam_scalar(cp, uh, beta: float, fbar: float) -> float:
    """Λ(β, f̄) (74f): the unique v with βv + f̄ ∈ Γ(v), for β > 0.

    f̄ < Γ₊(0): v > 0, from Λ₊ in 𝒰₊ and v_rM = (−F_rM − f̄)/β otherwise (rod relief open);
    f̄ > Γ₋(0): v < 0, from Λ₋ in 𝒰₋ and v_hM = (F_hM − f̄)/β otherwise (head relief open);
    else v = 0 (the set-valued part of Γ holds the rod).
    """
    low, high = gamma_zero_scalar(cp, uh)
    if fbar < low:
        if mode_scalar(uh) == MODE_EXTEND:
            return lam_plus_scalar(cp, uh, beta, fbar)
        return (-cp[I_FRM] - fbar) / beta
    if fbar > high:
        if mode_scalar(uh) == MODE_RETRACT:
            return lam_minus_scalar(cp, uh, beta, fbar)
        return (cp[I_FHM] - fbar) / beta
    return 0.0


@nb.njit(cache=True)
def relaxed_step_scalar(cp, uh, stiffness, damping, h, p_prev, l_prev, l_now) -> tuple[float, float, float]:
    """One backward-Euler step of the relaxed actuator, algorithm (72); returns (p_k, f_k, v_k).

    f̄ = K(p_{k−1} − ℓ_k) − B(ℓ_k − ℓ_{k−1})/h,  v = Λ(B + hK, f̄),  p_k = p_{k−1} + h v,
    f_k = f̄ + (B + hK) v.
    """
    beta = damping + h * stiffness
    fbar = stiffness * (p_prev - l_now) - damping * (l_now - l_prev) / h
    v = lam_scalar(cp, uh, beta, fbar)
    return p_prev + h * v, fbar + beta * v, v

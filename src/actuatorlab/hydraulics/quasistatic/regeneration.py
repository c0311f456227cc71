"""Regeneration valve from the rod chamber to the head chamber (Kikuuwe et al. Sec. 5, (90)–(105)).

A valve of opening u_a ∈ [0, 1] lets oil flow from the rod chamber into the head chamber while
the rod extends, so the rod-side oil feeds the head side and the rod extends faster. Sign
conventions as everywhere: v [m/s] > 0 extends the rod, f [N] > 0 pushes the rod out.

Readings taken of the paper:

- the valve passes oil from the rod side to the head side (P_r > P_h), as (91)–(92) say, not
  "from the head side to the rod side" as one sentence of the text says;
- in (91) and (93f) the max is taken outside R: v_a = û_a·max(R(F_r − Â F_h), 0);
- in (94b) Γ_r+ is meant where Γ_r is printed;
- in (105) Λ solves the problem when Ξ_v(Λ, 0) ≥ 0 (the text's "Ξ_v < 0" is a slip).

Quantities: v_a = Q_a/A_r [m/s] is the regeneration flow in rod-velocity units, û_a =
c_a·u_a/A_r^{3/2} [m^{1/2} kg^{-1/2}] the normalised opening (c_a = C_a·a_a·√(2/ρ)) and
Â = A_r/A_h ∈ (0, 1] (assumption (90), A_h ≥ A_r).

The valve acts only when the extend valves meter out through u_tr > 0, as Sec. 5 assumes: with
u_tr = 0 (which includes every opening outside 𝒰₊, since openings never mix the modes) or
u_a = 0, Γ_reg = Γ and Λ_reg = Λ, as condition C of (98) has it for u_a = 0 and û ∉ 𝒰₊.
The paper's map does not cover u_tr = 0 with u_a > 0 (all rod oil through the valve, F_r set
by the head side); this module then leaves the valve without effect rather than guess.

(95), (98) and (104) need Γ_h+ continuous. With the bleed closed (U_b = 0), u_ph > 0 and Q > 0 it is
not: it jumps at v − Â v_a = Q/A_h, where all pump flow enters the head and F_h is any value of an
interval; the single-valued formulas then pick a wrong force and (105) has spurious fixed points.
The kernels then return status REG_CLOSED_BLEED and the public functions raise. A small bleed
opening is covered, but the alternations of (105) grow like 1/u_b as u_b → 0 (about 3e4 at
u_b = 1e-4).

Twin: the exported FMU's C ``fmu/c/quasistatic.c`` (``tests/test_fmu_twins.py``: equal to 1e-12); change both together.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...errors import ParameterError, SimulationError
from ...numerics.nonsmooth import s_scalar
from ...numerics.roots import ROOT_OK, find_root
from ...validation import positive, unit_interval
from ._broadcast import flatten
from .circuit import I_AH, I_AR, I_FHM, I_Q, J_B, J_PH, J_TR, Openings, ValveCircuit
from .kernels import (
    gamma_head_plus_scalar,
    gamma_minus_scalar,
    lam_scalar,
    relaxation_terms_scalar,
    rod_plus_scalar,
)
from .relaxation import Relaxation

REG_OK = 0
REG_MAX_ITER = 1
"""Λ_reg: the alternating search (105) used its cap of alternations."""
REG_ROOT_FAILED = 2
"""An inner root search found no bracket or hit ROOT_MAX_ITER (degenerate input, e.g. v subnormal)."""
REG_CLOSED_BLEED = 3
"""The valve would carry flow while Γ_h+ jumps (bleed closed, u_ph > 0, Q > 0): not covered."""

RELATIVE_TOLERANCE = 1e-10
"""Λ_reg stops when the force imbalance is below ε_f = RELATIVE_TOLERANCE·β·v [N] (or FORCE_FLOOR).

With v_a = v̂_a(v), Ξ_f(v, v_a) = βv + f̄ − Γ_reg(v) grows with slope ≥ β in v, so
|Ξ_f| < ε_f puts v within ε_f/β = 1e-10·v of Λ_reg, a tenth of the 1e-9 relative target."""
FORCE_FLOOR = 1e-7
"""Smallest ε_f [N]: forces reach ~1e6 N, whose round-off is ~1e-10 N; for β·v below ~1e3 N
the floor leaves v within 1e-7 N/(β + |Γ_reg'|) of Λ_reg."""
ROOT_RTOL = 1e-15
"""Inner root searches stop on a bracket narrower than ROOT_RTOL·v (a few ulp of v), so the
residuals they leave are round-off."""
ROOT_MAX_ITER = 200
"""Cap of one inner root search; its bracket at least halves each iteration (roots.py)."""
MAX_ALTERNATIONS = 10_000
"""Default cap of the alternations of (105); convergence is linear and can be slow (measured:
361 alternations at β = 1e5 N s/m, f̄ = 0)."""


@nb.njit(cache=True, inline="always", error_model="numpy")
def regenerated_chamber_forces_scalar(cp, uh, v: float, va: float) -> tuple[float, float]:
    """(F_h, F_r) [N] for rod velocity v > 0 and regeneration flow 0 ≤ v_a ≤ v [m/s], (93a–b):
    the head takes v − Â v_a from the pump side, F_h = Γ_h+(v − Â v_a) (61b); the rod side
    meters v − v_a out to tank, F_r = Γ_r+(v − v_a) (62b)."""
    return gamma_head_plus_scalar(cp, uh, v - cp[I_AR] / cp[I_AH] * va), rod_plus_scalar(cp, uh, v - va)


@nb.njit(cache=True, error_model="numpy")
def xi_v_scalar(va: float, cp, uh, ua_hat: float, v: float) -> float:
    """Ξ_v(v, v_a) (95) [m²/s²] as a function of v_a [m/s] (for the root search), v > 0, 0 ≤ v_a ≤ v:

    S(v_a) − û_a²·(F_r − Â·F_h) with the chamber forces of ``regenerated_chamber_forces_scalar``;
    increasing in v_a, non-increasing in v. Ξ_v = 0 is the flow law of valve a (93f).
    """
    head, rod = regenerated_chamber_forces_scalar(cp, uh, v, va)
    return s_scalar(va) - ua_hat * ua_hat * (rod - cp[I_AR] / cp[I_AH] * head)


@nb.njit(cache=True, error_model="numpy")
def xi_f_scalar(v: float, cp, uh, impedance: float, fbar: float, va: float) -> float:
    """Ξ_f(v, v_a) (104) [N] as a function of v [m/s] (for the root search), v > 0, 0 ≤ v_a ≤ v:

    βv + f̄ − (F_h − F_r) with the chamber forces of ``regenerated_chamber_forces_scalar``; increasing in
    v, non-increasing in v_a.
    """
    head, rod = regenerated_chamber_forces_scalar(cp, uh, v, va)
    return impedance * v + fbar - (head - rod)


@nb.njit(cache=True, inline="always", error_model="numpy")
def regenerates_scalar(cp, uh, ua_hat: float, v: float) -> bool:
    """Whether valve a carries flow at rod velocity v: the negation of condition C of (98),

    û_a > 0 ∧ û_tr > 0 ∧ v > 0 ∧ Ξ_v(v, 0) < 0. û_tr > 0 implies û ∈ 𝒰₊ (mode_scalar is
    MODE_EXTEND whenever û_tr > 0); see the module docstring for u_tr = 0. The cheap tests
    come first, so a closed valve costs two comparisons.
    """
    return ua_hat > 0.0 and uh[J_TR] > 0.0 and v > 0.0 and xi_v_scalar(0.0, cp, uh, ua_hat, v) < 0.0


@nb.njit(cache=True, inline="always", error_model="numpy")
def head_force_jumps_scalar(cp, uh) -> bool:
    """Whether Γ_h+ (61b) jumps, at v − Â v_a = Q/A_h: bleed closed (U_b = 0), u_ph > 0, Q > 0."""
    return uh[J_B] == 0.0 and uh[J_PH] > 0.0 and cp[I_Q] > 0.0


@nb.njit(cache=True, error_model="numpy")
def regeneration_velocity_scalar(cp, uh, ua_hat: float, v: float) -> tuple[float, int]:
    """(v̂_a(v) (101) [m/s], status): 0 under condition C, else the root of Ξ_v(v, ·) on [0, v]
    (status REG_CLOSED_BLEED if Γ_h+ jumps)."""
    if not regenerates_scalar(cp, uh, ua_hat, v):
        return 0.0, REG_OK
    if head_force_jumps_scalar(cp, uh):
        return 0.0, REG_CLOSED_BLEED
    va, _, status = find_root(xi_v_scalar, (cp, uh, ua_hat, v), 0.0, v, ROOT_RTOL * v, ROOT_MAX_ITER)
    return va, REG_OK if status == ROOT_OK else REG_ROOT_FAILED


@nb.njit(cache=True, error_model="numpy")
def gamma_regeneration_scalar(cp, uh, ua_hat: float, v: float) -> tuple[float, int]:
    """(Γ_reg(v) (98) [N], status) for v ≠ 0: Γ_h+(v − Â v̂_a) − Γ_r+(v − v̂_a) (94b, with Γ_r+
    for the printed Γ_r) for v > 0, which is Γ₊(v) under condition C (v̂_a = 0); Γ₋(v) for v < 0."""
    if v < 0.0:
        return gamma_minus_scalar(cp, uh, v), REG_OK
    va, status = regeneration_velocity_scalar(cp, uh, ua_hat, v)
    head, rod = regenerated_chamber_forces_scalar(cp, uh, v, va)
    return head - rod, status


@nb.njit(cache=True, inline="always", error_model="numpy")
def lam_regeneration_scalar(cp, uh, ua_hat: float, impedance: float, fbar: float, max_iter: int):
    """Λ_reg(β, f̄) (102): returns (v, v_a, alternations, status), v [m/s] the unique solution of
    βv + f̄ ∈ Γ_reg(v) and v_a [m/s] the regeneration flow there.

    Algorithm (105): v = Λ(β, f̄) solves it when condition C holds at Λ (at the cost of Λ);
    otherwise ``alternation_scalar`` raises v from there (status REG_CLOSED_BLEED if Γ_h+ jumps).
    """
    v = lam_scalar(cp, uh, impedance, fbar)
    if not regenerates_scalar(cp, uh, ua_hat, v):
        return v, 0.0, 0, REG_OK
    if head_force_jumps_scalar(cp, uh):
        return v, 0.0, 0, REG_CLOSED_BLEED
    return alternation_scalar(cp, uh, ua_hat, impedance, fbar, v, max_iter)


@nb.njit(cache=True, error_model="numpy")
def alternation_scalar(cp, uh, ua_hat: float, impedance: float, fbar: float, v: float, max_iter: int):
    """The loop of (105) from v = Λ(β, f̄) > 0 with Ξ_v(v, 0) < 0: returns (v, v_a, alternations, status).

    Each alternation sets v_a := root of Ξ_v(v, ·) on [v_a, v] (v_a = 0 at first), stops if
    |Ξ_f(v, v_a)| < ε_f, sets v := root of Ξ_f(·, v_a) on [v, (F_hM − f̄)/β] and stops if
    |Ξ_v(v, v_a)| < ε_v.

    Tolerances: ε_f = max(RELATIVE_TOLERANCE·β·v, FORCE_FLOOR) [N] and ε_v = Â·û_a²·ε_f
    [m²/s²]. Since v̂_a' = −∂_vΞ_v/∂_{v_a}Ξ_v, a residual Ξ_v leaves Ξ_f(v, v̂_a(v)) off by at
    most |Ξ_v|/(Â û_a²) to first order, so both tests bound the same force imbalance.
    The iterates rise monotonically (Ξ_f is non-increasing in v_a, Ξ_v non-increasing in v),
    so both residuals are ≤ 0 in exact arithmetic; the tests read −Ξ < ε and also stop on a
    positive residual, which only round-off makes and which means the fixed point is reached.
    ``max_iter`` alternations without meeting a test give status REG_MAX_ITER.
    """
    eps_v_per_f = cp[I_AR] / cp[I_AH] * ua_hat * ua_hat
    v_top = (cp[I_FHM] - fbar) / impedance
    va = 0.0
    for alternation in range(1, max_iter + 1):
        eps_f = max(RELATIVE_TOLERANCE * impedance * v, FORCE_FLOOR)
        va, _, status = find_root(xi_v_scalar, (cp, uh, ua_hat, v), va, v, ROOT_RTOL * v, ROOT_MAX_ITER)
        if status != ROOT_OK:
            return v, va, alternation, REG_ROOT_FAILED
        if xi_f_scalar(v, cp, uh, impedance, fbar, va) > -eps_f:
            return v, va, alternation, REG_OK
        v, _, status = find_root(xi_f_scalar, (cp, uh, impedance, fbar, va), v, v_top, ROOT_RTOL * v, ROOT_MAX_ITER)
        if status != ROOT_OK:
            return v, va, alternation, REG_ROOT_FAILED
        if xi_v_scalar(va, cp, uh, ua_hat, v) > -eps_v_per_f * eps_f:
            return v, va, alternation, REG_OK
    return v, va, max_iter, REG_MAX_ITER


@nb.njit(cache=True, error_model="numpy")
def relaxed_regeneration_step_scalar(cp, uh, ua_hat, stiffness, damping, h, p_prev, l_prev, l_now):
    """One step of algorithm (72) with Λ_reg in (72b); returns (p_k, f_k, v_k, status).

    Identical to ``relaxed_step_scalar`` (bit for bit when û_a = 0, where Λ_reg is Λ at the
    cost of Λ): (β, f̄) from ``relaxation_terms_scalar``, v = Λ_reg(β, f̄) within
    MAX_ALTERNATIONS, p_k = p_{k−1} + h v, f_k = f̄ + β v.
    """
    impedance, fbar = relaxation_terms_scalar(stiffness, damping, h, p_prev, l_prev, l_now)
    v, _, _, status = lam_regeneration_scalar(cp, uh, ua_hat, impedance, fbar, MAX_ALTERNATIONS)
    return p_prev + h * v, fbar + impedance * v, v, status


@nb.njit(cache=True, error_model="numpy")
def _velocity_loop(cp, uh, ua_hat, v, out, status):
    for i in range(v.size):
        out[i], status[i] = regeneration_velocity_scalar(cp, uh[i], ua_hat[i], v[i])


@nb.njit(cache=True, error_model="numpy")
def _gamma_loop(cp, uh, ua_hat, v, out, status):
    for i in range(v.size):
        out[i], status[i] = gamma_regeneration_scalar(cp, uh[i], ua_hat[i], v[i])


@nb.njit(cache=True, error_model="numpy")
def _lam_loop(cp, uh, ua_hat, impedance, fbar, max_iter, v_out, va_out, iterations, status):
    for i in range(v_out.size):
        v_out[i], va_out[i], iterations[i], status[i] = lam_regeneration_scalar(
            cp, uh[i], ua_hat[i], impedance[i], fbar[i], max_iter
        )


@nb.njit(cache=True, error_model="numpy")
def _step_loop(cp, uh, ua_hat, stiffness, damping, h, p_prev, l_prev, l_now, p_out, f_out, status):
    for i in range(p_out.size):
        p_out[i], f_out[i], _, status[i] = relaxed_regeneration_step_scalar(
            cp, uh[i], ua_hat[i], stiffness, damping, h, p_prev[i], l_prev[i], l_now[i]
        )


def regeneration_openings(circuit: ValveCircuit, u_a) -> np.ndarray:
    """û_a = c_a·u_a/A_r^{3/2} [m^{1/2} kg^{-1/2}] of openings u_a ∈ [0, 1] (any shape): the
    regeneration input of the kernels, as ``normalised_openings`` is for the other valves.

    Raises ParameterError for u_a outside [0, 1]. Assumption (90), A_h ≥ A_r, holds for every
    ``ValveCircuit`` (it refuses rod_area ≥ head_area).
    """
    u_a = unit_interval("u_a", u_a)
    return circuit.regeneration_coefficient * circuit.rod_area**-1.5 * u_a


def _flatten(circuit: ValveCircuit, openings: Openings, u_a, *args):
    """(cp, û, u_a, û_a, flat args, shape): the arguments checked, broadcast and flattened as by
    ``flatten``."""
    ua_hat = regeneration_openings(circuit, u_a)
    cp, uh, (ua, ua_hat, *flat), shape = flatten(circuit, openings, u_a, ua_hat, *args)
    return cp, uh, ua, ua_hat, flat, shape


def _raise_for_status(name: str, status: np.ndarray, ua: np.ndarray) -> None:
    """ParameterError for REG_CLOSED_BLEED, SimulationError for REG_ROOT_FAILED (degenerate input)."""
    if np.any(status == REG_CLOSED_BLEED):
        i = int(np.argmax(status == REG_CLOSED_BLEED))
        raise ParameterError(
            f"{name}: the regeneration valve (u_a = {float(ua[i])!r}) would carry flow with the bleed closed "
            "(u_b = 0) and u_ph open, which the model does not cover: without a bleed the head force Γ_h+ (61b) "
            "jumps where the head takes the whole pump flow; open the bleed a little (u_b > 0) or close the "
            "regeneration valve (u_a = 0)"
        )
    if np.any(status == REG_ROOT_FAILED):
        i = int(np.argmax(status == REG_ROOT_FAILED))
        raise SimulationError(
            f"{name}: the root search for the regeneration flow failed at element {i} (u_a = {float(ua[i])!r}); "
            "give finite velocities, forces and impedances of physical size"
        )


def _map_of_velocity(loop, name: str, circuit: ValveCircuit, openings: Openings, u_a, v) -> np.ndarray:
    """The compiled ``loop`` (``_gamma_loop`` or ``_velocity_loop``) over v [m/s] broadcast with
    the openings and u_a, shaped as they broadcast; a failed element raises as ``name``."""
    cp, uh, ua, ua_hat, (vf,), shape = _flatten(circuit, openings, u_a, v)
    out = np.empty(vf.size)
    status = np.empty(vf.size, dtype=np.int64)
    loop(cp, uh, ua_hat, vf, out, status)
    _raise_for_status(name, status, ua)
    return out.reshape(shape)


def gamma_regeneration(circuit: ValveCircuit, openings: Openings, u_a, v) -> np.ndarray:
    """Γ_reg(v) [N] (98) for v ≠ 0 [m/s], with regeneration opening ``u_a`` ∈ [0, 1].

    Vectorised over ``openings``, ``u_a`` and ``v`` (broadcast together). Γ_reg = Γ for v < 0,
    u_a = 0 or u_tr = 0; for v > 0, Γ_reg ≥ Γ (the valve feeds rod oil to the head side).
    Raises ParameterError at v = 0, where the map is the interval Γ(0) of ``gamma_interval``.
    """
    v = np.asarray(v, dtype=np.float64)
    if np.any(v == 0.0) or np.any(~np.isfinite(v)):
        raise ParameterError(
            "gamma_regeneration: v must be finite and non-zero; Γ_reg is set-valued at v = 0: "
            "use gamma_interval(circuit, openings) for [Γ₊(0), Γ₋(0)]"
        )
    return _map_of_velocity(_gamma_loop, "gamma_regeneration", circuit, openings, u_a, v)


def regeneration_velocity(circuit: ValveCircuit, openings: Openings, u_a, v) -> np.ndarray:
    """v̂_a(v) [m/s] (101): the regeneration flow Q_a = A_r·v_a at rod velocity v [m/s].

    0 ≤ v_a ≤ max(v, 0); v_a = 0 for v ≤ 0, u_a = 0, u_tr = 0, and while the rod-side pressure
    does not exceed the head-side one (Ξ_v(v, 0) ≥ 0). Broadcasts like ``gamma_regeneration``.
    """
    v = np.asarray(v, dtype=np.float64)
    if np.any(~np.isfinite(v)):
        raise ParameterError("regeneration_velocity: v must be finite (m/s)")
    return _map_of_velocity(_velocity_loop, "regeneration_velocity", circuit, openings, u_a, v)


def lam_regeneration(
    circuit: ValveCircuit,
    openings: Openings,
    u_a,
    impedance,
    fbar,
    max_iterations: int = MAX_ALTERNATIONS,
    return_iterations: bool = False,
):
    """Λ_reg(β, f̄) [m/s] (102): the unique v with β·v + f̄ ∈ Γ_reg(v), by algorithm (105).

    ``impedance`` β = B + hK [N s/m] > 0, ``fbar`` f̄ [N] and ``u_a`` broadcast with the openings; u_a = 0 gives Λ
    of ``lam``. The result is within about 1e-10·v of the exact solution (tolerances in
    ``alternation_scalar``). ``max_iterations`` caps the alternations of (105) for each
    element; ``return_iterations=True`` returns (v, alternations), 0 alternations where the
    valve carries no flow. Raises SimulationError when the cap is reached.
    """
    impedance = np.asarray(impedance, dtype=np.float64)
    if np.any(~(impedance > 0.0)) or np.any(~np.isfinite(impedance)):
        raise ParameterError(
            "lam_regeneration: impedance must be finite and > 0 N s/m (β = B + hK of the relaxation step)"
        )
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) or max_iterations < 1:
        raise ParameterError(f"lam_regeneration: max_iterations = {max_iterations!r} must be an integer >= 1")
    cp, uh, ua, ua_hat, (b, fb), shape = _flatten(circuit, openings, u_a, impedance, fbar)
    v = np.empty(b.size)
    va = np.empty(b.size)
    iterations = np.empty(b.size, dtype=np.int64)
    status = np.empty(b.size, dtype=np.int64)
    _lam_loop(cp, uh, ua_hat, b, fb, int(max_iterations), v, va, iterations, status)
    _raise_for_status("lam_regeneration", status, ua)
    if np.any(status == REG_MAX_ITER):
        i = int(np.argmax(status == REG_MAX_ITER))
        case = {name: float(x[i]) for name, x in (("impedance", b), ("fbar", fb), ("u_a", ua), ("v", v), ("v_a", va))}
        xi_f = xi_f_scalar(v[i], cp, uh[i], b[i], fb[i], va[i])
        xi_v = xi_v_scalar(va[i], cp, uh[i], ua_hat[i], v[i])
        raise SimulationError(
            f"lam_regeneration: the alternating root search (105) did not converge in {iterations[i]} "
            f"alternations at impedance = {case['impedance']!r} N s/m, fbar = {case['fbar']!r} N, "
            f"u_a = {case['u_a']!r} "
            f"(residuals Xi_f = {xi_f!r} N, Xi_v = {xi_v!r} m^2/s^2 at v = {case['v']!r} m/s, "
            f"v_a = {case['v_a']!r} m/s); "
            "it converges slowly for small bleed or meter-out openings: raise max_iterations"
        )
    v = v.reshape(shape)
    return (v, iterations.reshape(shape)) if return_iterations else v


def relaxed_regeneration_step(
    circuit: ValveCircuit, openings: Openings, u_a, K: float, B: float, h: float, p_prev, l_prev, l_now
) -> tuple[np.ndarray, np.ndarray]:
    """One step of algorithm (72) with Λ_reg: (p_k [m], f_k [N]) from p_{k−1}, ℓ_{k−1}, ℓ_k [m].

    K [N/m], B [N s/m] and h [s] as in ``relaxed_step``, which this equals for u_a = 0. Raises
    SimulationError if Λ_reg needs more than MAX_ALTERNATIONS alternations.
    """
    relaxation = Relaxation(K, B)
    h = positive("h", h, "s")
    cp, uh, ua, ua_hat, (pp, lp, ln), shape = _flatten(circuit, openings, u_a, p_prev, l_prev, l_now)
    p_out = np.empty(pp.size)
    f_out = np.empty(pp.size)
    status = np.empty(pp.size, dtype=np.int64)
    _step_loop(cp, uh, ua_hat, relaxation.stiffness, relaxation.damping, h, pp, lp, ln, p_out, f_out, status)
    _raise_for_status("relaxed_regeneration_step", status, ua)
    if np.any(status == REG_MAX_ITER):
        i = int(np.argmax(status == REG_MAX_ITER))
        raise SimulationError(
            f"relaxed_regeneration_step: Λ_reg did not converge in {MAX_ALTERNATIONS} alternations at "
            f"p_prev = {float(pp[i])!r} m, l_prev = {float(lp[i])!r} m, l_now = {float(ln[i])!r} m, "
            f"u_a = {float(ua[i])!r}; "
            "it converges slowly for small bleed or meter-out openings: open them wider or close the "
            "regeneration valve"
        )
    return p_out.reshape(shape), f_out.reshape(shape)

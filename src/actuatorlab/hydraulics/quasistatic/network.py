"""Several actuators on one pump, Kikuuwe et al. Sec. 6, eqs. (106)–(126).

N four-valve circuits share the pump (flow Q), its bleed valve (U_b = c_b·u_b) and its relief
valve (P_M); each keeps its own main valves and chamber reliefs. Given the pump pressure P [Pa],
actuator j follows Γ̂_j(P, ·) (106)–(107): Γ with P_M replaced by P and the bleed-limited
segments 1a/1b deleted. P itself balances the pump node (114): the pump relief flow

    Ξ_P(P) = Q − U_b·R(P) − Σ_j Q̂_p,j(P, v_j, f_j)  [m³/s]

is ≥ 0, and 0 unless P = P_M. Q̂_p (113) is the flow the pump feeds actuator j; it does not
decrease as P rises, so Ξ_P decreases (strictly if U_b > 0). Ξ_P(0) = Q ≥ 0: at P = 0 no
actuator takes pump flow. Hence (117)/(126): P = P_M if Ξ_P(P_M) ≥ 0 (the relief is open), else
the root of Ξ_P on [0, P_M].

Sign conventions: v > 0 extends the rod, f > 0 pushes the rod out; SI units. Readings of the
paper's typos: (107m) is A_r·P (not A_r·P_M); (122h) is completed with its missing 𝒰₀ cases and
the strict inequalities of (74f) (``lam_from_interval_scalar``); (123b) is read with the P
argument of Λ̂_j(P, β_j, f̄_j) that it omits.

Root search on P (``_solve_pump_pressure``): a safeguarded secant (Brent's bisection rule),
warm-started in a time loop from ``pump_state`` = [P, dΞ/dP] of the previous step. It stops
when the node balance |Ξ(P)| ≤ FLOW_RTOL·Q = 1e-8·Q (8e-11 m³/s at Q = 500 L/min). Every flow
Q̂_p,j rises with P, so each velocity is then within FLOW_RTOL·Q/A_j of the exact one (≈ 4e-9 m/s
on the paper's cylinder) and P within FLOW_RTOL·Q/|dΞ/dP| (≤ 2 Pa there at u_b = 0.2; where
dΞ/dP is smaller, P hardly changes any flow). It also stops on a bracket narrower than P_XTOL =
1e-3 Pa, and fails after P_MAX_ITER = 100 steps (bisection alone needs log2(P_M/P_XTOL) ≈ 35).
A warm relaxed step costs 2–3 balance evaluations, 1 with the relief open; a cold one 7–9.
``find_root`` is not used: it cannot start from a guess and re-evaluates its bracket's ends.
The balances read each actuator's circuit and openings as tuples (``circuit_at``,
``openings_at``), not row views: in a search that evaluates every Λ̂_j and Q̂_p,j two or three
times per step, the views' atomic reference counts cost three quarters of the step; the kernels
that a time loop calls are inlined (Inlining, docs/architecture.md), the balances included: the
search calls them with their arguments in one tuple (``_lam_balance``, ``_flow_balance``), which
numba can inline where it cannot inline a ``*args`` call. The ``*_range`` kernels work on the
actuators [start, stop) of whole tables, for a machine whose tables hold several pumps.
Ξ_PΛ is taken to be non-increasing, so a point below P_M with Ξ < 0 rules out the relief: the
paper does not prove it, but each Q̂_p,j(P, Λ̂_j(P), ·) is non-decreasing in P (the fed chamber's
force deficit is S(v)/û² with v rising in P, or A·P, or A·P − F_*M) and a numerical check found it so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np

from ...errors import ParameterError, SimulationError
from ...numerics.nonsmooth import r_scalar
from ...numerics.roots import ROOT_MAX_ITER, ROOT_OK
from ...validation import positive
from .circuit import I_AH, I_AR, I_PM, I_Q, J_B, J_PH, J_PR, Openings, ValveCircuit, normalised_openings
from .kernels import (
    MODE_EXTEND,
    MODE_HOLD,
    MODE_RETRACT,
    circuit_at,
    gamma_zero_at_scalar,
    head_minus_scalar,
    head_plus_scalar,
    lam_from_interval_scalar,
    mode_scalar,
    openings_at,
    relaxation_terms_scalar,
    rod_minus_scalar,
    rod_plus_scalar,
)

FLOW_RTOL = 1.0e-8
"""The pump-pressure search stops when the node balance |Ξ(P)| ≤ FLOW_RTOL·Q [m³/s]."""
P_XTOL = 1.0e-3
"""... or when its bracket on P is narrower than P_XTOL [Pa]."""
P_MAX_ITER = 100
"""Iteration cap of the pump-pressure search; a search that hits it returns ROOT_MAX_ITER."""

_PUMP_FIELDS = (
    ("pump_flow", "m^3/s", lambda c: c.pump_flow),
    ("pump_relief_pressure", "Pa", lambda c: c.pump_relief_pressure),
    ("coefficients[4] (bleed valve c_b)", "m^(7/2) kg^(-1/2)", lambda c: c.coefficients[4]),
)


@dataclass(frozen=True)
class PumpNetwork:
    """N actuator circuits on one pump (Sec. 6, Fig. 11); ``circuits`` is a non-empty sequence.

    The circuits must agree on the pump's fields: pump_flow Q, pump_relief_pressure P_M and the
    bleed valve coefficient c_b = coefficients[4]; everything else is per actuator.
    """

    circuits: tuple[ValveCircuit, ...]

    def __post_init__(self) -> None:
        circuits = tuple(self.circuits)
        if not circuits:
            raise ParameterError("PumpNetwork: give at least one ValveCircuit (one per actuator on the pump)")
        for j, circuit in enumerate(circuits):
            if not isinstance(circuit, ValveCircuit):
                raise ParameterError(
                    f"PumpNetwork: circuits[{j}] is a {type(circuit).__name__}; give ValveCircuit objects"
                )
        for j, circuit in enumerate(circuits[1:], start=1):
            for name, unit, get in _PUMP_FIELDS:
                if get(circuit) != get(circuits[0]):
                    raise ParameterError(
                        f"PumpNetwork: actuator {j} has {name} = {get(circuit)!r} {unit} but actuator 0 has "
                        f"{get(circuits[0])!r} {unit}; the actuators share one pump: give every circuit the same {name}"
                    )
        object.__setattr__(self, "circuits", circuits)

    @property
    def size(self) -> int:
        """N, the number of actuators."""
        return len(self.circuits)

    def kernel_array(self) -> np.ndarray:
        """The (N, N_CIRCUIT) float64 array of the circuits' kernel vectors (layout ``I_*``)."""
        return np.stack([circuit.kernel_array() for circuit in self.circuits])


def network_openings(network: PumpNetwork, openings: Sequence[Openings]) -> np.ndarray:
    """û of each actuator, shape (N, 5) (layout ``J_*``), from one scalar ``Openings`` per actuator.

    The bleed valve belongs to the pump, so every actuator's u_b must be the same.
    """
    if isinstance(openings, Openings):
        openings = (openings,)
    openings = tuple(openings)
    if len(openings) != network.size:
        raise ParameterError(
            f"got {len(openings)} Openings for a network of {network.size} actuators: give one Openings per actuator"
        )
    for j, opening in enumerate(openings):
        if not isinstance(opening, Openings):
            raise ParameterError(f"openings[{j}] is a {type(opening).__name__}; give Openings objects")
        if opening.as_array().shape != (5,):
            raise ParameterError(
                f"openings[{j}] has array-valued fields; a network takes scalar openings, one Openings per actuator"
            )
        if opening.u_b != openings[0].u_b:
            raise ParameterError(
                f"openings[{j}].u_b = {float(opening.u_b)!r} but openings[0].u_b = {float(openings[0].u_b)!r}; "
                "the bleed valve belongs to the shared pump: give every actuator the same u_b"
            )
    return np.stack([normalised_openings(c, o) for c, o in zip(network.circuits, openings)])


# ------------------------------------------------------------------------------------------
# compiled kernels: ``cps`` (N, N_CIRCUIT) from PumpNetwork.kernel_array(), ``uhs`` (N, 5) from
# network_openings; the pump fields Q, P_M, U_b are read from actuator 0 (they agree).


@nb.njit(cache=True, inline="always", error_model="numpy")
def gamma_hat_scalar(cp, uh, pump_pressure: float, v: float) -> float:
    """Γ̂(P, v) [N] of one actuator at pump pressure P [Pa], v ≠ 0 (106b–c) (the set Γ̂(P, 0) is
    ``gamma_zero_at_scalar(cp, uh, P)``, (107)).

    v > 0: Γ̂₊ = Γ̂_h+ − Γ_r+ with the head fed at force A_h·P; v < 0: Γ̂₋ = Γ_h− − Γ̂_r− with the
    rod fed at force A_r·P. These chamber projections (61)–(62) equal the segment nesting (106)
    with 2a/2b at P and 1a/1b deleted.
    """
    if v > 0.0:
        return head_plus_scalar(cp, uh, cp[I_AH] * pump_pressure, v) - rod_plus_scalar(cp, uh, v)
    return head_minus_scalar(cp, uh, v) - rod_minus_scalar(cp, uh, cp[I_AR] * pump_pressure, v)


@nb.njit(cache=True, inline="always", error_model="numpy")
def pump_flow_scalar(cp, uh, pump_pressure: float, v: float, f: float) -> float:
    """Q̂_p(P, v, f) [m³/s] (113): the pump's flow into one actuator moving at v [m/s] under force
    f ∈ Γ̂(P, v) [N], at pump pressure P [Pa].

    𝒰₊: A_h·û_ph·R(max(A_h P − F_h, 0)), F_h = f + F_r, F_r = proj_[0,F_rM](S(v)/û_tr²);
    𝒰₋: A_r·û_pr·R(max(A_r P − F_r, 0)), F_r = F_h − f, F_h = proj_[0,F_hM](−S(v)/û_th²); 𝒰₀: 0.
    At v = 0 the rod is held and f does not fix the chamber force ((113)'s S(0)/û² is 0/0 for a
    closed outlet valve): the fed chamber is at min(F_*M, A_* P) or more (55), (107d), (107m),
    so the flow is that limit's, A_h·û_ph·R(max(A_h P − F_hM, 0)) in 𝒰₊ — zero for P ≤ P_hM
    (so Q̂_p(P, 0, Γ̂(P, 0)) = 0) — and f is not used.
    """
    mode = mode_scalar(uh)
    if mode == MODE_EXTEND:
        ah = cp[I_AH]
        fed = ah * pump_pressure
        head = head_plus_scalar(cp, uh, fed, 0.0) if v == 0.0 else f + rod_plus_scalar(cp, uh, v)
        return ah * uh[J_PH] * r_scalar(max(fed - head, 0.0))
    if mode == MODE_RETRACT:
        ar = cp[I_AR]
        fed = ar * pump_pressure
        rod = rod_minus_scalar(cp, uh, fed, 0.0) if v == 0.0 else head_minus_scalar(cp, uh, v) - f
        return ar * uh[J_PR] * r_scalar(max(fed - rod, 0.0))
    return 0.0


@nb.njit(cache=True, error_model="numpy")
def pump_balance_scalar(pump_pressure: float, cps, uhs, v, start: int, stop: int) -> float:
    """Ξ_P(P) [m³/s] (114b) at given velocities v: Q − U_b R(P) − Σ_j Q̂_p,j(P, v_j, Γ̂_j(P, v_j)),
    over the actuators j = ``start`` … ``stop`` − 1 of the tables (the pump's fields from row ``start``).

    Actuators in 𝒰₀ take no pump flow; nor does a held one (v_j = 0) for P ≤ its P_hM, P_rM.
    """
    xi = cps[start, I_Q] - uhs[start, J_B] * r_scalar(pump_pressure)
    for j in range(start, stop):
        cp, uh = circuit_at(cps, j), openings_at(uhs, j)
        if mode_scalar(uh) != MODE_HOLD:
            force = gamma_hat_scalar(cp, uh, pump_pressure, v[j])  # not used at v_j = 0
            xi -= pump_flow_scalar(cp, uh, pump_pressure, v[j], force)
    return xi


@nb.njit(cache=True, inline="always", error_model="numpy")
def lam_hat_scalar(cp, uh, pump_pressure: float, impedance: float, fbar: float) -> float:
    """Λ̂(P, β, f̄) [m/s] (121)–(122): the v with β v + f̄ ∈ Γ̂(P, v), β > 0 [N s/m], f̄ [N].

    (122h) completed with the 𝒰₀ cases and strict inequalities of (74f); roots (122i–l) at P.
    """
    low, high = gamma_zero_at_scalar(cp, uh, pump_pressure)
    return lam_from_interval_scalar(cp, uh, impedance, fbar, low, high, pump_pressure, False)


@nb.njit(cache=True, inline="always", error_model="numpy")
def pump_balance_lam_scalar(pump_pressure: float, cps, uhs, impedance, fbar, v_out, start: int, stop: int) -> float:
    """Ξ_PΛ(P) [m³/s] (123b): Ξ_P with v_j = Λ̂_j(P, β_j, f̄_j) and f_j = f̄_j + β_j v_j over the
    actuators j = ``start`` … ``stop`` − 1 of the tables; writes the v_j [m/s] to ``v_out[j]``.

    (123b) omits the P argument of Λ̂_j; it is read as Λ̂_j(P, β_j, f̄_j).
    """
    xi = cps[start, I_Q] - uhs[start, J_B] * r_scalar(pump_pressure)
    for j in range(start, stop):
        cp, uh = circuit_at(cps, j), openings_at(uhs, j)
        v = lam_hat_scalar(cp, uh, pump_pressure, impedance[j], fbar[j])
        v_out[j] = v
        if mode_scalar(uh) != MODE_HOLD:
            xi -= pump_flow_scalar(cp, uh, pump_pressure, v, fbar[j] + impedance[j] * v)
    return xi


@nb.njit(cache=True, inline="always", error_model="numpy")
def _flow_balance(pump_pressure: float, args) -> float:
    """``pump_balance_scalar`` with its arguments after P in the tuple ``args`` (the form the
    search calls: a tuple, not ``*args``, so that the balance is inlined into the search)."""
    cps, uhs, v, start, stop = args
    return pump_balance_scalar(pump_pressure, cps, uhs, v, start, stop)


@nb.njit(cache=True, inline="always", error_model="numpy")
def _lam_balance(pump_pressure: float, args) -> float:
    """``pump_balance_lam_scalar`` with its arguments after P in the tuple ``args`` (see ``_flow_balance``)."""
    cps, uhs, impedance, fbar, v_out, start, stop = args
    return pump_balance_lam_scalar(pump_pressure, cps, uhs, impedance, fbar, v_out, start, stop)


@nb.njit(cache=True, inline="always", error_model="numpy")
def _solve_pump_pressure(balance, args, q: float, p_max: float, pump_state) -> tuple[float, float, int]:
    """(P, relief flow, status) from the pump-node balance Ξ = ``balance(P, args)``, (117)/(126).

    Ξ does not increase with P and Ξ(0) = Q = ``q`` (no actuator takes pump flow at P = 0): P = P_M
    with relief flow Ξ(P_M) if Ξ(P_M) ≥ 0, else the root of Ξ on [0, P_M], relief flow 0.
    ``pump_state`` = [P, dΞ/dP] of the previous search, updated in place. The first point is its
    P (outside (0, P_M): P_M, the relief check of (117)/(126)); the first step is Newton's with
    its slope (if < 0; else the secant through (0, Q)); then secant steps through the last two
    points. A step that leaves the bracket of the root or is not below half the step before the
    last is replaced by bisection (Brent's rule), or by P_M while no point above the root is
    known. Converged when |Ξ(P)| ≤ FLOW_RTOL·Q or the bracket is narrower than P_XTOL. The
    result is the last point evaluated, so ``balance``'s side outputs belong to it.
    """
    x = pump_state[0] if 0.0 < pump_state[0] < p_max else p_max
    slope = pump_state[1]
    x_old, f_old = 0.0, q
    lo, hi, hi_known = 0.0, p_max, False
    step, step_old = p_max, p_max
    tol = FLOW_RTOL * q
    status = ROOT_MAX_ITER
    relief = 0.0
    for iteration in range(P_MAX_ITER):
        fx = balance(x, args)
        if x == p_max and fx >= 0.0:
            relief, status = fx, ROOT_OK
            break
        if fx > 0.0:
            lo = x
        else:
            hi, hi_known = x, True
        if iteration > 0 or not slope < 0.0:
            slope = (fx - f_old) / (x - x_old) if x != x_old else slope
        if abs(fx) <= tol or (hi_known and hi - lo <= P_XTOL):
            status = ROOT_OK
            break
        x_new = x - fx / slope if slope != 0.0 else math.nan
        if not (lo < x_new < hi) or abs(x_new - x) > 0.5 * abs(step_old):
            x_new = 0.5 * (lo + hi) if hi_known else p_max
        step_old, step = step, x_new - x
        x_old, f_old, x = x, fx, x_new
    if status == ROOT_MAX_ITER:
        x = x_old  # the last point evaluated
    pump_state[0] = x
    pump_state[1] = slope
    return x, relief, status


def new_pump_state(network: PumpNetwork) -> np.ndarray:
    """A fresh ``pump_state`` [P, dΞ/dP] for the kernels: [P_M, 0], so the first search starts
    with the relief check. A time loop creates it once and passes it at every step."""
    return np.array([network.circuits[0].pump_relief_pressure, 0.0])


@nb.njit(cache=True, inline="always", error_model="numpy")
def _state(cps, pump_state):
    """``pump_state``, or a fresh one ([P_M, 0]) if it is None (a cold search)."""
    if pump_state is None:
        return np.array([cps[0, I_PM], 0.0])
    return pump_state


@nb.njit(cache=True, error_model="numpy")
def pump_pressure_kernel(cps, uhs, v, pump_state=None) -> tuple[float, float, int]:
    """(P [Pa], pump relief flow Ξ_P(P) [m³/s], status) at velocities v (N,) [m/s], (117).

    ``pump_state`` [P, dΞ/dP] warm-starts the search and is updated (see ``new_pump_state``).
    """
    state = _state(cps, pump_state)
    return _solve_pump_pressure(_flow_balance, (cps, uhs, v, 0, v.size), cps[0, I_Q], cps[0, I_PM], state)


@nb.njit(cache=True, inline="always", error_model="numpy")
def lam_network_range(cps, uhs, impedance, fbar, v_out, pump_state, start: int, stop: int) -> tuple[float, int]:
    """``lam_network_kernel`` on the actuators j = ``start`` … ``stop`` − 1 of the tables (one pump
    among several in a machine's tables): reads β_j, f̄_j and writes v_j at index j, so a time
    loop passes whole arrays, never row or slice views (Inlining, docs/architecture.md)."""
    args = (cps, uhs, impedance, fbar, v_out, start, stop)
    pressure, _, status = _solve_pump_pressure(_lam_balance, args, cps[start, I_Q], cps[start, I_PM], pump_state)
    return pressure, status


@nb.njit(cache=True, inline="always", error_model="numpy")
def lam_network_kernel(cps, uhs, impedance, fbar, v_out, pump_state=None) -> tuple[float, int]:
    """Λ_mul(β, f̄) (119)–(126): writes v_j = Λ̂_j(P, β_j, f̄_j) [m/s] to ``v_out``; returns (P, status).

    ``pump_state`` [P, dΞ/dP] warm-starts the search and is updated (see ``new_pump_state``).
    """
    return lam_network_range(cps, uhs, impedance, fbar, v_out, _state(cps, pump_state), 0, impedance.size)


@nb.njit(cache=True, inline="always", error_model="numpy")
def relaxed_network_step_range(
    cps,
    uhs,
    stiffness,
    damping,
    h,
    p_prev,
    l_prev,
    l_now,
    p_out,
    f_out,
    v_out,
    impedance,
    fbar,
    pump_state,
    start: int,
    stop: int,
) -> tuple[float, int]:
    """``relaxed_network_step_kernel`` on the actuators j = ``start`` … ``stop`` − 1 of whole
    arrays (index j in every per-actuator array), with the buffers ``impedance``, ``fbar`` and
    ``pump_state`` of the caller: no allocation and no view, for a time loop."""
    for j in range(start, stop):
        impedance[j], fbar[j] = relaxation_terms_scalar(stiffness[j], damping[j], h, p_prev[j], l_prev[j], l_now[j])
    pressure, status = lam_network_range(cps, uhs, impedance, fbar, v_out, pump_state, start, stop)
    for j in range(start, stop):
        p_out[j] = p_prev[j] + h * v_out[j]
        f_out[j] = fbar[j] + impedance[j] * v_out[j]
    return pressure, status


@nb.njit(cache=True, inline="always", error_model="numpy")
def relaxed_network_step_kernel(
    cps, uhs, stiffness, damping, h, p_prev, l_prev, l_now, p_out, f_out, v_out, pump_state=None
) -> tuple[float, int]:
    """One backward-Euler step of N relaxed actuators on one pump (algorithm H, (72) with (126)).

    Per actuator (arrays of length N; K [N/m], B [N s/m], h [s], lengths [m]):
    (β_j, f̄_j) from ``relaxation_terms_scalar``; P from (126);
    v_j = Λ̂_j(P, β_j, f̄_j), p_{j,k} = p_{j,k−1} + h v_j, f_{j,k} = f̄_j + β_j v_j, written to
    ``v_out``, ``p_out``, ``f_out`` (``p_out`` may be ``p_prev``). Returns (P [Pa], status):
    ROOT_OK, or ROOT_MAX_ITER if the P search did not converge in P_MAX_ITER steps (the outputs
    then belong to the last P tried).

    ``pump_state`` = [P, dΞ/dP] carries the P search from step to step: create it once with
    ``new_pump_state`` and pass the same array at every step. It makes a contested step ~3×
    cheaper (about 2 balance evaluations instead of 7–9); omitted, every step starts cold.
    """
    n = p_prev.size
    impedance, fbar, state = np.empty(n), np.empty(n), _state(cps, pump_state)
    return relaxed_network_step_range(
        cps, uhs, stiffness, damping, h, p_prev, l_prev, l_now, p_out, f_out, v_out, impedance, fbar, state, 0, n
    )


# ------------------------------------------------------------------------------------------
# compiled loops over the leading dimensions (each row searches P cold) and the public functions


@nb.njit(cache=True, error_model="numpy")
def _static_loop(cps, uhs, v, pressure, relief, low, high, status):
    for i in range(v.shape[0]):
        pressure[i], relief[i], status[i] = pump_pressure_kernel(cps, uhs, v[i])
        for j in range(v.shape[1]):
            if v[i, j] == 0.0:
                low[i, j], high[i, j] = gamma_zero_at_scalar(cps[j], uhs[j], pressure[i])
            else:
                low[i, j] = gamma_hat_scalar(cps[j], uhs[j], pressure[i], v[i, j])
                high[i, j] = low[i, j]


@nb.njit(cache=True, error_model="numpy")
def _lam_loop(cps, uhs, impedance, fbar, pressure, v, status):
    for i in range(impedance.shape[0]):
        pressure[i], status[i] = lam_network_kernel(cps, uhs, impedance[i], fbar[i], v[i])


@nb.njit(cache=True, error_model="numpy")
def _step_loop(cps, uhs, stiffness, damping, h, p_prev, l_prev, l_now, pressure, p_out, f_out, status):
    v = np.empty(stiffness.size)
    for i in range(p_prev.shape[0]):
        pressure[i], status[i] = relaxed_network_step_kernel(
            cps, uhs, stiffness, damping, h, p_prev[i], l_prev[i], l_now[i], p_out[i], f_out[i], v
        )


def _rows(network: PumpNetwork, **arrays) -> tuple[list[np.ndarray], tuple[int, ...]]:
    """Broadcast the per-actuator inputs to a common shape (..., N); return them as finite
    float64 arrays of shape (M, N) and the leading shape (...)."""
    values = {name: np.asarray(value, dtype=np.float64) for name, value in arrays.items()}
    names = ", ".join(values)
    try:
        shape = np.broadcast_shapes(*(value.shape for value in values.values()))
    except ValueError:
        raise ParameterError(
            f"{names}: shapes {[value.shape for value in values.values()]} do not broadcast together"
        ) from None
    if len(shape) == 0 or shape[-1] != network.size:
        raise ParameterError(
            f"{names}: shape {shape} must end in N = {network.size}, one entry per actuator (shape (..., N))"
        )
    for name, value in values.items():
        if not np.all(np.isfinite(value)):
            raise ParameterError(f"{name}: every entry must be a finite number")
    flat = [np.ascontiguousarray(np.broadcast_to(value, shape).reshape(-1, network.size)) for value in values.values()]
    return flat, shape[:-1]


def _per_actuator(network: PumpNetwork, name: str, value, unit: str) -> np.ndarray:
    """``value`` as a finite float64 array of length N: a scalar (shared) or one value per actuator."""
    value = np.asarray(value, dtype=np.float64)
    if value.shape not in ((), (1,), (network.size,)) or not np.all(np.isfinite(value)):
        raise ParameterError(
            f"{name} = {value!r} {unit}: give one finite number or one per actuator (length {network.size})"
        )
    return np.ascontiguousarray(np.broadcast_to(value, (network.size,)))


def _check(status: np.ndarray, what: str) -> None:
    """Raise SimulationError if a pump-pressure search failed."""
    failed = np.flatnonzero(status != ROOT_OK)
    if failed.size:
        raise SimulationError(
            f"{what}: the pump-pressure search did not converge in {P_MAX_ITER} steps (status "
            f"{int(status[failed[0]])}) at input row {int(failed[0])} of {status.size}; the node balance is "
            "then not continuous and decreasing in P: check the circuit and the inputs"
        )


def _static(network: PumpNetwork, openings: Sequence[Openings], velocities):
    """P, relief flow, low, high at velocities of shape (..., N)."""
    uhs = network_openings(network, openings)
    (v,), lead = _rows(network, velocities=velocities)
    m = v.shape[0]
    pressure, relief, status = np.empty(m), np.empty(m), np.empty(m, dtype=np.int64)
    low, high = np.empty_like(v), np.empty_like(v)
    _static_loop(network.kernel_array(), uhs, v, pressure, relief, low, high, status)
    _check(status, "pump pressure (117)")
    full = lead + (network.size,)
    return pressure.reshape(lead), relief.reshape(lead), low.reshape(full), high.reshape(full)


def pump_pressure(network: PumpNetwork, openings: Sequence[Openings], velocities) -> np.ndarray:
    """Pump pressure P [Pa] (117) at rod velocities ``velocities`` [m/s] of shape (..., N); P ∈ [0, P_M].

    ``openings``: one scalar ``Openings`` per actuator, all with the same u_b.
    """
    return _static(network, openings, velocities)[0]


def pump_relief_flow(network: PumpNetwork, openings: Sequence[Openings], velocities) -> np.ndarray:
    """Flow through the pump relief valve, Ξ_P(P) ≥ 0 [m³/s] (114), at velocities (..., N) [m/s]:
    Ξ_P(P_M) when P = P_M, 0 when P < P_M (Fig. 12 (c), (f))."""
    return _static(network, openings, velocities)[1]


def gamma_network_interval(
    network: PumpNetwork, openings: Sequence[Openings], velocities
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(P [Pa], low [N], high [N]) at velocities (..., N) [m/s]: f_j ∈ [low_j, high_j] = Γ̂_j(P, v_j)
    (118), a single value where v_j ≠ 0 and the interval Γ̂_j(P, 0) (107) where v_j = 0."""
    pressure, _, low, high = _static(network, openings, velocities)
    return pressure, low, high


def gamma_network(network: PumpNetwork, openings: Sequence[Openings], velocities) -> tuple[np.ndarray, np.ndarray]:
    """(P [Pa], forces f [N]) with f ∈ Γ_mul(v) (118), for velocities (..., N) [m/s], all non-zero.

    Raises ``ParameterError`` at v_j = 0, where Γ̂_j is an interval: use ``gamma_network_interval``.
    """
    if np.any(np.asarray(velocities, dtype=np.float64) == 0.0):
        raise ParameterError(
            "gamma_network: every velocity must be non-zero; Γ̂_j(P, 0) is an interval: "
            "use gamma_network_interval(network, openings, velocities) for (P, low, high)"
        )
    pressure, _, low, _ = _static(network, openings, velocities)
    return pressure, low


def lam_network(network: PumpNetwork, openings: Sequence[Openings], impedance, fbar) -> tuple[np.ndarray, np.ndarray]:
    """(P [Pa], v [m/s]) = Λ_mul(β, f̄) (119)–(126): diag(β) v + f̄ ∈ Γ_mul(v).

    ``impedance`` β = B + hK [N s/m] > 0 and ``fbar`` f̄ [N] broadcast to a shape (..., N); P has shape (...).
    """
    uhs = network_openings(network, openings)
    (b, fb), lead = _rows(network, impedance=impedance, fbar=fbar)
    if np.any(~(b > 0.0)):
        raise ParameterError("lam_network: impedance must be > 0 N s/m (β = B + hK of the relaxation step)")
    pressure, status = np.empty(b.shape[0]), np.empty(b.shape[0], dtype=np.int64)
    v = np.empty_like(b)
    _lam_loop(network.kernel_array(), uhs, b, fb, pressure, v, status)
    _check(status, "lam_network (126)")
    return pressure.reshape(lead), v.reshape(lead + (network.size,))


def relaxed_network_step(
    network: PumpNetwork, openings: Sequence[Openings], K, B, h: float, p_prev, l_prev, l_now
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step of algorithm H: (P [Pa], p_k [m], f_k [N]) from p_{k−1}, ℓ_{k−1}, ℓ_k [m], shape (..., N).

    K [N/m] ≥ 0 and B [N s/m] > 0 are the virtual stiffness and damping, scalars or one per
    actuator; h [s] > 0 the step. See ``relaxed_network_step_kernel``.
    """
    uhs = network_openings(network, openings)
    stiffness = _per_actuator(network, "K", K, "N/m")
    damping = _per_actuator(network, "B", B, "N s/m")
    if np.any(stiffness < 0.0) or np.any(damping <= 0.0):
        raise ParameterError("relaxed_network_step: K must be >= 0 N/m and B > 0 N s/m for every actuator")
    h = positive("h", h, "s")
    (pp, lp, ln), lead = _rows(network, p_prev=p_prev, l_prev=l_prev, l_now=l_now)
    m = pp.shape[0]
    pressure, status = np.empty(m), np.empty(m, dtype=np.int64)
    p_out, f_out = np.empty_like(pp), np.empty_like(pp)
    _step_loop(network.kernel_array(), uhs, stiffness, damping, h, pp, lp, ln, pressure, p_out, f_out, status)
    _check(status, "relaxed_network_step (126)")
    full = lead + (network.size,)
    return pressure.reshape(lead), p_out.reshape(full), f_out.reshape(full)

"""The quasistatic force–velocity map f ∈ Γ(v) of the four-valve circuit (Kikuuwe et al. Sec. 3).

Sign conventions: v [m/s] > 0 extends the rod; f [N] > 0 is the force that pushes the rod out
(the external load compressing the rod). Γ is non-increasing in v and set-valued only at
v = 0, where Γ(0) = [Γ₊(0), Γ₋(0)] (65) holds the rod until a relief valve cracks.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...errors import ParameterError
from ...numerics import nonsmooth
from ._broadcast import flatten
from .circuit import Openings, ValveCircuit, normalised_openings
from .kernels import chamber_forces_scalar, gamma_minus_scalar, gamma_plus_scalar, gamma_zero_scalar


@nb.njit(cache=True, error_model="numpy")
def _gamma_loop(cp, uh, v, out):
    for i in range(v.size):
        if v[i] > 0.0:
            out[i] = gamma_plus_scalar(cp, uh[i], v[i])
        else:
            out[i] = gamma_minus_scalar(cp, uh[i], v[i])


@nb.njit(cache=True, error_model="numpy")
def _gamma_zero_loop(cp, uh, low, high):
    for i in range(low.size):
        low[i], high[i] = gamma_zero_scalar(cp, uh[i])


@nb.njit(cache=True, error_model="numpy")
def _chamber_loop(cp, uh, v, f, head, rod):
    for i in range(v.size):
        head[i], rod[i] = chamber_forces_scalar(cp, uh[i], v[i], f[i])


def chamber_pressures(circuit: ValveCircuit, openings: Openings, v, f) -> tuple[np.ndarray, np.ndarray]:
    """Chamber pressures (P_h, P_r) [Pa] of the quasistatic state with velocity v [m/s] and force
    f ∈ Γ(v) [N]; at v = 0 the unloaded chamber is at tank pressure (the model leaves the pair
    open there). Regeneration is not accounted for."""
    cp, uh, (vf, ff), shape = flatten(circuit, openings, v, f)
    head = np.empty(vf.size)
    rod = np.empty(vf.size)
    _chamber_loop(cp, uh, vf, ff, head, rod)
    return (head / circuit.head_area).reshape(shape), (rod / circuit.rod_area).reshape(shape)


def gamma(circuit: ValveCircuit, openings: Openings, v) -> np.ndarray:
    """Γ(v) [N] for v ≠ 0 (64a), vectorised over ``openings`` and ``v`` [m/s].

    Raises ``ParameterError`` at v = 0, where Γ is the interval of ``gamma_interval``.
    """
    v = np.asarray(v, dtype=np.float64)
    if np.any(v == 0.0) or np.any(~np.isfinite(v)):
        raise ParameterError(
            "gamma: v must be finite and non-zero; Γ is set-valued at v = 0: "
            "use gamma_interval(circuit, openings) for [Γ₊(0), Γ₋(0)]"
        )
    cp, uh, (vf,), shape = flatten(circuit, openings, v)
    out = np.empty(vf.size)
    _gamma_loop(cp, uh, vf, out)
    return out.reshape(shape)


def gamma_interval(circuit: ValveCircuit, openings: Openings) -> tuple[np.ndarray, np.ndarray]:
    """(Γ₊(0), Γ₋(0)) [N], the ends of the set Γ(0) (65), shaped like the openings."""
    cp, uh, _, shape = flatten(circuit, openings)
    low = np.empty(uh.shape[0])
    high = np.empty(uh.shape[0])
    _gamma_zero_loop(cp, uh, low, high)
    return low.reshape(shape), high.reshape(shape)


def gamma_segments(circuit: ValveCircuit, openings: Openings, v) -> dict[str, np.ndarray]:
    """The monotone segments of (64f)–(64s) [N] at velocities ``v`` [m/s], keyed by name.

    Γ₊ = max(min(max(+0a, +0b), max(+1a, +1b), max(+2a, +2b)), +3, −F_rM) for v > 0 (64c) and
    Γ₋ = min(max(min(−0a, −0b), min(−1a, −1b), min(−2a, −2b)), −3, F_hM) for v < 0 (64e).
    Table 1 of the paper names the valves open on each segment. A segment of a closed valve
    is ±∞ where its expression diverges, and NaN where the paper's expression is ∞ − ∞ (such a
    segment never decides Γ: the nesting bounds it by another).
    """
    uh = normalised_openings(circuit, openings)
    v = np.asarray(v, dtype=np.float64)
    ph2, tr2, pr2, th2, ub2 = (uh[..., j] ** 2 for j in range(5))
    ah, ar = circuit.head_area, circuit.rod_area
    fhm, frm = circuit.head_relief_force, circuit.rod_relief_force
    pm, q = circuit.pump_relief_pressure, circuit.pump_flow
    S, ldiv = nonsmooth.S, nonsmooth.ldiv
    sv = S(v)
    over = {name: ldiv(sv, a2) for name, a2 in (("ph", ph2), ("tr", tr2), ("pr", pr2), ("th", th2))}
    bleed_plus = -ldiv(ah**3 * S(v - q / ah), ub2)
    bleed_minus = -ldiv(ar**3 * S(v + q / ar), ub2)
    zero = np.zeros(np.broadcast_shapes(v.shape, ph2.shape))
    return {
        "+0a": fhm - over["tr"] + zero,
        "+0b": fhm - frm + zero,
        "+1a": bleed_plus - over["ph"] - over["tr"],
        "+1b": bleed_plus - over["ph"] - frm,
        "+2a": ah * pm - over["ph"] - over["tr"],
        "+2b": ah * pm - over["ph"] - frm,
        "+3": -over["tr"] + zero,
        "-0a": -frm - over["th"],
        "-0b": -frm + fhm + zero,
        "-1a": bleed_minus - over["pr"] - over["th"],
        "-1b": bleed_minus - over["pr"] + fhm,
        "-2a": -ar * pm - over["pr"] - over["th"],
        "-2b": -ar * pm - over["pr"] + fhm,
        "-3": -over["th"] + zero,
    }

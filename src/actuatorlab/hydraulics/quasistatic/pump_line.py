"""Pump-line outputs of the relaxed quasistatic actuator: pump pressure P [Pa], the supply flow
into the cylinder q_p, the bleed flow q_b and the pump relief flow q_PM [m³/s] at a state.

Twin: the C function ``alab_pump_line`` of ``fmu/c/quasistatic.c`` computes the same;
tests/test_fmu_twins.py holds them equal. The quasistatic model gives them from the rod
velocity v, the regeneration flow v_a and the chamber forces (F_h, F_r) (Kikuuwe et al.
(39f–g), (46), (57)):

- extending (û ∈ 𝒰₊, v > 0) with the head fed (F_h > 0): P = min(P_M, −A_h² S(v_h − Q/A_h)/U_b²)
  (57) with the head inflow v_h = v − Â v_a, and q_p = A_h v_h;
- extending with the head at tank pressure (F_h = 0, the suction valve fills the rest): the
  pump flow splits between valve ph and the bleed, Q = (U_b + c_ph u_ph) √P, P ≤ P_M;
- retracting (û ∈ 𝒰₋, v < 0): the same on the rod side with A_r, c_pr u_pr;
- otherwise nothing flows to the cylinder: P = min(P_M, Q²/U_b²) (46).

Then q_b = U_b √P and q_PM = max(Q − q_p − q_b, 0).
"""

from __future__ import annotations

import math

from .circuit import I_AH, I_AR, I_CPH, I_CPR, I_PM, I_Q, J_B, J_PH, J_PR, J_TH, J_TR


def _ldiv(x: float, a: float) -> float:
    if a > 0.0:
        return x / a
    return math.copysign(math.inf, x) if x != 0.0 else 0.0


def _s(x: float) -> float:
    return x * abs(x)


def pump_line(cp, uh, u_c: float, v: float, va: float, fh: float, fr: float) -> tuple[float, float, float, float]:
    """(P, q_p, q_b, q_PM) of the state; ``cp``: ``ValveCircuit.kernel_array()``, ``uh``: the
    normalised openings of command ``u_c``, v and v_a [m/s], F_h and F_r [N]."""
    q = cp[I_Q]
    extend = uh[J_PH] > 0.0 or uh[J_TR] > 0.0
    retract = not extend and (uh[J_PR] > 0.0 or uh[J_TH] > 0.0)
    if extend and v > 0.0:
        vh = v - cp[I_AR] / cp[I_AH] * va
        if fh > 0.0:
            ah = cp[I_AH]
            pump = min(ah * cp[I_PM], -_ldiv(ah * ah * ah * _s(vh - q / ah), uh[J_B] * uh[J_B])) / ah
            supply = ah * vh
        else:
            c_u = cp[I_CPH] * max(u_c, 0.0)
            g = uh[J_B] + c_u
            ratio = q / g if g > 0.0 else math.inf  # g = 0 only for subnormal openings
            pump = min(cp[I_PM], ratio * ratio)
            supply = c_u * math.sqrt(pump)
    elif retract and v < 0.0:
        if fr > 0.0:
            ar = cp[I_AR]
            pump = min(ar * cp[I_PM], _ldiv(ar * ar * ar * _s(v + q / ar), uh[J_B] * uh[J_B])) / ar
            supply = -ar * v
        else:
            c_u = cp[I_CPR] * max(-u_c, 0.0)
            g = uh[J_B] + c_u
            ratio = q / g if g > 0.0 else math.inf
            pump = min(cp[I_PM], ratio * ratio)
            supply = c_u * math.sqrt(pump)
    else:
        pump = min(cp[I_PM], _ldiv(q * q, uh[J_B] * uh[J_B]))
        supply = 0.0
    bleed = uh[J_B] * math.sqrt(max(pump, 0.0))
    return pump, supply, bleed, max(q - supply - bleed, 0.0)

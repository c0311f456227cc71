"""Pressure-dynamics (bulk-modulus) model of the four-valve circuit of Kikuuwe et al., Fig. 1.

The same circuit as :mod:`actuatorlab.hydraulics.quasistatic` (same ``ValveCircuit``: valve
coefficients c_* = C_*·a_*·√(2/ρ), areas, relief pressures, pump flow, regeneration valve) with
three compressible volumes instead of the quasistatic balance (39): the head chamber, the rod
chamber and the pump line. With x [m] the piston position from full retraction and ẋ its rate
(> 0 extends the rod),

    ṗ_h = β/V_h (q_ph − q_th − q_hM + q_hs + q_a − A_h ẋ),   V_h = V_h0 + A_h x,
    ṗ_r = β/V_r (q_pr − q_tr − q_rM + q_rs − q_a + A_r ẋ),   V_r = V_r0 + A_r (s − x),
    Ṗ   = β/V_p (Q − q_b − q_PM + q_Ps − q_ph − q_pr),

and the actuator force f = A_h p_h − A_r p_r (> 0 pushes the rod out). Flows [m³/s]:

- orifices (39h–l) q = c·u·R_ε(Δp), with the square root regularised by a laminar transition
  R_ε(Δp) = Δp/(Δp² + ε²)^{1/4}, ε = ``laminar_pressure``: turbulent (√Δp within ε²/(4Δp²)
  relative) for |Δp| ≫ ε, linear (laminar) with slope ε^{−1/2} near Δp = 0, smooth everywhere;
- the pump check valve (39m) lets the pump line feed the chambers only: q_ph = c_ph u_ph
  max(R_ε(P − p_h), 0), q_pr likewise; the regeneration valve only rod → head:
  q_a = c_a u_a max(R_ε(p_r − p_h), 0);
- relief valves (pump P_M, chambers P_hM, P_rM) open proportionally above cracking,
  q = g_relief·max(p − p_crack, 0), so the pressure overshoots its setting by q/g_relief;
- suction (anti-cavitation) check valves feed each volume from the tank below 0 Pa gauge,
  q = g_check·max(−p, 0): they keep pressures physical, the depth of the dip being q/g_check.

In the limits ε → 0, g → ∞ the steady states of this model are the quasistatic map f ∈ Γ(v).
Tank pressure is 0, pressures are gauge [Pa]. The parameters, ``PressureDynamics``, live in
:mod:`.pressure_dynamics_params` (no numba, so a scenario file validates without the compiler)
and are importable from here too.

Twin: the exported FMU's C ``fmu/c/pressure.c`` (``tests/test_fmu_pressure.py``: equal to 1e-12); change both together.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..numerics.layout import Layout
from .pressure_dynamics_params import PressureDynamics  # re-exported: the model's parameters, numba-free
from .quasistatic.circuit import (
    I_AH,
    I_AR,
    I_CA,
    I_CB,
    I_CPH,
    I_CPR,
    I_CTH,
    I_CTR,
    I_FHM,
    I_FRM,
    I_PM,
    I_Q,
    VALVES,
    Openings,
)

(H_BULK_MODULUS, H_VH0, H_VR0, H_STROKE, H_VP, H_EPS, H_GRELIEF, H_GCHECK, H_L0) = PressureDynamics.LAYOUT.indices
N_PRESSURE = len(PressureDynamics.LAYOUT)
RAW_OPENINGS = Layout("U_", *VALVES, "a")
"""Layout of the raw opening vector u = [u_ph, u_tr, u_pr, u_th, u_b, u_a] handed to the kernels."""
(U_PH, U_TR, U_PR, U_TH, U_B, U_A) = RAW_OPENINGS.indices
N_OPENINGS = len(RAW_OPENINGS)
PARTIALS = Layout("D_", "x", "xdot", "ph", "pr", "p")
"""Columns of the partial-derivative block: state variables x, ẋ, p_h, p_r, P the hydraulic rates depend on."""
(D_X, D_XDOT, D_PH, D_PR, D_P) = PARTIALS.indices


def raw_openings(u_ph, u_tr, u_pr, u_th, u_b, u_a=0.0) -> np.ndarray:
    """Openings stacked as ``(n, 6)`` in the kernel layout ``U_*`` (each in [0, 1])."""
    parts = np.broadcast_arrays(*(np.asarray(u, dtype=np.float64) for u in (u_ph, u_tr, u_pr, u_th, u_b, u_a)))
    out = np.ascontiguousarray(np.stack([p.reshape(-1) for p in parts], axis=-1))
    if np.any(~((out >= 0.0) & (out <= 1.0))):
        raise ParameterError("valve openings must lie in [0, 1]")
    return out


def openings_from_command(u_c, u_b, u_a=0.0) -> np.ndarray:
    """Raw openings ``(n, 6)`` from a valve command u_c ∈ [−1, 1] by (67), bleed u_b and
    regeneration u_a ∈ [0, 1]."""
    o = Openings.from_command(u_c, u_b)
    return raw_openings(o.u_ph, o.u_tr, o.u_pr, o.u_th, o.u_b, u_a)


@nb.njit(cache=True, inline="always")
def orifice_flow(k: float, dp: float, eps: float) -> tuple[float, float]:
    """(k·R_ε(Δp), k·dR_ε/dΔp) with R_ε(x) = x/(x² + ε²)^{1/4}."""
    r2 = dp * dp + eps * eps
    root4 = math.sqrt(math.sqrt(r2))
    return k * dp / root4, k * (0.5 * dp * dp + eps * eps) / (r2 * root4)


@nb.njit(cache=True, inline="always")
def check_valve_flow(k: float, dp: float, eps: float) -> tuple[float, float]:
    """A check valve in series with an orifice: flow only for Δp > 0."""
    if dp <= 0.0 or k == 0.0:
        return 0.0, 0.0
    return orifice_flow(k, dp, eps)


@nb.njit(cache=True, inline="always")
def _relief(gain: float, p: float, crack: float) -> tuple[float, float]:
    """Proportional relief valve: (g·max(p − p_crack, 0), derivative)."""
    if p > crack:
        return gain * (p - crack), gain
    return 0.0, 0.0


@nb.njit(cache=True, inline="always")
def _suction(gain: float, p: float) -> tuple[float, float]:
    """Suction check valve from the tank: (g·max(−p, 0), derivative w.r.t. p)."""
    if p < 0.0:
        return -gain * p, -gain
    return 0.0, 0.0


@nb.njit(cache=True)
def chamber_rates(cp, hp, u, x, xdot, ph, pr, pump, rates, partials) -> tuple[float, float, float, float]:
    """Chamber pressure rates (ṗ_h, ṗ_r) [Pa/s] into ``rates[0:2]`` and their partial derivatives
    with respect to (x, ẋ, p_h, p_r, P) into ``partials[0:2, D_*]``.

    Returns the flow this actuator draws from the pump line, q_ph + q_pr [m³/s], and its partial
    derivatives with respect to p_h, p_r and P, for ``pump_line_rate``.
    ``cp``: ``ValveCircuit.kernel_array()``; ``hp``: ``PressureDynamics.kernel_array()``;
    ``u``: raw openings (layout ``U_*``); x [m] piston position from full retraction, ẋ [m/s].
    """
    bulk_modulus = hp[H_BULK_MODULUS]
    eps = hp[H_EPS]
    g_rel = hp[H_GRELIEF]
    g_chk = hp[H_GCHECK]
    ah = cp[I_AH]
    ar = cp[I_AR]
    vh = hp[H_VH0] + ah * x
    vr = hp[H_VR0] + ar * (hp[H_STROKE] - x)

    q_ph, d_ph = check_valve_flow(cp[I_CPH] * u[U_PH], pump - ph, eps)
    q_pr, d_pr = check_valve_flow(cp[I_CPR] * u[U_PR], pump - pr, eps)
    q_th, d_th = orifice_flow(cp[I_CTH] * u[U_TH], ph, eps)
    q_tr, d_tr = orifice_flow(cp[I_CTR] * u[U_TR], pr, eps)
    q_a, d_a = check_valve_flow(cp[I_CA] * u[U_A], pr - ph, eps)
    q_hm, d_hm = _relief(g_rel, ph, cp[I_FHM] / ah)
    q_rm, d_rm = _relief(g_rel, pr, cp[I_FRM] / ar)
    q_hs, d_hs = _suction(g_chk, ph)
    q_rs, d_rs = _suction(g_chk, pr)

    kh = bulk_modulus / vh
    kr = bulk_modulus / vr
    rates[0] = kh * (q_ph - q_th - q_hm + q_hs + q_a - ah * xdot)
    rates[1] = kr * (q_pr - q_tr - q_rm + q_rs - q_a + ar * xdot)
    partials[0, D_X] = -rates[0] * ah / vh
    partials[0, D_XDOT] = -kh * ah
    partials[0, D_PH] = kh * (-d_ph - d_th - d_hm + d_hs - d_a)
    partials[0, D_PR] = kh * d_a
    partials[0, D_P] = kh * d_ph
    partials[1, D_X] = rates[1] * ar / vr
    partials[1, D_XDOT] = kr * ar
    partials[1, D_PH] = kr * d_a
    partials[1, D_PR] = kr * (-d_pr - d_tr - d_rm + d_rs - d_a)
    partials[1, D_P] = kr * d_pr
    return q_ph + q_pr, -d_ph, -d_pr, d_ph + d_pr


@nb.njit(cache=True, inline="always")
def pump_line_stiffness(hp) -> float:
    """β/V_p [Pa/m³] of the pump line: the pressure rise per unit of net oil volume flowing in."""
    return hp[H_BULK_MODULUS] / hp[H_VP]


@nb.njit(cache=True)
def pump_line_rate(cp, hp, u_b: float, pump: float, draw: float) -> tuple[float, float]:
    """(Ṗ [Pa/s], ∂Ṗ/∂P at fixed draw) of the pump line: pump flow Q in, bleed, relief and
    suction check, and ``draw`` [m³/s] taken by the actuators (from ``chamber_rates``)."""
    eps = hp[H_EPS]
    q_b, d_b = orifice_flow(cp[I_CB] * u_b, pump, eps)
    q_pm, d_pm = _relief(hp[H_GRELIEF], pump, cp[I_PM])
    q_ps, d_ps = _suction(hp[H_GCHECK], pump)
    kp = pump_line_stiffness(hp)
    return kp * (cp[I_Q] - q_b - q_pm + q_ps - draw), kp * (-d_b - d_pm + d_ps)


def idle_pump_pressure(circuit, u_b: float) -> float:
    """Pump-line pressure [Pa] with the main valves closed: the bleed passes Q at
    P = (Q/(c_b u_b))², capped by the relief at P_M."""
    bleed = circuit.coefficients[4] * u_b
    if bleed <= 0.0:
        return circuit.pump_relief_pressure
    return min(circuit.pump_relief_pressure, (circuit.pump_flow / bleed) ** 2)


def holding_pressures(circuit, force: float, low_pressure: float) -> tuple[float, float]:
    """Chamber pressures (p_h, p_r) [Pa] whose force A_h p_h − A_r p_r equals ``force`` [N]
    (> 0 pushes the rod out), the less loaded chamber at ``low_pressure`` [Pa]."""
    if force >= 0.0:
        return (force + circuit.rod_area * low_pressure) / circuit.head_area, low_pressure
    return low_pressure, (circuit.head_area * low_pressure - force) / circuit.rod_area

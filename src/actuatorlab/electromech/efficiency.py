"""Steady-state power flow, losses (12) and efficiency (13) of an EMLA over force and velocity.

For an axial force f_x [N] (> 0 pushes) and velocity v_x [m/s] (> 0 extends), at constant speed:

1. screw: τ_0 = (ρ/2π)(f_x + b_BS v_x + F_0 sign v_x) at screw speed ω_s = 2π v_x/ρ, through the
   screw efficiency (``screw.lossy_torque``); gear stage likewise; motor-side speed ω_m (5);
2. motor: τ_m = τ_gear + T_c sign ω_m + b ω_m; i_d = 0 (the paper's strategy), i_q from (4);
   steady voltages from (3);
3. losses: P_sc, P_mech, P_cu, P_co, P_d, P_sw (``losses``); electrical (DC-side) input
   P_in = f_x v_x + P_EE + P_EM (12), mechanical output P_out = f_x v_x.

Efficiency (13) and its sign convention (a reading taken: (13) is undefined for f_x v_x ≤ 0):

* motoring (P_out > 0): η = P_out / P_in = f_x v_x / (f_x v_x + P_EE + P_EM), as (13);
* regenerating / back-driven (P_out < 0, the load drives the actuator): η = P_in / P_out, the
  share of the absorbed mechanical power returned to the DC bus, clipped at 0 when the losses
  exceed it (the drive still draws power);
* no mechanical output (f_x = 0 or v_x = 0, e.g. holding a load): η = 0.

So 0 ≤ η ≤ 1 everywhere and η is never NaN; infeasible points are NaN only in
:class:`EfficiencyMap` ``efficiency`` (and marked False in its ``feasible`` mask).

Feasibility: |i_dq| ≤ i_max (current), |v_dq| ≤ V_dc/√3 (voltage), |ω_m| ≤ ω_max (motor speed),
|v_x| ≤ screw max speed, |f_x| ≤ max_force.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..numerics.layout import Layout
from .catalog import load_actuators  # noqa: F401  (re-exported for the optimiser)
from .emla import (
    E_B1,
    E_BBS,
    E_ESW,
    E_ETA_G,
    E_ETA_S,
    E_ETAB_G,
    E_ETAB_S,
    E_F0,
    E_FLIM,
    E_FSW,
    E_IMAX,
    E_IREF,
    E_KE,
    E_KH,
    E_LEAD,
    E_N,
    E_P,
    E_RCE,
    E_RF,
    E_RS,
    E_TC,
    E_VCE0,
    E_VDC,
    E_VF0,
    E_VMAX,
    E_VPH,
    E_VREF,
    E_WMAX,
    EMLA,
)
from .losses import conduction_loss, copper_loss, core_loss, switching_loss
from .pmsm import q_current_for_torque, steady_voltages
from .screw import lossy_torque

# operating-point record layout
OPERATING_POINT = Layout(
    "O_",
    "pin",
    "pout",
    "eta",
    "id",
    "iq",
    "vd",
    "vq",
    "wm",
    "tau",
    "psw",
    "pd",
    "pcu",
    "pco",
    "pmech",
    "psc",
    "status",
)
(O_PIN, O_POUT, O_ETA, O_ID, O_IQ, O_VD, O_VQ, O_WM, O_TAU, O_PSW, O_PD, O_PCU, O_PCO, O_PMECH, O_PSC, O_STATUS) = (
    OPERATING_POINT.indices
)
N_OP = len(OPERATING_POINT)
OP_NAMES = (
    "P_in",
    "P_out",
    "eta",
    "i_d",
    "i_q",
    "v_d",
    "v_q",
    "omega_m",
    "tau_m",
    "P_sw",
    "P_d",
    "P_cu",
    "P_co",
    "P_mech",
    "P_sc",
    "status",
)

# status bits (0 = feasible)
LIMIT_CURRENT, LIMIT_VOLTAGE, LIMIT_SPEED, LIMIT_FORCE = 1, 2, 4, 8
LIMIT_NAMES = {LIMIT_CURRENT: "current", LIMIT_VOLTAGE: "voltage", LIMIT_SPEED: "speed", LIMIT_FORCE: "force"}


@nb.njit(cache=True)
def _sign(x):
    return 1.0 if x > 0.0 else (-1.0 if x < 0.0 else 0.0)


@nb.njit(cache=True)
def efficiency_from_powers(p_in, p_out):
    """η [0..1] from DC input and mechanical output power [W] with the module's sign convention."""
    if p_out > 0.0:
        return p_out / p_in if p_in > p_out else 1.0
    if p_out < 0.0:
        return min(max(p_in / p_out, 0.0), 1.0)
    return 0.0


@nb.njit(cache=True)
def operating_point(e, f_x, v_x, out):
    """Fill ``out`` (N_OP,) with the steady operating point at force f_x [N], velocity v_x [m/s]."""
    lead, n = e[E_LEAD], e[E_N]
    # screw (load side → screw shaft)
    w_s = 2.0 * math.pi * v_x / lead
    tau_0 = lead / (2.0 * math.pi) * (f_x + e[E_BBS] * v_x + e[E_F0] * _sign(v_x))
    tau_s = lossy_torque(tau_0, w_s, e[E_ETA_S], e[E_ETAB_S])
    p_sc = tau_s * w_s - f_x * v_x
    # gear stage (screw shaft → motor shaft) and motor friction
    w_m = n * w_s
    tau_g = lossy_torque(tau_s / n, w_m, e[E_ETA_G], e[E_ETAB_G])
    tau_f = e[E_TC] * _sign(w_m) + e[E_B1] * w_m
    tau_m = tau_g + tau_f
    p_mech = (tau_g * w_m - tau_s * w_s) + tau_f * w_m
    # motor, i_d = 0: τ = k_t i_q (4)
    i_d = 0.0
    i_q = q_current_for_torque(e, tau_m, i_d)
    v_d, v_q = steady_voltages(e, i_d, i_q, w_m)
    p_cu = copper_loss(e[E_RS], i_d, i_q)
    p_co = core_loss(e[E_KH], e[E_KE], e[E_P] * w_m)
    p_ac = 1.5 * (v_d * i_d + v_q * i_q) + p_co
    # inverter
    i_pk = math.sqrt(i_d * i_d + i_q * i_q)
    v_pk = math.sqrt(v_d * v_d + v_q * v_q)
    index = 2.0 * v_pk / e[E_VDC]
    cos_phi = p_ac / (1.5 * v_pk * i_pk) if (v_pk > 0.0 and i_pk > 0.0) else 1.0
    p_d = conduction_loss(i_pk, index, cos_phi, e[E_VCE0], e[E_RCE], e[E_VF0], e[E_RF])
    p_sw = switching_loss(i_pk, e[E_VDC], e[E_FSW], e[E_ESW], e[E_VREF], e[E_IREF])
    p_out = f_x * v_x
    p_in = p_ac + p_d + p_sw
    status = 0
    if i_pk > e[E_IMAX] * (1.0 + 1e-12):
        status |= LIMIT_CURRENT
    if v_pk > e[E_VPH] * (1.0 + 1e-12):
        status |= LIMIT_VOLTAGE
    if abs(w_m) > e[E_WMAX] * (1.0 + 1e-12) or abs(v_x) > e[E_VMAX] * (1.0 + 1e-12):
        status |= LIMIT_SPEED
    if abs(f_x) > e[E_FLIM] * (1.0 + 1e-12):
        status |= LIMIT_FORCE
    out[O_PIN] = p_in
    out[O_POUT] = p_out
    out[O_ETA] = efficiency_from_powers(p_in, p_out)
    out[O_ID] = i_d
    out[O_IQ] = i_q
    out[O_VD] = v_d
    out[O_VQ] = v_q
    out[O_WM] = w_m
    out[O_TAU] = tau_m
    out[O_PSW] = p_sw
    out[O_PD] = p_d
    out[O_PCU] = p_cu
    out[O_PCO] = p_co
    out[O_PMECH] = p_mech
    out[O_PSC] = p_sc
    out[O_STATUS] = status


@nb.njit(cache=True)
def operating_points(e, forces, velocities, out):
    """``operating_point`` for each pair of the flat arrays ``forces``, ``velocities`` into
    ``out`` (n, N_OP)."""
    for k in range(forces.size):
        operating_point(e, forces[k], velocities[k], out[k])


@nb.njit(cache=True)
def efficiencies(e, forces, velocities, out):
    """η only, for flat arrays (the optimiser's fast path); ``out`` (n,)."""
    rec = np.empty(N_OP)
    for k in range(forces.size):
        operating_point(e, forces[k], velocities[k], rec)
        out[k] = rec[O_ETA]


@nb.njit(cache=True)
def _grid(e, forces, velocities, eta, feasible, p_in, p_out):
    rec = np.empty(N_OP)
    for i in range(forces.size):
        for j in range(velocities.size):
            operating_point(e, forces[i], velocities[j], rec)
            ok = rec[O_STATUS] == 0
            feasible[i, j] = ok
            eta[i, j] = rec[O_ETA] if ok else np.nan
            p_in[i, j] = rec[O_PIN]
            p_out[i, j] = rec[O_POUT]


# ---------------------------------------------------------------------------------------------
# public API (stable signatures: the trajectory optimiser is written against them)
# ---------------------------------------------------------------------------------------------
def _pair(force, velocity) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    f = np.asarray(force, dtype=np.float64)
    v = np.asarray(velocity, dtype=np.float64)
    try:
        f, v = np.broadcast_arrays(f, v)
    except ValueError:
        raise ParameterError(f"force {f.shape} and velocity {v.shape} must have broadcastable shapes") from None
    if not (np.all(np.isfinite(f)) and np.all(np.isfinite(v))):
        raise ParameterError("force [N] and velocity [m/s] must be finite numbers (found NaN or inf)")
    return np.ascontiguousarray(f).ravel(), np.ascontiguousarray(v).ravel(), f.shape


def _check_limits(actuator: EMLA, f: np.ndarray, v: np.ndarray) -> None:
    if f.size and np.max(np.abs(f)) > actuator.max_force * (1.0 + 1e-9):
        k = int(np.argmax(np.abs(f)))
        raise ParameterError(
            f"{actuator.name}: force {f[k]:.6g} N exceeds max_force = {actuator.max_force:.6g} N "
            "(screw rating / peak motor torque); scale the load or choose a stronger actuator"
        )
    if v.size and np.max(np.abs(v)) > actuator.max_velocity * (1.0 + 1e-9):
        k = int(np.argmax(np.abs(v)))
        raise ParameterError(
            f"{actuator.name}: velocity {v[k]:.6g} m/s exceeds max_velocity = "
            f"{actuator.max_velocity:.6g} m/s (motor max speed / screw max speed); slow the motion"
        )


def actuator_efficiency(actuator: EMLA, force, velocity, *, check: bool = True) -> np.ndarray:
    """η_EMLA(f_x, v_x) ∈ [0, 1] of (13) with the module's sign convention, shape of the
    broadcast inputs. force [N], velocity [m/s]. With ``check`` (default) a |force| above
    ``max_force`` or |velocity| above ``max_velocity`` raises ``ParameterError``; points inside
    those bounds but beyond the voltage (torque–speed) limit are still evaluated (the model
    extrapolates; see :func:`efficiency_map`'s mask or :func:`feasibility`)."""
    f, v, shape = _pair(force, velocity)
    if check:
        _check_limits(actuator, f, v)
    out = np.empty(f.size)
    efficiencies(actuator.packed(), f, v, out)
    return out.reshape(shape)


def actuator_power(actuator: EMLA, force, velocity, *, check: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(electrical_input_power, mechanical_output_power) [W], each of the broadcast shape:
    DC-bus power P_in = f_x v_x + P_EE + P_EM (negative when regenerating) and P_out = f_x v_x.
    Limits checked as in :func:`actuator_efficiency`."""
    rec = operating_point_records(actuator, force, velocity, check=check)
    return rec[..., O_PIN], rec[..., O_POUT]


def operating_point_records(actuator: EMLA, force, velocity, *, check: bool = True) -> np.ndarray:
    """Every quantity of the steady operating point, shape (..., N_OP), columns ``OP_NAMES``:
    powers and losses [W], η, currents [A], voltages [V], ω_m [rad/s], τ_m [N m], status bits."""
    f, v, shape = _pair(force, velocity)
    if check:
        _check_limits(actuator, f, v)
    out = np.empty((f.size, N_OP))
    operating_points(actuator.packed(), f, v, out)
    return out.reshape(shape + (N_OP,))


def feasibility(actuator: EMLA, force, velocity) -> np.ndarray:
    """Status bits (int, broadcast shape): 0 feasible, else OR of LIMIT_CURRENT (1),
    LIMIT_VOLTAGE (2), LIMIT_SPEED (4), LIMIT_FORCE (8). Never raises for limits."""
    rec = operating_point_records(actuator, force, velocity, check=False)
    return rec[..., O_STATUS].astype(np.int64)


@dataclass(frozen=True)
class EfficiencyMap:
    """η over a force × velocity grid. forces (n_f,) [N], velocities (n_v,) [m/s]; efficiency
    (n_f, n_v) [0..1], NaN where infeasible; feasible (n_f, n_v) bool (current, voltage, speed and
    force limits); electrical_power, mechanical_power (n_f, n_v) [W] (model values everywhere)."""

    forces: np.ndarray
    velocities: np.ndarray
    efficiency: np.ndarray
    feasible: np.ndarray
    electrical_power: np.ndarray
    mechanical_power: np.ndarray
    name: str = ""


def efficiency_map(actuator: EMLA, forces, velocities) -> EfficiencyMap:
    """Evaluate η on the grid ``forces`` (n_f,) [N] × ``velocities`` (n_v,) [m/s] (compiled)."""
    f = np.ascontiguousarray(forces, dtype=np.float64)
    v = np.ascontiguousarray(velocities, dtype=np.float64)
    if f.ndim != 1 or v.ndim != 1 or f.size == 0 or v.size == 0:
        raise ParameterError(f"forces and velocities must be non-empty 1-D arrays; got shapes {f.shape}, {v.shape}")
    if not (np.all(np.isfinite(f)) and np.all(np.isfinite(v))):
        raise ParameterError("forces [N] and velocities [m/s] must be finite")
    shape = (f.size, v.size)
    eta, p_in, p_out = np.empty(shape), np.empty(shape), np.empty(shape)
    feasible = np.empty(shape, dtype=np.bool_)
    _grid(actuator.packed(), f, v, eta, feasible, p_in, p_out)
    return EfficiencyMap(f, v, eta, feasible, p_in, p_out, actuator.name)


def actuation_efficiency(efficiency, force, velocity) -> np.ndarray:
    """η_Act of (68) over the last axis (actuators): Σ f v / Σ (f v / η), the power-weighted
    harmonic mean. Only motoring actuators (f v > 0, η > 0) enter; 0 when none is motoring."""
    eta = np.asarray(efficiency, float)
    p = np.asarray(force, float) * np.asarray(velocity, float)
    mot = (p > 0.0) & (eta > 0.0)
    num = np.where(mot, p, 0.0).sum(axis=-1)
    den = np.where(mot, p / np.where(mot, eta, 1.0), 0.0).sum(axis=-1)
    return np.where(den > 0.0, num / np.where(den > 0.0, den, 1.0), 0.0)

"""Closed-loop simulation of n_a EMLAs under RDSC tracking position/velocity references while
their loads push back with given forces plus time- and state-varying disturbances (Bahari et al.
Sec. VII-C, Figs. 20–23).

Plant: the compliant nonlinear EMLA model of ``electromech.emla`` per actuator (state θ_m, ω_m,
i_q, i_d, x_L, v_L), load force on the rod f_L = f_ref + d (positive opposes extension, so in
steady state the actuator force f_x equals f_L). Disturbance (per actuator a, as fractions of
its ``max_force`` F_max; the paper gives no model):

.. math::
    d = F_{max}\\,[c_0 + c_1 \\sin(2π f_d t + 2π a/3) + c_2 \\tanh(v_L/v_s) + c_3 x_L/s]

(a bias, a time-varying term, a velocity-dependent friction-like term and a position-dependent
spring-like term; s the stroke).

Integration (fixed step h, the controller evaluated at every step, i.e. a 1/h-rate
continuous-time law): the paper's gains make the current loops very stiff (δ/2 = 37 500 V/A
against L ≈ 5 mH: closed-loop poles near −7·10⁶ 1/s), so each step integrates the stator
currents **linearly implicitly** (backward Euler in their own current, with the controller's
voltage −½(δ+εφ̂)(i − i_ref) evaluated at the end of the step; a voltage outside the circle
|v_dq| ≤ V_dc/√3 is scaled onto it keeping its direction — the admissible voltage that brings the
currents closest to their references in the step — and the step redone with that fixed voltage),
then the mechanics by semi-implicit (symplectic) Euler through ``emla_rhs``, and the adaptation
(71) exactly for a constant error. The controller measures the motor-side linear position and
velocity (``control.rdsc``).

Current limit: i_q,ref is clipped to ±max_current; the current itself stays within a few mA of
the clipped reference as long as the voltage suffices (½δ_3 = 37 500 V/A). Only while the voltage
is saturated can |i_q| pass max_current, and that is real: when p ω_m (Ψ + L i) approaches
V_dc/√3 (a speed overshoot of a saturated loop) no admissible voltage holds the current, and the
back-EMF drives it (3–10 % over the limit in the paper-gain limit cycle on the optimal motion).
An earlier d-axis-priority clip gave the whole voltage to the stiff i_d loop, left v_q = 0 and let
i_q run to 2× the limit; that was a bug of the clip, not physics.

References: positions by cubic Hermite interpolation of (x_k, v_k) (C¹, through the samples);
velocities by linear interpolation of v_k; forces linearly. The velocity reference deliberately
is *not* the Hermite derivative: when the samples are not consistent (x_{k+1} − x_k ≠ ∫v, e.g.
positions and velocities resampled separately by linear interpolation, as a dense resampling of
the optimiser's 41 samples does) that derivative ripples at the sample rate with 1.5× the
mismatch (0.12 m/s for the extension on the optimal motion), which the velocity loop turned
into ≈ ±30 N m of torque demand (½δ_2 = 250 N m s/m) and a current/voltage clip on a third of the
samples. For consistent samples both agree to O(Δt² d³x/dt³). ``counters["reference_mismatch"]`` reports the largest
mismatch |Δx/Δt − (v_k + v_{k+1})/2| [m/s]. With the paper's gains the references must be
consistent to ~10 nm and feasible; a saturation leaves the loop in a limit cycle (see
``control.rdsc``); ``current_limited`` / ``voltage_limited`` say when a clip happened.

Status: the compiled loop returns −1, or the sample at which the state stopped being finite; the
driver raises :class:`~actuatorlab.errors.SimulationError` naming the time and a remedy.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numba as nb
import numpy as np

from ..control.rdsc import RDSCGains, adaptation_step, feedback_gain, outer_loops
from ..electromech.emla import (
    E_B1,
    E_BBS,
    E_FEQ,
    E_IMAX,
    E_KS,
    E_LD,
    E_LQ,
    E_RS,
    E_VPH,
    EMLA,
    N_STATE,
    X_ID,
    X_IQ,
    X_TH,
    X_VL,
    X_W,
    X_XL,
    emla_rhs,
    transmitted_force,
)
from ..electromech.pmsm import current_rates, q_current_for_torque, steady_voltages
from ..errors import ParameterError, SimulationError
from ..numerics.layout import Layout
from ..validation import check_quantities, finite, non_negative, quantity

DISTURBANCE = Layout("D_", "bias", "amp", "freq", "fric", "vs", "spring")
(D_BIAS, D_AMP, D_FREQ, D_FRIC, D_VS, D_SPRING) = DISTURBANCE.indices
N_DIST = len(DISTURBANCE)


FRACTION = "(fraction of max_force)"
"""Unit of a disturbance coefficient: a fraction of the actuator's max_force."""


@dataclass(frozen=True)
class Disturbance:
    """Load disturbance d of the module docstring, as fractions of each actuator's max_force:
    bias c_0, amplitude c_1 of the sinusoid at frequency [Hz], friction c_2 with velocity scale
    v_s [m/s], position-spring c_3. Default: 2 % bias, 5 % at 1.5 Hz, 3 % friction, 2 % spring."""

    bias: float = quantity(0.02, FRACTION, finite)
    amplitude: float = quantity(0.05, FRACTION, non_negative)
    frequency: float = quantity(1.5, "Hz", non_negative)
    friction: float = quantity(0.03, FRACTION, non_negative)
    velocity_scale: float = quantity(0.01, "m/s")
    spring: float = quantity(0.02, FRACTION, finite)

    def __post_init__(self) -> None:
        check_quantities(self, "Disturbance.")

    @classmethod
    def none(cls) -> Disturbance:
        """No disturbance."""
        return cls(0.0, 0.0, 0.0, 0.0, 1.0, 0.0)

    def packed(self, max_force: float, stroke: float) -> np.ndarray:
        """The disturbance in SI for one actuator: fractions of ``max_force`` [N] turned into
        forces, the spring per ``stroke`` [m] into N/m."""
        return DISTURBANCE.pack(
            bias=self.bias * max_force,
            amp=self.amplitude * max_force,
            freq=self.frequency,
            fric=self.friction * max_force,
            vs=self.velocity_scale,
            spring=self.spring * max_force / stroke,
        )


@nb.njit(cache=True)
def disturbance_force(d, a, t, x_l, v_l):
    """d(t, x_L, v_L) [N] of actuator a (packed ``Disturbance`` scaled to newtons)."""
    return (
        d[D_BIAS]
        + d[D_AMP] * math.sin(2.0 * math.pi * d[D_FREQ] * t + 2.0 * math.pi * a / 3.0)
        + d[D_FRIC] * math.tanh(v_l / d[D_VS])
        + d[D_SPRING] * x_l
    )


@nb.njit(cache=True)
def _hermite(x0, x1, v0, v1, lam, dt):
    """Cubic Hermite position and its exact derivative at fraction lam of an interval dt [s]
    (C¹ position reference through the samples: with δ_1 = 75 000 1/s a linear-interpolation
    mismatch of 1 µm would already command 0.04 m/s). The simulation uses the position only;
    its velocity reference is the linear interpolation of the velocity samples."""
    l2 = lam * lam
    l3 = l2 * lam
    h00 = 2.0 * l3 - 3.0 * l2 + 1.0
    h10 = l3 - 2.0 * l2 + lam
    h01 = -2.0 * l3 + 3.0 * l2
    h11 = l3 - l2
    x = h00 * x0 + h10 * dt * v0 + h01 * x1 + h11 * dt * v1
    dx = (
        (6.0 * l2 - 6.0 * lam) * x0
        + (3.0 * l2 - 4.0 * lam + 1.0) * dt * v0
        + (-6.0 * l2 + 6.0 * lam) * x1
        + (3.0 * l2 - 2.0 * lam) * dt * v1
    ) / dt
    return x, dx


@nb.njit(cache=True)
def _implicit_currents(e, i_d, i_q, w, g_d, g_q, id_ref, iq_ref, h):
    """Backward-Euler currents with v = −g (i⁺ − i_ref), then the clipped-voltage redo.
    Returns (i_d⁺, i_q⁺, v_d, v_q, clipped)."""
    rd0, rq0 = current_rates(e, i_d, i_q, w, 0.0, 0.0)  # (3) with zero voltage
    ad = h * e[E_RS] / e[E_LD]
    aq = h * e[E_RS] / e[E_LQ]
    # i⁺ (1 + hR/L + hg/L) = i (1 + hR/L) + h r0 + h g i_ref/L   (r0 holds −R i/L and the coupling)
    id1 = (i_d * (1.0 + ad) + h * rd0 + h * g_d * id_ref / e[E_LD]) / (1.0 + ad + h * g_d / e[E_LD])
    iq1 = (i_q * (1.0 + aq) + h * rq0 + h * g_q * iq_ref / e[E_LQ]) / (1.0 + aq + h * g_q / e[E_LQ])
    vd = -g_d * (id1 - id_ref)
    vq = -g_q * (iq1 - iq_ref)
    vmag = math.sqrt(vd * vd + vq * vq)
    if vmag <= e[E_VPH]:
        return id1, iq1, vd, vq, False
    # vector limitation: the voltage is scaled onto the circle |v_dq| = V_max keeping its direction.
    # Over one step i⁺ = c + b v (b = h/(L(1 + hR/L)) per axis) and the unclipped command points
    # along (i_ref − c), so for L_d = L_q this is the voltage inside the circle that brings the
    # current closest to its reference (an approximation when L_d ≠ L_q). A d-axis-priority clip
    # is wrong here: with ½δ_4 = 37 500 V/A a 9 mA i_d error claims the whole voltage, leaves
    # v_q = 0 and lets the back-EMF drive i_q far past max_current (2.2× with the paper's gains).
    scale = e[E_VPH] / vmag
    vd *= scale
    vq *= scale
    # fixed voltage: implicit only in the resistance, i⁺ (1 + hR/L) = i (1 + hR/L) + h (r0 + v/L)
    id1 = i_d + h * (rd0 + vd / e[E_LD]) / (1.0 + ad)
    iq1 = i_q + h * (rq0 + vq / e[E_LQ]) / (1.0 + aq)
    return id1, iq1, vd, vq, True


@nb.njit(cache=True)
def _simulate(
    E,
    G,
    D,
    t_ref,
    xr,
    vr,
    fr,
    h,
    sub,
    X,
    PHI,
    out_x,
    out_xl,
    out_v,
    out_f,
    out_id,
    out_iq,
    out_vd,
    out_vq,
    out_tau,
    out_phi,
    out_ilim,
    out_vlim,
):
    """Run the closed loop; X (n_a, 6) and PHI (n_a, 4) are updated in place. Returns the index of
    the first non-finite step (or −1)."""
    n, na = xr.shape
    dx = np.empty(N_STATE)
    u = np.empty(2)
    for k in range(n):
        # record sample k (state at t_ref[k])
        for a in range(na):
            e = E[a]
            x = X[a]
            out_x[k, a] = e[E_FEQ] * x[X_TH]
            out_xl[k, a] = x[X_XL]
            out_v[k, a] = e[E_FEQ] * x[X_W]
            out_f[k, a] = transmitted_force(e, x)
            out_id[k, a] = x[X_ID]
            out_iq[k, a] = x[X_IQ]
            for j in range(4):
                out_phi[k, a, j] = PHI[a, j]
        if k == n - 1:
            break
        dt = (t_ref[k + 1] - t_ref[k]) / sub
        for s in range(sub):
            t = t_ref[k] + s * dt
            lam = s / sub
            for a in range(na):
                e = E[a]
                x = X[a]
                phi = PHI[a]
                x_ref, _dx_ref = _hermite(xr[k, a], xr[k + 1, a], vr[k, a], vr[k + 1, a], lam, sub * dt)
                # the velocity reference is the velocity samples' own (linear) interpolation, not the
                # Hermite derivative: the latter ripples at the sample rate with 1.5× any mismatch
                # (x_{k+1} − x_k)/Δt − (v_k + v_{k+1})/2 of the samples, and the velocity loop turns
                # that ripple into torque (see ``simulate_tracking``)
                v_ref = (1.0 - lam) * vr[k, a] + lam * vr[k + 1, a]
                f_ref = (1.0 - lam) * fr[k, a] + lam * fr[k + 1, a]
                # ν = 1, 2 (69)–(70) on the motor-side linear position and velocity
                q1, _k1, q2, tau_cmd = outer_loops(G, phi, e[E_FEQ] * x[X_TH], e[E_FEQ] * x[X_W], x_ref, v_ref)
                iq_ref = q_current_for_torque(e, tau_cmd, 0.0)
                ilim = False
                if abs(iq_ref) > e[E_IMAX]:
                    iq_ref = math.copysign(e[E_IMAX], iq_ref)
                    ilim = True
                q3 = x[X_IQ] - iq_ref
                q4 = x[X_ID]
                # ν = 3, 4: stator currents, linearly implicit
                id1, iq1, vd, vq, vlim = _implicit_currents(
                    e,
                    x[X_ID],
                    x[X_IQ],
                    x[X_W],
                    feedback_gain(G, 3, phi[3]),
                    feedback_gain(G, 2, phi[2]),
                    0.0,
                    iq_ref,
                    dt,
                )
                x[X_ID] = id1
                x[X_IQ] = iq1
                # mechanics: symplectic Euler on the nonlinear model's rates
                u[0] = vq
                u[1] = vd
                f_load = f_ref + disturbance_force(D[a], a, t, x[X_XL], x[X_VL])
                emla_rhs(e, x, u, f_load, dx)
                x[X_W] += dt * dx[X_W]
                x[X_TH] += dt * x[X_W]
                x[X_VL] += dt * dx[X_VL]
                x[X_XL] += dt * x[X_VL]
                # adaptation (71), exact for the step's errors
                phi[0] = adaptation_step(G, 0, phi[0], q1, dt)
                phi[1] = adaptation_step(G, 1, phi[1], q2, dt)
                phi[2] = adaptation_step(G, 2, phi[2], q3, dt)
                phi[3] = adaptation_step(G, 3, phi[3], q4, dt)
                if s == 0:
                    out_vd[k, a] = vd
                    out_vq[k, a] = vq
                    out_tau[k, a] = tau_cmd
                out_ilim[k, a] = out_ilim[k, a] or ilim
                out_vlim[k, a] = out_vlim[k, a] or vlim
                if not (math.isfinite(x[X_W]) and math.isfinite(x[X_IQ]) and math.isfinite(x[X_VL])):
                    return k
    # last sample's voltages: the command that would follow
    for a in range(na):
        out_vd[n - 1, a] = out_vd[n - 2, a] if n > 1 else 0.0
        out_vq[n - 1, a] = out_vq[n - 2, a] if n > 1 else 0.0
        out_tau[n - 1, a] = out_tau[n - 2, a] if n > 1 else 0.0
    return -1


@dataclass
class EMLATrackingResult:
    """Closed-loop run, one row per reference sample, one column per actuator.

    t (n,) [s]; positions (n, n_a) [m] measured motor-side linear positions (what RDSC tracks);
    load_positions (n, n_a) [m] of the rod after the drive-train compliance; velocities [m/s];
    forces (n, n_a) [N] transmitted actuator force f_x; position_references, velocity_references,
    force_references (n, n_a); errors = positions − position_references [m]; velocity_errors
    [m/s]; force_errors = forces − force_references [N] (includes the disturbance the load adds);
    i_d, i_q (n, n_a) [A]; v_d, v_q (n, n_a) [V] (applied, at the first step of each sample
    interval); torque_commands κ_2 [N m]; phi (n, n_a, 4) adaptive parameters; current_limited,
    voltage_limited (n, n_a) bool (a clip happened within the interval); limits: per actuator
    name, {"max_current" A, "max_phase_voltage" V, "max_force" N, "max_velocity" m/s,
    "stroke" m}; counters: steps, step_size [s], wall_time [s], real_time_factor (simulated /
    wall time), reference_mismatch [m/s] (largest |Δx/Δt − mean v| of the reference samples)."""

    t: np.ndarray
    names: tuple[str, ...]
    positions: np.ndarray
    load_positions: np.ndarray
    velocities: np.ndarray
    forces: np.ndarray
    position_references: np.ndarray
    velocity_references: np.ndarray
    force_references: np.ndarray
    i_d: np.ndarray
    i_q: np.ndarray
    v_d: np.ndarray
    v_q: np.ndarray
    torque_commands: np.ndarray
    phi: np.ndarray
    current_limited: np.ndarray
    voltage_limited: np.ndarray
    limits: dict[str, dict[str, float]]
    counters: dict[str, float] = field(default_factory=dict)

    @property
    def errors(self) -> np.ndarray:
        """positions − position_references [m], (n, n_a)."""
        return self.positions - self.position_references

    @property
    def velocity_errors(self) -> np.ndarray:
        """velocities − velocity_references [m/s], (n, n_a)."""
        return self.velocities - self.velocity_references

    @property
    def force_errors(self) -> np.ndarray:
        """forces − force_references [N], (n, n_a)."""
        return self.forces - self.force_references

    def to_dataframe(self):
        """One row per sample: ``t`` then ``<channel>_<actuator>`` columns (SI units)."""
        import pandas as pd

        data = {"t": self.t}
        for j, name in enumerate(self.names):
            for ch in (
                "positions",
                "load_positions",
                "velocities",
                "forces",
                "position_references",
                "velocity_references",
                "force_references",
                "i_d",
                "i_q",
                "v_d",
                "v_q",
                "torque_commands",
            ):
                data[f"{ch}_{name}"] = getattr(self, ch)[:, j]
        return pd.DataFrame(data)


def _equilibrium_start(E, G, D, PHI, t0, x0, v0, f0) -> np.ndarray:
    """State (n_a, 6) where RDSC's commands hold the first sample's load at its velocity (rigid
    steady state of the dynamic model: τ = f_eq f_L + b_1 ω, currents at their loop equilibria)."""
    na = E.shape[0]
    X = np.zeros((na, N_STATE))
    for j in range(na):
        e = E[j]
        w = v0[j] / e[E_FEQ]
        f_load = f0[j] + disturbance_force(D[j], j, t0, x0[j], v0[j])
        f_x = f_load + e[E_BBS] * v0[j]  # load side at constant v_L: f_x = f_L + b_BS v_L
        tau = e[E_FEQ] * f_x + e[E_B1] * w
        g1, g2, g3, g4 = (feedback_gain(G, i, PHI[j, i]) for i in range(4))
        # the currents that give τ, and the voltages that hold them; the P current loops hold them
        # with the errors i − i_ref = −v/g, so the command i_q,ref (and κ_2) is larger by v_q/g_3
        # (negligible for ½δ_3 = 37 500 V/A, not for slower current loops). i_d barely changes τ
        # (L_d = L_q here), so a few fixed-point passes suffice.
        i_d = 0.0
        i_q = q_current_for_torque(e, tau, i_d)
        for _ in range(3):
            vd, vq = steady_voltages(e, i_d, i_q, w)
            i_d = -vd / g4
            i_q = q_current_for_torque(e, tau, i_d)
        vd, vq = steady_voltages(e, i_d, i_q, w)
        iq_ref = i_q + vq / g3
        tau_cmd = iq_ref / q_current_for_torque(e, 1.0, 0.0)  # the loop maps κ_2 to i_q,ref at i_d = 0
        q2 = -tau_cmd / g2
        q1 = q2 / g1  # v = v_ref: Q_2 = −κ_1 = g_1 Q_1
        X[j, X_TH] = (x0[j] + q1) / e[E_FEQ]
        X[j, X_W] = w
        X[j, X_IQ] = i_q
        X[j, X_ID] = i_d
        X[j, X_XL] = e[E_FEQ] * X[j, X_TH] - f_x / e[E_KS]
        X[j, X_VL] = v0[j]
    return X


def _as_matrix(name: str, value, n: int, na: int) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim == 1 and na == 1:
        arr = arr[:, None]
    if arr.shape != (n, na):
        raise ParameterError(f"{name} must have shape (n, n_a) = ({n}, {na}), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(f"{name} contains NaN or inf")
    return np.ascontiguousarray(arr)


def simulate_tracking(
    actuators,
    t,
    positions,
    velocities,
    forces,
    *,
    gains: RDSCGains | None = None,
    disturbance: Disturbance | None = None,
    step: float = 1e-5,
    initial_phi: float = 0.0,
) -> EMLATrackingResult:
    """Simulate RDSC tracking for the EMLAs ``actuators`` (a sequence or a name → EMLA dict).

    t (n,) [s], strictly increasing; positions (n, n_a) [m] (stroke coordinate, 0 = retracted, must
    stay in [0, stroke]), velocities (n, n_a) [m/s] (|v| ≤ max_velocity), forces (n, n_a) [N] the
    loads' forces the actuators must supply (|f| ≤ max_force); position and velocity references are
    interpolated by cubic Hermite (positions) and linearly (velocities, forces; see the module
    docstring for why the velocity is not the Hermite derivative). ``step`` [s] is the largest
    integration step (every sample interval is split into the same number of equal steps; t may be
    non-uniform). The run starts in the closed loop's equilibrium for the first sample
    (``_equilibrium_start``): RDSC has no torque feed-forward, so holding a load needs the errors
    Q_2 = −τ/(½δ_2), Q_1 = Q_2/(½δ_1) (τ = f_eq (f_L + b_BS v) + b_1 ω; 0.45 mm for the lift's 34 kN
    with the scenario's δ_1 = 60, δ_2 = 4000); starting on the reference instead would drop the
    torque command to zero at t = 0.
    """
    acts = list(actuators.values()) if isinstance(actuators, dict) else list(actuators)
    if not acts or not all(isinstance(a, EMLA) for a in acts):
        raise ParameterError("actuators must be a non-empty sequence (or dict) of EMLA")
    for a in acts:
        if a.rigid:
            raise ParameterError(f"{a.name}: the tracking simulation needs a finite drive-train stiffness")
    na = len(acts)
    t = np.ascontiguousarray(t, dtype=np.float64)
    if t.ndim != 1 or t.size < 2 or not np.all(np.diff(t) > 0.0):
        raise ParameterError("t must be a strictly increasing 1-D array with at least 2 samples [s]")
    n = t.size
    xr = _as_matrix("positions", positions, n, na)
    vr = _as_matrix("velocities", velocities, n, na)
    fr = _as_matrix("forces", forces, n, na)
    for j, a in enumerate(acts):
        if np.any(xr[:, j] < -1e-12) or np.any(xr[:, j] > a.stroke + 1e-12):
            raise ParameterError(
                f"{a.name}: position reference leaves the stroke [0, {a.stroke:g}] m "
                f"(range {xr[:, j].min():.4g}..{xr[:, j].max():.4g} m)"
            )
        if np.max(np.abs(vr[:, j])) > a.max_velocity:
            raise ParameterError(
                f"{a.name}: velocity reference {np.max(np.abs(vr[:, j])):.4g} m/s exceeds "
                f"max_velocity = {a.max_velocity:.4g} m/s"
            )
        if np.max(np.abs(fr[:, j])) > a.max_force:
            raise ParameterError(
                f"{a.name}: force reference {np.max(np.abs(fr[:, j])):.6g} N exceeds max_force = {a.max_force:.6g} N"
            )
    h = float(step)
    if not (math.isfinite(h) and h > 0.0):
        raise ParameterError(f"step = {step!r} s: must be > 0")
    gains = gains if gains is not None else RDSCGains()
    disturbance = disturbance if disturbance is not None else Disturbance()
    sub = max(1, math.ceil(np.max(np.diff(t)) / h - 1e-9))
    E = np.ascontiguousarray(np.stack([a.packed() for a in acts]))
    D = np.stack([disturbance.packed(a.max_force, a.stroke) for a in acts])
    G = gains.packed()
    PHI = np.full((na, 4), float(initial_phi))
    X = _equilibrium_start(E, G, D, PHI, t[0], xr[0], vr[0], fr[0])
    PHI = np.full((na, 4), float(initial_phi))
    shape = (n, na)
    outs = [np.zeros(shape) for _ in range(9)]
    out_phi = np.zeros((n, na, 4))
    ilim = np.zeros(shape, dtype=np.bool_)
    vlim = np.zeros(shape, dtype=np.bool_)
    if not _simulate.signatures:  # compile (or load from the cache) outside the timed run
        _simulate(
            E,
            G,
            D,
            t[:2],
            xr[:2],
            vr[:2],
            fr[:2],
            h,
            1,
            X.copy(),
            PHI.copy(),
            *[o[:2].copy() for o in outs],
            out_phi[:2].copy(),
            ilim[:2].copy(),
            vlim[:2].copy(),
        )
    start = time.perf_counter()
    bad = _simulate(E, G, D, t, xr, vr, fr, h, sub, X, PHI, *outs, out_phi, ilim, vlim)
    wall = time.perf_counter() - start
    if bad >= 0:
        raise SimulationError(
            f"the closed loop diverged at t = {t[bad]:.6g} s (state no longer finite); "
            f"reduce step (now {h:g} s) or the gains"
        )
    x, xl, v, f, i_d, i_q, v_d, v_q, tau = outs
    dts = np.diff(t)[:, None]
    mismatch = float(np.max(np.abs(np.diff(xr, axis=0) / dts - 0.5 * (vr[1:] + vr[:-1]))))
    limits = {
        a.name: {
            "max_current": a.motor.max_current,
            "max_phase_voltage": a.max_phase_voltage,
            "max_force": a.max_force,
            "max_velocity": a.max_velocity,
            "stroke": a.stroke,
        }
        for a in acts
    }
    duration = t[-1] - t[0]
    return EMLATrackingResult(
        t=t,
        names=tuple(a.name for a in acts),
        positions=x,
        load_positions=xl,
        velocities=v,
        forces=f,
        position_references=xr,
        velocity_references=vr,
        force_references=fr,
        i_d=i_d,
        i_q=i_q,
        v_d=v_d,
        v_q=v_q,
        torque_commands=tau,
        phi=out_phi,
        current_limited=ilim,
        voltage_limited=vlim,
        limits=limits,
        counters={
            "steps": float((n - 1) * sub),
            "step_size": (t[1] - t[0]) / sub,
            "wall_time": wall,
            "real_time_factor": duration / wall if wall > 0 else math.inf,
            "reference_mismatch": mismatch,
        },
    )


def smooth_reference(
    actuator: EMLA,
    duration: float,
    n: int,
    *,
    amplitude: float = 0.3,
    force_fraction: float = 0.3,
    phase: float = 0.0,
    speed_fraction: float = 0.5,
):
    """A smooth test reference (positions, velocities, forces), each (n,): a smooth (C²) move over
    ``amplitude`` × stroke around mid-stroke and back, and a load force varying between
    0.2…1.0 × ``force_fraction`` × max_force; the peak speed is capped at ``speed_fraction`` ×
    max_velocity (the voltage limit binds near max_velocity under load). Returns (t, x, v, f)."""
    t = np.linspace(0.0, duration, n)
    s = t / duration
    # out and back: b(s) = 64 s³(1 − s)³ rises 0 → 1 at s = ½ and returns, with zero velocity and
    # acceleration at both ends (a smooth start from the held load)
    b = 64.0 * s**3 * (1.0 - s) ** 3
    db = 64.0 * (3.0 * s**2 * (1.0 - s) ** 3 - 3.0 * s**3 * (1.0 - s) ** 2) / duration
    travel = amplitude * actuator.stroke
    vmax = np.max(np.abs(db)) * travel
    if vmax > speed_fraction * actuator.max_velocity:
        travel *= speed_fraction * actuator.max_velocity / vmax
    x = 0.5 * actuator.stroke - 0.5 * travel + travel * b
    v = travel * db
    f = force_fraction * actuator.max_force * (0.6 + 0.4 * np.sin(2.0 * np.pi * s + phase))
    return t, x, v, f

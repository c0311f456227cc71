"""Electro-mechanical linear actuator (EMLA) of Bahari et al.: PMSM + gear stage + screw (14)–(16).

Signs (as ``screw``): v_x > 0 extends; f_x > 0 is the force the actuator exerts on its load in the
extending direction; motor angle θ_m and speed ω_m > 0 extend.

**Nonlinear model** (state x = [θ_m, ω_m, i_q, i_d, x_L, v_L], the paper's (17) order extended by
the load side; input u = [v_q, v_d] [V]; load force f_L [N] that the load applies against the rod,
positive opposing extension). The series stiffness sits between the nut (x_n = f_eq θ_m) and the
load (x_L):

.. math::
    f_x = k_s (f_{eq} θ_m − x_L) + c_s (f_{eq} ω_m − v_L),\\quad
    J_1 \\dot ω_m = τ_m − b_1 ω_m − f_{eq} f_x,\\quad
    M_L \\dot v_L = f_x − b_{BS} v_L − f_L

with τ_m of (4), the currents of (3), f_eq = ρ/(2πn) (15), J_1 = J_m + J_c + J_GB/n² + f_eq² M_BS,
b_1 = b_m + b_GB/n² and the load-side stiffness k_s = 1/(f_eq²/k_τ1 + (ρ/2π)²/k_τ2 + 1/k_L).

Readings of the printed (14)–(15) (the paper is inconsistent there):

* k_eq as printed, 1/k_τ1 + n²/k_τ2 + (2πn/ρ)²/k_L, is the motor-side **compliance** [rad/(N m)];
  it acts on the drive's **deflection** θ_m − x_L/f_eq, not on the absolute angle (a spring to
  ground would make a position-holding actuator impossible). Hence k_s = 1/(f_eq² k_eq).
* Damping is reflected the energy-consistent way: b_GB/n² and f_eq² b_BS (not n b_GB and
  (nρ/2π) b_BS as printed).
* In the rigid limit (all stiffnesses infinite) the model is (14) with the printed J_eq (15):
  J_eq = J_m + J_c + J_GB/n² + f_eq² (M_BS + M_L), b_eq = b_1 + f_eq² b_BS.

Friction in this ODE is (14)'s viscous b only; the Coulomb, drag and efficiency-type losses of
``efficiency`` are steady-state loss models for the maps (the paper's (6)–(11) are missing).

The printed linearisation (17)–(20) is inconsistent (column order, a "1" in 𝒜(3,4), the sign of
r(2), ℬ's size); :func:`linearise` computes the Jacobians of this nonlinear model
numerically instead, in the same affine form ẋ ≈ A x + B u + E f_L + r.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..numerics.layout import Layout
from ..validation import non_negative, positive
from .losses import Inverter
from .pmsm import MOTOR, PMSM, current_rates, electromagnetic_torque
from .screw import Gearbox, Screw

# packed EMLA (motor block first, same indices as pmsm.M_*, then the drive train and inverter)
PACKED = Layout(
    "E_",
    *(f"{name}1" if name in ("j", "b") else name for name in MOTOR.names),
    "lead",
    "n",
    "feq",
    "eta_s",
    "etab_s",
    "eta_g",
    "etab_g",
    "f0",
    "bbs",
    "fmax",
    "vmax",
    "ks",
    "cs",
    "ml",
    "vdc",
    "vph",
    "fsw",
    "vce0",
    "rce",
    "vf0",
    "rf",
    "esw",
    "vref",
    "iref",
    "flim",
)
(
    E_P,
    E_RS,
    E_LD,
    E_LQ,
    E_PSI,
    E_J1,
    E_B1,
    E_TC,
    E_IMAX,
    E_WMAX,
    E_KH,
    E_KE,
    E_LEAD,
    E_N,
    E_FEQ,
    E_ETA_S,
    E_ETAB_S,
    E_ETA_G,
    E_ETAB_G,
    E_F0,
    E_BBS,
    E_FMAX,
    E_VMAX,
    E_KS,
    E_CS,
    E_ML,
    E_VDC,
    E_VPH,
    E_FSW,
    E_VCE0,
    E_RCE,
    E_VF0,
    E_RF,
    E_ESW,
    E_VREF,
    E_IREF,
    E_FLIM,
) = PACKED.indices
N_EMLA = len(PACKED)

# state indices
STATE = Layout("X_", "th", "w", "iq", "id", "xl", "vl")
(X_TH, X_W, X_IQ, X_ID, X_XL, X_VL) = STATE.indices
N_STATE = len(STATE)
STATE_NAMES = ("theta_m", "omega_m", "i_q", "i_d", "x_L", "v_L")


@dataclass(frozen=True)
class EMLA:
    """One EMLA. ``motor``, ``screw``, ``gearbox`` (default direct drive), ``inverter``;
    coupling_inertia J_c [kg m²]; coupling_stiffness k_τ1 [N m/rad] (motor-side torsion, ``inf`` =
    rigid); load_mass M_L [kg] (rod/tube and the rigidly attached load on the far side of the
    series stiffness); series_damping_ratio ζ [-] of the drive-train spring (structural damping,
    c_s = 2ζ√(k_s M_L)). Derived: ``max_force`` [N], ``max_velocity`` [m/s], ``stroke`` [m],
    ``lead`` [m/rev], ``gear_ratio`` [-], ``force_factor`` f_eq [m/rad], ``equivalent_inertia``
    J_eq [kg m²] and ``equivalent_damping`` b_eq [N m s/rad] of (15), ``equivalent_compliance``
    k_eq [rad/(N m)] as printed in (15), ``stiffness`` k_s [N/m]."""

    motor: PMSM
    screw: Screw
    gearbox: Gearbox = field(default_factory=Gearbox)
    inverter: Inverter = field(default_factory=Inverter)
    coupling_inertia: float = 0.0
    coupling_stiffness: float = math.inf
    load_mass: float = 10.0
    series_damping_ratio: float = 0.05
    name: str = "emla"

    def __post_init__(self) -> None:
        for f, cls in (("motor", PMSM), ("screw", Screw), ("gearbox", Gearbox), ("inverter", Inverter)):
            if not isinstance(getattr(self, f), cls):
                raise ParameterError(f"{self.name}.{f} must be a {cls.__name__}, got {type(getattr(self, f)).__name__}")
        object.__setattr__(
            self, "coupling_inertia", non_negative(f"{self.name}.coupling_inertia", self.coupling_inertia, "kg m^2")
        )
        object.__setattr__(self, "load_mass", positive(f"{self.name}.load_mass", self.load_mass, "kg"))
        object.__setattr__(
            self,
            "series_damping_ratio",
            non_negative(f"{self.name}.series_damping_ratio", self.series_damping_ratio, "-"),
        )
        if not (float(self.coupling_stiffness) > 0.0):
            raise ParameterError(
                f"{self.name}.coupling_stiffness = {self.coupling_stiffness!r} N m/rad: must be > 0 (inf = rigid)"
            )

    # ---- transmission and reflected parameters (5), (15), (16)
    @property
    def lead(self) -> float:
        """Screw lead ρ [m/rev]."""
        return self.screw.lead

    @property
    def gear_ratio(self) -> float:
        """n = driven/driving teeth [-]."""
        return self.gearbox.ratio

    @property
    def stroke(self) -> float:
        """Usable stroke [m]."""
        return self.screw.stroke

    @property
    def force_factor(self) -> float:
        """f_eq = ρ/(2πn) [m/rad] of (15): τ_m = f_eq f_x, v_x = f_eq ω_m (5)."""
        return self.lead / (2.0 * math.pi * self.gear_ratio)

    @property
    def motor_side_inertia(self) -> float:
        """J_1 = J_m + J_c + (J_GB + J_BS)/n² + f_eq² M_BS [kg m²] (everything before the series spring;
        J_BS, the rotating screw, is 0 in the paper's (15))."""
        return (
            self.motor.inertia
            + self.coupling_inertia
            + (self.gearbox.inertia + self.screw.inertia) / self.gear_ratio**2
            + self.force_factor**2 * self.screw.mass
        )

    @property
    def equivalent_inertia(self) -> float:
        """J_eq = J_m + J_c + J_GB/n² + ρ²/(4π²n²)(M_BS + M_L) [kg m²], eq. (15) (+ J_BS/n²)."""
        return self.motor_side_inertia + self.force_factor**2 * self.load_mass

    @property
    def equivalent_damping(self) -> float:
        """b_eq = b_m + b_GB/n² + f_eq² b_BS [N m s/rad] (energy-consistent reading of (15))."""
        return (
            self.motor.damping + self.gearbox.damping / self.gear_ratio**2 + self.force_factor**2 * self.screw.damping
        )

    @property
    def equivalent_compliance(self) -> float:
        """k_eq = 1/k_τ1 + n²/k_τ2 + (2πn/ρ)²/k_L [rad/(N m)] as printed in (15): a compliance."""
        n = self.gear_ratio
        return (
            1.0 / self.coupling_stiffness
            + n**2 / self.gearbox.stiffness
            + (1.0 / self.force_factor) ** 2 / self.screw.stiffness
        )

    @property
    def stiffness(self) -> float:
        """k_s = 1/(f_eq² k_eq) [N/m]: drive-train stiffness seen at the rod (inf if rigid)."""
        c = self.force_factor**2 * self.equivalent_compliance
        return math.inf if c == 0.0 else 1.0 / c

    # ---- limits
    @property
    def max_phase_voltage(self) -> float:
        """V_dc/√3 [V] (phase peak, |v_dq|)."""
        return self.inverter.max_phase_voltage

    @property
    def max_velocity(self) -> float:
        """min(screw max speed, f_eq · motor max speed) [m/s]."""
        return min(self.screw.max_speed, self.force_factor * self.motor.max_speed)

    @property
    def max_force(self) -> float:
        """Largest |f_x| [N]: min(screw rating, force the peak motor torque k_t i_max holds at
        standstill through the lossy gear and screw: (τ_peak − T_c) η_GB η_s / f_eq)."""
        tau = self.motor.peak_torque - self.motor.friction_torque
        motor_force = max(tau, 0.0) * self.gearbox.efficiency * self.screw.efficiency / self.force_factor
        return min(self.screw.max_force, motor_force)

    @property
    def max_power(self) -> float:
        """max_force · max_velocity [W] (corner of the force–velocity box, not necessarily feasible)."""
        return self.max_force * self.max_velocity

    @cached_property
    def _packed(self) -> np.ndarray:
        m, s, g, inv = self.motor, self.screw, self.gearbox, self.inverter
        k_s = self.stiffness
        c_s = 0.0 if math.isinf(k_s) else 2.0 * self.series_damping_ratio * math.sqrt(k_s * self.load_mass)
        out = np.zeros(N_EMLA)
        out[[E_P, E_RS, E_LD, E_LQ, E_PSI]] = m.pole_pairs, m.resistance, m.inductance_d, m.inductance_q, m.flux_linkage
        out[E_J1] = self.motor_side_inertia
        out[E_B1] = m.damping + g.damping / g.ratio**2
        out[[E_TC, E_IMAX, E_WMAX, E_KH, E_KE]] = (
            m.friction_torque,
            m.max_current,
            m.max_speed,
            m.core_hysteresis,
            m.core_eddy,
        )
        out[[E_LEAD, E_N, E_FEQ]] = s.lead, g.ratio, self.force_factor
        out[[E_ETA_S, E_ETAB_S, E_ETA_G, E_ETAB_G]] = s.efficiency, s.back_efficiency, g.efficiency, g.back_efficiency
        out[[E_F0, E_BBS, E_FMAX, E_VMAX]] = s.drag_force, s.damping, s.max_force, s.max_speed
        out[[E_KS, E_CS, E_ML]] = (1e300 if math.isinf(k_s) else k_s), c_s, self.load_mass
        out[[E_VDC, E_VPH, E_FSW]] = inv.dc_voltage, inv.max_phase_voltage, inv.switching_frequency
        out[[E_VCE0, E_RCE, E_VF0, E_RF, E_ESW, E_VREF, E_IREF]] = (
            inv.v_ce0,
            inv.r_ce,
            inv.v_f0,
            inv.r_f,
            inv.switching_energy,
            inv.reference_voltage,
            inv.reference_current,
        )
        out[E_FLIM] = self.max_force
        out.flags.writeable = False
        return out

    def packed(self) -> np.ndarray:
        """The parameters as one read-only float64 array (layout ``E_*``) for the kernels."""
        return self._packed

    def motor_packed(self) -> np.ndarray:
        """The motor block in ``pmsm.M_*`` layout (a view of :meth:`packed`)."""
        return self._packed[: len(MOTOR)]

    @property
    def rigid(self) -> bool:
        """True when every drive-train stiffness is infinite (model (14) exactly)."""
        return math.isinf(self.stiffness)

    def derivatives(self, x, u, load_force: float) -> np.ndarray:
        """ẋ (6,) of the nonlinear model at state x (6,), input u = [v_q, v_d] [V], load f_L [N]."""
        x = np.asarray(x, dtype=np.float64)
        u = np.asarray(u, dtype=np.float64)
        if x.shape != (N_STATE,) or u.shape != (2,):
            raise ParameterError(
                f"state must have shape (6,) {STATE_NAMES} and input (2,) [v_q, v_d]; got {x.shape} and {u.shape}"
            )
        out = np.empty(N_STATE)
        emla_rhs(self._packed, x, u, float(load_force), out)
        return out


# ---------------------------------------------------------------------------------------------
# compiled kernels (``e`` is ``EMLA.packed()``)
# ---------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def transmitted_force(e, x):
    """f_x = k_s (f_eq θ_m − x_L) + c_s (f_eq ω_m − v_L) [N]; rigid drive (k_s = ∞) not handled here."""
    return e[E_KS] * (e[E_FEQ] * x[X_TH] - x[X_XL]) + e[E_CS] * (e[E_FEQ] * x[X_W] - x[X_VL])


@nb.njit(cache=True)
def emla_rhs(e, x, u, load_force, out):
    """ẋ of the compliant nonlinear EMLA model into ``out`` (6,); x, u as in the module docstring.
    Written with arithmetic only, so its ``py_func`` also accepts complex states (complex step)."""
    i_q, i_d, w = x[X_IQ], x[X_ID], x[X_W]
    did, diq = current_rates(e, i_d, i_q, w, u[1], u[0])
    tau = electromagnetic_torque(e, i_d, i_q)
    f_x = transmitted_force(e, x)
    out[X_TH] = w
    out[X_W] = (tau - e[E_B1] * w - e[E_FEQ] * f_x) / e[E_J1]
    out[X_IQ] = diq
    out[X_ID] = did
    out[X_XL] = x[X_VL]
    out[X_VL] = (f_x - e[E_BBS] * x[X_VL] - load_force) / e[E_ML]


@dataclass(frozen=True)
class Linearisation:
    """ẋ ≈ A x + B u + E f_L + r near (x0, u0, f0): A (6, 6), B (6, 2), E (6,), r (6,) with
    r = f(x0, u0, f0) − A x0 − B u0 − E f0 (the affine form of (17), state order ``STATE_NAMES``)."""

    A: np.ndarray
    B: np.ndarray
    E: np.ndarray
    r: np.ndarray
    x0: np.ndarray
    u0: np.ndarray
    f0: float


def linearise(actuator: EMLA, x0, u0, load_force: float = 0.0, method: str = "complex") -> Linearisation:
    """Jacobians of the nonlinear model at (x0, u0, f_L) by complex step (``"complex"``, exact to
    rounding: the model is polynomial in x, u) or central differences (``"central"``); replaces the
    printed (17)–(20). The drive must be compliant (finite stiffness)."""
    if method not in ("complex", "central"):
        raise ParameterError(f"method = {method!r}: use 'complex' or 'central'")
    if actuator.rigid:
        raise ParameterError(
            f"{actuator.name}: linearise needs a finite drive-train stiffness (set a screw or coupling stiffness)"
        )
    e = actuator.packed()
    x0 = np.asarray(x0, dtype=np.float64)
    u0 = np.asarray(u0, dtype=np.float64)
    f0 = float(load_force)
    if x0.shape != (N_STATE,) or u0.shape != (2,):
        raise ParameterError(f"x0 must have shape (6,) {STATE_NAMES} and u0 (2,); got {x0.shape}, {u0.shape}")
    z0 = np.concatenate([x0, u0, [f0]])
    n = z0.size
    jac = np.empty((N_STATE, n))
    scale = np.maximum(np.abs(z0), 1.0)

    def f(z):
        out = np.zeros(N_STATE, dtype=z.dtype)
        emla_rhs.py_func(e, z[:6], z[6:8], z[8], out)
        return out

    for j in range(n):
        if method == "complex":
            h = 1e-20 * scale[j]
            z = z0.astype(np.complex128)
            z[j] += 1j * h
            jac[:, j] = f(z).imag / h
        else:
            h = 1e-6 * scale[j]
            zp, zm = z0.copy(), z0.copy()
            zp[j] += h
            zm[j] -= h
            jac[:, j] = (f(zp) - f(zm)) / (2.0 * h)
    A, B, E = jac[:, :6], jac[:, 6:8], jac[:, 8]
    r = actuator.derivatives(x0, u0, f0) - A @ x0 - B @ u0 - E * f0
    return Linearisation(A, B, E, r, x0, u0, f0)

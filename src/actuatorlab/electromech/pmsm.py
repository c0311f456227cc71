"""Permanent-magnet synchronous motor in the rotor dq frame, Bahari et al. (3)–(4).

Signs: ω_m > 0 [rad/s] is the direction that extends the actuator; τ_m > 0 [N m] drives it that
way; currents and voltages are amplitude-invariant dq values (see ``transforms``), so the electrical
power into the stator is P = (3/2)(v_d i_d + v_q i_q) [W].

.. math::
    v_d = R_s i_d + L_d \\dot i_d − p ω_m L_q i_q,\\qquad
    v_q = R_s i_q + L_q \\dot i_q + p ω_m (L_d i_d + Ψ_{PM})          \\quad (3)

    τ_m = \\tfrac32 p\\, i_q [Ψ_{PM} + (L_d − L_q) i_d]                        \\quad (4)

Power balance (exact for (3)–(4)): (3/2)(v_d i_d + v_q i_q) = (3/2) R_s ‖i‖² + τ_m ω_m +
d/dt[(3/4)(L_d i_d² + L_q i_q²)].
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from ..numerics.layout import Layout
from ..validation import check_quantities, count, non_negative, quantity

# packed motor
MOTOR = Layout(
    "M_",
    "p:pole_pairs",
    "rs:resistance",
    "ld:inductance_d",
    "lq:inductance_q",
    "psi:flux_linkage",
    "j:inertia",
    "b:damping",
    "tc:friction_torque",
    "imax:max_current",
    "wmax:max_speed",
    "kh:core_hysteresis",
    "ke:core_eddy",
)
(M_P, M_RS, M_LD, M_LQ, M_PSI, M_J, M_B, M_TC, M_IMAX, M_WMAX, M_KH, M_KE) = MOTOR.indices
N_MOTOR = len(MOTOR)


@dataclass(frozen=True)
class PMSM:
    """PMSM parameters (SI). pole_pairs p [-]; resistance R_s [Ω] (phase); inductances L_d, L_q [H];
    flux_linkage Ψ_PM [Wb] (amplitude-invariant, peak); inertia J_m [kg m²]; damping b_m
    [N m s/rad] (viscous bearing loss); friction_torque T_c [N m] (Coulomb, bearings and seal);
    max_current [A] (peak phase current, |i_dq| limit); max_speed [rad/s] (mechanical);
    core_hysteresis k_h [W s/rad] and core_eddy k_e [W s²/rad²]: core loss P_co = k_h|ω_e| + k_e ω_e²
    at the electrical angular speed ω_e = p ω_m; rated_power [W], rated_speed [rad/s] (datasheet
    figures kept for reference)."""

    pole_pairs: int = quantity(unit="pole pairs", check=count)
    resistance: float = quantity(unit="ohm", check=non_negative)
    inductance_d: float = quantity(unit="H")
    inductance_q: float = quantity(unit="H")
    flux_linkage: float = quantity(unit="Wb")
    inertia: float = quantity(unit="kg m^2")
    max_current: float = quantity(unit="A")
    max_speed: float = quantity(unit="rad/s")
    damping: float = quantity(0.0, "N m s/rad", non_negative)
    friction_torque: float = quantity(0.0, "N m", non_negative)
    core_hysteresis: float = quantity(0.0, "W s/rad", non_negative)
    core_eddy: float = quantity(0.0, "W s^2/rad^2", non_negative)
    rated_power: float = quantity(0.0, "W", non_negative)
    rated_speed: float = quantity(0.0, "rad/s", non_negative)
    name: str = "pmsm"

    def __post_init__(self) -> None:
        check_quantities(self, f"{self.name}.")

    @property
    def torque_constant(self) -> float:
        """k_t = (3/2) p Ψ_PM [N m/A] (torque per q-axis ampere at i_d = 0, from (4))."""
        return 1.5 * self.pole_pairs * self.flux_linkage

    @property
    def peak_torque(self) -> float:
        """k_t · max_current [N m] (i_d = 0)."""
        return self.torque_constant * self.max_current

    def packed(self) -> np.ndarray:
        """The motor's parameters as the vector the compiled EMLA dynamics read (``MOTOR``, SI)."""
        return MOTOR.pack_of(self)

    def torque(self, i_d, i_q):
        """τ_m [N m] of (4), vectorised."""
        # the compiled kernel's Python twin broadcasts over numpy arrays (same expression)
        return electromagnetic_torque.py_func(self.packed(), np.asarray(i_d, float), np.asarray(i_q, float))

    def voltages(self, i_d, i_q, omega_m, di_d=0.0, di_q=0.0):
        """(v_d, v_q) [V] of (3) at currents [A], speed ω_m [rad/s] and current rates [A/s]."""
        i_d, i_q, w = (np.asarray(a, float) for a in (i_d, i_q, omega_m))
        # (3) rearranged: v = L (di/dt − di/dt|_{v=0}); the kernel's Python twin broadcasts arrays
        did0, diq0 = current_rates.py_func(self.packed(), i_d, i_q, w, 0.0, 0.0)
        return (self.inductance_d * (np.asarray(di_d) - did0), self.inductance_q * (np.asarray(di_q) - diq0))


# ---------------------------------------------------------------------------------------------
# compiled kernels (``m`` is ``PMSM.packed()``)
# ---------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def electromagnetic_torque(m, i_d, i_q):
    """τ_m = (3/2) p i_q [Ψ_PM + (L_d − L_q) i_d] [N m], eq. (4)."""
    return 1.5 * m[M_P] * i_q * (m[M_PSI] + (m[M_LD] - m[M_LQ]) * i_d)


@nb.njit(cache=True)
def current_rates(m, i_d, i_q, omega_m, v_d, v_q):
    """(di_d/dt, di_q/dt) [A/s] from (3) at dq currents [A], speed ω_m [rad/s], voltages [V]."""
    we = m[M_P] * omega_m
    did = (v_d - m[M_RS] * i_d + we * m[M_LQ] * i_q) / m[M_LD]
    diq = (v_q - m[M_RS] * i_q - we * (m[M_LD] * i_d + m[M_PSI])) / m[M_LQ]
    return did, diq


@nb.njit(cache=True)
def steady_voltages(m, i_d, i_q, omega_m):
    """(v_d, v_q) [V] of (3) with constant currents: the voltages that make ``current_rates`` zero."""
    did0, diq0 = current_rates(m, i_d, i_q, omega_m, 0.0, 0.0)
    return -m[M_LD] * did0, -m[M_LQ] * diq0


@nb.njit(cache=True)
def q_current_for_torque(m, tau, i_d):
    """i_q [A] giving torque τ [N m] at d-current i_d [A]: (4) solved for i_q."""
    return tau / (1.5 * m[M_P] * (m[M_PSI] + (m[M_LD] - m[M_LQ]) * i_d))

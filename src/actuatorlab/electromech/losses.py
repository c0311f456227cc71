"""Loss terms of Bahari et al. (12): P_EE = P_sw + P_d + P_cu + P_co, P_EM = P_mech + P_sc.

The paper's loss formulas (6)–(11) are missing from its text (they were in an image,
"Table 3"); these are documented standard models, each ≥ 0 for every input:

* P_cu — stator copper loss, (3/2) R_s (i_d² + i_q²) (amplitude-invariant dq currents).
* P_co — core (iron) loss at the constant PM flux of i_d = 0 operation, Steinmetz/Bertotti
  separation in electrical speed: hysteresis k_h |ω_e| plus eddy current k_e ω_e².
* P_d — inverter conduction losses of the six IGBTs **and** six freewheeling diodes under
  sinusoidal PWM (Casanellas 1994; Infineon AN2008-03), reading the paper's subscript "d" as
  device/diode conduction (a reading taken):
  per IGBT (1/2π + m cos φ/8) V_CE0 Î + (1/8 + m cos φ/3π) r_CE Î²,
  per diode (1/2π − m cos φ/8) V_F0 Î + (1/8 − m cos φ/3π) r_F Î²,
  with modulation index m = 2 V̂/V_dc (clipped to the SVPWM limit 2/√3) and power factor cos φ
  (< 0 when regenerating, so the diodes carry more of the current).
* P_sw — switching losses, energies scaling linearly with current and DC voltage:
  6 f_sw E_sw (Î/(π I_ref)) (V_dc/V_ref), E_sw = E_on + E_off + E_rr per switch–diode pair
  measured at (V_ref, I_ref).
* P_mech — motor and gear-stage friction: Coulomb T_c |ω_m| + viscous b ω_m², plus the gear
  stage's meshing loss (efficiency model of ``screw.lossy_torque``).
* P_sc — screw loss: forward/backward efficiency, seal/preload drag F_0 |v| and viscous
  b_BS v² (``screw``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb

from ..validation import check_quantities, non_negative, quantity

SVPWM_MAX_INDEX = 2.0 / math.sqrt(3.0)


@dataclass(frozen=True)
class Inverter:
    """Two-level three-phase IGBT inverter. dc_voltage V_dc [V]; switching_frequency f_sw [Hz];
    IGBT threshold V_CE0 [V] and slope r_CE [Ω]; diode threshold V_F0 [V] and slope r_F [Ω];
    switching_energy E_sw [J] (E_on + E_off + E_rr per pulse) at reference_voltage [V] and
    reference_current [A]. The phase-peak voltage limit is V_dc/√3 (SVPWM linear range)."""

    dc_voltage: float = quantity(560.0, "V")
    switching_frequency: float = quantity(8e3, "Hz")
    v_ce0: float = quantity(0.8, "V", non_negative)
    r_ce: float = quantity(0.02, "ohm", non_negative)
    v_f0: float = quantity(0.8, "V", non_negative)
    r_f: float = quantity(0.015, "ohm", non_negative)
    switching_energy: float = quantity(2e-3, "J", non_negative)
    reference_voltage: float = quantity(600.0, "V")
    reference_current: float = quantity(50.0, "A")
    name: str = "inverter"

    def __post_init__(self) -> None:
        check_quantities(self, f"{self.name}.")

    @property
    def max_phase_voltage(self) -> float:
        """V_dc/√3 [V]: largest phase-peak (|v_dq|) voltage in the SVPWM linear range."""
        return self.dc_voltage / math.sqrt(3.0)


@nb.njit(cache=True)
def copper_loss(resistance, i_d, i_q):
    """P_cu = (3/2) R_s (i_d² + i_q²) [W]."""
    return 1.5 * resistance * (i_d * i_d + i_q * i_q)


@nb.njit(cache=True)
def core_loss(k_h, k_e, omega_e):
    """P_co = k_h |ω_e| + k_e ω_e² [W] at electrical speed ω_e [rad/s]."""
    return k_h * abs(omega_e) + k_e * omega_e * omega_e


@nb.njit(cache=True)
def conduction_loss(i_peak, index, cos_phi, v_ce0, r_ce, v_f0, r_f):
    """P_d [W]: conduction of 6 IGBTs + 6 diodes, sinusoidal PWM; ``index`` m is clipped to
    [0, 2/√3] and cos φ to [−1, 1], which keeps both device shares ≥ 0."""
    m = min(max(index, 0.0), 2.0 / math.sqrt(3.0))
    c = min(max(cos_phi, -1.0), 1.0)
    a = m * c / 8.0
    b = m * c / (3.0 * math.pi)
    igbt = (1.0 / (2.0 * math.pi) + a) * v_ce0 * i_peak + (0.125 + b) * r_ce * i_peak * i_peak
    diode = (1.0 / (2.0 * math.pi) - a) * v_f0 * i_peak + (0.125 - b) * r_f * i_peak * i_peak
    return 6.0 * (igbt + diode)


@nb.njit(cache=True)
def switching_loss(i_peak, dc_voltage, f_sw, e_sw, v_ref, i_ref):
    """P_sw = 6 f_sw E_sw (Î/(π I_ref)) (V_dc/V_ref) [W]."""
    return 6.0 * f_sw * e_sw * (i_peak / (math.pi * i_ref)) * (dc_voltage / v_ref)

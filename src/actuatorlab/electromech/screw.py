"""Gear stage and screw of an EMLA: ideal transmission (5), series stiffness (16), screw losses.

Signs: v_x > 0 [m/s] extends the rod; f_x > 0 [N] is the axial force the actuator exerts on its
load in the extending direction (a push); ω_m > 0 and τ_m > 0 on the motor side correspond.
The gear ratio n = driven teeth / driving teeth (n > 1 reduces speed); ρ is the lead [m/rev].

.. math::
    τ_m = \\frac{ρ}{2πn} f_x, \\qquad ω_m = \\frac{2πn}{ρ} v_x                      \\quad (5)

so τ_m ω_m = f_x v_x for any ρ, n (the ideal stage conserves power); f_eq = ρ/(2πn) [m/rad].

Losses (standard models; the paper's (6)–(11) are not in its text): a screw (and a gear
stage) passes power with a forward efficiency η when driven from the motor and a backward
efficiency η' when back-driven by the load (η' = 0: self-locking). Motor-side torque needed at
the screw for a load-side torque τ_0 = ρ f / (2π) at screw speed ω_s:
τ = τ_0/η if τ_0 ω_s ≥ 0 (motoring or holding), τ = η' τ_0 if τ_0 ω_s < 0 (back-driven); the loss
(τ − τ_0) ω_s is then ≥ 0 in every quadrant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb

from ..errors import ParameterError
from ..validation import back_efficiency as back_efficiency_in_0_1
from ..validation import efficiency as efficiency_in_0_1
from ..validation import (
    check_quantities,
    non_negative,
    positive,
    positive_or_inf,
    quantity,
)


def series_stiffness(*stiffnesses: float) -> float:
    """k = (Σ 1/k_i)^(−1) [N/m] of springs in series, eq. (16); ``inf`` entries are rigid."""
    if not stiffnesses:
        raise ParameterError("series_stiffness needs at least one stiffness")
    ks = [
        positive(f"stiffness[{i}]", k, "N/m") if math.isfinite(float(k)) else math.inf
        for i, k in enumerate(stiffnesses)
    ]
    compliance = sum(1.0 / k for k in ks)
    return math.inf if compliance == 0.0 else 1.0 / compliance


@dataclass(frozen=True)
class Screw:
    """Ball or roller screw unit. lead ρ [m/rev]; stroke [m]; max_force [N] (axial rating used as
    the force limit); max_speed [m/s] (linear, from the screw's critical / DN speed);
    efficiency η (forward), back_efficiency η' (0 = self-locking); drag_force F_0 [N] (seal and
    nut preload drag, Coulomb); damping b_BS [N s/m] (viscous, linear); mass M_BS [kg] (screw
    mechanism's translating parts, as in (15)); inertia J_BS [kg m²] (rotating screw shaft, adds
    J_BS/n² on the motor side; (15) has no term for it); axial stiffnesses [N/m] of the
    thrust bearing, the screw shaft, the nut and the thrust tube (``inf`` = rigid), combined in
    series by (16)."""

    lead: float = quantity(unit="m/rev")
    stroke: float = quantity(unit="m")
    max_force: float = quantity(unit="N")
    max_speed: float = quantity(unit="m/s")
    efficiency: float = quantity(0.9, "-", efficiency_in_0_1)
    back_efficiency: float = quantity(0.8, "-", back_efficiency_in_0_1)
    drag_force: float = quantity(0.0, "N", non_negative)
    damping: float = quantity(0.0, "N s/m", non_negative)
    mass: float = quantity(0.0, "kg", non_negative)
    inertia: float = quantity(0.0, "kg m^2", non_negative)
    k_bearing: float = quantity(math.inf, "N/m", positive_or_inf)
    k_screw: float = quantity(math.inf, "N/m", positive_or_inf)
    k_nut: float = quantity(math.inf, "N/m", positive_or_inf)
    k_tube: float = quantity(math.inf, "N/m", positive_or_inf)
    name: str = "screw"

    def __post_init__(self) -> None:
        check_quantities(self, f"{self.name}.")

    @property
    def stiffness(self) -> float:
        """k_L [N/m] of (16): bearing, screw, nut and tube in series."""
        return series_stiffness(self.k_bearing, self.k_screw, self.k_nut, self.k_tube)


@dataclass(frozen=True)
class Gearbox:
    """Gear (or belt) stage between motor and screw. ratio n = driven/driving teeth [-];
    inertia J_GB [kg m²] on its output side (reflected as J_GB/n² to the motor, as (15));
    damping b_GB [N m s/rad] on its output side; efficiency η_GB and back_efficiency η'_GB;
    torsional stiffness k_τ2 [N m/rad] (output side; ``inf`` = rigid). Default: direct drive."""

    ratio: float = quantity(1.0, "-")
    inertia: float = quantity(0.0, "kg m^2", non_negative)
    damping: float = quantity(0.0, "N m s/rad", non_negative)
    efficiency: float = quantity(1.0, "-", efficiency_in_0_1)
    back_efficiency: float = quantity(1.0, "-", back_efficiency_in_0_1)
    stiffness: float = quantity(math.inf, "N m/rad", positive_or_inf)
    name: str = "gearbox"

    def __post_init__(self) -> None:
        check_quantities(self, f"{self.name}.")


# ---------------------------------------------------------------------------------------------
# compiled kernels
# ---------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def force_to_torque(f_x, lead, ratio):
    """τ_m = ρ/(2πn) f_x [N m], eq. (5)."""
    return lead / (2.0 * math.pi * ratio) * f_x


@nb.njit(cache=True)
def velocity_to_speed(v_x, lead, ratio):
    """ω_m = 2πn/ρ v_x [rad/s], eq. (5)."""
    return 2.0 * math.pi * ratio / lead * v_x


@nb.njit(cache=True)
def lossy_torque(tau_out, omega, efficiency, back_efficiency):
    """Input torque [N m] a stage needs to deliver ``tau_out`` at speed ``omega`` (same side):
    τ_out/η when the stage is driven (τ_out ω ≥ 0), η' τ_out when back-driven (τ_out ω < 0)."""
    if tau_out * omega >= 0.0:
        return tau_out / efficiency
    return tau_out * back_efficiency

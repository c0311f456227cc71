"""Properties of the hydraulic fluid, each value once, with its source.

Parameter classes take their defaults from here, so a value that two machines share is written
once and a newcomer sees where each number comes from. Units are SI.
"""

from __future__ import annotations

OIL_BULK_MODULUS = 1.5e9
"""Effective bulk modulus β [Pa] of mineral hydraulic oil: the one-arm peer models
the benchmarks compare with (Exudyn's ``HydraulicActuatorSimple`` and the SciPy model, oil only, hose and
cylinder compliance off); used by the pressure-dynamics cylinder and the excavator."""

CRANE_BULK_MODULUS = 800e6
"""β [Pa] of Petrović & Mattila's laboratory crane: not stated in the paper, taken from the
authors' supplementary repository."""

IEHA_BULK_MODULUS = 800e6
"""β [Pa] of the integrated electro-hydraulic actuator: Alfayad et al., Table 1."""

SAKAI_BULK_MODULUS = 2.33e8
"""β [Pa] of Sakai & Maeshima's 2-DOF robot, oil and hoses together: Table III's mean of the
identified bulk modulus (the paper's b), the truth of the synthetic robot experiments."""

OIL_DENSITY = 850.0
"""Density ρ [kg/m³] of mineral hydraulic oil (ISO VG 32–46 at about 40 °C), in the orifice
equation Q = C_d A √(2Δp/ρ) of the quasistatic circuit (Kikuuwe et al. use ρ = 850 kg/m³ in
their example)."""

IEHA_OIL_DENSITY = 840.0
"""ρ [kg/m³] of the IEHA's oil: Alfayad et al., Table 1."""

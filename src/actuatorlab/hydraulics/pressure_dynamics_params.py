"""Parameters of the pressure-dynamics (bulk-modulus) model of the four-valve circuit.

``PressureDynamics``: the oil's bulk modulus, the dead volumes, the stroke, the laminar
transition of the orifices and the relief and check-valve gains, SI units. The model's equations
and compiled kernels are in :mod:`.pressure_dynamics`; this module imports no numba, so a
scenario's ``[pressure_dynamics]`` and ``[cylinder]`` tables validate without the compiler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..numerics.layout import Layout
from ..validation import check_quantities, quantity
from .fluid import OIL_BULK_MODULUS


@dataclass(frozen=True)
class PressureDynamics:
    """Fluid parameters of the pressure-dynamics model (SI units; all > 0).

    bulk_modulus β [Pa] (1.5 GPa: mineral oil, no hose compliance); head_dead_volume V_h0 and
    rod_dead_volume V_r0 [m³], the oil volume of each side with the piston at the end of that
    side's stroke (hoses included); stroke s [m]; pump_line_volume V_p [m³], pump to valves;
    laminar_pressure ε [Pa], the laminar–turbulent transition of every orifice;
    relief_flow_gain g_relief [m³/(s Pa)] of every relief valve; check_flow_gain g_check
    [m³/(s Pa)] of every suction check valve; retracted_length ℓ₀ [m], the pin-to-pin length
    at full retraction when the cylinder sits between two pins (x = ℓ − ℓ₀).
    The defaults (0.5 L per chamber, 0.8 m stroke, ℓ₀ = 1 m, 1.5 GPa) are those of the one-arm
    peer models the benchmarks compare with (Exudyn's and a SciPy model); ε, g_relief and
    g_check are chosen so that the relief overshoot at the pump flow of (66) is 0.17 MPa (0.5 %
    of P_M) and a chamber sucking 100 L/min dips 1.7 kPa below the tank pressure.
    """

    bulk_modulus: float = quantity(OIL_BULK_MODULUS, "Pa")
    head_dead_volume: float = quantity(0.5e-3, "m^3")
    rod_dead_volume: float = quantity(0.5e-3, "m^3")
    stroke: float = quantity(0.8, "m")
    pump_line_volume: float = quantity(1.0e-3, "m^3")
    laminar_pressure: float = quantity(0.05e6, "Pa")
    relief_flow_gain: float = quantity(5.0e-8, "m^3/(s Pa)")
    check_flow_gain: float = quantity(1.0e-6, "m^3/(s Pa)")
    retracted_length: float = quantity(1.0, "m")
    LAYOUT: ClassVar[Layout] = Layout(
        "H_",
        "bulk_modulus:bulk_modulus",
        "vh0:head_dead_volume",
        "vr0:rod_dead_volume",
        "stroke:stroke",
        "vp:pump_line_volume",
        "eps:laminar_pressure",
        "grelief:relief_flow_gain",
        "gcheck:check_flow_gain",
        "l0:retracted_length",
    )
    """The compiled kernels' parameter vector: β, V_h0, V_r0, s, V_p, ε, g_relief, g_check, ℓ₀ (as above)."""

    def __post_init__(self) -> None:
        check_quantities(self, "pressure_dynamics.")

    def kernel_array(self) -> np.ndarray:
        """The float64 parameter vector of the compiled kernels (``LAYOUT``; constants ``H_*``)."""
        return self.LAYOUT.pack_of(self)

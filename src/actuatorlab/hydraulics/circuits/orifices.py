"""Fixed orifices: turbulent (sharp-edged, with a laminar transition) and laminar (capillary).

Source: Merritt, *Hydraulic Control Systems*, §3.2 (orifice flow); the laminar transition is
that of :mod:`actuatorlab.hydraulics.pressure_dynamics`. Flow q > 0 from ``inlet`` to ``outlet``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...validation import quantity
from .branch import Branch, Law
from .component import Component, SharpEdged


@dataclass(frozen=True)
class Orifice(SharpEdged):
    """q = C_d a √(2/ρ) R_ε(p_in − p_out), R_ε(Δp) = Δp/(Δp² + ε²)^{1/4} (≈ sign(Δp)√|Δp| for
    |Δp| ≫ ε, linear below).

    area a [m²]; discharge_coefficient C_d [-]; oil_density ρ [kg/m³]; transition ε [Pa].
    """

    area: float = quantity(1e-5, "m^2")
    PORTS = ("inlet", "outlet")
    LIMITS = ("inlet", "outlet")

    def branches(self, nodes, inputs):
        return [Branch(nodes["inlet"], nodes["outlet"], self.gain(self.area), transition=self.transition)]


@dataclass(frozen=True)
class LaminarOrifice(Component):
    """q = G (p_in − p_out): a capillary, a leakage path or a drain. conductance G [m³/(s Pa)]."""

    conductance: float = quantity(1e-11, "m^3/(s Pa)")
    PORTS = ("inlet", "outlet")
    LIMITS = ("inlet", "outlet")

    def branches(self, nodes, inputs):
        return [Branch(nodes["inlet"], nodes["outlet"], self.conductance, law=Law.LAMINAR)]

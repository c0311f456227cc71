"""Volumes at nodes: lines and hoses, gas accumulators.

Pressure-dynamics model: a node's oil volume V [m³] (the sum of its lines, hoses and chamber
volumes) and the bulk modulus β give its capacitance V/β. A gas accumulator (pre-charge p₀, gas
volume V₀ at p₀, polytropic index n) stores the oil volume

.. math:: S(p) = V_0 (1 − (p_0/p)^{1/n}) \\quad (p > p_0), \\qquad S = 0 \\quad (p ≤ p_0),

so its gas obeys p (V₀ − S)ⁿ = p₀ V₀ⁿ; it acts in both models (also as β → ∞). Source:
Manring & Fales, *Hydraulic Control Systems*, 2nd ed., §4.6 (gas-charged accumulators).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...validation import quantity
from .component import Component, GasStore, Volume


@dataclass(frozen=True)
class Line(Component):
    """A line or hose as the oil volume it adds to its node. volume V [m³] > 0."""

    volume: float = quantity(1e-3, "m^3")
    PORTS = ("port",)

    def volumes(self, nodes, inputs):
        return [Volume(nodes["port"], self.volume)]


@dataclass(frozen=True)
class Accumulator(Component):
    """Gas accumulator on its node (see the module docstring).

    precharge_pressure p₀ [Pa] > 0; gas_volume V₀ [m³] > 0 (the gas volume at p₀);
    polytropic_index n [-] (1: isothermal, 1.4: adiabatic nitrogen).
    """

    precharge_pressure: float = quantity(5e6, "Pa")
    gas_volume: float = quantity(4e-3, "m^3")
    polytropic_index: float = quantity(1.4, "-")
    PORTS = ("port",)

    def gas_stores(self, nodes):
        return [GasStore(nodes["port"], self.precharge_pressure, self.gas_volume, self.polytropic_index)]

"""The one elementary law every component is built from: a branch between two nodes.

A branch carries the flow q [m³/s] from node ``a`` to node ``b`` (−1: outside the network, at
0 Pa gauge for the pressure difference),

.. math::

    q = K \\, m(u) \\, o(u, p) \\, \\varphi(p_a - p_b) + g \\, (p_a - p_b),

- gain K (its unit is set by φ), multiplied by the input m(u) = u[``gain_input``] when that is
  ≥ 0 (pump or motor speed [rad/s], cylinder velocity [m/s]), else m = 1;
- law φ: ``TURBULENT`` R_ε(Δp) = Δp/(Δp² + ε²)^{1/4} (the sharp-edged orifice √Δp with the
  laminar transition ε = ``transition`` [Pa] of :mod:`actuatorlab.hydraulics.pressure_dynamics`),
  ``LAMINAR`` Δp, ``SOURCE`` 1 (an imposed flow), ``AFFINE`` offset + Σ_j coef_j p_{pilot_j} [Pa] (a flow linear in
  several nodes' pressures: a cylinder coupled to the mechanics, :mod:`.actuators`; opening
  ``FIXED`` only);
- opening o ∈ [0, 1]: ``FIXED`` 1; ``EDGE`` a spool's metering edge,
  clamp((sign·x − overlap)/(1 − overlap)) of the spool position x = u[``opening_input``] ∈ [−1, 1]
  (overlap < 0: underlap); ``NEUTRAL`` an open-centre or float passage,
  clamp((overlap − |x|)/overlap) (open at x = 0, closed at |x| ≥ overlap); ``PILOTED`` a
  pressure-operated valve, clamp((offset + Σ_j coef_j p_{pilot_j}) / band) — the pressures
  on its spool (own ports and pilot lines) against its spring, open over ``band`` [Pa]; such a
  valve passes flow a → b only (φ = 0 for Δp ≤ 0: it seats against reverse flow), so a relief,
  check or counterbalance branch is nondecreasing in p_a − p_b;
- leakage g [m³/(s Pa)]: the laminar leakage past the closed valve, in parallel.

Sign convention: q > 0 flows from a to b. Node indices are stored as floats in the packed row.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from ...errors import ParameterError
from ...validation import check_fields, finite, non_negative, positive
from ...numerics.layout import fields_layout


class Law(IntEnum):
    """φ of a branch."""

    TURBULENT = 0
    LAMINAR = 1
    SOURCE = 2
    AFFINE = 3


class Opening(IntEnum):
    """o of a branch."""

    FIXED = 0
    EDGE = 1
    NEUTRAL = 2
    PILOTED = 3


@dataclass(frozen=True)
class Branch:
    """One row of the compiled branch table (see the module docstring for the law)."""

    a: float
    b: float
    gain: float
    gain_input: float = -1.0
    law: float = float(Law.TURBULENT)
    transition: float = 0.05e6
    opening: float = float(Opening.FIXED)
    opening_input: float = -1.0
    sign: float = 1.0
    overlap: float = 0.0
    offset: float = 0.0
    band: float = 1.0
    pilot1: float = -1.0
    coef1: float = 0.0
    pilot2: float = -1.0
    coef2: float = 0.0
    pilot3: float = -1.0
    coef3: float = 0.0
    leakage: float = 0.0

    def __post_init__(self) -> None:
        check_fields(
            self,
            finite,
            (("a", ""), ("b", ""), ("offset", "Pa"), ("coef1", ""), ("coef2", ""), ("coef3", ""), ("overlap", "")),
        )
        check_fields(self, non_negative, (("gain", ""), ("leakage", "m^3/(s Pa)")))
        check_fields(self, positive, (("transition", "Pa"), ("band", "Pa")))
        if self.law not in set(Law) or self.opening not in set(Opening):
            raise ParameterError(f"branch law = {self.law!r}, opening = {self.opening!r}: unknown kind")
        if self.opening == Opening.EDGE and not self.overlap < 1.0:
            raise ParameterError(f"overlap = {self.overlap!r}: a metering edge's overlap must be < 1 (of the stroke)")
        if self.law == Law.AFFINE and self.opening != Opening.FIXED:
            raise ParameterError("an affine branch reads its pilots as its law: give it opening FIXED")
        if self.opening == Opening.NEUTRAL and not self.overlap > 0.0:
            raise ParameterError(f"overlap = {self.overlap!r}: a neutral passage's width must be > 0 (of the stroke)")


B = fields_layout(Branch).enum("B")
"""Column indices of a packed branch row, generated from ``Branch``'s fields (``B.GAIN`` …)."""
N_BRANCH = len(B)

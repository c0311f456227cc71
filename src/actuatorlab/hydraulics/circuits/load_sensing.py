"""Load sensing: pressure compensators (before or after the metering edge) and the LS shuttle.

Source: Manring & Fales, *Hydraulic Control Systems*, 2nd ed., ch. 8; Bosch Rexroth LUDV
(flow sharing) notes. Compensators are spools in series with a section's metering edge
(opening clamp(s/Δp_band, 0, 1), sharp-edged orifice of area a, flow ``inlet`` → ``outlet``):

- ``before`` (pre-compensator, upstream of the edge): s = Δp_spring − (p_high − p_low), with
  pilots ``high``/``low`` on the two sides of the metering edge: it holds the edge's pressure
  drop at Δp_spring, so each section gets its demand Q = K_edge √Δp_spring whatever its load
  until the pump saturates (then the heaviest load slows);
- ``after`` (post-compensator, flow sharing): s = p_in − p_ls + Δp_spring with pilot ``ls``
  the highest load pressure: all edges see the same drop p_pump − p_ls + Δp_spring, so a
  saturated pump's flow is shared in the ratio of the spool openings.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ParameterError
from ...validation import quantity
from .branch import Branch, Law, Opening
from .component import Component, PilotedValve, piloted_branch

POSITIONS = ("before", "after")


@dataclass(frozen=True)
class Compensator(PilotedValve):
    """Section pressure compensator (see the module docstring for the law).

    position ``before`` | ``after`` the metering edge; spring_pressure Δp_spring [Pa]; band
    Δp_band [Pa]; area a [m²], discharge_coefficient, oil_density [kg/m³], transition ε [Pa];
    leakage [m³/(s Pa)].
    """

    position: str = "after"
    spring_pressure: float = quantity(0.5e6, "Pa")
    area: float = quantity(2e-4, "m^2")
    PORTS = ("inlet", "outlet")

    def __post_init__(self) -> None:
        if self.position not in POSITIONS:
            raise ParameterError(f"position = {self.position!r}: choose one of {', '.join(POSITIONS)}")
        super().__post_init__()

    @property
    def PILOTS(self) -> tuple[str, ...]:  # noqa: N802 (the class attribute's name)
        """``high`` and ``low`` (the edge's two sides) before the edge; ``ls`` after it."""
        return ("high", "low") if self.position == "before" else ("ls",)

    def branches(self, nodes, inputs):
        if self.position == "before":
            pilots = ((nodes["high"], -1.0), (nodes["low"], 1.0))
        else:
            pilots = ((nodes["inlet"], 1.0), (nodes["ls"], -1.0))
        return [piloted_branch(self, nodes["inlet"], nodes["outlet"], self.spring_pressure, pilots, self.leakage)]


@dataclass(frozen=True)
class Shuttle(Component):
    """LS shuttle network: the highest of the pressures at ports ``in1`` … ``inN`` reaches the LS
    line ``out`` through a chain of shuttle (check) valves, q_i = G·clamp((p_in_i − p_out)/Δp_band)
    ·(p_in_i − p_out), and the LS line drains to ``drain`` through G_drain (p_out − p_drain), so
    p_out = max_i p_in_i − O(G_drain/G) and falls with the loads.

    count N ≥ 1; conductance G [m³/(s Pa)]; drain_conductance G_drain [m³/(s Pa)]; band [Pa].
    """

    count: int = 2
    conductance: float = quantity(1e-8, "m^3/(s Pa)")
    drain_conductance: float = quantity(1e-13, "m^3/(s Pa)")
    band: float = quantity(1e3, "Pa")

    def __post_init__(self) -> None:
        if not (isinstance(self.count, int) and self.count >= 1):
            raise ParameterError(f"count = {self.count!r}: a shuttle network needs an integer number >= 1 of inputs")
        super().__post_init__()

    @property
    def PORTS(self) -> tuple[str, ...]:  # noqa: N802 (the class attribute's name)
        """``out``, ``drain`` and ``in1`` … ``inN`` (N = ``count``)."""
        return ("out", "drain", *(f"in{i + 1}" for i in range(self.count)))

    def branches(self, nodes, inputs):
        out = nodes["out"]
        rows = [
            Branch(
                nodes[f"in{i + 1}"],
                out,
                self.conductance,
                law=Law.LAMINAR,
                opening=Opening.PILOTED,
                band=self.band,
                pilot1=nodes[f"in{i + 1}"],
                coef1=1.0,
                pilot2=out,
                coef2=-1.0,
            )
            for i in range(self.count)
        ]
        return rows + [Branch(out, nodes["drain"], self.drain_conductance, law=Law.LAMINAR)]

"""Pressure-operated valves: relief, reducing, check, pilot-operated check, counterbalance.

Each is a poppet or spool whose opening o ∈ [0, 1] grows linearly over a proportional band
Δp_band [Pa] once the pressures on it overcome its spring, in series with a sharp-edged orifice
of full area a: q = o C_d a √(2/ρ) R_ε(Δp) + g Δp, with g the declared leakage of the closed
valve [m³/(s Pa)] (Branch law ``PILOTED``, :mod:`.branch`). As the band goes to 0 the law
tends to the set-valued characteristic of the ideal valve. Sources: Manring & Fales,
*Hydraulic Control Systems*, 2nd ed., ch. 6; Sun Hydraulics / Bosch Rexroth application notes
for the counterbalance (over-centre) valve: opening when p_load + r·p_pilot ≥ p_setting.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...validation import non_negative, quantity
from .branch import Branch
from .component import PilotedValve, piloted_branch


@dataclass(frozen=True)
class ReliefValve(PilotedValve):
    """Direct relief from ``inlet`` to ``outlet``: o = clamp((p_in − p_out − p_set)/Δp_band).

    setting p_set [Pa] > 0; band [Pa]; area [m²]; discharge_coefficient; oil_density [kg/m³];
    transition ε [Pa]; leakage g [m³/(s Pa)].
    """

    setting: float = quantity(25e6, "Pa")
    band: float = quantity(0.5e6, "Pa")
    PORTS = ("inlet", "outlet")
    LIMITS = ("inlet",)

    def branches(self, nodes, inputs):
        i, o = nodes["inlet"], nodes["outlet"]
        return [piloted_branch(self, i, o, -self.setting, ((i, 1.0), (o, -1.0)), self.leakage)]


@dataclass(frozen=True)
class ReducingValve(PilotedValve):
    """Pressure-reducing valve ``inlet`` → ``outlet``: o = clamp((p_set − p_out)/Δp_band), it
    throttles to hold its outlet at p_set (no drain relief: an outlet above p_set stays there).

    Fields as ``ReliefValve``; ``setting`` is the reduced outlet pressure [Pa].
    """

    setting: float = quantity(5e6, "Pa")
    band: float = quantity(0.5e6, "Pa")
    area: float = quantity(1e-5, "m^2")
    PORTS = ("inlet", "outlet")

    def branches(self, nodes, inputs):
        i, o = nodes["inlet"], nodes["outlet"]
        return [piloted_branch(self, i, o, self.setting, ((o, -1.0),), self.leakage)]


@dataclass(frozen=True)
class CheckValve(PilotedValve):
    """Check valve: flow ``inlet`` → ``outlet`` only, o = clamp((p_in − p_out − p_crack)/Δp_band).

    cracking_pressure p_crack [Pa] ≥ 0; other fields as ``ReliefValve``.
    """

    cracking_pressure: float = quantity(0.05e6, "Pa", non_negative)
    PORTS = ("inlet", "outlet")

    def branches(self, nodes, inputs):
        return [_check_branch(self, nodes["inlet"], nodes["outlet"])]


def _check_branch(valve, inlet: int, outlet: int, leakage: float = 0.0) -> Branch:
    """The free-flow check branch inlet → outlet of a check, pilot-check or counterbalance valve."""
    return piloted_branch(valve, inlet, outlet, -valve.cracking_pressure, ((inlet, 1.0), (outlet, -1.0)), leakage)


@dataclass(frozen=True)
class PilotCheckValve(PilotedValve):
    """Pilot-operated check valve: free flow ``inlet`` → ``outlet`` (a check); reverse flow
    ``outlet`` → ``inlet`` once the pilot piston (area ratio r to the poppet seat) overcomes the
    load pressure on the poppet: o = clamp((r p_pilot − p_out − p_crack)/Δp_band).

    pilot_ratio r [-] > 0; cracking_pressure [Pa]; other fields as ``ReliefValve``; the leakage
    g acts outlet → inlet (the load's drift through the closed valve).
    """

    pilot_ratio: float = quantity(3.0, "-")
    cracking_pressure: float = quantity(0.05e6, "Pa", non_negative)
    PORTS = ("inlet", "outlet")
    PILOTS = ("pilot",)

    def branches(self, nodes, inputs):
        i, o = nodes["inlet"], nodes["outlet"]
        pilots = ((nodes["pilot"], self.pilot_ratio), (o, -1.0))
        return [_check_branch(self, i, o), piloted_branch(self, o, i, -self.cracking_pressure, pilots, self.leakage)]


@dataclass(frozen=True)
class CounterbalanceValve(PilotedValve):
    """Counterbalance (over-centre) valve between a cylinder chamber ``load`` and the directional
    valve ``valve``: free flow valve → load through its check; load → valve once the load
    pressure and the pilot pressure (area ratio r) overcome the setting,

    .. math:: o = \\mathrm{clamp}((p_{load} + r\\,p_{pilot} - p_{set}) / Δp_{band}, 0, 1),

    so lowering a load needs p_pilot = (p_set − p_load)/r; the leakage g acts load → valve
    (the drift of a held load).

    setting p_set [Pa] (typically 1.3× the highest load pressure); pilot_ratio r [-];
    cracking_pressure of the check [Pa]; other fields as ``ReliefValve``.
    """

    setting: float = quantity(20e6, "Pa")
    pilot_ratio: float = quantity(3.0, "-")
    cracking_pressure: float = quantity(0.05e6, "Pa", non_negative)
    PORTS = ("valve", "load")
    PILOTS = ("pilot",)
    LIMITS = ("load",)

    def branches(self, nodes, inputs):
        v, ld = nodes["valve"], nodes["load"]
        pilots = ((ld, 1.0), (nodes["pilot"], self.pilot_ratio))
        return [_check_branch(self, v, ld), piloted_branch(self, ld, v, -self.setting, pilots, self.leakage)]

"""Tank and pumps: where the network's pressure is referenced and its flow comes from.

Pumps take the prime mover's speed ω [rad/s] as an input and deliver from ``inlet`` to
``outlet``; a displacement D is per revolution [m³/rev] (catalogue convention), so the
geometric flow is D ω / 2π [m³/s]. Source: Manring & Fales, *Hydraulic Control Systems*, 2nd ed.,
ch. 7 (pumps, pressure and load-sensing compensation).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ...errors import ParameterError
from ...validation import efficiency, finite, quantity
from .branch import Branch, Law, Opening
from .component import Component


@dataclass(frozen=True)
class Tank(Component):
    """A reservoir: its node is held at ``pressure`` [Pa] (gauge; 0 = atmospheric) and takes or
    gives any flow. An ideal load (a node at a known pressure) is a tank at that pressure."""

    pressure: float = quantity(0.0, "Pa", finite)
    PORTS = ("port",)
    LIMITS = ("port",)

    def fixed_pressures(self, nodes):
        return {nodes["port"]: self.pressure}


@dataclass(frozen=True)
class FixedPump(Component):
    """Fixed-displacement pump, Q = η_v D ω / 2π [m³/s] from ``inlet`` to ``outlet`` whatever
    the pressures (an ideal flow source: it needs a relief valve or another open path on its
    outlet, checked by the network).

    displacement D [m³/rev] > 0; volumetric_efficiency η_v [-] in (0, 1]. Input ``speed`` ω [rad/s].
    """

    displacement: float = quantity(50e-6, "m^3/rev")
    volumetric_efficiency: float = quantity(1.0, "-", efficiency)
    PORTS = ("inlet", "outlet")
    INPUTS = ("speed",)
    DEAD_HEADS = ("outlet",)

    def branches(self, nodes, inputs):
        gain = self.volumetric_efficiency * self.displacement / (2.0 * math.pi)
        return [Branch(nodes["inlet"], nodes["outlet"], gain, gain_input=inputs["speed"], law=Law.SOURCE)]


CONTROLS = ("pressure", "load_sensing")


@dataclass(frozen=True)
class VariablePump(Component):
    """Variable-displacement pump with a pressure or a load-sensing compensator.

    .. math::

        Q = η_v D_{max} ω / 2π · \\mathrm{clamp}(s / Δp_{band}, 0, 1),

    ``control = "pressure"``: s = p_set − p_outlet, the pump holds ``pressure_setting`` until it
    reaches its maximum displacement (then Q = η_v D_max ω / 2π); ``"load_sensing"``:
    s = p_ls + margin − p_outlet with p_ls the pressure at the pilot port ``ls``, so the pump
    holds ``margin`` above the highest load pressure (the LS line). The compensator's
    proportional band ``band`` [Pa] is the pressure rise from full to zero displacement.

    max_displacement D_max [m³/rev]; volumetric_efficiency η_v [-]; pressure_setting [Pa];
    margin [Pa]; band [Pa]. Input ``speed`` ω [rad/s].
    """

    max_displacement: float = quantity(100e-6, "m^3/rev")
    volumetric_efficiency: float = quantity(1.0, "-", efficiency)
    control: str = "pressure"
    pressure_setting: float = quantity(25e6, "Pa")
    margin: float = quantity(2e6, "Pa")
    band: float = quantity(0.2e6, "Pa")
    PORTS = ("inlet", "outlet")
    INPUTS = ("speed",)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.control not in CONTROLS:
            raise ParameterError(f"control = {self.control!r}: choose one of {', '.join(CONTROLS)}")

    @property
    def PILOTS(self) -> tuple[str, ...]:  # noqa: N802 (the class attribute's name)
        """``ls`` (the LS line) under load-sensing control, none under pressure control."""
        return ("ls",) if self.control == "load_sensing" else ()

    def branches(self, nodes: Mapping[str, int], inputs: Mapping[str, int]) -> list[Branch]:
        gain = self.volumetric_efficiency * self.max_displacement / (2.0 * math.pi)
        if self.control == "pressure":
            law = dict(offset=self.pressure_setting, pilot1=nodes["outlet"], coef1=-1.0)
        else:
            law = dict(offset=self.margin, pilot1=nodes["outlet"], coef1=-1.0, pilot2=nodes["ls"], coef2=1.0)
        return [
            Branch(
                nodes["inlet"],
                nodes["outlet"],
                gain,
                gain_input=inputs["speed"],
                law=Law.SOURCE,
                opening=Opening.PILOTED,
                band=self.band,
                **law,
            )
        ]

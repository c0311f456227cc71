"""What every component of a netlist has: named ports, pilot ports, inputs and its branches.

A component is a frozen dataclass of validated SI parameters (one module per family) that knows
nothing of the network it sits in (Hopsan's component libraries, Modelica's connectors: pressure
across, flow through). The ``Network`` hands it the node index of each of its ports and pilot
ports and the index of each of its inputs in the input vector; the component returns its laws as
``Branch`` rows (:mod:`.branch`), node volumes and accumulators.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from ...validation import check_quantities, non_negative, quantity
from ..fluid import OIL_DENSITY
from .branch import Branch, Opening


class Volume(NamedTuple):
    """Oil volume at a node: V = ``volume`` + ``gain``·u[``input``] [m³] (input −1: constant)."""

    node: int
    volume: float
    gain: float = 0.0
    input: int = -1


class GasStore(NamedTuple):
    """A gas accumulator at a node: pre-charge p₀ [Pa], gas volume V₀ [m³] at p₀, polytropic n [-]."""

    node: int
    precharge_pressure: float
    gas_volume: float
    polytropic_index: float


class Component:
    """Base of the netlist components (not a parameter class itself: it has no fields; the
    families that share fields share them through ``SharpEdged`` and ``PilotedValve``).

    Class attributes: ``PORTS`` (the names of the ports that carry flow), ``PILOTS`` (pilot
    ports: pressure only), ``INPUTS`` (names of the signals the component reads each step, e.g.
    a spool position or a speed); ``LIMITS`` the ports through which flow can always leave (a
    relief's inlet, an orifice's ports), ``DEAD_HEADS`` the ports of a displacement source that
    needs such a path; ``SEPARATES``: its ports are separate oil spaces (an actuator's chambers,
    joined only through its motion), so one gives the other no path to a tank. Subclasses may
    make ``PILOTS``, ``PORTS`` and ``SEPARATES`` depend on their parameters.
    """

    PORTS: tuple[str, ...] = ()
    PILOTS: tuple[str, ...] = ()
    INPUTS: tuple[str, ...] = ()
    LIMITS: tuple[str, ...] = ()
    DEAD_HEADS: tuple[str, ...] = ()
    SEPARATES: bool = False

    def __post_init__(self) -> None:
        """Check each field a component declares with :func:`~actuatorlab.validation.quantity`
        (its own and its bases'); a component with a rule between fields adds it after this."""
        check_quantities(self)

    def branches(self, nodes: Mapping[str, int], inputs: Mapping[str, int]) -> list[Branch]:
        """The component's laws as branch rows, given the node index of each port/pilot and the
        input-vector index of each input."""
        return []

    def volumes(self, nodes: Mapping[str, int], inputs: Mapping[str, int]) -> list[Volume]:
        """Oil volumes the component adds to its nodes."""
        return []

    def gas_stores(self, nodes: Mapping[str, int]) -> list[GasStore]:
        """Gas accumulators the component adds to its nodes."""
        return []

    def fixed_pressures(self, nodes: Mapping[str, int]) -> dict[int, float]:
        """Nodes the component holds at a given pressure [Pa] (a tank)."""
        return {}


def parameter_fields(cls: type[Component]) -> list[dataclasses.Field]:
    """The fields of a component class in the order a user reads them: those the class adds
    first, then those of its base, and so on (a relief valve's ``setting``, then the ``band`` and
    ``leakage`` of a ``PilotedValve``, then the ``area`` … of a ``SharpEdged``)."""

    def names(klass: type) -> set[str]:
        return {f.name for f in dataclasses.fields(klass)} if dataclasses.is_dataclass(klass) else set()

    out: list[dataclasses.Field] = []
    for klass in cls.__mro__:
        added = names(klass) - set().union(*map(names, klass.__bases__))
        out += [f for f in dataclasses.fields(cls) if f.name in added]
    return out


def orifice_gain(discharge_coefficient: float, area: float, oil_density: float) -> float:
    """K = C_d·a·√(2/ρ) [m^{7/2} kg^{-1/2}] of a sharp-edged orifice, Q = K √Δp."""
    return discharge_coefficient * area * math.sqrt(2.0 / oil_density)


def piloted_branch(valve: PilotedValve, a: int, b: int, offset: float, pilots, leakage: float) -> Branch:
    """A valve's sharp-edged passage a → b (its ``area``, ``discharge_coefficient``,
    ``oil_density``, ``transition``) opened by o = clamp((offset + Σ coef·p_node)/band) over the
    (node, coef) ``pilots`` (up to three; the valve's ``band``), with ``leakage`` a → b."""
    law = {}
    for j, (node, coef) in enumerate(pilots, start=1):
        law[f"pilot{j}"], law[f"coef{j}"] = node, coef
    return Branch(
        a,
        b,
        valve.gain(valve.area),
        transition=valve.transition,
        opening=Opening.PILOTED,
        offset=offset,
        band=valve.band,
        leakage=leakage,
        **law,
    )


@dataclass(frozen=True)
class SharpEdged(Component):
    """A component whose passages are sharp-edged orifices (an orifice, a spool's metering
    edges, a valve's poppet): area a [m²] of a full opening; discharge_coefficient C_d [-];
    oil_density ρ [kg/m³]; transition ε [Pa], the laminar band of R_ε. A subclass declares its
    own fields after these and may give one of them another default."""

    area: float = quantity(1e-4, "m^2")
    discharge_coefficient: float = quantity(0.6, "-")
    oil_density: float = quantity(OIL_DENSITY, "kg/m^3")
    transition: float = quantity(0.05e6, "Pa")

    def gain(self, area: float) -> float:
        """The orifice gain K = C_d·a·√(2/ρ) of a passage of ``area`` [m²] in this component."""
        return orifice_gain(self.discharge_coefficient, area, self.oil_density)


@dataclass(frozen=True)
class PilotedValve(SharpEdged):
    """A pressure-operated valve: a ``SharpEdged`` passage opened over the proportional band
    band Δp_band [Pa] > 0 (see :func:`piloted_branch`), with the leakage g [m³/(s Pa)] ≥ 0 of
    the closed valve."""

    band: float = quantity(0.1e6, "Pa")
    leakage: float = quantity(0.0, "m^3/(s Pa)", non_negative)

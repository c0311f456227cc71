"""Hydraulic circuits as netlists: components with named ports joined at nodes, two solvers.

- :mod:`.component`, :mod:`.branch`: the component base, the elementary branch
  law every component is made of (packed by ``numerics.layout.fields_layout``);
- components, one module per family: :mod:`.sources` (``Tank``, ``FixedPump``,
  ``VariablePump``), :mod:`.orifices` (``Orifice``, ``LaminarOrifice``), :mod:`.spools`
  (``SpoolValve``), :mod:`.pressure_valves` (``ReliefValve``, ``ReducingValve``, ``CheckValve``,
  ``PilotCheckValve``, ``CounterbalanceValve``), :mod:`.load_sensing` (``Compensator``,
  ``Shuttle``), :mod:`.storage` (``Line``, ``Accumulator``), :mod:`.actuators` (``Cylinder``,
  ``Motor``);
- :mod:`.network`: ``Network``, the checked netlist packed for the kernels;
- :mod:`.kernels`: compiled node balances and the damped semismooth Newton;
- :mod:`.solvers`: ``solve`` (quasistatic, one state), ``simulate`` (either model over a run),
  ``branch_flows``.

Pressures are gauge [Pa], flows [m³/s], SI units throughout.
"""

from __future__ import annotations

from .actuators import Cylinder, Motor
from .load_sensing import Compensator, Shuttle
from .network import Network
from .orifices import LaminarOrifice, Orifice
from .pressure_valves import CheckValve, CounterbalanceValve, PilotCheckValve, ReducingValve, ReliefValve
from .sources import FixedPump, Tank, VariablePump
from .spools import SpoolValve
from .storage import Accumulator, Line

__all__ = [
    "Accumulator",
    "CheckValve",
    "Compensator",
    "CounterbalanceValve",
    "Cylinder",
    "FixedPump",
    "LaminarOrifice",
    "Line",
    "Motor",
    "Network",
    "Orifice",
    "PilotCheckValve",
    "ReducingValve",
    "ReliefValve",
    "Shuttle",
    "SpoolValve",
    "Tank",
    "VariablePump",
]

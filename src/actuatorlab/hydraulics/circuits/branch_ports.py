"""Names and ends of each component's branches, in the order its ``branches`` lists them.

``branch_ports(component)`` gives, for every branch row the component packs, ``(name, a, b)``:
a short name ("" for a component of one branch; ``"PA"``, ``"BT"`` … for a spool's metering
edges) and the ports at its ends, the flow q > 0 going from port ``a`` to port ``b`` (``None``:
outside the network at 0 Pa, the moving piston of a cylinder). With the pressures at those
ports, q·(p_a − p_b) is the hydraulic power the branch takes from the oil [W]: what a valve
dissipates, what a piston or shaft turns into work, minus what a pump delivers.
"""

from __future__ import annotations

from .actuators import Cylinder
from .component import Component
from .load_sensing import Shuttle
from .pressure_valves import CounterbalanceValve, PilotCheckValve
from .spools import EDGES, SpoolValve

Ends = tuple[str, str | None, str | None]


def branch_ports(component: Component) -> list[Ends]:
    """(name, from port, to port) of each branch of ``component`` (see the module docstring)."""
    if isinstance(component, SpoolValve):
        edges = [(a + b, a, b) for a, b, _, _ in EDGES]
        neutral = {"closed": [], "open": [("PT", "P", "T")], "float": [("AT0", "A", "T"), ("BT0", "B", "T")]}
        return edges + neutral[component.centre]
    if isinstance(component, PilotCheckValve):
        return [("free", "inlet", "outlet"), ("piloted", "outlet", "inlet")]
    if isinstance(component, CounterbalanceValve):
        return [("check", "valve", "load"), ("piloted", "load", "valve")]
    if isinstance(component, Cylinder):
        piston = [("head", "head", None), ("rod", None, "rod")]
        return piston + ([("leakage", "head", "rod")] if component.leakage > 0.0 else [])
    if isinstance(component, Shuttle):
        return [(f"in{i + 1}", f"in{i + 1}", "out") for i in range(component.count)] + [("drain", "out", "drain")]
    nodes = {port: i for i, port in enumerate((*component.PORTS, *component.PILOTS))}
    rows = component.branches(nodes, {signal: i for i, signal in enumerate(component.INPUTS)})
    return [("", *component.PORTS[:2])] if rows else []

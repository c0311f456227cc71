"""A netlist: components whose ports are joined at named nodes, checked and packed for the kernels.

``Network({"name": (component, {"port": "node", …}), …})`` numbers the nodes (in order of first
appearance) and the inputs (``"component.input"``, in order of the components), checks the
topology and packs every component's laws into the arrays of :mod:`.kernels`: the branch table
(columns ``branch.B``), the volume and gas tables, the held (tank) pressures. Each failed check
raises one ``ParameterError`` line naming the component and the port: an unknown component
class or port, an unconnected port, a pilot line to a node no flow port joins, a node with no
path to a tank, a displacement pump dead-headed without a relief on its outlet.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ...errors import ParameterError
from ...validation import check_fields, positive
from ..fluid import OIL_BULK_MODULUS
from .branch import N_BRANCH
from .component import Component
from ...numerics.layout import pack_fields
from .sources import Tank


def _ports(name: str, component, connections) -> tuple[dict[str, str], dict[str, str]]:
    """(flow ports, pilot ports) → node names of one part, checked against its declaration."""
    if not isinstance(component, Component):
        raise ParameterError(f"component {name!r}: {type(component).__name__} is not a circuit component")
    if not isinstance(connections, Mapping):
        raise ParameterError(f"component {name!r}: give its ports as a mapping port → node name")
    declared = (*component.PORTS, *component.PILOTS)
    for port, node in connections.items():
        if port not in declared:
            raise ParameterError(f"component {name!r} has no port {port!r}; its ports are {', '.join(declared)}")
        if not isinstance(node, str) or not node:
            raise ParameterError(f"component {name!r} port {port!r}: a node is named by a non-empty string")
    for port in declared:
        if port not in connections:
            kind = "pilot port" if port in component.PILOTS else "port"
            raise ParameterError(f"component {name!r} {kind} {port!r} is not connected: give it a node")
    return ({p: connections[p] for p in component.PORTS}, {p: connections[p] for p in component.PILOTS})


@dataclass(frozen=True)
class Network:
    """A checked netlist (module docstring). parts: name → (component, {port: node});
    bulk_modulus β [Pa] of the oil (the pressure-dynamics model's node capacitance V/β).

    Derived (read-only): ``nodes`` (names, kernel order), ``inputs`` (``"component.input"``),
    ``rows`` (n_branches, N_BRANCH), ``volumes`` (n, 4), ``gas`` (n, 4), ``held`` (n_nodes,;
    NaN where free), ``owners`` (the component of each branch), ``parameters`` (name → the
    component's packed float fields).
    """

    parts: Mapping[str, tuple[Component, Mapping[str, str]]]
    bulk_modulus: float = OIL_BULK_MODULUS
    nodes: tuple[str, ...] = field(init=False, repr=False)
    inputs: tuple[str, ...] = field(init=False, repr=False)
    rows: np.ndarray = field(init=False, repr=False)
    volumes: np.ndarray = field(init=False, repr=False)
    gas: np.ndarray = field(init=False, repr=False)
    held: np.ndarray = field(init=False, repr=False)
    owners: tuple[str, ...] = field(init=False, repr=False)
    parameters: dict[str, np.ndarray] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_fields(self, positive, (("bulk_modulus", "Pa"),))
        if not isinstance(self.parts, Mapping) or not self.parts:
            raise ParameterError("a circuit needs at least one component: give parts as name → (component, ports)")
        wiring = {}
        for name, part in self.parts.items():
            if not (isinstance(part, tuple) and len(part) == 2):
                raise ParameterError(f"component {name!r}: give it as (component, {{port: node}})")
            wiring[name] = _ports(name, *part)
        nodes: dict[str, int] = {}
        for flow, _ in wiring.values():
            for node in flow.values():
                nodes.setdefault(node, len(nodes))
        for name, (_, pilots) in wiring.items():
            for port, node in pilots.items():
                if node not in nodes:
                    raise ParameterError(
                        f"component {name!r} pilot port {port!r}: node {node!r} is joined by no "
                        f"component's flow port (known nodes: {', '.join(nodes)})"
                    )
        _check_tank_paths(self.parts, wiring, nodes)
        _check_dead_heads(self.parts, wiring)
        inputs = {
            f"{name}.{signal}": None for name, (component, _) in self.parts.items() for signal in component.INPUTS
        }
        input_index = {key: i for i, key in enumerate(inputs)}
        rows, owners, volumes, gas = [], [], [], []
        held = np.full(len(nodes), np.nan)
        for name, (component, _) in self.parts.items():
            flow, pilots = wiring[name]
            at = {port: nodes[node] for port, node in {**flow, **pilots}.items()}
            signals = {s: input_index[f"{name}.{s}"] for s in component.INPUTS}
            for branch in component.branches(at, signals):
                rows.append(pack_fields(branch))
                owners.append(name)
            volumes += [list(v) for v in component.volumes(at, signals)]
            gas += [list(s) for s in component.gas_stores(at)]
            for node, pressure in component.fixed_pressures(at).items():
                held[node] = pressure
        set_ = object.__setattr__
        set_(self, "nodes", tuple(nodes))
        set_(self, "inputs", tuple(inputs))
        set_(self, "rows", np.array(rows, dtype=np.float64).reshape(len(rows), N_BRANCH))
        set_(self, "volumes", np.array(volumes, dtype=np.float64).reshape(len(volumes), 4))
        set_(self, "gas", np.array(gas, dtype=np.float64).reshape(len(gas), 4))
        set_(self, "held", held)
        set_(self, "owners", tuple(owners))
        set_(self, "parameters", {name: pack_fields(component) for name, (component, _) in self.parts.items()})

    def node(self, name: str) -> int:
        """Kernel index of node ``name``."""
        if name not in self.nodes:
            raise ParameterError(f"node {name!r} is not in the circuit; its nodes are {', '.join(self.nodes)}")
        return self.nodes.index(name)

    def input_vector(self, values: Mapping[str, float]) -> np.ndarray:
        """The input vector u from {"component.input": value}; inputs not given are 0."""
        u = np.zeros(len(self.inputs))
        for key, value in values.items():
            if key not in self.inputs:
                raise ParameterError(f"input {key!r} is not in the circuit; its inputs are {', '.join(self.inputs)}")
            u[self.inputs.index(key)] = float(value)
        return u


def _check_tank_paths(parts, wiring, nodes: dict[str, int]) -> None:
    """Every node is joined to a tank's node through components' flow ports."""
    parent = list(range(len(nodes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for name, (flow, _) in wiring.items():
        if parts[name][0].SEPARATES:
            continue
        ids = [nodes[n] for n in flow.values()]
        for other in ids[1:]:
            parent[root(other)] = root(ids[0])
    tanks = {root(nodes[flow["port"]]) for name, (flow, _) in wiring.items() if isinstance(parts[name][0], Tank)}
    for name, (flow, _) in wiring.items():
        for port, node in flow.items():
            if root(nodes[node]) not in tanks:
                raise ParameterError(
                    f"component {name!r} port {port!r}: node {node!r} has no path to a tank; "
                    "connect the circuit to a Tank component"
                )


def _check_dead_heads(parts, wiring) -> None:
    """A displacement source's outlet node has a path out that is always open (a relief)."""
    limited = {
        node for name, (flow, _) in wiring.items() for port, node in flow.items() if port in parts[name][0].LIMITS
    }
    for name, (flow, _) in wiring.items():
        for port in parts[name][0].DEAD_HEADS:
            if flow[port] not in limited:
                raise ParameterError(
                    f"component {name!r} port {port!r}: the pump is dead-headed at node "
                    f"{flow[port]!r} when the valves close; add a ReliefValve with its inlet there"
                )

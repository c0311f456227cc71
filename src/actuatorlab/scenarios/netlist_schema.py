"""A hydraulic netlist in a scenario file: components by type, their ports' nodes and parameters.

One table per component, named by the table's key::

    [components.pump]
    type = "FixedPump"
    ports = { inlet = "T", outlet = "P" }
    displacement = "45 cm^3/rev"

``type`` is a class of :mod:`actuatorlab.hydraulics.circuits` (:data:`COMPONENTS`); ``ports``
joins each port and pilot port to a node, named by any string; every other key is a parameter
of that class, a plain SI number or a string with units (``"200 bar"``) of the one dimension
:data:`PARAMETER_DIMENSIONS` gives its name; a parameter left out keeps the class's default.
Fields that are not numbers (a spool's ``centre``, a compensator's ``position``, a shuttle's
``count``) pass through and the component checks them.

The field type :data:`NetlistField` validates such a table into a :class:`Netlist` (each bad
entry a one-line error naming the component and the key: ``components.relief.setting: "200 m"
is a length; expected a pressure …``), and writes it back with every default filled in and
quantities in display units. :meth:`Netlist.network` joins it into a checked
:class:`~actuatorlab.hydraulics.circuits.Network` (its topology errors become ScenarioErrors).
Any scenario table may hold a netlist: the ``circuit`` kind's and the ``machine`` kind's ``components``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import PlainSerializer, PlainValidator

from ..errors import ParameterError, ScenarioError
from ..hydraulics import circuits
from ..hydraulics.circuits.component import Component, parameter_fields
from .spec_base import FieldError
from .units import convert, format_quantity

COMPONENTS: dict[str, type[Component]] = {
    name: getattr(circuits, name) for name in circuits.__all__ if name != "Network"
}
"""``type`` of a component table → its class."""

PARAMETER_DIMENSIONS: dict[str, str] = {
    "area": "area",
    "neutral_area": "area",
    "head_area": "area",
    "rod_area": "area",
    "stroke": "length",
    "volume": "volume",
    "gas_volume": "volume",
    "head_dead_volume": "volume",
    "rod_dead_volume": "volume",
    "displacement": "displacement",
    "max_displacement": "displacement",
    "pressure": "pressure",
    "setting": "pressure",
    "pressure_setting": "pressure",
    "precharge_pressure": "pressure",
    "cracking_pressure": "pressure",
    "spring_pressure": "pressure",
    "margin": "pressure",
    "band": "pressure",
    "transition": "pressure",
    "conductance": "flow_gain",
    "drain_conductance": "flow_gain",
    "leakage": "flow_gain",
    "oil_density": "density",
    "time_constant": "time",
    "discharge_coefficient": "dimensionless",
    "volumetric_efficiency": "dimensionless",
    "mechanical_efficiency": "dimensionless",
    "pilot_ratio": "dimensionless",
    "polytropic_index": "dimensionless",
    "neutral_width": "dimensionless",
    "overlap_pa": "dimensionless",
    "overlap_bt": "dimensionless",
    "overlap_pb": "dimensionless",
    "overlap_at": "dimensionless",
}
"""The dimension of every numeric component parameter, by field name: one name, one quantity
(``setting`` is always a pressure, ``displacement`` always per revolution)."""

INPUT_DIMENSIONS: dict[tuple[str, str], str] = {
    ("FixedPump", "speed"): "angular_velocity",
    ("VariablePump", "speed"): "angular_velocity",
    ("Motor", "speed"): "angular_velocity",
    ("SpoolValve", "position"): "dimensionless",
    ("Cylinder", "velocity"): "velocity",
    ("Cylinder", "position"): "length",
}
"""(component type, input) → the dimension of that input's signal."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
RESERVED = ("type", "ports")


@dataclass(frozen=True)
class Entry:
    """One component of a netlist: its ``name``, ``type`` (a key of :data:`COMPONENTS`), the
    built ``component`` and its ``ports`` as (port, node) pairs in the file's order."""

    name: str
    type: str
    component: Component
    ports: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Netlist:
    """The components of a circuit, in the file's order (see the module docstring)."""

    entries: tuple[Entry, ...]

    def __getitem__(self, name: str) -> Entry:
        return next(e for e in self.entries if e.name == name)

    def inputs(self) -> dict[str, str]:
        """``"component.input"`` → the dimension of its signal, in the network's input order."""
        return {f"{e.name}.{s}": INPUT_DIMENSIONS[e.type, s] for e in self.entries for s in e.component.INPUTS}

    def as_tables(self) -> dict[str, dict[str, Any]]:
        """The netlist as the tables of a file, every parameter written in SI (a sweep sets
        a value in them and the field validates them again)."""
        return netlist_tables(self, display=False)

    def parts(self) -> dict[str, tuple[Component, dict[str, str]]]:
        """Name → (component, {port: node}), as :class:`~actuatorlab.hydraulics.circuits.Network` takes them."""
        return {e.name: (e.component, dict(e.ports)) for e in self.entries}

    def network(self, bulk_modulus: float, where: str = "components", extra: Mapping | None = None) -> circuits.Network:
        """The checked :class:`~actuatorlab.hydraulics.circuits.Network`, with the ``extra`` parts
        (a machine's cylinders) joined in; a topology error (a node with no path to a tank, a
        dead-headed pump …) is a ScenarioError naming ``where``."""
        try:
            return circuits.Network({**self.parts(), **(extra or {})}, bulk_modulus=bulk_modulus)
        except ParameterError as error:
            raise ScenarioError(f"{where}: {error}") from None


def _parameters(name: str, cls: type[Component], table: Mapping) -> dict[str, Any]:
    """The class's keyword arguments from a component table: numbers to SI by their dimension."""
    fields = {f.name: f for f in parameter_fields(cls)}
    out = {}
    for key, value in table.items():
        if key in RESERVED:
            continue
        if key not in fields:
            raise FieldError(
                f"{name}.{key}",
                f"{cls.__name__} has no parameter {key!r}; its parameters are {', '.join(fields) or 'none'}",
            )
        if fields[key].type == "float":
            try:
                value = convert(value, PARAMETER_DIMENSIONS[key])
            except ScenarioError as error:
                raise FieldError(f"{name}.{key}", str(error)) from None
        out[key] = value
    return out


def _ports(name: str, component: Component, ports) -> tuple[tuple[str, str], ...]:
    declared = (*component.PORTS, *component.PILOTS)
    example = ", ".join(f'{p} = "NODE"' for p in declared)
    if not isinstance(ports, Mapping):
        raise FieldError(f"{name}.ports", f"expected a table port → node, such as ports = {{ {example} }}")
    for port, node in ports.items():
        if port not in declared:
            raise FieldError(
                f"{name}.ports.{port}",
                f"{type(component).__name__} has no port {port!r}; its ports are {', '.join(declared)}",
            )
        if not isinstance(node, str) or not node.strip():
            raise FieldError(f"{name}.ports.{port}", f"a node is named by a non-empty string, received {node!r}")
    missing = [p for p in declared if p not in ports]
    if missing:
        kind = "pilot port" if missing[0] in component.PILOTS else "port"
        raise FieldError(f"{name}.ports", f'{kind} {missing[0]!r} is not connected; add {missing[0]} = "NODE"')
    return tuple((port, ports[port]) for port in declared)


def parse_entry(name, table) -> Entry:
    """One component table as an :class:`Entry`; errors are :class:`FieldError` below ``name``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise FieldError(
            str(name), "a component's name is a letter or _ then letters, digits, _ or - (it names its inputs)"
        )
    types = ", ".join(f'"{t}"' for t in COMPONENTS)
    if not isinstance(table, Mapping):
        raise FieldError(name, f"expected a table with type = one of {types}, ports and parameters")
    if "type" not in table:
        raise FieldError(f"{name}.type", f"missing; add type = one of {types}")
    kind = table["type"]
    if not isinstance(kind, str) or kind not in COMPONENTS:
        raise FieldError(f"{name}.type", f"{kind!r} is not a component type; use one of {types}")
    cls = COMPONENTS[kind]
    try:
        component = cls(**_parameters(name, cls, table))
    except ParameterError as error:
        raise FieldError(name, str(error)) from None
    if "ports" not in table:
        declared = (*component.PORTS, *component.PILOTS)
        example = ", ".join(f'{p} = "NODE"' for p in declared)
        raise FieldError(f"{name}.ports", f"missing; add ports = {{ {example} }}")
    return Entry(name, kind, component, _ports(name, component, table["ports"]))


def parse_netlist(value) -> Netlist:
    """A ``components`` table (name → component table), or a Netlist, as a :class:`Netlist`."""
    if isinstance(value, Netlist):
        return value
    if not isinstance(value, Mapping) or not value:
        raise ScenarioError('expected a table of components, such as [components.pump] with type = "FixedPump"')
    return Netlist(tuple(parse_entry(name, table) for name, table in value.items()))


def dump_netlist(netlist: Netlist, info) -> dict[str, dict[str, Any]]:
    """The netlist as TOML tables, every parameter written (in display units for ``show``)."""
    return netlist_tables(netlist, display=bool(info.context and info.context.get("display")))


def netlist_tables(netlist: Netlist, display: bool) -> dict[str, dict[str, Any]]:
    """Component name → its table: type, ports and every parameter (SI, or display units)."""
    out = {}
    for e in netlist.entries:
        table: dict[str, Any] = {"type": e.type, "ports": dict(e.ports)}
        for f in parameter_fields(type(e.component)):
            value = getattr(e.component, f.name)
            if f.type == "float" and display:
                value = format_quantity(value, PARAMETER_DIMENSIONS[f.name])
            table[f.name] = value
        out[e.name] = table
    return out


NetlistField = Annotated[Netlist, PlainValidator(parse_netlist), PlainSerializer(dump_netlist, when_used="always")]
"""Field type of a netlist table (see the module docstring)."""

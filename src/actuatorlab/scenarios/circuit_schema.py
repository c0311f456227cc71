"""Schema of the ``circuit`` kind: a netlist simulated on its own, its actuators' motions given.

``components`` is the netlist (:mod:`.netlist_schema`); ``inputs`` maps each
``"component.input"`` to a signal of time (:mod:`.signal_specs`) in that input's unit: a pump's
or motor's ``speed`` an angular velocity (``"1500 rpm"``), a spool's ``position`` a fraction of
its stroke in [−1, 1], a cylinder's ``velocity`` [m/s] (> 0 extends) and ``position`` [m] from
full retraction. An input left out is 0, except a cylinder's position, which is then its
velocity integrated from ``initial_positions`` (default 0 m, fully retracted).
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from pydantic import Field, StrictStr, ValidationError, create_model, field_validator

from ..errors import ScenarioError
from ..hydraulics.fluid import OIL_BULK_MODULUS
from .netlist_schema import Netlist, NetlistField
from .signal_specs import signal_spec
from .spec_base import FieldError, Length, OutputsSpec, PlainName, Pressure, Spec, Time

MODELS = {"quasistatic": "quasistatic", "pressure-dynamics": "pressure"}
"""``model`` of the file → the model of :func:`actuatorlab.hydraulics.circuits.solvers.simulate`."""


@functools.cache
def _signal_table(dimension: str) -> type[Spec]:
    """A one-field model holding a signal of ``dimension``, to validate one input by its key."""
    return create_model(f"Signal_{dimension}", __base__=Spec, signal=(signal_spec(dimension), ...))


def _signal(key: str, value, dimension: str):
    from .loading import describe_validation_error

    table = _signal_table(dimension)
    try:
        return table.model_validate({"signal": value}).signal
    except ValidationError as error:
        path, _, problem = describe_validation_error(error, table).partition(": ")
        where = f'"{key}"{path.removeprefix("signal")}'
        raise FieldError(where, problem.replace("[signal]", f'[inputs."{key}"]')) from None


def input_signals(netlist: Netlist | None, value: dict) -> dict:
    """``inputs`` (``"component.input"`` → signal table or value) validated against the inputs of
    ``netlist`` (None: the netlist failed and its error is reported; ``value`` is returned)."""
    if netlist is None:
        return value
    known = netlist.inputs()
    out = {}
    for key, signal in value.items():
        if key not in known:
            valid = ", ".join(known) or "none (no component of this circuit reads an input)"
            raise FieldError(f'"{key}"', f"not an input of the circuit; its inputs are {valid}")
        out[key] = _signal(key, signal, known[key])
    return out


def netlist_inputs(value: dict, info) -> dict:
    """The validator of a scenario's ``inputs`` field: :func:`input_signals` against the netlist
    validated before it in ``components``."""
    return input_signals(info.data.get("components"), value)


class CircuitScenario(Spec):
    """A hydraulic circuit as a netlist, simulated over ``duration`` in steps of ``timestep``
    with the quasistatic model (β → ∞) or pressure dynamics (node volumes at ``bulk_modulus``)."""

    kind: Literal["circuit"] = "circuit"
    name: PlainName
    description: StrictStr
    model: Literal["quasistatic", "pressure-dynamics"] = "quasistatic"
    duration: Time
    timestep: Time = 1e-3
    bulk_modulus: Pressure = OIL_BULK_MODULUS
    components: NetlistField
    inputs: dict[str, Any] = Field(default_factory=dict)
    initial_positions: dict[str, Length] = Field(default_factory=dict)
    initial_pressures: dict[str, Pressure] = Field(default_factory=dict)
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    _inputs = field_validator("inputs")(netlist_inputs)

    @field_validator("initial_positions")
    @classmethod
    def _cylinders(cls, value: dict, info):
        netlist: Netlist | None = info.data.get("components")
        if netlist is not None:
            cylinders = [e.name for e in netlist.entries if e.type == "Cylinder"]
            for key in value:
                if key not in cylinders:
                    raise FieldError(key, f"not a cylinder of the circuit; its cylinders are {', '.join(cylinders)}")
        return value

    def network(self):
        """The checked network of ``components``."""
        return self.components.network(self.bulk_modulus)

    def check(self) -> None:
        network = self.network()
        for node in self.initial_pressures:
            if node not in network.nodes:
                raise ScenarioError(
                    f"initial_pressures.{node}: not a node of the circuit; its nodes are {', '.join(network.nodes)}"
                )
        if not 0.0 < self.timestep <= self.duration:
            raise ScenarioError('timestep: must lie in (0, duration]; give a step such as "1 ms"')

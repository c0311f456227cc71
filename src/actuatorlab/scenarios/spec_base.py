"""Building blocks of the scenario schema: quantity fields with units and the strict base model.

A quantity field takes a bare number (SI) or a string with a unit (``"36 MPa"``), see
:mod:`.units`; every model rejects unknown keys, naming the valid ones.
"""

import contextlib
import dataclasses
import functools
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    StrictBool,
    StrictStr,
    field_validator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainSerializer,
    model_validator,
)

from ..errors import ParameterError, ScenarioError
from .units import DIMENSIONS, convert, format_quantity

# ---------------------------------------------------------------------------------------------
# Quantities


@dataclasses.dataclass(frozen=True)
class QuantityMarker:
    """Annotation metadata recording the dimension of a quantity field."""

    dimension: str


@functools.cache
def quantity(dimension: str) -> Any:
    """Type of a field of ``dimension``: validates a number or unit string to an SI float."""
    if dimension not in DIMENSIONS:
        raise ValueError(f"unknown dimension {dimension!r}; use one of {', '.join(DIMENSIONS)}")

    def validate(value):
        return convert(value, dimension)

    def serialize(value, info):
        if info.context and info.context.get("display"):
            return format_quantity(value, dimension)
        if info.context and info.context.get("dimensions"):  # the field's dimension, for Scenario.get(unit=)
            return dimension
        return value

    return Annotated[
        float,
        BeforeValidator(validate),
        PlainSerializer(serialize, when_used="always"),
        QuantityMarker(dimension),
    ]


Dimensionless = quantity("dimensionless")
Length = quantity("length")
Area = quantity("area")
Mass = quantity("mass")
Inertia = quantity("inertia")
Time = quantity("time")
Frequency = quantity("frequency")
Angle = quantity("angle")
AngularVelocity = quantity("angular_velocity")
Velocity = quantity("velocity")
Acceleration = quantity("acceleration")
Force = quantity("force")
Pressure = quantity("pressure")
VolumeFlow = quantity("volume_flow")
Density = quantity("density")
Stiffness = quantity("stiffness")
Damping = quantity("damping")
Volume = quantity("volume")
FlowGain = quantity("flow_gain")
Displacement = quantity("displacement")
RotationalStiffness = quantity("rotational_stiffness")
RotationalDamping = quantity("rotational_damping")


# ---------------------------------------------------------------------------------------------
# Names that become paths


def _plain_name(value: str) -> str:
    """``value`` if it can name a file or folder of its own (no separator, not ``.``/``..``/empty)."""
    if not value.strip() or value in (".", "..") or any(c in "/\\" or ord(c) < 32 for c in value):
        raise ValueError(
            f"{value!r} is not a plain name (a name becomes a file or folder of the outputs, e.g. "
            "runs/NAME); write one without / \\ or control characters, not empty, '.' or '..'"
        )
    return value


PlainName = Annotated[StrictStr, AfterValidator(_plain_name)]
"""A scenario's (or an experiment's) name: it becomes a path of the outputs, so it is one plain
path component (a name like ``"../x"``, ``"/tmp"`` or ``"."`` would write outside the output folder)."""


# ---------------------------------------------------------------------------------------------
# Base table


class FieldError(ScenarioError):
    """A problem at ``field``, a dotted path below the field whose validator raised it (a
    netlist's ``pump.displacement``); the one-line message names the whole path."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


class UnknownFieldError(FieldError):
    """A table holds a key its model does not define; ``field`` is the key."""

    def __init__(self, field: str, valid: list[str], others: list[str]):
        self.valid = valid
        also = f" (also unknown: {', '.join(others)})" if others else ""
        super().__init__(field, f"unknown field{also}; valid fields are {', '.join(valid)}")


class Spec(BaseModel):
    """Base of every scenario table: frozen, and unknown keys raise listing the valid ones.

    Validators are built on first use (``defer_build``): reading an arm file builds the arm
    scenario's validator, which holds its tables', and not those of the other kinds in its module.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    @model_validator(mode="before")
    @classmethod
    def _reject_unknown_keys(cls, data):
        if isinstance(data, Mapping):
            unknown = [str(key) for key in data if key not in cls.model_fields]
            if unknown:
                raise UnknownFieldError(unknown[0], list(cls.model_fields), unknown[1:])
        return data


def at_least(low: int, remedy: str):
    """A field validator (``field_validator(name)(at_least(1, "give …"))``) that refuses an
    integer below ``low`` with ``"{value}: {remedy}"``."""

    def check(value: int) -> int:
        if value < low:
            raise ValueError(f"{value}: {remedy}")
        return value

    return check


def defaults_of(cls) -> dict[str, Any]:
    """Default values of a dataclass's init fields (so a spec and its dataclass agree)."""
    out = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


def located(where: str, error: Exception, own_prefix: str = "") -> str:
    """Message of a dataclass ParameterError (``"head_area = -1 m^2: ..."``) under ``where``."""
    message = str(error)
    if own_prefix and message.startswith(own_prefix):
        message = message[len(own_prefix) :]
    return f"{where}.{message}" if where else message


@contextlib.contextmanager
def reported_at(where: str, own_prefix: str = ""):
    """Re-raise a dataclass ParameterError as a ScenarioError naming the field under ``where``."""
    try:
        yield
    except ParameterError as error:
        raise ScenarioError(located(where, error, own_prefix)) from None


class OutputsSpec(Spec):
    """What a run writes: results (always), ``results.csv`` too if ``csv``, plots if ``plots``;
    ``channels`` selects the saved channels (None: all)."""

    csv: StrictBool = False
    plots: StrictBool = True
    channels: list[StrictStr] | None = None

    @field_validator("channels")
    @classmethod
    def _distinct(cls, value):
        if value is not None:
            if not value:
                raise ValueError("empty list; name at least one channel or leave channels out to save all")
            repeated = sorted({c for c in value if value.count(c) > 1})
            if repeated:
                raise ValueError(f"{', '.join(repeated)} listed more than once; list each channel once")
        return value

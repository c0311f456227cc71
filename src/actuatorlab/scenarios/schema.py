"""Schema of the TOML scenario files (pydantic v2), converted to SI on validation.

Every table rejects unknown keys, naming the valid ones. A quantity field takes a bare number
(SI) or a string with a unit (``"36 MPa"``), see :mod:`.units`; the validated models hold SI
floats and ``build()`` turns them into the frozen parameter dataclasses of the physics layer.

Signals (time functions) are written as a number or quantity string (a constant) or a table
with ``type`` = ``"constant"``, ``"steps"``, ``"piecewise-linear"``, ``"sine"`` or ``"sum"``;
the dimension of their values is the dimension of the input they drive.

Dumping a model with ``model_dump(context={"display": True})`` writes every quantity in its
display unit (:func:`.units.format_quantity`); without that context the dump is in SI.
"""

import contextlib
import dataclasses
import functools
import math
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, Union, get_args

import numpy as np
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PlainSerializer,
    StrictBool,
    StrictInt,
    StrictStr,
    Tag,
    field_validator,
    model_validator,
)

from ..errors import ParameterError, ScenarioError
from ..hydraulics.quasistatic.circuit import VALVES, ValveCircuit
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..mechanics.single_arm import SingleArm
from ..simulation.signals import Constant, PiecewiseLinear, Signal, Sine, Steps, Sum, time_grid
from .units import DIMENSIONS, convert, format_quantity

MAX_SAMPLES = 100_000_000
"""Largest number of time samples duration/step a simulation may ask for."""

SIGNAL_TYPES = ("constant", "steps", "piecewise-linear", "sine", "sum")
"""Values of ``type`` in a signal table."""

LOC_TAGS = frozenset(SIGNAL_TYPES) | {"common", "per-valve"}
"""Union tags pydantic inserts into error locations; they are not TOML keys and are dropped."""


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


# ---------------------------------------------------------------------------------------------
# Base table


class UnknownFieldError(ScenarioError):
    """A table holds a key its model does not define; ``field`` is the key."""

    def __init__(self, field: str, valid: list[str], others: list[str]):
        self.field = field
        self.valid = valid
        also = f" (also unknown: {', '.join(others)})" if others else ""
        super().__init__(f"unknown field{also}; valid fields are {', '.join(valid)}")


class Spec(BaseModel):
    """Base of every scenario table: frozen, and unknown keys raise listing the valid ones."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _reject_unknown_keys(cls, data):
        if isinstance(data, Mapping):
            unknown = [str(key) for key in data if key not in cls.model_fields]
            if unknown:
                raise UnknownFieldError(unknown[0], list(cls.model_fields), unknown[1:])
        return data


def _defaults(cls) -> dict[str, Any]:
    """Default values of a dataclass's init fields (so a spec and its dataclass agree)."""
    out = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


def _at(where: str, error: Exception, own_prefix: str = "") -> str:
    """Message of a dataclass ParameterError (``"head_area = -1 m^2: ..."``) under ``where``."""
    message = str(error)
    if own_prefix and message.startswith(own_prefix):
        message = message[len(own_prefix) :]
    return f"{where}.{message}" if where else message


@contextlib.contextmanager
def _reported_at(where: str, own_prefix: str = ""):
    """Re-raise a dataclass ParameterError as a ScenarioError naming the field under ``where``."""
    try:
        yield
    except ParameterError as error:
        raise ScenarioError(_at(where, error, own_prefix)) from None


# ---------------------------------------------------------------------------------------------
# Circuit, arm, relaxation, simulation


class PerValveCoefficient(Spec):
    """Discharge coefficient C_* [-] per valve."""

    ph: Dimensionless
    tr: Dimensionless
    pr: Dimensionless
    th: Dimensionless
    b: Dimensionless


class PerValveArea(Spec):
    """Maximum opening area a_* [m²] per valve."""

    ph: Area
    tr: Area
    pr: Area
    th: Area
    b: Area


def _common_or_table(value) -> str:
    return "per-valve" if isinstance(value, (Mapping, BaseModel)) else "common"


PerValveCoefficientField = Annotated[
    Union[Annotated[Dimensionless, Tag("common")], Annotated[PerValveCoefficient, Tag("per-valve")]],
    Discriminator(_common_or_table),
]
PerValveAreaField = Annotated[
    Union[Annotated[Area, Tag("common")], Annotated[PerValveArea, Tag("per-valve")]],
    Discriminator(_common_or_table),
]

_CIRCUIT = _defaults(ValveCircuit)
_ARM = _defaults(SingleArm)
_RELAXATION = _defaults(Relaxation)


class CircuitSpec(Spec):
    """The four-valve circuit, :class:`~actuatorlab.hydraulics.quasistatic.circuit.ValveCircuit`.

    Defaults are the paper's circuit (66). ``discharge_coefficient`` and ``max_area`` take one
    value for every valve or a table with keys ph, tr, pr, th, b.
    """

    discharge_coefficient: PerValveCoefficientField = _CIRCUIT["discharge_coefficient"]
    max_area: PerValveAreaField = _CIRCUIT["max_area"]
    oil_density: Density = _CIRCUIT["oil_density"]
    head_area: Area = _CIRCUIT["head_area"]
    rod_area: Area = _CIRCUIT["rod_area"]
    head_relief_pressure: Pressure = _CIRCUIT["head_relief_pressure"]
    rod_relief_pressure: Pressure = _CIRCUIT["rod_relief_pressure"]
    pump_relief_pressure: Pressure = _CIRCUIT["pump_relief_pressure"]
    pump_flow: VolumeFlow = _CIRCUIT["pump_flow"]

    def build(self, where: str = "circuit") -> ValveCircuit:
        """The validated :class:`ValveCircuit`; a bad value raises ScenarioError under ``where``."""
        values = {name: getattr(self, name) for name in CircuitSpec.model_fields}
        for name in ("discharge_coefficient", "max_area"):
            if isinstance(values[name], BaseModel):
                values[name] = {valve: getattr(values[name], valve) for valve in VALVES}
        with _reported_at(where):
            return ValveCircuit(**values)


class ArmSpec(Spec):
    """The single-DOF arm of Sec. 4.3, :class:`~actuatorlab.mechanics.single_arm.SingleArm`,
    plus its initial state θ(0) [rad] and θ̇(0) [rad/s]."""

    mass: Mass = _ARM["mass"]
    inertia: Inertia = _ARM["inertia"]
    com_distance: Length = _ARM["com_distance"]
    mount_distance: Length = _ARM["mount_distance"]
    mount_angle: Angle = _ARM["mount_angle"]
    load_distance: Length = _ARM["load_distance"]
    base: tuple[Length, Length] = _ARM["base"]
    gravity: Acceleration = _ARM["gravity"]
    initial_angle: Angle = 0.0
    initial_rate: AngularVelocity = 0.0

    def build(self, where: str = "arm") -> SingleArm:
        """The validated :class:`SingleArm`; a bad value raises ScenarioError under ``where``."""
        values = {name: getattr(self, name) for name in _ARM}
        with _reported_at(where):
            return SingleArm(**values)


class RelaxationSpec(Spec):
    """Virtual spring–damper of the DAR: stiffness K [N/m], damping B [N s/m]."""

    stiffness: Stiffness = _RELAXATION["stiffness"]
    damping: Damping = _RELAXATION["damping"]

    def build(self, where: str = "relaxation") -> Relaxation:
        """The validated :class:`Relaxation`; a bad value raises ScenarioError under ``where``."""
        with _reported_at(where, own_prefix="relaxation."):
            return Relaxation(self.stiffness, self.damping)


class SimulationSpec(Spec):
    """Time stepping: step h [s] (default 1 ms) and duration [s]; 0 < h < duration."""

    step: Time = 1.0e-3
    duration: Time

    @field_validator("step", "duration")
    @classmethod
    def _positive(cls, value: float, info) -> float:
        if not (math.isfinite(value) and value > 0.0):
            raise ValueError(f"{info.field_name} = {value} s: must be a finite time > 0, e.g. \"1 ms\"")
        return value

    @model_validator(mode="after")
    def _step_fits(self):
        if not self.step < self.duration:
            raise ValueError(
                f"step = {self.step:g} s is not smaller than duration = {self.duration:g} s; "
                "make the step smaller or the duration longer"
            )
        samples = self.duration / self.step
        if samples > MAX_SAMPLES:
            raise ValueError(
                f"duration/step = {samples:.3g} samples exceeds the limit of {MAX_SAMPLES:.0e}; "
                "use a longer step or a shorter duration"
            )
        return self

    def times(self) -> np.ndarray:
        """The time grid t_k = k·h [s], k = 0 … round(duration/h)."""
        return time_grid(self.step, self.duration)


# ---------------------------------------------------------------------------------------------
# Signals


class SignalSpec(Spec):
    """Base of the signal tables; ``dimension`` is the dimension of the values."""

    dimension: ClassVar[str] = "dimensionless"

    def build(self, dimension: str | None = None, where: str = "signal") -> Signal:
        """The :class:`~actuatorlab.simulation.signals.Signal`; bad parameters raise
        ScenarioError naming ``where``. ``dimension``, if given, must be the spec's own."""
        if dimension is not None and dimension != self.dimension:
            raise ValueError(f"{where}: this signal holds {self.dimension} values, not {dimension}")
        try:
            return self._build(where)
        except ParameterError as error:
            raise ScenarioError(f"{where}: {error}") from None

    def _build(self, where: str) -> Signal:  # pragma: no cover - abstract
        raise NotImplementedError


class _Constant(SignalSpec):
    def _build(self, where):
        return Constant(self.value)


class _Steps(SignalSpec):
    def _build(self, where):
        return Steps(tuple(self.times), tuple(self.values), self.initial)


class _PiecewiseLinear(SignalSpec):
    def _build(self, where):
        return PiecewiseLinear(tuple(self.times), tuple(self.values))


class _Sine(SignalSpec):
    def _build(self, where):
        return Sine(self.amplitude, self.frequency, self.phase, self.offset, self.start, self.stop)


class _Sum(SignalSpec):
    def _build(self, where):
        if not self.terms:
            raise ScenarioError(f"{where}.terms: empty; give at least one signal table in terms")
        return Sum(tuple(term.build(where=f"{where}.terms[{i}]") for i, term in enumerate(self.terms)))


def _signal_input(value):
    """A number or quantity string means a constant; a table must name its ``type``."""
    if isinstance(value, SignalSpec):
        return value
    if isinstance(value, Mapping):
        kind = value.get("type")
        names = ", ".join(f'"{name}"' for name in SIGNAL_TYPES)
        if kind is None:
            raise ScenarioError(f"a signal table needs a type; add type = one of {names}")
        if kind not in SIGNAL_TYPES:
            raise ScenarioError(f'type = "{kind}" is not a signal type; use one of {names}')
        return value
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        return {"type": "constant", "value": value}
    raise ScenarioError(f"expected a number, a quantity string or a signal table, received {value!r}")


@functools.cache
def signal_spec(dimension: str) -> Any:
    """Field type of a signal whose values have ``dimension`` (times are always times).

    Accepts a number or quantity string (a constant) or a table::

        {type = "constant", value}
        {type = "steps", times, values, initial = 0}
        {type = "piecewise-linear", times, values}
        {type = "sine", amplitude, frequency, phase = 0 rad, offset = 0, start = 0 s, stop = inf}
        {type = "sum", terms = [signal, ...]}
    """
    Value = quantity(dimension)

    class ConstantSignal(_Constant):
        """y(t) = value."""

        type: Literal["constant"] = "constant"
        value: Value

    class StepsSignal(_Steps):
        """y = initial before times[0], values[i] from times[i] on."""

        type: Literal["steps"] = "steps"
        times: list[Time]
        values: list[Value]
        initial: Value = 0.0

    class PiecewiseLinearSignal(_PiecewiseLinear):
        """Linear interpolation in (times, values), held outside."""

        type: Literal["piecewise-linear"] = "piecewise-linear"
        times: list[Time]
        values: list[Value]

    class SineSignal(_Sine):
        """offset + amplitude·sin(2π·frequency·(t − start) + phase) on [start, stop), else offset."""

        type: Literal["sine"] = "sine"
        amplitude: Value
        frequency: Frequency
        phase: Angle = 0.0
        offset: Value = 0.0
        start: Time = 0.0
        stop: Time = math.inf

    class SumSignal(_Sum):
        """The sum of the signals in ``terms``."""

        type: Literal["sum"] = "sum"
        terms: "list[SignalField]"

    classes = (ConstantSignal, StepsSignal, PiecewiseLinearSignal, SineSignal, SumSignal)
    for cls in classes:
        cls.dimension = dimension
        cls.__qualname__ = f"{cls.__name__}[{dimension}]"
    SignalField = Annotated[
        Union[tuple(Annotated[cls, Tag(kind)] for cls, kind in zip(classes, SIGNAL_TYPES))],
        Discriminator("type"),
        BeforeValidator(_signal_input),
    ]
    SumSignal.model_rebuild(_types_namespace={"SignalField": SignalField})
    return SignalField


DimensionlessSignal = signal_spec("dimensionless")
ForceSignal = signal_spec("force")


def check_range(where: str, signal: Signal, t, lo: float, hi: float, what: str = "the value") -> None:
    """Raise ScenarioError if ``signal`` sampled on the times ``t`` [s] leaves [lo, hi].

    The message names the first offending sample: ``inputs.valve_command reaches 1.5 at
    t = 3 s; a valve command must lie in [-1, 1]``.
    """
    t = np.asarray(t, dtype=np.float64)
    y = np.asarray(signal.sample(t), dtype=np.float64)
    bad = np.flatnonzero(~((y >= lo) & (y <= hi)))
    if bad.size:
        i = bad[0]
        raise ScenarioError(f"{where} reaches {y[i]:g} at t = {t[i]:g} s; {what} must lie in [{lo:g}, {hi:g}]")


INPUT_DIMENSIONS = {"valve_command": "dimensionless", "bleed": "dimensionless", "external_force": "force"}
"""Dimension of each arm input."""


class ArmInputs(Spec):
    """Inputs of the arm: valve command u_c ∈ [−1, 1] (67), bleed opening u_b ∈ [0, 1] and the
    vertical external force f_ey [N] at the arm tip, positive upward."""

    valve_command: DimensionlessSignal = Field(0.0, validate_default=True)
    bleed: DimensionlessSignal = Field(0.3, validate_default=True)
    external_force: ForceSignal = Field(0.0, validate_default=True)

    def signals(self, where: str = "inputs") -> dict[str, Signal]:
        """The built signals keyed ``valve_command``, ``bleed``, ``external_force``."""
        return {name: getattr(self, name).build(dim, f"{where}.{name}") for name, dim in INPUT_DIMENSIONS.items()}


# ---------------------------------------------------------------------------------------------
# Outputs and scenarios


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


class ArmScenario(Spec):
    """A time simulation of the single-DOF arm of Sec. 4.3 driven by one actuator."""

    kind: Literal["arm"] = "arm"
    name: StrictStr
    description: StrictStr
    model: Literal["quasistatic"] = "quasistatic"
    circuit: CircuitSpec = Field(default_factory=CircuitSpec)
    arm: ArmSpec = Field(default_factory=ArmSpec)
    relaxation: RelaxationSpec = Field(default_factory=RelaxationSpec)
    simulation: SimulationSpec
    inputs: ArmInputs = Field(default_factory=ArmInputs)
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    def check(self) -> None:
        """Build every model once, so that a value the physics rejects raises ScenarioError."""
        self.circuit.build("circuit")
        self.arm.build("arm")
        self.relaxation.build("relaxation")
        self.inputs.signals("inputs")

    def check_inputs(self, t) -> None:
        """Raise ScenarioError if u_c leaves [−1, 1] or u_b leaves [0, 1] on the times ``t`` [s]."""
        signals = self.inputs.signals("inputs")
        check_range("inputs.valve_command", signals["valve_command"], t, -1.0, 1.0, "a valve command")
        check_range("inputs.bleed", signals["bleed"], t, 0.0, 1.0, "a bleed opening")


def _openings(lo: float, hi: float, what: str):
    def validate(value):
        values = value if isinstance(value, (list, tuple)) else None
        if values is None:
            numbers = convert(value, "dimensionless")
            entries = [("", numbers)]
        else:
            if not values:
                raise ScenarioError(f"empty list; give {what} as a number or a non-empty list")
            numbers = tuple(convert(v, "dimensionless") for v in values)
            entries = [(f"[{i}] = ", v) for i, v in enumerate(numbers)]
        for label, v in entries:
            if not lo <= v <= hi:
                raise ScenarioError(f"{label}{v:g} is outside [{lo:g}, {hi:g}]; {what} must lie in [{lo:g}, {hi:g}]")
        return numbers

    return BeforeValidator(validate)


class GammaPanel(Spec):
    """One panel of a force–velocity map: one curve per combination of ``u_c`` and ``u_b``."""

    title: StrictStr
    u_c: Annotated[Union[float, tuple[float, ...]], _openings(-1.0, 1.0, "a valve command u_c")]
    u_b: Annotated[Union[float, tuple[float, ...]], _openings(0.0, 1.0, "a bleed opening u_b")]


class GammaMapScenario(Spec):
    """Static force–velocity maps f ∈ Γ(v) of the circuit, as in Fig. 3 of the paper."""

    kind: Literal["gamma-map"] = "gamma-map"
    name: StrictStr
    description: StrictStr
    circuit: CircuitSpec = Field(default_factory=CircuitSpec)
    velocity_range: tuple[Velocity, Velocity] = (-0.6, 0.6)
    points: StrictInt = 601
    panels: list[GammaPanel]
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    @field_validator("velocity_range")
    @classmethod
    def _brackets_zero(cls, value):
        low, high = value
        if not (math.isfinite(low) and math.isfinite(high) and low < 0.0 < high):
            raise ValueError(
                f"[{low:g}, {high:g}] m/s: need min < 0 < max, e.g. velocity_range = [\"-0.6 m/s\", \"0.6 m/s\"]"
            )
        return value

    @field_validator("points")
    @classmethod
    def _enough_points(cls, value):
        if value < 11:
            raise ValueError(f"{value} points are too few; use at least 11 (default 601)")
        return value

    @field_validator("panels")
    @classmethod
    def _some_panels(cls, value):
        if not value:
            raise ValueError("no panels; add at least one [[panels]] table with title, u_c and u_b")
        return value

    def velocities(self) -> np.ndarray:
        """The velocity grid v [m/s], ``points`` values over ``velocity_range``."""
        return np.linspace(self.velocity_range[0], self.velocity_range[1], self.points)

    def check(self) -> None:
        """Build the circuit once, so that a value the physics rejects raises ScenarioError."""
        self.circuit.build("circuit")


KINDS: dict[str, type[Spec]] = {"arm": ArmScenario, "gamma-map": GammaMapScenario}
"""Scenario classes by the value of ``kind``."""

MODELS: tuple[str, ...] = get_args(ArmScenario.model_fields["model"].annotation)
"""Actuator models an arm scenario may select with ``model``."""

Scenario = Annotated[Union[ArmScenario, GammaMapScenario], Field(discriminator="kind")]
"""Any scenario, told apart by ``kind``."""

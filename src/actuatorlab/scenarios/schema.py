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

import math
from collections.abc import Mapping
from typing import Annotated, Literal, Union, get_args

import numpy as np
from pydantic import (
    BaseModel,
    BeforeValidator,
    Discriminator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    Tag,
    field_validator,
    model_validator,
)

from ..errors import ScenarioError
from ..hydraulics.quasistatic.circuit import VALVES, ValveCircuit
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..mechanics.single_arm import SingleArm
from ..simulation.signals import Signal, time_grid
from .signal_specs import SIGNAL_TYPES, DimensionlessSignal, ForceSignal, check_range
from .spec_base import (
    Acceleration,
    Angle,
    AngularVelocity,
    Area,
    Damping,
    Density,
    Dimensionless,
    Inertia,
    Length,
    Mass,
    Pressure,
    Spec,
    Stiffness,
    Time,
    Velocity,
    VolumeFlow,
    defaults_of,
    reported_at,
)
from .units import convert

MAX_SAMPLES = 100_000_000
"""Largest number of time samples duration/step a simulation may ask for."""

LOC_TAGS = frozenset(SIGNAL_TYPES) | {"common", "per-valve"}
"""Union tags pydantic inserts into error locations; they are not TOML keys and are dropped."""


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

_CIRCUIT = defaults_of(ValveCircuit)
_ARM = defaults_of(SingleArm)
_RELAXATION = defaults_of(Relaxation)


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
    regeneration_discharge_coefficient: Dimensionless = _CIRCUIT["regeneration_discharge_coefficient"]
    regeneration_max_area: Area = _CIRCUIT["regeneration_max_area"]

    def build(self, where: str = "circuit") -> ValveCircuit:
        """The validated :class:`ValveCircuit`; a bad value raises ScenarioError under ``where``."""
        values = {name: getattr(self, name) for name in CircuitSpec.model_fields}
        for name in ("discharge_coefficient", "max_area"):
            if isinstance(values[name], BaseModel):
                values[name] = {valve: getattr(values[name], valve) for valve in VALVES}
        with reported_at(where):
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
        with reported_at(where):
            return SingleArm(**values)


class RelaxationSpec(Spec):
    """Virtual spring–damper of the DAR: stiffness K [N/m], damping B [N s/m]."""

    stiffness: Stiffness = _RELAXATION["stiffness"]
    damping: Damping = _RELAXATION["damping"]

    def build(self, where: str = "relaxation") -> Relaxation:
        """The validated :class:`Relaxation`; a bad value raises ScenarioError under ``where``."""
        with reported_at(where, own_prefix="relaxation."):
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

"""Schema of the arm family's scenario files (``arm``, ``model-comparison``, ``arms-one-pump``,
``gamma-map``, ``network-map``: Kikuuwe et al.'s quasistatic actuator and the pressure-dynamics
model of the same circuit), pydantic v2, converted to SI on validation.

Every table rejects unknown keys, naming the valid ones. A quantity field takes a bare number
(SI) or a string with a unit (``"36 MPa"``), see :mod:`.units`; the validated models hold SI
floats and ``build()`` turns them into the frozen parameter dataclasses of the physics layer.

Signals (time functions) are written as a number or quantity string (a constant) or a table
with ``type`` = ``"constant"``, ``"steps"``, ``"piecewise-linear"``, ``"sine"`` or ``"sum"``;
the dimension of their values is the dimension of the input they drive.

Dumping a model with ``model_dump(context={"display": True})`` writes every quantity in its
display unit (:func:`.units.format_quantity`); without that context the dump is in SI.

One module for the family (about 520 lines): the five kinds share the circuit, arm, relaxation,
cylinder, fluid, simulation and input tables and the checks that span them.
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
    StrictInt,
    StrictStr,
    Tag,
    field_validator,
    model_validator,
)

from ..errors import ParameterError, ScenarioError
from ..hydraulics.pressure_dynamics_params import PressureDynamics
from ..hydraulics.quasistatic.circuit import VALVES, ValveCircuit
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..validation import stroke_fits
from ..mechanics.single_arm import SingleArm
from ..numerics.signals import Signal, time_grid
from ..simulation.solvers import SOLVERS
from .signal_specs import DimensionlessSignal, ForceSignal, check_range
from .spec_base import (
    Acceleration,
    Angle,
    AngularVelocity,
    Area,
    Damping,
    Density,
    Dimensionless,
    FlowGain,
    Inertia,
    Length,
    Mass,
    OutputsSpec,
    PlainName,
    Pressure,
    Spec,
    Stiffness,
    Time,
    Velocity,
    Volume,
    VolumeFlow,
    defaults_of,
    reported_at,
)
from .units import convert

MAX_SAMPLES = 100_000_000
"""Largest number of time samples duration/step a simulation may ask for."""


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
_FLUID = defaults_of(PressureDynamics)


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
    angle_range: tuple[Angle, Angle] | None = None
    """Optional joint range (θ_min, θ_max) [rad]: a run that leaves it stops with an error."""

    @model_validator(mode="after")
    def _range_holds_the_start(self):
        if self.angle_range is not None:
            low, high = self.angle_range
            if not low < high:
                raise ValueError(
                    f"angle_range = [{math.degrees(low):g}, {math.degrees(high):g}] deg: write "
                    "[lowest, highest] with lowest < highest"
                )
            if not low <= self.initial_angle <= high:
                raise ValueError(
                    f"initial_angle = {math.degrees(self.initial_angle):g} deg lies outside angle_range "
                    f"[{math.degrees(low):g}, {math.degrees(high):g}] deg"
                )
        return self

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


def _finite_positive(value: float, info, unit: str, example: str) -> float:
    """A field validator's check: ``value`` [``unit``] finite and > 0, else an error with an example."""
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"{info.field_name} = {value:g} {unit}: must be a finite value > 0, e.g. {example}")
    return value


class CylinderSpec(Spec):
    """The cylinder's travel, which bounds both actuator models: ``stroke`` [m] and
    ``retracted_length`` [m], the pin-to-pin length with the rod fully in. A run whose pin
    distance ℓ leaves [retracted_length, retracted_length + stroke] stops with an error naming
    the time (neither model has end stops)."""

    stroke: Length = _FLUID["stroke"]
    retracted_length: Length = _FLUID["retracted_length"]

    _positive = field_validator("stroke", "retracted_length")(
        lambda value, info: _finite_positive(value, info, "m", '"1.2 m"')
    )

    @model_validator(mode="after")
    def _stroke_fits(self):
        try:
            stroke_fits(self.stroke, self.retracted_length, "cylinder")
        except ParameterError as error:
            raise ValueError(str(error)) from None
        return self

    def length_range(self) -> tuple[float, float]:
        """(ℓ_min, ℓ_max) [m]: the pin distance fully retracted and fully extended."""
        return self.retracted_length, self.retracted_length + self.stroke


_CYLINDER_FIELDS = tuple(CylinderSpec.model_fields)
_FLUID_FIELDS = tuple(name for name in _FLUID if name not in _CYLINDER_FIELDS)


class PressureDynamicsSpec(Spec):
    """The pressure-dynamics cylinder,
    :class:`~actuatorlab.hydraulics.pressure_dynamics_params.PressureDynamics`, its initial state
    and its solver (used when ``model = "pressure-dynamics"``); its stroke is the scenario's
    ``[cylinder]`` table.

    ``initial_low_pressure`` [Pa]: the less loaded chamber's pressure at t = 0 (the other holds
    the load). ``solver``: "LSODA", "BDF" or "Radau" (adaptive, stiff, error-controlled by
    ``rtol``) or "RK4" (explicit, fixed step = ``simulation.step``).
    """

    bulk_modulus: Pressure = _FLUID["bulk_modulus"]
    head_dead_volume: Volume = _FLUID["head_dead_volume"]
    rod_dead_volume: Volume = _FLUID["rod_dead_volume"]
    pump_line_volume: Volume = _FLUID["pump_line_volume"]
    laminar_pressure: Pressure = _FLUID["laminar_pressure"]
    relief_flow_gain: FlowGain = _FLUID["relief_flow_gain"]
    check_flow_gain: FlowGain = _FLUID["check_flow_gain"]
    initial_low_pressure: Pressure = 2.0e6
    solver: Literal[SOLVERS] = "LSODA"
    rtol: Annotated[float, Field(gt=0.0, lt=1.0)] = 1e-6

    @model_validator(mode="before")
    @classmethod
    def _stroke_moved(cls, data):
        moved = [name for name in _CYLINDER_FIELDS if isinstance(data, Mapping) and name in data]
        if moved:
            raise ValueError(
                f"{', '.join(moved)} moved to the [cylinder] table (the stroke bounds both models); "
                f"write them under [cylinder]"
            )
        return data

    def build(self, cylinder: CylinderSpec, where: str = "pressure_dynamics") -> PressureDynamics:
        """The validated :class:`PressureDynamics` of ``cylinder``; a bad value raises ScenarioError
        under ``where``."""
        with reported_at(where, own_prefix="pressure_dynamics."):
            return PressureDynamics(
                **{name: getattr(self, name) for name in _FLUID_FIELDS},
                **{name: getattr(cylinder, name) for name in _CYLINDER_FIELDS},
            )


class SimulationSpec(Spec):
    """Time stepping: step h [s] (default 1 ms) and duration [s]; 0 < h < duration."""

    step: Time = 1.0e-3
    duration: Time

    _positive = field_validator("step", "duration")(lambda value, info: _finite_positive(value, info, "s", '"1 ms"'))

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


INPUT_DIMENSIONS = {
    "valve_command": "dimensionless",
    "bleed": "dimensionless",
    "regeneration": "dimensionless",
    "external_force": "force",
}
"""Dimension of each arm input."""
INPUT_RANGES = {
    "valve_command": (-1.0, 1.0, "a valve command"),
    "bleed": (0.0, 1.0, "a bleed opening"),
    "regeneration": (0.0, 1.0, "a regeneration opening"),
}
"""Range of each bounded arm input over time (low, high, what it is)."""


class ArmInputs(Spec):
    """Inputs of the arm: valve command u_c ∈ [−1, 1] (67), bleed opening u_b ∈ [0, 1],
    regeneration opening u_a ∈ [0, 1] (Sec. 5; acts while extending) and the vertical external
    force f_ey [N] at the arm tip, positive upward."""

    valve_command: DimensionlessSignal = Field(0.0, validate_default=True)
    bleed: DimensionlessSignal = Field(0.3, validate_default=True)
    regeneration: DimensionlessSignal = Field(0.0, validate_default=True)
    external_force: ForceSignal = Field(0.0, validate_default=True)

    def signals(self, where: str = "inputs") -> dict[str, Signal]:
        """The built signals keyed ``valve_command``, ``bleed``, ``external_force``."""
        return {name: getattr(self, name).build(dim, f"{where}.{name}") for name, dim in INPUT_DIMENSIONS.items()}


# ---------------------------------------------------------------------------------------------
# Outputs and scenarios


class ArmSetup(Spec):
    """The tables of a single-DOF arm run (Sec. 4.3), shared by the arm scenario kinds."""

    name: PlainName
    description: StrictStr
    circuit: CircuitSpec = Field(default_factory=CircuitSpec)
    arm: ArmSpec = Field(default_factory=ArmSpec)
    cylinder: CylinderSpec = Field(default_factory=CylinderSpec)
    relaxation: RelaxationSpec = Field(default_factory=RelaxationSpec)
    pressure_dynamics: PressureDynamicsSpec = Field(default_factory=PressureDynamicsSpec)
    simulation: SimulationSpec
    inputs: ArmInputs = Field(default_factory=ArmInputs)
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    def check(self) -> None:
        """Build every model once, so that a value the physics rejects raises ScenarioError."""
        self.circuit.build("circuit")
        self.arm.build("arm")
        self.relaxation.build("relaxation")
        self.pressure_dynamics.build(self.cylinder, "pressure_dynamics")
        self.inputs.signals("inputs")

    def check_inputs(self, t, names=INPUT_RANGES) -> None:
        """Raise ScenarioError if u_c leaves [−1, 1], u_b or u_a leave [0, 1] on the times ``t`` [s]
        (``names``: the inputs to check, default all)."""
        signals = self.inputs.signals("inputs")
        for name in names:
            if name in INPUT_RANGES:
                check_range(f"inputs.{name}", signals[name], t, *INPUT_RANGES[name])


class ArmScenario(ArmSetup):
    """A time simulation of the single-DOF arm of Sec. 4.3 driven by one actuator, with the
    quasistatic (relaxed) model or the pressure-dynamics model."""

    kind: Literal["arm"] = "arm"
    model: Literal["quasistatic", "pressure-dynamics"] = "quasistatic"


class ModelComparisonScenario(ArmSetup):
    """One arm run with both models; θ(t), f(t) and pressures side by side, wall times, the
    largest stable step of each, and θ's agreement outside ``switching_margin`` [s] of every
    valve switching and relief opening."""

    kind: Literal["model-comparison"] = "model-comparison"
    switching_margin: Time = 0.5

    def as_arm(self, model: str) -> ArmScenario:
        """The arm scenario of this setup with ``model``."""
        fields = {name: getattr(self, name) for name in ArmSetup.model_fields}
        return ArmScenario.model_construct(kind="arm", model=model, **fields)


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
    """One panel of a force–velocity map: one curve per combination of ``u_c``, ``u_b`` and the
    regeneration opening ``u_a`` (Sec. 5, Fig. 8; default 0, no regeneration)."""

    title: StrictStr
    u_c: Annotated[Union[float, tuple[float, ...]], _openings(-1.0, 1.0, "a valve command u_c")]
    u_b: Annotated[Union[float, tuple[float, ...]], _openings(0.0, 1.0, "a bleed opening u_b")]
    u_a: Annotated[Union[float, tuple[float, ...]], _openings(0.0, 1.0, "a regeneration opening u_a")] = 0.0


class VelocityMapSetup(Spec):
    """The tables of a static map over the rod velocity v, shared by the map scenario kinds."""

    name: PlainName
    description: StrictStr
    circuit: CircuitSpec = Field(default_factory=CircuitSpec)
    velocity_range: tuple[Velocity, Velocity] = (-0.6, 0.6)
    points: StrictInt = 601
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    @field_validator("velocity_range")
    @classmethod
    def _brackets_zero(cls, value):
        low, high = value
        if not (math.isfinite(low) and math.isfinite(high) and low < 0.0 < high):
            raise ValueError(
                f'[{low:g}, {high:g}] m/s: need min < 0 < max, e.g. velocity_range = ["-0.6 m/s", "0.6 m/s"]'
            )
        return value

    @field_validator("points")
    @classmethod
    def _enough_points(cls, value):
        if value < 11:
            raise ValueError(f"{value} points are too few; use at least 11 (default 601)")
        return value

    @field_validator("panels", check_fields=False)
    @classmethod
    def _some_panels(cls, value):
        if not value:
            raise ValueError("no panels; add at least one [[panels]] table")
        return value

    def check(self) -> None:
        """Build the circuit once, so that a value the physics rejects raises ScenarioError."""
        self.circuit.build("circuit")


class GammaMapScenario(VelocityMapSetup):
    """Static force–velocity maps f ∈ Γ(v) of the circuit, as in Fig. 3 of the paper."""

    kind: Literal["gamma-map"] = "gamma-map"
    panels: list[GammaPanel]

    def velocities(self) -> np.ndarray:
        """The velocity grid v [m/s], ``points`` values over ``velocity_range``."""
        return np.linspace(self.velocity_range[0], self.velocity_range[1], self.points)


class NetworkMapPanel(Spec):
    """One panel set of Fig. 12: commands u_c of the two actuators, the bleed, and the fixed
    velocities v_2 [m/s] of actuator 2, one curve each."""

    title: StrictStr
    u_c: tuple[
        Annotated[float, _openings(-1.0, 1.0, "a valve command u_c")],
        Annotated[float, _openings(-1.0, 1.0, "a valve command u_c")],
    ]
    u_b: Annotated[float, _openings(0.0, 1.0, "a bleed opening u_b")]
    v_2: list[Velocity]


class NetworkMapScenario(VelocityMapSetup):
    """Static maps of two identical actuators on one pump (Sec. 6.1, Fig. 12): the force f_1, the
    pump pressure P and the pump relief flow against v_1, for several fixed v_2."""

    kind: Literal["network-map"] = "network-map"
    panels: list[NetworkMapPanel]

    def velocities(self) -> np.ndarray:
        """The v_1 grid [m/s] without v_1 = 0 (Γ̂ is a set there)."""
        v = np.linspace(self.velocity_range[0], self.velocity_range[1], self.points)
        return v[v != 0.0]


class ArmUnit(ArmSpec):
    """One arm on the shared pump: the arm, its initial state, its valve command u_c ∈ [−1, 1]
    and the vertical external force f_ey [N] at its tip (positive upward)."""

    valve_command: DimensionlessSignal = Field(0.0, validate_default=True)
    external_force: ForceSignal = Field(0.0, validate_default=True)


class ArmsOnePumpScenario(Spec):
    """Several arms of Sec. 4.3, each with its own cylinder and valves, on one pump (Sec. 6.2,
    Fig. 13). The circuits are identical; the bleed u_b belongs to the pump."""

    kind: Literal["arms-one-pump"] = "arms-one-pump"
    name: PlainName
    description: StrictStr
    model: Literal["quasistatic", "pressure-dynamics"] = "quasistatic"
    circuit: CircuitSpec = Field(default_factory=CircuitSpec)
    cylinder: CylinderSpec = Field(default_factory=CylinderSpec)
    relaxation: RelaxationSpec = Field(default_factory=RelaxationSpec)
    pressure_dynamics: PressureDynamicsSpec = Field(default_factory=PressureDynamicsSpec)
    simulation: SimulationSpec
    bleed: DimensionlessSignal = Field(0.3, validate_default=True)
    arms: list[ArmUnit]
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    @field_validator("arms")
    @classmethod
    def _some_arms(cls, value):
        if len(value) < 1:
            raise ValueError("no arms; add at least one [[arms]] table")
        return value

    def check(self) -> None:
        """Build every model once, so that a value the physics rejects raises ScenarioError."""
        self.circuit.build("circuit")
        self.relaxation.build("relaxation")
        self.pressure_dynamics.build(self.cylinder, "pressure_dynamics")
        self.bleed.build("dimensionless", "bleed")
        for j, unit in enumerate(self.arms):
            unit.build(f"arms[{j}]")
            unit.valve_command.build("dimensionless", f"arms[{j}].valve_command")
            unit.external_force.build("force", f"arms[{j}].external_force")

    def check_inputs(self, t) -> None:
        """Raise ScenarioError if a u_c leaves [−1, 1] or u_b leaves [0, 1] on the times ``t`` [s]."""
        check_range("bleed", self.bleed.build("dimensionless", "bleed"), t, 0.0, 1.0, "a bleed opening")
        for j, unit in enumerate(self.arms):
            where = f"arms[{j}].valve_command"
            check_range(where, unit.valve_command.build("dimensionless", where), t, -1.0, 1.0, "a valve command")


MODELS: tuple[str, ...] = get_args(ArmScenario.model_fields["model"].annotation)
"""Actuator models an arm scenario may select with ``model``."""

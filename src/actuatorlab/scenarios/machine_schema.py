"""Schema of the ``machine`` scenario: the user's MJCF or URDF model with hydraulic cylinders,
circuits, valve commands or closed loops, loads and an initial pose, all in one file.

Tables: ``[relaxation]`` (quasistatic model: one for every cylinder; without it each
cylinder's own ``relaxation``, or the default for its load); the hydraulics as either ``[[circuits]]`` (a
supply: the papers' fixed-displacement pump with bleed and relief — shared by its cylinders
(Sec. 6) or one per cylinder — or a constant-pressure supply; valve sizes, reliefs, fluid) or a
netlist ``[components.NAME]`` (any circuit, the syntax of the ``circuit`` kind,
:mod:`.netlist_schema`) with its ``[inputs]`` (spool positions, pump speeds as signals of time);
``[[cylinders]]`` (pins, size, and either a ``circuit`` with an open-loop ``command`` or a
``[cylinders.control]`` closed loop, or the netlist's nodes of its chambers, ``ports = { head =
"A1", rod = "B1" }``); ``[[loads]]`` and ``[[payloads]]``, ``initial_pose`` (joint values),
``[picture]``. The model file is read relative to the scenario file and never modified
(:mod:`actuatorlab.multibody.model_file`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, StrictBool, StrictInt, StrictStr, field_validator

from ..control.pi import PIController
from ..errors import ParameterError, ScenarioError
from ..hydraulics.fluid import OIL_BULK_MODULUS
from ..hydraulics.pressure_dynamics import PressureDynamics
from ..hydraulics.quasistatic.circuit import ValveCircuit
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..multibody.netlist_actuators import NetlistCylinder, NetlistMotor
from ..multibody.open_centre import OpenCentreBleed
from ..validation import stroke_fits
from .circuit_schema import netlist_inputs
from .loading import scenario_folder
from .netlist_schema import NetlistField
from .signal_specs import DimensionlessSignal, ForceSignal, signal_spec
from .spec_base import (
    Area,
    Damping,
    Density,
    Dimensionless,
    Displacement,
    FlowGain,
    Length,
    Mass,
    OutputsSpec,
    PlainName,
    Pressure,
    RotationalDamping,
    RotationalStiffness,
    Spec,
    Stiffness,
    Time,
    Volume,
    VolumeFlow,
    defaults_of,
    reported_at,
)
from .units import convert

LengthSignal = signal_spec("length")
AngleSignal = signal_spec("angle")
TorqueSignal = signal_spec("torque")
_FLUID = defaults_of(PressureDynamics)
_CIRCUIT = defaults_of(ValveCircuit)
_RELAX = defaults_of(Relaxation)
_BLEED = defaults_of(OpenCentreBleed)
_MOTOR = defaults_of(NetlistMotor)


def _three(value, what: str):
    if value is not None and len(value) != 3:
        raise ValueError(f"give three components [x, y, z] of the {what}, received {len(value)}")
    return value


class PinSpec(Spec):
    """A cylinder end or load point: an existing ``site``, or ``body`` + ``point`` (body frame)."""

    site: StrictStr | None = None
    body: StrictStr | None = None
    point: list[Length] | None = None

    @field_validator("point")
    @classmethod
    def _point(cls, value):
        return _three(value, "point")

    def check_at(self, where: str) -> None:
        if (self.site is None) == (self.body is None):
            raise ScenarioError(f"{where}: give site = the name of a site, or body (and point), not both or neither")
        if self.site is not None and self.point is not None:
            raise ScenarioError(f"{where}.point: a site fixes the point already; drop point or give body instead")


class RelaxationSpec(Spec):
    """The virtual spring–damper of every quasistatic cylinder (K [N/m], B [N s/m], (68a)): the
    top-level ``[relaxation]``, an override for all cylinders where given (a field left out keeps
    the former fixed default, 5e7 N/m or 2.5e6 N s/m, as files written before the per-cylinder
    default ran)."""

    stiffness: Stiffness = _RELAX["stiffness"]
    damping: Damping = _RELAX["damping"]

    def build(self, where: str) -> Relaxation:
        with reported_at(where, own_prefix="relaxation."):
            return Relaxation(self.stiffness, self.damping)


class CylinderRelaxationSpec(RelaxationSpec):
    """One cylinder's own relaxation, ``relaxation = { stiffness = "2e8 N/m", damping = "3e6 N s/m" }``
    under its ``[[cylinders]]``: both values, no default (over the top-level ``[relaxation]`` and
    the default for its load)."""

    stiffness: Stiffness
    damping: Damping


class CircuitSpec(Spec):
    """One supply and the valves of its cylinders (every cylinder of the circuit gets its own four
    main valves and chamber reliefs of these sizes). ``supply = "pump"``: the fixed-displacement
    pump (``pump_flow``, relief ``pump_relief_pressure``, bleed valve ``bleed_area`` opened by
    ``bleed`` or open-centre), shared by all its cylinders if ``shared`` (Sec. 6) or one per
    cylinder; ``"constant-pressure"``: a pressure-compensated pump or accumulator at
    ``supply_pressure``. Valve size: ``valve_area`` with ``discharge_coefficient``, or the rated
    flow ``valve_rated_flow`` at the drop ``valve_rated_pressure_drop``."""

    name: StrictStr
    supply: Literal["pump", "constant-pressure"] = "pump"
    shared: StrictBool = True
    pump_flow: VolumeFlow = _CIRCUIT["pump_flow"]
    pump_relief_pressure: Pressure = _CIRCUIT["pump_relief_pressure"]
    supply_pressure: Pressure | None = None
    bleed_area: Area = _CIRCUIT["max_area"]
    bleed: DimensionlessSignal = Field(0.0, validate_default=True)
    open_centre: StrictBool = False
    bleed_span: Dimensionless = _BLEED["span"]
    bleed_min: Dimensionless = _BLEED["minimum"]
    valve_area: Area | None = None
    valve_rated_flow: VolumeFlow | None = None
    valve_rated_pressure_drop: Pressure = 3.5e6
    """Δp_n [Pa] at which ``valve_rated_flow`` is rated (35 bar, a usual catalogue rating): a sizing
    input of this table only, no parameter class holds it."""
    discharge_coefficient: Dimensionless = _CIRCUIT["discharge_coefficient"]
    oil_density: Density = _CIRCUIT["oil_density"]
    head_relief_pressure: Pressure = _CIRCUIT["head_relief_pressure"]
    rod_relief_pressure: Pressure = _CIRCUIT["rod_relief_pressure"]
    regeneration_area: Area = _CIRCUIT["regeneration_max_area"]
    bulk_modulus: Pressure = _FLUID["bulk_modulus"]
    pump_line_volume: Volume = _FLUID["pump_line_volume"]
    laminar_pressure: Pressure = _FLUID["laminar_pressure"]
    relief_flow_gain: FlowGain = _FLUID["relief_flow_gain"]
    check_flow_gain: FlowGain = _FLUID["check_flow_gain"]

    def main_valve_area(self) -> float:
        """a [m²] of each main valve: given, or from the rated flow Q_n at Δp_n,
        Q_n = C·a·√(2Δp_n/ρ)."""
        if self.valve_rated_flow is None:
            return _CIRCUIT["max_area"] if self.valve_area is None else self.valve_area
        return self.valve_rated_flow / (
            self.discharge_coefficient * math.sqrt(2.0 * self.valve_rated_pressure_drop / self.oil_density)
        )

    def circuit(self, head_area: float, rod_area: float) -> ValveCircuit:
        area = self.main_valve_area()
        return ValveCircuit(
            discharge_coefficient=self.discharge_coefficient,
            max_area={"ph": area, "tr": area, "pr": area, "th": area, "b": self.bleed_area},
            oil_density=self.oil_density,
            head_area=head_area,
            rod_area=rod_area,
            head_relief_pressure=self.head_relief_pressure,
            rod_relief_pressure=self.rod_relief_pressure,
            pump_relief_pressure=self.pump_relief_pressure if self.supply == "pump" else self.supply_pressure,
            pump_flow=self.pump_flow,
            regeneration_max_area=self.regeneration_area,
        )

    def check_at(self, where: str) -> None:
        if self.valve_area is not None and self.valve_rated_flow is not None:
            raise ScenarioError(f"{where}: give valve_area or valve_rated_flow, not both")
        if self.supply == "constant-pressure":
            if self.supply_pressure is None:
                raise ScenarioError(
                    f'{where}.supply_pressure: required with supply = "constant-pressure"; add '
                    'supply_pressure = "21 MPa"'
                )
            if self.open_centre:
                raise ScenarioError(f"{where}.open_centre: a constant-pressure supply has no bleed; drop open_centre")
        elif self.supply_pressure is not None:
            raise ScenarioError(
                f'{where}.supply_pressure: applies to supply = "constant-pressure" only; the pump\'s '
                "pressure follows from its flow and relief (pump_relief_pressure)"
            )
        with reported_at(where):
            self.circuit(0.02, 0.01)


class ControlSpec(Spec):
    """A closed loop: the target ``stroke`` [m] of the cylinder, or the ``angle`` [rad] of hinge
    ``joint``, as a signal of time; PI gains ``kp`` [1/m or 1/rad], ``ki`` [1/(m s) or
    1/(rad s)], feed-forward ``kff`` [s/m or s/rad], saturation ``limit`` of |u_c| and
    ``sample_time`` (a multiple of the model's timestep). On a netlist, ``drives`` names the
    spool positions the command u_c drives (``"boom_valve.position"``, …)."""

    stroke: LengthSignal | None = None
    joint: StrictStr | None = None
    angle: AngleSignal | None = None
    kp: float
    ki: float = 0.0
    kff: float = 0.0
    limit: Dimensionless = 1.0
    sample_time: Time = 0.01
    drives: list[StrictStr] = Field(default_factory=list)

    def check_at(self, where: str, joint: str | None = None) -> None:
        """Checks naming ``where``; ``joint``: the hinge an angle target is measured on when the
        table names none (a motor's own)."""
        if (self.stroke is None) == (self.angle is None):
            raise ScenarioError(f"{where}: give the target stroke, or joint and angle (one of them)")
        if (self.angle is None) != (self.measured_joint(joint) is None):
            raise ScenarioError(f"{where}: an angle target needs joint = the hinge it is measured on, and back")
        with reported_at(where, own_prefix="controller."):
            self.controller()

    def controller(self) -> PIController:
        return PIController(self.kp, self.ki, self.kff, self.limit, self.sample_time)

    def measured_joint(self, own: str | None = None) -> str | None:
        """The joint an angle target is measured on: ``joint``, else ``own`` (a motor's)."""
        return self.joint if self.joint is not None else (own if self.angle is not None else None)


def _check_drives(control: ControlSpec | None, where: str, spools: list[str], inputs) -> None:
    """A closed loop on a netlist names the spools it drives: spool positions of the netlist
    (``spools``) that ``inputs`` does not give."""
    if control is None:
        return
    if not control.drives:
        raise ScenarioError(
            f'{where}.drives: missing; name the spool positions the loop drives, drives = ["valve.position"]'
        )
    for key in control.drives:
        if key not in spools:
            raise ScenarioError(
                f"{where}.drives: {key!r} is not a spool position of the netlist; its spools are "
                f"{', '.join(spools) or 'none'}"
            )
        if key in inputs:
            raise ScenarioError(f'{where}.drives: {key!r} is also given in [inputs]; drop inputs."{key}"')


class CylinderSpec(Spec):
    """One cylinder: its pins (``base`` and ``rod`` ends, or a slide ``joint`` with
    ``length_offset``: ℓ = qpos + offset), its size (``bore`` and ``rod_diameter`` with ``count``
    cylinders acting together, or ``head_area`` and ``rod_area``), ``stroke``,
    ``retracted_length`` (pin to pin, fully retracted), chamber dead volumes (hoses included),
    its own ``relaxation`` (quasistatic model; default: the top-level ``[relaxation]`` where
    given, else chosen for its load, :func:`actuatorlab.hydraulics.quasistatic.relaxation.default_relaxation`),
    and its hydraulics: a ``circuit`` of ``[[circuits]]`` with its valve, an open-loop
    ``command`` u_c ∈ [−1, 1] (> 0 extends) or a ``control`` closed loop, and ``regeneration``
    u_a (pressure-dynamics model); or, on a netlist, ``ports`` naming the nodes of its ``head``
    and ``rod`` chambers and a piston ``leakage`` [m³/(s Pa)] from head to rod chamber."""

    name: StrictStr
    circuit: StrictStr | None = None
    ports: dict[str, StrictStr] | None = None
    leakage: FlowGain = 0.0
    base: PinSpec | None = None
    rod: PinSpec | None = None
    joint: StrictStr | None = None
    length_offset: Length = 0.0
    bore: Length | None = None
    rod_diameter: Length | None = None
    count: StrictInt = 1
    head_area: Area | None = None
    rod_area: Area | None = None
    stroke: Length
    retracted_length: Length
    head_dead_volume: Volume = _FLUID["head_dead_volume"]
    rod_dead_volume: Volume = _FLUID["rod_dead_volume"]
    initial_low_pressure: Pressure = 2.0e6
    relaxation: CylinderRelaxationSpec | None = None
    command: DimensionlessSignal = Field(0.0, validate_default=True)
    control: ControlSpec | None = None
    regeneration: DimensionlessSignal = Field(0.0, validate_default=True)

    @field_validator("ports")
    @classmethod
    def _ports(cls, value):
        if value is not None and set(value) != {"head", "rod"}:
            raise ValueError(f'give the nodes of the two chambers, ports = {{ head = "A", rod = "B" }}, not {value}')
        return value

    def areas(self) -> tuple[float, float]:
        """(A_h, A_r) [m²]."""
        if self.bore is not None:
            rod = self.rod_diameter or 0.0
            return (self.count * math.pi * self.bore**2 / 4.0, self.count * math.pi * (self.bore**2 - rod**2) / 4.0)
        return self.head_area, self.rod_area

    def check_at(self, where: str) -> None:
        if self.joint is None:
            if self.base is None or self.rod is None:
                raise ScenarioError(
                    f"{where}: give both pins, base and rod (a site, or body and point), or joint = a slide joint"
                )
            self.base.check_at(f"{where}.base")
            self.rod.check_at(f"{where}.rod")
        elif self.base is not None or self.rod is not None:
            raise ScenarioError(f"{where}: give the pins (base, rod) or joint, not both")
        sized = (
            self.bore is not None and self.rod_diameter is not None,
            self.head_area is not None and self.rod_area is not None,
        )
        if sized[0] == sized[1] or (sized[0] and (self.head_area or self.rod_area)):
            raise ScenarioError(f"{where}: give the size as bore and rod_diameter, or as head_area and rod_area")
        if self.count < 1:
            raise ScenarioError(f"{where}.count = {self.count}: give the number of cylinders acting together, >= 1")
        try:
            stroke_fits(self.stroke, self.retracted_length, where)
        except ParameterError as error:
            raise ScenarioError(str(error)) from None
        if self.control is not None:
            self.control.check_at(f"{where}.control")
        if self.relaxation is not None:
            self.relaxation.build(f"{where}.relaxation")

    def valve_fields(self) -> dict[str, bool]:
        """Whether each field of a cylinder on ``[[circuits]]`` is given (off its default)."""

        def driven(signal) -> bool:
            return signal.type != "constant" or signal.value != 0.0

        return {
            "circuit": self.circuit is not None,
            "command": driven(self.command),
            "regeneration": driven(self.regeneration),
        }

    def netlist_cylinder(self, **pins) -> NetlistCylinder:
        """This cylinder on a netlist (its ``ports``), at ``pins`` (none: for checking its size)."""
        head, rod = self.areas()
        return NetlistCylinder(
            self.name,
            head_node=self.ports["head"],
            rod_node=self.ports["rod"],
            head_area=head,
            rod_area=rod,
            stroke=self.stroke,
            retracted_length=self.retracted_length,
            head_dead_volume=self.head_dead_volume,
            rod_dead_volume=self.rod_dead_volume,
            leakage=self.leakage,
            initial_low_pressure=self.initial_low_pressure,
            **pins,
        )


class MotorSpec(Spec):
    """A hydraulic motor of a netlist turning hinge ``joint`` through its gear: ``ports`` the
    nodes of its ``inlet`` and ``outlet``; ``displacement`` D per motor revolution,
    ``gear_ratio`` i (motor revolutions per joint revolution); efficiencies; the relaxation
    joining its shaft to the joint (quasistatic model), ``stiffness`` [N m/rad] and
    ``damping`` [N m s/rad]; ``initial_low_pressure`` of the less loaded port at the start;
    ``control``: a closed loop on an ``angle`` target (of its own joint unless ``joint`` is
    given) driving the spools it names. Oil flowing inlet → outlet turns the joint positively
    about its axis."""

    name: StrictStr
    joint: StrictStr
    ports: dict[str, StrictStr]
    displacement: Displacement
    gear_ratio: Dimensionless = _MOTOR["gear_ratio"]
    volumetric_efficiency: Dimensionless = _MOTOR["volumetric_efficiency"]
    mechanical_efficiency: Dimensionless = _MOTOR["mechanical_efficiency"]
    stiffness: RotationalStiffness = _MOTOR["stiffness"]
    damping: RotationalDamping = _MOTOR["damping"]
    initial_low_pressure: Pressure = _MOTOR["initial_low_pressure"]
    control: ControlSpec | None = None

    @field_validator("ports")
    @classmethod
    def _ports(cls, value):
        if set(value) != {"inlet", "outlet"}:
            raise ValueError(f'give the nodes of the two ports, ports = {{ inlet = "A", outlet = "B" }}, not {value}')
        return value

    def netlist_motor(self) -> NetlistMotor:
        """This motor as the netlist machine takes it."""
        fields = self.model_dump(exclude={"name", "joint", "ports", "control"})
        return NetlistMotor(self.name, self.joint, self.ports["inlet"], self.ports["outlet"], **fields)


class LoadSpec(Spec):
    """An external load on a body: ``force`` [N] at the point (``site``, or ``body`` + ``point``)
    and ``moment`` [N m] on its body, each three signals of time in the world frame."""

    site: StrictStr | None = None
    body: StrictStr | None = None
    point: list[Length] | None = None
    force: list[ForceSignal] = Field(default_factory=lambda: [0.0, 0.0, 0.0], validate_default=True)
    moment: list[TorqueSignal] = Field(default_factory=lambda: [0.0, 0.0, 0.0], validate_default=True)

    @field_validator("point", "force", "moment")
    @classmethod
    def _vector(cls, value, info):
        return _three(value, info.field_name)

    def pin(self) -> PinSpec:
        return PinSpec(site=self.site, body=self.body, point=self.point)


class PayloadSpec(Spec):
    """A payload ``mass`` [kg] carried by ``body`` at ``point`` (body frame): weight and inertia."""

    body: StrictStr
    point: list[Length] = Field(default_factory=lambda: [0.0, 0.0, 0.0])
    mass: Mass

    @field_validator("point")
    @classmethod
    def _point(cls, value):
        return _three(value, "point")


class PictureSpec(Spec):
    """The picture of the machine: ``times`` (default 4 instants over the run), ``renderer``
    ``"auto"`` (MuJoCo's offscreen renderer where it works, else a drawing), ``"mujoco"`` or
    ``"drawing"``; ``plane`` of the drawing (``"xz"`` side view, ``"xy"`` top, ``"yz"``)."""

    times: list[Time] | None = None
    renderer: Literal["auto", "mujoco", "drawing"] = "auto"
    plane: Literal["xz", "xy", "yz"] = "xz"


class MachineScenario(Spec):
    """Hydraulic cylinders in the user's model file: see the module docstring and docs/machines.md."""

    kind: Literal["machine"] = "machine"
    name: PlainName
    description: StrictStr
    model_file: StrictStr
    model: Literal["quasistatic", "pressure-dynamics"] = "quasistatic"
    duration: Time
    timestep: Time | None = None
    drop_actuators: StrictBool = False
    drop_missing_assets: StrictBool = False
    drop_unreadable_meshes: StrictBool = False
    """Run without the meshes MuJoCo cannot read (a URDF's COLLADA ``.dae``), noted in the report;
    refused by default, naming them."""
    drop_plugins: StrictBool = False
    contacts: StrictBool = True
    initial_pose: dict[str, float | StrictStr] = Field(default_factory=dict)
    settle: StrictBool = False
    """Move the joints no cylinder holds to the nearest equilibrium before the run (else a pose
    they are not balanced in is refused, naming them)."""
    check_interval: Time = 0.05
    relaxation: RelaxationSpec | None = None
    """The quasistatic cylinders' relaxation for all of them (none given: each cylinder's own, or
    the default for its load and the step)."""
    circuits: list[CircuitSpec] = Field(default_factory=list)
    components: NetlistField | None = None
    inputs: dict[str, Any] = Field(default_factory=dict)
    bulk_modulus: Pressure = OIL_BULK_MODULUS
    """β [Pa] of the netlist's oil (node volumes, pressure-dynamics model); each of
    ``[[circuits]]`` has its own."""
    cylinders: list[CylinderSpec] = Field(default_factory=list)
    motors: list[MotorSpec] = Field(default_factory=list)
    loads: list[LoadSpec] = Field(default_factory=list)
    payloads: list[PayloadSpec] = Field(default_factory=list)
    picture: PictureSpec = Field(default_factory=PictureSpec)
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    _inputs = field_validator("inputs")(netlist_inputs)

    @field_validator("model_file")
    @classmethod
    def _resolve(cls, value: str) -> str:
        """The model file as an absolute path: relative to the scenario file's folder (the current
        folder for a scenario built in Python)."""
        path = Path(value).expanduser()
        if not path.is_absolute():
            path = (scenario_folder.get() or Path.cwd()) / path
        return str(path.resolve())

    def given_relaxations(self) -> dict[str, Relaxation | None]:
        """Per cylinder name its relaxation as the file gives it: its own, else the top-level
        ``[relaxation]``, else None (the default for its load, chosen on the model)."""
        out = {}
        for i, c in enumerate(self.cylinders):
            if c.relaxation is not None:
                out[c.name] = c.relaxation.build(f"cylinders[{i}].relaxation")
            else:
                out[c.name] = None if self.relaxation is None else self.relaxation.build("relaxation")
        return out

    def pose_value(self, name: str, hinge: bool) -> float:
        """``initial_pose[name]`` in SI: rad for a hinge, m for a slide joint."""
        with reported_at(f"initial_pose.{name}"):
            try:
                return convert(self.initial_pose[name], "angle" if hinge else "length")
            except ScenarioError as err:
                raise ParameterError(str(err)) from None

    def check(self) -> None:
        if (self.components is None) == (not self.circuits):
            raise ScenarioError(
                "give the hydraulics as [[circuits]] tables (the papers' valve circuits) or as a netlist of "
                "[components.NAME] tables, one of the two"
            )
        if not self.cylinders and not self.motors:
            raise ScenarioError("cylinders: empty; add at least one [[cylinders]] table")
        for what, names in (("cylinders", [c.name for c in self.cylinders]), ("motors", [m.name for m in self.motors])):
            repeated = sorted({n for n in names if names.count(n) > 1})
            if repeated:
                raise ScenarioError(f"{what}: the name {repeated[0]!r} is used twice; give each a distinct name")
        for i, c in enumerate(self.cylinders):
            c.check_at(f"cylinders[{i}]")
        if self.components is None:
            self._check_circuits()
        else:
            self.netlist_network()
        for i, load in enumerate(self.loads):
            load.pin().check_at(f"loads[{i}]")
        if self.relaxation is not None:
            self.relaxation.build("relaxation")
        if self.timestep is not None and not 0 < self.timestep <= 0.01:
            raise ScenarioError(f"timestep = {self.timestep} s: give a step in (0, 10 ms]")

    def _check_circuits(self) -> None:
        """The cylinders on ``[[circuits]]``: each names one, with no netlist fields."""
        netlist_only = (
            ("inputs", bool(self.inputs)),
            ("bulk_modulus", self.bulk_modulus != OIL_BULK_MODULUS),
            ("motors", bool(self.motors)),
        )
        for key, given in netlist_only:
            if given:
                raise ScenarioError(f"{key}: applies to a netlist of [components]; the [[circuits]] have their own")
        circuits = [c.name for c in self.circuits]
        repeated = sorted({n for n in circuits if circuits.count(n) > 1})
        if repeated:
            raise ScenarioError(f"circuits: the name {repeated[0]!r} is used twice; give each a distinct name")
        for i, c in enumerate(self.circuits):
            c.check_at(f"circuits[{i}]")
        for i, c in enumerate(self.cylinders):
            where = f"cylinders[{i}]"
            netlist_fields = (
                ("ports", c.ports is not None),
                ("leakage", c.leakage != 0.0),
                ("control.drives", c.control is not None and bool(c.control.drives)),
            )
            for key, given in netlist_fields:
                if given:
                    raise ScenarioError(
                        f"{where}.{key}: applies to a cylinder on a netlist of [components]; on [[circuits]] drop it"
                    )
            if c.circuit not in circuits:
                raise ScenarioError(f"{where}.circuit = {c.circuit!r} is not a circuit; the circuits are {circuits}")
            if self.model == "quasistatic" and c.valve_fields()["regeneration"]:
                raise ScenarioError(
                    f"{where}.regeneration: the regeneration valve inside a multibody model needs "
                    'model = "pressure-dynamics"; drop regeneration or change the model'
                )

    def netlist_network(self):
        """The checked network of the netlist with the cylinders and motors joined to their ports'
        nodes (their fields checked first, each error naming its table)."""
        spools = [f"{e.name}.position" for e in self.components.entries if e.type == "SpoolValve"]
        parts = {}
        for i, c in enumerate(self.cylinders):
            where = f"cylinders[{i}]"
            for key, given in c.valve_fields().items():
                if given:
                    raise ScenarioError(
                        f"{where}.{key}: a cylinder on a netlist moves with the netlist's valves; drop {key} and drive "
                        'the valves in [inputs] (e.g. "spool.position")'
                    )
            if c.ports is None:
                raise ScenarioError(f'{where}.ports: missing; add ports = {{ head = "A", rod = "B" }} (nodes)')
            _check_drives(c.control, f"{where}.control", spools, self.inputs)
            if c.name in self.components.parts():
                raise ScenarioError(f"{where}.name = {c.name!r} is also a component's; give the cylinder another name")
            try:
                parts[c.name] = (c.netlist_cylinder().component(0.0), c.ports)
            except ParameterError as error:
                raise ScenarioError(f"{where} ({c.name}): {error}") from None
        for i, m in enumerate(self.motors):
            where = f"motors[{i}]"
            if m.control is not None:
                m.control.check_at(f"{where}.control", joint=m.joint)
                if m.control.stroke is not None:
                    raise ScenarioError(f"{where}.control.stroke: a motor has no stroke; give an angle target")
            _check_drives(m.control, f"{where}.control", spools, self.inputs)
            if m.name in self.components.parts() or m.name in parts:
                raise ScenarioError(f"{where}.name = {m.name!r} is also a component's or a cylinder's; give it another")
            try:
                parts[m.name] = (m.netlist_motor().component(0.0), m.ports)
            except ParameterError as error:
                raise ScenarioError(f"{where} ({m.name}): {error}") from None
        return self.components.network(self.bulk_modulus, extra=parts)

"""The ~20 t excavator (boom, stick, bucket) as data: parameters, its MJCF model, the digging cycle.

The machine is planar: a fixed upper frame (no swing, no tracks) and three links on hinges about
one horizontal axis (world x forward, z up, gravity −z; joint angles counter-clockwise in the
x–z side view, i.e. about −y). Three hydraulic cylinders (boom, stick, bucket) act between named
sites of the model that ``excavator_mjcf`` writes from ``ExcavatorParameters`` (no data file to
ship); all three share one pump (``PUMP``). ``DigCycle`` is the scripted digging cycle: valve
commands, the open-centre bleed and the soil loads as functions of time. The MuJoCo system that
runs them is :mod:`actuatorlab.multibody.excavator`.

Signs: a cylinder force f > 0 pushes its pins apart; u_c > 0 extends. Boom cylinder extension
raises the boom, stick cylinder extension pulls the stick in (towards the machine), bucket
cylinder extension curls the bucket. All values SI.

Parameter sources. Masses, lengths and cylinder sizes are typical of the 20 t class (Komatsu
PC200-8 / Caterpillar 320 size): "typical value, assumption" unless a source is named; none
is taken from a specific data sheet, and the pin positions are a simplified planar layout
chosen so that each cylinder's stroke covers the working range (documented per field). The
bucket linkage (H-link and guide link) is replaced by a lever on the bucket, which reduces the
bucket's rotation range to about 150°. Cylinder masses (≈ 150–250 kg each) are neglected. The
oil's density and bulk modulus are those of :mod:`actuatorlab.hydraulics.fluid`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import ParameterError
from ..hydraulics.fluid import OIL_BULK_MODULUS, OIL_DENSITY
from ..hydraulics.pressure_dynamics import PressureDynamics
from ..hydraulics.quasistatic.circuit import ValveCircuit
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..numerics.signals import smooth_pulse
from ..validation import check_fields, finite, non_negative, positive

CYLINDERS = ("boom", "stick", "bucket")
"""Cylinder names (inputs and result channels are keyed by them)."""
JOINTS = ("boom_joint", "stick_joint", "bucket_joint")
"""Hinge names; qpos_0, qpos_1, qpos_2 are their angles [rad] (stick and bucket relative to the
link before)."""
PUMP = "main"
"""The name of the one pump all three cylinders share."""
TIP_SITE = "bucket_tip"
SOIL_SITE = "bucket_soil"
GRAVITY = 9.81
"""g [m/s²] of the model (along −z) and of the soil's weight."""

Point = tuple[float, float]


def _point(name: str, value, unit: str = "m") -> Point:
    """``value`` as a pair of finite floats, else ``ParameterError`` naming ``name``."""
    if not (isinstance(value, (tuple, list)) and len(value) == 2):
        raise ParameterError(f"{name} = {value!r}: give a pair (x, z) of finite numbers [{unit}]")
    return (finite(f"{name}[0]", value[0], unit), finite(f"{name}[1]", value[1], unit))


def _phase(name: str, value, end: float) -> tuple[float, float, float]:
    """``value`` = (start [s], stop [s], level u_c) with 0 <= start < stop <= end and level in [−1, 1]."""
    if not (isinstance(value, (tuple, list)) and len(value) == 3):
        raise ParameterError(f"{name} = {value!r}: give (start [s], stop [s], valve command in [-1, 1])")
    start = non_negative(f"{name}[0]", value[0], "s")
    stop = finite(f"{name}[1]", value[1], "s")
    level = finite(f"{name}[2]", value[2], "")
    if not start < stop <= end:
        raise ParameterError(f"{name} = {tuple(value)!r}: give start < stop <= end = {end!r} s")
    if not -1.0 <= level <= 1.0:
        raise ParameterError(f"{name}[2] = {level!r}: a valve command must lie in [-1, 1]")
    return (start, stop, level)


@dataclass(frozen=True)
class CylinderSize:
    """One cylinder (or a pair acting together, ``count`` = 2): bore D and rod diameter d [m],
    stroke s [m], pin-to-pin length at full retraction ℓ₀ [m], and the hose/dead oil volume of
    each chamber [m³] (pressure-dynamics model)."""

    bore: float
    rod: float
    stroke: float
    retracted_length: float
    count: int = 1
    dead_volume: float = 2.0e-3

    def __post_init__(self) -> None:
        check_fields(
            self,
            positive,
            (("bore", "m"), ("rod", "m"), ("stroke", "m"), ("retracted_length", "m"), ("dead_volume", "m^3")),
        )
        if self.rod >= self.bore:
            raise ParameterError(
                f"rod = {self.rod!r} m: the rod diameter must be smaller than the bore {self.bore!r} m; give rod < bore"
            )
        if isinstance(self.count, bool) or not isinstance(self.count, (int, np.integer)) or self.count < 1:
            raise ParameterError(
                f"count = {self.count!r}: give the number of cylinders acting together, an integer >= 1"
            )

    @property
    def head_area(self) -> float:
        """A_h = count·πD²/4 [m²]."""
        return self.count * math.pi * self.bore**2 / 4.0

    @property
    def rod_area(self) -> float:
        """A_r = count·π(D² − d²)/4 [m²] (annulus)."""
        return self.count * math.pi * (self.bore**2 - self.rod**2) / 4.0


_POINTS = (
    "boom_foot",
    "boom_cylinder_base",
    "boom_cylinder_rod",
    "stick_cylinder_base",
    "stick_cylinder_rod",
    "bucket_cylinder_base",
    "bucket_cylinder_rod",
    "boom_com",
    "stick_com",
    "bucket_com",
    "soil_point",
    "bucket_back",
    "house_com",
)
"""The (x, z) point fields of ``ExcavatorParameters``."""
_POSITIVE = (
    ("boom_length", "m"),
    ("stick_length", "m"),
    ("bucket_radius", "m"),
    ("boom_mass", "kg"),
    ("boom_inertia", "kg m^2"),
    ("stick_mass", "kg"),
    ("stick_inertia", "kg m^2"),
    ("bucket_mass", "kg"),
    ("bucket_inertia", "kg m^2"),
    ("house_mass", "kg"),
    ("house_inertia", "kg m^2"),
    ("pump_flow", "m^3/s"),
    ("pump_relief_pressure", "Pa"),
    ("chamber_relief_pressure", "Pa"),
    ("valve_area", "m^2"),
    ("bleed_area", "m^2"),
    ("discharge_coefficient", "1"),
    ("oil_density", "kg/m^3"),
    ("bulk_modulus", "Pa"),
    ("pump_line_volume", "m^3"),
)
"""The fields of ``ExcavatorParameters`` that must be finite and > 0, with their units."""


@dataclass(frozen=True)
class ExcavatorParameters:
    """Geometry, masses, cylinders and circuit of the planar 20 t excavator (SI units).

    Link frames: each link's x axis runs from its joint to the next joint (bucket: to the tooth
    tip), z perpendicular in the side view; points are (x, z) in that frame, in the world frame
    for the base.

    Geometry (typical values, assumptions unless noted):
      - ``boom_foot`` (0, 2.0) m: boom foot pin 2.0 m above ground (20 t class ≈ 1.9–2.1 m).
      - ``boom_length`` 5.7 m foot pin → stick pin (PC200 / 320 standard boom 5.7 m).
      - ``stick_length`` 2.9 m stick pin → bucket pin (standard arm 2.9 m).
      - ``bucket_radius`` 1.45 m bucket pin → tooth tip (1.0 m³ GP bucket ≈ 1.4–1.5 m).
      - cylinder pins: boom cylinder from the frame at (0.9, 0.5) to the boom belly at
        (2.6, −0.55); stick cylinder from the boom top at (2.9, 0.8) to the stick tail at
        (−0.7, 0.2); bucket cylinder from the stick at (0.45, 0.45) to a bucket lever at
        (−0.2, 0.42) — a simplified layout chosen so that each stroke covers the working range.

    Masses (typical values, assumptions): boom 1 800 kg, stick 900 kg, bucket 800 kg (1 m³ GP
    bucket); centres of mass and inertias about them as in the fields (slender-beam estimates
    m L²/12 for boom and stick, a 1.2 m × 1.0 m shell for the bucket). The bucket's mouth faces
    its local −z (the side the tip moves to when curling), so its shell, centre of mass and the
    soil it holds (``soil_point``, the soil's centre) lie on the +z side of the pin–tip chord;
    ``bucket_back`` is a point of the shell (drawing only).

    Upper structure (used by ``excavator_mjcf(slew=True)`` only; typical values, assumptions):
    ``house_mass`` 9 000 kg (revolving frame, engine, cab and a ≈ 3.8 t counterweight; the
    20 t class's ≈ 20 t less the undercarriage and the attachment), its centre of mass at
    ``house_com`` (−0.8, 1.0) m (the counterweight pulls it behind the slew axis) and
    ``house_inertia`` 4·10⁴ kg m² about the vertical through it (counterweight at ≈ 2.6 m,
    the rest within ≈ 1.5 m).

    Cylinders (typical 20 t sizes, PC200-class shop-manual order of magnitude, assumption):
      boom 2 × Ø120/Ø85 mm, stroke 1.335 m; stick Ø135/Ø95 mm, stroke 1.49 m; bucket
      Ø115/Ø80 mm, stroke 1.12 m. Retracted lengths are fitted to the simplified pin layout.

    Circuit (typical values, assumption): pump flow Q = 430 L/min (two ≈ 215 L/min pumps of a
    20 t machine merged into one, as the issue asks for one pump), pump relief P_M = 34.3 MPa
    (20 t class main relief 34–35 MPa), chamber (port) reliefs 39.2 MPa; main valves
    C = 0.6, a = 1.2·10⁻⁴ m² (≈ 300 L/min at 2 MPa); bleed (open-centre) valve a_b = 2.5·10⁻⁴ m²
    (passes Q at ≈ 1 MPa fully open); oil density 850 kg/m³.
    Pressure dynamics: β = 1.5 GPa, chamber dead volumes (hoses) 2–3 L, pump line 2 L, the
    remaining fluid fields the project defaults (assumptions).
    Relaxation (quasistatic model): K = 5·10⁷ N/m (the project default), B = 1·10⁶ N s/m. The
    closed-valve bound h²K/m + 2hB/m < 4 must hold along the whole cycle, not only at the start
    pose (``simulate`` checks it there and every 50 ms along the run): the bucket's effective
    mass along its pin line falls to ≈ 1 150 kg when curled (measured over the cycle with
    ``HydraulicMujocoSystem.stability``), where the default B = 2.5·10⁶ gives 4.3 at h = 1 ms
    (a growing oscillation, refused by the run-time check); B = 1·10⁶ gives 1.8.

    Checked at construction: points are pairs of finite numbers; lengths, masses, inertias,
    flows, pressures, areas and fluid properties finite and > 0, C ≤ 1.
    """

    boom_foot: Point = (0.0, 2.0)
    boom_length: float = 5.7
    stick_length: float = 2.9
    bucket_radius: float = 1.45
    boom_cylinder_base: Point = (0.9, 0.5)
    boom_cylinder_rod: Point = (2.6, -0.55)
    stick_cylinder_base: Point = (2.9, 0.8)
    stick_cylinder_rod: Point = (-0.7, 0.2)
    bucket_cylinder_base: Point = (0.45, 0.45)
    bucket_cylinder_rod: Point = (-0.2, 0.42)
    boom_mass: float = 1800.0
    boom_com: Point = (2.6, 0.25)
    boom_inertia: float = 4900.0
    stick_mass: float = 900.0
    stick_com: Point = (1.2, 0.1)
    stick_inertia: float = 870.0
    bucket_mass: float = 800.0
    bucket_com: Point = (0.75, 0.25)
    bucket_inertia: float = 250.0
    soil_point: Point = (0.75, 0.3)
    bucket_back: Point = (0.7, 0.6)
    house_mass: float = 9000.0
    house_com: Point = (-0.8, 1.0)
    house_inertia: float = 4.0e4
    boom_cylinder: CylinderSize = CylinderSize(0.120, 0.085, 1.335, 1.85, count=2, dead_volume=2.0e-3)
    stick_cylinder: CylinderSize = CylinderSize(0.135, 0.095, 1.49, 2.2, dead_volume=2.5e-3)
    bucket_cylinder: CylinderSize = CylinderSize(0.115, 0.080, 1.12, 1.95, dead_volume=3.0e-3)
    pump_flow: float = 430.0 / 60000.0
    pump_relief_pressure: float = 34.3e6
    chamber_relief_pressure: float = 39.2e6
    valve_area: float = 1.2e-4
    bleed_area: float = 2.5e-4
    discharge_coefficient: float = 0.6
    oil_density: float = OIL_DENSITY
    bulk_modulus: float = OIL_BULK_MODULUS
    pump_line_volume: float = 2.0e-3
    relaxation: Relaxation = field(default_factory=lambda: Relaxation(5.0e7, 1.0e6))

    def __post_init__(self) -> None:
        for name in _POINTS:
            object.__setattr__(self, name, _point(name, getattr(self, name)))
        check_fields(self, positive, _POSITIVE)
        if self.discharge_coefficient > 1.0:
            raise ParameterError(f"discharge_coefficient = {self.discharge_coefficient!r}: must lie in (0, 1]")
        for name in ("boom_cylinder", "stick_cylinder", "bucket_cylinder"):
            if not isinstance(getattr(self, name), CylinderSize):
                raise ParameterError(f"{name} = {getattr(self, name)!r}: give a CylinderSize")
        if not isinstance(self.relaxation, Relaxation):
            raise ParameterError(f"relaxation = {self.relaxation!r}: give a Relaxation(K, B)")

    def cylinder(self, name: str) -> CylinderSize:
        """The size of cylinder ``name`` (``boom``, ``stick`` or ``bucket``)."""
        return {"boom": self.boom_cylinder, "stick": self.stick_cylinder, "bucket": self.bucket_cylinder}[name]

    def circuit(self, name: str) -> ValveCircuit:
        """The four-valve circuit of cylinder ``name``; all three share the pump fields (Q, P_M, c_b)."""
        size = self.cylinder(name)
        area = self.valve_area
        return ValveCircuit(
            discharge_coefficient=self.discharge_coefficient,
            max_area={"ph": area, "tr": area, "pr": area, "th": area, "b": self.bleed_area},
            oil_density=self.oil_density,
            head_area=size.head_area,
            rod_area=size.rod_area,
            head_relief_pressure=self.chamber_relief_pressure,
            rod_relief_pressure=self.chamber_relief_pressure,
            pump_relief_pressure=self.pump_relief_pressure,
            pump_flow=self.pump_flow,
        )

    def fluid(self, name: str) -> PressureDynamics:
        """The pressure-dynamics parameters of cylinder ``name`` (bulk modulus, dead volumes, stroke, pump line)."""
        size = self.cylinder(name)
        return PressureDynamics(
            bulk_modulus=self.bulk_modulus,
            head_dead_volume=size.dead_volume,
            rod_dead_volume=size.dead_volume,
            stroke=size.stroke,
            pump_line_volume=self.pump_line_volume,
            retracted_length=size.retracted_length,
        )


DIG_START_POSE = (math.radians(25.0), math.radians(-70.0), math.radians(20.0))
"""Joint angles [rad] at the start of the cycle: boom 25° up, stick 70° in from the boom line,
bucket 20° open from the stick line."""


def _xz(p: Point) -> str:
    return f"{p[0]:.17g} 0 {p[1]:.17g}"


def excavator_mjcf(params: ExcavatorParameters | None = None, timestep: float = 1e-3, slew: bool = False) -> str:
    """MJCF of the planar excavator: bodies ``boom``, ``stick``, ``bucket`` on hinges
    ``boom_joint``, ``stick_joint``, ``bucket_joint`` (axis −y, so angles are counter-clockwise in
    the x–z side view; all zero = every link along +x), sites ``boom_cyl_base`` (frame),
    ``boom_cyl_rod`` and ``stick_cyl_base`` (boom), ``stick_cyl_rod`` and ``bucket_cyl_base``
    (stick), ``bucket_cyl_rod``, ``bucket_tip``, ``bucket_soil`` and ``bucket_back`` (bucket), plus
    ``boom_foot``, ``stick_pin``, ``bucket_pin`` at the joints. Euler integrator at
    ``timestep`` [s], gravity 9.81 m/s² along −z, contacts disabled. ``slew``: the frame and the
    attachment ride on body ``house`` (the upper structure's mass and inertia) turning on hinge
    ``slew_joint`` about the vertical z through the origin (counter-clockwise seen from above)."""
    p = params or ExcavatorParameters()
    positive("timestep", timestep, "s")
    f = "{:.17g}".format

    def inertial(mass, com, iyy):
        # planar motion only needs I_yy; the other two are set equal (a valid inertia)
        return f'<inertial pos="{_xz(com)}" mass="{f(mass)}" diaginertia="{f(iyy)} {f(iyy)} {f(iyy)}"/>'

    def capsule(a: Point, b: Point, r: float) -> str:
        return f'<geom type="capsule" fromto="{_xz(a)} {_xz(b)}" size="{f(r)}" mass="0" contype="0" conaffinity="0"/>'

    s = 0.05
    house = house_end = ""
    if slew:
        house = (
            '\n    <body name="house" pos="0 0 0">'
            '\n      <joint name="slew_joint" type="hinge" axis="0 0 1" pos="0 0 0"/>'
            f"\n      {inertial(p.house_mass, p.house_com, p.house_inertia)}"
        )
        house_end = "\n    </body>"
    return f"""<mujoco model="excavator_20t">
  <option timestep="{f(timestep)}" gravity="0 0 {-GRAVITY:g}" integrator="Euler">
    <flag contact="disable"/>
  </option>
  <worldbody>{house}
    <geom type="box" pos="-0.5 0 1.0" size="1.5 1.2 0.5" contype="0" conaffinity="0" mass="0"/>
    <site name="boom_cyl_base" pos="{_xz(p.boom_cylinder_base)}" size="{s}"/>
    <body name="boom" pos="{_xz(p.boom_foot)}">
      <joint name="{JOINTS[0]}" type="hinge" axis="0 -1 0" pos="0 0 0"/>
      {inertial(p.boom_mass, p.boom_com, p.boom_inertia)}
      {capsule((0.0, 0.0), p.stick_cylinder_base, 0.25)}
      {capsule(p.stick_cylinder_base, (p.boom_length, 0.0), 0.2)}
      <site name="boom_foot" pos="0 0 0" size="{s}"/>
      <site name="boom_cyl_rod" pos="{_xz(p.boom_cylinder_rod)}" size="{s}"/>
      <site name="stick_cyl_base" pos="{_xz(p.stick_cylinder_base)}" size="{s}"/>
      <body name="stick" pos="{f(p.boom_length)} 0 0">
        <joint name="{JOINTS[1]}" type="hinge" axis="0 -1 0" pos="0 0 0"/>
        {inertial(p.stick_mass, p.stick_com, p.stick_inertia)}
        {capsule(p.stick_cylinder_rod, (p.stick_length, 0.0), 0.15)}
        <site name="stick_pin" pos="0 0 0" size="{s}"/>
        <site name="stick_cyl_rod" pos="{_xz(p.stick_cylinder_rod)}" size="{s}"/>
        <site name="bucket_cyl_base" pos="{_xz(p.bucket_cylinder_base)}" size="{s}"/>
        <body name="bucket" pos="{f(p.stick_length)} 0 0">
          <joint name="{JOINTS[2]}" type="hinge" axis="0 -1 0" pos="0 0 0"/>
          {inertial(p.bucket_mass, p.bucket_com, p.bucket_inertia)}
          {capsule(p.bucket_cylinder_rod, (0.0, 0.0), 0.08)}
          {capsule((0.0, 0.0), (p.bucket_radius, 0.0), 0.1)}
          <site name="bucket_pin" pos="0 0 0" size="{s}"/>
          <site name="bucket_cyl_rod" pos="{_xz(p.bucket_cylinder_rod)}" size="{s}"/>
          <site name="{TIP_SITE}" pos="{f(p.bucket_radius)} 0 0" size="{s}"/>
          <site name="{SOIL_SITE}" pos="{_xz(p.soil_point)}" size="{s}"/>
          <site name="bucket_back" pos="{_xz(p.bucket_back)}" size="{s}"/>
        </body>
      </body>
    </body>{house_end}
  </worldbody>
</mujoco>
"""


CYLINDER_SITES = {
    "boom": ("boom_cyl_base", "boom_cyl_rod"),
    "stick": ("stick_cyl_base", "stick_cyl_rod"),
    "bucket": ("bucket_cyl_base", "bucket_cyl_rod"),
}
"""The pin sites (base, rod) of each cylinder."""


# --------------------------------------------------------------------------------------------
# the digging cycle


_PHASES = ("boom_down", "stick_in", "bucket_curl", "boom_up", "stick_out")
"""The (start, stop, level) phases of ``DigCycle``."""


@dataclass(frozen=True)
class DigCycle:
    """The scripted digging cycle (times [s], valve commands u_c ∈ [−1, 1], forces [N]).

    Phases: hold (0–``hold``), boom down, stick in (with soil drag), bucket curl (overlapping
    the end of the stick-in, the drag fading), boom up with the bucket full, hold. Each command
    is a plateau with cosine ramps of ``ramp``. The open-centre bleed valve closes as any main
    valve opens: u_b = max(``bleed_min``, 1 − Σ|u_c|/``bleed_span``) (one bleed for the pump).

    Soil load on the bucket (documented assumption): during the stick-in a cutting/drag force at
    the tooth tip, ``drag`` = (F_x, F_z) with F_x > 0 resisting the pull towards the machine and
    F_z < 0 the penetration resistance (≈ 40 kN horizontal, 10 kN vertical: well below the ≈ 100
    kN arm and ≈ 140 kN bucket digging forces quoted for the 20 t class, ISO 6015); ramped with
    the stick command and fading over the curl; then the weight of a full 1 m³ bucket of soil,
    ``soil_mass`` = 1 800 kg (soil density ≈ 1.8 t/m³), at the ``bucket_soil`` site from the
    curl on.

    Checked at construction: every phase (start, stop, u_c) has 0 ≤ start < stop ≤ ``end`` and
    u_c ∈ [−1, 1], the two phases of the boom and of the stick follow each other, the hold ends
    before the first phase, ``ramp``, ``end`` and ``bleed_span`` > 0, ``bleed_min`` ∈ [0, 1].
    """

    hold: float = 1.0
    boom_down: tuple[float, float, float] = (1.0, 3.0, -0.35)
    stick_in: tuple[float, float, float] = (2.6, 6.6, 0.7)
    bucket_curl: tuple[float, float, float] = (5.4, 8.2, 0.6)
    boom_up: tuple[float, float, float] = (8.0, 11.2, 0.7)
    stick_out: tuple[float, float, float] = (9.0, 11.2, -0.3)
    end: float = 12.0
    ramp: float = 0.4
    drag: tuple[float, float] = (40.0e3, -10.0e3)
    soil_mass: float = 1800.0
    bleed_min: float = 0.05
    bleed_span: float = 0.8

    def __post_init__(self) -> None:
        check_fields(self, positive, (("end", "s"), ("ramp", "s"), ("bleed_span", "1")))
        check_fields(self, non_negative, (("hold", "s"), ("soil_mass", "kg")))
        if self.bleed_min > 1.0:
            raise ParameterError(f"bleed_min = {self.bleed_min!r}: a valve opening must lie in [0, 1]")
        check_fields(self, non_negative, (("bleed_min", "1"),))
        object.__setattr__(self, "drag", _point("drag", self.drag, "N"))
        for name in _PHASES:
            object.__setattr__(self, name, _phase(name, getattr(self, name), self.end))
        first = min(getattr(self, name)[0] for name in _PHASES)
        if self.hold > first:
            raise ParameterError(
                f"hold = {self.hold!r} s: the first phase starts at {first!r} s; give hold <= {first!r} s"
            )
        for before, after in (("boom_down", "boom_up"), ("stick_in", "stick_out")):
            stop, start = getattr(self, before)[1], getattr(self, after)[0]
            if stop > start:
                raise ParameterError(
                    f"{after} = {getattr(self, after)!r}: starts at {start!r} s, before {before} ends at {stop!r} s; "
                    "the two phases drive one cylinder and must not overlap"
                )

    @property
    def duration(self) -> float:
        """The cycle's length [s], its field ``end``."""
        return self.end

    def commands(self) -> dict:
        """Valve commands u_c(t) ∈ [−1, 1] by cylinder name (> 0 extends), as smoothed pulses."""

        def pulse(spec):
            start, stop, level = spec
            return lambda t: smooth_pulse(t, start, stop, level, self.ramp)

        stick = [pulse(self.stick_in), pulse(self.stick_out)]
        return {
            "boom": lambda t: pulse(self.boom_down)(t) + pulse(self.boom_up)(t),
            "stick": lambda t: stick[0](t) + stick[1](t),
            "bucket": pulse(self.bucket_curl),
        }

    def bleed(self):
        """The open-centre bleed opening u_b(t) ∈ [bleed_min, 1]: open while no valve is commanded,
        closing as they open."""
        commands = self.commands()

        def u_b(t):
            total = sum(np.abs(c(t)) for c in commands.values())
            return np.clip(1.0 - total / self.bleed_span, self.bleed_min, 1.0)

        return u_b

    def drag_weight(self, t):
        """Weight [-] of the drag load: rises with the stick-in, fades over the bucket curl."""
        t = np.asarray(t, dtype=np.float64)
        s0, _, _ = self.stick_in
        c0, c1, _ = self.bucket_curl
        up = np.clip((t - s0) / self.ramp, 0.0, 1.0)
        down = np.clip((c1 - t) / (c1 - c0), 0.0, 1.0)
        return (0.5 - 0.5 * np.cos(math.pi * up)) * down

    def soil_weight(self, t):
        """Weight [-] of the soil in the bucket: 0 before the curl, rising over it to 1."""
        t = np.asarray(t, dtype=np.float64)
        c0, c1, _ = self.bucket_curl
        x = np.clip((t - c0) / (c1 - c0), 0.0, 1.0)
        return 0.5 - 0.5 * np.cos(math.pi * x)

    def drag_force(self, t):
        """The soil drag [N] at the tooth tip (world x, y, z; shape (..., 3)) at times ``t`` [s]."""
        fx, fz = self.drag
        w = self.drag_weight(t)
        return np.stack([fx * w, np.zeros_like(w), fz * w], axis=-1)

    def soil_force(self, t, gravity: float = GRAVITY):
        """The weight [N] of the soil in the bucket (world x, y, z; shape (..., 3)) at times ``t`` [s]."""
        w = self.soil_weight(t)
        return np.stack([np.zeros_like(w), np.zeros_like(w), -self.soil_mass * gravity * w], axis=-1)

    def shortened(self, factor: float) -> DigCycle:
        """The same cycle with every time scaled by ``factor`` (0 < factor ≤ 1) and the commands
        kept: a shorter cycle with smaller motions (for tests)."""
        positive("factor", factor, "")

        def sc(spec):
            return (spec[0] * factor, spec[1] * factor, spec[2])

        return replace(
            self,
            hold=self.hold * factor,
            boom_down=sc(self.boom_down),
            stick_in=sc(self.stick_in),
            bucket_curl=sc(self.bucket_curl),
            boom_up=sc(self.boom_up),
            stick_out=sc(self.stick_out),
            end=self.end * factor,
            ramp=self.ramp * min(factor, 1.0),
        )

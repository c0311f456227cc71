"""A ~20 t excavator (boom, stick, bucket) on one pump, in MuJoCo, with a scripted digging cycle.

Issue "excavator on one pump". The machine is planar: a fixed upper frame (no swing, no tracks)
and three links on hinges about one horizontal axis (world x forward, z up, gravity −z; joint
angles counter-clockwise in the x–z side view, i.e. about −y). Three hydraulic cylinders (boom,
stick, bucket) act between named sites (see ``excavator_mjcf``) through
:mod:`actuatorlab.multibody.cylinders`; the model is generated from
``ExcavatorParameters`` (no data file to ship).

Cylinder models (``model``):

- ``"quasistatic"``: three ``QuasistaticCylinder`` on one pump (``pump="main"``,
  ``PumpNetwork``, Kikuuwe et al. Sec. 6.2): the pump flow Q, its bleed valve and relief valve
  P_M are shared; each cylinder has its own four main valves and chamber reliefs.
- ``"pressure-dynamics"``: three ``PressureCylinder`` on one shared pump line (``pump="main"``):
  bulk-modulus chambers and one pump-line volume fed by Q, with the same bleed and relief.

Signs: a cylinder force f > 0 pushes its pins apart; u_c > 0 extends. Boom cylinder extension
raises the boom, stick cylinder extension pulls the stick in (towards the machine), bucket
cylinder extension curls the bucket. All values SI.

Parameter sources. Masses, lengths and cylinder sizes are typical of the 20 t class (Komatsu
PC200-8 / Caterpillar 320 size): "typical value, assumption" unless a source is named; none
is taken from a specific data sheet, and the pin positions are a simplified planar layout
chosen so that each cylinder's stroke covers the working range (documented per field). The
bucket linkage (H-link and guide link) is replaced by a lever on the bucket, which reduces the
bucket's rotation range to about 150°. Cylinder masses (≈ 150–250 kg each) are neglected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import mujoco
import numpy as np

from ..errors import ParameterError, SimulationError
from ..hydraulics.pressure_dynamics import PressureDynamics
from ..hydraulics.quasistatic.circuit import ValveCircuit
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..numerics.signals import smooth_pulse
from ..simulation.result import Channel, SimulationResult
from ..validation import positive
from .cylinders import PressureCylinder, QuasistaticCylinder, SiteLoad
from .system import HydraulicMujocoSystem

CYLINDERS = ("boom", "stick", "bucket")
"""Cylinder names (inputs and result channels are keyed by them)."""
JOINTS = ("boom_joint", "stick_joint", "bucket_joint")
"""Hinge names; qpos_0, qpos_1, qpos_2 are their angles [rad] (stick and bucket relative to the
link before)."""
PUMP = "main"
TIP_SITE = "bucket_tip"
SOIL_SITE = "bucket_soil"
MODELS = ("quasistatic", "pressure-dynamics")

Point = tuple[float, float]


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

    @property
    def head_area(self) -> float:
        """A_h = count·πD²/4 [m²]."""
        return self.count * math.pi * self.bore**2 / 4.0

    @property
    def rod_area(self) -> float:
        """A_r = count·π(D² − d²)/4 [m²] (annulus)."""
        return self.count * math.pi * (self.bore**2 - self.rod**2) / 4.0


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
    boom_cylinder: CylinderSize = CylinderSize(0.120, 0.085, 1.335, 1.85, count=2, dead_volume=2.0e-3)
    stick_cylinder: CylinderSize = CylinderSize(0.135, 0.095, 1.49, 2.2, dead_volume=2.5e-3)
    bucket_cylinder: CylinderSize = CylinderSize(0.115, 0.080, 1.12, 1.95, dead_volume=3.0e-3)
    pump_flow: float = 430.0 / 60000.0
    pump_relief_pressure: float = 34.3e6
    chamber_relief_pressure: float = 39.2e6
    valve_area: float = 1.2e-4
    bleed_area: float = 2.5e-4
    discharge_coefficient: float = 0.6
    oil_density: float = 850.0
    bulk_modulus: float = 1.5e9
    pump_line_volume: float = 2.0e-3
    relaxation: Relaxation = field(default_factory=lambda: Relaxation(5.0e7, 1.0e6))

    def cylinder(self, name: str) -> CylinderSize:
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


def excavator_mjcf(params: ExcavatorParameters | None = None, timestep: float = 1e-3) -> str:
    """MJCF of the planar excavator: bodies ``boom``, ``stick``, ``bucket`` on hinges
    ``boom_joint``, ``stick_joint``, ``bucket_joint`` (axis −y, so angles are counter-clockwise in
    the x–z side view; all zero = every link along +x), sites ``boom_cyl_base`` (frame),
    ``boom_cyl_rod`` and ``stick_cyl_base`` (boom), ``stick_cyl_rod`` and ``bucket_cyl_base``
    (stick), ``bucket_cyl_rod``, ``bucket_tip``, ``bucket_soil`` and ``bucket_back`` (bucket), plus
    ``boom_foot``, ``stick_pin``, ``bucket_pin`` at the joints. Euler integrator at
    ``timestep`` [s], gravity 9.81 m/s² along −z, contacts disabled."""
    p = params or ExcavatorParameters()
    positive("timestep", timestep, "s")
    f = "{:.17g}".format

    def inertial(mass, com, iyy):
        # planar motion only needs I_yy; the other two are set equal (a valid inertia)
        return f'<inertial pos="{_xz(com)}" mass="{f(mass)}" diaginertia="{f(iyy)} {f(iyy)} {f(iyy)}"/>'

    def capsule(a: Point, b: Point, r: float) -> str:
        return (f'<geom type="capsule" fromto="{_xz(a)} {_xz(b)}" size="{f(r)}" mass="0" '
                'contype="0" conaffinity="0"/>')

    s = 0.05
    return f"""<mujoco model="excavator_20t">
  <option timestep="{f(timestep)}" gravity="0 0 -9.81" integrator="Euler">
    <flag contact="disable"/>
  </option>
  <worldbody>
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
    </body>
  </worldbody>
</mujoco>
"""


CYLINDER_SITES = {
    "boom": ("boom_cyl_base", "boom_cyl_rod"),
    "stick": ("stick_cyl_base", "stick_cyl_rod"),
    "bucket": ("bucket_cyl_base", "bucket_cyl_rod"),
}


def excavator_system(model: str = "quasistatic", params: ExcavatorParameters | None = None,
                     timestep: float = 1e-3) -> HydraulicMujocoSystem:
    """The excavator with its three cylinders on one pump (``pump="main"``) as
    ``QuasistaticCylinder`` (``model="quasistatic"``) or ``PressureCylinder``
    (``"pressure-dynamics"``)."""
    p = params or ExcavatorParameters()
    if model not in MODELS:
        raise ParameterError(f"model = {model!r}: give one of {', '.join(MODELS)}")
    actuators = []
    for name in CYLINDERS:
        base, rod = CYLINDER_SITES[name]
        size = p.cylinder(name)
        if model == "quasistatic":
            actuators.append(QuasistaticCylinder(name, base, rod, p.circuit(name), p.relaxation, pump=PUMP,
                                                 min_length=size.retracted_length,
                                                 max_length=size.retracted_length + size.stroke))
        else:
            actuators.append(PressureCylinder(name, base, rod, p.circuit(name), p.fluid(name),
                                              initial_low_pressure=1.0e6, pump=PUMP))
    return HydraulicMujocoSystem(excavator_mjcf(p, timestep), actuators)


# --------------------------------------------------------------------------------------------
# the digging cycle


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

    @property
    def duration(self) -> float:
        return self.end

    def commands(self) -> dict:
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

    def loads(self, gravity: float = 9.81) -> list[SiteLoad]:
        fx, fz = self.drag

        def drag(t):
            w = self.drag_weight(t)
            return np.stack([fx * w, np.zeros_like(w), fz * w], axis=-1)

        def soil(t):
            w = self.soil_weight(t)
            return np.stack([np.zeros_like(w), np.zeros_like(w), -self.soil_mass * gravity * w], axis=-1)
        return [SiteLoad(TIP_SITE, drag), SiteLoad(SOIL_SITE, soil)]

    def shortened(self, factor: float) -> DigCycle:
        """The same cycle with every time scaled by ``factor`` (0 < factor ≤ 1) and the commands
        kept: a shorter cycle with smaller motions (for tests)."""
        positive("factor", factor, "")

        def sc(spec):
            return (spec[0] * factor, spec[1] * factor, spec[2])
        return replace(self, hold=self.hold * factor, boom_down=sc(self.boom_down), stick_in=sc(self.stick_in),
                       bucket_curl=sc(self.bucket_curl), boom_up=sc(self.boom_up), stick_out=sc(self.stick_out),
                       end=self.end * factor, ramp=self.ramp * min(factor, 1.0))


def holding_report(system: HydraulicMujocoSystem, qpos=DIG_START_POSE, loads=()) -> dict[str, dict[str, float]]:
    """Per cylinder, the static holding state at rest at ``qpos`` under gravity and ``loads`` (at
    t = 0): ``force_N`` f (> 0 pushes the pins apart), ``side`` (+1 head, −1 rod: the loaded
    chamber), ``pressure_Pa`` the loaded chamber's pressure with the other at 0 (|f|/A),
    ``chamber_relief_Pa`` and ``pump_relief_Pa`` of its circuit, and ``pump_margin_Pa`` =
    P_M − pressure: < 0 means the pump relief opens below the static load, so the pump cannot
    move this cylinder against the load (it stalls with the relief passing the pump flow)."""
    forces, _, _ = system.holding_forces(list(qpos), loads)
    out = {}
    for i, a in enumerate(system.actuators):
        f = float(forces[i])
        c = a.circuit
        side = 1.0 if f >= 0.0 else -1.0
        area = c.head_area if f >= 0.0 else c.rod_area
        relief = c.head_relief_pressure if f >= 0.0 else c.rod_relief_pressure
        pressure = abs(f) / area
        out[a.name] = {"force_N": f, "side": side, "pressure_Pa": pressure, "chamber_relief_Pa": relief,
                       "pump_relief_Pa": c.pump_relief_pressure, "pump_margin_Pa": c.pump_relief_pressure - pressure}
    return out


def check_reliefs(report: dict[str, dict[str, float]]) -> None:
    """Raise ``SimulationError`` naming every cylinder whose static load exceeds its chamber
    relief (no holding state) or the pump relief (the pump cannot drive it against the load)."""
    problems = []
    for name, r in report.items():
        chamber = "head" if r["side"] > 0 else "rod"
        if r["pressure_Pa"] > r["chamber_relief_Pa"]:
            problems.append(
                f"{name}: the static load needs {r['pressure_Pa'] / 1e6:.3g} MPa in the {chamber} chamber "
                f"(f = {r['force_N'] / 1e3:.4g} kN), above its chamber relief {r['chamber_relief_Pa'] / 1e6:.3g} MPa: "
                "the relief would open and the machine cannot be held")
        elif r["pump_margin_Pa"] < 0.0:
            problems.append(
                f"{name}: the static load needs {r['pressure_Pa'] / 1e6:.3g} MPa in the {chamber} chamber "
                f"(f = {r['force_N'] / 1e3:.4g} kN), above the pump relief P_M = {r['pump_relief_Pa'] / 1e6:.3g} MPa: "
                "the pump cannot move this cylinder against the load")
    if problems:
        raise SimulationError("relief pressure below the static load — " + "; ".join(problems)
                              + ". Raise the relief settings or reduce the load.")


def run_dig_cycle(model: str = "quasistatic", duration: float | None = None, timestep: float = 1e-3,
                  params: ExcavatorParameters | None = None, cycle: DigCycle | None = None,
                  qpos=DIG_START_POSE, check_relief: bool = True) -> tuple[SimulationResult, dict]:
    """Run the digging cycle ``cycle`` (default ``DigCycle()``, 12 s) with consistent
    initialisation (held at rest at ``qpos`` under gravity), all three cylinders on one pump.

    ``duration`` [s]: run length (default the cycle's; shorter cuts it). Returns
    ``(result, info)``: ``result`` has the channels of ``HydraulicMujocoSystem.simulate``
    (``qpos_0..2`` joint angles [rad], ``<cyl>.length`` [m], ``.force`` [N], ``.pump_pressure``
    [Pa], ``.pump_relief_flow`` [m³/s], chamber pressures [Pa] for the pressure model) plus
    ``<cyl>.stroke`` [m] (piston position ℓ − ℓ₀), ``boom_angle``, ``stick_angle``,
    ``bucket_angle`` [rad] (= qpos_0..2), ``tip_x``, ``tip_z`` [m] (bucket tooth tip,
    world), ``drag_weight``, ``soil_weight`` [-]; ``info`` holds ``system``, ``params``,
    ``cycle``, ``model``, ``summary`` (see ``dig_cycle_summary``) and ``holding``
    (``holding_report`` at the start pose).

    ``check_relief``: before the run, raise ``SimulationError`` if a relief setting is below the
    static load at the start pose (``check_reliefs``: a chamber relief below the holding
    pressure, or the pump relief below it so the cylinder could not be driven against the load).
    """
    p = params or ExcavatorParameters()
    cyc = cycle or DigCycle()
    system = excavator_system(model, p, timestep)
    run = cyc.duration if duration is None else positive("duration", duration, "s")
    loads = cyc.loads()
    holding = holding_report(system, qpos, loads)
    if check_relief:
        check_reliefs(holding)
    result = system.simulate(run, cyc.commands(), cyc.bleed(), loads, qpos=list(qpos), consistent=True)
    add_derived_channels(result, system, p, cyc)
    info = {"system": system, "params": p, "cycle": cyc, "model": model, "holding": holding}
    info["summary"] = dig_cycle_summary(result, p)
    return result, info


def tip_path(system: HydraulicMujocoSystem, qpos: np.ndarray, site: str = TIP_SITE) -> np.ndarray:
    """World (x, z) [m] of ``site`` for every row of ``qpos`` (n, nq) by MuJoCo forward kinematics."""
    model = system.model
    data = mujoco.MjData(model)
    sid = system.site_id(site)
    out = np.empty((len(qpos), 2))
    for k, q in enumerate(qpos):
        data.qpos[:] = q
        mujoco.mj_kinematics(model, data)
        out[k] = data.site_xpos[sid, [0, 2]]
    return out


def _qpos(result: SimulationResult, nq: int) -> np.ndarray:
    return np.column_stack([result[f"qpos_{i}"] for i in range(nq)])


def add_derived_channels(result: SimulationResult, system: HydraulicMujocoSystem, params: ExcavatorParameters,
                         cycle: DigCycle) -> None:
    """Add strokes, named joint angles, the tip path and the load weights to ``result`` (in place)."""
    for name in CYLINDERS:
        l0 = params.cylinder(name).retracted_length
        result.channels[f"{name}.stroke"] = Channel(result[f"{name}.length"] - l0, "m",
                                                    f"{name} piston position ℓ − ℓ₀")
    for j, joint in enumerate(JOINTS):
        what = "boom angle from horizontal" if j == 0 else f"{joint.split('_')[0]} angle relative to the link before"
        result.channels[f"{joint.split('_')[0]}_angle"] = Channel(result[f"qpos_{j}"], "rad",
                                                                  f"{what} (counter-clockwise in the side view)")
    tip = tip_path(system, _qpos(result, system.model.nq))
    result.channels["tip_x"] = Channel(tip[:, 0], "m", "bucket tip x (forward)")
    result.channels["tip_z"] = Channel(tip[:, 1], "m", "bucket tip z (up)")
    result.channels["drag_weight"] = Channel(cycle.drag_weight(result.t), "1", "soil drag load weight")
    result.channels["soil_weight"] = Channel(cycle.soil_weight(result.t), "1", "soil in bucket weight")


def dig_cycle_summary(result: SimulationResult, params: ExcavatorParameters | None = None) -> dict[str, float]:
    """Cycle figures: ``cycle_time_s``, ``peak_pump_pressure_Pa``, ``peak_chamber_pressure_Pa``
    (pressure model; for the quasistatic model the peak of |f|/A over the loaded side is given
    as ``peak_equivalent_pressure_Pa`` instead), ``peak_force_<cyl>_N`` (largest |f|),
    ``stroke_range_<cyl>_m``, ``relief_volume_m3`` (oil through the pump relief),
    ``relief_time_s`` (time with relief flow), ``real_time_factor``, ``loop_time_s``,
    ``tip_travel_m`` (path length of the tip)."""
    p = params or ExcavatorParameters()
    h = float(result.t[1] - result.t[0]) if result.t.size > 1 else 0.0
    pump = result[f"{CYLINDERS[0]}.pump_pressure"]
    relief = result[f"{CYLINDERS[0]}.pump_relief_flow"]
    out = {
        "cycle_time_s": float(result.t[-1] + h),
        "peak_pump_pressure_Pa": float(np.max(pump)),
        "relief_volume_m3": float(np.sum(relief) * h),
        "relief_time_s": float(np.count_nonzero(relief > 0.0) * h),
        "real_time_factor": float(result.counters["real_time_factor"]),
        "loop_time_s": float(result.counters["loop_time_s"]),
    }
    chamber = []
    for name in CYLINDERS:
        f = result[f"{name}.force"]
        out[f"peak_force_{name}_N"] = float(np.max(np.abs(f)))
        out[f"stroke_range_{name}_m"] = float(np.ptp(result[f"{name}.stroke"])) if f"{name}.stroke" in result.channels \
            else float(np.ptp(result[f"{name}.length"]))
        if f"{name}.head_pressure" in result.channels:
            chamber.append(max(np.max(result[f"{name}.head_pressure"]), np.max(result[f"{name}.rod_pressure"])))
        else:
            c = p.circuit(name)
            chamber.append(max(np.max(f) / c.head_area, np.max(-f) / c.rod_area, 0.0))
    key = "peak_chamber_pressure_Pa" if f"{CYLINDERS[0]}.head_pressure" in result.channels \
        else "peak_equivalent_pressure_Pa"
    out[key] = float(max(chamber))
    tip = np.column_stack([result["tip_x"], result["tip_z"]]) if "tip_x" in result.channels else None
    if tip is not None:
        out["tip_travel_m"] = float(np.sum(np.linalg.norm(np.diff(tip, axis=0), axis=1)))
    return out


# --------------------------------------------------------------------------------------------
# figures


_LINKS = (
    ("boom_foot", "stick_cyl_base", "stick_pin", "boom_cyl_rod", "boom_foot"),
    ("stick_cyl_rod", "stick_pin", "bucket_pin", "bucket_cyl_base", "stick_cyl_rod"),
    ("bucket_cyl_rod", "bucket_pin", "bucket_tip", "bucket_back", "bucket_cyl_rod"),
)


def plot_excavator(result: SimulationResult, system: HydraulicMujocoSystem, times=None, ax=None):
    """Side view of the machine at a few instants (default 5 evenly spaced over the run), drawn
    from the recorded joint angles by MuJoCo forward kinematics (lines between the joints and
    pins; cylinders dashed), with the bucket-tip path. Returns a matplotlib Figure."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 6))
    else:
        fig = ax.figure
    t = result.t
    if times is None:
        times = np.linspace(t[0], t[-1], 5)
    qpos = _qpos(result, system.model.nq)
    data = mujoco.MjData(system.model)

    def xz(name):
        return data.site_xpos[system.site_id(name), [0, 2]]

    cmap = plt.get_cmap("viridis")
    for j, time_ in enumerate(times):
        k = int(np.clip(np.searchsorted(t, time_), 0, t.size - 1))
        data.qpos[:] = qpos[k]
        mujoco.mj_kinematics(system.model, data)
        colour = cmap(j / max(len(times) - 1, 1))
        for chain in _LINKS:
            pts = np.array([xz(s) for s in chain])
            ax.plot(pts[:, 0], pts[:, 1], "-", color=colour, lw=2)
        for base, rod in CYLINDER_SITES.values():
            pts = np.array([xz(base), xz(rod)])
            ax.plot(pts[:, 0], pts[:, 1], "--", color=colour, lw=3, alpha=0.7)
        tip = xz(TIP_SITE)
        ax.annotate(f"{t[k]:.1f} s", tip, textcoords="offset points", xytext=(4, -10), color=colour, fontsize=8)
    if "tip_x" in result.channels:
        ax.plot(result["tip_x"], result["tip_z"], ":", color="k", lw=1, label="bucket tip path")
    ax.axhline(0.0, color="saddlebrown", lw=1, label="ground")
    ax.add_patch(plt.Rectangle((-2.0, 0.5), 3.0, 1.0, color="0.8", zorder=0))
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_title("Excavator dig cycle: side view (dashed: cylinders)")
    ax.legend(loc="upper right", fontsize=8)
    return fig


def plot_strokes(result: SimulationResult):
    """Stroke diagram: piston positions [m], cylinder forces [kN], pump pressure [MPa] and pump
    relief flow [L/min] against time. Returns a matplotlib Figure."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(4, 1, figsize=(8, 9), sharex=True)
    t = result.t
    for name in CYLINDERS:
        key = f"{name}.stroke" if f"{name}.stroke" in result.channels else f"{name}.length"
        axes[0].plot(t, result[key], label=name)
        axes[1].plot(t, result[f"{name}.force"] / 1e3, label=name)
    axes[2].plot(t, result[f"{CYLINDERS[0]}.pump_pressure"] / 1e6, color="k")
    axes[3].plot(t, result[f"{CYLINDERS[0]}.pump_relief_flow"] * 60000.0, color="r")
    axes[0].set_ylabel("stroke [m]")
    axes[1].set_ylabel("force [kN]")
    axes[2].set_ylabel("pump P [MPa]")
    axes[3].set_ylabel("relief [L/min]")
    axes[3].set_xlabel("t [s]")
    axes[0].legend(fontsize=8)
    axes[1].legend(fontsize=8)
    for a in axes:
        a.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig

"""The laboratory crane of Petrović & Mattila (HIAB XS 031 type), as validated parameter data.

Everything here is a value of the authors' supplementary repository or of the paper, where the
two conflict, as stated below ([R]: the repository; the paper prints no mass data):

- ``lab_crane``: the mechanics, two structures (lift and tilt cylinders on revolute segments,
  the extension cylinder on the prismatic segment of structure 2 carrying the 570 kg end
  mass), world W with y up, gravity 9.8066 m/s²; coordinates (q1 [rad], q2 [rad], x_t2 [m]);
- ``crane_q_from_theta``, ``lab_crane_initial_pose``: the encoder angles Θ of the authors'
  model and its initial pose;
- ``lab_crane_hydraulics``: cylinders, servo valves and friction of the three actuators;
- ``emla_lab_crane``: the same mechanics with the EMLAs of Bahari et al. in place of the
  cylinders (Bahari et al.).

Signs and frames are those of ``mechanics.parallel_serial`` and ``hydraulics.servo_cylinder``
(an actuator force > 0 pushes its piston out). The VDC gains of the authors are the
controller's tuning, not the machine's, and stay with the controller
(``control.vdc.lab_crane_gains``: control sits above this layer).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError
from ..hydraulics.fluid import CRANE_BULK_MODULUS
from ..hydraulics.servo_cylinder import CraneHydraulics, Cylinder, Friction, ServoValve
from ..mechanics.emla_crane import ACTUATOR_NAMES, EmlaCrane
from ..mechanics.linkage import TriangleLinkage
from ..mechanics.parallel_serial import (
    FrameOffset,
    ParallelSerialManipulator,
    PrismaticSegment,
    RevoluteSegment,
)
from ..mechanics.rigid_body import RigidBody

LAB_CRANE_VARIANTS = ("corrected", "as_given")
"""``as_given`` reproduces the authors' parameter set; ``corrected`` fixes its two transcription
slips: the extension rod's centre of mass on its axis, (0.56802906, 0, 0) m, with the
inertia diagonal permuted the same way, and the pistons' centre of mass at 0.32981882 m."""

_BETA = (0.380747, 0.121962, 0.122595, 0.288982)  # β1..β4 [rad], the authors' repository


def crane_q_from_theta(theta1: float, theta2: float) -> tuple[float, float]:
    """Paper angles (q1, q2) [rad] from the encoder angles (Θ1, Θ2) [rad]:
    q1 = −π/2 − β1 − β2 + Θ1, q2 = Θ2 − β3 − β4 (the authors' code; where their notes differ in sign,
    the code's form is taken)."""
    b1, b2, b3, b4 = _BETA
    return -0.5 * math.pi - b1 - b2 + theta1, theta2 - b3 - b4


LAB_CRANE_INITIAL_THETA = (math.radians(45.0), math.radians(-90.0))
"""Initial encoder angles (Θ1, Θ2) [rad] of the authors' model; with x_t2 = 0.5 m."""


def lab_crane_initial_pose() -> np.ndarray:
    """(q1 [rad], q2 [rad], x_t2 [m]) of the authors' initial state: Θ1 = 45°, Θ2 = −90°, 0.5 m."""
    return np.array([*crane_q_from_theta(*LAB_CRANE_INITIAL_THETA), 0.5])


def _diag(*d):
    return ((d[0], 0.0, 0.0), (0.0, d[1], 0.0), (0.0, 0.0, d[2]))


def lab_crane(variant: str = "corrected") -> ParallelSerialManipulator:
    """The HIAB XS 031-type lab crane of the authors' repository: lift and tilt cylinders (revolute segments 1,
    2) and the extension cylinder (prismatic segment of structure 2) carrying the 570 kg end mass.

    World W has y up; gravity 9.8066 m/s². Coordinates (q1 [rad], q2 [rad], x_t2 [m]); the exit
    frame of structure 2 is the tool frame D_22. ``variant``: see ``LAB_CRANE_VARIANTS``.
    """
    if variant not in LAB_CRANE_VARIANTS:
        raise ParameterError(f"lab crane variant {variant!r} is unknown; choose one of {LAB_CRANE_VARIANTS}")
    corrected = variant == "corrected"
    piston_com = 0.32981882 if corrected else 0.55785997
    case = {
        "mass": 17.36281648,
        "com": (0.35781210, 0.0, 0.0),
        "inertia": _diag(0.03150902, 0.90735702, 0.90763033),
    }
    rod = {
        "mass": 10.34519231,
        "com": (piston_com, 0.0, 0.0),
        "inertia": _diag(0.00370720, 0.55759812, 0.55785997),
    }
    if corrected:
        ext_rod = RigidBody(
            6.73059863,
            (0.56802906, 0.0, 0.0),
            _diag(0.00091463, 0.91789884, 0.91790043),
            "B52",
        )
    else:
        ext_rod = RigidBody(
            6.73059863,
            (0.0, 0.0, 0.56802906),
            _diag(0.91789884, 0.91790043, 0.00091463),
            "B52",
        )
    lift = RevoluteSegment(
        linkage=TriangleLinkage(1.0071227324212, 0.37610632101293, 0.83, 0.59, "lift"),
        rod_length=0.745,
        exit=FrameOffset.planar(0.24548563270531, 0.098495302558553, 0.01838181329939, "Tc1->Bc2"),
        link_base=RigidBody(
            307.29601379,
            (0.14178771, 0.16555780, 0.0),
            (
                (5.892211080, 5.476111360, -0.000019630),
                (5.476111360, 28.66965601, -0.000024550),
                (-0.000019630, -0.000024550, 29.78955950),
            ),
            "Bc1",
        ),
        link=RigidBody(
            25.52660174,
            (0.23805608, 0.13201777, 0.0),
            (
                (0.28426000, -0.06487287, 0.0),
                (-0.06487287, 0.54237481, 0.0),
                (0.0, 0.0, 0.67891020),
            ),
            "B11",
        ),
        case=RigidBody(**case, name="B31"),
        rod=RigidBody(**rod, name="B41"),
    )
    extension = PrismaticSegment(
        mount=FrameOffset(
            (
                (0.95853460763586, -0.27664713597974, 0.0683942111482),
                (0.28497614981675, 0.93051946315663, -0.23004808784757),
                (0.0, 0.23999977258511, 0.9707729441837),
            ),
            (-0.048858374920227, 0.36587359346146, 0.035276938723102),
            "Tc2->P22",
        ),
        base_offset=0.041,
        stroke=1.1,
        rod_to_load=FrameOffset(translation=(1.2, 0.0, 0.0), name="B52->P32"),
        exit=FrameOffset(
            (
                (1.0, 0.0, 0.0),
                (0.0, 0.9707729441837, 0.23999977258512),
                (0.0, -0.23999977258512, 0.9707729441837),
            ),
            (0.40499744871392, -0.13130517281345, -0.013385243295654),
            "P32->D22",
        ),
        case=RigidBody(
            9.26136143,
            (0.62192523, 0.0, 0.0),
            _diag(0.00662754, 1.48387017, 1.48398069),
            "P22",
        ),
        rod=ext_rod,
        load=RigidBody(
            570.18877059,
            (0.25466704, -0.13034397, -0.01302248),
            (
                (46.81220713, 0.38607676, -0.00453819),
                (0.38607676, 71.92201786, -1.14320993),
                (-0.00453819, -1.14320993, 67.38128576),
            ),
            "P32",
        ),
    )
    tilt = RevoluteSegment(
        linkage=TriangleLinkage(1.132185817991, 0.30901132665325, 0.83, 0.59, "tilt"),
        rod_length=0.745,
        exit=extension.mount,
        link_base=RigidBody(
            54.58702836,
            (0.54319901, 0.10543875, 0.0),
            (
                (0.48071390, 0.52924041, 0.0),
                (0.52924041, 5.80912352, 0.0),
                (0.0, 0.0, 5.97255351),
            ),
            "Bc2",
        ),
        link=RigidBody(
            33.92850233,
            (0.60504569, 0.27199376, 0.00002484),
            (
                (1.18803886, -2.36786418, 0.00280315),
                (-2.36786418, 6.31493281, 0.00022322),
                (0.00280315, 0.00022322, 7.40915161),
            ),
            "B12",
        ),
        case=RigidBody(**case, name="B32"),
        rod=RigidBody(**rod, name="B42"),
        prismatic=extension,
    )
    return ParallelSerialManipulator(
        base=FrameOffset.planar(1.9515432018109, 0.185, -0.085, "W->Bc1"),
        segments=(lift, tilt),
        gravity=9.8066,
        name=f"lab_crane[{variant}]",
    )


LITRE_PER_MIN = 1e-3 / 60.0
"""1 l/min in m³/s (the valves' rated flows are catalogue values in l/min)."""


def lab_crane_hydraulics(
    supply_pressure: float = 185e5,
    return_pressure: float = 10e5,
    rated_flows: tuple[float, float, float] = (40.0, 100.0, 40.0),
    u_max: float = 10.0,
    dead_volumes: bool = True,
    spool_time_constant: float = 0.0,
    friction: Friction | None = None,
) -> CraneHydraulics:
    """Lift, tilt and extension actuators of the lab crane (the authors' repository; where it
    conflicts with the paper, the paper's values):

    - supply/return pressure [Pa]: the paper's 185/10 bar (the repository: 190 bar);
    - rated flows [l/min] per valve at 35 bar per control edge ("per notch"): the paper's NG6
      40 l/min lift and NG10 100 l/min tilt valves, the repository's 40 l/min extension valve;
      c = Q_N/(u_max √35 bar), so the full input u_max gives Q_N at 35 bar (the repository
      divides by √70 bar instead);
    - input range ±u_max: the paper's ±10 V (the repository normalises to ±1);
    - bores/rods 80/45 mm (stroke 0.59 m) and 50/30 mm (1.1 m), β = 800 MPa [R]
      (``CRANE_BULK_MODULUS``);
    - dead volumes 3, 4, 5 l per chamber and leakage 1e-16 m³/(s Pa) [R] when ``dead_volumes``
      (not in the paper's model (80)–(81); without them the chambers empty at the end stops);
    - spool: static (paper) unless ``spool_time_constant`` > 0 [s] (first order);
    - friction: viscous 3000 N s/m and Coulomb 4000 N [R], smoothed over v_c = 20 mm/s (the
      repository's 0.5 mm/s zero-speed band makes the plant stiff at velocity reversals,
      |λ| ≈ 1.2e4 1/s; with 20 mm/s |λ| ≈ 3e3 1/s and RK4 at 0.5 ms is converged to 1e-9 rad).
    """
    friction = friction or Friction(viscous=3000.0, coulomb=4000.0, smoothing_velocity=2e-2)
    dead = (3e-3, 4e-3, 5e-3) if dead_volumes else (0.0, 0.0, 0.0)
    leak = 1e-16 if dead_volumes else 0.0
    geometry = ((0.08, 0.045, 0.59), (0.08, 0.045, 0.59), (0.05, 0.03, 1.1))
    cylinders = tuple(
        Cylinder.from_diameters(
            bore,
            rod,
            stroke,
            bulk_modulus=CRANE_BULK_MODULUS,
            dead_volume_a=v0,
            dead_volume_b=v0,
            leakage=leak,
            name=name,
        )
        for (bore, rod, stroke), v0, name in zip(geometry, dead, ACTUATOR_NAMES)
    )
    valves = tuple(
        ServoValve.symmetric(
            flow * LITRE_PER_MIN,
            35e5,
            u_max,
            supply_pressure=supply_pressure,
            return_pressure=return_pressure,
            u_max=u_max,
            tau=spool_time_constant,
            name=f"{name}_valve",
        )
        for flow, name in zip(rated_flows, ACTUATOR_NAMES)
    )
    return CraneHydraulics(cylinders, valves, (friction,) * 3)


def emla_lab_crane(actuators=None, variant: str = "corrected") -> EmlaCrane:
    """The lab crane (``lab_crane(variant)``) with the EMLAs of Table I of Bahari et al.
    (``electromech.load_actuators()``) unless ``actuators`` (dict by name or tuple)
    is given."""
    if actuators is None:
        from ..electromech import load_actuators

        actuators = load_actuators()
    if isinstance(actuators, dict):
        missing = [n for n in ACTUATOR_NAMES if n not in actuators]
        if missing:
            raise ParameterError(f"actuators lack {missing}; give a dict with keys {ACTUATOR_NAMES}")
        actuators = tuple(actuators[n] for n in ACTUATOR_NAMES)
    return EmlaCrane(tuple(actuators), lab_crane(variant))

"""Dynamics of the N-DOF hydraulic robot of Sakai & Maeshima (state space (1)): the parameter
classes, the cylinder geometry, the Lagrangian regressor τ = Y(q, q̇, q̈)·a1 and the orifice
terms of the pressure equations. The robot is a planar serial chain in a vertical plane, each
revolute joint driven by a single-rod cylinder through a zero-lap 4-way spool valve.

Paper 003 in this package: this module (model and regressor); ``machines/sakai_robot`` (the
robot of Table II, the parameters of Table III); ``simulation/robot_simulation`` (the time loop
of (1)), ``robot_experiments``, ``robot_validation``, ``robot_search``;
``identification/robot_least_squares`` (the coupled least squares (2)–(3)), ``sequential``,
``fit``; ``scenarios/robot_schema``, ``robot_logs``, ``kinds/identify_robot``.

Conventions (readings taken where the paper is garbled or silent):

- Joint angles q_i [rad] are relative; absolute link angles φ_i = q_1 + … + q_i are measured
  from the downward vertical, so q = 0 hangs down and gravity torques are +W g sin φ (§2.2).
- Cylinder i spans a triangle with sides a_i (ℓ01, ℓ12), b_i (ℓ10, ℓ21) and included angle
  θ_i = q_i + offset_i (offset 0 for joint 1, −π for joint 2): l_i² = a² + b² − 2ab cos θ_i.
  The piston displacement is s_i = l_i − ℓc_i, so ℓc is the length at mid-stroke (A2, the
  reading of Fig. 1), and the moment arm J_i = ∂s_i/∂q_i = ab sin θ_i / l_i; τ_i = J_i F_i
  (I3: "G^{-1}" of Sec. III read as the moment arm, the only dimensionally right reading).
- F_i = A+ p+ − A− p− with gauge pressures p± ∈ [0, p_s]; u > 0 opens supply → head and
  rod → tank, so the piston extends (ṡ > 0).
- Chamber volumes V+ = V0+ + (L/2 + s)A+, V− = V0− + (L/2 − s)A−; one bulk modulus b.
- Spool input u in the unit of the logged spool signal; the flow gains carry its inverse
  (A4: the paper's C_f ≈ 6e-7 fit u in mm, so the defaults are m³/(s·mm·√Pa)).

Base parameters, generalised from the paper's 2-DOF set to N links: M_i = Σ_{k≥i} J_k with
J_k = I_k + m_k ℓ_gk² + (Σ_{j>k} m_j) ℓ_k² (for N = 2 this is the paper's M1, M2), R_jk for
j < k (the cos(φ_k − φ_j) coupling; R12 = m2 ℓg2 ℓ1), viscous F_v,i, gravity W_i; the
mechanical vector is a1 = [M_1…M_N, R_12, R_13, …, R_(N−1)N, F_v1…F_vN, W_1…W_N], which for
N = 2 is the paper's [M1, M2, R12, Fv1, Fv2, W1, W2]. The paper treats R12 as free (it does not
enforce R12 = W2 ℓ1) and so does this module. The fluid vector is a2 = [1/b, C++1, C+−1, C−+1,
C−−1, C++2, …] (eq. (2)). Friction F_v multiplies the joint rate [N m s/rad] (the paper's "Ns/m"
is a typo, I8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..numerics.layout import Layout
from ..validation import check_fields, finite, non_negative, positive

# Layout of a cylinder row in the float64 array handed to the kernels.
CYLINDER_ROW = Layout(
    "C_",
    "a:base_distance",
    "b:link_distance",
    "offset:angle_offset",
    "lc:mid_stroke_length",
    "stroke:stroke",
    "ap:head_area",
    "am:rod_area",
    "vp:head_line_volume",
    "vm:rod_line_volume",
)
(C_A, C_B, C_OFFSET, C_LC, C_STROKE, C_AP, C_AM, C_VP, C_VM) = CYLINDER_ROW.indices
N_CYL = len(CYLINDER_ROW)
FLOW_GAIN_NAMES = ("C++", "C+-", "C-+", "C--")
"""Flow gains of one valve: supply→head, head→tank, rod→tank, supply→rod."""


@dataclass(frozen=True)
class CylinderMount:
    """One joint's cylinder: triangle sides a, b [m], angle offset [rad] (θ = q + offset),
    mid-stroke length ℓc [m], stroke L [m], head and rod areas A+, A− [m²], line volumes
    V0+, V0− [m³] (pipe volume lumped into the chamber)."""

    base_distance: float
    link_distance: float
    angle_offset: float
    mid_stroke_length: float
    stroke: float
    head_area: float
    rod_area: float
    head_line_volume: float
    rod_line_volume: float

    def __post_init__(self) -> None:
        check_fields(
            self,
            positive,
            (
                ("base_distance", "m"),
                ("link_distance", "m"),
                ("mid_stroke_length", "m"),
                ("stroke", "m"),
                ("head_area", "m^2"),
                ("rod_area", "m^2"),
            ),
        )
        check_fields(self, finite, (("angle_offset", "rad"),))
        check_fields(self, non_negative, (("head_line_volume", "m^3"), ("rod_line_volume", "m^3")))
        if self.mid_stroke_length <= self.stroke / 2:
            raise ParameterError(
                f"mid_stroke_length = {self.mid_stroke_length} m must exceed half the stroke "
                f"({self.stroke / 2} m): the cylinder cannot be shorter than zero"
            )

    def as_row(self) -> np.ndarray:
        """The mount as one row of :meth:`HydraulicRobot.cylinder_array` (layout ``C_*``, SI)."""
        return CYLINDER_ROW.pack_of(self)


@dataclass(frozen=True)
class HydraulicRobot:
    """The known part of the robot: cylinders (one per joint), supply pressure p_s [Pa], gravity
    g [m/s²] and its tilt [rad] (the gravity direction rotated in the plane; 0 = straight down).
    The defaults of p_s and g are Table II's; the paper's robot is ``machines.sakai_robot``."""

    cylinders: tuple[CylinderMount, ...]
    supply_pressure: float = 7.0e6
    gravity: float = 9.8
    gravity_tilt: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "cylinders", tuple(self.cylinders))
        if len(self.cylinders) < 1 or not all(isinstance(c, CylinderMount) for c in self.cylinders):
            raise ParameterError("cylinders: give one CylinderMount per joint")
        check_fields(self, positive, (("supply_pressure", "Pa"),))
        check_fields(self, non_negative, (("gravity", "m/s^2"),))
        check_fields(self, finite, (("gravity_tilt", "rad"),))

    @property
    def joints(self) -> int:
        """The number of joints N (one cylinder each)."""
        return len(self.cylinders)

    def cylinder_array(self) -> np.ndarray:
        """The mounts as an (N, 9) array, one :meth:`CylinderMount.as_row` per joint, for the compiled kernels."""
        return np.array([c.as_row() for c in self.cylinders])


def mechanical_names(joints: int) -> list[str]:
    """Names of a1 in order: M_i, R_jk (j < k), Fv_i, W_i (1-based indices)."""
    pairs = [f"R{j + 1}{k + 1}" for j in range(joints) for k in range(j + 1, joints)]
    return (
        [f"M{i + 1}" for i in range(joints)]
        + pairs
        + [f"Fv{i + 1}" for i in range(joints)]
        + [f"W{i + 1}" for i in range(joints)]
    )


def fluid_names(joints: int) -> list[str]:
    """Names of a2 in order: 1/b, then the four flow gains of each valve."""
    return ["1/b"] + [f"{g}{i + 1}" for i in range(joints) for g in FLOW_GAIN_NAMES]


MECHANICAL_UNITS = {"M": "kg m^2", "R": "kg m^2", "Fv": "N m s/rad", "W": "kg m"}


@dataclass(frozen=True)
class RobotParameters:
    """The unknowns: a1 (mechanical, see module docstring) [SI], bulk modulus b [Pa] and the
    flow gains (joints × 4, order C++, C+−, C−+, C−−) [m³/(s·[u]·√Pa)]."""

    mechanical: np.ndarray
    bulk_modulus: float
    flow_gains: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        mech = np.asarray(self.mechanical, dtype=float)
        gains = np.atleast_2d(np.asarray(self.flow_gains, dtype=float))
        joints = gains.shape[0]
        if gains.shape[1] != 4 or mech.shape != (len(mechanical_names(joints)),):
            raise ParameterError(
                f"RobotParameters: {joints} valves need flow_gains of shape ({joints}, 4) and "
                f"{len(mechanical_names(joints))} mechanical values "
                f"({', '.join(mechanical_names(joints))}); got {gains.shape} and {mech.shape}"
            )
        object.__setattr__(self, "bulk_modulus", positive("bulk_modulus", self.bulk_modulus, "Pa"))
        for name, value in zip(mechanical_names(joints), mech):
            finite(f"mechanical {name}", value, MECHANICAL_UNITS[name.rstrip("0123456789")])
        for name, value in zip(fluid_names(joints)[1:], gains.ravel()):
            finite(f"flow_gains {name}", value, "m^3/(s [u] Pa^0.5)")
        object.__setattr__(self, "mechanical", mech)
        object.__setattr__(self, "flow_gains", gains)

    @property
    def joints(self) -> int:
        """The number of joints N."""
        return self.flow_gains.shape[0]

    def fluid_vector(self) -> np.ndarray:
        """a2 = [1/b, C++1, C+−1, C−+1, C−−1, …]."""
        return np.concatenate([[1.0 / self.bulk_modulus], self.flow_gains.ravel()])

    def as_dict(self) -> dict[str, float]:
        """Every parameter by name (b in Pa instead of 1/b)."""
        values = dict(zip(mechanical_names(self.joints), self.mechanical.tolist()))
        values["b"] = self.bulk_modulus
        values.update(zip(fluid_names(self.joints)[1:], self.flow_gains.ravel().tolist()))
        return values

    @classmethod
    def from_vectors(cls, a1: np.ndarray, a2: np.ndarray) -> RobotParameters:
        """The parameters from the identification's vectors a1 (mechanical) and
        a2 = [1/b, C++1, C+−1, C−+1, C−−1, …] (eq. (2))."""
        joints = (len(a2) - 1) // 4
        return cls(np.asarray(a1, dtype=float), 1.0 / float(a2[0]), np.asarray(a2[1:], dtype=float).reshape(joints, 4))


# ---------------------------------------------------------------------------------------------
# Compiled kernels


@nb.njit(cache=True)
def cylinder_state(cyl: np.ndarray, q: float) -> tuple[float, float]:
    """(s, J): piston displacement from mid-stroke [m] and moment arm ∂s/∂q [m] of one cylinder."""
    a, b = cyl[C_A], cyl[C_B]
    theta = q + cyl[C_OFFSET]
    length = math.sqrt(a * a + b * b - 2.0 * a * b * math.cos(theta))
    return length - cyl[C_LC], a * b * math.sin(theta) / length


@nb.njit(cache=True)
def cylinder_states(cyl: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, J) [m] for every sample and joint of q (n, N) [rad]."""
    s = np.empty_like(q)
    arm = np.empty_like(q)
    for k in range(q.shape[0]):
        for i in range(q.shape[1]):
            s[k, i], arm[k, i] = cylinder_state(cyl[i], q[k, i])
    return s, arm


@nb.njit(cache=True)
def mechanical_regressor(
    q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, gravity: float, tilt: float, out: np.ndarray
) -> None:
    """Fill ``out`` (N × P) with Y(q, q̇, q̈) so that τ = Y a1 (module docstring).

    Built from the Lagrangian basis: each parameter's generalized force in absolute angles φ,
    mapped to joint torques by τ_r = Σ_{i≥r} Q_φi.
    """
    n = q.shape[0]
    out[:] = 0.0
    phi = np.cumsum(q)
    phid = np.cumsum(qd)
    phidd = np.cumsum(qdd)
    q_phi = np.empty(n)
    col = 0
    for i in range(n):  # M_i = Σ_{k≥i} J_k: Q_φi += φ̈_i, Q_φ(i−1) −= φ̈_(i−1)
        q_phi[:] = 0.0
        q_phi[i] = phidd[i]
        if i > 0:
            q_phi[i - 1] = -phidd[i - 1]
        _accumulate(q_phi, out, col)
        col += 1
    for j in range(n):  # R_jk: T = φ̇_j φ̇_k cos(φ_k − φ_j)
        for k in range(j + 1, n):
            c = math.cos(phi[k] - phi[j])
            s = math.sin(phi[k] - phi[j])
            q_phi[:] = 0.0
            q_phi[j] = phidd[k] * c - phid[k] * phid[k] * s
            q_phi[k] = phidd[j] * c + phid[j] * phid[j] * s
            _accumulate(q_phi, out, col)
            col += 1
    for i in range(n):  # viscous friction on the joint rate
        out[i, col] = qd[i]
        col += 1
    for i in range(n):  # W_i: V = −W_i g cos(φ_i + tilt)
        q_phi[:] = 0.0
        q_phi[i] = gravity * math.sin(phi[i] + tilt)
        _accumulate(q_phi, out, col)
        col += 1


@nb.njit(cache=True, inline="always")
def _accumulate(q_phi: np.ndarray, out: np.ndarray, col: int) -> None:
    total = 0.0
    for r in range(q_phi.shape[0] - 1, -1, -1):
        total += q_phi[r]
        out[r, col] = total


@nb.njit(cache=True, inline="always")
def orifice_terms(u: float, p_plus: float, p_minus: float, supply: float) -> tuple[float, float, float, float]:
    """(h++, h+−, h−+, h−−) of the valve flows; square-root arguments clipped at 0."""
    if u > 0.0:
        return math.sqrt(max(supply - p_plus, 0.0)), 0.0, math.sqrt(max(p_minus, 0.0)), 0.0
    if u < 0.0:
        return 0.0, math.sqrt(max(p_plus, 0.0)), 0.0, math.sqrt(max(supply - p_minus, 0.0))
    return 0.0, 0.0, 0.0, 0.0


@nb.njit(cache=True)
def chamber_volumes(cyl: np.ndarray, s: float) -> tuple[float, float]:
    """(V+, V−) [m³] at piston displacement s [m]."""
    half = 0.5 * cyl[C_STROKE]
    return cyl[C_VP] + (half + s) * cyl[C_AP], cyl[C_VM] + (half - s) * cyl[C_AM]

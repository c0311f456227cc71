"""Triangle loop closure of a cylinder-driven revolute segment (Petrović & Mattila eqs. 18–23).

Link L_j [m] runs from the cylinder's base pin (q_j1-joint) to the segment joint (q_j-joint);
link L_j1 [m] from the q_j-joint to the rod pin (q_j2-joint). The cylinder closes the triangle;
its pin-to-pin length is ℓ = x + x0 with stroke x ∈ [0, s] [m] and x0 the length at zero stroke.

Sign convention (the only one consistent with the velocity recursion 25–30): the
angles are negative, q, q_j1, q_j2 ∈ (−π, 0), and q = q_j1 + q_j2.

- (18) x = √(L² + L1² + 2 L L1 cos q) − x0
- (19) q_j1 = −arccos[(L1² − ℓ² − L²)/(−2 ℓ L)],  (20) q_j2 = −arccos[(L² − ℓ² − L1²)/(−2 ℓ L1)]
- (21) ẋ = −(L L1 sin q/ℓ) q̇,  (22) q̇_j1 = −(ℓ − L cos q_j1)/(ℓ L sin q_j1) ẋ,
  (23) q̇_j2 = −(ℓ − L1 cos q_j2)/(ℓ L1 sin q_j2) ẋ

The accelerations (not printed in the paper) are the time derivatives of (21)–(23):
ẍ = J_x q̈ + J̇_x q̇ with J_x = −L L1 sin q/ℓ, and likewise for q_j1, q_j2. For the required
motion of VDC (a reading taken: the paper leaves it open) the Jacobians use the *measured* geometry
and rates and only the propagated rate is "required": ``segment_motion`` takes both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..validation import positive

FLAT_MARGIN = 0.02
"""Closest approach [rad] of q to 0 or −π accepted: at a flat triangle (22)–(23) divide by
sin q_j1 = 0 and (68) by sin q_j2 = 0."""


@nb.njit(cache=True)
def stroke_from_angle(length, length1, x0, q):
    """Piston stroke x [m] at joint angle q [rad] (18); returns (x, ℓ)."""
    ell = math.sqrt(length * length + length1 * length1 + 2.0 * length * length1 * math.cos(q))
    return ell - x0, ell


@nb.njit(cache=True)
def loop_angles(length, length1, ell):
    """(q_j1, q_j2) [rad] of a triangle with cylinder length ℓ [m], (19)–(20)."""
    c1 = (length1 * length1 - ell * ell - length * length) / (-2.0 * ell * length)
    c2 = (length * length - ell * ell - length1 * length1) / (-2.0 * ell * length1)
    return -math.acos(min(1.0, max(-1.0, c1))), -math.acos(min(1.0, max(-1.0, c2)))


@nb.njit(cache=True)
def angle_from_stroke(length, length1, x0, x):
    """Inverse of (18): the joint angle q ∈ (−π, 0) [rad] at stroke x [m]."""
    ell = x + x0
    c = (ell * ell - length * length - length1 * length1) / (2.0 * length * length1)
    return -math.acos(min(1.0, max(-1.0, c)))


@nb.njit(cache=True)
def loop_jacobians(length, length1, ell, q, q1, q2):
    """(J_x, J_1, J_2): ẋ = J_x q̇ (21), q̇_j1 = J_1 ẋ (22), q̇_j2 = J_2 ẋ (23)."""
    jx = -length * length1 * math.sin(q) / ell
    j1 = -(ell - length * math.cos(q1)) / (ell * length * math.sin(q1))
    j2 = -(ell - length1 * math.cos(q2)) / (ell * length1 * math.sin(q2))
    return jx, j1, j2


@nb.njit(cache=True)
def _jacobian_rate(link, ell, angle, xd, angle_d):
    """d/dt of J = −(ℓ − a cos φ)/(ℓ a sin φ) at rates ẋ = dℓ/dt and φ̇."""
    c, s = math.cos(angle), math.sin(angle)
    num = ell - link * c
    den = ell * link * s
    dnum = xd + link * s * angle_d
    dden = link * (xd * s + ell * c * angle_d)
    return -(dnum * den - num * dden) / (den * den)


@nb.njit(cache=True)
def segment_motion(length, length1, x0, q, qd, qd_r, qdd_r, out):
    """Geometry and rates of one segment into ``out`` (13,):

    [ℓ, x, q_j1, q_j2, ẋ, q̇_j1, q̇_j2, ẋ_r, q̇_j1r, q̇_j2r, ẍ_r, q̈_j1r, q̈_j2r]

    at measured q [rad], q̇ [rad/s]; (ẋ_r, q̇_j1r, q̇_j2r) from (21)–(23) with q̇ → q̇_r and their
    time derivatives at q̈_r [rad/s²] (measured geometry and rates in the Jacobians). With
    q̇_r = q̇ and q̈_r = q̈ the "required" entries are the actual rates and accelerations.
    """
    x, ell = stroke_from_angle(length, length1, x0, q)
    q1, q2 = loop_angles(length, length1, ell)
    jx, j1, j2 = loop_jacobians(length, length1, ell, q, q1, q2)
    xd = jx * qd
    q1d = j1 * xd
    q2d = j2 * xd
    djx = -length * length1 * (math.cos(q) * qd * ell - math.sin(q) * xd) / (ell * ell)
    dj1 = _jacobian_rate(length, ell, q1, xd, q1d)
    dj2 = _jacobian_rate(length1, ell, q2, xd, q2d)
    xd_r = jx * qd_r
    xdd_r = jx * qdd_r + djx * qd_r
    out[0] = ell
    out[1] = x
    out[2] = q1
    out[3] = q2
    out[4] = xd
    out[5] = q1d
    out[6] = q2d
    out[7] = xd_r
    out[8] = j1 * xd_r
    out[9] = j2 * xd_r
    out[10] = xdd_r
    out[11] = j1 * xdd_r + dj1 * xd_r
    out[12] = j2 * xdd_r + dj2 * xd_r


@dataclass(frozen=True)
class TriangleLinkage:
    """A cylinder closing the triangle of a revolute segment.

    length L_j [m], length1 L_j1 [m], x0 cylinder pin-to-pin length at zero stroke [m],
    stroke s [m] (the piston moves in [0, s]).
    """

    length: float
    length1: float
    x0: float
    stroke: float
    name: str = "segment"

    def __post_init__(self) -> None:
        for field in ("length", "length1", "x0", "stroke"):
            object.__setattr__(self, field, positive(f"{self.name}.{field}", getattr(self, field), "m"))
        if not abs(self.length - self.length1) < self.x0 < self.length + self.length1:
            raise ParameterError(
                f"{self.name}.x0 = {self.x0:g} m must lie strictly inside (|L − L1|, L + L1) = "
                f"({abs(self.length - self.length1):.4g}, {self.length + self.length1:.4g}) m so the "
                "triangle closes at zero stroke; change x0 or the link lengths"
            )
        q_zero = angle_from_stroke(self.length, self.length1, self.x0, 0.0)
        if q_zero > -FLAT_MARGIN or q_zero < -math.pi + FLAT_MARGIN:
            raise ParameterError(
                f"{self.name}: the triangle is (nearly) flat at zero stroke (q = {q_zero:.4g} rad); "
                "change x0 or the link lengths"
            )

    def angle_range(self) -> tuple[float, float]:
        """(lowest, highest) joint angle q [rad]: q(x = 0) and the smaller of q(x = s) and
        −``FLAT_MARGIN`` (the triangle must not go flat); q rises towards 0 as the rod extends."""
        high = angle_from_stroke(self.length, self.length1, self.x0, self.stroke)
        if self.x0 + self.stroke >= self.length + self.length1:
            high = 0.0
        return angle_from_stroke(self.length, self.length1, self.x0, 0.0), min(high, -FLAT_MARGIN)

    def check_angle(self, q) -> np.ndarray:
        """``q`` [rad] as an array if every angle keeps the piston within [0, s], else raise."""
        q = np.asarray(q, dtype=float)
        lo, hi = self.angle_range()
        bad = ~((q >= lo - 1e-12) & (q <= hi + 1e-12))
        if np.any(bad):
            value = float(q[bad].flat[0]) if q.ndim else float(q)
            raise ParameterError(
                f"{self.name}: joint angle q = {value:.6g} rad is outside [{lo:.6g}, {hi:.6g}] rad, "
                f"where the piston stays within its stroke [0, {self.stroke:g}] m (eq. 18) and the "
                "triangle is not flat; keep the motion inside the cylinder's travel"
            )
        return q

    def stroke_at(self, q) -> np.ndarray:
        """Piston stroke x [m] at joint angle(s) q [rad] (18)."""
        q = self.check_angle(q)
        return np.vectorize(lambda a: stroke_from_angle(self.length, self.length1, self.x0, a)[0])(q)

    def angle_at(self, x) -> np.ndarray:
        """Joint angle q [rad] at stroke(s) x [m], the inverse of (18)."""
        x = np.asarray(x, dtype=float)
        x_max = stroke_from_angle(self.length, self.length1, self.x0, self.angle_range()[1])[0]
        bad = ~((x >= 0.0) & (x <= x_max + 1e-12))
        if np.any(bad):
            value = float(x[bad].flat[0]) if x.ndim else float(x)
            raise ParameterError(
                f"{self.name}: stroke x = {value:.6g} m is outside [0, {x_max:.6g}] m (the cylinder's "
                f"travel of {self.stroke:g} m, short of a flat triangle); keep the piston in that range"
            )
        return np.vectorize(lambda s: angle_from_stroke(self.length, self.length1, self.x0, s))(x)

    def motion(self, q: float, qd: float, qdd: float = 0.0) -> dict[str, float]:
        """Loop-closure state at q [rad], q̇ [rad/s], q̈ [rad/s²] by name (see ``segment_motion``)."""
        q = float(self.check_angle(q))
        out = np.empty(13)
        segment_motion(self.length, self.length1, self.x0, q, qd, qd, qdd, out)
        names = (
            "ell",
            "x",
            "q1",
            "q2",
            "xd",
            "q1d",
            "q2d",
            "_xd",
            "_q1d",
            "_q2d",
            "xdd",
            "q1dd",
            "q2dd",
        )
        return {k: float(v) for k, v in zip(names, out) if not k.startswith("_")}

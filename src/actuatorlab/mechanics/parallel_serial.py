"""Parallel–serial hydraulic manipulator of Petrović & Mattila (2022): its description and model.

A chain of *structures*; structure j holds a revolute segment (a passive joint q_j whose
triangle is closed by a cylinder, ``linkage``) and optionally a prismatic (telescope) segment.
Here: the frozen parameter classes (``FrameOffset``, ``PrismaticSegment``, ``RevoluteSegment``,
``ParallelSerialManipulator``) that describe such a chain, their packing into the kernels'
arrays, and the checked public model (inverse dynamics (68)/(55), base force (69), forward
dynamics, actuator inertia, tool pose, piston strokes). The recursions themselves and the
frame/body numbering are in ``parallel_serial_kernels``; a machine's values (the lab crane)
are in ``machines``.

Generalised coordinates: per structure q_j [rad] (∈ (−π, 0), see ``linkage``), then x_tj [m]
if it has a prismatic segment. Actuator forces f_cj, f_ctj [N] > 0 push the piston out
(eqs. 67, 55); they exclude friction (78). World W: gravity along its −y.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import ParameterError
from ..numerics.spatial import rot_z
from .linkage import TriangleLinkage
from .parallel_serial_kernels import (
    B0,
    B1,
    B3,
    B4,
    B5,
    EXIT,
    N_BODIES,
    N_SEG,
    P2,
    P3,
    S_COL,
    S_D0,
    S_L,
    S_L1,
    S_LC,
    S_PRISM,
    S_X0,
    actuator_inertia,
    backward_pass,
    batch_inverse_dynamics,
    body_net_forces,
    forward_dynamics,
    forward_pass,
    inverse_dynamics,
    new_work,
    piston_states,
)
from .rigid_body import BODY_SIZE, RigidBody


@dataclass(frozen=True)
class FrameOffset:
    """A constant transform ^A U_B: rotation ^A R_B (3×3) and origin ^A r_AB [m] (3,)."""

    rotation: tuple = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    translation: tuple = (0.0, 0.0, 0.0)
    name: str = "offset"

    def __post_init__(self) -> None:
        rot = np.asarray(self.rotation, dtype=float)
        if rot.shape != (3, 3) or not np.all(np.isfinite(rot)) or not np.allclose(rot @ rot.T, np.eye(3), atol=1e-8):
            raise ParameterError(f"{self.name}.rotation = {self.rotation!r}: give an orthonormal 3x3 matrix")
        if np.linalg.det(rot) < 0:
            raise ParameterError(f"{self.name}.rotation has determinant −1: give a proper rotation")
        r = np.asarray(self.translation, dtype=float)
        if r.shape != (3,) or not np.all(np.isfinite(r)):
            raise ParameterError(f"{self.name}.translation = {self.translation!r} m: give three finite numbers")
        object.__setattr__(self, "rotation", tuple(tuple(float(v) for v in row) for row in rot))
        object.__setattr__(self, "translation", tuple(float(v) for v in r))

    @classmethod
    def planar(cls, angle: float, x: float, y: float, name: str = "offset") -> FrameOffset:
        """Rotation ``angle`` [rad] about z and origin (x, y, 0) [m]."""
        return cls(tuple(map(tuple, rot_z(angle))), (x, y, 0.0), name)

    def packed(self) -> np.ndarray:
        """The transform as 12 numbers: the rotation row-major, then the origin [m] (the kernels' layout)."""
        return np.concatenate((np.ravel(self.rotation), self.translation))


@dataclass(frozen=True)
class PrismaticSegment:
    """Telescope: case P_2j mounted at ``mount`` (T_cj → P_2j), rod B_5j at (d_0 + x_t, 0, 0)
    along P_2j's x, load P_3j at ``rod_to_load`` (B_5j → P_3j), exit E_2j at ``exit``.

    base_offset d_0 [m], stroke [m] (x_t ∈ [0, stroke]); bodies in their own frames.
    """

    mount: FrameOffset
    base_offset: float
    stroke: float
    rod_to_load: FrameOffset
    exit: FrameOffset
    case: RigidBody
    rod: RigidBody
    load: RigidBody

    def __post_init__(self) -> None:
        if not (math.isfinite(self.base_offset)):
            raise ParameterError(f"prismatic.base_offset = {self.base_offset!r} m: must be finite")
        if not (math.isfinite(self.stroke) and self.stroke > 0.0):
            raise ParameterError(f"prismatic.stroke = {self.stroke!r} m: must be a finite number > 0")


@dataclass(frozen=True)
class RevoluteSegment:
    """Revolute segment j: the triangle ``linkage``, rod length l_cj [m] (piston B_4j to the rod
    pin, < x0), ``exit`` (T_cj → E_1j), the four bodies and an optional prismatic segment."""

    linkage: TriangleLinkage
    rod_length: float
    exit: FrameOffset
    link_base: RigidBody
    link: RigidBody
    case: RigidBody
    rod: RigidBody
    prismatic: PrismaticSegment | None = None

    def __post_init__(self) -> None:
        lc = self.rod_length
        if not (math.isfinite(lc) and 0.0 < lc < self.linkage.x0):
            raise ParameterError(
                f"{self.linkage.name}.rod_length = {lc!r} m: must lie in (0, x0 = {self.linkage.x0:g}) m "
                "(the piston sits inside the case at zero stroke)"
            )


@dataclass(frozen=True)
class ParallelSerialManipulator:
    """A base frame (world W → B_c1), gravity g [m/s²] along −y of W, and the structures."""

    base: FrameOffset
    segments: tuple[RevoluteSegment, ...]
    gravity: float = 9.8066
    name: str = "manipulator"

    def __post_init__(self) -> None:
        if len(self.segments) == 0:
            raise ParameterError(f"{self.name}.segments is empty: give at least one revolute segment")
        if not math.isfinite(self.gravity):
            raise ParameterError(f"{self.name}.gravity = {self.gravity!r} m/s^2: must be finite")
        object.__setattr__(self, "segments", tuple(self.segments))

    # -- layout -------------------------------------------------------------------------------
    @property
    def coordinate_names(self) -> tuple[str, ...]:
        """Names of the generalised coordinates in kernel order: ``q1`` [rad], then ``xt1`` [m] if
        structure 1 has a telescope, ``q2``, …"""
        names = []
        for j, seg in enumerate(self.segments, start=1):
            names.append(f"q{j}")
            if seg.prismatic is not None:
                names.append(f"xt{j}")
        return tuple(names)

    @property
    def n_coords(self) -> int:
        """The number of generalised coordinates (one per structure, plus one per telescope)."""
        return len(self.coordinate_names)

    @cached_property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(seg (n, 7), inert (n, 7, 13), trf (n, 3, 12), base (15,)) for the kernels."""
        n = len(self.segments)
        seg = np.zeros((n, N_SEG))
        inert = np.zeros((n, N_BODIES, BODY_SIZE))
        trf = np.zeros((n, 3, 12))
        identity = FrameOffset().packed()
        col = 0
        for j, s in enumerate(self.segments):
            lk = s.linkage
            seg[j, [S_L, S_L1, S_X0, S_LC, S_COL]] = (
                lk.length,
                lk.length1,
                lk.x0,
                s.rod_length,
                col,
            )
            for k, body in zip((B0, B1, B3, B4), (s.link_base, s.link, s.case, s.rod)):
                inert[j, k] = body.packed()
            trf[j, 0] = s.exit.packed()
            trf[j, 1] = identity
            trf[j, 2] = identity
            col += 1
            if s.prismatic is not None:
                p = s.prismatic
                seg[j, S_PRISM] = 1.0
                seg[j, S_D0] = p.base_offset
                for k, body in zip((P2, B5, P3), (p.case, p.rod, p.load)):
                    inert[j, k] = body.packed()
                trf[j, 1] = p.rod_to_load.packed()
                trf[j, 2] = p.exit.packed()
                col += 1
        base = np.concatenate((self.base.packed(), [0.0, self.gravity, 0.0]))
        return seg, inert, trf, base

    @cached_property
    def coordinate_limits(self) -> np.ndarray:
        """(n_coords, 2) lower/upper limits of each coordinate [rad or m] (piston strokes in travel)."""
        limits = []
        for s in self.segments:
            a, b = s.linkage.angle_range()
            limits.append((min(a, b), max(a, b)))
            if s.prismatic is not None:
                limits.append((0.0, s.prismatic.stroke))
        return np.array(limits)

    def first_outside_limits(self, q: np.ndarray, tolerance: float = 0.0) -> tuple[int, int] | None:
        """(sample k, coordinate i) of the first entry of ``q`` (n, n_coords) that is not finite
        or lies outside ``coordinate_limits`` widened by ``tolerance`` [rad or m], or None."""
        lim = self.coordinate_limits
        bad = (q < lim[:, 0] - tolerance) | (q > lim[:, 1] + tolerance) | ~np.isfinite(q)
        if not np.any(bad):
            return None
        k, i = np.argwhere(bad)[0]
        return int(k), int(i)

    # -- checks -------------------------------------------------------------------------------
    def check_coordinates(self, q) -> np.ndarray:
        """``q`` as a float array of shape (n_coords,), or raise naming the first coordinate outside
        its range (piston out of its stroke)."""
        q = np.asarray(q, dtype=float)
        if q.shape != (self.n_coords,):
            raise ParameterError(
                f"coordinates have shape {q.shape}; give {self.n_coords} values {self.coordinate_names}"
            )
        lim = self.coordinate_limits
        for i, name in enumerate(self.coordinate_names):
            if not (lim[i, 0] - 1e-12 <= q[i] <= lim[i, 1] + 1e-12):
                raise ParameterError(
                    f"{name} = {q[i]:.6g} is outside [{lim[i, 0]:.6g}, {lim[i, 1]:.6g}] "
                    "(its piston would leave the stroke); move the pose inside the workspace"
                )
        return q

    def _vec(self, value, what: str) -> np.ndarray:
        value = np.asarray(value, dtype=float)
        if value.shape != (self.n_coords,) or not np.all(np.isfinite(value)):
            raise ParameterError(f"{what} must be {self.n_coords} finite numbers {self.coordinate_names}")
        return value

    def _tool(self, tool_force) -> np.ndarray:
        if tool_force is None:
            return np.zeros(6)
        tool = np.asarray(tool_force, dtype=float)
        if tool.shape != (6,) or not np.all(np.isfinite(tool)):
            raise ParameterError("tool_force must be 6 finite numbers (force [N], moment [N m]) in the tool frame")
        return tool

    # -- public model ---------------------------------------------------------------------------
    def actuator_forces(self, q, qd, qdd, tool_force=None) -> np.ndarray:
        """Actuator forces f_c [N] (68) and f_ct (55), friction excluded, at q, q̇, q̈ (coordinate
        order); ``tool_force`` ^D F (6,) is the wrench the manipulator exerts on the environment."""
        q = self.check_coordinates(q)
        return inverse_dynamics(
            *self.arrays,
            q,
            self._vec(qd, "qd"),
            self._vec(qdd, "qdd"),
            self._tool(tool_force),
            1.0,
        )

    def actuator_forces_batch(self, q, qd, qdd) -> np.ndarray:
        """(68)/(55) for many samples: q, q̇, q̈ of shape (n, n_coords) → forces (n, n_coords) [N],
        no tool load; one compiled loop (the fast path)."""
        q, qd, qdd = (np.ascontiguousarray(a, dtype=float) for a in (q, qd, qdd))
        shape = (len(q), self.n_coords)
        if q.shape != shape or qd.shape != shape or qdd.shape != shape:
            raise ParameterError(
                f"q, qd, qdd must all have shape (n, {self.n_coords}); got {q.shape}, {qd.shape}, {qdd.shape}"
            )
        outside = self.first_outside_limits(q, tolerance=1e-12)
        if outside is not None:
            k, i = outside
            lim = self.coordinate_limits
            raise ParameterError(
                f"sample {k}: {self.coordinate_names[i]} = {q[k, i]:.6g} is outside "
                f"[{lim[i, 0]:.6g}, {lim[i, 1]:.6g}]; "
                "keep the trajectory inside the workspace"
            )
        out = np.empty(shape)
        batch_inverse_dynamics(*self.arrays, q, qd, qdd, out)
        return out

    def base_force(self, q, qd, qdd, tool_force=None) -> np.ndarray:
        """^B_c1 F (6,) [N, N m] (69): the wrench the base applies at the first cylinder base pin."""
        work = self.state(q, qd, qdd)
        f = np.empty(self.n_coords)
        backward_pass(
            self.arrays[0],
            self.arrays[2],
            work.lk,
            work.q,
            work.fstar,
            self._tool(tool_force),
            f,
            work.fc,
            work.tmp,
        )
        return work.fc[0].copy()

    def state(self, q, qd, qdd) -> Workspace:
        """Every frame's velocity, acceleration, pose, net force and loop state (a ``Workspace``)."""
        q = self.check_coordinates(q)
        qd, qdd = self._vec(qd, "qd"), self._vec(qdd, "qdd")
        work = Workspace(q, *new_work(len(self.segments)))
        seg, inert, trf, base = self.arrays
        forward_pass(seg, trf, base, q, qd, qd, qdd, work.lk, work.v, work.dv, work.rw, work.pw)
        body_net_forces(inert, base, work.rw, work.v, work.dv, work.v, work.fstar, 1.0)
        return work

    def accelerations(self, q, qd, f_c, tool_force=None) -> np.ndarray:
        """Forward dynamics: q̈ for actuator forces f_c [N] (friction already removed)."""
        q = self.check_coordinates(q)
        out = np.empty(self.n_coords)
        forward_dynamics(
            *self.arrays,
            q,
            self._vec(qd, "qd"),
            self._vec(f_c, "f_c"),
            self._tool(tool_force),
            out,
            new_work(len(self.segments)),
        )
        return out

    def actuator_inertia(self, q) -> np.ndarray:
        """A(q) (n_coords × n_coords): f_c = A(q) q̈ + b(q, q̇)."""
        q = self.check_coordinates(q)
        out = np.empty((self.n_coords, self.n_coords))
        actuator_inertia(*self.arrays, q, out, new_work(len(self.segments)))
        return out

    def tool_pose(self, q) -> tuple[np.ndarray, np.ndarray]:
        """(position [m] (3,), rotation ^W R_D (3×3)) of the exit frame of the last structure."""
        work = self.state(q, np.zeros(self.n_coords), np.zeros(self.n_coords))
        return work.pw[-1, EXIT].copy(), work.rw[-1, EXIT].copy()

    def piston_strokes(self, q) -> np.ndarray:
        """Stroke of each actuator [m] in coordinate order (x_j from (18), x_tj itself)."""
        q = self.check_coordinates(q)
        out = np.empty(self.n_coords)
        piston_states(self.arrays[0], q, np.zeros_like(q), out, np.empty_like(out))
        return out


@dataclass
class Workspace:
    """One evaluation at coordinates q: lk (n, 13) loop states (``linkage.segment_motion``),
    v/dv (n, 9, 6) frame velocities and their derivatives, rw (n, 9, 3, 3) / pw (n, 9, 3) world
    poses, fstar (n, 7, 6) net forces, fc (n, 6) driven-point forces ^B_cj F, tmp scratch."""

    q: np.ndarray
    lk: np.ndarray
    v: np.ndarray
    dv: np.ndarray
    rw: np.ndarray
    pw: np.ndarray
    fstar: np.ndarray
    fc: np.ndarray
    tmp: np.ndarray

"""The follower's problem as data (Bahari et al. (53)–(57)): the motion task and its bounds,
the NLP's settings, a solution (control points c, final time t_M) and its dense samples.

Units: joint coordinates q = (q1, q2 [rad], x_t2 [m]); EMLA strokes [m], velocities [m/s],
forces [N]; times [s]. The NLP itself is :class:`.follower.Follower`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..numerics.bspline import ClampedBSpline


def _vector(name: str, value, unit: str, n: int = 3) -> np.ndarray:
    arr = np.asarray(value, dtype=float).reshape(-1)
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise ParameterError(f"{name} = {value!r} {unit}: give {n} finite numbers")
    return arr


@dataclass(frozen=True)
class TrajectoryTask:
    """Boundary conditions and bounds (53) of one point-to-point motion of the crane.

    Coordinates (q1 [rad], q2 [rad], x_t2 [m]); rates per second. ``None`` bounds take the
    defaults: q from ``EmlaCrane.joint_limits``, f_x and v_x ± the EMLA ratings. The default
    task raises the boom and retracts the telescope from rest to rest (all three EMLAs motoring
    most of the time), inside the band of poses
    where the Table I EMLAs (``electromech.load_actuators``; tilt rated ≈ 23 kN) can hold the
    570 kg end mass: the outer boom hangs close to vertical.
    """

    q_initial: tuple = (-2.1, -2.2, 0.8)
    q_final: tuple = (-1.6, -2.6, 0.3)
    qd_initial: tuple = (0.0, 0.0, 0.0)
    qd_final: tuple = (0.0, 0.0, 0.0)
    duration_bounds: tuple = (1.0, 8.0)
    q_lower: tuple | None = (-2.2, -2.9, 0.0)
    q_upper: tuple | None = (-1.4, -2.0, 1.0)
    qd_lower: tuple = (-0.5, -0.5, -0.5)
    qd_upper: tuple = (0.5, 0.5, 0.5)
    force_lower: tuple | None = None
    force_upper: tuple | None = None
    velocity_lower: tuple | None = None
    velocity_upper: tuple | None = None

    def __post_init__(self) -> None:
        for name, unit in (
            ("q_initial", "rad|m"),
            ("q_final", "rad|m"),
            ("qd_initial", "rad/s|m/s"),
            ("qd_final", "rad/s|m/s"),
            ("qd_lower", "rad/s|m/s"),
            ("qd_upper", "rad/s|m/s"),
        ):
            object.__setattr__(self, name, tuple(_vector(name, getattr(self, name), unit)))
        for name, unit in (
            ("q_lower", "rad|m"),
            ("q_upper", "rad|m"),
            ("force_lower", "N"),
            ("force_upper", "N"),
            ("velocity_lower", "m/s"),
            ("velocity_upper", "m/s"),
        ):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, tuple(_vector(name, getattr(self, name), unit)))
        t_lo, t_hi = _vector("duration_bounds", self.duration_bounds, "s", 2)
        if not (0.0 < t_lo < t_hi):
            raise ParameterError(f"duration_bounds = ({t_lo:g}, {t_hi:g}) s: need 0 < t_ML < t_MU (53)")
        object.__setattr__(self, "duration_bounds", (float(t_lo), float(t_hi)))


@dataclass(frozen=True)
class FollowerSettings:
    """Discretisation and solver settings.

    n_ctrl control points per coordinate (N of Algorithm 1), spline ``degree``, M =
    ``n_intervals`` collocation intervals, ``grid`` points per coordinate of the dynamics fit,
    IPOPT ``tol`` and ``max_iter``.
    """

    n_ctrl: int = 10
    degree: int = 5
    n_intervals: int = 40
    grid: tuple = (21, 21, 9)
    tol: float = 1e-7
    max_iter: int = 400

    def __post_init__(self) -> None:
        if not (isinstance(self.n_intervals, int) and self.n_intervals >= 4):
            raise ParameterError(f"n_intervals = {self.n_intervals!r}: give an integer ≥ 4")
        grid = tuple(int(g) for g in self.grid)
        if len(grid) != 3 or min(grid) < 4:
            raise ParameterError(f"grid = {self.grid!r}: give three integers ≥ 4")
        object.__setattr__(self, "grid", grid)
        if not (self.tol > 0.0 and isinstance(self.max_iter, int) and self.max_iter > 0):
            raise ParameterError(
                f"tol = {self.tol!r}, max_iter = {self.max_iter!r}: give tol > 0 and an integer max_iter > 0"
            )
        ClampedBSpline(self.n_ctrl, self.degree)  # validates


@dataclass(frozen=True)
class FollowerSolution:
    """One follower solve: weights w, control points c (n_ctrl, 3), duration t_M [s], criteria
    ψ = (ψ1 [N² s], ψ2 [W² s]) evaluated with the recursion, the scaled objective, solver
    status, IPOPT iterations, wall time [s] and the multipliers."""

    weights: tuple
    control_points: np.ndarray
    duration: float
    psi: tuple
    objective: float
    success: bool
    status: str
    iterations: int
    solve_time: float
    multipliers: tuple | None = None
    """(λ_x, λ_g) of the solve, for a primal–dual warm start (None: primal only)."""

    def decision_vector(self) -> np.ndarray:
        """[vec(c) (column-major), t_M]: the NLP's variables, for a warm start."""
        return np.concatenate((np.ravel(self.control_points, order="F"), [self.duration]))


@dataclass(frozen=True)
class TrajectorySamples:
    """Trajectory samples from the recursion (42): t (n,) [s]; q, q̇, q̈ (n, 3); actuator
    position x [m], velocity v [m/s] and force f [N], each (n, 3) in ``ACTUATOR_NAMES`` order."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    force: np.ndarray

    @property
    def power(self) -> np.ndarray:
        """Mechanical output power p = f_x v_x [W] (n, 3); > 0 motoring."""
        return self.force * self.velocity

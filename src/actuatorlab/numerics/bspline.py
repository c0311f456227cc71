"""Clamped B-spline joint trajectories with free final time, eq. (41) of Bahari et al.

q(t) = B(s) c,  q̇(t) = B'(s) c / t_M,  q̈(t) = B''(s) c / t_M²,  s = t / t_M ∈ [0, 1],

with c the (n_ctrl, n_q) control points and B the clamped B-spline basis of degree p on the
uniform knot vector [0]*(p+1) ∪ interior ∪ [1]*(p+1). Reading taken (the paper does not say): the
spline lives on the normalised time s, so the basis matrices at the collocation points
s_k = k/M (40) are constants and t_M enters only through the 1/t_M, 1/t_M² factors; N in
Algorithm 1 is the number of control points. Clamping gives q(0) = c_0, q(t_M) = c_{n−1};
the velocity boundary conditions (53) are linear in (c, t_M): B'(0) c = t_M q̇_I.
The derivatives are exact (derivative splines), not finite differences.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.interpolate import BSpline

from ..errors import ParameterError


@dataclass(frozen=True)
class ClampedBSpline:
    """Basis of ``n_ctrl`` clamped B-splines of ``degree`` p on s ∈ [0, 1] (uniform knots).

    Needs n_ctrl ≥ p + 1 and p ≥ 3 (so q̈ is continuous); ``n_ctrl ≥ 4`` leaves the interior
    control points free after four boundary conditions per coordinate.
    """

    n_ctrl: int = 10
    degree: int = 5

    def __post_init__(self) -> None:
        if not (isinstance(self.degree, (int, np.integer)) and 3 <= self.degree <= 9):
            raise ParameterError(f"B-spline degree = {self.degree!r}: give an integer in [3, 9] (q̈ must be continuous)")
        if not (isinstance(self.n_ctrl, (int, np.integer)) and self.n_ctrl >= max(self.degree + 1, 5)):
            raise ParameterError(
                f"B-spline n_ctrl = {self.n_ctrl!r}: give an integer ≥ max(degree + 1, 5) = "
                f"{max(self.degree + 1, 5)} (four boundary conditions must leave free control points)"
            )

    @cached_property
    def knots(self) -> np.ndarray:
        """Clamped uniform knot vector on [0, 1], length n_ctrl + degree + 1."""
        p, n = self.degree, self.n_ctrl
        interior = np.linspace(0.0, 1.0, n - p + 1)[1:-1]
        return np.concatenate((np.zeros(p + 1), interior, np.ones(p + 1)))

    @cached_property
    def _splines(self) -> tuple[BSpline, BSpline, BSpline]:
        b = BSpline(self.knots, np.eye(self.n_ctrl), self.degree, extrapolate=False)
        return b, b.derivative(1), b.derivative(2)

    def basis(self, s, order: int = 0) -> np.ndarray:
        """d^order B / ds^order at normalised times s ∈ [0, 1]: shape (len(s), n_ctrl)."""
        s = np.atleast_1d(np.asarray(s, dtype=float))
        if np.any(~np.isfinite(s)) or np.any(s < -1e-12) or np.any(s > 1.0 + 1e-12):
            raise ParameterError("normalised times s must lie in [0, 1] (s = t / t_M)")
        if order not in (0, 1, 2):
            raise ParameterError(f"basis order = {order!r}: give 0, 1 or 2")
        out = self._splines[order](np.clip(s, 0.0, 1.0))
        return np.nan_to_num(out, nan=0.0)

    def evaluate(self, control_points, duration: float, t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(q, q̇, q̈) at times t [s] ∈ [0, t_M] for control points (n_ctrl, n_q) and duration
        t_M [s]; each of shape (len(t), n_q) in the coordinates' units (rad or m, per s, per s²)."""
        c = np.asarray(control_points, dtype=float)
        if c.ndim != 2 or c.shape[0] != self.n_ctrl:
            raise ParameterError(f"control points have shape {c.shape}; give ({self.n_ctrl}, n_q)")
        if not (np.isfinite(duration) and duration > 0.0):
            raise ParameterError(f"duration t_M = {duration!r} s: must be a finite number > 0")
        s = np.asarray(t, dtype=float) / duration
        return (
            self.basis(s, 0) @ c,
            self.basis(s, 1) @ c / duration,
            self.basis(s, 2) @ c / duration**2,
        )

    def collocation(self, n_intervals: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(s_k, B, B', B'') at the M + 1 collocation points s_k = k/M (40); matrices (M+1, n_ctrl)."""
        if not (isinstance(n_intervals, (int, np.integer)) and n_intervals >= 2):
            raise ParameterError(f"n_intervals M = {n_intervals!r}: give an integer ≥ 2")
        s = np.linspace(0.0, 1.0, n_intervals + 1)
        return s, self.basis(s, 0), self.basis(s, 1), self.basis(s, 2)

    def interpolating_guess(self, q_start, q_end) -> np.ndarray:
        """Control points (n_ctrl, n_q) of a rest-to-rest motion q_start → q_end: the first and
        last two points repeated (q̇ = 0 at both ends), the others evenly spaced (convex hull
        inside the box spanned by the end points)."""
        a, b = np.asarray(q_start, dtype=float), np.asarray(q_end, dtype=float)
        lam = np.concatenate(([0.0], np.linspace(0.0, 1.0, self.n_ctrl - 2), [1.0]))
        return a + lam[:, None] * (b - a)

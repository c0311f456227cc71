"""Follower (inner) problem of Bahari et al.: B-spline trajectory with free final time.

.. math::
    \\min_{c,\\,t_M}\\; w_1 \\frac{ψ_1}{ψ_{1,\\mathrm{ref}}} + w_2 \\frac{ψ_2}{ψ_{2,\\mathrm{ref}}},\\quad
    ψ_1 = \\tfrac12 Δ_t \\sum_{k=0}^{M} f_x^T f_x \\;(56),\\quad
    ψ_2 = \\tfrac12 Δ_t \\sum_{k=0}^{M} \\sum_i (f_{xi} v_{xi})^2 \\;(57),

subject to (53): q_L ≤ q ≤ q_U, q̇_L ≤ q̇ ≤ q̇_U, f_xL ≤ f_x ≤ f_xU, v_xL ≤ v_x ≤ v_xU,
t_ML ≤ t_M ≤ t_MU and q, q̇ given at t = 0 and t = t_M. Δ_t = t_M / M, collocation points
t_k = k t_M / M (40), q = B(t)c (41) with ``numerics.bspline.ClampedBSpline``.

Readings taken (where the paper is silent):

- q are the joint coordinates (q1, q2 [rad], x_t2 [m]) of ``mechanics.emla_crane``; v_x and f_x
  the EMLA velocities and forces from the recursion (42) (item 7).
- Scaling (item 8): ψ1 [N² s] and ψ2 [W² s] are divided by their values at a reference
  trajectory (the rest-to-rest spline ``interpolating_guess`` at the middle of [t_ML, t_MU]),
  so w = (1, 1) weighs them equally and neither dominates by its units. Only the ratio of the
  weights matters (the objective is homogeneous in w).
- The position bound is imposed on the control points (q_L ≤ c ≤ q_U): by the convex-hull
  property q(t) then stays in bounds at *every* t, not only at the collocation points; the
  other bounds of (53) are imposed at the M + 1 collocation points. Beyond (53), the motor's
  share |f_x + m_r a_x| ≤ f_max is bounded too (m_r the rotor inertia reflected to the rod,
  ``EmlaCrane.reflected_mass``, a_x the actuator acceleration): without it the optimum asks the
  extension EMLA for more torque than its current limit gives while it accelerates.
- Dynamics in the NLP: f_x = A(q) q̈ + C(q) π(q̇) + g(q) is exact in q̇ and q̈
  (``EmlaCrane.dynamics_terms``); the q-dependence of A, C, g and of the stroke Jacobian
  J_x(q) is a tensor-product cubic B-spline (CasADi ``Function.bspline``, MX graph) that
  interpolates the compiled recursion on a grid over [q_L, q_U] (not-a-knot end conditions),
  so the recursion stays the one implementation of (42). The NLP has exact first and second
  derivatives of this model (CasADi AD, IPOPT with the exact Hessian), not of the recursion
  itself; the model's force error against the recursion is measured at construction
  (``model_error``, ≈ 0.03 / 36 / 0.001 N for lift / tilt / extension on the default task)
  and the force bounds are tightened by twice it, so the recursion meets them. Results
  (``trajectory``, ``criteria``, ``bound_violation``) use the recursion, not the fit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

import casadi as ca
import numpy as np
from scipy.interpolate import make_interp_spline

from ..errors import ParameterError
from ..mechanics.emla_crane import ACTUATOR_NAMES, QUADRATIC_PAIRS, EmlaCrane
from ..numerics.bspline import ClampedBSpline
from ..validation import first_outside
from .trajectory_task import FollowerSettings, FollowerSolution, TrajectorySamples, TrajectoryTask

CRITERIA = ("effort", "power")
"""Names of ψ1 (56) and ψ2 (57), in weight order."""


@dataclass
class Follower:
    """The inner NLP for one crane and task, built once and solved for any weights w.

    ``solve(w, warm_start)`` returns a ``FollowerSolution``; ``trajectory(sol)`` samples it.
    Raises ``ParameterError`` at construction if the task is infeasible on its face (bounds
    crossed, boundary states outside the bounds, force bounds beyond the EMLA ratings, a
    boundary state whose holding force exceeds the force bounds).
    """

    crane: EmlaCrane
    task: TrajectoryTask = field(default_factory=TrajectoryTask)
    settings: FollowerSettings = field(default_factory=FollowerSettings)

    def __post_init__(self) -> None:
        self.spline = ClampedBSpline(self.settings.n_ctrl, self.settings.degree)
        self._check_task()
        self._build_model()
        self._build_nlp()

    # -- validation ---------------------------------------------------------------------------
    def _check_task(self) -> None:
        task, crane = self.task, self.crane
        lim = crane.joint_limits()
        self.q_lower = np.array(task.q_lower) if task.q_lower is not None else lim[:, 0]
        self.q_upper = np.array(task.q_upper) if task.q_upper is not None else lim[:, 1]
        names = ("q1", "q2", "xt2")
        for i, n in enumerate(names):
            lo, hi = self.q_lower[i], self.q_upper[i]
            if not lo < hi:
                raise ParameterError(f"bounds of {n}: q_lower = {lo:.6g} ≥ q_upper = {hi:.6g}; give q_lower < q_upper")
            if lo < lim[i, 0] - 1e-12 or hi > lim[i, 1] + 1e-12:
                raise ParameterError(
                    f"bounds of {n}: [{lo:.6g}, {hi:.6g}] leave the EMLA crane's range "
                    f"[{lim[i, 0]:.6g}, {lim[i, 1]:.6g}] (stroke, flat triangle); narrow them"
                )
        self.qd_lower, self.qd_upper = np.array(task.qd_lower), np.array(task.qd_upper)
        rating_f, rating_v = crane.max_force, crane.max_velocity
        self.f_lower = np.array(task.force_lower) if task.force_lower is not None else -rating_f
        self.f_upper = np.array(task.force_upper) if task.force_upper is not None else rating_f
        self.v_lower = np.array(task.velocity_lower) if task.velocity_lower is not None else -rating_v
        self.v_upper = np.array(task.velocity_upper) if task.velocity_upper is not None else rating_v
        for what, lo, hi, rating, unit in (
            ("force", self.f_lower, self.f_upper, rating_f, "N"),
            ("velocity", self.v_lower, self.v_upper, rating_v, "m/s"),
            ("qd", self.qd_lower, self.qd_upper, None, "rad/s|m/s"),
        ):
            for i, n in enumerate(ACTUATOR_NAMES):
                if not lo[i] < hi[i]:
                    raise ParameterError(f"{n} {what} bounds [{lo[i]:.6g}, {hi[i]:.6g}] {unit}: give lower < upper")
                if rating is not None and max(-lo[i], hi[i]) > rating[i] * (1 + 1e-12):
                    raise ParameterError(
                        f"{n} {what} bound {max(-lo[i], hi[i]):.6g} {unit} exceeds the EMLA rating "
                        f"{rating[i]:.6g} {unit}; keep |bound| ≤ the rating"
                    )
                if what == "qd" and not lo[i] <= 0.0 <= hi[i]:
                    raise ParameterError(
                        f"{names[i]} rate bounds [{lo[i]:.6g}, {hi[i]:.6g}] exclude 0; a rest state would be infeasible"
                    )
        for label, q, qd in (
            ("q_initial", task.q_initial, task.qd_initial),
            ("q_final", task.q_final, task.qd_final),
        ):
            q, qd = np.array(q), np.array(qd)
            i = first_outside(q, self.q_lower, self.q_upper)
            if i is not None:
                raise ParameterError(
                    f"{label}[{names[i]}] = {q[i]:.6g} lies outside [{self.q_lower[i]:.6g}, "
                    f"{self.q_upper[i]:.6g}]; move it inside the bounds (53)"
                )
            i = first_outside(qd, self.qd_lower, self.qd_upper)
            if i is not None:
                raise ParameterError(
                    f"rate at {label}[{names[i]}] = {qd[i]:.6g} lies outside [{self.qd_lower[i]:.6g}, "
                    f"{self.qd_upper[i]:.6g}]; change it or the rate bounds"
                )
            f_hold = crane.actuator_forces(q, qd, np.zeros(3))[0]
            i = first_outside(f_hold, self.f_lower, self.f_upper)
            if i is not None:
                raise ParameterError(
                    f"{ACTUATOR_NAMES[i]} force at {label} is {f_hold[i]:.6g} N, outside its bounds "
                    f"[{self.f_lower[i]:.6g}, {self.f_upper[i]:.6g}] N (rating {rating_f[i]:.6g} N): "
                    "the task is infeasible; choose a stronger EMLA or another pose"
                )
        if not np.all(np.isfinite(task.duration_bounds)):
            raise ParameterError("duration_bounds must be finite")

    # -- dynamics model -----------------------------------------------------------------------
    def _build_model(self) -> None:
        grids = [np.linspace(lo, hi, n) for lo, hi, n in zip(self.q_lower, self.q_upper, self.settings.grid)]
        mesh = np.meshgrid(*grids, indexing="ij")
        q = np.stack([m.ravel(order="F") for m in mesh], axis=1)  # first coordinate fastest
        g, a, c = self.crane.dynamics_terms(q)
        jac = self.crane.stroke_jacobian(q)
        table = np.concatenate((g, a.reshape(len(q), 9), c.reshape(len(q), 18), jac[:, :2]), axis=1)
        self._n_out = table.shape[1]
        # not-a-knot cubic interpolation, one axis at a time (tensor product), handed to CasADi
        # as a B-spline function (faster to build than ``casadi.interpolant``'s own fit)
        coef = table.reshape(*self.settings.grid[::-1], self._n_out).transpose(2, 1, 0, 3)
        knots = []
        for ax, grid in enumerate(grids):
            spl = make_interp_spline(grid, np.moveaxis(coef, ax, 0), k=3, axis=0)
            coef = np.moveaxis(spl.c, 0, ax)
            knots.append(list(spl.t))
        flat = np.transpose(coef, (3, 0, 1, 2)).ravel(order="F")
        self._table = ca.Function.bspline("emla_crane_terms", knots, list(flat), [3, 3, 3], self._n_out, {})
        # measured error of the fit against the recursion at random states within the bounds
        rng = np.random.default_rng(1)
        n = 400
        qs = self.q_lower + (self.q_upper - self.q_lower) * rng.uniform(size=(n, 3))
        qds = self.qd_lower + (self.qd_upper - self.qd_lower) * rng.uniform(size=(n, 3))
        rate = np.maximum(np.abs(self.qd_lower), np.abs(self.qd_upper))
        qdds = rng.uniform(-2.0, 2.0, size=(n, 3)) * rate  # ~ the accelerations of a 1 s move
        exact = self.crane.actuator_forces(qs, qds, qdds)
        fitted = np.array(self._model_forces_numeric(qs, qds, qdds))
        self.model_error = np.abs(exact - fitted).max(axis=0)
        """(3,) largest force error [N] of the fitted dynamics against the recursion."""
        self._force_margin = 2.0 * self.model_error

    def _model_terms(self, q):
        out = self._table(q)
        g = out[0:3]
        a = ca.reshape(out[3:12], 3, 3)  # row-major (3, 3) data → CasADi column-major
        c = ca.reshape(out[12:30], 6, 3)
        return g, a.T, c.T, out[30:32]

    def _model_forces(self, q, qd, qdd):
        g, a, c, _ = self._model_terms(q)
        pi = ca.vertcat(*[qd[i] * qd[j] for i, j in QUADRATIC_PAIRS])
        return g + a @ qdd + c @ pi

    def _model_forces_numeric(self, qs, qds, qdds):
        q, qd, qdd = (ca.MX.sym(n, 3) for n in ("q", "qd", "qdd"))
        fun = ca.Function("f", [q, qd, qdd], [self._model_forces(q, qd, qdd)])
        return fun.map(len(qs))(qs.T, qds.T, qdds.T).full().T

    # -- NLP ----------------------------------------------------------------------------------
    @cached_property
    def _collocation(self):
        return self.spline.collocation(self.settings.n_intervals)

    def _reference(self) -> tuple[np.ndarray, float]:
        c = self.spline.interpolating_guess(self.task.q_initial, self.task.q_final)
        return c, 0.5 * sum(self.task.duration_bounds)

    def criteria(self, control_points, duration) -> tuple[float, float]:
        """(ψ1 [N² s], ψ2 [W² s]) (56), (57) at the collocation points, from the recursion."""
        s = self._collocation[0]
        q, qd, qdd = self.spline.evaluate(control_points, duration, s * duration)
        _, v = self.crane.actuator_states(np.clip(q, self.q_lower, self.q_upper), qd)
        f = self.crane.actuator_forces(np.clip(q, self.q_lower, self.q_upper), qd, qdd)
        dt = duration / self.settings.n_intervals
        return 0.5 * dt * float(np.sum(f * f)), 0.5 * dt * float(np.sum((f * v) ** 2))

    def _build_nlp(self) -> None:
        n_c, m = self.settings.n_ctrl, self.settings.n_intervals
        _, b0, b1, b2 = self._collocation
        c_ref, t_ref = self._reference()
        psi_ref = np.array(self.criteria(c_ref, t_ref))
        self.psi_reference = tuple(float(p) if p > 0.0 else 1.0 for p in psi_ref)
        """(ψ1, ψ2) at the reference trajectory [N² s, W² s], the criteria's scales."""

        z = ca.MX.sym("z", 3 * n_c + 1)
        w = ca.MX.sym("w", 2)
        c = ca.reshape(z[: 3 * n_c], n_c, 3)
        t_m = z[-1]
        q = ca.DM(b0) @ c  # (M+1, 3)
        dq_ds = ca.DM(b1) @ c
        d2q_ds2 = ca.DM(b2) @ c
        qd = dq_ds / t_m
        qdd = d2q_ds2 / t_m**2
        qs, qds, qdds = (ca.MX.sym(n, 3) for n in ("q", "qd", "qdd"))
        _, _, _, jx = self._model_terms(qs)
        force = self._model_forces(qs, qds, qdds)
        vel = ca.vertcat(jx[0] * qds[0], jx[1] * qds[1], qds[2])
        acc = ca.jtimes(vel, qs, qds) + ca.vertcat(jx[0] * qdds[0], jx[1] * qdds[1], qdds[2])
        motor_force = force + ca.DM(self.crane.reflected_mass) * acc
        point = ca.Function("point", [qs, qds, qdds], [force, vel, motor_force])
        f_all, v_all, fm_all = point.map(m + 1)(q.T, qd.T, qdd.T)  # (3, M+1)
        dt = t_m / m
        psi1 = 0.5 * dt * ca.sumsqr(f_all)
        psi2 = 0.5 * dt * ca.sumsqr(f_all * v_all)
        objective = w[0] * psi1 / self.psi_reference[0] + w[1] * psi2 / self.psi_reference[1]

        task = self.task
        eq = ca.vertcat(
            q[0, :].T - ca.DM(task.q_initial),
            q[m, :].T - ca.DM(task.q_final),
            dq_ds[0, :].T - t_m * ca.DM(task.qd_initial),
            dq_ds[m, :].T - t_m * ca.DM(task.qd_final),
        )
        f_scale, v_scale = self.crane.max_force, self.crane.max_velocity
        qd_scale = np.maximum(np.abs(self.qd_lower), np.abs(self.qd_upper))
        g = ca.vertcat(
            eq,
            ca.vec((qd / ca.repmat(ca.DM(qd_scale).T, m + 1, 1)).T),
            ca.vec(f_all / ca.repmat(ca.DM(f_scale), 1, m + 1)),
            ca.vec(v_all / ca.repmat(ca.DM(v_scale), 1, m + 1)),
            ca.vec(fm_all / ca.repmat(ca.DM(f_scale), 1, m + 1)),
        )
        f_lo = (self.f_lower + self._force_margin) / f_scale
        f_hi = (self.f_upper - self._force_margin) / f_scale
        if np.any(f_lo >= f_hi):
            raise ParameterError(
                "force bounds are narrower than the dynamics fit's error "
                f"{self.model_error} N; widen them or refine FollowerSettings.grid"
            )
        self._lbg = np.concatenate(
            (
                np.zeros(12),
                np.tile(self.qd_lower / qd_scale, m + 1),
                np.tile(f_lo, m + 1),
                np.tile(self.v_lower / v_scale, m + 1),
                np.tile(-(f_scale - self._force_margin) / f_scale, m + 1),
            )
        )
        self._ubg = np.concatenate(
            (
                np.zeros(12),
                np.tile(self.qd_upper / qd_scale, m + 1),
                np.tile(f_hi, m + 1),
                np.tile(self.v_upper / v_scale, m + 1),
                np.tile((f_scale - self._force_margin) / f_scale, m + 1),
            )
        )
        t_lo, t_hi = task.duration_bounds
        self._lbx = np.concatenate((np.repeat(self.q_lower, n_c), [t_lo]))
        self._ubx = np.concatenate((np.repeat(self.q_upper, n_c), [t_hi]))
        opts = {
            "ipopt.print_level": 0,
            "ipopt.sb": "yes",
            "print_time": False,
            "ipopt.tol": self.settings.tol,
            "ipopt.max_iter": self.settings.max_iter,
            "ipopt.mu_strategy": "adaptive",
            "ipopt.bound_relax_factor": 0.0,
        }
        nlp = {"x": z, "p": w, "f": objective, "g": g}
        self._solver = ca.nlpsol("follower", "ipopt", nlp, opts)
        # primal–dual warm start from a previous solution: start IPOPT near its barrier end
        warm = {
            **opts,
            "ipopt.warm_start_init_point": "yes",
            "ipopt.mu_init": 1e-6,
            "ipopt.warm_start_bound_push": 1e-9,
            "ipopt.warm_start_mult_bound_push": 1e-9,
            "ipopt.warm_start_slack_bound_push": 1e-9,
        }
        self._warm_solver = ca.nlpsol("follower_warm", "ipopt", nlp, warm)
        self._z_ref = np.concatenate((np.ravel(c_ref, order="F"), [t_ref]))

    # -- public -------------------------------------------------------------------------------
    def check_weights(self, weights) -> np.ndarray:
        """``weights`` as a (2,) array of finite non-negative numbers with a positive sum."""
        w = np.asarray(weights, dtype=float).reshape(-1)
        if w.shape != (2,) or not np.all(np.isfinite(w)) or np.any(w < 0.0) or w.sum() <= 0.0:
            raise ParameterError(
                f"weights = {weights!r}: give two finite numbers ≥ 0 (effort, power) with a positive sum"
            )
        return w

    def solve(self, weights, warm_start: FollowerSolution | np.ndarray | None = None) -> FollowerSolution:
        """Solve the NLP for weights w = (w_effort, w_power), warm-started from a previous
        solution (primal and dual: IPOPT's warm-start point, small μ) or a decision vector
        (primal only); without one, from the reference trajectory."""
        w = self.check_weights(weights)
        if warm_start is None:
            z0 = self._z_ref
        elif isinstance(warm_start, FollowerSolution):
            z0 = warm_start.decision_vector()
        else:
            z0 = np.asarray(warm_start, dtype=float).reshape(-1)
        z0 = np.clip(z0, self._lbx, self._ubx)
        bounds = {"lbx": self._lbx, "ubx": self._ubx, "lbg": self._lbg, "ubg": self._ubg}
        mult = warm_start.multipliers if isinstance(warm_start, FollowerSolution) else None
        solver = self._solver if mult is None else self._warm_solver
        t0 = time.perf_counter()
        if mult is None:
            sol = solver(x0=z0, p=w, **bounds)
        else:
            sol = solver(x0=z0, p=w, lam_x0=mult[0], lam_g0=mult[1], **bounds)
        elapsed = time.perf_counter() - t0
        stats = solver.stats()
        z = sol["x"].full().ravel()
        n_c = self.settings.n_ctrl
        c = z[: 3 * n_c].reshape(n_c, 3, order="F")
        psi = self.criteria(c, float(z[-1]))
        return FollowerSolution(
            weights=tuple(float(v) for v in w),
            control_points=c,
            duration=float(z[-1]),
            psi=psi,
            objective=float(sol["f"]),
            success=bool(stats["success"]),
            status=str(stats["return_status"]),
            iterations=int(stats["iter_count"]),
            solve_time=elapsed,
            multipliers=(sol["lam_x"].full().ravel(), sol["lam_g"].full().ravel()),
        )

    def trajectory(self, solution: FollowerSolution, n_samples: int | None = None) -> TrajectorySamples:
        """Samples of a solution from the recursion (42): at the M + 1 collocation points, or at
        ``n_samples`` evenly spaced times in [0, t_M]."""
        n = self.settings.n_intervals + 1 if n_samples is None else int(n_samples)
        if n < 2:
            raise ParameterError(f"n_samples = {n_samples!r}: give at least 2")
        t = np.linspace(0.0, solution.duration, n)
        q, qd, qdd = self.spline.evaluate(solution.control_points, solution.duration, t)
        q = np.clip(q, self.q_lower, self.q_upper)  # round-off at the bounds
        x, v, f = self.crane.actuator_motion(q, qd, qdd)
        return TrajectorySamples(t, q, qd, qdd, x, v, f)

    def bound_violation(self, solution: FollowerSolution, n_samples: int | None = None) -> dict[str, float]:
        """Largest violation of each bound (53) on the recursion's samples (0 when all hold):
        q [rad|m], q̇ [rad/s|m/s], f_x [N], v_x [m/s], t_M [s], boundary q and q̇."""
        s = self.trajectory(solution, n_samples)
        t_lo, t_hi = self.task.duration_bounds

        def over(x, lo, hi):
            return float(max(0.0, np.max(lo - x), np.max(x - hi)))

        c = solution.control_points
        q, qd, _ = self.spline.evaluate(c, solution.duration, s.t)
        return {
            "q": over(q, self.q_lower, self.q_upper),
            "qd": over(s.qd, self.qd_lower, self.qd_upper),
            "force": over(s.force, self.f_lower, self.f_upper),
            "velocity": over(s.velocity, self.v_lower, self.v_upper),
            "duration": over(np.array([solution.duration]), t_lo, t_hi),
            "boundary_q": float(
                max(
                    np.max(np.abs(q[0] - self.task.q_initial)),
                    np.max(np.abs(q[-1] - self.task.q_final)),
                )
            ),
            "boundary_qd": float(
                max(
                    np.max(np.abs(qd[0] - self.task.qd_initial)),
                    np.max(np.abs(qd[-1] - self.task.qd_final)),
                )
            ),
        }

"""Linear model-predictive control (MPC) of the IEHA on its identified transfer functions and a
PID baseline (Alfayad et al. §5.4, Fig. 13); their closed loop on the nonlinear plant is
``simulation.ieha_control``.

Prediction model: Y(s) = G1(s) X(s) + G2(s) F_ext(s) with G1 = K/(s Π(1 + λ_k s)) and
G2 = K′/(s Π(1 + λ′_k s)), realised as chains of first-order lags feeding one shared
integrator (Y), plus an input-disturbance state d (X_eff = X + d, a random walk) that an
observer (steady-state Kalman filter) estimates from the measured Y: this removes offsets due
to model mismatch and unmodelled load. Discretised exactly with a zero-order hold at T_s.

QP (condensed, decision u_k = X_k / E_max, k = 0 … H−1, solved by OSQP, set up once, then
only q, l, u are updated and the solver warm-starts):

.. math:: \\min_u \\sum_{k=1}^{H} w_y (\\hat y_k − r_k)^2/y_s^2 + w_{Δ} \\sum_k (u_k − u_{k−1})^2

subject to |u_k| ≤ 1 (|X| ≤ E_max) and |u_k − u_{k−1}| ≤ Ẋ_max T_s / E_max; the reference r
is previewed over the horizon, the measured F_ext is held at its current value.

"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import osqp
import scipy.linalg as sla
from scipy import sparse

from ..errors import ParameterError
from ..hydraulics.ieha import IEHAParams
from ..validation import check_quantities, count, non_negative, quantity


def lag_chain_model(k1: float, lags1, k2: float | None = None, lags2=()) -> tuple[np.ndarray, ...]:
    """Continuous (A, B_u, B_F, C) of Y = K1/(s Π(1+λ s)) X + K2/(s Π(1+λ′ s)) F.

    State: [lags of G1 (X side first), lags of G2, Y]; the input enters the first lag, each lag
    feeds the next, the last ones feed the shared integrator with gains K1, K2.
    """
    lags1 = [float(v) for v in lags1]
    lags2 = [float(v) for v in lags2] if k2 is not None else []
    if any(not (v > 0.0 and math.isfinite(v)) for v in lags1 + lags2):
        raise ParameterError(f"time constants must be finite and > 0 s, got {lags1 + lags2}")
    n1, n2 = len(lags1), len(lags2)
    n = n1 + n2 + 1
    a = np.zeros((n, n))
    bu = np.zeros(n)
    bf = np.zeros(n)
    iy = n - 1

    def chain(offset, lags, b, gain):
        if not lags:
            b[iy] += gain
            return
        for j, lam in enumerate(lags):
            a[offset + j, offset + j] = -1.0 / lam
            if j == 0:
                b[offset] = 1.0 / lam
            else:
                a[offset + j, offset + j - 1] = 1.0 / lam
        a[iy, offset + len(lags) - 1] += gain

    chain(0, lags1, bu, float(k1))
    if k2 is not None:
        chain(n1, lags2, bf, float(k2))
    c = np.zeros(n)
    c[iy] = 1.0
    return a, bu, bf, c


def discretise(a: np.ndarray, b: np.ndarray, ts: float) -> tuple[np.ndarray, np.ndarray]:
    """Zero-order-hold (A_d, B_d) at period ts [s], exact (matrix exponential)."""
    n, m = a.shape[0], b.shape[1]
    big = np.zeros((n + m, n + m))
    big[:n, :n] = a
    big[:n, n:] = b
    e = sla.expm(big * ts)
    return e[:n, :n], e[:n, n:]


@dataclass(frozen=True)
class MPCSettings:
    """Sample time ts [s]; horizon H [samples]; weights w_y (output, per y_scale [m]) and w_du
    (input rate, per E_max); max_rate Ẋ_max [m/s]; observer noise: q_disturbance (d random walk
    [m per sample]), q_state [state units], r_measurement [m]."""

    ts: float = quantity(2e-3, "s")
    horizon: int = quantity(25, "samples", count)
    w_y: float = quantity(1.0, "(dimensionless)")
    w_du: float = quantity(0.05, "(dimensionless)", non_negative)
    y_scale: float = quantity(1e-3, "m")
    max_rate: float = quantity(0.1, "m/s")
    q_disturbance: float = quantity(1e-6, "m")
    q_state: float = quantity(1e-6, "(state units)")
    r_measurement: float = quantity(1e-5, "m")

    def __post_init__(self) -> None:
        check_quantities(self, "mpc.")


class LinearMPC:
    """MPC of the IEHA (module docstring). ``g1`` = (K [1/s], λ_1 … [s]) of X → Y;
    ``g2`` = (K′ [m/(N s)], λ′ … [s]) of F_ext → Y or None; ``e_max`` [m] the input bound.

    ``reset(y0)``, then ``step(y_measured, f_measured, reference)`` each period with
    ``reference`` the H + 1 reference samples [m] from now on; returns X [m]."""

    def __init__(self, g1, g2=None, e_max: float = IEHAParams().max_eccentricity, settings: MPCSettings | None = None):
        self.settings = s = settings or MPCSettings()
        self.e_max = float(e_max)
        g2 = None if g2 is None else np.asarray(g2, float)
        g1 = np.asarray(g1, float)
        a, bu, bf, c = lag_chain_model(g1[0], g1[1:], None if g2 is None else g2[0], () if g2 is None else g2[1:])
        n = a.shape[0]
        ad, bd = discretise(a, np.column_stack([bu, bf]), s.ts)
        # augmented with the input disturbance d (same input matrix as X)
        self.A = np.zeros((n + 1, n + 1))
        self.A[:n, :n] = ad
        self.A[:n, n] = bd[:, 0]
        self.A[n, n] = 1.0
        self.Bu = np.append(bd[:, 0], 0.0)
        self.Bf = np.append(bd[:, 1], 0.0)
        self.C = np.append(c, 0.0)
        self.n = n + 1
        h = s.horizon
        # condensed prediction y = Φ x0 + Γ u_n + Ψ F
        phi = np.zeros((h, self.n))
        gamma = np.zeros((h, h))
        psi = np.zeros(h)
        power = np.eye(self.n)
        impulses = []
        for k in range(h):
            impulses.append(self.C @ power @ self.Bu)
            psi[k] = (psi[k - 1] if k else 0.0) + self.C @ power @ self.Bf
            power = self.A @ power
            phi[k] = self.C @ power
        for k in range(h):
            for j in range(k + 1):
                gamma[k, j] = impulses[k - j] * self.e_max
        self.phi, self.gamma, self.psi = phi, gamma, psi
        diff = np.eye(h) - np.eye(h, k=-1)
        wy = s.w_y / s.y_scale**2
        p = wy * gamma.T @ gamma + s.w_du * diff.T @ diff
        self._wy = wy
        self._rate = s.max_rate * s.ts / self.e_max
        constraints = sparse.vstack([sparse.eye(h), sparse.csc_matrix(diff)]).tocsc()
        self._lower = np.concatenate([-np.ones(h), -self._rate * np.ones(h)])
        self._upper = -self._lower
        self.solver = osqp.OSQP()
        self.solver.setup(
            sparse.triu(sparse.csc_matrix(p)).tocsc(),
            np.zeros(h),
            constraints,
            self._lower.copy(),
            self._upper.copy(),
            verbose=False,
            warm_starting=True,
            polishing=False,
            eps_abs=1e-6,
            eps_rel=1e-6,
            max_iter=4000,
        )
        # steady-state Kalman filter on y = C x
        q = np.full(self.n, s.q_state**2)
        q[-1] = s.q_disturbance**2
        cov = sla.solve_discrete_are(self.A.T, self.C[:, None], np.diag(q), np.array([[s.r_measurement**2]]))
        self.L = cov @ self.C / (self.C @ cov @ self.C + s.r_measurement**2)
        self.solve_times: list[float] = []
        self.reset()

    def reset(self, y0: float = 0.0) -> None:
        """Rest at position y0 [m], X = 0."""
        self.x = np.zeros(self.n)
        self.x[self.n - 2] = y0
        self.u_prev = 0.0
        self.solve_times = []

    def step(self, y_measured: float, f_measured: float, reference: np.ndarray) -> float:
        """One control period: correct the estimate with Y, solve the QP, return X [m]."""
        start = time.perf_counter()
        self.x = self.x + self.L * (y_measured - self.C @ self.x)
        h = self.settings.horizon
        free = self.phi @ self.x + self.psi * f_measured - np.asarray(reference, float)[1 : h + 1]
        self.solver.update(q=self._wy * self.gamma.T @ free, l=self._bounds(self._lower), u=self._bounds(self._upper))
        result = self.solver.solve(raise_error=False)
        if result.info.status_val not in (1, 2):  # solved, solved inaccurate
            u0 = float(np.clip(self.u_prev, -1.0, 1.0))
        else:
            u0 = float(np.clip(result.x[0], -1.0, 1.0))
        x_cmd = u0 * self.e_max
        self.x = self.A @ self.x + self.Bu * x_cmd + self.Bf * f_measured
        self.u_prev = u0
        self.solve_times.append(time.perf_counter() - start)
        return x_cmd

    def _bounds(self, base: np.ndarray) -> np.ndarray:
        b = base.copy()
        h = self.settings.horizon
        b[h] += self.u_prev
        return b


@dataclass(frozen=True)
class PIDGains:
    """X = K_p e + K_i ∫e + K_d ė (e = r − Y [m], X [m]); clamped to |X| ≤ E_max with
    conditional integration (anti-windup). Gains K_p [-], K_i [1/s], K_d [s], each ≥ 0 (the
    plant's gain is positive: X > 0 extends the rod). ``tuned`` gives the documented
    loop-shaping rule."""

    kp: float = quantity(unit="(dimensionless)", check=non_negative)
    ki: float = quantity(unit="1/s", check=non_negative)
    kd: float = quantity(0.0, "s", non_negative)

    def __post_init__(self) -> None:
        check_quantities(self, "pid.")

    @classmethod
    def tuned(cls, k: float, crossover: float = 60.0) -> PIDGains:
        """For the integrating plant K/s: crossover ω_c [rad/s] → K_p = ω_c/K; integral corner
        ω_c/5 (K_i = K_p ω_c/5) to reject the load; no derivative (it would amplify the pump
        ripple). ω_c = 60 rad/s keeps ≈ 60° phase margin against the lags Σλ ≈ 3 ms and stays
        well below the ≈ 430 rad/s load resonance."""
        kp = crossover / k
        return cls(kp, kp * crossover / 5.0, 0.0)


class PID:
    """Discrete PID at period ts [s] (backward-difference derivative)."""

    def __init__(self, gains: PIDGains, ts: float, e_max: float):
        self.gains, self.ts, self.e_max = gains, float(ts), float(e_max)
        self.solve_times: list[float] = []
        self.reset()

    def reset(self, y0: float = 0.0) -> None:
        """Clear the integral and the previous error (``y0`` [m] is unused: the PID keeps no state of Y)."""
        self.integral = 0.0
        self.e_prev = None
        self.solve_times = []

    def step(self, y_measured: float, f_measured: float, reference: np.ndarray) -> float:
        """X [m] from the measured Y [m] and ``reference[0]`` = r now [m] (F_ext unused)."""
        start = time.perf_counter()
        g = self.gains
        e = float(np.asarray(reference)[0]) - y_measured
        de = 0.0 if self.e_prev is None else (e - self.e_prev) / self.ts
        self.e_prev = e
        raw = g.kp * e + g.ki * (self.integral + e * self.ts) + g.kd * de
        x = float(np.clip(raw, -self.e_max, self.e_max))
        if x == raw or np.sign(e) != np.sign(raw):
            self.integral += e * self.ts
        self.solve_times.append(time.perf_counter() - start)
        return x

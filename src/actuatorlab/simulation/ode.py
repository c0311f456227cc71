"""Integration of stiff ODE systems ẏ = F(t, y) given as compiled kernels, onto a time grid.

A system supplies two ``@njit`` kernels, ``rhs(t, y, out, *args)`` writing F into ``out`` and
``jac(t, y, out, *args)`` writing ∂F/∂y (analytic) into the square ``out``. Solvers:

- ``"LSODA"``, ``"BDF"``, ``"Radau"``: SciPy's adaptive stiff solvers with the analytic
  Jacobian, error-controlled by ``rtol``/``atol``; the grid only sets the output samples;
- ``"RK4"``: classical fixed-step Runge–Kutta with the grid step, compiled; explicit, so it is
  stable only below a step set by the Jacobian's eigenvalues λ: |R(hλ)| ≤ 1 with
  R(z) = 1 + z + z²/2 + z³/6 + z⁴/24. ``largest_stable_step`` evaluates that bound.

An adaptive solver runs as one integration, stepped here so progress can be reported, its
dense output sampled on the grid; RK4 runs in compiled chunks.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numba as nb
import numpy as np

from ..errors import SimulationError
from ..numerics.rk4 import rk4_step
from ..numerics.status import STATUS_DIVERGED, STATUS_OK
from .solvers import ADAPTIVE_SOLVERS, SOLVERS

MAX_STEP_SAMPLES = 10
"""An adaptive step spans at most this many grid intervals, so it cannot step over an input
change (inputs are sampled on the grid) without evaluating the right-hand side near it."""


@nb.njit(cache=True)
def _rk4_loop(rhs, args, y, t, bounds, k0, k1, out):
    """Advance ``y`` over grid samples k0 … k1−1 with one RK4 step per grid interval, storing
    the state at t_k in ``out[k]``. Returns (status, k): STATUS_DIVERGED at the first sample whose
    state is non-finite or exceeds ``bounds`` in magnitude."""
    m = y.size
    k1v, k2v, k3v, k4v, tmp = np.empty(m), np.empty(m), np.empty(m), np.empty(m), np.empty(m)
    for k in range(k0, k1):
        for i in range(m):
            out[k, i] = y[i]
            if not (abs(y[i]) <= bounds[i]):
                return STATUS_DIVERGED, k
        if k + 1 >= t.size:
            break
        rk4_step(rhs, args, t[k], y, t[k + 1] - t[k], k1v, k2v, k3v, k4v, tmp)
    return STATUS_OK, k1


@nb.njit(cache=True)
def inputs_at(t, h, u_samples, f_samples):
    """Linear interpolation at time t [s] of inputs sampled every h [s] from t = 0: a row of
    ``u_samples`` and of ``f_samples`` (first axis: time); held constant outside the grid."""
    n = f_samples.shape[0]
    position = min(max(t / h, 0.0), n - 1.0)
    k = min(int(position), n - 2)
    w = position - k
    return (1.0 - w) * u_samples[k] + w * u_samples[k + 1], (1.0 - w) * f_samples[k] + w * f_samples[k + 1]


def _rk4_amplification(z: np.ndarray) -> np.ndarray:
    return np.abs(1.0 + z + z * z / 2.0 + z**3 / 6.0 + z**4 / 24.0)


def largest_stable_step(jacobians: np.ndarray) -> float:
    """Largest h [s] with |R(hλ)| ≤ 1 for every eigenvalue λ (Re λ ≤ 0) of ``jacobians`` (one
    matrix or a stack of shape (..., m, m)) under RK4; eigenvalues with Re λ > 0 (a physically
    growing mode) do not limit the step."""
    eigenvalues = np.linalg.eigvals(jacobians).ravel()
    decaying = eigenvalues[(eigenvalues.real <= 0.0) & (np.abs(eigenvalues) > 0.0)]
    if decaying.size == 0:
        return np.inf
    low = np.zeros(decaying.size)
    high = 3.0 / np.abs(decaying)  # |R| > 1 beyond |hλ| = 2.79 on every ray of the left half-plane
    for _ in range(60):
        mid = 0.5 * (low + high)
        stable = _rk4_amplification(mid * decaying) <= 1.0 + 1e-12
        low = np.where(stable, mid, low)
        high = np.where(stable, high, mid)
    return float(np.min(low))


def integrate(
    rhs,
    jac,
    args: tuple,
    y0: np.ndarray,
    t: np.ndarray,
    solver: str = "LSODA",
    rtol: float = 1e-6,
    atol: np.ndarray | float = 1e-8,
    bounds: np.ndarray | None = None,
    progress: Callable[[float], None] | None = None,
    chunks: int = 50,
) -> tuple[np.ndarray, dict[str, float]]:
    """Integrate from ``y0`` at t[0] and return (states of shape (len(t), m), counters).

    ``bounds`` (RK4 only): magnitudes per state beyond which the run counts as diverged, which
    raises ``SimulationError`` naming the time and the largest stable step at the last good
    state. Adaptive solvers raise ``SimulationError`` if SciPy reports a failure.
    """
    if solver not in SOLVERS:
        raise SimulationError(f"solver = {solver!r}: choose one of {', '.join(SOLVERS)}")
    y = np.array(y0, dtype=np.float64)
    m = y.size
    n = t.size
    out = np.empty((n, m))
    edges = np.linspace(0, n - 1, min(chunks, n - 1) + 1).astype(np.int64)
    counters = {"rhs_evaluations": 0.0, "jacobian_evaluations": 0.0, "lu_decompositions": 0.0}
    t_start = time.perf_counter()
    if solver == "RK4":
        bounds = np.full(m, np.inf) if bounds is None else np.asarray(bounds, dtype=np.float64)
        edges[-1] = n
        for k0, k1 in zip(edges[:-1], edges[1:]):
            status, k = _rk4_loop(rhs, args, y, t, bounds, k0, k1, out)
            if status != STATUS_OK:
                _raise_diverged(jac, args, t, out, k)
            if progress is not None:
                progress(k1 / n)
        counters["rhs_evaluations"] = 4.0 * (n - 1)
    else:

        def fun(time_, state):
            dydt = np.empty(m)
            rhs(time_, state, dydt, *args)
            return dydt

        def jacobian(time_, state):
            matrix = np.empty((m, m))
            jac(time_, state, matrix, *args)
            return matrix

        max_step = MAX_STEP_SAMPLES * float(t[1] - t[0])
        import scipy.integrate  # a second of start-up that an RK4 or quasistatic run does not need

        stepper = getattr(scipy.integrate, solver)(
            fun, t[0], y, t[-1], rtol=rtol, atol=atol, jac=jacobian, max_step=max_step
        )
        out[0] = y
        filled = 1
        while stepper.status == "running":
            stepper.step()
            if stepper.status == "failed":
                raise SimulationError(
                    f"the {solver} solver failed at t = {stepper.t:.4g} s: {stepper.message}; "
                    "loosen rtol or try another solver"
                )
            reached = int(np.searchsorted(t, stepper.t, side="right"))
            if reached > filled:
                out[filled:reached] = stepper.dense_output()(t[filled:reached]).T
                filled = reached
                if progress is not None:
                    progress(filled / n)
        counters["rhs_evaluations"] = float(stepper.nfev)
        counters["jacobian_evaluations"] = float(stepper.njev)
        counters["lu_decompositions"] = float(stepper.nlu)
    counters["loop_time_s"] = time.perf_counter() - t_start
    return out, counters


@nb.njit(cache=True)
def _jacobians_along(jac, args, t, states, out):
    for k in range(t.size):
        jac(t[k], states[k], out[k], *args)


def jacobians_along(jac, args: tuple, t: np.ndarray, states: np.ndarray) -> np.ndarray:
    """∂F/∂y at every (t_k, y_k) of a trajectory, shape (len(t), m, m)."""
    out = np.empty((t.size, states.shape[1], states.shape[1]))
    _jacobians_along(jac, args, np.ascontiguousarray(t), np.ascontiguousarray(states), out)
    return out


def jacobian_at(jac, args: tuple, t: float, y: np.ndarray) -> np.ndarray:
    """∂F/∂y of the system at (t, y)."""
    matrix = np.empty((y.size, y.size))
    jac(t, np.asarray(y, dtype=np.float64), matrix, *args)
    return matrix


def _round_down(x: float, digits: int = 3) -> str:
    """``x`` > 0 cut (not rounded) to ``digits`` significant digits, so a quoted bound never
    rounds up past the step it is compared with."""
    scale = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return f"{math.floor(x / scale) * scale:.{digits}g}"


def _raise_diverged(jac, args, t, out, k) -> None:
    """Raise for an RK4 run that diverged at sample ``k``, with advice that fits the cause: the
    largest stable step along the run up to its last finite state, when that is below the step;
    otherwise a valve switched within the step (laminar band, relief, check valve), which no
    earlier linearisation sees, and only a much smaller step or an adaptive solver helps."""
    good = max(k - 1, 0)
    h = float(t[1] - t[0])
    limit = largest_stable_step(jacobians_along(jac, args, t[: good + 1], out[: good + 1]))
    where = f"RK4 with step h = {h:g} s diverged at t = {t[k]:.4g} s"
    adaptive = f"an adaptive stiff solver ({', '.join(ADAPTIVE_SOLVERS)})"
    if limit < h:
        raise SimulationError(
            f"{where}; the largest stable step along the run up to its last finite state "
            f"(t = {t[good]:.4g} s) is {_round_down(limit)} s: set the step below it or use "
            f"{adaptive}"
        )
    raise SimulationError(
        f"{where}, although the model linearised along the run up to t = {t[good]:.4g} s is stable with it "
        f"(largest stable step {limit:.3g} s): a valve that switched within the step (an orifice entering its "
        f"laminar band, a relief or check valve opening) made it unstable, which only a much smaller step "
        f"would resolve; use {adaptive}"
    )

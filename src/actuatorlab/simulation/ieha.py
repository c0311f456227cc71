"""Time simulation of the IEHA model (:mod:`actuatorlab.hydraulics.ieha`).

The model is very stiff (carriage ≈ 5·10⁴ rad/s, piston chambers ≈ 10⁸ 1/s) and its pump
ports switch 2N times per revolution, so an adaptive SciPy solver would take tens of thousands
of Python-level steps. Instead a compiled fixed-step BDF2 (A-stable, damped at infinity;
implicit Euler for the first step) with simplified Newton iterations runs the whole loop: the
finite-difference Jacobian and its LU factors are reused across steps and refreshed only when
Newton stalls; a step whose Newton iteration still fails (a port switching inside it) is
redone as 2, 4, … 256 implicit-Euler substeps. The step h (default 20 µs, 33 samples per
period of the 1.5 kHz pump ripple) sets the accuracy; inputs are linear between samples.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numba as nb
import numpy as np

from ..errors import ParameterError, SimulationError
from ..hydraulics.ieha import (
    A_FP,
    A_QA,
    A_QB,
    A_QE,
    A_QLEAK,
    A_QSUP,
    A_QVENT,
    I_E,
    I_ED,
    I_PA,
    I_PB,
    I_PISTON,
    I_Y,
    I_YD,
    I_ZETA,
    N_AUX,
    IEHAParams,
    ieha_jacobian,
    ieha_rhs,
)
from ..numerics.status import STATUS_NEWTON, STATUS_OK, STATUS_STROKE
from .result import Channel, SimulationResult

_MESSAGES = {
    STATUS_NEWTON: "Newton iterations of the implicit step did not converge: lower the step dt",
    STATUS_STROKE: "a cylinder chamber volume reached zero (the rod left its stroke): shorten the run "
    "or enlarge chamber_volume_a/b",
}
_MAX_ITER = 6
NEWTON_TOL = 1e-5
"""Newton stops when every update is below NEWTON_TOL · state_scale (10 Pa on pressures: a
port passes ≈ 4e-9 m³/s per Pa, so looser tolerances leak visible volume)."""


@nb.njit(cache=True)
def _lu_factor(a, piv):
    """In-place LU with partial pivoting of the square ``a``; returns False if singular."""
    n = a.shape[0]
    for j in range(n):
        p = j
        best = abs(a[j, j])
        for i in range(j + 1, n):
            if abs(a[i, j]) > best:
                best = abs(a[i, j])
                p = i
        piv[j] = p
        if best == 0.0:
            return False
        if p != j:
            for c in range(n):
                a[j, c], a[p, c] = a[p, c], a[j, c]
        inv = 1.0 / a[j, j]
        for i in range(j + 1, n):
            a[i, j] *= inv
            f = a[i, j]
            if f != 0.0:
                for c in range(j + 1, n):
                    a[i, c] -= f * a[j, c]
    return True


@nb.njit(cache=True)
def _lu_solve(lu, piv, b):
    """Solve in place (LU from ``_lu_factor``) for the right-hand side ``b``."""
    n = lu.shape[0]
    for j in range(n):
        p = piv[j]
        if p != j:
            b[j], b[p] = b[p], b[j]
    for i in range(n):
        s = b[i]
        for c in range(i):
            s -= lu[i, c] * b[c]
        b[i] = s
    for i in range(n - 1, -1, -1):
        s = b[i]
        for c in range(i + 1, n):
            s -= lu[i, c] * b[c]
        b[i] = s / lu[i, i]


@nb.njit(cache=True)
def _factor(k, t, u, gamma, z, scale, ws):
    """Jacobian at (t, z) and LU factors of I − γJ into the workspace; False if singular."""
    f, work, jac, lu, piv, aux, meta, counters, dpist = ws
    m = z.size
    ieha_rhs(t, z, u, k, f, aux, dpist)
    ieha_jacobian(t, z, u, k, f, scale, jac, work, aux, dpist)
    counters[1] += 1 + I_PISTON
    counters[2] += 1
    for i in range(m):
        for j in range(m):
            lu[i, j] = -gamma * jac[i, j]
        lu[i, i] += 1.0
    counters[3] += 1
    meta[0] = gamma
    return _lu_factor(lu, piv)


@nb.njit(cache=True)
def _stage(k, t, u, gamma, c, z, scale, ws):
    """Solve z = c + γ f(t, z) from the guess in ``z``. Simplified Newton with the stored LU
    factors (refactored only if γ changed); if that stalls, again with a fresh Jacobian; then
    full Newton (Jacobian refreshed every iteration). ``ws``: workspace tuple. Returns a status."""
    f, work, _, lu, piv, aux, meta, counters, dpist = ws
    m = z.size
    z0 = z.copy()
    for level in range(3):
        if level > 0:
            for i in range(m):
                z[i] = z0[i]
        previous = np.inf
        for it in range(_MAX_ITER * (1 + level)):
            refresh = level == 2 or (level == 1 and it == 0) or meta[0] != gamma
            if refresh and not _factor(k, t, u, gamma, z, scale, ws):
                return STATUS_NEWTON
            vmin = ieha_rhs(t, z, u, k, f, aux, dpist)
            counters[1] += 1
            if vmin <= 0.0:
                return STATUS_STROKE
            for i in range(m):
                work[i] = c[i] + gamma * f[i] - z[i]
            _lu_solve(lu, piv, work)
            norm = 0.0
            for i in range(m):
                z[i] += work[i]
                r = work[i] / (scale[i] * NEWTON_TOL + 1e-9 * abs(z[i]))
                norm += r * r
            norm = math.sqrt(norm / m)
            if not math.isfinite(norm) or (level < 2 and norm > 0.9 * previous):
                break
            if norm < 1.0:
                return STATUS_OK
            previous = norm
    for i in range(m):
        z[i] = z0[i]
    return STATUS_NEWTON


@nb.njit(cache=True)
def _bdf2_run(k, t0, h, xs, fs, y, yprev, started, scale, out, aux_out, counters):
    """Advance over len(xs) − 1 steps of size h from t0; ``y`` (state at t0) and ``yprev``
    (state at t0 − h, used if ``started[0]``) are updated in place. Stores the state and the
    auxiliary outputs at every sample in ``out``/``aux_out``. A step whose Newton iteration
    fails is retried as 2, 4, … 256 implicit-Euler substeps (and BDF2 restarts after it).
    Returns (status, index). counters: [steps, rhs evaluations, Jacobians, LU factorisations,
    substepped steps]."""
    m = y.size
    n = xs.size
    u = np.empty(2)
    aux = np.empty(N_AUX)
    ws = (
        np.empty(m),
        np.empty(m),
        np.empty((m, m)),
        np.empty((m, m)),
        np.empty(m, dtype=np.int64),
        aux,
        np.array([-1.0]),
        counters,
        np.empty((m - I_PISTON, 4)),
    )
    f = ws[0]
    c = np.empty(m)
    z = np.empty(m)
    u[0] = xs[0]
    u[1] = fs[0]
    ieha_rhs(t0, y, u, k, f, aux, ws[8])
    out[0] = y
    aux_out[0] = aux
    for step in range(1, n):
        t = t0 + step * h
        u[0] = xs[step]
        u[1] = fs[step]
        if started[0]:
            for i in range(m):
                c[i] = (4.0 * y[i] - yprev[i]) / 3.0
                z[i] = 2.0 * y[i] - yprev[i]
            status = _stage(k, t, u, 2.0 / 3.0 * h, c, z, scale, ws)
        else:
            for i in range(m):
                c[i] = y[i]
                z[i] = y[i]
            status = _stage(k, t, u, h, c, z, scale, ws)
        if status == STATUS_OK:
            for i in range(m):
                yprev[i] = y[i]
                y[i] = z[i]
            started[0] = True
        elif status == STATUS_NEWTON:
            counters[4] += 1
            pieces = 2
            while pieces <= 256:
                sub = h / pieces
                for i in range(m):
                    z[i] = y[i]
                for j in range(1, pieces + 1):
                    w = j / pieces
                    u[0] = (1.0 - w) * xs[step - 1] + w * xs[step]
                    u[1] = (1.0 - w) * fs[step - 1] + w * fs[step]
                    for i in range(m):
                        c[i] = z[i]
                    status = _stage(k, t - h + j * sub, u, sub, c, z, scale, ws)
                    if status != STATUS_OK:
                        break
                if status == STATUS_OK:
                    break
                pieces *= 2
            if status != STATUS_OK:
                return status, step
            for i in range(m):
                yprev[i] = y[i]
                y[i] = z[i]
            started[0] = False
        else:
            return status, step
        ieha_rhs(t, y, u, k, f, aux, ws[8])
        out[step] = y
        aux_out[step] = aux
        counters[0] += 1
    return STATUS_OK, n - 1


def state_scale(params: IEHAParams) -> np.ndarray:
    """Typical magnitude of each state (Newton tolerances are NEWTON_TOL of it; FD steps use it)."""
    scale = np.empty(params.n_states)
    scale[I_E] = params.max_eccentricity
    scale[I_ED] = params.max_eccentricity * 100.0
    scale[I_Y] = 0.01
    scale[I_YD] = 0.01
    scale[[I_ZETA, I_PA, I_PB]] = params.supply_pressure
    scale[I_PISTON:] = params.supply_pressure
    return scale


@dataclass
class IEHAResult:
    """Samples of an IEHA run (one entry per time sample, SI units).

    t [s]; x valve command X [m]; f_ext [N]; eccentricity E [m]; eccentricity_rate Ė [m/s];
    zeta ζ [Pa]; p_a, p_b chamber pressures [Pa] and dp = P_A − P_B [Pa] (the paper's 2P_c);
    y rod position Y [m], v rod velocity Ẏ [m/s]; piston_pressures (n, N) [Pa];
    pump_flow Q_A + Q_B delivered by the pump [m³/s] (>0); flow_a, flow_b [m³/s];
    supply_flow from P_rp, vent_flow to the tank, valve_flow Q_e, leak_flow (all leakage) [m³/s];
    pump_force F_p [N];
    states (n, n_states) raw; counters (steps, rhs/Jacobian/LU counts, wall time).
    """

    t: np.ndarray
    x: np.ndarray
    f_ext: np.ndarray
    states: np.ndarray
    aux: np.ndarray
    counters: dict[str, float] = field(default_factory=dict)

    eccentricity = property(lambda self: self.states[:, I_E])
    eccentricity_rate = property(lambda self: self.states[:, I_ED])
    zeta = property(lambda self: self.states[:, I_ZETA])
    p_a = property(lambda self: self.states[:, I_PA])
    p_b = property(lambda self: self.states[:, I_PB])
    dp = property(lambda self: self.states[:, I_PA] - self.states[:, I_PB])
    y = property(lambda self: self.states[:, I_Y])
    v = property(lambda self: self.states[:, I_YD])
    piston_pressures = property(lambda self: self.states[:, I_PISTON:])
    flow_a = property(lambda self: self.aux[:, A_QA])
    flow_b = property(lambda self: self.aux[:, A_QB])
    pump_flow = property(lambda self: self.aux[:, A_QA] + self.aux[:, A_QB])
    supply_flow = property(lambda self: self.aux[:, A_QSUP])
    vent_flow = property(lambda self: self.aux[:, A_QVENT])
    valve_flow = property(lambda self: self.aux[:, A_QE])
    pump_force = property(lambda self: self.aux[:, A_FP])
    leak_flow = property(lambda self: self.aux[:, A_QLEAK])

    def channels(self) -> dict[str, tuple[np.ndarray, str]]:
        """Named 1-D channels with their units, for tables and plots."""
        names = {
            "x": "m",
            "f_ext": "N",
            "eccentricity": "m",
            "eccentricity_rate": "m/s",
            "zeta": "Pa",
            "p_a": "Pa",
            "p_b": "Pa",
            "dp": "Pa",
            "y": "m",
            "v": "m/s",
            "pump_flow": "m^3/s",
            "flow_a": "m^3/s",
            "flow_b": "m^3/s",
            "supply_flow": "m^3/s",
            "vent_flow": "m^3/s",
            "valve_flow": "m^3/s",
            "pump_force": "N",
            "leak_flow": "m^3/s",
        }
        return {name: (getattr(self, name), unit) for name, unit in names.items()}

    def to_simulation_result(self) -> SimulationResult:
        """The run as the project's :class:`~actuatorlab.simulation.result.SimulationResult`
        (channels named as above)."""
        channels = {name: Channel(values, unit, name) for name, (values, unit) in self.channels().items()}
        return SimulationResult(self.t, channels, dict(self.counters))


Input = float | np.ndarray | Callable[[np.ndarray], np.ndarray]


def _sample(name: str, signal: Input, t: np.ndarray) -> np.ndarray:
    values = signal(t) if callable(signal) else signal
    values = np.broadcast_to(np.asarray(values, dtype=np.float64), t.shape).copy()
    if not np.all(np.isfinite(values)):
        raise ParameterError(f"{name}: the input signal has non-finite samples")
    return values


class IEHAStepper:
    """Resumable integration of one IEHA run (for closed loops): ``advance`` holds the state
    between calls. dt [s] is the implicit step."""

    def __init__(self, params: IEHAParams, dt: float = 2e-5, y0: np.ndarray | None = None, t0: float = 0.0):
        if not (math.isfinite(dt) and 0.0 < dt <= 1e-3):
            raise ParameterError(f"dt = {dt!r} s: must lie in (0, 1e-3] s (20e-6 s resolves the pump ripple)")
        self.params = params
        self.k = params.kernel_array()
        self.dt = float(dt)
        self.t = float(t0)
        self.y = params.initial_state() if y0 is None else np.array(y0, dtype=np.float64)
        if self.y.shape != (params.n_states,):
            raise ParameterError(f"y0 must have {params.n_states} entries, got {self.y.shape}")
        self.yprev = self.y.copy()
        self.started = np.zeros(1, dtype=np.bool_)
        self.scale = state_scale(params)
        self.counters = np.zeros(5)

    def advance(self, x: np.ndarray, f_ext: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Step over len(x) − 1 steps with inputs sampled at t, t + dt, … (x[0] at the current
        time). Returns (states, aux) at those samples; raises ``SimulationError`` on failure."""
        x = np.ascontiguousarray(x, dtype=np.float64)
        f_ext = np.ascontiguousarray(f_ext, dtype=np.float64)
        out = np.empty((x.size, self.y.size))
        aux = np.empty((x.size, N_AUX))
        status, index = _bdf2_run(
            self.k, self.t, self.dt, x, f_ext, self.y, self.yprev, self.started, self.scale, out, aux, self.counters
        )
        if status != STATUS_OK:
            t_fail = self.t + index * self.dt
            raise SimulationError(f"IEHA run stopped at t = {t_fail:.6g} s: {_MESSAGES[status]}")
        self.t += (x.size - 1) * self.dt
        return out, aux


def simulate_ieha(
    params: IEHAParams,
    t: np.ndarray,
    x: Input,
    f_ext: Input = 0.0,
    dt: float | None = None,
    y0: np.ndarray | None = None,
) -> IEHAResult:
    """Simulate the IEHA on the uniform time grid ``t`` [s].

    x: valve command X [m] (|X| ≤ E_max) and f_ext: external force [N] (> 0 opposes Y > 0),
    each a constant, an array of len(t) or a function of a time array. dt [s]: implicit step,
    default the grid spacing if ≤ 20 µs, else the largest divisor of it ≤ 20 µs (inputs
    linearly interpolated in between; outputs returned on ``t`` only).
    """
    t = np.asarray(t, dtype=np.float64)
    if t.ndim != 1 or t.size < 2 or not np.all(np.isfinite(t)):
        raise ParameterError("t must be a finite 1-D grid with at least two samples")
    spacing = float(t[1] - t[0])
    if spacing <= 0.0 or not np.allclose(np.diff(t), spacing, rtol=1e-9, atol=1e-15):
        raise ParameterError("t must be uniform and increasing (one spacing between all samples)")
    substeps = max(1, math.ceil(spacing / (2e-5 if dt is None else dt) - 1e-9))
    xs = _sample("x", x, t)
    fs = _sample("f_ext", f_ext, t)
    params.check_input(xs)
    fine = t[0] + np.arange((t.size - 1) * substeps + 1) * (spacing / substeps)
    stepper = IEHAStepper(params, spacing / substeps, y0, float(t[0]))
    start = time.perf_counter()
    states, aux = stepper.advance(np.interp(fine, t, xs), np.interp(fine, t, fs))
    wall = time.perf_counter() - start
    counters = dict(
        zip(
            ("steps", "rhs_evaluations", "jacobian_evaluations", "lu_decompositions", "substepped_steps"),
            stepper.counters,
        )
    )
    counters["wall_time_s"] = wall
    return IEHAResult(t, xs, fs, states[::substeps].copy(), aux[::substeps].copy(), counters)


def step_run(
    params: IEHAParams | None = None, duration: float = 1.0, x_step: float = 0.04e-2, dt: float = 2e-5
) -> IEHAResult:
    """Open-loop step of the paper (Figs. 5–9): X = ``x_step`` [m] (0.04 cm) from t = 0, no load."""
    params = IEHAParams() if params is None else params
    t = np.arange(round(duration / dt) + 1) * dt
    return simulate_ieha(params, t, x_step, 0.0, dt=dt)


def backdrive_run(
    params: IEHAParams | None = None,
    duration: float = 1.5,
    x_step: float = 0.04e-2,
    close_time: float = 0.5,
    force_amplitude: float = 600.0,
    force_frequency: float = 1.0,
    dt: float = 2e-5,
) -> IEHAResult:
    """Load test of §5.3 (Fig. 13): X = ``x_step`` [m] until ``close_time`` [s], then X = 0
    (valve closed: the carriage returns to E = 0 and the pump blocks the cylinder), and from then
    on F_ext = A sin(2π f (t − close_time)) [N]. The paper gives neither A nor f; the defaults
    (600 N, 1 Hz) reuse the controller test's load amplitude."""
    params = IEHAParams() if params is None else params
    t = np.arange(round(duration / dt) + 1) * dt
    after = t >= close_time
    x = np.where(after, 0.0, x_step)
    f = np.where(after, force_amplitude * np.sin(2.0 * np.pi * force_frequency * (t - close_time)), 0.0)
    return simulate_ieha(params, t, x, f, dt=dt)


def identification_run(
    params: IEHAParams | None = None,
    duration: float = 10.0,
    sample: float = 1e-3,
    x_offset: float = 0.01e-2,
    x_amplitude: float = 0.008e-2,
    f0: float = 0.1,
    f1: float = 10.0,
    force_amplitude: float = 0.0,
    dt: float = 2e-5,
) -> IEHAResult:
    """Identification experiment of §5.2 on the nonlinear model, sampled every ``sample`` [s]:
    X = x_offset + x_amplitude · chirp(f0 → f1 Hz, logarithmic) [m] and, if
    ``force_amplitude`` [N] ≠ 0, F_ext = force_amplitude · chirp(f1 → f0) (a reversed sweep, so
    the two inputs are not collinear). The offset keeps E > 0 (one distributor side: the
    gain of the other side differs by S_A/S_B); the rod starts at Y = −8 cm so that the drift
    (≈ 1.25 cm/s) stays within the stroke. Fit with
    :func:`actuatorlab.identification.transfer_function.fit_transfer_functions`."""
    from ..numerics.signals import chirp_signal

    params = IEHAParams() if params is None else params
    t = np.arange(round(duration / sample) + 1) * sample
    x = chirp_signal(t, x_amplitude, f0, f1, offset=x_offset)
    f = force_amplitude * chirp_signal(t, 1.0, f0, f1)[::-1] if force_amplitude else np.zeros_like(t)
    y0 = params.initial_state()
    y0[I_Y] = -0.08
    return simulate_ieha(params, t, x, f, dt=dt, y0=y0)

"""Time simulation of the hydraulic robot of Sakai & Maeshima (state space (1)), compiled.

State x = [q, q̇, p+, p−] (4N). Locked joints (``driven[i]`` False) keep q̇ = q̈ = 0 and their
cylinder pressures constant: a locked-joint step of the paper. The spool input u is given at
the sample instants and interpolated linearly between them (the spool moves continuously);
optionally a weak proportional feedback on the piston displacement is added to it continuously
(``centering``, used by the experiment generator to keep an asymmetric cylinder from drifting
out of its stroke under an open-loop sine), and the input applied is what the run logs. The
state is advanced by classic RK4 (``numerics.rk4``) with ``substeps`` steps per sample (default
4, i.e. 0.25 ms at 1 kHz logging: the oil column's mode is near 15 Hz, far below RK4's
stability limit at that step).

Pressure policy: ``"raise"`` (default) stops at the first pressure outside [0, p_s], naming the
time, joint and chamber, because the model's square roots do not exist there;
``"clip"`` clamps the pressures into [0, p_s] after each step. A piston leaving its stroke
(|s| > L/2) always stops the run: the model has no end stops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import ParameterError, SimulationError
from ..mechanics.robot_dynamics import (
    C_AM,
    C_AP,
    C_STROKE,
    HydraulicRobot,
    RobotParameters,
    chamber_volumes,
    cylinder_state,
    mechanical_regressor,
    orifice_terms,
)
from ..numerics.rk4 import rk4_step
from ..numerics.status import STATUS_NOT_FINITE, STATUS_OK, STATUS_PRESSURE, STATUS_STROKE

POLICIES = ("raise", "clip")


@dataclass(frozen=True)
class RobotRun:
    """Samples of a run: t [s] (n); per joint (n, N): q [rad], qd [rad/s], qdd [rad/s²], p_plus,
    p_minus [Pa], dp_plus, dp_minus [Pa/s] (model rates at the samples), s [m], u [spool unit]."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    p_plus: np.ndarray
    p_minus: np.ndarray
    dp_plus: np.ndarray
    dp_minus: np.ndarray
    s: np.ndarray
    u: np.ndarray


@nb.njit(cache=True)
def robot_rates(t, x, dx, u_now, u_next, dt, centering, s_ref, model, u, s_out, y, mass, vectors):
    """dx = f0(x) + g0(x) u for the driven joints (zero for locked ones) at time t [s] into a
    sample interval of length dt, in the form ``rhs(t, y, out, *args)`` of
    ``numerics.rk4.rk4_step``. The spool input ``u`` (written) is the
    feed-forward linear from ``u_now`` to ``u_next`` plus centering·(s_ref − s) on the driven
    joints; ``s_out`` gets s_i.

    ``model``: the robot as the compiled code reads it (``robot_model``). Scratch space: ``y``
    (n, P) the regressor, ``mass`` (n, n), ``vectors`` (4, n).
    """
    a1, gains, inv_b, cyl, supply, gravity, tilt, driven = model
    n = cyl.shape[0]
    zeros, unit, tau, sd = vectors[0], vectors[1], vectors[2], vectors[3]
    q, qd = x[:n], x[n : 2 * n]
    pp, pm = x[2 * n : 3 * n], x[3 * n :]
    zeros[:] = 0.0
    frac = t / dt
    for i in range(n):
        s, arm = cylinder_state(cyl[i], q[i])
        s_out[i] = s
        sd[i] = arm * qd[i]
        tau[i] = arm * (cyl[i, C_AP] * pp[i] - cyl[i, C_AM] * pm[i])
        u[i] = u_now[i] + frac * (u_next[i] - u_now[i])
        if driven[i] and centering[i] != 0.0:
            u[i] += centering[i] * (s_ref[i] - s)
    mechanical_regressor(q, zeros, zeros, gravity, tilt, y)
    static = y @ a1
    for c in range(n):
        unit[:] = 0.0
        unit[c] = 1.0
        mechanical_regressor(q, zeros, unit, gravity, tilt, y)
        for r in range(n):
            if driven[r] and driven[c]:
                mass[r, c] = y[r] @ a1 - static[r]
            else:
                mass[r, c] = 1.0 if r == c else 0.0
    mechanical_regressor(q, qd, zeros, gravity, tilt, y)
    rhs = tau - y @ a1
    for r in range(n):
        if not driven[r]:
            rhs[r] = 0.0
    qdd = _solve_spd(mass, rhs)
    dx[:] = 0.0
    for i in range(n):
        if not driven[i]:
            continue
        dx[i] = qd[i]
        dx[n + i] = qdd[i]
        v_plus, v_minus = chamber_volumes(cyl[i], s_out[i])
        hpp, hpm, hmp, hmm = orifice_terms(u[i], pp[i], pm[i], supply)
        dx[2 * n + i] = (-cyl[i, C_AP] * sd[i] + (gains[i, 0] * hpp + gains[i, 1] * hpm) * u[i]) / (inv_b * v_plus)
        dx[3 * n + i] = (cyl[i, C_AM] * sd[i] - (gains[i, 2] * hmp + gains[i, 3] * hmm) * u[i]) / (inv_b * v_minus)


@nb.njit(cache=True)
def _solve_spd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with a x = b for a small symmetric positive definite ``a`` (Cholesky, in place of ``a``)."""
    n = b.shape[0]
    for j in range(n):
        d = a[j, j]
        for k in range(j):
            d -= a[j, k] * a[j, k]
        a[j, j] = np.sqrt(d)
        for i in range(j + 1, n):
            v = a[i, j]
            for k in range(j):
                v -= a[i, k] * a[j, k]
            a[i, j] = v / a[j, j]
    x = b.copy()
    for i in range(n):
        for k in range(i):
            x[i] -= a[i, k] * x[k]
        x[i] /= a[i, i]
    for i in range(n - 1, -1, -1):
        for k in range(i + 1, n):
            x[i] -= a[k, i] * x[k]
        x[i] /= a[i, i]
    return x


@nb.njit(cache=True)
def _simulate(x0, u, dt, substeps, model, clip, centering, s_ref, states, rates, strokes):
    """RK4 (``substeps`` steps per sample) over the samples, the feed-forward ``u`` interpolated
    linearly; ``u`` is overwritten with the input applied at the samples. Returns (status,
    sample, joint, value) at the first failure (``numerics.status`` codes)."""
    a1, _, _, cyl, supply, _, _, _ = model
    n = cyl.shape[0]
    x = x0.copy()
    h = dt / substeps
    k1, k2, k3, k4 = np.empty_like(x), np.empty_like(x), np.empty_like(x), np.empty_like(x)
    tmp = np.empty_like(x)
    s = np.empty(n)
    ui = np.empty(n)
    y = np.empty((n, a1.shape[0]))
    mass = np.empty((n, n))
    vectors = np.empty((4, n))
    samples = u.shape[0]
    # the arguments of robot_rates after the inputs at the start and the end of the sample
    rates_args = (dt, centering, s_ref, model, ui, s, y, mass, vectors)
    for k in range(samples):
        robot_rates(0.0, x, rates[k], u[k], u[k], *rates_args)
        states[k] = x
        strokes[k] = s
        for i in range(n):
            if not np.isfinite(x[i]) or not np.isfinite(x[2 * n + i]) or not np.isfinite(x[3 * n + i]):
                return STATUS_NOT_FINITE, k, i, 0.0
            if abs(s[i]) > 0.5 * cyl[i, C_STROKE]:
                return STATUS_STROKE, k, i, s[i]
            for p in (x[2 * n + i], x[3 * n + i]):
                if not clip and (p < 0.0 or p > supply):
                    return STATUS_PRESSURE, k, i, p
        if k == samples - 1:
            u[k] = ui
            break
        u_now = u[k].copy()
        u[k] = ui
        args = (u_now, u[k + 1]) + rates_args
        for j in range(substeps):
            rk4_step(robot_rates, args, j * h, x, h, k1, k2, k3, k4, tmp)
            if clip:
                for i in range(n):
                    x[2 * n + i] = min(max(x[2 * n + i], 0.0), supply)
                    x[3 * n + i] = min(max(x[3 * n + i], 0.0), supply)
    return STATUS_OK, samples, 0, 0.0


def robot_model(robot: HydraulicRobot, params: RobotParameters, driven: np.ndarray) -> tuple:
    """The robot as ``robot_rates`` reads it, one tuple: mechanical parameters A1, flow gains
    (N, 4), 1/β [1/Pa], the cylinder rows (layout ``C_*``), supply pressure [Pa], gravity
    [m/s²], its tilt [rad] and the driven joints (N bools)."""
    return (
        params.mechanical,
        params.flow_gains,
        1.0 / params.bulk_modulus,
        robot.cylinder_array(),
        robot.supply_pressure,
        robot.gravity,
        robot.gravity_tilt,
        driven,
    )


def simulate_robot(
    robot: HydraulicRobot,
    params: RobotParameters,
    t: np.ndarray,
    u: np.ndarray,
    q0,
    p_plus0,
    p_minus0,
    qd0=None,
    driven=None,
    substeps: int = 4,
    policy: str = "raise",
    centering=0.0,
    s_ref=0.0,
) -> RobotRun:
    """Simulate from x(t0) = [q0, qd0, p_plus0, p_minus0] with spool inputs ``u`` (n, N) at the
    uniformly spaced instants ``t`` (n) [s]; ``driven`` (N bools, default all) marks the moving
    joints; ``centering`` [spool unit/m] and ``s_ref`` [m] (per joint) add centering·(s_ref − s) to
    the spool input of each driven joint. Raises :class:`~actuatorlab.errors.SimulationError` naming
    time, joint and pressure when a pressure leaves [0, p_s] under ``policy="raise"`` or a piston
    leaves its stroke.
    """
    n = robot.joints
    if params.joints != n:
        raise ParameterError(f"parameters are for {params.joints} joints, the robot has {n}")
    if policy not in POLICIES:
        raise ParameterError(f"policy = {policy!r}: choose one of {', '.join(POLICIES)}")
    t = np.asarray(t, dtype=float)
    u = np.array(u, dtype=float).reshape(len(t), n)
    if len(t) < 2 or not np.all(np.diff(t) > 0):
        raise ParameterError("t: give at least two strictly increasing sample instants")
    dt = float(t[1] - t[0])
    if not np.allclose(np.diff(t), dt, rtol=1e-6, atol=1e-12):
        raise ParameterError("t: the samples must be uniformly spaced (resample the log first)")
    driven = np.ones(n, dtype=bool) if driven is None else np.asarray(driven, dtype=bool)
    if not driven.any():
        raise ParameterError("driven: at least one joint must move")
    x0 = np.concatenate(
        [
            np.broadcast_to(np.asarray(v, dtype=float), (n,))
            for v in (q0, np.zeros(n) if qd0 is None else qd0, p_plus0, p_minus0)
        ]
    )
    x0[n : 2 * n][~driven] = 0.0
    states = np.zeros((len(t), 4 * n))
    rates = np.zeros((len(t), 4 * n))
    strokes = np.zeros((len(t), n))
    status, k, joint, value = _simulate(
        x0,
        u,
        dt,
        int(substeps),
        robot_model(robot, params, driven),
        policy == "clip",
        np.broadcast_to(np.asarray(centering, dtype=float), (n,)).copy(),
        np.broadcast_to(np.asarray(s_ref, dtype=float), (n,)).copy(),
        states,
        rates,
        strokes,
    )
    if status == STATUS_PRESSURE:
        raise SimulationError(
            f"t = {t[k]:.4f} s: a pressure of joint {joint + 1} reached {value / 1e6:.4g} MPa, outside "
            f"[0, {robot.supply_pressure / 1e6:g}] MPa, where the valve model has no real solution; reduce the "
            "spool amplitude or the parameters' distance from the data, or choose policy = 'clip'"
        )
    if status == STATUS_STROKE:
        raise SimulationError(
            f"t = {t[k]:.4f} s: piston {joint + 1} reached s = {value * 1e3:.2f} mm, beyond its stroke "
            f"±{robot.cylinders[joint].stroke * 500:g} mm (the model has no end stops); reduce the spool amplitude "
            "or start nearer mid-stroke"
        )
    if status == STATUS_NOT_FINITE:
        raise SimulationError(f"t = {t[k]:.4f} s: the state of joint {joint + 1} is not finite; check the parameters")
    return RobotRun(
        t,
        states[:, :n],
        states[:, n : 2 * n],
        rates[:, n : 2 * n],
        states[:, 2 * n : 3 * n],
        states[:, 3 * n :],
        rates[:, 2 * n : 3 * n],
        rates[:, 3 * n :],
        strokes,
        u,
    )

"""Closed-loop simulation of the parallel–serial crane under VDC (Petrović & Mattila Sec. 7).

Reference: ``crane_reference`` (tool-tip path, inverse kinematics, the paper's diamond).

Plant: the native forward dynamics of ``parallel_serial`` (actuator forces f_c = f_p − f_f)
and the chamber pressures of ``servo_cylinder`` (dead volumes, leakage and spool dynamics as
configured), integrated by classical RK4 with ``substeps`` steps per controller sample (default 2, i.e.
0.5 ms, converged for the lab crane; one step of 1 ms is the paper's "ode4, 0.001 s" and is
off by ~0.4 mrad there because of the friction's stiffness near zero velocity). VDC runs at 1/dt (1 kHz) with the valve
input held between samples. The whole loop is one compiled kernel.

Alternative plant (``plant="mujoco"``): the rigid multibody with its closed loops is integrated
by MuJoCo (``mechanics.mujoco_model.MujocoCranePlant``: the MJCF model of ``build_mjcf``, the
cylinder forces applied on the cylinders' slide joints); the pressures, valves, friction,
controller and 1 kHz loop stay ours (the same kernels), the pressures advanced by RK4 along the
piston motion read back from MuJoCo after each MuJoCo step (see ``simulate_crane``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..control.vdc import VDCGains, controller_step, lab_crane_gains
from ..machines.lab_crane import lab_crane, lab_crane_hydraulics, lab_crane_initial_pose
from ..errors import ParameterError, SimulationError
from ..numerics.filters import derivative_filter
from .crane_reference import JointReference, diamond_waypoints, joint_reference
from ..numerics.status import STATUS_DIVERGED, STATUS_LEFT_WORKSPACE, STATUS_OK
from ..hydraulics.servo_cylinder import (
    F_V,
    CraneHydraulics,
    check_pressures,
    friction_force,
    hydraulic_rates,
    piston_force,
)
from ..mechanics.parallel_serial import ParallelSerialManipulator
from ..mechanics.parallel_serial_kernels import (
    EXIT,
    forward_dynamics,
    new_work,
    piston_states,
)

OK, DIVERGED, LEFT_WORKSPACE = STATUS_OK, STATUS_DIVERGED, STATUS_LEFT_WORKSPACE
PROGRESS_CHUNKS = 50
"""A closed-loop run reports its progress (and the native loop returns to Python) this often."""
PLANTS = ("native", "mujoco")
"""Plants of ``simulate_crane``: the crane's own forward dynamics, or MuJoCo's multibody."""


# ---------------------------------------------------------------------------------------------
# plant and closed loop
# ---------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def plant_rhs(seg, inert, trf, base, cyl, valve, fric, y, u_cmd, dy, work, scratch):
    """ẏ of the state y = [q, q̇, p_a, p_b, u_spool] (5 m) at held valve command u_cmd;
    scratch (4, m) holds [x, ẋ, f_c, q̈] afterwards."""
    m = u_cmd.size
    x, xd, fc, qdd = scratch[0], scratch[1], scratch[2], scratch[3]
    piston_states(seg, y[:m], y[m : 2 * m], x, xd)
    hydraulic_rates(cyl, valve, u_cmd, x, xd, y[2 * m :], dy[2 * m :])
    for i in range(m):
        fc[i] = piston_force(cyl[i], y[2 * m + i], y[3 * m + i]) - friction_force(
            fric[i], xd[i]
        )
    forward_dynamics(
        seg, inert, trf, base, y[:m], y[m : 2 * m], fc, np.zeros(6), qdd, work
    )
    dy[:m] = y[m : 2 * m]
    dy[m : 2 * m] = qdd


@nb.njit(cache=True)
def _vdc_sample(ctrl, filt, q, qd, pa, pb, k, q_d, qd_d, qdd_d, work_r, work_m, scratch, u, out_u, out_ctrl, out_tip):
    """One controller sample of either plant's loop: ``controller_step`` at reference sample k,
    valve inputs into ``u``, and the sample recorded. ``ctrl`` = (seg, inert, trf, base, gains,
    lam, kx, kf, cyl, valve, fric, coef)."""
    seg, inert, trf, base, gains, lam, kx, kf, cyl, valve, fric, coef = ctrl
    controller_step(seg, inert, trf, base, gains, lam, kx, kf, cyl, valve, fric, coef, filt, q, qd, pa, pb, q_d[k],
                    qd_d[k], qdd_d[k], work_r, work_m, scratch, k == 0, u)
    out_u[k] = u
    out_ctrl[k] = scratch
    out_tip[k] = work_m[4][seg.shape[0] - 1, EXIT]


@nb.njit(cache=True)
def _closed_loop(
    seg,
    inert,
    trf,
    base,
    cyl,
    valve,
    fric,
    gains,
    lam,
    kx,
    kf,
    coef,
    q_d,
    qd_d,
    qdd_d,
    y,
    filt,
    k0,
    k1,
    substeps,
    dt,
    limits,
    out_y,
    out_u,
    out_ctrl,
    out_tip,
):
    """Run VDC + plant over the reference samples k0 … k1−1, carrying the plant state ``y`` and
    the controller's filter state ``filt`` (updated in place) to the next call; returns
    (status, last sample)."""
    m = lam.size
    n_steps = q_d.shape[0]
    u = np.zeros(m)
    work_r, work_m, work_p = (
        new_work(seg.shape[0]),
        new_work(seg.shape[0]),
        new_work(seg.shape[0]),
    )
    scratch = np.zeros((8, m))
    plant_scratch = np.zeros((4, m))
    r1, r2, r3, r4, tmp = (
        np.empty(5 * m),
        np.empty(5 * m),
        np.empty(5 * m),
        np.empty(5 * m),
        np.empty(5 * m),
    )
    h = dt / substeps
    ctrl = (seg, inert, trf, base, gains, lam, kx, kf, cyl, valve, fric, coef)
    for k in range(k0, k1):
        out_y[k] = y
        _vdc_sample(ctrl, filt, y[:m], y[m : 2 * m], y[2 * m : 3 * m], y[3 * m : 4 * m], k, q_d, qd_d, qdd_d,
                    work_r, work_m, scratch, u, out_u, out_ctrl, out_tip)
        if k == n_steps - 1:
            break
        for _ in range(substeps):
            plant_rhs(seg, inert, trf, base, cyl, valve, fric, y, u, r1, work_p, plant_scratch)
            tmp[:] = y + 0.5 * h * r1
            plant_rhs(seg, inert, trf, base, cyl, valve, fric, tmp, u, r2, work_p, plant_scratch)
            tmp[:] = y + 0.5 * h * r2
            plant_rhs(seg, inert, trf, base, cyl, valve, fric, tmp, u, r3, work_p, plant_scratch)
            tmp[:] = y + h * r3
            plant_rhs(seg, inert, trf, base, cyl, valve, fric, tmp, u, r4, work_p, plant_scratch)
            y += h / 6.0 * (r1 + 2.0 * r2 + 2.0 * r3 + r4)
        for i in range(5 * m):
            if not math.isfinite(y[i]):
                return DIVERGED, k + 1
        for i in range(m):
            if y[i] < limits[i, 0] or y[i] > limits[i, 1]:
                out_y[k + 1] = y
                return LEFT_WORKSPACE, k + 1
    return OK, k1


@nb.njit(cache=True)
def _stroke_history(seg, q, qd, out):
    """Piston strokes (n, m) [m] of the samples q, q̇ (n, m) into ``out`` (``piston_states``)."""
    xd = np.empty(q.shape[1])
    for k in range(q.shape[0]):
        piston_states(seg, q[k], qd[k], out[k], xd)


@nb.njit(cache=True)
def _mujoco_step_forces(cyl, valve, fric, u_cmd, x, xd, z, h, dz0, force, damping):
    """Actuator inputs of one MuJoCo step of h [s] from the hydraulic state z at strokes x,
    rates ẋ: dz0 ← ż at the start; the piston force f_p at the predicted mid-step pressures
    z + h/2 ż (second order in h); the friction linearised about ẋ, f_f(ẋ) + c (ẋ' − ẋ) with
    c = ∂f_f/∂ẋ (central difference of ``friction_force``), given to MuJoCo as force
    f_p − f_f(ẋ) + c ẋ and damping c (``MujocoCranePlant.step``)."""
    m = u_cmd.size
    hydraulic_rates(cyl, valve, u_cmd, x, xd, z, dz0)
    for i in range(m):
        eps = 1e-3 * fric[i, F_V]
        c = (
            friction_force(fric[i], xd[i] + eps) - friction_force(fric[i], xd[i] - eps)
        ) / (2.0 * eps)
        damping[i] = c
        f_p = piston_force(
            cyl[i], z[i] + 0.5 * h * dz0[i], z[m + i] + 0.5 * h * dz0[m + i]
        )
        force[i] = f_p - friction_force(fric[i], xd[i]) + c * xd[i]


@nb.njit(cache=True)
def _hydraulics_rk4(cyl, valve, u_cmd, x0, xd0, x1, xd1, z, h, k1):
    """One classical RK4 step of h [s] of the hydraulic state z (in place) along the piston
    motion of the MuJoCo step just taken, strokes and rates linear between (x0, ẋ0) and
    (x1, ẋ1); k1 = ż at the start (from ``_mujoco_step_forces``)."""
    k2, k3, k4 = np.empty_like(z), np.empty_like(z), np.empty_like(z)
    xm, xdm = 0.5 * (x0 + x1), 0.5 * (xd0 + xd1)
    hydraulic_rates(cyl, valve, u_cmd, xm, xdm, z + 0.5 * h * k1, k2)
    hydraulic_rates(cyl, valve, u_cmd, xm, xdm, z + 0.5 * h * k2, k3)
    hydraulic_rates(cyl, valve, u_cmd, x1, xd1, z + h * k3, k4)
    z += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def _mujoco_closed_loop(
    plant,
    seg,
    inert,
    trf,
    base,
    cyl,
    valve,
    fric,
    gains,
    lam,
    kx,
    kf,
    coef,
    q_d,
    qd_d,
    qdd_d,
    z0,
    substeps,
    dt,
    limits,
    out_y,
    out_u,
    out_ctrl,
    out_tip,
    out_x,
    progress,
):
    """``_closed_loop`` with MuJoCo integrating the mechanics (``MujocoCranePlant``) and the
    hydraulic state z = [p_a, p_b, u_spool] integrated here: per MuJoCo step, forces from z
    (``_mujoco_step_forces``), mj_step, then RK4 of z along the piston motion MuJoCo produced.
    Returns (status, last sample, largest loop-constraint residual [m])."""
    m = lam.size
    n_steps = q_d.shape[0]
    z = z0.copy()
    u = np.zeros(m)
    work_r, work_m = new_work(seg.shape[0]), new_work(seg.shape[0])
    scratch = np.zeros((8, m))
    filt = np.zeros((m, 2))
    dz0, force, damping = np.empty(3 * m), np.empty(m), np.empty(m)
    h = dt / substeps
    ctrl = (seg, inert, trf, base, gains, lam, kx, kf, cyl, valve, fric, coef)
    violation = 0.0
    report_every = max(n_steps // PROGRESS_CHUNKS, 1)
    for k in range(n_steps):
        if progress is not None and k % report_every == 0:
            progress(k / n_steps)
        q, qd = plant.coordinates()
        x, xd = plant.strokes()
        out_y[k, :m], out_y[k, m : 2 * m], out_y[k, 2 * m :] = q, qd, z
        out_x[k] = x
        _vdc_sample(ctrl, filt, q, qd, z[:m], z[m : 2 * m], k, q_d, qd_d, qdd_d, work_r, work_m, scratch, u,
                    out_u, out_ctrl, out_tip)
        if k == n_steps - 1:
            break
        for _ in range(substeps):
            _mujoco_step_forces(cyl, valve, fric, u, x, xd, z, h, dz0, force, damping)
            plant.step(force, damping)
            x1, xd1 = plant.strokes()
            _hydraulics_rk4(cyl, valve, u, x, xd, x1, xd1, z, h, dz0)
            x, xd = x1, xd1
        violation = max(violation, plant.loop_violation())
        q, qd = plant.coordinates()
        if plant.diverged() or not (np.all(np.isfinite(z)) and np.all(np.isfinite(q))):
            out_y[k + 1, :m], out_y[k + 1, m : 2 * m], out_y[k + 1, 2 * m :] = q, qd, z
            return DIVERGED, k + 1, violation
        if np.any(q < limits[:, 0]) or np.any(q > limits[:, 1]):
            out_y[k + 1, :m], out_y[k + 1, m : 2 * m], out_y[k + 1, 2 * m :] = q, qd, z
            return LEFT_WORKSPACE, k + 1, violation
    return OK, n_steps, violation


@dataclass
class CraneRun:
    """A closed-loop run on the controller grid (n samples, m actuators in coordinate order).

    t [s]; q, qd (n, m) joint angles/strokes and rates [rad or m, per s]; q_ref (n, m);
    x (n, m) piston strokes [m] (the mujoco plant's slide joints, else from q); f_cr, f_pr
    (n, m) required actuator/piston forces [N]; f_p (n, m) achieved piston force
    A_a p_a − A_b p_b [N]; p_a, p_b (n, m) [Pa]; u (n, m) valve inputs (saturated) [V or
    normalised]; tip, tip_ref (n, 2) tool path [m] (tip from the measured q by the
    controller's kinematics); counters: plant ("native" or "mujoco"), wall time [s],
    real-time factor, RK4 steps (plant steps; the mujoco plant integrates its pressures by one
    RK4 step per MuJoCo step), saturated fraction; the mujoco plant adds its timestep [s],
    integrator and the largest loop-constraint residual [m] (loop_violation_max).
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    q_ref: np.ndarray
    x: np.ndarray
    f_cr: np.ndarray
    f_pr: np.ndarray
    f_p: np.ndarray
    p_a: np.ndarray
    p_b: np.ndarray
    u: np.ndarray
    tip: np.ndarray
    tip_ref: np.ndarray
    counters: dict


def simulate_crane(
    reference: JointReference,
    crane: ParallelSerialManipulator | None = None,
    hydraulics: CraneHydraulics | None = None,
    gains: VDCGains | None = None,
    substeps: int = 2,
    initial_pressures: tuple[np.ndarray, np.ndarray] | None = None,
    plant: str = "native",
    mujoco_integrator: str = "rk4",
    progress: Callable[[float], None] | None = None,
) -> CraneRun:
    """Closed-loop VDC of ``crane`` (default ``lab_crane()``) following ``reference`` (its time
    step is the controller sample time). Starts at rest at reference.q[0], holding pressures
    unless ``initial_pressures`` (p_a, p_b) are given. Raises ``SimulationError`` when the
    state diverges or a cylinder leaves its stroke.

    ``plant`` (one of ``PLANTS``): the mechanics of the plant. The hydraulics (pressures,
    valve flows, spool, friction: ``hydraulic_rates``, ``piston_force``, ``friction_force``),
    the controller and the 1 kHz loop with the valve input held between samples are the same
    for both.

    - "native": the crane's forward dynamics and the hydraulics integrated together by
      classical RK4, ``substeps`` steps per sample (one compiled kernel);
    - "mujoco": the rigid multibody with its closed loops integrated by MuJoCo
      (``MujocoCranePlant``; forces applied on the cylinders' slide joints), timestep
      dt/``substeps``, integrator ``mujoco_integrator`` (default RK4: on the standard diamond
      its tip path agrees with the native plant's to a few µm at 0.5 ms; "implicitfast" is
      first order, ~0.1 mm off, and ~1.5× faster). Per MuJoCo step the cylinder forces come
      from the predicted mid-step pressures and the friction linearised about the current
      piston rate; the pressures are then advanced by one RK4 step along the piston strokes
      and rates read back from MuJoCo. A Python loop around mj_step and compiled kernels.

    ``progress`` is called with the fraction of the run done, about PROGRESS_CHUNKS times.
    """
    if plant not in PLANTS:
        raise ParameterError(f"plant = {plant!r} is unknown; choose one of {PLANTS}")
    crane = crane or lab_crane()
    hydraulics = hydraulics or lab_crane_hydraulics()
    gains = gains or lab_crane_gains()
    m = crane.n_coords
    if len(hydraulics.cylinders) != m or len(gains.lam) != m:
        raise ParameterError(
            f"{crane.name} has {m} actuators: give hydraulics and gains for {m}"
        )
    if not (isinstance(substeps, int) and substeps >= 1):
        raise ParameterError(f"substeps = {substeps!r}: give an integer ≥ 1")
    dt = float(reference.t[1] - reference.t[0])
    if abs(dt - gains.dt) > 1e-12:
        raise ParameterError(
            f"reference step {dt} s differs from the controller sample time {gains.dt} s"
        )
    for name, arr in (("q", reference.q), ("qd", reference.qd), ("qdd", reference.qdd)):
        if arr.shape != (len(reference.t), m) or not np.all(np.isfinite(arr)):
            raise ParameterError(
                f"reference.{name} must be finite with shape ({len(reference.t)}, {m})"
            )
    q0 = crane.check_coordinates(reference.q[0])
    if initial_pressures is None:
        pa0, pb0 = hydraulics.holding_pressures(crane.actuator_forces(q0, np.zeros(m), np.zeros(m)))
    else:
        pa0, pb0 = (np.asarray(p, dtype=float).reshape(m) for p in initial_pressures)
        for valve_i, pa_i, pb_i in zip(hydraulics.valves, pa0, pb0):
            check_pressures(valve_i, pa_i, pb_i)
    y0 = np.concatenate((q0, np.zeros(m), pa0, pb0, np.zeros(m)))
    cyl, valve, fric = hydraulics.packed()
    seg, inert, trf, base = crane.arrays
    n = len(reference.t)
    out_y, out_u = np.zeros((n, 5 * m)), np.zeros((n, m))
    out_ctrl, out_tip = np.zeros((n, 8, m)), np.zeros((n, 3))
    coef = derivative_filter(gains.derivative_cutoff, dt)
    controller = (
        gains.body_gains(len(crane.segments)),
        np.array(gains.lam),
        np.array(gains.kx),
        np.array(gains.kf),
        coef,
        reference.q,
        reference.qd,
        reference.qdd,
    )
    extra: dict = {"plant": plant}
    if plant == "native":
        start = time.perf_counter()
        y, filt = y0.copy(), np.zeros((m, 2))
        edges = np.unique(np.linspace(0, n, PROGRESS_CHUNKS + 1).astype(np.int64))
        for k0, k1 in zip(edges[:-1], edges[1:]):
            status, k = _closed_loop(seg, inert, trf, base, cyl, valve, fric, *controller, y, filt, k0, k1, substeps,
                                     dt, crane.coordinate_limits, out_y, out_u, out_ctrl, out_tip)
            if status != OK:
                break
            if progress is not None:
                progress(k1 / n)
        wall = time.perf_counter() - start
        x = np.zeros((n, m))
        _stroke_history(seg, out_y[:, :m], out_y[:, m : 2 * m], x)
    else:
        from ..mechanics.mujoco_model import MujocoCranePlant

        start = time.perf_counter()  # the model build (a few ms) counts as plant time
        mj_plant = MujocoCranePlant(crane, q0, dt / substeps, mujoco_integrator)
        x = np.zeros((n, m))
        status, k, violation = _mujoco_closed_loop(
            mj_plant,
            seg,
            inert,
            trf,
            base,
            cyl,
            valve,
            fric,
            *controller,
            y0[2 * m :],
            substeps,
            dt,
            crane.coordinate_limits,
            out_y,
            out_u,
            out_ctrl,
            out_tip,
            x,
            progress,
        )
        wall = time.perf_counter() - start
        extra.update(
            mujoco_timestep=dt / substeps,
            mujoco_integrator=mujoco_integrator,
            loop_violation_max=violation,
        )
    if status != OK:
        what = (
            "diverged (non-finite state)"
            if status == DIVERGED
            else "left the workspace (a cylinder reached its stroke end)"
        )
        state = out_y[min(k, n - 1)]
        raise SimulationError(
            f"t = {reference.t[min(k, n - 1)]:.3f} s: the closed loop {what}; q = {np.round(state[:m], 4).tolist()}, "
            f"p_a = {np.round(state[2 * m : 3 * m] / 1e5, 1).tolist()} bar, p_b = {np.round(state[3 * m : 4 * m] / 1e5, 1).tolist()} bar; "
            f"try more substeps, lower gains or a slower reference ({plant} plant)"
        )
    p_a, p_b = out_y[:, 2 * m : 3 * m], out_y[:, 3 * m : 4 * m]
    f_p = cyl[:, 0] * p_a - cyl[:, 1] * p_b
    umax = valve[:, 6]
    return CraneRun(
        t=reference.t.copy(),
        q=out_y[:, :m].copy(),
        qd=out_y[:, m : 2 * m].copy(),
        q_ref=reference.q.copy(),
        x=x,
        f_cr=out_ctrl[:, 2].copy(),
        f_pr=out_ctrl[:, 3].copy(),
        f_p=f_p,
        p_a=p_a.copy(),
        p_b=p_b.copy(),
        u=out_u,
        tip=out_tip[:, :2].copy(),
        tip_ref=reference.tip.copy(),
        counters={
            **extra,
            "wall_time": wall,
            "real_time_factor": float(reference.t[-1]) / wall if wall > 0 else math.inf,
            "rk4_steps": float((n - 1) * substeps),
            "saturated_fraction": float(np.mean(np.abs(out_u) >= umax - 1e-12)),
        },
    )


def diamond_run(
    loops: int = 2,
    segment_time: float = 2.0,
    variant: str = "corrected",
    substeps: int = 2,
    plant: str = "native",
    mujoco_integrator: str = "rk4",
    progress: Callable[[float], None] | None = None,
    **hydraulics_options,
) -> CraneRun:
    """The paper's control simulation on the lab crane: from the initial pose to A, ``loops``
    A-B-C-D loops, ``segment_time`` [s] per segment, VDC at 1 kHz (spec 4, test 2), on the
    ``plant`` of ``simulate_crane`` ("native" or "mujoco")."""
    if plant not in PLANTS:
        raise ParameterError(f"plant = {plant!r} is unknown; choose one of {PLANTS}")
    crane = lab_crane(variant)
    q0 = lab_crane_initial_pose()
    start, _ = crane.tool_pose(q0)
    reference = joint_reference(
        crane, diamond_waypoints(start[:2], loops), segment_time, 1e-3, q0
    )
    return simulate_crane(
        reference,
        crane,
        lab_crane_hydraulics(**hydraulics_options),
        substeps=substeps,
        plant=plant,
        mujoco_integrator=mujoco_integrator,
        progress=progress,
    )

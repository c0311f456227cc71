"""Closed-loop simulation of the parallel–serial crane under VDC (Petrović & Mattila Sec. 7):
the driver that checks the inputs, starts the crane at rest, runs the loop and returns a
``CraneRun``.

Reference: ``crane_reference`` (tool-tip path, inverse kinematics, the paper's diamond). The
loop and its two plants: ``crane_loop``.

Plant "native": the forward dynamics of ``parallel_serial`` (actuator forces f_c = f_p − f_f)
and the chamber pressures of ``servo_cylinder`` (dead volumes, leakage and spool dynamics as
configured), integrated by classical RK4 with ``substeps`` steps per controller sample (default
2, i.e. 0.5 ms, converged for the lab crane; one step of 1 ms is the paper's "ode4, 0.001 s"
and is off by ~0.4 mrad there because of the friction's stiffness near zero velocity). VDC
runs at 1/dt (1 kHz) with the valve input held between samples. The whole loop is one
compiled kernel.

Plant "mujoco": the rigid multibody with its closed loops is integrated by MuJoCo
(``mechanics.mujoco_model.MujocoCranePlant``: the MJCF model of ``build_mjcf``, the cylinder
forces applied on the cylinders' slide joints); the pressures, valves, friction, controller and
1 kHz loop stay ours (the same kernels), the pressures advanced by RK4 along the piston motion
read back from MuJoCo after each MuJoCo step (see ``simulate_crane``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..control.vdc import VDCGains, lab_crane_gains
from ..errors import ParameterError, SimulationError
from ..hydraulics.servo_cylinder import C_AA, C_AB, V_UMAX, CraneHydraulics, check_pressures
from ..machines.lab_crane import lab_crane, lab_crane_hydraulics, lab_crane_initial_pose
from ..mechanics.parallel_serial import ParallelSerialManipulator
from ..numerics.filters import derivative_filter
from ..numerics.status import STATUS_DIVERGED, STATUS_OK
from .crane_loop import MujocoHydraulicPlant, closed_loop, native_plant
from .crane_reference import JointReference, diamond_waypoints, joint_reference

PROGRESS_CHUNKS = 50
"""A closed-loop run reports its progress (and the native loop returns to Python) this often."""
PLANTS = ("native", "mujoco")
"""Plants of ``simulate_crane``: the crane's own forward dynamics, or MuJoCo's multibody."""


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
        raise ParameterError(f"{crane.name} has {m} actuators: give hydraulics and gains for {m}")
    if not (isinstance(substeps, int) and substeps >= 1):
        raise ParameterError(f"substeps = {substeps!r}: give an integer ≥ 1")
    dt = float(reference.t[1] - reference.t[0])
    if abs(dt - gains.dt) > 1e-12:
        raise ParameterError(f"reference step {dt} s differs from the controller sample time {gains.dt} s")
    for name, arr in (("q", reference.q), ("qd", reference.qd), ("qdd", reference.qdd)):
        if arr.shape != (len(reference.t), m) or not np.all(np.isfinite(arr)):
            raise ParameterError(f"reference.{name} must be finite with shape ({len(reference.t)}, {m})")
    q0 = crane.check_coordinates(reference.q[0])
    if initial_pressures is None:
        pa0, pb0 = hydraulics.holding_pressures(crane.actuator_forces(q0, np.zeros(m), np.zeros(m)))
    else:
        pa0, pb0 = (np.asarray(p, dtype=float).reshape(m) for p in initial_pressures)
        for valve_i, pa_i, pb_i in zip(hydraulics.valves, pa0, pb0):
            check_pressures(valve_i, pa_i, pb_i)
    y0 = np.concatenate((q0, np.zeros(m), pa0, pb0, np.zeros(m)))
    packed = hydraulics.packed()
    cyl, valve, fric = packed
    seg, inert, trf, base = crane.arrays
    n = len(reference.t)
    out_y, out_x, out_u = np.zeros((n, 5 * m)), np.zeros((n, m)), np.zeros((n, m))
    out_ctrl, out_tip = np.zeros((n, 8, m)), np.zeros((n, 3))
    controller = (
        seg,
        inert,
        trf,
        base,
        gains.body_gains(len(crane.segments)),
        np.array(gains.lam),
        np.array(gains.kx),
        np.array(gains.kf),
        cyl,
        valve,
        fric,
        derivative_filter(gains.derivative_cutoff, dt),
    )
    start = time.perf_counter()  # the MuJoCo model build (a few ms) counts as plant time
    if plant == "native":
        model, loop = native_plant(crane, packed, y0, substeps, dt / substeps), closed_loop
    else:
        model = MujocoHydraulicPlant(crane, packed, q0, y0[2 * m :], dt, substeps, mujoco_integrator)
        loop = closed_loop.py_func
    filt = np.zeros((m, 2))
    edges = np.unique(np.linspace(0, n, PROGRESS_CHUNKS + 1).astype(np.int64))
    for k0, k1 in zip(edges[:-1], edges[1:]):
        status, k = loop(
            model,
            controller,
            filt,
            (reference.q, reference.qd, reference.qdd),
            crane.coordinate_limits,
            k0,
            k1,
            (out_y, out_x, out_u, out_ctrl, out_tip),
        )
        if status != STATUS_OK:
            break
        if progress is not None:
            progress(k1 / n)
    wall = time.perf_counter() - start
    extra: dict = {"plant": plant}
    if plant == "mujoco":
        extra.update(
            mujoco_timestep=dt / substeps,
            mujoco_integrator=mujoco_integrator,
            loop_violation_max=model.loop_violation,
        )
    if status != STATUS_OK:
        what = (
            "diverged (non-finite state)"
            if status == STATUS_DIVERGED
            else "left the workspace (a cylinder reached its stroke end)"
        )
        state = out_y[min(k, n - 1)]
        raise SimulationError(
            f"t = {reference.t[min(k, n - 1)]:.3f} s: the closed loop {what}; q = {np.round(state[:m], 4).tolist()}, "
            f"p_a = {np.round(state[2 * m : 3 * m] / 1e5, 1).tolist()} bar, "
            f"p_b = {np.round(state[3 * m : 4 * m] / 1e5, 1).tolist()} bar; "
            f"try more substeps, lower gains or a slower reference ({plant} plant)"
        )
    p_a, p_b = out_y[:, 2 * m : 3 * m], out_y[:, 3 * m : 4 * m]
    f_p = cyl[:, C_AA] * p_a - cyl[:, C_AB] * p_b
    umax = valve[:, V_UMAX]
    return CraneRun(
        t=reference.t.copy(),
        q=out_y[:, :m].copy(),
        qd=out_y[:, m : 2 * m].copy(),
        q_ref=reference.q.copy(),
        x=out_x,
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
    A-B-C-D loops, ``segment_time`` [s] per segment, VDC at 1 kHz, on the
    ``plant`` of ``simulate_crane`` ("native" or "mujoco")."""
    if plant not in PLANTS:
        raise ParameterError(f"plant = {plant!r} is unknown; choose one of {PLANTS}")
    crane = lab_crane(variant)
    q0 = lab_crane_initial_pose()
    start, _ = crane.tool_pose(q0)
    reference = joint_reference(crane, diamond_waypoints(start[:2], loops), segment_time, 1e-3, q0)
    return simulate_crane(
        reference,
        crane,
        lab_crane_hydraulics(**hydraulics_options),
        substeps=substeps,
        plant=plant,
        mujoco_integrator=mujoco_integrator,
        progress=progress,
    )

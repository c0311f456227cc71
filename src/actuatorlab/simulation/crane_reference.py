"""Joint-space reference of the crane's closed loop: a tool-tip path through waypoints,
inverse kinematics, and the paper's diamond (Petrović & Mattila Sec. 7).

Tool-tip waypoints (x, y) [m] in the world frame (y up) → quintic rest-to-rest segments
(``numerics.trajectory.quintic_segments``) → inverse kinematics over the two revolute joints
(q1, q2) [rad] with the telescope held at its start stroke (the paper's control simulation
uses lift and tilt only) → q_d, q̇_d, q̈_d on the controller grid.

The diamond: the paper gives no coordinates; the authors' repository uses A = (2.5, 1.0),
B = (3.0, 1.5), C = (3.5, 1.0), D = (3.0, 0.5) m (5 s per segment, one loop). The paper's run
is: from the start pose to A, then two A-B-C-D loops, 2 s per segment: that is
``diamond_waypoints`` with the defaults here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import ParameterError, SimulationError
from ..machines.lab_crane import lab_crane_initial_pose
from ..mechanics.parallel_serial import ParallelSerialManipulator
from ..mechanics.parallel_serial_kernels import EXIT, forward_pass, new_work, solve_small
from ..numerics.status import STATUS_OK, STATUS_ROOT
from ..numerics.trajectory import quintic_segments

DIAMOND = np.array([[2.5, 1.0], [3.0, 1.5], [3.5, 1.0], [3.0, 0.5]])
"""A, B, C, D [m] of the authors' supplementary repository; the paper prints no coordinates."""


def diamond_waypoints(start, loops: int = 2, corners: np.ndarray = DIAMOND) -> np.ndarray:
    """Waypoints (k, 2) [m]: ``start``, then ``loops`` times A-B-C-D, ending at A."""
    if loops < 1:
        raise ParameterError(f"loops = {loops}: give at least one loop")
    path = [np.asarray(start, dtype=float)[:2]]
    for _ in range(loops):
        path.extend(corners)
    path.append(corners[0])
    return np.array(path)


@dataclass
class JointReference:
    """Reference on the controller grid: t (n,) [s], q/qd/qdd (n, m) [rad, m; per s, per s²],
    tip (n, 2) [m] the commanded tool-tip path."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tip: np.ndarray


@nb.njit(cache=True)
def _tip(seg, trf, base, q, qd, work):
    """World position, velocity and (q̈ = 0) acceleration of the tool origin, each (3,)."""
    lk, v, dv, rw, pw = work[0], work[1], work[2], work[3], work[4]
    forward_pass(seg, trf, base, q, qd, qd, qd * 0.0, lk, v, dv, rw, pw)
    n = seg.shape[0] - 1
    r = rw[n, EXIT]
    lin = v[n, EXIT, :3]
    w = v[n, EXIT, 3:]
    acc = dv[n, EXIT, :3] + np.cross(w, lin)
    return pw[n, EXIT].copy(), r @ lin, r @ acc


@nb.njit(cache=True)
def _inverse_kinematics(seg, trf, base, p, pd, pdd, q0, q_out, qd_out, qdd_out):
    """Newton IK of the tool (x, y) over coordinates 0 and 1, the others held at q0; returns
    (status, sample): STATUS_ROOT if Newton fails to reach 1e-10 m in 30 iterations."""
    work = new_work(seg.shape[0])
    m = q0.size
    q = q0.copy()
    zero = np.zeros(m)
    jac = np.empty((2, 2))
    for k in range(p.shape[0]):
        converged = False
        for _ in range(30):
            pos, _, _ = _tip(seg, trf, base, q, zero, work)
            err = np.array([p[k, 0] - pos[0], p[k, 1] - pos[1]])
            for i in range(2):
                e = np.zeros(m)
                e[i] = 1.0
                _, vel, _ = _tip(seg, trf, base, q, e, work)
                jac[0, i] = vel[0]
                jac[1, i] = vel[1]
            if abs(err[0]) + abs(err[1]) < 1e-10:
                converged = True
                break
            step = solve_small(jac, err)
            q[0] += step[0]
            q[1] += step[1]
        if not converged:
            return STATUS_ROOT, k
        rate = solve_small(jac, pd[k])
        qd = zero.copy()
        qd[0], qd[1] = rate[0], rate[1]
        _, _, bias = _tip(seg, trf, base, q, qd, work)
        acc = solve_small(jac, np.array([pdd[k, 0] - bias[0], pdd[k, 1] - bias[1]]))
        q_out[k] = q
        qd_out[k] = qd
        qdd_out[k, :] = 0.0
        qdd_out[k, 0], qdd_out[k, 1] = acc[0], acc[1]
    return 0, p.shape[0]


def joint_reference(
    crane: ParallelSerialManipulator,
    waypoints,
    segment_time: float = 2.0,
    dt: float = 1e-3,
    q_start=None,
) -> JointReference:
    """Joint-space reference of a tool-tip path: quintic segments through ``waypoints`` (k, 2)
    [m], then inverse kinematics from ``q_start`` (default: the lab crane's initial pose).
    Raises ``SimulationError`` when a point is out of reach or a cylinder would leave its stroke."""
    q_start = crane.check_coordinates(lab_crane_initial_pose() if q_start is None else q_start)
    t, p, pd, pdd = quintic_segments(waypoints, segment_time, dt)
    n, m = len(t), crane.n_coords
    q, qd, qdd = np.empty((n, m)), np.empty((n, m)), np.empty((n, m))
    seg, _, trf, base = crane.arrays
    status, k = _inverse_kinematics(seg, trf, base, p, pd, pdd, q_start, q, qd, qdd)
    if status != STATUS_OK:
        raise SimulationError(
            f"t = {t[k]:.3f} s: the tool point ({p[k, 0]:.3f}, {p[k, 1]:.3f}) m is out of reach of "
            f"{crane.name} (inverse kinematics did not converge); move the waypoints into the workspace"
        )
    outside = crane.first_outside_limits(q)
    if outside is not None:
        k, i = outside
        lim = crane.coordinate_limits
        raise SimulationError(
            f"t = {t[k]:.3f} s: reaching ({p[k, 0]:.3f}, {p[k, 1]:.3f}) m needs {crane.coordinate_names[i]} = "
            f"{q[k, i]:.4f}, outside [{lim[i, 0]:.4f}, {lim[i, 1]:.4f}] (a cylinder would leave its stroke); "
            "move the waypoints into the workspace"
        )
    return JointReference(t, q, qd, qdd, p)

"""Compiled Newton–Euler recursions of the parallel–serial manipulator (Petrović & Mattila 2022).

The kernels behind ``parallel_serial.ParallelSerialManipulator``: they read the packed arrays
of its ``arrays`` property (layouts below) and never allocate a Python object, so the closed
loops of ``simulation`` and ``control.vdc`` call them directly.

A chain of *structures*; structure j holds a revolute segment (a passive joint q_j whose
triangle is closed by a cylinder, ``linkage``) and optionally a prismatic (telescope) segment.
Subsystem bodies and frames of structure j (paper Sec. 3.1), the first index of the frame
arrays (and, 0–6, of the body arrays):

====  =======  ==========================================================================
idx   frame    body
====  =======  ==========================================================================
0     B_0j     link L_j (its frame is B_cj = B_2j at the cylinder base pin, x to q_j-joint)
1     B_1j     link L_j1 merged with the mass object O_1j (frame at q_j-joint, x to q_j2)
2     B_3j     cylinder case (frame at the base pin, x along the cylinder)
3     B_4j     piston + rod (frame at the piston, x along the cylinder; rod pin at l_c)
4     P_2j     prismatic case (= E_1j when the prismatic segment exists)
5     B_5j     prismatic rod, at offset (d_0 + x_t, 0, 0) from P_2j
6     P_3j     mass object O_2j
7     T_cj     the rod pin (q_j2-joint), orientation of B_1j
8     exit     E_2j if prismatic else E_1j: the next structure's B_c,j+1 or the tool frame D
====  =======  ==========================================================================

Packed arrays: seg (n, N_SEG) per-structure geometry (columns S_*: L_j, L_j1, x0_j, l_cj [m],
prismatic flag, d_0 [m], first coordinate index); inert (n, N_BODIES, BODY_SIZE) the bodies
(``rigid_body``); trf (n, 3, 12) constant transforms (T_c → E_1, B_5 → P_3, P_3 → E_2: rotation
row-major, then origin [m]); base (15,) the W → B_c1 transform, then (0, g, 0) with g [m/s²]
the gravity along −y of W.

Generalised coordinates: per structure q_j [rad] (∈ (−π, 0), see ``linkage``), then x_tj [m]
if it has a prismatic segment. Actuator forces f_cj, f_ctj [N] > 0 push the piston out
(eqs. 67, 55); they exclude friction (78).

Velocities run base → tip (24)–(34), net forces are (7)/(8) (``rigid_body``), forces run tip →
base with (50)–(56) and the closed forms (68) and (69). The forward dynamics assembles the
actuator-space inertia A(q) from inverse dynamics, f_c = A(q) q̈ + b(q, q̇), and solves.
Scratch: ``work`` = (lk, v, dv, rw, pw, fstar, fc, tmp) from ``new_work``.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..numerics.copying import copy_into
from ..numerics.layout import Layout
from ..numerics.spatial import (
    force_to_parent_into,
    force_to_parent_rz,
    velocity_to_child_into,
    velocity_to_child_rz,
)
from .linkage import segment_motion, stroke_from_angle
from .rigid_body import net_force_into

FRAMES = Layout("", "b0", "b1", "b3", "b4", "p2", "b5", "p3", "tc", "exit")
B0, B1, B3, B4, P2, B5, P3, TC, EXIT = FRAMES.indices
N_FRAMES = len(FRAMES)
N_BODIES = 7
# columns of the per-structure geometry array
SEGMENT = Layout("S_", "l", "l1", "x0", "lc", "prism", "d0", "col")
(S_L, S_L1, S_X0, S_LC, S_PRISM, S_D0, S_COL) = SEGMENT.indices
N_SEG = len(SEGMENT)


@nb.njit(cache=True)
def new_work(n):
    """Scratch arrays for ``n`` structures (see ``Workspace``), tmp (8, 6) scratch."""
    return (
        np.zeros((n, 13)),
        np.zeros((n, N_FRAMES, 6)),
        np.zeros((n, N_FRAMES, 6)),
        np.zeros((n, N_FRAMES, 3, 3)),
        np.zeros((n, N_FRAMES, 3)),
        np.zeros((n, N_BODIES, 6)),
        np.zeros((n, 6)),
        np.zeros((8, 6)),
    )


@nb.njit(cache=True)
def _revolute_child(c, s, a, v_parent, dv_parent, rate_m, rate_r, acc_r, v, dv):
    """Joint about the child's z at its origin (R_z(θ), origin (a, 0, 0) in the parent):
    V = z_r θ̇_r + U^T V_A (25, 27, 29) and dV/dt = U^T dV_A − θ̇ z×(U^T V_A) + z_r θ̈_r, the
    measured θ̇ in the transform's derivative."""
    velocity_to_child_rz(c, s, a, v_parent, v)
    velocity_to_child_rz(c, s, a, dv_parent, dv)
    dv[0] += rate_m * v[1]
    dv[1] -= rate_m * v[0]
    dv[3] += rate_m * v[4]
    dv[4] -= rate_m * v[3]
    v[5] += rate_r
    dv[5] += acc_r


@nb.njit(cache=True)
def _prismatic_child(offset, v_parent, dv_parent, rate_m, rate_r, acc_r, v, dv):
    """Slide along the parent's x (no rotation, origin (offset, 0, 0)): V = x_f ẋ_r + U^T V_A
    (28, 33) and dV/dt = U^T dV_A + (ω_A × x̂ ẋ, 0) + x_f ẍ_r."""
    velocity_to_child_rz(1.0, 0.0, offset, v_parent, v)
    velocity_to_child_rz(1.0, 0.0, offset, dv_parent, dv)
    dv[1] += v_parent[5] * rate_m
    dv[2] -= v_parent[4] * rate_m
    v[0] += rate_r
    dv[0] += acc_r


@nb.njit(cache=True)
def _fixed_child(rot, r, v_parent, dv_parent, v, dv):
    """Rigid attachment (26, 31, 32, 34): V = U^T V_A, dV/dt = U^T dV_A."""
    velocity_to_child_into(rot, r, v_parent, v)
    velocity_to_child_into(rot, r, dv_parent, dv)


@nb.njit(cache=True)
def _pose_rz(rw, pw, parent, child, c, s, a):
    for i in range(3):
        r0, r1 = rw[parent, i, 0], rw[parent, i, 1]
        rw[child, i, 0] = c * r0 + s * r1
        rw[child, i, 1] = -s * r0 + c * r1
        rw[child, i, 2] = rw[parent, i, 2]
        pw[child, i] = pw[parent, i] + a * r0


@nb.njit(cache=True)
def _pose(rw, pw, parent, child, rot, r):
    for i in range(3):
        for k in range(3):
            rw[child, i, k] = rw[parent, i, 0] * rot[0, k] + rw[parent, i, 1] * rot[1, k] + rw[parent, i, 2] * rot[2, k]
        pw[child, i] = pw[parent, i] + rw[parent, i, 0] * r[0] + rw[parent, i, 1] * r[1] + rw[parent, i, 2] * r[2]


@nb.njit(cache=True)
def forward_pass(seg, trf, base, q, qd, qd_r, qdd_r, lk, v, dv, rw, pw):
    """Base → tip velocity recursion (24)–(34) and its time derivative; required version (38)–(48)
    with geometry and transform rates from the measured q, q̇ and the propagated q̇_r, q̈_r.

    Fills lk (n, 13) (``linkage.segment_motion``), v, dv (n, 9, 6), rw (n, 9, 3, 3), pw (n, 9, 3).
    The base B_c1 is fixed: V = dV/dt = 0.
    """
    n = seg.shape[0]
    for j in range(n):
        col = int(seg[j, S_COL])
        L, L1, x0, lc = seg[j, S_L], seg[j, S_L1], seg[j, S_X0], seg[j, S_LC]
        if j == 0:
            v[0, B0, :] = 0.0
            dv[0, B0, :] = 0.0
            for i in range(3):
                for k in range(3):
                    rw[0, B0, i, k] = base[3 * i + k]
                pw[0, B0, i] = base[9 + i]
        else:
            v[j, B0] = v[j - 1, EXIT]
            dv[j, B0] = dv[j - 1, EXIT]
            rw[j, B0] = rw[j - 1, EXIT]
            pw[j, B0] = pw[j - 1, EXIT]
        m = lk[j]
        segment_motion(L, L1, x0, q[col], qd[col], qd_r[col], qdd_r[col], m)
        ell, q1 = m[0], m[2]
        # open chain 1j: B0 -> B1 (25) -> T1 (26)
        c, s = math.cos(q[col]), math.sin(q[col])
        _revolute_child(
            c,
            s,
            L,
            v[j, B0],
            dv[j, B0],
            qd[col],
            qd_r[col],
            qdd_r[col],
            v[j, B1],
            dv[j, B1],
        )
        _pose_rz(rw[j], pw[j], B0, B1, c, s, L)
        velocity_to_child_rz(1.0, 0.0, L1, v[j, B1], v[j, TC])
        velocity_to_child_rz(1.0, 0.0, L1, dv[j, B1], dv[j, TC])
        _pose_rz(rw[j], pw[j], B1, TC, 1.0, 0.0, L1)
        # open chain 2j: B2 = B0 -> B3 (27) -> B4 (28)
        c1, s1 = math.cos(q1), math.sin(q1)
        _revolute_child(c1, s1, 0.0, v[j, B0], dv[j, B0], m[5], m[8], m[11], v[j, B3], dv[j, B3])
        _pose_rz(rw[j], pw[j], B0, B3, c1, s1, 0.0)
        _prismatic_child(ell - lc, v[j, B3], dv[j, B3], m[4], m[7], m[10], v[j, B4], dv[j, B4])
        _pose_rz(rw[j], pw[j], B3, B4, 1.0, 0.0, ell - lc)
        # exit of the revolute segment: E1 (31), = P2 (32) when prismatic
        rot_e = trf[j, 0, :9].reshape(3, 3)
        r_e = trf[j, 0, 9:]
        if seg[j, S_PRISM] > 0.5:
            _fixed_child(rot_e, r_e, v[j, TC], dv[j, TC], v[j, P2], dv[j, P2])
            _pose(rw[j], pw[j], TC, P2, rot_e, r_e)
            d = seg[j, S_D0] + q[col + 1]
            _prismatic_child(
                d,
                v[j, P2],
                dv[j, P2],
                qd[col + 1],
                qd_r[col + 1],
                qdd_r[col + 1],
                v[j, B5],
                dv[j, B5],
            )
            _pose_rz(rw[j], pw[j], P2, B5, 1.0, 0.0, d)
            rot_l = trf[j, 1, :9].reshape(3, 3)
            r_l = trf[j, 1, 9:]
            _fixed_child(rot_l, r_l, v[j, B5], dv[j, B5], v[j, P3], dv[j, P3])
            _pose(rw[j], pw[j], B5, P3, rot_l, r_l)
            rot_x = trf[j, 2, :9].reshape(3, 3)
            r_x = trf[j, 2, 9:]
            _fixed_child(rot_x, r_x, v[j, P3], dv[j, P3], v[j, EXIT], dv[j, EXIT])
            _pose(rw[j], pw[j], P3, EXIT, rot_x, r_x)
        else:
            _fixed_child(rot_e, r_e, v[j, TC], dv[j, TC], v[j, EXIT], dv[j, EXIT])
            _pose(rw[j], pw[j], TC, EXIT, rot_e, r_e)


@nb.njit(cache=True)
def body_net_forces(inert, base, rw, v_r, dv_r, v, fstar, gravity_scale):
    """F* (7) of every body (pass v_r = v, dv_r = dv), or F*_r (8) without its K_A term, with
    measured v; ``gravity_scale`` multiplies g_W (0 for inertia-only terms). Bodies of zero mass
    and inertia (absent prismatic segments) get F* = 0."""
    n = inert.shape[0]
    g = np.empty(3)
    for j in range(n):
        for k in range(N_BODIES):
            body = inert[j, k]
            if body[0] == 0.0 and body[4] == 0.0 and body[8] == 0.0 and body[12] == 0.0:
                fstar[j, k, :] = 0.0
                continue
            for i in range(3):
                g[i] = gravity_scale * (
                    rw[j, k, 0, i] * base[12] + rw[j, k, 1, i] * base[13] + rw[j, k, 2, i] * base[14]
                )
            net_force_into(body, dv_r[j, k], v_r[j, k], v[j, k, 3:], g, fstar[j, k])


@nb.njit(cache=True)
def revolute_actuator_force(L1, lc, ell, q2, f_b1, f_b3, f_b4, f_e1_in_b1):
    """Eq. (68): f_cj [N] from the net forces of B_1j, B_3j, B_4j and ^B1j U_E1j ^E1j F (in B_1j).

    f_c = x_f^T F*_B4 − z_r^T(F*_B1 + U F_E1)/(L_j1 sin q_j2)
          − [z_r^T F*_B3 + z_r^T F*_B4 + y_f^T F*_B4 (ℓ − l_c)]/(ℓ tan q_j2)
    """
    return (
        f_b4[0]
        - (f_b1[5] + f_e1_in_b1[5]) / (L1 * math.sin(q2))
        - (f_b3[5] + f_b4[5] + f_b4[1] * (ell - lc)) / (ell * math.tan(q2))
    )


@nb.njit(cache=True)
def backward_pass(seg, trf, lk, q, fstar, tool, f_out, fc_out, tmp):
    """Tip → base force recursion: prismatic (50)–(56), revolute f_cj (68) and ^B_cj F (69).

    ``fstar`` holds F* (or F*_r for the required forces (70)–(77)); ``tool`` is ^D F (6,).
    Writes actuator forces (coordinate order) into f_out and ^B_cj F into fc_out (n, 6);
    ``tmp`` is (8, 6) scratch.
    """
    n = seg.shape[0]
    f_exit, a, b, f_e1, f_eb1 = tmp[0], tmp[1], tmp[2], tmp[3], tmp[4]
    copy_into(f_exit, tool)
    for j in range(n - 1, -1, -1):
        col = int(seg[j, S_COL])
        L, L1, lc = seg[j, S_L], seg[j, S_L1], seg[j, S_LC]
        ell, q1, q2 = lk[j, 0], lk[j, 2], lk[j, 3]
        if seg[j, S_PRISM] > 0.5:
            force_to_parent_into(trf[j, 2, :9].reshape(3, 3), trf[j, 2, 9:], f_exit, a)
            a += fstar[j, P3]  # (52) ^P3 F
            force_to_parent_into(trf[j, 1, :9].reshape(3, 3), trf[j, 1, 9:], a, b)
            b += fstar[j, B5]  # (54) ^B5 F
            f_out[col + 1] = b[0]  # (55)
            force_to_parent_rz(1.0, 0.0, seg[j, S_D0] + q[col + 1], b, f_e1)
            f_e1 += fstar[j, P2]  # (56) ^P2 F = ^E1 F
        else:
            copy_into(f_e1, f_exit)
        force_to_parent_into(trf[j, 0, :9].reshape(3, 3), trf[j, 0, 9:], f_e1, a)
        force_to_parent_rz(1.0, 0.0, L1, a, f_eb1)  # ^B1 U_E1 ^E1 F
        f_out[col] = revolute_actuator_force(L1, lc, ell, q2, fstar[j, B1], fstar[j, B3], fstar[j, B4], f_eb1)
        # (69): F*_B0 + U_01 (F*_B1 + U_1E F_E1) + U_23 (F*_B3 + U_34 F*_B4)
        f_eb1 += fstar[j, B1]
        force_to_parent_rz(math.cos(q[col]), math.sin(q[col]), L, f_eb1, a)
        force_to_parent_rz(1.0, 0.0, ell - lc, fstar[j, B4], b)
        b += fstar[j, B3]
        force_to_parent_rz(math.cos(q1), math.sin(q1), 0.0, b, f_e1)
        for i in range(6):
            fc_out[j, i] = fstar[j, B0, i] + a[i] + f_e1[i]
            f_exit[i] = fc_out[j, i]


@nb.njit(cache=True)
def inverse_dynamics_into(seg, inert, trf, base, q, qd, qdd, tool, gravity_scale, work, f_out):
    """Actuator forces (coordinate order) into f_out at q, q̇, q̈ with tool wrench ^D F."""
    lk, v, dv, rw, pw, fstar, fc, tmp = work
    forward_pass(seg, trf, base, q, qd, qd, qdd, lk, v, dv, rw, pw)
    body_net_forces(inert, base, rw, v, dv, v, fstar, gravity_scale)
    backward_pass(seg, trf, lk, q, fstar, tool, f_out, fc, tmp)


@nb.njit(cache=True)
def inverse_dynamics(seg, inert, trf, base, q, qd, qdd, tool, gravity_scale):
    """``inverse_dynamics_into`` returning a new array (allocates its scratch)."""
    f = np.empty(q.size)
    inverse_dynamics_into(
        seg,
        inert,
        trf,
        base,
        q,
        qd,
        qdd,
        tool,
        gravity_scale,
        new_work(seg.shape[0]),
        f,
    )
    return f


@nb.njit(cache=True)
def batch_inverse_dynamics(seg, inert, trf, base, q, qd, qdd, out):
    """Row-wise ``inverse_dynamics_into`` over samples (n, m) without tool load."""
    work = new_work(seg.shape[0])
    tool = np.zeros(6)
    for k in range(q.shape[0]):
        inverse_dynamics_into(seg, inert, trf, base, q[k], qd[k], qdd[k], tool, 1.0, work, out[k])


@nb.njit(cache=True)
def actuator_inertia(seg, inert, trf, base, q, out, work):
    """A(q) into ``out``: column i = actuator forces for q̈ = e_i at rest without gravity."""
    m = q.size
    zero = np.zeros(m)
    e = np.zeros(m)
    col = np.empty(m)
    tool = np.zeros(6)
    for i in range(m):
        e[:] = 0.0
        e[i] = 1.0
        inverse_dynamics_into(seg, inert, trf, base, q, zero, e, tool, 0.0, work, col)
        for r in range(m):
            out[r, i] = col[r]


@nb.njit(cache=True)
def solve_small(a, b):
    """Solve a x = b (m × m, small) by Gaussian elimination with partial pivoting; a, b copied."""
    m = b.size
    a = a.copy()
    x = b.copy()
    for k in range(m):
        p = k
        for i in range(k + 1, m):
            if abs(a[i, k]) > abs(a[p, k]):
                p = i
        if p != k:
            for c in range(m):
                a[k, c], a[p, c] = a[p, c], a[k, c]
            x[k], x[p] = x[p], x[k]
        for i in range(k + 1, m):
            w = a[i, k] / a[k, k]
            for c in range(k, m):
                a[i, c] -= w * a[k, c]
            x[i] -= w * x[k]
    for k in range(m - 1, -1, -1):
        s = x[k]
        for c in range(k + 1, m):
            s -= a[k, c] * x[c]
        x[k] = s / a[k, k]
    return x


@nb.njit(cache=True)
def forward_dynamics(seg, inert, trf, base, q, qd, f_c, tool, out, work):
    """q̈ into ``out`` with A(q) q̈ = f_c − b(q, q̇): b from inverse dynamics at q̈ = 0."""
    m = q.size
    bias = np.empty(m)
    inverse_dynamics_into(seg, inert, trf, base, q, qd, np.zeros(m), tool, 1.0, work, bias)
    a = np.empty((m, m))
    actuator_inertia(seg, inert, trf, base, q, a, work)
    copy_into(out, solve_small(a, f_c - bias))


@nb.njit(cache=True)
def piston_states(seg, q, qd, x_out, xd_out):
    """Piston stroke [m] and rate [m/s] of every actuator (coordinate order): (18), (21) for
    revolute segments, x_tj itself for prismatic ones."""
    n = seg.shape[0]
    for j in range(n):
        col = int(seg[j, S_COL])
        x, ell = stroke_from_angle(seg[j, S_L], seg[j, S_L1], seg[j, S_X0], q[col])
        x_out[col] = x
        xd_out[col] = -seg[j, S_L] * seg[j, S_L1] * math.sin(q[col]) / ell * qd[col]  # (21)
        if seg[j, S_PRISM] > 0.5:
            x_out[col + 1] = q[col + 1]
            xd_out[col + 1] = qd[col + 1]

"""The compiled step of cylinders inside MuJoCo: the pin lengths, the cylinder forces written as
pin forces, and the backward-Euler pressure step of a pump line.

Per MuJoCo step k (t_k = k·h, h = ``model.opt.timestep``) the loop of :mod:`.loop` calls
``mj_step1`` (positions and velocities at q_k), ``pin_lengths`` (ℓ_k and the pin-line unit
vectors), the valve commands, then ``cylinder_forces``: every cylinder force f_k, added to
``data.qfrc_applied`` as the generalized force of its two pin forces (:mod:`.point_forces`) or,
for slide-joint cylinders, on the joint's dof; then ``mj_step2``. With MuJoCo's Euler
integrator this is exactly the scheme of :mod:`actuatorlab.simulation.arm`: the force from q_k,
then semi-implicit Euler. Signs as in :mod:`.cylinders`: f > 0 pushes the pins apart.

Supplies: a cylinder on its own fixed-displacement pump (flow Q, bleed, relief P_M), on a pump
shared with others (Sec. 6), or on a constant-pressure supply P_s (pressure-compensated pump or
accumulator; column ``G_SUPPLY`` > 0). At constant pressure a quasistatic cylinder follows
Λ̂(P_s, β, f̄) of (122), the Λ with the pump pressure as a parameter and without the bleed
segments, and a pressure cylinder's pump line is held at P_s (no pump-line state).

Pressure cylinders: the pressures of a pump line — (p_h, p_r) of each of its m cylinders and
the line pressure P, 2m + 1 states [Pa] — are advanced over each step by backward Euler: Newton
on ``chamber_rates`` and ``pump_line_rate`` (the line feeds the sum of the cylinders' draws)
with their analytic partials, the arrow-shaped Jacobian solved by eliminating each cylinder's
2×2 block (Schur complement on P); the step is split in halves if Newton does not converge;
x = ℓ_k − ℓ₀ and ẋ = (ℓ_k − ℓ_{k−1})/h. An own pump line is the case m = 1.

Nothing here raises: a failure returns a status of :mod:`actuatorlab.numerics.status` and the
driver (:mod:`.system`) turns it into one ``SimulationError``.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..hydraulics.pressure_dynamics import (
    D_P,
    D_PH,
    D_PR,
    H_GRELIEF,
    H_L0,
    U_B,
    chamber_rates,
    pump_line_rate,
    pump_line_stiffness,
)
from ..hydraulics.quasistatic.circuit import I_AH, I_AR, I_FHM, I_FRM, I_PM, I_Q, J_B, J_PH, J_PR
from ..hydraulics.quasistatic.kernels import (
    chamber_forces_scalar,
    circuit_at,
    openings_at,
    relaxation_terms_scalar,
    relaxed_step_scalar,
)
from ..hydraulics.quasistatic.network import (
    lam_hat_scalar,
    pump_balance_scalar,
    pump_flow_scalar,
    relaxed_network_step_range,
)
from ..numerics.copying import copy_into
from ..numerics.layout import Layout
from ..numerics.roots import ROOT_OK
from ..numerics.status import (
    CHATTER_FRACTION,
    CHATTER_STEPS,
    MAX_STRETCH,
    STATUS_CHATTER,
    STATUS_NEWTON,
    STATUS_NOT_FINITE,
    STATUS_OK,
    STATUS_ROOT,
    STATUS_STRETCH,
    STATUS_STROKE,
)
from .cylinders import (
    G_DAMPING,
    G_MAX_LENGTH,
    G_MIN_LENGTH,
    G_OFFSET,
    G_STIFFNESS,
    G_SUPPLY,
    J_BASE_BODY,
    J_BASE_SITE,
    J_DOF,
    J_KIND,
    J_QPOS,
    J_ROD_BODY,
    J_ROD_SITE,
    KIND_QUASISTATIC,
    KIND_SUPPLY,
)
from .point_forces import add_point_force

NEWTON_TOL = 1.0e-3
"""Newton on the chamber pressures stops when every update is below NEWTON_TOL [Pa] + 1e-12·|p|."""
NEWTON_MAX_ITER = 30
MAX_HALVINGS = 10

# columns of the per-actuator state ``state`` (n, N_STATE): the rod displacement p [m]
# (quasistatic) and the pin-to-pin length ℓ [m] of the last step; p_h, p_r, P [Pa] (pressure
# cylinders; P equal on a shared pump line); the last force f [N], its last change [N] and the
# count of successive alternating changes (the chatter test of numerics/status.py)
STATE = Layout("S_", "rod", "length", "ph", "pr", "pump", "force", "dforce", "chatter")
(S_ROD, S_LENGTH, S_PH, S_PR, S_PUMP, S_FORCE, S_DFORCE, S_CHATTER) = STATE.indices
N_STATE = len(STATE)
# rows of the per-actuator output out[k, i, row]: ℓ [m], (ℓ_k − ℓ_{k−1})/h [m/s], f [N], p [m],
# v [m/s], p_h, p_r, P [Pa], the pump relief flow [m³/s], the flow the supply feeds the cylinder
# [m³/s], the valve command u_c and the bleed opening u_b [-] (NaN where a row does not apply)
RECORD = Layout(
    "O_",
    "length",
    "rate",
    "force",
    "rod",
    "vel",
    "ph",
    "pr",
    "pump",
    "relief",
    "supply_flow",
    "command",
    "bleed",
)
(O_LENGTH, O_RATE, O_FORCE, O_ROD, O_VEL, O_PH, O_PR, O_PUMP, O_RELIEF, O_SUPPLY_FLOW, O_COMMAND, O_BLEED) = (
    RECORD.indices
)
N_OUT = len(RECORD)


@nb.njit(cache=True, error_model="numpy")
def _pressure_substep(cps, hps, us, x, xdot, y0, h, fixed, y):
    """One backward-Euler step of a pump line's pressures y = [p_h,0, p_r,0, …, p_h,m−1, p_r,m−1, P]
    from ``y0`` over ``h`` at fixed x, ẋ (m,): Newton on y − y0 − h·ẏ(y) = 0 with the analytic
    partials. The Jacobian is an arrow (each cylinder couples to P only): each 2×2 chamber block
    is eliminated and the Schur complement solved for P. The pump line's parameters are those of
    cylinder 0. ``fixed``: P is a constant supply pressure (only the chambers are solved).
    Writes ``y``; returns True if converged."""
    m = x.shape[0]
    rates = np.empty(2)
    partials = np.empty((2, 5))
    z = np.empty((m, 2))
    w = np.empty((m, 2))
    c = np.empty((m, 2))
    kp = pump_line_stiffness(hps[0])
    npr = 2 * m
    for i in range(npr + 1):
        y[i] = y0[i]
    for _ in range(NEWTON_MAX_ITER):
        pump = y[npr]
        draw = 0.0
        dq_p_sum = 0.0
        schur = 0.0
        rhs = 0.0
        for j in range(m):
            dj, dq_ph, dq_pr, dq_p = chamber_rates(
                cps[j], hps[j], us[j], x[j], xdot[j], y[2 * j], y[2 * j + 1], pump, rates, partials
            )
            draw += dj
            dq_p_sum += dq_p
            r0 = y[2 * j] - y0[2 * j] - h * rates[0]
            r1 = y[2 * j + 1] - y0[2 * j + 1] - h * rates[1]
            a00 = 1.0 - h * partials[0, D_PH]
            a01 = -h * partials[0, D_PR]
            a10 = -h * partials[1, D_PH]
            a11 = 1.0 - h * partials[1, D_PR]
            b0 = -h * partials[0, D_P]
            b1 = -h * partials[1, D_P]
            det = a00 * a11 - a01 * a10
            z[j, 0] = (a11 * r0 - a01 * r1) / det
            z[j, 1] = (a00 * r1 - a10 * r0) / det
            w[j, 0] = (a11 * b0 - a01 * b1) / det
            w[j, 1] = (a00 * b1 - a10 * b0) / det
            c[j, 0] = h * kp * dq_ph
            c[j, 1] = h * kp * dq_pr
            schur -= c[j, 0] * w[j, 0] + c[j, 1] * w[j, 1]
            rhs -= c[j, 0] * z[j, 0] + c[j, 1] * z[j, 1]
        delta_p = 0.0
        if not fixed:
            pump_rate, d_pump = pump_line_rate(cps[0], hps[0], us[0, U_B], pump, draw)
            schur += 1.0 - h * (d_pump - kp * dq_p_sum)
            rhs += pump - y0[npr] - h * pump_rate
            delta_p = rhs / schur
        done = abs(delta_p) <= NEWTON_TOL + 1e-12 * abs(pump - delta_p)
        y[npr] = pump - delta_p
        for j in range(m):
            for col in range(2):
                d = z[j, col] - w[j, col] * delta_p
                y[2 * j + col] -= d
                if not (abs(d) <= NEWTON_TOL + 1e-12 * abs(y[2 * j + col])):
                    done = False
        if done:
            return True
    return False


@nb.njit(cache=True, error_model="numpy")
def pressure_step(cps, hps, us, x, xdot, y, h, fixed=False) -> bool:
    """Advance the pressures ``y`` = [p_h,0, p_r,0, …, P] [Pa] of one pump line with m cylinders
    (``cps`` (m, N_CIRCUIT), ``hps`` (m, N_PRESSURE), raw openings ``us`` (m, 6)) in place over
    one step h [s] by backward Euler at piston positions x [m] and rates ẋ [m/s] (m,); split
    into 2, 4, … substeps (up to 2^MAX_HALVINGS) when Newton does not converge. ``fixed``: P
    is held (a constant-pressure supply). Returns False if it never converged."""
    y0 = y.copy()
    out = np.empty(y.shape[0])
    for halvings in range(MAX_HALVINGS + 1):
        n_sub = 1 << halvings
        hs = h / n_sub
        start = y0.copy()
        ok = True
        for _ in range(n_sub):
            if not _pressure_substep(cps, hps, us, x, xdot, start, hs, fixed, out):
                ok = False
                break
            copy_into(start, out)
        if ok:
            copy_into(y, start)
            return True
    return False


@nb.njit(cache=True, inline="always", error_model="numpy")
def pin_lengths(site_xpos, qpos, ints, gain, l_now, unit) -> None:
    """Pin-to-pin lengths ℓ [m] into ``l_now`` (n,) and the unit vectors from the base pin to the
    rod pin into ``unit`` (n, 3) (slide joints: ℓ = qpos + offset, ``unit`` unused)."""
    for i in range(ints.shape[0]):
        if ints[i, J_QPOS] >= 0:
            l_now[i] = qpos[ints[i, J_QPOS]] + gain[i, G_OFFSET]
            continue
        a = ints[i, J_ROD_SITE]
        b = ints[i, J_BASE_SITE]
        dx = site_xpos[a, 0] - site_xpos[b, 0]
        dy = site_xpos[a, 1] - site_xpos[b, 1]
        dz = site_xpos[a, 2] - site_xpos[b, 2]
        length = math.sqrt(dx * dx + dy * dy + dz * dz)
        l_now[i] = length
        unit[i, 0] = dx / length
        unit[i, 1] = dy / length
        unit[i, 2] = dz / length


@nb.njit(cache=True, inline="always", error_model="numpy")
def own_pump_supply(cp, uh, v: float, f: float) -> tuple[float, float, float]:
    """(P [Pa], the flow Q_p the pump feeds the cylinder [m³/s], the relief flow [m³/s]) of a
    quasistatic cylinder on its own pump at (v, f) (Kikuuwe et al. (39), (61)–(62)).

    Extending (v > 0, û_ph > 0): Q_p = A_h v through the pump→head valve, so
    A_h P = F_h + v²/û_ph² with F_h the head chamber force; retracting likewise on the rod side.
    Otherwise Q_p = 0 and the bleed passes Q at P = (Q/U_b)², capped at P_M. The relief passes
    what neither the cylinder nor the bleed takes once P reaches P_M.
    """
    q = cp[I_Q]
    if v > 0.0 and uh[J_PH] > 0.0:
        head, _ = chamber_forces_scalar(cp, uh, v, f)
        flow = cp[I_AH] * v
        pressure = (head + v * v / (uh[J_PH] * uh[J_PH])) / cp[I_AH]
    elif v < 0.0 and uh[J_PR] > 0.0:
        _, rod = chamber_forces_scalar(cp, uh, v, f)
        flow = -cp[I_AR] * v
        pressure = (rod + v * v / (uh[J_PR] * uh[J_PR])) / cp[I_AR]
    else:
        flow = 0.0
        pressure = cp[I_PM] if uh[J_B] <= 0.0 else min(cp[I_PM], (q / uh[J_B]) ** 2)
    pressure = min(pressure, cp[I_PM])
    relief = 0.0
    if pressure >= cp[I_PM]:
        relief = max(q - flow - uh[J_B] * math.sqrt(pressure), 0.0)
    return pressure, flow, relief


# rows of the workspace ``work`` (N_WORK, n) of ``cylinder_forces``: contiguous per-cylinder
# buffers allocated once per run (an allocation per step would cost more than a pump's root search);
# the shared pumps' search takes its rows as separate arrays (``network_buffers``), indexed by cylinder
WORK = Layout("W_", "force", "x", "xdot", "k", "b", "rod", "lprev", "fnew", "vnew", "impedance", "fbar")
(W_FORCE, W_X, W_XDOT, W_K, W_B, W_ROD, W_LPREV, W_FNEW, W_VNEW, W_IMPEDANCE, W_FBAR) = WORK.indices
N_WORK = len(WORK)


@nb.njit(cache=True, inline="always")
def network_buffers(work):
    """The rows W_K … W_FBAR of ``work`` as separate arrays (views: cheap on the time loop's
    borrowed arrays, :mod:`actuatorlab.numerics.borrowed`)."""
    return (
        work[W_K],
        work[W_B],
        work[W_ROD],
        work[W_LPREV],
        work[W_FNEW],
        work[W_VNEW],
        work[W_IMPEDANCE],
        work[W_FBAR],
    )


@nb.njit(cache=True, inline="always", error_model="numpy")
def network_forces(h, cps, uhs, l_now, state, pump_states, group_edges, out, k, work, pump_state):
    """The relaxed step of the quasistatic cylinders on shared pumps (groups [s, e) of
    ``group_edges``), each pump's pressure searched from its ``pump_states`` row; writes p, f, v
    and the outputs at step ``k`` (see ``cylinder_forces``). The per-cylinder arrays are rows of
    ``work`` indexed by cylinder (``network_buffers``; W_K and W_B hold K and B), so the search
    runs on whole arrays without views. Inlined, with the search and its balance, into the time
    loop: a call would copy every array argument's fields each step. Returns (status, cylinder)."""
    stiffness, damping, rod, l_prev, f_new, v_new, betas, fbars = network_buffers(work)
    for g in range(group_edges.shape[0] - 1):
        s = group_edges[g]
        e = group_edges[g + 1]
        for i in range(s, e):
            rod[i] = state[i, S_ROD]
            l_prev[i] = state[i, S_LENGTH]
        pump_state[0] = pump_states[g, 0]
        pump_state[1] = pump_states[g, 1]
        pressure, status = relaxed_network_step_range(
            cps, uhs, stiffness, damping, h, rod, l_prev, l_now, rod, f_new, v_new, betas, fbars, pump_state, s, e
        )
        pump_states[g, 0] = pump_state[0]
        pump_states[g, 1] = pump_state[1]
        if status != ROOT_OK:
            return STATUS_ROOT, s
        relief = 0.0
        if pressure >= cps[s, I_PM]:  # the relief is open: it passes the node's surplus Ξ_P(P_M) (117)
            relief = max(pump_balance_scalar(pressure, cps, uhs, v_new, s, e), 0.0)
        for i in range(s, e):
            state[i, S_ROD] = rod[i]
            work[W_FORCE, i] = f_new[i]
            out[k, i, O_ROD] = rod[i]
            out[k, i, O_VEL] = v_new[i]
            out[k, i, O_PH] = np.nan
            out[k, i, O_PR] = np.nan
            out[k, i, O_PUMP] = pressure
            out[k, i, O_RELIEF] = relief
            flow = pump_flow_scalar(circuit_at(cps, i), openings_at(uhs, i), pressure, v_new[i], f_new[i])
            out[k, i, O_SUPPLY_FLOW] = flow
            if abs(rod[i] - l_now[i]) > MAX_STRETCH:
                return STATUS_STRETCH, i
    return STATUS_OK, 0


@nb.njit(cache=True, inline="always", error_model="numpy")
def cylinder_forces(h, k, data, tables, states, step_arrays, out):
    """Forces of every cylinder at step ``k`` from the lengths ``l_now`` and unit vectors
    ``unit`` of ``pin_lengths``; adds the pin forces and the slide-joint forces to the
    generalized force ``qfrc`` (the caller zeroes it first; pins by :mod:`.point_forces` from
    MuJoCo's ``cdof``, ``subtree_com`` and the tables ``chains``, ``dof_parent`` there).

    ``data``: the views (site_xpos, cdof, subtree_com, qpos, qvel, qfrc) of MuJoCo's data;
    ``tables``: (chains, dof_parent, ints, cps, hps, gain, group_edges, pgroup_edges): ``ints``
    (n, N_INTS) and ``gain`` (n, N_GAIN) the tables of :mod:`.cylinders` (columns ``J_*``,
    ``G_*``), ``group_edges`` consecutive network groups [start, stop) in the internal order,
    ``pgroup_edges`` likewise the pressure cylinders' pump lines (an own line or a constant
    supply is a group of one); ``states``: (state (n, N_STATE), columns ``S_*`` above,
    pump_states); ``step_arrays``: (l_now, unit, uhs (n, 5) normalised openings (quasistatic),
    raw (n, 6) raw openings (pressure), then buffers allocated once by the caller: work
    (N_WORK, n) with rows W_K and W_B filled with K and B, ybuf (2n + 1), rates (2,), partials
    (2, 5), pump_state (2,)); ``out`` (n_steps, n, N_OUT): rows ``O_*`` above, written at step
    ``k``. Returns (status, actuator index), the status one of :mod:`actuatorlab.numerics.status`.
    """
    site_xpos, cdof, subtree_com, _, _, qfrc = data
    chains, dof_parent, ints, cps, hps, gain, group_edges, pgroup_edges = tables
    state, pump_states = states
    l_now, unit, uhs, raw, work, ybuf, rates, partials, pump_state = step_arrays
    n = ints.shape[0]
    # quasistatic on their own pump or on a constant-pressure supply
    for i in range(n):
        kind = ints[i, J_KIND]
        if kind == KIND_QUASISTATIC or kind == KIND_SUPPLY:
            cp, uh = circuit_at(cps, i), openings_at(uhs, i)  # tuples, not row views (network.py)
            if kind == KIND_QUASISTATIC:
                p, f, v = relaxed_step_scalar(
                    cp, uh, gain[i, G_STIFFNESS], gain[i, G_DAMPING], h, state[i, S_ROD], state[i, S_LENGTH], l_now[i]
                )
                pressure, flow, relief = own_pump_supply(cp, uh, v, f)
            else:
                pressure = gain[i, G_SUPPLY]
                impedance, fbar = relaxation_terms_scalar(
                    gain[i, G_STIFFNESS], gain[i, G_DAMPING], h, state[i, S_ROD], state[i, S_LENGTH], l_now[i]
                )
                v = lam_hat_scalar(cp, uh, pressure, impedance, fbar)
                p = state[i, S_ROD] + h * v
                f = fbar + impedance * v
                flow = pump_flow_scalar(cp, uh, pressure, v, f)
                relief = np.nan
            out[k, i, O_ROD] = p
            out[k, i, O_VEL] = v
            out[k, i, O_PH] = np.nan
            out[k, i, O_PR] = np.nan
            out[k, i, O_PUMP] = pressure
            out[k, i, O_RELIEF] = relief
            out[k, i, O_SUPPLY_FLOW] = flow
            state[i, S_ROD] = p
            work[W_FORCE, i] = f
            if abs(p - l_now[i]) > MAX_STRETCH:
                return STATUS_STRETCH, i
    # pressure cylinders, one pump line (or constant supply) at a time
    for g in range(pgroup_edges.shape[0] - 1):
        s = pgroup_edges[g]
        e = pgroup_edges[g + 1]
        m = e - s
        x = work[W_X, :m]
        xdot = work[W_XDOT, :m]
        y = ybuf[: 2 * m + 1]
        for j in range(m):
            i = s + j
            xdot[j] = (l_now[i] - state[i, S_LENGTH]) / h
            x[j] = l_now[i] - hps[i, H_L0]
            y[2 * j] = state[i, S_PH]
            y[2 * j + 1] = state[i, S_PR]
        fixed = gain[s, G_SUPPLY] > 0.0
        y[2 * m] = gain[s, G_SUPPLY] if fixed else state[s, S_PUMP]
        if not pressure_step(cps[s:e], hps[s:e], raw[s:e], x, xdot, y, h, fixed):
            return STATUS_NEWTON, s
        relief = np.nan if fixed else hps[s, H_GRELIEF] * max(y[2 * m] - cps[s, I_PM], 0.0)
        for j in range(m):
            i = s + j
            state[i, S_PH] = y[2 * j]
            state[i, S_PR] = y[2 * j + 1]
            state[i, S_PUMP] = y[2 * m]
            work[W_FORCE, i] = cps[i, I_AH] * state[i, S_PH] - cps[i, I_AR] * state[i, S_PR]
            draw, _, _, _ = chamber_rates(
                cps[i], hps[i], raw[i], x[j], xdot[j], y[2 * j], y[2 * j + 1], y[2 * m], rates, partials
            )
            out[k, i, O_ROD] = np.nan
            out[k, i, O_VEL] = xdot[j]
            out[k, i, O_PH] = state[i, S_PH]
            out[k, i, O_PR] = state[i, S_PR]
            out[k, i, O_PUMP] = state[i, S_PUMP]
            out[k, i, O_RELIEF] = relief
            out[k, i, O_SUPPLY_FLOW] = draw
    if group_edges.shape[0] > 1:
        status, which = network_forces(h, cps, uhs, l_now, state, pump_states, group_edges, out, k, work, pump_state)
        if status != STATUS_OK:
            return status, which
    for i in range(n):
        f = work[W_FORCE, i]
        out[k, i, O_LENGTH] = l_now[i]
        out[k, i, O_RATE] = (l_now[i] - state[i, S_LENGTH]) / h
        out[k, i, O_FORCE] = f
        status = settle_force(i, f, l_now[i], state, cps, gain)
        if status != STATUS_OK:
            return status, i
        apply_cylinder_force(qfrc, cdof, subtree_com, chains, dof_parent, site_xpos, ints, unit, i, f)
    return STATUS_OK, 0


@nb.njit(cache=True, inline="always", error_model="numpy")
def settle_force(i, f, length, state, cps, gain) -> int:
    """Close step k of cylinder ``i``: store ℓ_k and f_k in ``state`` and check them; returns
    STATUS_NOT_FINITE, STATUS_CHATTER (the force alternating by more than CHATTER_FRACTION of
    the chamber relief range F_hM + F_rM for CHATTER_STEPS steps: an unstable step),
    STATUS_STROKE (ℓ outside the gain table's limits) or STATUS_OK."""
    state[i, S_LENGTH] = length
    if not (np.isfinite(f) and np.isfinite(length)):
        return STATUS_NOT_FINITE
    df = f - state[i, S_FORCE]
    if abs(df) > CHATTER_FRACTION * (cps[i, I_FHM] + cps[i, I_FRM]) and df * state[i, S_DFORCE] < 0.0:
        state[i, S_CHATTER] += 1.0
        if state[i, S_CHATTER] >= CHATTER_STEPS:
            return STATUS_CHATTER
    else:
        state[i, S_CHATTER] = 0.0
    state[i, S_FORCE] = f
    state[i, S_DFORCE] = df
    if length < gain[i, G_MIN_LENGTH] or length > gain[i, G_MAX_LENGTH]:
        return STATUS_STROKE
    return STATUS_OK


@nb.njit(cache=True, inline="always", error_model="numpy")
def apply_cylinder_force(qfrc, cdof, subtree_com, chains, dof_parent, site_xpos, ints, unit, i, f) -> None:
    """Add the force f [N] of cylinder ``i`` (> 0 pushes its pins apart) to the generalized force
    ``qfrc``: on its slide joint's dof, or as the pin forces ±f·e at its two sites (``unit``
    e from ``pin_lengths``; :mod:`.point_forces`)."""
    if ints[i, J_QPOS] >= 0:
        qfrc[ints[i, J_DOF]] += f
        return
    for sign, site, body in ((1.0, J_ROD_SITE, J_ROD_BODY), (-1.0, J_BASE_SITE, J_BASE_BODY)):
        s = ints[i, site]
        add_point_force(
            qfrc,
            cdof,
            subtree_com,
            chains,
            dof_parent,
            ints[i, body],
            site_xpos[s, 0],
            site_xpos[s, 1],
            site_xpos[s, 2],
            sign * f * unit[i, 0],
            sign * f * unit[i, 1],
            sign * f * unit[i, 2],
        )

"""The compiled time loop of a MuJoCo model with cylinders: MuJoCo, valve commands, closed loops,
cylinder forces and loads in one call, with no Python per step.

Per step k (t_k = k·h, h = ``model.opt.timestep`` [s]):

1. ``mj_step1`` (positions and velocities at q_k; :mod:`.native` calls MuJoCo by address);
2. every ``n_check`` steps the closed-valve stability bound h²K/m + 2hB/m < 4 at the current
   pose (:mod:`.stability`; 1/m = φ gᵀM⁻¹g from ``mj_jacSite`` and ``mj_solveM``, φ the factor of
   soft equality constraints found at the initial pose, 1 on a tree of bodies): a violation
   stops the loop and the driver raises naming the time;
3. the pin lengths ℓ_k (``pin_lengths``), then the valve commands u_c: open-loop cylinders read
   theirs from a table; a closed-loop cylinder samples its PI controller
   (:mod:`actuatorlab.control.pi`) every ``CT_EVERY`` steps on the error between its target and
   its stroke ℓ − ℓ₀ [m] or a joint's qpos [rad or m], and holds the command in between;
4. the bleed openings u_b (a table, or open-centre: u_b = clip(1 − Σ|u_c|/span, u_b,min, 1)
   over the cylinders of one pump), the openings of (67) (normalised for quasistatic
   cylinders, raw for pressure cylinders), the cylinder forces (``cylinder_forces``) and the
   external loads (force at a site, moment on its body; world frame) as generalized forces into
   ``qfrc_applied`` (:mod:`.point_forces`; ``xfrc_applied`` is left at zero);
5. ``mj_step2``.

Returns (status, actuator, step of the failure or n_steps, step of an unstable pose or −1).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..control.pi import N_PI, pi_step
from ..numerics.borrowed import borrowed
from ..numerics.layout import Layout
from ..numerics.status import STATUS_OK
from .cylinders import (
    G_DAMPING,
    G_MASS_FACTOR,
    G_STIFFNESS,
    J_BASE_SITE,
    J_DOF,
    J_KIND,
    J_QPOS,
    J_ROD_SITE,
    KIND_PRESSURE,
)
from .kernels import N_WORK, O_BLEED, O_COMMAND, W_B, W_K, cylinder_forces, pin_lengths
from .native import jac_site, solve_m, step1, step2
from .point_forces import add_body_moment, add_point_force
from .stability import oil_column_stiffness

# columns of the controller table ``ctrl`` (n, N_CTRL): the mode (CTRL_OPEN: the command table;
# CTRL_STROKE: the stroke ℓ − ℓ₀; CTRL_JOINT: qpos[CT_QPOS]), the qpos address, the steps per
# sample, ℓ₀ [m], then the PI parameters (layout PI_* of control.pi) from CT_PI on
CONTROL = Layout("CT_", "mode", "qpos", "every", "l0", "pi")
(CT_MODE, CT_QPOS, CT_EVERY, CT_L0, CT_PI) = CONTROL.indices
N_CTRL = CT_PI + N_PI
CTRL_OPEN, CTRL_STROKE, CTRL_JOINT = 0, 1, 2
# columns of the bleed table ``bleed`` (n, N_BLEED): open-centre (1) or a table (0), the span of
# Σ|u_c| that closes the bleed, its least opening, the pump group of the cylinder
BLEED = Layout("B_", "auto", "span", "min", "group")
(B_AUTO, B_SPAN, B_MIN, B_GROUP) = BLEED.indices
N_BLEED = len(BLEED)


@nb.njit(cache=True, error_model="numpy")
def _stable(calls, site_xpos, ints, cps, hps, gain, h, l_now, unit, grads, minv_g, jac_a, jac_b) -> bool:
    """The closed-valve bound of every cylinder at the current data (after mj_step1)."""
    n = ints.shape[0]
    grads[:, :] = 0.0
    for i in range(n):
        if ints[i, J_QPOS] >= 0:
            grads[i, ints[i, J_DOF]] = 1.0
            continue
        jac_site(calls, jac_a, ints[i, J_ROD_SITE])
        jac_site(calls, jac_b, ints[i, J_BASE_SITE])
        for d in range(grads.shape[1]):
            grads[i, d] = (
                unit[i, 0] * (jac_a[0, d] - jac_b[0, d])
                + unit[i, 1] * (jac_a[1, d] - jac_b[1, d])
                + unit[i, 2] * (jac_a[2, d] - jac_b[2, d])
            )
    solve_m(calls, minv_g, grads, n)
    for i in range(n):
        inv_mass = 0.0
        for d in range(grads.shape[1]):
            inv_mass += minv_g[i, d] * grads[i, d]
        inv_mass *= gain[i, G_MASS_FACTOR]  # soft equality constraints (1 on a tree of bodies)
        if ints[i, J_KIND] == KIND_PRESSURE:
            stiffness, damping = oil_column_stiffness(cps[i], hps[i], l_now[i]), 0.0
        else:
            stiffness, damping = gain[i, G_STIFFNESS], gain[i, G_DAMPING]
        if not (h * h * stiffness + 2.0 * h * damping) * inv_mass < 4.0:
            return False
    return True


@nb.njit(cache=True, error_model="numpy")
def run_loop(calls, h, n_check, data, tables, valve_inputs, loads, states, outputs):
    """Run ``n_steps`` steps (see the module docstring); the arrays come in tuples, each unpacked
    in one place (``_steps``, ``cylinder_forces``).

    ``calls``: ``MujocoCalls.as_tuple()``; ``data``: the views (site_xpos, cdof, subtree_com,
    qpos, qvel, qfrc_applied) of one ``MjData``; ``tables``: (chains, dof_parent, ints, cps, hps,
    gain, group_edges, pgroup_edges) as in ``cylinder_forces`` (``chains``, ``dof_parent``: the
    model's tables of :mod:`.point_forces`; ``ints``, ``cps``, ``hps``, ``gain``: the tables of
    :mod:`.cylinders`); ``valve_inputs``: (scale, ctrl, bleed, commands, bleed_table,
    regeneration, targets, target_rates): ``scale`` (n, 5) c_*·A^{−3/2} of the four main valves
    and c_b (u → û, (40)–(43)), ``ctrl`` (n, N_CTRL), ``bleed`` (n, N_BLEED): the tables above,
    then (n_steps, n) u_c of open-loop cylinders, u_b of tabled bleeds, u_a, the closed loops'
    targets and target rates; ``loads``: (sites, their bodies, forces, moments (n_steps, n_loads,
    3) [N, N m]); ``states``: (state, pump_states) as in ``cylinder_forces``; ``outputs``: (out
    (n_steps, n, N_OUT), qpos_out, qvel_out (n_steps, nq / nv)), the state at t_k.
    """
    out, _, qvel_out = outputs
    n = out.shape[1]
    nv = qvel_out.shape[1]
    # l_now, unit, uhs, raw: the pin lengths, pin-line unit vectors and openings of the step, then
    # the buffers work, ybuf, rates, partials, pump_state of cylinder_forces
    step_arrays = (
        np.empty(n),
        np.zeros((n, 3)),
        np.zeros((n, 5)),
        np.zeros((n, 6)),
        np.zeros((N_WORK, n)),
        np.zeros(2 * n + 1),
        np.zeros(2),
        np.zeros((2, 5)),
        np.zeros(2),
    )
    # u_c, the PI integrals, the sums of |u_c| per pump group (numbered by their first cylinder,
    # so fewer than n), then the buffers of _stable
    loop_buffers = (
        np.zeros(n),
        np.zeros(n),
        np.zeros(n),
        np.zeros((n, nv)),
        np.zeros((n, nv)),
        np.zeros((3, nv)),
        np.zeros((3, nv)),
    )
    return _steps(calls, h, n_check, data, tables, valve_inputs, loads, states, outputs, step_arrays, loop_buffers)


@nb.njit(cache=True, error_model="numpy")
def _steps(calls, h, n_check, data, tables, valve_inputs, loads, states, outputs, step_arrays, loop_buffers):
    """The time loop of ``run_loop`` with its buffers (allocated there, alive while this runs), on
    borrowed arrays (:mod:`actuatorlab.numerics.borrowed`): the step's kernels, inlined or
    called, count a reference to every array they are given, an atomic add per array and step
    on an owned array, a null test on a borrowed one. ``step_arrays``: the arrays of
    ``cylinder_forces``, the first four shared with this loop."""
    data = borrowed(data)
    tables = borrowed(tables)
    states = borrowed(states)
    step_arrays = borrowed(step_arrays)
    site_xpos, cdof, subtree_com, qpos, qvel, qfrc = data
    chains, dof_parent, ints, cps, hps, gain, _, _ = tables
    scale, ctrl, bleed, commands, bleed_table, regeneration, targets, target_rates = borrowed(valve_inputs)
    loads = borrowed(loads)
    out, qpos_out, qvel_out = borrowed(outputs)
    l_now, unit, uhs, raw, work, _, _, _, _ = step_arrays
    u, integral, group_sum, grads, minv_g, jac_a, jac_b = borrowed(loop_buffers)
    n_steps, n = commands.shape
    nv = qvel.shape[0]
    for i in range(n):
        work[W_K, i] = gain[i, G_STIFFNESS]
        work[W_B, i] = gain[i, G_DAMPING]
    for k in range(n_steps):
        step1(calls)
        pin_lengths(site_xpos, qpos, ints, gain, l_now, unit)
        if n_check > 0 and k > 0 and k % n_check == 0:
            if not _stable(calls, site_xpos, ints, cps, hps, gain, h, l_now, unit, grads, minv_g, jac_a, jac_b):
                return STATUS_OK, 0, k, k
        group_sum[:] = 0.0
        for i in range(n):
            mode = ctrl[i, CT_MODE]
            if mode == CTRL_OPEN:
                u[i] = commands[k, i]
            elif k % int(ctrl[i, CT_EVERY]) == 0:
                y = l_now[i] - ctrl[i, CT_L0] if mode == CTRL_STROKE else qpos[int(ctrl[i, CT_QPOS])]
                u[i], integral[i] = pi_step(
                    ctrl[i, CT_PI:], targets[k, i] - y, target_rates[k, i], integral[i], h * ctrl[i, CT_EVERY]
                )
            group_sum[int(bleed[i, B_GROUP])] += abs(u[i])
        for i in range(n):
            if bleed[i, B_AUTO] > 0.0:
                u_b = min(max(1.0 - group_sum[int(bleed[i, B_GROUP])] / bleed[i, B_SPAN], bleed[i, B_MIN]), 1.0)
            else:
                u_b = bleed_table[k, i]
            extend = max(u[i], 0.0)
            retract = max(-u[i], 0.0)
            uhs[i, 0] = extend * scale[i, 0]
            uhs[i, 1] = extend * scale[i, 1]
            uhs[i, 2] = retract * scale[i, 2]
            uhs[i, 3] = retract * scale[i, 3]
            uhs[i, 4] = u_b * scale[i, 4]
            raw[i, 0] = extend
            raw[i, 1] = extend
            raw[i, 2] = retract
            raw[i, 3] = retract
            raw[i, 4] = u_b
            raw[i, 5] = regeneration[k, i]
            out[k, i, O_COMMAND] = u[i]
            out[k, i, O_BLEED] = u_b
        qfrc[:] = 0.0
        status, which = cylinder_forces(h, k, data, tables, states, step_arrays, out)
        for d in range(qpos.shape[0]):  # element-wise: a row view costs an atomic reference count
            qpos_out[k, d] = qpos[d]
        for d in range(nv):
            qvel_out[k, d] = qvel[d]
        if status != STATUS_OK:
            return status, which, k, -1
        apply_loads(k, qfrc, cdof, subtree_com, chains, dof_parent, site_xpos, loads)
        step2(calls)
    return STATUS_OK, 0, n_steps, -1


@nb.njit(cache=True, inline="always", error_model="numpy")
def apply_loads(k, qfrc, cdof, subtree_com, chains, dof_parent, site_xpos, loads) -> None:
    """Add the external loads of step ``k`` to ``qfrc``: ``loads`` = (sites, their bodies,
    forces, moments (n_steps, n_loads, 3)), force [N] at each load's site, moment [N m] on its
    body (world frame; :mod:`.point_forces`)."""
    load_sites, load_bodies, load_forces, load_moments = loads
    for j in range(load_sites.shape[0]):
        body = load_bodies[j]
        site = load_sites[j]
        add_point_force(
            qfrc,
            cdof,
            subtree_com,
            chains,
            dof_parent,
            body,
            site_xpos[site, 0],
            site_xpos[site, 1],
            site_xpos[site, 2],
            load_forces[k, j, 0],
            load_forces[k, j, 1],
            load_forces[k, j, 2],
        )
        add_body_moment(
            qfrc,
            cdof,
            chains,
            dof_parent,
            body,
            load_moments[k, j, 0],
            load_moments[k, j, 1],
            load_moments[k, j, 2],
        )

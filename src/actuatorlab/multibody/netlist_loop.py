"""The compiled time loop of a MuJoCo model whose cylinders are joined to one hydraulic netlist.

Per step k (t_k = k·h, h = ``model.opt.timestep`` [s]):

1. ``mj_step1``; the pin lengths ℓ_k (``pin_lengths``); every ``n_check`` steps the closed-valve
   stability bound at the current pose (``loop._stable``);
2. the netlist's inputs of the step: the table's row (spool positions, pump speeds); the
   commands of the closed loops, sampled every ``CT_EVERY`` steps (the PI law of
   :mod:`actuatorlab.control.pi` on the stroke or joint error, as in :mod:`.loop`), into the
   spool positions each drives, through the spool's lag x_k = u + (x_{k−1} − u) e^{−h/τ}; and per
   cylinder its velocity and position inputs from the mechanics (per motor its speed: a motor
   is a rotary cylinder on its hinge, ℓ its angle, f its torque, :mod:`.netlist_machine`):

   - quasistatic: the rod is joined to the pins by the relaxation (K, B) of Kikuuwe et al.
     (68a); with β = B + hK and f̄ of algorithm (72) (``relaxation_terms_scalar``) the
     ``CoupledCylinder``'s input is the free velocity v̄ = −f̄/β, and one quasistatic solve of
     the network (1/β_oil = 0) gives the node pressures and the rod velocity
     v = v̄ + (A_h p_h − A_r p_r)/β together; p_k = p_{k−1} + h v;
   - pressure dynamics: the velocity (ℓ_k − ℓ_{k−1})/h and the position ℓ_k − ℓ₀, one
     backward-Euler step of the node pressures (``network_step``);

3. every cylinder force f = A_h p_h − A_r p_r [N] (equal to f̄ + β v in the quasistatic model),
   checked (``settle_force``) and applied to its pins (``apply_cylinder_force``), the external
   loads (``apply_loads``), then ``mj_step2``.

Returns (loop status, cylinder, step of the failure or n_steps, step of an unstable pose or −1,
network status, node): a failed network solve stops the loop with the network status of
:mod:`actuatorlab.hydraulics.circuits.kernels` and the node it names.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..hydraulics.circuits.kernels import OK, SCRATCH_ROWS
from ..hydraulics.circuits.solvers import network_step
from ..hydraulics.quasistatic.kernels import relaxation_terms_scalar
from ..numerics.borrowed import borrowed
from ..numerics.layout import Layout
from ..control.pi import pi_step
from ..numerics.status import MAX_STRETCH, STATUS_OK, STATUS_STRETCH
from .cylinders import G_DAMPING, G_STIFFNESS
from .kernels import O_FORCE, O_LENGTH, O_PH, O_PR, O_RATE, O_ROD, O_VEL, S_LENGTH, S_ROD
from .kernels import apply_cylinder_force, pin_lengths, settle_force
from .loop import CT_EVERY, CT_L0, CT_MODE, CT_PI, CT_QPOS, CTRL_OPEN, CTRL_STROKE, _stable, apply_loads
from .native import step1, step2

# columns of the link tables of the actuators (internal order): the integer table (their head and
# rod nodes, their velocity and position inputs; a motor: inlet and outlet, speed and −1) and
# the float table (A_h, A_r [m²] (a motor: its torque gain η_m i D/2π [m³/rad] twice), the
# retracted length ℓ₀ [m], the coupling 1/β [m/(s N)]: 0 in the pressure-dynamics model)
LINK_INTS = Layout("L_", "head", "rod", "velocity", "position")
(L_HEAD, L_ROD, L_VELOCITY, L_POSITION) = LINK_INTS.indices
LINK_FLOATS = Layout("F_", "head_area", "rod_area", "retracted", "admittance")
(F_HEAD_AREA, F_ROD_AREA, F_RETRACTED, F_ADMITTANCE) = LINK_FLOATS.indices


@nb.njit(cache=True, error_model="numpy")
def run_netlist_loop(
    calls, h, compressibility, n_check, data, tables, network, links, inputs, control, loads, states, outputs
):
    """Run ``n_steps`` steps (module docstring). ``calls``: ``MujocoCalls.as_tuple()``; ``h``:
    the step [s]; ``compressibility``: 1/β_oil [1/Pa] of the oil (0: quasistatic); ``data``: the views (site_xpos,
    cdof, subtree_com, qpos, qvel, qfrc_applied); ``tables``: (chains, dof_parent, ints, cps, hps,
    gain) of :mod:`.cylinders` and :mod:`.point_forces`; ``network``: (rows, volumes, gas, held)
    of the network; ``links``: (link_ints, link_floats) above; ``inputs``: the inputs table
    (n_steps, n_u); ``control``: (ctrl (n, N_CTRL) of :mod:`.loop`, targets and their rates
    (n_steps, n), driven (n, m): the input columns each actuator's loop drives, −1 past the last,
    decays (n_u,): e^{−h/τ} of each column's spool (0: none), commands (n_steps, n): the loops'
    commands out); ``loads``: (sites, their bodies, forces, moments (n_steps, n_loads, 3)
    [N, N m]); ``states``: (state (n, N_STATE), node pressures p (n_nodes,)); ``outputs``: (out
    (n_steps, n, N_OUT), qpos_out, qvel_out, p_out (n_steps, n_nodes), u_out (n_steps, n_u): the
    inputs as applied, a cylinder's velocity column its rod's velocity)."""
    n_nodes = states[1].size
    n = states[0].shape[0]
    nv = outputs[2].shape[1]
    buffers = (
        np.empty(n),
        np.zeros((n, 3)),
        np.empty((n_nodes + SCRATCH_ROWS, n_nodes)),
        np.empty(5),
        np.empty(n_nodes),
        np.zeros((n, nv)),
        np.zeros((n, nv)),
        np.zeros((3, nv)),
        np.zeros((3, nv)),
    )
    return _netlist_steps(
        calls,
        h,
        compressibility,
        n_check,
        data,
        tables,
        network,
        links,
        inputs,
        control,
        loads,
        states,
        outputs,
        buffers,
    )


@nb.njit(cache=True, error_model="numpy")
def _netlist_steps(
    calls, h, compressibility, n_check, data, tables, network, links, table, control, loads, states, outputs, buffers
):
    """The time loop of ``run_netlist_loop`` with its buffers, on borrowed arrays."""
    site_xpos, cdof, subtree_com, qpos, qvel, qfrc = borrowed(data)
    chains, dof_parent, ints, cps, hps, gain = borrowed(tables)
    rows, vols, gas, held = borrowed(network)
    link, coupling = borrowed(links)
    ctrl, targets, rates, driven, decays, commands = borrowed(control)
    loads = borrowed(loads)
    state, p = borrowed(states)
    out, qpos_out, qvel_out, p_out, u_out = borrowed(outputs)
    l_now, unit, work, dq, guess, grads, minv_g, jac_a, jac_b = borrowed(buffers)
    n_steps = table.shape[0]
    n = state.shape[0]
    n_nodes = p.size
    command = np.zeros(n)
    integral = np.zeros(n)
    for k in range(n_steps):
        step1(calls)
        pin_lengths(site_xpos, qpos, ints, gain, l_now, unit)
        if n_check > 0 and k > 0 and k % n_check == 0:
            if not _stable(calls, site_xpos, ints, cps, hps, gain, h, l_now, unit, grads, minv_g, jac_a, jac_b):
                return STATUS_OK, 0, k, k, OK, -1
        u = u_out[k]
        for j in range(table.shape[1]):
            u[j] = table[k, j]
        for i in range(n):
            mode = ctrl[i, CT_MODE]
            if mode == CTRL_OPEN:
                continue
            every = ctrl[i, CT_EVERY]
            if k % int(every) == 0:
                y = l_now[i] - ctrl[i, CT_L0] if mode == CTRL_STROKE else qpos[int(ctrl[i, CT_QPOS])]
                command[i], integral[i] = pi_step(
                    ctrl[i, CT_PI:], targets[k, i] - y, rates[k, i], integral[i], h * every
                )
            commands[k, i] = command[i]
            for j in range(driven.shape[1]):
                column = driven[i, j]
                if column < 0:
                    break
                last = u_out[k - 1, column] if k > 0 else command[i]
                u[column] = command[i] + (last - command[i]) * decays[column]
        for i in range(n):
            velocity = int(link[i, L_VELOCITY])
            position = int(link[i, L_POSITION])
            if coupling[i, F_ADMITTANCE] > 0.0:
                impedance, fbar = relaxation_terms_scalar(
                    gain[i, G_STIFFNESS], gain[i, G_DAMPING], h, state[i, S_ROD], state[i, S_LENGTH], l_now[i]
                )
                u[velocity] = -fbar / impedance
                moved = state[i, S_ROD]
            else:
                u[velocity] = (l_now[i] - state[i, S_LENGTH]) / h
                moved = l_now[i]
            if position >= 0:  # a motor has no position input
                u[position] = moved - coupling[i, F_RETRACTED]
        for j in range(n_nodes):
            guess[j] = 2.0 * p[j] - p_out[k - 2, j] if k > 1 else p[j]
        status, _, node = network_step(rows, vols, gas, held, compressibility, u, h, p, guess, work, dq)
        for j in range(n_nodes):
            p_out[k, j] = p[j]
        for d in range(qpos.shape[0]):
            qpos_out[k, d] = qpos[d]
        for d in range(qvel.shape[0]):
            qvel_out[k, d] = qvel[d]
        if status != OK:
            return STATUS_OK, 0, k, -1, status, node
        qfrc[:] = 0.0
        for i in range(n):
            p_head = p[int(link[i, L_HEAD])]
            p_rod = p[int(link[i, L_ROD])]
            f = coupling[i, F_HEAD_AREA] * p_head - coupling[i, F_ROD_AREA] * p_rod
            velocity = int(link[i, L_VELOCITY])
            if coupling[i, F_ADMITTANCE] > 0.0:
                u[velocity] += f * coupling[i, F_ADMITTANCE]
                state[i, S_ROD] += h * u[velocity]
                out[k, i, O_ROD] = state[i, S_ROD]
                if abs(state[i, S_ROD] - l_now[i]) > MAX_STRETCH:
                    return STATUS_STRETCH, i, k, -1, OK, -1
            out[k, i, O_VEL] = u[velocity]
            out[k, i, O_LENGTH] = l_now[i]
            out[k, i, O_RATE] = (l_now[i] - state[i, S_LENGTH]) / h
            out[k, i, O_FORCE] = f
            out[k, i, O_PH] = p_head
            out[k, i, O_PR] = p_rod
            loop_status = settle_force(i, f, l_now[i], state, cps, gain)
            if loop_status != STATUS_OK:
                return loop_status, i, k, -1, OK, -1
            apply_cylinder_force(qfrc, cdof, subtree_com, chains, dof_parent, site_xpos, ints, unit, i, f)
        apply_loads(k, qfrc, cdof, subtree_com, chains, dof_parent, site_xpos, loads)
        step2(calls)
    return STATUS_OK, 0, n_steps, -1, OK, -1

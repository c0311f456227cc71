"""The crane's closed loop, written once for its two plants (Petrović & Mattila Sec. 7).

Per controller sample k (time step dt [s] of the reference): VDC reads the recorded state
(``control.vdc.controller_step``) and gives the valve inputs u, held over the sample; the plant
advances by dt; its state is recorded as sample k + 1 and checked: a non-finite value or a
plant that reports failure is ``STATUS_DIVERGED``, a coordinate outside its range (a piston
outside its stroke) ``STATUS_LEFT_WORKSPACE``. ``closed_loop`` runs the samples k0 … k1 − 1, so
the driver (``crane.simulate_crane``) can report progress between chunks; the plant and the
controller's filter state carry over.

Record: y = [q, q̇, p_a, p_b, u_spool] (5 m) [rad or m, per s, Pa, Pa, input units], x (m,) the
piston strokes [m]; coordinate (actuator) order of the manipulator. Forces > 0 push a piston
out (``hydraulics.servo_cylinder``).

A plant is anything ``plant_record`` and ``plant_advance`` accept:

- the native plant (``native_plant``, a tuple of arrays): the crane's forward dynamics and its
  hydraulics integrated together by ``numerics.rk4.rk4_step`` of the full state, ``substeps``
  steps per sample. ``closed_loop`` is compiled and cached for it: the two plant functions have
  numba overloads for the tuple, so the loop is one compiled kernel.
- the MuJoCo plant (``MujocoHydraulicPlant``): MuJoCo integrates the rigid multibody with its
  closed loops (``mechanics.mujoco_model.MujocoCranePlant``), this object the hydraulic state
  z = [p_a, p_b, u_spool] along the motion MuJoCo produced. It runs ``closed_loop.py_func``: a
  Python loop around mj_step and the same compiled kernels.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np
from numba import types
from numba.extending import overload

from ..control.vdc import controller_step
from ..hydraulics.servo_cylinder import (
    F_V,
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
from ..numerics.copying import copy_into
from ..numerics.rk4 import rk4_step
from ..numerics.status import STATUS_DIVERGED, STATUS_LEFT_WORKSPACE, STATUS_OK


# ---------------------------------------------------------------------------------------------
# the loop
# ---------------------------------------------------------------------------------------------
def plant_record(plant, y, x) -> None:
    """Write the plant's current state into the record row ``y`` (5 m,) and its piston strokes
    into ``x`` (m,). Python: ``plant.record(y, x)``; compiled: the native plant."""
    plant.record(y, x)


def plant_advance(plant, u) -> int:
    """Advance the plant by one controller sample with the valve inputs ``u`` held; return a
    status (``STATUS_OK`` or ``STATUS_DIVERGED``). Python: ``plant.advance(u)``; compiled: the
    native plant."""
    return plant.advance(u)


@nb.njit(cache=True)
def _vdc_sample(ctrl, filt, q, qd, pa, pb, k, q_d, qd_d, qdd_d, work_r, work_m, scratch, u, out_u, out_ctrl, out_tip):
    """One controller sample: ``controller_step`` at reference sample k, valve inputs into ``u``,
    and the sample recorded. ``ctrl``: the controller tuple of ``controller_step``."""
    controller_step(ctrl, filt, q, qd, pa, pb, q_d[k], qd_d[k], qdd_d[k], work_r, work_m, scratch, k == 0, u)
    out_u[k] = u
    out_ctrl[k] = scratch
    seg = ctrl[0]
    out_tip[k] = work_m[4][seg.shape[0] - 1, EXIT]


@nb.njit(cache=True)
def _check_sample(y, limits):
    """Status of a recorded row y: every value finite, the coordinates within ``limits`` (m, 2)."""
    for i in range(y.size):
        if not math.isfinite(y[i]):
            return STATUS_DIVERGED
    for i in range(limits.shape[0]):
        if y[i] < limits[i, 0] or y[i] > limits[i, 1]:
            return STATUS_LEFT_WORKSPACE
    return STATUS_OK


@nb.njit(cache=True)
def closed_loop(plant, controller, filt, reference, limits, k0, k1, out):
    """VDC and ``plant`` over the reference samples k0 … k1 − 1; returns (status, last sample).

    ``controller``: the tuple of ``_vdc_sample``; ``filt`` (m, 2) the ḟ_pr filters' state
    (updated in place); ``reference`` = (q_d, q̇_d, q̈_d) (n, m); ``limits`` (m, 2) the
    coordinate ranges; ``out`` = (y (n, 5 m), x (n, m), u (n, m), controller rows (n, 8, m),
    tool tip (n, 3)), written at the samples run.
    """
    out_y, out_x, out_u, out_ctrl, out_tip = out
    q_d, qd_d, qdd_d = reference
    seg = controller[0]
    m = limits.shape[0]
    n_steps = q_d.shape[0]
    u = np.zeros(m)
    work_r, work_m = new_work(seg.shape[0]), new_work(seg.shape[0])
    scratch = np.zeros((8, m))
    plant_record(plant, out_y[k0], out_x[k0])
    for k in range(k0, k1):
        y = out_y[k]
        _vdc_sample(
            controller,
            filt,
            y[:m],
            y[m : 2 * m],
            y[2 * m : 3 * m],
            y[3 * m : 4 * m],
            k,
            q_d,
            qd_d,
            qdd_d,
            work_r,
            work_m,
            scratch,
            u,
            out_u,
            out_ctrl,
            out_tip,
        )
        if k == n_steps - 1:
            break
        status = plant_advance(plant, u)
        plant_record(plant, out_y[k + 1], out_x[k + 1])
        if status == STATUS_OK:
            status = _check_sample(out_y[k + 1], limits)
        if status != STATUS_OK:
            return status, k + 1
    return STATUS_OK, k1


# ---------------------------------------------------------------------------------------------
# native plant: forward dynamics and hydraulics, RK4 of the full state
# ---------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def plant_rhs(t, y, dy, seg, inert, trf, base, cyl, valve, fric, u_cmd, work, scratch):
    """ẏ of the state y = [q, q̇, p_a, p_b, u_spool] (5 m) at held valve command u_cmd (the
    time t [s] does not enter); scratch (4, m) holds [x, ẋ, f_c, q̈] afterwards."""
    m = u_cmd.size
    x, xd, fc, qdd = scratch[0], scratch[1], scratch[2], scratch[3]
    piston_states(seg, y[:m], y[m : 2 * m], x, xd)
    hydraulic_rates(cyl, valve, u_cmd, x, xd, y[2 * m :], dy[2 * m :])
    for i in range(m):
        fc[i] = piston_force(cyl[i], y[2 * m + i], y[3 * m + i]) - friction_force(fric[i], xd[i])
    forward_dynamics(seg, inert, trf, base, y[:m], y[m : 2 * m], fc, np.zeros(6), qdd, work)
    for i in range(m):
        dy[i] = y[m + i]
        dy[m + i] = qdd[i]


def native_plant(crane: ParallelSerialManipulator, packed_hydraulics, y0, substeps: int, h: float) -> tuple:
    """The native plant at state y0 (5 m,) (copied): ``substeps`` RK4 steps of h [s] per sample.
    ``packed_hydraulics`` = ``CraneHydraulics.packed()``."""
    seg, inert, trf, base = crane.arrays
    cyl, valve, fric = packed_hydraulics
    y = np.array(y0, dtype=float)
    k1, k2, k3, k4, tmp = (np.empty_like(y) for _ in range(5))
    m = y.size // 5
    return (
        seg,
        inert,
        trf,
        base,
        cyl,
        valve,
        fric,
        y,
        int(substeps),
        float(h),
        new_work(seg.shape[0]),
        np.zeros((4, m)),
        k1,
        k2,
        k3,
        k4,
        tmp,
        np.empty(m),
    )


@overload(plant_record)
def _native_record(plant, y, x):
    if isinstance(plant, types.BaseTuple):

        def impl(plant, y, x):
            seg, state, xd = plant[0], plant[7], plant[17]
            m = x.size
            copy_into(y, state)
            piston_states(seg, state[:m], state[m : 2 * m], x, xd)

        return impl
    return None


@overload(plant_advance)
def _native_advance(plant, u):
    if isinstance(plant, types.BaseTuple):

        def impl(plant, u):
            seg, inert, trf, base, cyl, valve, fric, y, substeps, h, work, scratch, k1, k2, k3, k4, tmp, xd = plant
            args = (seg, inert, trf, base, cyl, valve, fric, u, work, scratch)
            for _step in range(substeps):
                rk4_step(plant_rhs, args, 0.0, y, h, k1, k2, k3, k4, tmp)
            return STATUS_OK

        return impl
    return None


# ---------------------------------------------------------------------------------------------
# MuJoCo plant: MuJoCo's multibody, the hydraulic state integrated along its motion
# ---------------------------------------------------------------------------------------------
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
        c = (friction_force(fric[i], xd[i] + eps) - friction_force(fric[i], xd[i] - eps)) / (2.0 * eps)
        damping[i] = c
        f_p = piston_force(cyl[i], z[i] + 0.5 * h * dz0[i], z[m + i] + 0.5 * h * dz0[m + i])
        force[i] = f_p - friction_force(fric[i], xd[i]) + c * xd[i]


@nb.njit(cache=True)
def _hydraulic_rhs_along(t, z, dz, cyl, valve, u_cmd, x0, xd0, x1, xd1, h, x, xd):
    """ż at time t ∈ [0, h] [s] of a MuJoCo step, the strokes and rates linear between
    (x0, ẋ0) at its start and (x1, ẋ1) at its end; x, ẋ (m,) are scratch."""
    s = t / h
    for i in range(x.size):
        x[i] = (1.0 - s) * x0[i] + s * x1[i]
        xd[i] = (1.0 - s) * xd0[i] + s * xd1[i]
    hydraulic_rates(cyl, valve, u_cmd, x, xd, z, dz)


@nb.njit(cache=True)
def _hydraulics_rk4(cyl, valve, u_cmd, x0, xd0, x1, xd1, z, h, stages):
    """One RK4 step of h [s] of the hydraulic state z (in place) along the piston motion of the
    MuJoCo step just taken; ``stages`` = (k1, k2, k3, k4, tmp, x, ẋ) scratch."""
    k1, k2, k3, k4, tmp, x, xd = stages
    rk4_step(_hydraulic_rhs_along, (cyl, valve, u_cmd, x0, xd0, x1, xd1, h, x, xd), 0.0, z, h, k1, k2, k3, k4, tmp)


class MujocoHydraulicPlant:
    """The crane's plant with MuJoCo integrating the mechanics: per MuJoCo step of h = dt /
    ``substeps`` [s], the actuator forces from the hydraulic state z (``_mujoco_step_forces``),
    mj_step (``MujocoCranePlant.step``), then RK4 of z along the piston motion MuJoCo produced.
    ``loop_violation`` holds the largest loop-constraint residual [m] seen at the end of a sample.
    """

    def __init__(
        self, crane: ParallelSerialManipulator, packed_hydraulics, q0, z0, dt: float, substeps: int, integrator: str
    ) -> None:
        from ..mechanics.mujoco_model import MujocoCranePlant

        self.h = dt / substeps
        self.mechanics = MujocoCranePlant(crane, q0, self.h, integrator)
        self.cyl, self.valve, self.fric = packed_hydraulics
        self.z = np.array(z0, dtype=float)
        self.substeps = substeps
        m = self.cyl.shape[0]
        self._dz0, self._force, self._damping = np.empty(3 * m), np.empty(m), np.empty(m)
        self._stages = tuple(np.empty(3 * m) for _ in range(5)) + (np.empty(m), np.empty(m))
        self.loop_violation = 0.0

    def record(self, y, x) -> None:
        q, qd = self.mechanics.coordinates()
        m = q.size
        y[:m], y[m : 2 * m], y[2 * m :] = q, qd, self.z
        x[:] = self.mechanics.strokes()[0]

    def advance(self, u) -> int:
        x, xd = self.mechanics.strokes()
        for _ in range(self.substeps):
            _mujoco_step_forces(
                self.cyl, self.valve, self.fric, u, x, xd, self.z, self.h, self._dz0, self._force, self._damping
            )
            self.mechanics.step(self._force, self._damping)
            x1, xd1 = self.mechanics.strokes()
            _hydraulics_rk4(self.cyl, self.valve, u, x, xd, x1, xd1, self.z, self.h, self._stages)
            x, xd = x1, xd1
        self.loop_violation = max(self.loop_violation, self.mechanics.loop_violation())
        return STATUS_DIVERGED if self.mechanics.diverged() else STATUS_OK

"""An MJCF model with hydraulic cylinders attached to its sites or slide joints, stepped with MuJoCo.

``HydraulicMujocoSystem`` loads the model, packs its cylinders (:mod:`.cylinders`; signs there:
f > 0 pushes the pins apart, v, ℓ̇ > 0 extend) and drives the run: one call of the compiled
loop of ``multibody.loop``, which per MuJoCo step k (t_k = k·h, h = ``model.opt.timestep`` [s])
calls ``mj_step1``, samples the valve commands and closed loops, writes the pin forces and the
loads, and calls ``mj_step2``. The model must use the Euler or an implicit integrator (MuJoCo's
RK4 cannot be split into step1/step2). A run starts with ``mj_resetData`` (then the given qpos,
qvel), zeroes ``data.xfrc_applied`` and overwrites ``data.qfrc_applied`` each step (the
cylinders' and loads' generalized forces): give external forces as ``SiteLoad``.

Stability (:mod:`.stability`) is checked before a run at the initial pose and every
``check_interval`` = 50 ms of simulated time along it, since the effective masses change with the
pose; the loop evaluates all effective masses at once (one ``mj_solveM`` on the stacked gradients,
from the mass-matrix factor ``mj_step1`` has just computed) and stops at a pose that violates the
bound, which the driver then names. Consistent initial states (:mod:`.holding`) come from
``mj_inverse`` at rest. A failed step returns a status of :mod:`actuatorlab.numerics.status`;
``simulate`` raises one ``SimulationError`` naming the actuator, the time, the cause and the remedy.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence

import mujoco
import numpy as np

from ..errors import ParameterError, SimulationError
from ..hydraulics.pressure_dynamics import holding_pressures, idle_pump_pressure
from ..hydraulics.quasistatic.network import new_pump_state
from ..numerics.status import LoopStatus
from ..simulation.result import Channel, SimulationResult
from ..validation import positive
from .cylinders import (
    G_MAX_LENGTH,
    G_MIN_LENGTH,
    G_OFFSET,
    J_BASE_SITE,
    J_DOF,
    J_KIND,
    J_QPOS,
    J_ROD_SITE,
    KIND_PRESSURE,
    Cylinder,
    PressureCylinder,
    QuasistaticCylinder,
    Signal,
    SiteLoad,
    pack_cylinders,
    site_id,
)
from .holding import InitialState, holding_state
from .closed_loop import ClosedLoop, control_tables
from .inputs import initial_load, load_model, sample_inputs, sample_signal, valve_scale
from .open_centre import OpenCentreBleed
from .kernels import (
    MAX_STRETCH,
    N_OUT,
    N_STATE,
    O_BLEED,
    O_COMMAND,
    O_FORCE,
    O_LENGTH,
    O_PH,
    O_PR,
    O_PUMP,
    O_RATE,
    O_RELIEF,
    O_ROD,
    O_SUPPLY_FLOW,
    O_VEL,
    S_LENGTH,
    S_PH,
    S_PUMP,
    S_ROD,
)
from .loop import B_AUTO, run_loop
from .native import MujocoCalls
from .point_forces import body_chains, dof_parents
from .stability import ActuatorStability, closed_valve_bound, stability_limits, unstable_error


class HydraulicMujocoSystem:
    """An MJCF model with hydraulic cylinders attached to its sites or slide joints.

    ``model``: an ``MjModel``, an MJCF path or XML string; ``actuators``: ``QuasistaticCylinder``
    and ``PressureCylinder`` objects with distinct names. The time step is the model's
    ``opt.timestep`` [s].
    """

    def __init__(self, model, actuators: Sequence[Cylinder]):
        self.model = load_model(model)
        self.data = mujoco.MjData(self.model)
        if self.model.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4:
            raise ParameterError(
                "the model uses the RK4 integrator, which MuJoCo cannot split into mj_step1/mj_step2: "
                'set <option integrator="Euler"/> (or implicitfast)'
            )
        arrays = pack_cylinders(self.model, actuators)
        self.arrays = arrays
        self.actuators: list[Cylinder] = list(arrays.actuators)
        self.networks = arrays.networks
        self.group_edges, self.pgroup_edges = arrays.group_edges, arrays.pgroup_edges
        self.ints, self.gain, self.cps, self.hps = arrays.ints, arrays.gain, arrays.cps, arrays.hps
        self.index = {a.name: i for i, a in enumerate(self.actuators)}
        # index arrays of the (vectorised) gradient and stability evaluations
        self._joints = np.flatnonzero(self.ints[:, J_QPOS] >= 0)
        self._site_rows = [
            (int(i), int(self.ints[i, J_ROD_SITE]), int(self.ints[i, J_BASE_SITE]))
            for i in np.flatnonzero(self.ints[:, J_QPOS] < 0)
        ]
        self._pressure = np.flatnonzero(self.ints[:, J_KIND] == KIND_PRESSURE)
        self._jac = np.empty((2, 3, self.model.nv))

    # -- helpers ------------------------------------------------------------------------------
    @property
    def timestep(self) -> float:
        """MuJoCo's time step h = ``model.opt.timestep`` [s], the cylinders' step too."""
        return float(self.model.opt.timestep)

    def site_id(self, name: str, who: str = "") -> int:
        """The id of site ``name``; ``ParameterError`` listing the model's sites if unknown."""
        return site_id(self.model, name, who)

    def set_pose(self, qpos=None, qvel=None) -> None:
        """Reset the data to ``qpos`` (default the model's qpos0) and ``qvel`` (default 0), then
        ``mj_forward``."""
        mujoco.mj_resetData(self.model, self.data)
        if qpos is not None:
            qpos = np.asarray(qpos, dtype=np.float64).ravel()
            if qpos.shape != (self.model.nq,):
                raise ParameterError(f"qpos has {qpos.size} entries; the model has nq = {self.model.nq}")
            self.data.qpos[:] = qpos
        if qvel is not None:
            qvel = np.asarray(qvel, dtype=np.float64).ravel()
            if qvel.shape != (self.model.nv,):
                raise ParameterError(f"qvel has {qvel.size} entries; the model has nv = {self.model.nv}")
            self.data.qvel[:] = qvel
        mujoco.mj_forward(self.model, self.data)

    def length_gradients(self) -> tuple[np.ndarray, np.ndarray]:
        """(ℓ (n,) [m], G (nv, n)): lengths and dℓ/dq columns at the current data (after mj_forward
        or mj_step1). A slide-joint actuator has ℓ = qpos + offset and the unit column of its dof."""
        lengths, grads_t = self._gradients_t()
        return lengths, grads_t.T

    def _gradients_t(self) -> tuple[np.ndarray, np.ndarray]:
        """(ℓ (n,), Gᵀ (n, nv) C-contiguous) at the current data."""
        model, data = self.model, self.data
        lengths = np.empty(len(self.actuators))
        grads_t = np.zeros((len(self.actuators), model.nv))
        joints = self._joints
        if joints.size:
            lengths[joints] = data.qpos[self.ints[joints, J_QPOS]] + self.gain[joints, G_OFFSET]
            grads_t[joints, self.ints[joints, J_DOF]] = 1.0
        jac_a, jac_b = self._jac
        xpos = data.site_xpos
        for i, rod, base in self._site_rows:
            d = xpos[rod] - xpos[base]
            length = math.sqrt(d @ d)
            lengths[i] = length
            mujoco.mj_jacSite(model, data, jac_a, None, rod)
            mujoco.mj_jacSite(model, data, jac_b, None, base)
            np.subtract(jac_a, jac_b, out=jac_a)
            np.dot(d / length, jac_a, out=grads_t[i])
        return lengths, grads_t

    def _check_lengths(self, lengths) -> None:
        for i, a in enumerate(self.actuators):
            lo, hi = self.gain[i, G_MIN_LENGTH], self.gain[i, G_MAX_LENGTH]
            if lo <= lengths[i] <= hi:
                continue
            which = (
                "shorter than its minimum (fully retracted)"
                if lengths[i] < lo
                else "longer than its maximum (fully extended)"
            )
            stroke = f", stroke {hi - lo:.6g} m" if math.isfinite(hi - lo) else ""
            raise SimulationError(
                f"actuator {a.name!r}: the pin-to-pin length at the initial pose is ℓ = {lengths[i]:.6g} m, {which} "
                f"length: the cylinder spans [{lo:.6g}, {hi:.6g}] m{stroke}; change the initial pose, the pins or "
                "the cylinder's retracted length and stroke"
            )

    # -- stability ----------------------------------------------------------------------------
    def _bound(self) -> tuple[np.ndarray, ...]:
        """The closed-valve bound at the current data (after mj_forward or mj_step1), vectorised
        over the actuators: (1/m, K, B, stable) arrays (n,), with 1/m = gᵀM⁻¹g from one
        ``mj_solveM`` on the stacked gradients (``stability.closed_valve_bound``)."""
        lengths, grads_t = self._gradients_t()
        minv_g = np.empty_like(grads_t)
        mujoco.mj_solveM(self.model, self.data, minv_g, grads_t)
        inv_mass = np.einsum("ij,ij->i", minv_g, grads_t)
        return closed_valve_bound(self.arrays, self._pressure, self.timestep, lengths, inv_mass)

    def _limits(self, *bound) -> list[ActuatorStability]:
        return stability_limits([a.name for a in self.actuators], self.timestep, *bound)

    def stability(self, qpos=None) -> list[ActuatorStability]:
        """Closed-valve stability of every cylinder at ``qpos`` (see :mod:`.stability`)."""
        self.set_pose(qpos)
        return self._limits(*self._bound())

    def _unstable_error(self, lim: ActuatorStability, when: str) -> SimulationError:
        return unstable_error(self.actuators[self.index[lim.name]], lim, self.timestep, when)

    def check_stability(self, qpos=None) -> list[ActuatorStability]:
        """``stability``; raises ``SimulationError`` naming the first unstable cylinder and a stable K."""
        limits = self.stability(qpos)
        for lim in limits:
            if not lim.stable:
                raise self._unstable_error(lim, "at the initial pose")
        return limits

    def _check_running(self, time_: float) -> None:
        """The bound at the current data during a run (after mj_step1); raises naming ``time_``."""
        bound = self._bound()
        if not np.all(bound[3]):
            lim = self._limits(*bound)[int(np.argmin(bound[3]))]
            raise self._unstable_error(lim, f"at the pose reached at t = {time_:.6g} s")

    # -- consistent initialisation -------------------------------------------------------------
    def _load_torque(self, load_sites, load_values) -> np.ndarray:
        tau = np.zeros(self.model.nv)
        for site, (force, moment) in zip(load_sites, load_values):
            body = int(self.model.site_bodyid[site])
            mujoco.mj_applyFT(
                self.model,
                self.data,
                np.asarray(force, dtype=np.float64),
                np.asarray(moment, dtype=np.float64),
                self.data.site_xpos[site].copy(),
                body,
                tau,
            )
        return tau

    def holding_forces(self, qpos=None, loads: Sequence[SiteLoad] = ()) -> tuple[np.ndarray, float, np.ndarray]:
        """(f (n,) [N], residual, ℓ (n,) [m]): cylinder forces holding ``qpos`` at rest under gravity,
        passive forces and the site ``loads`` at t = 0 (internal actuator order, see ``self.actuators``)."""
        self.set_pose(qpos)
        lengths, grads = self.length_gradients()
        self.data.qacc[:] = 0.0
        mujoco.mj_inverse(self.model, self.data)
        # the force that holds the pose without the equality constraints (a closed chain's connects,
        # a weld to the ground), which carry their share through unknown forces λ instead of the
        # soft-constraint forces mj_inverse gives them; joint limits and contacts stay as they were
        jacobian, inverse_forces = equality_rows(self.model, self.data)
        tau = self.data.qfrc_inverse + jacobian.T @ inverse_forces - self.data.qfrc_applied
        sites = [self.site_id(load.site) for load in loads]
        forces0 = [initial_load(load) for load in loads]
        tau -= self._load_torque(sites, forces0)
        system = np.hstack([grads, jacobian.T])
        solution, *_ = np.linalg.lstsq(system, tau, rcond=None)
        _check_determined(system, len(self.actuators), [a.name for a in self.actuators])
        residual = float(np.linalg.norm(system @ solution - tau))
        return solution[: len(self.actuators)], residual, lengths

    def initial_state(
        self,
        qpos=None,
        loads: Sequence[SiteLoad] = (),
        bleed0: Mapping[str, float] | None = None,
        residual_tolerance: float = 1e-6,
    ) -> InitialState:
        """The consistent initial state at rest at ``qpos`` (see :mod:`.holding`). ``bleed0``
        [-]: the bleed openings at t = 0 (pump-line idle pressure of pressure cylinders).

        Raises ``SimulationError`` when no physical holding state exists: a cylinder would need a
        force beyond its chamber reliefs, a degree of freedom the cylinders cannot hold has an
        unbalanced load (relative residual > ``residual_tolerance``), or K = 0 with a load.
        """
        forces, residual, lengths = self.holding_forces(qpos, loads)
        self._check_lengths(lengths)
        scale = max(float(np.linalg.norm(self.data.qfrc_inverse)), 1.0)
        if residual > residual_tolerance * scale:
            raise SimulationError(
                f"the cylinders cannot hold the initial pose: the least-squares cylinder forces leave an unbalanced "
                f"generalised force of {residual:.4g} (N or N m) on degrees of freedom they do not act on; give a "
                "pose where those degrees of freedom are in equilibrium (or constrained)"
            )
        return holding_state(self.actuators, forces, residual, lengths, dict(bleed0 or {}))

    # -- simulation ---------------------------------------------------------------------------
    def pump_groups(self) -> np.ndarray:
        """(n,) the pump group of each cylinder (internal order): one per own pump, constant
        supply or pressure line, one per shared quasistatic pump."""
        groups = np.arange(len(self.actuators))
        for edges in (self.pgroup_edges, self.group_edges):
            for s, e in zip(edges[:-1], edges[1:]):
                groups[s:e] = s
        return groups

    def simulate(
        self,
        duration: float,
        valve_commands: Mapping[str, Signal],
        bleed: Mapping[str, Signal | OpenCentreBleed] | Signal | OpenCentreBleed = 0.0,
        loads: Sequence[SiteLoad] = (),
        qpos=None,
        qvel=None,
        consistent: bool = True,
        regeneration: Mapping[str, Signal] | None = None,
        check: bool = True,
        check_interval: float | None = 0.05,
        controllers: Mapping[str, ClosedLoop] | None = None,
    ) -> SimulationResult:
        """Step the model for ``duration`` [s] on t_k = k·h, k = 0 … round(duration/h).

        ``valve_commands``: u_c ∈ [−1, 1] per actuator name (67) (> 0 extends); missing names
        are held closed (u_c = 0). ``controllers``: a ``ClosedLoop`` per actuator name, whose
        PI controller sets that cylinder's u_c instead (sampled every ``sample_time``, a multiple
        of h). ``bleed``: u_b ∈ [0, 1] or an ``OpenCentreBleed``, one for all or one per name
        (equal within a pump group). ``loads``: external site forces [N] and moments [N m].
        ``qpos``, ``qvel``: initial state (default the model's qpos0, at rest). ``consistent``:
        start from the holding state of ``initial_state`` (at rest only); otherwise every relaxed
        element starts unstretched (p = ℓ, the paper's p(0) = ℓ(0)) and every pressure cylinder
        from the holding pressures. ``regeneration``: u_a per pressure cylinder (default 0).
        ``check``: refuse an unstable K/B/step at the initial pose (``check_stability``) and,
        every ``check_interval`` [s] of simulated time (None: only at the start), at the current
        pose, where the effective masses have changed along the motion (a violation raises
        ``SimulationError`` naming the time, the actuator, its effective mass and a stable K/B);
        with False the run goes on and a divergence (chattering force, runaway stretch,
        non-finite state) raises ``SimulationError`` when it shows.

        Returns a ``SimulationResult`` with channels ``qpos_<i>``, ``qvel_<i>`` (state at t_k,
        before step k) and per actuator ``<name>.valve_command`` u_c, ``.bleed`` u_b,
        ``.length`` ℓ [m], ``.length_rate`` (ℓ_k − ℓ_{k−1})/h [m/s], ``.force`` f [N],
        ``.supply_flow`` [m³/s] (the flow its pump or supply feeds it), and ``.rod_position`` p
        [m], ``.rod_velocity`` v [m/s] (quasistatic) or ``.head_pressure``, ``.rod_pressure``
        [Pa]; ``.pump_pressure`` [Pa] (pump or supply pressure) and ``.pump_relief_flow``
        [m³/s] (flow through the pump relief valve; none at a constant supply); counters
        ``loop_time_s`` and ``real_time_factor``.
        """
        h = self.timestep
        n = round(positive("duration", duration, "s") / h) + 1
        n_check = 0
        if check and check_interval is not None:
            n_check = max(1, round(positive("check_interval", check_interval, "s") / h))
        t = np.arange(n) * h
        u_c, u_b, bleed_table, u_a = sample_inputs(
            self.actuators, self.pump_groups(), t, valve_commands, bleed, regeneration
        )
        ctrl, targets, rates = control_tables(self, controllers or {}, t)
        load_sites, load_bodies, load_forces, load_moments = self.sample_loads(loads, t)

        # initial state
        if check:
            self.check_stability(qpos)
        n_act = len(self.actuators)
        state = np.zeros((n_act, N_STATE))
        bleed0 = {
            a.name: (float(u_b[0, i]) if bleed_table[i, B_AUTO] == 0.0 else 1.0) for i, a in enumerate(self.actuators)
        }
        if consistent:
            if qvel is not None and np.any(np.asarray(qvel) != 0.0):
                raise ParameterError("consistent initialisation holds the machine at rest: give qvel = None or zeros")
            init = self.initial_state(qpos, loads, bleed0)
        self.set_pose(qpos, qvel)
        lengths, grads = self.length_gradients()
        self._check_lengths(lengths)
        rates0 = grads.T @ self.data.qvel
        state[:, S_ROD] = lengths
        state[:, S_LENGTH] = lengths - h * rates0
        for i, a in enumerate(self.actuators):
            if isinstance(a, PressureCylinder):
                if consistent:
                    state[i, S_PH : S_PUMP + 1] = init.pressures[a.name]
                else:
                    # hold against the generalised load mapped onto this cylinder alone
                    forces, _, _ = self.holding_forces(qpos, loads)
                    self.set_pose(qpos, qvel)
                    p_h, p_r = holding_pressures(a.circuit, float(forces[i]), a.initial_low_pressure)
                    state[i, S_PH : S_PUMP + 1] = p_h, p_r, idle_pump_pressure(a.circuit, bleed0[a.name])
            elif consistent:
                state[i, S_ROD] = lengths[i] + init.stretch[a.name]
        pump_states = np.array([new_pump_state(net) for net in self.networks.values()]).reshape(-1, 2)
        out = np.full((n, n_act, N_OUT), np.nan)
        qpos_out = np.empty((n, self.model.nq))
        qvel_out = np.empty((n, self.model.nv))
        scale = np.array([valve_scale(a.circuit) for a in self.actuators]).reshape(n_act, 5)

        model, data = self.model, self.data
        calls = MujocoCalls.of(model, data).as_tuple()
        chains, dof_parent = body_chains(model), dof_parents(model)
        data.xfrc_applied[:] = 0.0  # every force goes through qfrc_applied

        def loop(steps, states):
            return run_loop(
                calls,
                h,
                n_check,
                (data.site_xpos, data.cdof, data.subtree_com, data.qpos, data.qvel, data.qfrc_applied),
                (chains, dof_parent, self.ints, self.cps, self.hps, self.gain, self.group_edges, self.pgroup_edges),
                (scale, ctrl, bleed_table, *(a[:steps] for a in (u_c, u_b, u_a, targets, rates))),
                (load_sites, load_bodies, load_forces[:steps], load_moments[:steps]),
                states,
                tuple(a[:steps] for a in (out, qpos_out, qvel_out)),
            )

        # compile (or load from the cache) outside the timed loop: one step on copies, then reset
        t0 = time.perf_counter()
        loop(1, (state.copy(), pump_states.copy()))
        compile_time = time.perf_counter() - t0
        out[:] = np.nan
        self.set_pose(qpos, qvel)
        t0 = time.perf_counter()
        status, which, k_fail, k_unstable = loop(n, (state, pump_states))
        loop_time = time.perf_counter() - t0
        if k_unstable >= 0:
            self._check_running(float(t[k_unstable]))
        if status != LoopStatus.OK:
            self._raise_failure(status, which, t[k_fail], out[k_fail, which])
        if not (np.all(np.isfinite(qpos_out)) and np.all(np.isfinite(qvel_out))):
            k = int(np.argmax(~np.isfinite(qpos_out).all(axis=1) | ~np.isfinite(qvel_out).all(axis=1)))
            raise SimulationError(
                f"the MuJoCo state became non-finite at t = {t[k]:.4g} s: reduce the timestep "
                "or the relaxation stiffness"
            )
        return self._result(t, qpos_out, qvel_out, out, loop_time, compile_time)

    def sample_loads(self, loads: Sequence[SiteLoad], t: np.ndarray) -> tuple[np.ndarray, ...]:
        """(sites, their bodies, forces, moments (len(t), n_loads, 3) [N, N m]) of ``loads`` on
        the grid ``t``, as the compiled loops take them."""
        sites = np.array([self.site_id(load.site) for load in loads], dtype=np.int64)
        bodies = np.array([int(self.model.site_bodyid[s]) for s in sites], dtype=np.int64)
        forces = np.zeros((t.size, len(loads), 3))
        moments = np.zeros((t.size, len(loads), 3))
        for j, load in enumerate(loads):
            forces[:, j] = sample_signal(f"load at {load.site!r}", load.force, t, 3)
            if load.moment is not None:
                moments[:, j] = sample_signal(f"moment at {load.site!r}", load.moment, t, 3)
        return sites, bodies, forces, moments

    def _joint_stops(self, which: int) -> str:
        """For a cylinder on a limited slide joint: where the joint's limit puts the ends of ℓ [m]
        and how to make that limit the end stop (a stroke reaching 5 mm beyond it), else ""."""
        qpos = int(self.ints[which, J_QPOS])
        joints = np.flatnonzero(self.model.jnt_qposadr == qpos) if qpos >= 0 else []
        if not len(joints) or not self.model.jnt_limited[joints[0]]:
            return ""
        low, high = self.model.jnt_range[joints[0]] + self.gain[which, G_OFFSET]
        return (
            f"; the slide joint's limit in the model stops ℓ at [{low:.6g}, {high:.6g}] m: to let it be the end "
            f"stop, give retracted_length = {low - 0.005:.6g} m and stroke = {high - low + 0.01:.6g} m"
        )

    def _raise_failure(self, status, which, time_, row) -> None:
        a = self.actuators[which]
        detail = {
            LoopStatus.NOT_FINITE: " (force or pin-to-pin length)",
            LoopStatus.STRETCH: f" of {MAX_STRETCH} m",
            LoopStatus.STROKE: f" (ℓ = {row[O_LENGTH]:.6g} m outside its limits [{self.gain[which, G_MIN_LENGTH]:.6g}, "
            f"{self.gain[which, G_MAX_LENGTH]:.6g}] m; the cylinder model has no end stops"
            f"{self._joint_stops(which)})",
            LoopStatus.ROOT: " (the shared pump pressure)",
            LoopStatus.NEWTON: " (the chamber and pump-line pressures)",
            LoopStatus.CHATTER: " (the step is unstable at this pose)",
        }[status]
        remedy = (
            "change the inputs or the cylinder's length limits (stroke)"
            if status == LoopStatus.STROKE
            else "reduce the timestep or relaxation.stiffness, or change the inputs"
        )
        raise SimulationError(
            f"actuator {a.name!r}: the simulation failed at t = {time_:.6g} s (f = {row[O_FORCE]:.6g} N) with "
            f"{LoopStatus(status).description}{detail}: {remedy}"
        )

    def _result(self, t, qpos, qvel, out, loop_time, compile_time) -> SimulationResult:
        channels: dict[str, Channel] = {}
        for i in range(self.model.nq):
            channels[f"qpos_{i}"] = Channel(qpos[:, i], "m or rad", f"qpos[{i}]")
        for i in range(self.model.nv):
            channels[f"qvel_{i}"] = Channel(qvel[:, i], "m/s or rad/s", f"qvel[{i}]")
        for i, a in enumerate(self.actuators):
            rows = out[:, i]
            ch = {
                "valve_command": Channel(rows[:, O_COMMAND], "1", "valve command u_c"),
                "bleed": Channel(rows[:, O_BLEED], "1", "bleed opening u_b"),
                "length": Channel(rows[:, O_LENGTH], "m", "pin-to-pin length ℓ"),
                "length_rate": Channel(rows[:, O_RATE], "m/s", "length rate (ℓ_k − ℓ_{k−1})/h"),
                "force": Channel(rows[:, O_FORCE], "N", "cylinder force f (> 0 pushes the pins apart)"),
                "supply_flow": Channel(
                    rows[:, O_SUPPLY_FLOW], "m^3/s", "flow from the pump or supply into the cylinder"
                ),
                "pump_pressure": Channel(rows[:, O_PUMP], "Pa", "pump (or supply) pressure P"),
            }
            if isinstance(a, QuasistaticCylinder):
                ch["rod_position"] = Channel(rows[:, O_ROD], "m", "rod displacement p")
                ch["rod_velocity"] = Channel(rows[:, O_VEL], "m/s", "rod velocity v")
                ch["stretch"] = Channel(rows[:, O_ROD] - rows[:, O_LENGTH], "m", "relaxed element p − ℓ")
            else:
                ch["head_pressure"] = Channel(rows[:, O_PH], "Pa", "head-side pressure p_h")
                ch["rod_pressure"] = Channel(rows[:, O_PR], "Pa", "rod-side pressure p_r")
            if a.supply_pressure is None:
                ch["pump_relief_flow"] = Channel(rows[:, O_RELIEF], "m^3/s", "pump relief flow")
            channels.update({f"{a.name}.{key}": value for key, value in ch.items()})
        return SimulationResult(
            t=t, channels=channels, counters=loop_counters(t, self.timestep, loop_time, compile_time)
        )


def loop_counters(t: np.ndarray, h: float, loop_time: float, compile_time: float) -> dict[str, float]:
    """The counters of a machine run on the grid ``t`` with step h [s]: steps, compile and loop
    wall time [s], real-time factor (simulated time / loop time)."""
    duration = float(t[-1] + h)
    return {
        "steps": float(t.size),
        "compile_time_s": compile_time,
        "loop_time_s": loop_time,
        "real_time_factor": duration / loop_time if loop_time > 0 else math.inf,
    }


def equality_rows(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(J (m, nv), forces (m,)): the rows of the active equality constraints (connect, weld, joint
    coupling) in the constraint Jacobian and their constraint forces, at the current data (after
    ``mj_forward`` or ``mj_inverse``)."""
    rows = np.flatnonzero(data.efc_type[: data.nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY)
    if not rows.size:
        return np.zeros((0, model.nv)), np.zeros(0)
    if mujoco.mj_isSparse(model):
        dense = np.zeros((data.nefc, model.nv))
        mujoco.mju_sparse2dense(dense, data.efc_J, data.efc_J_rownnz, data.efc_J_rowadr, data.efc_J_colind)
    else:
        dense = np.asarray(data.efc_J).reshape(data.nefc, model.nv)
    return dense[rows], data.efc_force[rows].copy()


def _check_determined(system: np.ndarray, n: int, names: Sequence[str]) -> None:
    """Raise ``SimulationError`` when [G, J_eqᵀ] lets the model's equality constraints take over a
    cylinder's load: a null vector that moves both a cylinder force (first ``n`` columns) and a
    constraint force. (Cylinders acting along one motion share its load by least squares.)"""
    if system.shape[1] == n:
        return
    _, singular, vt = np.linalg.svd(system)
    tolerance = singular.max() * max(system.shape) * np.finfo(float).eps
    null = vt[np.count_nonzero(singular > tolerance) :]
    shared = (np.abs(null[:, :n]) > 1e-6) & (np.abs(null[:, n:]).max(axis=1, initial=0.0) > 1e-6)[:, None]
    if shared.any():
        which = [name for name, s in zip(names, shared.any(axis=0)) if s]
        raise SimulationError(
            f"the holding forces of {', '.join(which)} are not determined at the initial pose: the "
            "model's equality constraints could carry the same load; change the pins or constraints"
        )

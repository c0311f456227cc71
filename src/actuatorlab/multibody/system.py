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

import dataclasses
import math
import time
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import ParameterError, SimulationError, needs_extras
from ..hydraulics.pressure_dynamics import holding_pressures, idle_pump_pressure
from ..hydraulics.quasistatic.network import new_pump_state
from ..hydraulics.quasistatic.relaxation import STABILITY_BOUND, Relaxation, default_relaxation
from ..numerics.status import LoopStatus
from ..simulation.result import Channel, SimulationResult
from ..validation import positive
from .cylinders import (
    G_MASS_FACTOR,
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
    S_PR,
    S_PUMP,
    S_ROD,
)
from .loop import B_AUTO, run_loop
from .native import MujocoCalls
from .point_forces import body_chains, dof_parents
from .stability import (
    ActuatorStability,
    closed_valve_bound,
    constrained_inverse_masses,
    equality_rows,
    stability_limits,
    unstable_error,
)


REST_ITERATIONS = 20
"""Newton steps of ``rest_pose`` at most."""
REST_TOLERANCE = 1e-9
"""|qacc| [m/s² or rad/s²] below which ``rest_pose`` stops: the machine moves by less than
½·1e-9·t² (0.5 nm or nrad in a second)."""
REST_STEP = 1e-7
"""Central-difference step of ``rest_pose``: [m or rad] on the pose, relative on the forces."""

with needs_extras("actuatorlab.multibody"):
    import mujoco


class HydraulicMujocoSystem:
    """An MJCF model with hydraulic cylinders attached to its sites or slide joints.

    ``model``: a :class:`mujoco.MjModel`, an MJCF path or XML string; ``actuators``:
    ``QuasistaticCylinder`` and ``PressureCylinder`` objects with distinct names. The time step is the model's
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
        """The closed-valve bound at the current data (after mj_step1, during a run), vectorised
        over the actuators: (1/m, K, B, stable, bound) arrays (n,), with 1/m = φ gᵀM⁻¹g from one
        ``mj_solveM`` on the stacked gradients and φ the soft constraints' factor found at the
        initial pose (``stability.closed_valve_bound``), as the compiled loop evaluates it."""
        lengths, grads_t = self._gradients_t()
        minv_g = np.empty_like(grads_t)
        mujoco.mj_solveM(self.model, self.data, minv_g, grads_t)
        inv_mass = np.einsum("ij,ij->i", minv_g, grads_t) * self.gain[:, G_MASS_FACTOR]
        return closed_valve_bound(self.arrays, self._pressure, self.timestep, lengths, inv_mass)

    def _initial_bound(self) -> tuple[np.ndarray, ...]:
        """The closed-valve bound at the current data (after mj_forward) with the soft equality
        constraints in full (``stability.constrained_inverse_masses``); sets the factor φ the
        loop's checks along the run use (1 exactly without equality constraints)."""
        lengths, grads_t = self._gradients_t()
        tree, inverse, bound = constrained_inverse_masses(self.model, self.data, grads_t)
        self.gain[:, G_MASS_FACTOR] = np.where(
            (inverse == tree) & (bound == STABILITY_BOUND), 1.0, inverse * STABILITY_BOUND / (tree * bound)
        )
        return closed_valve_bound(self.arrays, self._pressure, self.timestep, lengths, inverse, bound)

    def _limits(self, *bound) -> list[ActuatorStability]:
        return stability_limits([a.name for a in self.actuators], self.timestep, *bound)

    def effective_masses(self, qpos=None) -> dict[str, tuple[float, float]]:
        """(effective mass m [kg], stability bound) of every cylinder at ``qpos`` (default the
        model's qpos0): the mass its force accelerates along its pin line or slide joint in one
        step, soft equality constraints included, and the bound of h²K/m + 2hB/m there (4, less
        where those constraints share the step): see :mod:`.stability`."""
        self.set_pose(qpos)
        lengths, grads_t = self._gradients_t()
        _, inverse, bound = constrained_inverse_masses(self.model, self.data, grads_t)
        return {
            a.name: (1.0 / inverse[i] if inverse[i] > 0.0 else math.inf, float(bound[i]))
            for i, a in enumerate(self.actuators)
        }

    def default_relaxations(self, qpos=None) -> dict[str, Relaxation]:
        """The relaxation of every cylinder chosen for its load at ``qpos`` and the model's step by
        ``default_relaxation`` (critical damping on its effective mass, a quarter of the
        stability bound): see ``default_relaxation`` of :mod:`actuatorlab.hydraulics.quasistatic`."""
        return {
            name: default_relaxation(mass, self.timestep, bound)
            for name, (mass, bound) in self.effective_masses(qpos).items()
        }

    def stability(self, qpos=None) -> list[ActuatorStability]:
        """Closed-valve stability of every cylinder at ``qpos`` (see :mod:`.stability`)."""
        self.set_pose(qpos)
        return self._limits(*self._initial_bound())

    def _unstable_error(self, limits: list[ActuatorStability], when: str) -> SimulationError:
        unstable = [(self.actuators[self.index[lim.name]], lim) for lim in limits if not lim.stable]
        return unstable_error(unstable, self.timestep, when)

    def check_stability(self, qpos=None) -> list[ActuatorStability]:
        """``stability``; raises one ``SimulationError`` naming every unstable cylinder and a
        stable K and B for each."""
        limits = self.stability(qpos)
        if not all(lim.stable for lim in limits):
            raise self._unstable_error(limits, "at the initial pose")
        return limits

    def _check_running(self, time_: float) -> None:
        """The bound at the current data during a run (after mj_step1); raises naming ``time_``."""
        bound = self._bound()
        if not np.all(bound[3]):
            raise self._unstable_error(self._limits(*bound), f"at the pose reached at t = {time_:.6g} s")

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
        lengths, system, tau = self._holding_equations(qpos, loads)
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
        settle: bool = False,
    ) -> InitialState:
        """The consistent initial state at rest at ``qpos`` (see :mod:`.holding`). ``bleed0``
        [-]: the bleed openings at t = 0 (pump-line idle pressure of pressure cylinders).

        Where the model's equality constraints are active (a closed chain's connects, a weld),
        the state starts from the pose where their soft forces hold the load (``rest_pose``: the
        pose sags by the constraints' give, the cylinder lengths kept), so that it is at rest.
        ``settle``: also move the degrees of freedom no cylinder holds to the nearest
        equilibrium before the run (instead of refusing a pose they are not balanced in).

        Raises ``SimulationError`` when no physical holding state exists: a cylinder would need a
        force beyond its chamber reliefs, a degree of freedom the cylinders cannot hold has an
        unbalanced load (relative residual > ``residual_tolerance``; the message names each such
        joint and its unbalanced force or torque), or K = 0 with a load.
        """
        if settle:
            qpos = self.rest_pose(qpos, loads, free=True)
        forces, residual, lengths = self.holding_forces(qpos, loads)
        self._check_lengths(lengths)
        scale = max(float(np.linalg.norm(self.data.qfrc_inverse)), 1.0)
        if residual > residual_tolerance * scale:
            raise SimulationError(
                "the cylinders cannot hold the initial pose: the least-squares cylinder forces leave an unbalanced "
                f"generalised force of {residual:.4g} (N or N m; tolerance {residual_tolerance:g} of the "
                f"inverse-dynamics force, {residual_tolerance * scale:.3g}) on joints they do not act on: "
                f"{self._unbalanced_joints(qpos, loads, residual_tolerance * scale)}; give a pose where those "
                "joints are in equilibrium (or constrained), or let the run settle them first (settle = true in "
                "the machine's file, settle=True in simulate)"
            )
        pose = qpos
        if not settle and equality_rows(self.model, self.data)[0].shape[0]:
            pose = self.rest_pose(qpos, loads)
            forces, residual, lengths = self.holding_forces(pose, loads)
        state = holding_state(self.actuators, forces, residual, lengths, dict(bleed0 or {}))
        self.set_pose(pose)
        return dataclasses.replace(state, qpos=self.data.qpos.copy())

    def _unbalanced_joints(self, qpos, loads, tolerance: float) -> str:
        """The joints whose degrees of freedom carry the holding equations' residual at ``qpos``,
        each with its unbalanced torque [N m] or force [N] (largest first; a free or ball joint's
        by the norm over its degrees of freedom)."""
        residual = self._holding_residual(qpos, loads)
        model = self.model
        parts = {}
        for dof, value in enumerate(residual):
            joint = int(model.dof_jntid[dof])
            parts[joint] = parts.get(joint, 0.0) + value * value
        named = []
        for joint, square in sorted(parts.items(), key=lambda item: -item[1]):
            value = math.sqrt(square)
            if value <= 0.1 * tolerance:
                continue
            kind = int(model.jnt_type[joint])
            name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, joint) or f"joint {joint}"
            unit = {int(mujoco.mjtJoint.mjJNT_HINGE): "N m", int(mujoco.mjtJoint.mjJNT_SLIDE): "N"}.get(
                kind, "N and N m"
            )
            named.append(f"{name} {value:.3g} {unit}")
        return ", ".join(named) or "none above the tolerance alone"

    def _holding_equations(self, qpos, loads) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ℓ (n,) [m], [G J_eqᵀ], τ): the cylinder lengths at ``qpos`` and the holding equations
        G f + J_eqᵀ λ = τ at rest under gravity, passive forces and the ``loads`` at t = 0."""
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
        tau -= self._load_torque(sites, [initial_load(load) for load in loads])
        return lengths, np.hstack([grads, jacobian.T]), tau

    def _holding_residual(self, qpos, loads) -> np.ndarray:
        """The residual (nv,) [N or N m] of the holding equations G f + J_eqᵀ λ = τ at ``qpos``."""
        _, system, tau = self._holding_equations(qpos, loads)
        solution, *_ = np.linalg.lstsq(system, tau, rcond=None)
        return system @ solution - tau

    def rest_pose(self, qpos=None, loads: Sequence[SiteLoad] = (), free: bool = False) -> np.ndarray:
        """The pose near ``qpos`` where the machine is at rest (qacc = 0 at qvel = 0) under gravity,
        passive forces, the ``loads`` at t = 0, MuJoCo's soft constraints and the cylinder forces,
        with every cylinder's length kept: Newton's method on (q, f), the Jacobian of qacc by
        central differences. MuJoCo's equality constraints are soft (``solref``, ``solimp``): they
        carry a load only when violated a little, so at the exact pose they give and the machine
        would sag in the first steps and ring; from this pose it starts still. ``free``: the
        degrees of freedom no cylinder holds move to the nearest equilibrium too (else the pose
        must have them balanced already, ``initial_state``). Returns qpos (nq,) (the given one if
        Newton's method makes no progress)."""
        model, data = self.model, self.data
        self.set_pose(qpos)
        q = data.qpos.copy()
        lengths0, _ = self.length_gradients()
        forces, _, _ = self.holding_forces(q, loads)
        n, nv = len(self.actuators), model.nv
        sites = [self.site_id(load.site) for load in loads]
        values = [initial_load(load) for load in loads]

        def residual(q_, f_):
            self.set_pose(q_)
            lengths, grads = self.length_gradients()
            data.qfrc_applied[:] = grads @ f_ + self._load_torque(sites, values)
            mujoco.mj_forward(model, data)
            return np.concatenate([data.qacc.copy(), lengths - lengths0]), grads

        def moved(q_, dq):
            out = q_.copy()
            mujoco.mj_integratePos(model, out, dq, 1.0)
            return out

        r, grads = residual(q, forces)
        start = best = float(np.abs(r[:nv]).max(initial=0.0))
        best_q = q.copy()
        for _ in range(REST_ITERATIONS):
            if best < REST_TOLERANCE:
                break
            jac = np.zeros((nv + n, nv + n))
            for j in range(nv):
                dq = np.zeros(nv)
                dq[j] = REST_STEP
                plus, _ = residual(moved(q, dq), forces)
                minus, _ = residual(moved(q, -dq), forces)
                jac[:nv, j] = (plus[:nv] - minus[:nv]) / (2.0 * REST_STEP)
            for i in range(n):
                df = np.zeros(n)
                df[i] = REST_STEP * max(abs(forces[i]), 1.0)
                plus, _ = residual(q, forces + df)
                minus, _ = residual(q, forces - df)
                jac[:nv, nv + i] = (plus[:nv] - minus[:nv]) / (2.0 * df[i])
            jac[nv:, :nv] = grads.T  # r and grads are those of (q, forces), from before the differences
            step, *_ = np.linalg.lstsq(jac, -r, rcond=None)
            q, forces = moved(q, step[:nv]), forces + step[nv:]
            r, grads = residual(q, forces)
            size = float(np.abs(r[:nv]).max(initial=0.0))
            if not size < best:
                break
            best, best_q = size, q.copy()
        self.set_pose(best_q if best < start else qpos)
        return self.data.qpos.copy()

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
        settle: bool = False,
    ) -> SimulationResult:
        """Step the model for ``duration`` [s] on t_k = k·h, k = 0 … round(duration/h).

        ``valve_commands``: u_c ∈ [−1, 1] per actuator name (67) (> 0 extends); missing names
        are held closed (u_c = 0). ``controllers``: a ``ClosedLoop`` per actuator name, whose
        PI controller sets that cylinder's u_c instead (sampled every ``sample_time``, a multiple
        of h). ``bleed``: u_b ∈ [0, 1] or an ``OpenCentreBleed``, one for all or one per name
        (equal within a pump group). ``loads``: external site forces [N] and moments [N m].
        ``qpos``, ``qvel``: initial state (default the model's qpos0, at rest). ``consistent``:
        start from the holding state of ``initial_state`` (at rest only; where equality
        constraints are active, from the pose where their soft forces hold the load; ``settle``:
        the joints no cylinder holds moved to the nearest equilibrium first); otherwise every relaxed
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
        ``loop_time_s`` and ``real_time_factor``; ``initial``: each pressure cylinder's
        ``.head_pressure``, ``.rod_pressure`` and ``.pump_pressure`` before the first step.
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
            init = self.initial_state(qpos, loads, bleed0, settle=settle)
            qpos = init.qpos
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
        start = state.copy()
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
        result = self._result(t, qpos_out, qvel_out, out, loop_time, compile_time)
        for i, a in enumerate(self.actuators):
            if isinstance(a, PressureCylinder):
                for key, column in (("head_pressure", S_PH), ("rod_pressure", S_PR), ("pump_pressure", S_PUMP)):
                    result.initial[f"{a.name}.{key}"] = float(start[i, column])
        return result

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

    def _joint_stops(self, which: int, row: np.ndarray) -> str:
        """For a cylinder on a limited slide joint: where the joint's limit puts the ends of ℓ [m]
        and the cylinder length limits that let that limit be the end stop, else "".

        MuJoCo's limit is soft: its row carries a force F only when passed by
        r = (1 − d)·A·F/(d²·k) [m] (d the impedance of ``solimplimit`` at that depth, A the
        joint's inverse inertia ``dof_invweight0`` [1/kg], k = 1/(d_max τ ζ)² [1/s²] of
        ``solreflimit``, τ at least 2h), and a rod arriving at speed v passes it by about v·τ
        more. F is the largest force the cylinder's supply gives towards that end (its area
        times the lower of the pump relief, or supply, and chamber relief pressures) plus the
        force at the failure (the load's share), v the speed then (``row``: the loop's output of
        that step); the margin beyond each end is 1.2 (r + v τ) + 1 mm, and each advised limit
        lies beyond the cylinder's own too. Where that give exceeds 5 mm the message names the
        ``solreflimit`` time constant that brings it to 5 mm."""
        qpos = int(self.ints[which, J_QPOS])
        joints = np.flatnonzero(self.model.jnt_qposadr == qpos) if qpos >= 0 else []
        if not len(joints) or not self.model.jnt_limited[joints[0]]:
            return ""
        joint = int(joints[0])
        low, high = self.model.jnt_range[joint] + self.gain[which, G_OFFSET]
        c = self.actuators[which].circuit
        speed = abs(float(row[O_RATE])) if math.isfinite(row[O_RATE]) else 0.0
        load = abs(float(row[O_FORCE])) if math.isfinite(row[O_FORCE]) else 0.0
        supply = c.pump_relief_pressure
        forces = (
            c.rod_area * min(supply, c.rod_relief_pressure) + load,
            c.head_area * min(supply, c.head_relief_pressure) + load,
        )
        give = [self._limit_give(joint, force) for force in forces]
        tau = self._limit_time_constant(joint)
        margins = [1.2 * (g + speed * tau) + 0.001 for g in give]
        own_low, own_high = self.gain[which, G_MIN_LENGTH], self.gain[which, G_MAX_LENGTH]
        retracted = math.floor(min(low, own_low) * 1000.0 - margins[0] * 1000.0) / 1000.0
        extended = math.ceil(max(high, own_high) * 1000.0 + margins[1] * 1000.0) / 1000.0
        stiffer = ""
        if max(give) > 0.005:
            needed = tau / math.sqrt(max(give) / 0.005)  # r ∝ 1/k ∝ τ²
            floor = 2.0 * self.timestep
            stiffer = (
                f', or stiffen the joint\'s limit, solreflimit="{max(needed, floor):.2g} 1" (then it gives '
                f"{1000.0 * max(give) * (max(needed, floor) / tau) ** 2:.2g} mm) with a margin to match"
            )
        return (
            f"; the slide joint's limit in the model stops ℓ at [{low:.6g}, {high:.6g}] m, and MuJoCo's soft limit "
            f"lets the rod pass it by up to {1000.0 * give[0]:.3g} mm at the retracted end and "
            f"{1000.0 * give[1]:.3g} mm at the extended one under the supply's force: to let it be the end stop, "
            f"give retracted_length = {retracted:.6g} m and stroke = {extended - retracted:.6g} m{stiffer}"
        )

    def _limit_time_constant(self, joint: int) -> float:
        """τ [s] of the soft limit of ``joint`` (``solreflimit``; at least 2h where MuJoCo's
        refsafe holds; 1/√k of a direct stiffness)."""
        solref, solimp = self.model.jnt_solref[joint], self.model.jnt_solimp[joint]
        if solref[0] > 0.0:
            tau = float(solref[0])
            if not self.model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_REFSAFE:
                tau = max(tau, 2.0 * self.timestep)
            return tau
        return max(float(solimp[0]), float(solimp[1])) / math.sqrt(-float(solref[0]))

    def _limit_give(self, joint: int, force: float) -> float:
        """How far [m] the soft limit of slide ``joint`` lets its rod pass at rest under ``force``
        [N] (see ``_joint_stops``): with the impedance past the limit's ``width``, or at its start
        where the give is shallower."""
        model = self.model
        solref, solimp = model.jnt_solref[joint], model.jnt_solimp[joint]
        d_max = max(float(solimp[0]), float(solimp[1]))
        tau = self._limit_time_constant(joint)
        zeta = float(solref[1]) if solref[0] > 0.0 else 1.0
        stiffness = 1.0 / (d_max * tau * max(zeta, 1e-9)) ** 2 if solref[0] > 0.0 else -float(solref[0]) / d_max**2
        inverse = float(model.dof_invweight0[int(model.jnt_dofadr[joint])])

        def give(d: float) -> float:
            d = min(max(d, 1e-4), 1.0 - 1e-9)
            return (1.0 - d) * inverse * force / (d * d * stiffness)

        deep = give(float(solimp[1]))
        return deep if deep > float(solimp[2]) else max(deep, give(float(solimp[0])))

    def _raise_failure(self, status, which, time_, row) -> None:
        a = self.actuators[which]
        detail = {
            LoopStatus.NOT_FINITE: " (force or pin-to-pin length)",
            LoopStatus.STRETCH: f" of {MAX_STRETCH} m",
            LoopStatus.STROKE: f" (ℓ = {row[O_LENGTH]:.6g} m outside its limits [{self.gain[which, G_MIN_LENGTH]:.6g}, "
            f"{self.gain[which, G_MAX_LENGTH]:.6g}] m; the cylinder model has no end stops"
            f"{self._joint_stops(which, row)})",
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

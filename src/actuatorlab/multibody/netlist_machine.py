"""Cylinders and motors of a MuJoCo model driven by any hydraulic netlist (:mod:`actuatorlab.hydraulics.circuits`).

A ``NetlistCylinder`` sits between two sites (or on a slide joint) as the cylinders of
:mod:`.cylinders` do, and joins its ``head`` and ``rod`` chambers to two nodes of the netlist; a
``NetlistMotor`` turns a hinge through its gear and joins its ``inlet`` and ``outlet`` ports to
two nodes. ``NetlistMujocoSystem`` adds each as a component of the network and steps the model
and the network together in one compiled loop (``netlist_loop``), in either model:

- ``"quasistatic"``: the rod is joined to the pins by the relaxation (K, B) of Kikuuwe et al.
  (68a), so each cylinder is a ``CoupledCylinder`` (admittance 1/(B + hK)) and each step is one
  quasistatic solve of the whole network with the rods' velocities (β_oil → ∞); a motor's shaft
  is joined to its hinge by a rotational relaxation (its own K [N m/rad], B [N m s/rad]) in the
  same way (``CoupledMotor``);
- ``"pressure"``: plain ``Cylinder`` and ``Motor`` components fed the joints' motion, node
  volumes at the bulk modulus, one backward-Euler step per MuJoCo step.

A motor is a rotary actuator on its hinge exactly as a cylinder on a slide joint is a linear
one: ℓ is the joint's angle [rad], f the torque T = η_m i D (p_in − p_out)/2π [N m] on it, the
"areas" of both ports η_m i D/2π [m³/rad] (``rotary`` attachment of :mod:`.cylinders`).

The pins, the length limits (ℓ₀ to ℓ₀ + stroke), the closed-valve stability check, the chatter
test and the consistent initial state reuse the machinery of :class:`.system.HydraulicMujocoSystem`
through a cylinder of the papers' family with the same areas (``_attachment``); only its areas
and its force range (the highest relief setting of the netlist, for the chatter test) are read.
The machine starts at rest holding its initial pose: quasistatic rods pre-stretched by f/K,
pressure-dynamics chambers at the holding pressures (the less loaded at ``initial_low_pressure``);
every other node is solved quasistatically with the chambers held. A cylinder whose chambers are
shut by closed valves has a quasistatic pressure only through leakage: give the valves (or the
cylinder) a leakage, or the solve reports the node as not unique.

Signs as in :mod:`.cylinders`: f = A_h p_h − A_r p_r > 0 pushes the pins apart; v > 0 extends.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import ParameterError, SimulationError
from ..hydraulics.circuits import Cylinder, Motor, Network, ReliefValve, SpoolValve, Tank
from ..hydraulics.circuits.kernels import OK, SCRATCH_ROWS, V_NODE, V_VOLUME, solve_nodes
from ..hydraulics.circuits.solvers import raise_failed_solve
from ..hydraulics.circuits.spools import spool_positions
from ..hydraulics.fluid import OIL_BULK_MODULUS
from ..hydraulics.pressure_dynamics import PressureDynamics, holding_pressures
from ..hydraulics.quasistatic.circuit import ValveCircuit
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..numerics.status import STATUS_OK
from ..simulation.result import Channel, SimulationResult
from ..validation import positive
from .cylinders import G_MAX_LENGTH, G_MIN_LENGTH, PressureCylinder, QuasistaticCylinder, SiteLoad
from .inputs import sample_signal
from .kernels import N_OUT, N_STATE, O_FORCE, O_LENGTH, O_PH, O_PR, O_RATE, O_ROD, O_VEL, S_LENGTH, S_ROD
from .closed_loop import ClosedLoop
from .native import MujocoCalls
from .netlist_actuators import NetlistCylinder, NetlistMotor
from .netlist_control import control_arrays
from .netlist_loop import LINK_FLOATS, LINK_INTS, run_netlist_loop
from .point_forces import body_chains, dof_parents
from .system import HydraulicMujocoSystem, loop_counters

MODELS = ("quasistatic", "pressure")
MIN_FORCE_PRESSURE = 1.0e6
"""Least pressure [Pa] of the chatter test's force range A·P when the netlist has no relief."""


NO_VOLUME = 1e9
"""The volume [m³] a motor's attachment gives a port whose node has no oil volume."""


def _node_volume(network: Network, node: str) -> float:
    """The oil volume [m³] the network gives ``node`` at rest (NO_VOLUME where it has none: the
    node is algebraic, no oil spring)."""
    rows = network.volumes
    volume = float(rows[rows[:, V_NODE] == network.node(node), V_VOLUME].sum())
    return volume if volume > 0.0 else NO_VOLUME


def _force_pressure(parts: Mapping) -> float:
    """The highest relief setting or held tank pressure of the netlist [Pa] (at least
    MIN_FORCE_PRESSURE): the pressure of the cylinders' force range A·P in the chatter test."""
    pressures = [MIN_FORCE_PRESSURE]
    for component, _ in parts.values():
        if isinstance(component, ReliefValve):
            pressures.append(component.setting)
        elif isinstance(component, Tank):
            pressures.append(component.pressure)
    return max(pressures)


def _force_range(head_area: float, rod_area: float, pressure: float) -> ValveCircuit:
    """The attachment's circuit: its areas and every relief at ``pressure`` (the force range)."""
    return ValveCircuit(
        head_area=head_area,
        rod_area=rod_area,
        head_relief_pressure=pressure,
        rod_relief_pressure=pressure,
        pump_relief_pressure=pressure,
    )


def _attachment(c: NetlistCylinder, model: str, relaxation: Relaxation, pressure: float, bulk_modulus: float):
    """The papers'-family cylinder with the pins, areas and limits of ``c``: its tables carry the
    attachment, the stability bound and the chatter test's force range (module docstring)."""
    pins = dict(base_site=c.base_site, rod_site=c.rod_site, joint=c.joint, length_offset=c.length_offset)
    circuit = _force_range(c.head_area, c.rod_area, pressure)
    if model == "quasistatic":
        return QuasistaticCylinder(
            c.name,
            circuit=circuit,
            relaxation=relaxation,
            min_length=c.retracted_length,
            max_length=c.retracted_length + c.stroke,
            **pins,
        )
    fluid = PressureDynamics(
        bulk_modulus=bulk_modulus,
        head_dead_volume=c.head_dead_volume,
        rod_dead_volume=c.rod_dead_volume,
        stroke=c.stroke,
        retracted_length=c.retracted_length,
    )
    return PressureCylinder(c.name, circuit=circuit, fluid=fluid, initial_low_pressure=c.initial_low_pressure, **pins)


ROTARY_STROKE = 1e-9
"""The stroke of a motor's attachment (an angle there [rad]): next to nothing, so that its ports'
volumes are its dead volumes (the oil column's stiffness β k² (1/V_in + 1/V_out) of the stability
check); its length limits are removed (a motor turns without end)."""


def _motor_attachment(m: NetlistMotor, model: str, pressure: float, bulk_modulus: float, network: Network):
    """The rotary attachment of motor ``m`` on its hinge (module docstring): both port "areas"
    its torque gain (the rod side's a hair less, as a cylinder's must be), ``rotary`` joint."""
    k = m.torque_gain
    circuit = _force_range(k, k * (1.0 - 1e-12), pressure)
    if model == "quasistatic":
        return QuasistaticCylinder(m.name, circuit=circuit, relaxation=m.relaxation(), joint=m.joint, rotary=True)
    fluid = PressureDynamics(
        bulk_modulus=bulk_modulus,
        head_dead_volume=_node_volume(network, m.inlet_node),
        rod_dead_volume=_node_volume(network, m.outlet_node),
        stroke=ROTARY_STROKE,
    )
    return PressureCylinder(
        m.name, circuit=circuit, fluid=fluid, initial_low_pressure=m.initial_low_pressure, joint=m.joint, rotary=True
    )


CYLINDER_CHANNELS = {
    "length": (O_LENGTH, "m", "pin-to-pin length ℓ"),
    "length_rate": (O_RATE, "m/s", "length rate (ℓ_k − ℓ_{k−1})/h"),
    "force": (O_FORCE, "N", "cylinder force f = A_h p_h − A_r p_r (> 0 pushes the pins apart)"),
    "head_pressure": (O_PH, "Pa", "head-side pressure p_h"),
    "rod_pressure": (O_PR, "Pa", "rod-side pressure p_r"),
    "rod_velocity": (O_VEL, "m/s", "rod velocity v"),
    "rod_position": (O_ROD, "m", "rod displacement p"),
    "stretch": (-1, "m", "relaxed element p − ℓ"),
}
"""A cylinder's channels: key → (row of the loop's output, or −1: p − ℓ; unit; label); the
rows O_ROD and −1 (the relaxed element's) in the quasistatic model only."""
MOTOR_CHANNELS = {
    "angle": (O_LENGTH, "rad", "joint angle θ"),
    "speed": (O_RATE, "rad/s", "joint speed (θ_k − θ_{k−1})/h"),
    "torque": (O_FORCE, "N*m", "torque on the joint T = η_m i D (p_in − p_out)/2π"),
    "inlet_pressure": (O_PH, "Pa", "inlet pressure p_in"),
    "outlet_pressure": (O_PR, "Pa", "outlet pressure p_out"),
    "shaft_speed": (O_VEL, "rad/s", "shaft speed ω at the joint (the flows' speed)"),
    "shaft_angle": (O_ROD, "rad", "shaft angle at the joint"),
    "twist": (-1, "rad", "relaxed element: shaft angle − θ"),
}
"""A motor's channels, as ``CYLINDER_CHANNELS`` (at the joint: the gear's ratio folded in)."""


class NetlistMujocoSystem(HydraulicMujocoSystem):
    """An MJCF model whose ``cylinders`` (``NetlistCylinder``) and ``motors`` (``NetlistMotor``)
    are driven by the netlist ``parts`` (name → (component, {port: node}), as
    :class:`~actuatorlab.hydraulics.circuits.Network` takes them) in ``model``
    ``"quasistatic"`` (the cylinders with ``relaxation`` K, B: one for all, or a mapping name →
    ``Relaxation``, the default ``Relaxation()`` for a name it lacks; each motor with its own) or
    ``"pressure"`` (oil at ``bulk_modulus`` [Pa]). ``network``: the network stepped (the
    actuators added under their names); ``flow_network``: the same with plain cylinders and
    motors, whose flows at the recorded rod and shaft velocities are the run's flows."""

    def __init__(
        self,
        model,
        cylinders: Sequence[NetlistCylinder],
        parts: Mapping,
        model_kind: str = "quasistatic",
        relaxation: Relaxation | Mapping[str, Relaxation] | None = None,
        bulk_modulus: float = OIL_BULK_MODULUS,
        motors: Sequence[NetlistMotor] = (),
    ):
        if model_kind not in MODELS:
            raise ParameterError(f"model = {model_kind!r}: choose one of {', '.join(MODELS)}")
        relaxation = relaxation or Relaxation()
        own = (
            {c.name: relaxation.get(c.name) or Relaxation() for c in cylinders}
            if isinstance(relaxation, Mapping)
            else dict.fromkeys((c.name for c in cylinders), relaxation)
        )
        self.cylinders = {c.name: c for c in cylinders}
        self.motors = {m.name: m for m in motors}
        names = [*self.cylinders, *self.motors]
        clash = sorted({n for n in names if names.count(n) > 1} | (set(names) & set(parts)))
        if clash:
            raise ParameterError(
                f"actuator {clash[0]!r}: the netlist or another actuator has that name; give each a name of its own"
            )
        quasistatic = model_kind == MODELS[0]

        def network(coupling: Mapping[str, float]) -> Network:
            own = {
                name: (c.component(coupling[name]), {"head": c.head_node, "rod": c.rod_node})
                for name, c in self.cylinders.items()
            }
            own |= {
                name: (m.component(coupling[name]), {"inlet": m.inlet_node, "outlet": m.outlet_node})
                for name, m in self.motors.items()
            }
            return Network({**parts, **own}, bulk_modulus=bulk_modulus)

        self.flow_network = network(dict.fromkeys(names, 0.0))
        pressure = _force_pressure(parts)
        attachments = [_attachment(c, model_kind, own[c.name], pressure, bulk_modulus) for c in cylinders]
        attachments += [_motor_attachment(m, model_kind, pressure, bulk_modulus, self.flow_network) for m in motors]
        super().__init__(model, attachments)
        self.model_kind = model_kind
        self.relaxations = own
        admittance = {}
        for name in names:
            r = self.motors[name].relaxation() if name in self.motors else own[name]
            admittance[name] = 1.0 / (r.damping + self.timestep * r.stiffness) if quasistatic else 0.0
            if not math.isfinite(admittance[name]):
                raise ParameterError(f"{name}: relaxation K = B = 0 leaves it free of its joint; give K > 0 or B > 0")
        self.network = network(admittance) if quasistatic else self.flow_network
        n = len(self.actuators)
        self.link_ints = np.zeros((n, len(LINK_INTS)), dtype=np.int64)
        self.link_floats = np.zeros((n, len(LINK_FLOATS)))
        inputs = self.network.inputs
        for i, a in enumerate(self.actuators):
            if a.name in self.motors:
                m = self.motors[a.name]
                nodes = (self.network.node(m.inlet_node), self.network.node(m.outlet_node))
                self.link_ints[i] = (*nodes, inputs.index(f"{a.name}.speed"), -1)
                self.link_floats[i] = (m.torque_gain, m.torque_gain, 0.0, admittance[a.name])
                self.gain[i, G_MIN_LENGTH], self.gain[i, G_MAX_LENGTH] = -math.inf, math.inf
                continue
            c = self.cylinders[a.name]
            self.link_ints[i] = (
                self.network.node(c.head_node),
                self.network.node(c.rod_node),
                inputs.index(f"{a.name}.velocity"),
                inputs.index(f"{a.name}.position"),
            )
            self.link_floats[i] = (c.head_area, c.rod_area, c.retracted_length, admittance[a.name])

    def _inputs(self, inputs: Mapping, t: np.ndarray) -> np.ndarray:
        """The inputs table (len(t), n_u): ``inputs`` sampled, spools lagged by their time
        constant; the cylinders' columns are filled by the loop."""
        table = np.zeros((t.size, len(self.network.inputs)))
        own = {f"{name}.{s}" for name in self.cylinders for s in Cylinder.INPUTS}
        own |= {f"{name}.{s}" for name in self.motors for s in Motor.INPUTS}
        for key, signal in inputs.items():
            if key in own:
                raise ParameterError(f"input {key!r}: a machine's actuator moves with the model; drop this input")
            if key not in self.network.inputs:
                valid = ", ".join(k for k in self.network.inputs if k not in own) or "none"
                raise ParameterError(f"input {key!r} is not an input of the circuit; its inputs are {valid}")
            table[:, self.network.inputs.index(key)] = sample_signal(f"input {key!r}", signal, t)
        for name, (component, _) in self.network.parts.items():
            if isinstance(component, SpoolValve):
                column = self.network.inputs.index(f"{name}.position")
                if np.any(np.abs(table[:, column]) > 1.0):
                    raise ParameterError(f"input '{name}.position': a spool's position lies in [-1, 1]")
                table[:, column] = spool_positions(table[:, column], self.timestep, component.time_constant)
        return table

    def _initial_pressures(self, init, u0: np.ndarray) -> np.ndarray:
        """Node pressures at t = 0: the tanks', the cylinders' chambers at their holding pressures,
        every other free node solved quasistatically with those held."""
        network = self.network
        held = network.held.copy()
        for a in self.actuators:
            if a.name in self.motors:
                m = self.motors[a.name]
                nodes, low = (m.inlet_node, m.outlet_node), m.initial_low_pressure
            else:
                c = self.cylinders[a.name]
                nodes, low = (c.head_node, c.rod_node), c.initial_low_pressure
            for node, pressure in zip(nodes, holding_pressures(a.circuit, init.forces[a.name], low)):
                held[network.node(node)] = pressure
        n = held.size
        p = np.where(np.isnan(held), 0.0, held)
        work, dq = np.empty((n + SCRATCH_ROWS, n)), np.empty(5)
        status, _, node = solve_nodes(network.rows, network.volumes, network.gas, held, 0.0, u0, 1.0, p, p, work, dq)
        if status != OK:
            raise_failed_solve(network, status, 0.0, node)
        return p

    def simulate(
        self,
        duration: float,
        inputs: Mapping | None = None,
        loads: Sequence[SiteLoad] = (),
        qpos=None,
        check: bool = True,
        check_interval: float | None = 0.05,
        controllers: Mapping[str, ClosedLoop] | None = None,
        drives: Mapping[str, Sequence[str]] | None = None,
        settle: bool = False,
    ) -> tuple[SimulationResult, np.ndarray, np.ndarray]:
        """Step the model and the netlist for ``duration`` [s] from rest at ``qpos`` (holding it).

        ``settle``: as :meth:`.system.HydraulicMujocoSystem.simulate` (the joints no cylinder
        holds moved to the nearest equilibrium first).
        ``inputs``: a signal (constant, array per step, or callable of t) per network input
        ``"component.input"`` (spool positions in [−1, 1], pump speeds [rad/s]); the cylinders'
        own inputs come from the model. ``loads``, ``check``, ``check_interval``: as
        :meth:`.system.HydraulicMujocoSystem.simulate`. ``controllers``: a closed loop per
        actuator name, whose command drives the spool positions ``drives[name]`` names
        (:mod:`.netlist_control`); the result then has ``<name>.valve_command``.

        Returns (result, p, u): ``result`` with channels ``qpos_<i>``, ``qvel_<i>`` and per
        cylinder ``<name>.length`` ℓ [m], ``.length_rate`` [m/s], ``.force`` f [N],
        ``.head_pressure``, ``.rod_pressure`` [Pa], ``.rod_velocity`` v [m/s] (and
        ``.rod_position``, ``.stretch`` [m] quasistatic); ``p`` (n_steps, n_nodes) the node
        pressures [Pa] (``network.nodes`` order); ``u`` (n_steps, n_inputs) the inputs as applied
        (``network.inputs`` order; a cylinder's velocity its rod's), for ``flow_network``.
        """
        h = self.timestep
        n = round(positive("duration", duration, "s") / h) + 1
        n_check = max(1, round(positive("check_interval", check_interval, "s") / h)) if check and check_interval else 0
        t = np.arange(n) * h
        table = self._inputs(inputs or {}, t)
        control = control_arrays(self, controllers or {}, drives or {}, t, inputs or {})
        commands = np.full((n, len(self.actuators)), np.nan)
        load_sites, load_bodies, load_forces, load_moments = self.sample_loads(loads, t)
        if check:
            self.check_stability(qpos)
        init = self.initial_state(qpos, loads, settle=settle)
        qpos = init.qpos
        self.set_pose(qpos)
        lengths, _ = self.length_gradients()
        state = np.zeros((len(self.actuators), N_STATE))
        state[:, S_LENGTH] = lengths
        state[:, S_ROD] = lengths + np.array([init.stretch.get(a.name, 0.0) for a in self.actuators])
        p = self._initial_pressures(init, table[0])
        out = np.full((n, len(self.actuators), N_OUT), np.nan)
        outputs = (out, np.empty((n, self.model.nq)), np.empty((n, self.model.nv)), np.empty((n, p.size)), table.copy())
        network = self.network
        compressibility = 0.0 if self.model_kind == MODELS[0] else 1.0 / network.bulk_modulus
        calls = MujocoCalls.of(self.model, self.data).as_tuple()
        data = self.data
        data.xfrc_applied[:] = 0.0
        tables = (body_chains(self.model), dof_parents(self.model), self.ints, self.cps, self.hps, self.gain)

        def loop(steps, states):
            return run_netlist_loop(
                calls,
                h,
                compressibility,
                n_check,
                (data.site_xpos, data.cdof, data.subtree_com, data.qpos, data.qvel, data.qfrc_applied),
                tables,
                (network.rows, network.volumes, network.gas, network.held),
                (self.link_ints, self.link_floats),
                table[:steps],
                (*control[:1], control[1][:steps], control[2][:steps], *control[3:], commands[:steps]),
                (load_sites, load_bodies, load_forces[:steps], load_moments[:steps]),
                states,
                tuple(a[:steps] for a in outputs),
            )

        t0 = time.perf_counter()
        loop(1, (state.copy(), p.copy()))
        compile_time = time.perf_counter() - t0
        self.set_pose(qpos)
        t0 = time.perf_counter()
        status, which, k_fail, k_unstable, net_status, node = loop(n, (state, p))
        loop_time = time.perf_counter() - t0
        if k_unstable >= 0:
            self._check_running(float(t[k_unstable]))
        if net_status != OK:
            raise_failed_solve(network, net_status, float(t[k_fail]), node)
        if status != STATUS_OK:
            self._raise_failure(status, which, t[k_fail], out[k_fail, which])
        result = self._netlist_result(t, outputs, loop_time, compile_time)
        for i, a in enumerate(self.actuators):
            if a.name in (controllers or {}):
                label = "closed-loop command u_c (the driven spools' position before their lag)"
                result.channels[f"{a.name}.valve_command"] = Channel(commands[:, i], "", label)
        return result, outputs[3], outputs[4]

    def _netlist_result(self, t, outputs, loop_time, compile_time) -> SimulationResult:
        out, qpos, qvel, _, _ = outputs
        if not (np.all(np.isfinite(qpos)) and np.all(np.isfinite(qvel))):
            raise SimulationError("the MuJoCo state became non-finite: reduce the timestep or the relaxation stiffness")
        channels: dict[str, Channel] = {}
        for i in range(self.model.nq):
            channels[f"qpos_{i}"] = Channel(qpos[:, i], "m or rad", f"qpos[{i}]")
        for i in range(self.model.nv):
            channels[f"qvel_{i}"] = Channel(qvel[:, i], "m/s or rad/s", f"qvel[{i}]")
        quasistatic = self.model_kind == MODELS[0]
        for i, a in enumerate(self.actuators):
            rows = MOTOR_CHANNELS if a.name in self.motors else CYLINDER_CHANNELS
            for key, (row, unit, label) in rows.items():
                if quasistatic or row not in (O_ROD, -1):
                    values = out[:, i, row] if row >= 0 else out[:, i, O_ROD] - out[:, i, O_LENGTH]
                    channels[f"{a.name}.{key}"] = Channel(values, unit, label)
        return SimulationResult(
            t=t, channels=channels, counters=loop_counters(t, self.timestep, loop_time, compile_time)
        )

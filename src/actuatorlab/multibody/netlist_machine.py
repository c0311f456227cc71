"""Cylinders of a MuJoCo model driven by any hydraulic netlist (:mod:`actuatorlab.hydraulics.circuits`).

A ``NetlistCylinder`` sits between two sites (or on a slide joint) as the cylinders of
:mod:`.cylinders` do, and joins its ``head`` and ``rod`` chambers to two nodes of the netlist.
``NetlistMujocoSystem`` adds each as a component of the network and steps the model and the
network together in one compiled loop (:mod:`.netlist_loop`), in either model:

- ``"quasistatic"``: the rod is joined to the pins by the relaxation (K, B) of Kikuuwe et al.
  (68a), so each cylinder is a ``CoupledCylinder`` (admittance 1/(B + hK)) and each step is one
  quasistatic solve of the whole network with the rods' velocities (β_oil → ∞);
- ``"pressure"``: plain ``Cylinder`` components fed the pins' motion, node volumes at the bulk
  modulus, one backward-Euler step per MuJoCo step.

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
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError, SimulationError
from ..hydraulics.circuits import Cylinder, Network, ReliefValve, SpoolValve, Tank
from ..hydraulics.circuits.actuators import CoupledCylinder
from ..hydraulics.circuits.kernels import OK, SCRATCH_ROWS, solve_nodes
from ..hydraulics.circuits.solvers import raise_failed_solve
from ..hydraulics.circuits.spools import spool_positions
from ..hydraulics.fluid import OIL_BULK_MODULUS
from ..hydraulics.pressure_dynamics import PressureDynamics, holding_pressures
from ..hydraulics.quasistatic.circuit import ValveCircuit
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..numerics.status import STATUS_OK
from ..simulation.result import Channel, SimulationResult
from ..validation import check_fields, non_negative, positive
from .cylinders import PressureCylinder, QuasistaticCylinder, SiteLoad
from .inputs import sample_signal
from .kernels import N_OUT, N_STATE, O_FORCE, O_LENGTH, O_PH, O_PR, O_RATE, O_ROD, O_VEL, S_LENGTH, S_ROD
from .native import MujocoCalls
from .netlist_loop import LINK_FLOATS, LINK_INTS, run_netlist_loop
from .point_forces import body_chains, dof_parents
from .system import HydraulicMujocoSystem, loop_counters

MODELS = ("quasistatic", "pressure")
MIN_FORCE_PRESSURE = 1.0e6
"""Least pressure [Pa] of the chatter test's force range A·P when the netlist has no relief."""


@dataclass(frozen=True)
class NetlistCylinder:
    """A cylinder of the model joined to the netlist: pins ``base_site`` and ``rod_site`` (or a
    slide ``joint``, ℓ = qpos + ``length_offset`` [m]), chambers at nodes ``head_node`` and
    ``rod_node``; ``head_area``, ``rod_area`` (annulus) [m²], ``stroke`` [m],
    ``retracted_length`` ℓ₀ [m] pin to pin, dead volumes [m³] (hoses included), piston
    ``leakage`` [m³/(s Pa)], ``initial_low_pressure`` [Pa] of the less loaded chamber in the
    pressure-dynamics model's holding state."""

    name: str
    head_node: str
    rod_node: str
    head_area: float
    rod_area: float
    stroke: float
    retracted_length: float
    base_site: str | None = None
    rod_site: str | None = None
    joint: str | None = None
    length_offset: float = 0.0
    head_dead_volume: float = 0.5e-3
    rod_dead_volume: float = 0.5e-3
    leakage: float = 0.0
    initial_low_pressure: float = 2.0e6

    def __post_init__(self) -> None:
        check_fields(self, positive, (("retracted_length", "m"),))
        check_fields(self, non_negative, (("initial_low_pressure", "Pa"),))
        self.component(0.0)  # areas, stroke, volumes and leakage checked as the network's cylinder, named

    def component(self, admittance: float) -> Cylinder:
        """The network's component of this cylinder (``CoupledCylinder`` when ``admittance`` > 0)."""
        fields = dict(
            head_area=self.head_area,
            rod_area=self.rod_area,
            stroke=self.stroke,
            head_dead_volume=self.head_dead_volume,
            rod_dead_volume=self.rod_dead_volume,
            leakage=self.leakage,
        )
        try:
            return CoupledCylinder(**fields, admittance=admittance) if admittance > 0.0 else Cylinder(**fields)
        except ParameterError as error:
            raise ParameterError(f"cylinder {self.name!r}: {error}") from None


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


def _attachment(c: NetlistCylinder, model: str, relaxation: Relaxation, pressure: float, bulk_modulus: float):
    """The papers'-family cylinder with the pins, areas and limits of ``c``: its tables carry the
    attachment, the stability bound and the chatter test's force range (module docstring)."""
    pins = dict(base_site=c.base_site, rod_site=c.rod_site, joint=c.joint, length_offset=c.length_offset)
    circuit = ValveCircuit(
        head_area=c.head_area,
        rod_area=c.rod_area,
        head_relief_pressure=pressure,
        rod_relief_pressure=pressure,
        pump_relief_pressure=pressure,
    )
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


class NetlistMujocoSystem(HydraulicMujocoSystem):
    """An MJCF model whose ``cylinders`` (``NetlistCylinder``) are driven by the netlist ``parts``
    (name → (component, {port: node}), as :class:`~actuatorlab.hydraulics.circuits.Network`
    takes them) in ``model`` ``"quasistatic"`` (with ``relaxation`` K, B) or ``"pressure"``
    (oil at ``bulk_modulus`` [Pa]). ``network``: the network stepped (the cylinders added under
    their names); ``flow_network``: the same with plain cylinders, whose flows at the recorded
    rod velocities are the run's flows."""

    def __init__(
        self,
        model,
        cylinders: Sequence[NetlistCylinder],
        parts: Mapping,
        model_kind: str = "quasistatic",
        relaxation: Relaxation | None = None,
        bulk_modulus: float = OIL_BULK_MODULUS,
    ):
        if model_kind not in MODELS:
            raise ParameterError(f"model = {model_kind!r}: choose one of {', '.join(MODELS)}")
        relaxation = relaxation or Relaxation()
        pressure = _force_pressure(parts)
        super().__init__(model, [_attachment(c, model_kind, relaxation, pressure, bulk_modulus) for c in cylinders])
        self.model_kind = model_kind
        self.relaxation = relaxation
        self.cylinders = {c.name: c for c in cylinders}
        clash = sorted(set(self.cylinders) & set(parts))
        if clash:
            raise ParameterError(
                f"cylinder {clash[0]!r}: the netlist has a component of that name; give the cylinder another name"
            )
        admittance = 1.0 / (relaxation.damping + self.timestep * relaxation.stiffness) if model_kind == MODELS[0] else 0
        if model_kind == MODELS[0] and not math.isfinite(admittance):
            raise ParameterError("relaxation: K = B = 0 leaves the rods free of the pins; give K > 0 or B > 0")

        def network(coupling: float) -> Network:
            own = {
                name: (c.component(coupling), {"head": c.head_node, "rod": c.rod_node})
                for name, c in self.cylinders.items()
            }
            return Network({**parts, **own}, bulk_modulus=bulk_modulus)

        self.network = network(admittance)
        self.flow_network = network(0.0) if admittance > 0.0 else self.network
        n = len(self.actuators)
        self.link_ints = np.zeros((n, len(LINK_INTS)), dtype=np.int64)
        self.link_floats = np.zeros((n, len(LINK_FLOATS)))
        for i, a in enumerate(self.actuators):
            c = self.cylinders[a.name]
            self.link_ints[i] = (
                self.network.node(c.head_node),
                self.network.node(c.rod_node),
                self.network.inputs.index(f"{a.name}.velocity"),
                self.network.inputs.index(f"{a.name}.position"),
            )
            self.link_floats[i] = (c.head_area, c.rod_area, c.retracted_length, admittance)

    def _inputs(self, inputs: Mapping, t: np.ndarray) -> np.ndarray:
        """The inputs table (len(t), n_u): ``inputs`` sampled, spools lagged by their time
        constant; the cylinders' columns are filled by the loop."""
        table = np.zeros((t.size, len(self.network.inputs)))
        own = {f"{name}.{s}" for name in self.cylinders for s in Cylinder.INPUTS}
        for key, signal in inputs.items():
            if key in own:
                raise ParameterError(f"input {key!r}: a machine's cylinder moves with the model; drop this input")
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
            c = self.cylinders[a.name]
            head, rod = holding_pressures(a.circuit, init.forces[a.name], c.initial_low_pressure)
            held[network.node(c.head_node)] = head
            held[network.node(c.rod_node)] = rod
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
    ) -> tuple[SimulationResult, np.ndarray, np.ndarray]:
        """Step the model and the netlist for ``duration`` [s] from rest at ``qpos`` (holding it).

        ``inputs``: a signal (constant, array per step, or callable of t) per network input
        ``"component.input"`` (spool positions in [−1, 1], pump speeds [rad/s]); the cylinders'
        own inputs come from the model. ``loads``, ``check``, ``check_interval``: as
        :meth:`.system.HydraulicMujocoSystem.simulate`.

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
        load_sites, load_bodies, load_forces, load_moments = self.sample_loads(loads, t)
        if check:
            self.check_stability(qpos)
        init = self.initial_state(qpos, loads)
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
        rows = {
            "length": (O_LENGTH, "m", "pin-to-pin length ℓ"),
            "length_rate": (O_RATE, "m/s", "length rate (ℓ_k − ℓ_{k−1})/h"),
            "force": (O_FORCE, "N", "cylinder force f = A_h p_h − A_r p_r (> 0 pushes the pins apart)"),
            "head_pressure": (O_PH, "Pa", "head-side pressure p_h"),
            "rod_pressure": (O_PR, "Pa", "rod-side pressure p_r"),
            "rod_velocity": (O_VEL, "m/s", "rod velocity v"),
        }
        if self.model_kind == MODELS[0]:
            rows["rod_position"] = (O_ROD, "m", "rod displacement p")
        for i, a in enumerate(self.actuators):
            for key, (row, unit, label) in rows.items():
                channels[f"{a.name}.{key}"] = Channel(out[:, i, row], unit, label)
            if self.model_kind == MODELS[0]:
                stretch = out[:, i, O_ROD] - out[:, i, O_LENGTH]
                channels[f"{a.name}.stretch"] = Channel(stretch, "m", "relaxed element p − ℓ")
        return SimulationResult(
            t=t, channels=channels, counters=loop_counters(t, self.timestep, loop_time, compile_time)
        )

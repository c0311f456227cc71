"""The ``machine`` kind on a netlist: the model's cylinders and motors joined to the nodes of ``[components]``.

The cylinders sit at their pins (or slide joints) and their chambers at the nodes their
``ports`` name, the motors on their hinges with their ports at nodes;
:class:`actuatorlab.multibody.netlist_machine.NetlistMujocoSystem` steps the model and the
whole network together (quasistatic with the ``[relaxation]`` and each motor's own, or pressure
dynamics at ``bulk_modulus``), from rest at the initial pose, with the ``[inputs]`` (spool
positions, pump speeds) and the loads. The run reports the machine's channels (strokes, forces,
motors' angles, speeds and torques, joints, the picture), and the circuit's with the names of
the ``circuit`` kind: every node's
``pressure.NODE`` [Pa], every branch's ``flow.COMPONENT[.BRANCH]`` [m³/s] (q > 0 from its first
port to its second), ``input.COMPONENT.INPUT`` as applied, and the energy ledger of
:mod:`actuatorlab.hydraulics.circuits.ledger` per component (a cylinder's work ∫ f v dt at its
rod's velocity v, a motor's ∫ T ω dt at its shaft's speed).
"""

from __future__ import annotations

import numpy as np

from ...errors import ParameterError, SimulationError
from ...hydraulics.circuits.ledger import energy_ledger, run_flows, tank_flows
from ...hydraulics.quasistatic.relaxation import Relaxation
from ...multibody.closed_loop import ClosedLoop
from ...multibody.machine import add_joint_channels, add_stroke_channels, add_tracking_channels, tracking_summary
from ...multibody.netlist_machine import NetlistMujocoSystem
from ...simulation.result import Channel
from ..circuit_schema import MODELS
from ..machine_schema import MachineScenario
from ..output import FigureSpec, ScenarioOutput, SummaryFigure
from .circuit import energy_figures, input_unit, netlist_figures
from .machine_base import (
    build_model,
    chosen_relaxations,
    relaxation_note,
    cylinder_pins,
    located_error,
    loop_targets,
    motion_figures,
    picture_figure,
    start_note,
    summary_figures,
)


def build_netlist(spec: MachineScenario) -> tuple[NetlistMujocoSystem, dict, list[str]]:
    """(the system, the keyword arguments of its ``simulate``, notes) of ``spec`` on a netlist."""
    extra = []
    cylinders = [c.netlist_cylinder(**cylinder_pins(c, extra, f"cylinders[{i}]")) for i, c in enumerate(spec.cylinders)]
    given = spec.given_relaxations()
    parts = spec.components.parts()

    motors = [m.netlist_motor() for m in spec.motors]

    def system_with(relaxations: dict):
        def system(model):
            return NetlistMujocoSystem(
                model, cylinders, parts, MODELS[spec.model], relaxations, spec.bulk_modulus, motors
            )

        return system

    # a cylinder without a relaxation of the file's gets the default for its load, found on the model
    built, loads, qpos, notes = build_model(
        spec, extra, system_with({name: r or Relaxation() for name, r in given.items()})
    )
    if spec.model == "quasistatic" and cylinders:
        chosen, masses = chosen_relaxations(spec, built, qpos, given)
        if chosen != given:
            try:
                built = system_with(chosen)(built.model)
            except ParameterError as err:
                raise located_error(err, spec) from None
        notes.append(relaxation_note(given, chosen, masses))
    inputs = {key: signal.build(where=f'inputs."{key}"').sample for key, signal in spec.inputs.items()}
    controllers, drives = {}, {}
    for actuator, joint in [*((c, None) for c in spec.cylinders), *((m, m.joint) for m in spec.motors)]:
        control = actuator.control
        if control is not None:
            target = control.stroke if control.stroke is not None else control.angle
            loop = ClosedLoop(target.build().sample, control.controller(), control.measured_joint(joint))
            controllers[actuator.name] = loop
            drives[actuator.name] = control.drives
    kwargs = dict(
        duration=spec.duration,
        inputs=inputs,
        loads=loads,
        qpos=qpos,
        check_interval=spec.check_interval,
        controllers=controllers,
        settle=spec.settle,
        drives=drives,
    )
    return built, kwargs, notes


def _add_circuit_channels(result, system: NetlistMujocoSystem, p, u, flows, dimensions) -> None:
    """Node pressures, branch and tank flows, the inputs as applied (``dimensions``: each
    input's, for its SI unit) and each actuator's power."""
    ch = result.channels
    network = system.flow_network
    for i, node in enumerate(network.nodes):
        ch[f"pressure.{node}"] = Channel(p[:, i], "Pa", f"pressure at node {node} (gauge)")
    for key, q in flows.items():
        ch[f"flow.{key}"] = Channel(q, "m^3/s", f"flow of {key}")
    own = {*system.cylinders, *system.motors}
    for i, key in enumerate(network.inputs):
        if key.split(".")[0] not in own:
            ch[f"input.{key}"] = Channel(u[:, i], input_unit(dimensions[key]), f"input {key} as applied")
    h = system.timestep
    for a in system.actuators:
        if a.name in system.motors:
            power, what = result[f"{a.name}.torque"] * result[f"{a.name}.speed"], "T·θ̇"
        else:
            power, what = result[f"{a.name}.force"] * result[f"{a.name}.length_rate"], "f·ℓ̇"
        ch[f"{a.name}.mechanical_power"] = Channel(power, "W", f"{a.name}: power to the machine {what}")
        ch[f"{a.name}.work"] = Channel(np.cumsum(power) * h, "J", f"{a.name}: work on the machine ∫{what} dt")


def run_netlist(scenario: MachineScenario, progress=None) -> ScenarioOutput:
    from ...report.machine_plots import plot_motors, plot_tracking

    system, kwargs, notes = build_netlist(scenario)
    try:
        result, p, u = system.simulate(**kwargs)
    except (ParameterError, SimulationError) as err:
        raise located_error(err, scenario) from None
    if progress is not None:
        progress(1.0)
    network = system.flow_network
    flows = run_flows(network, p, u)
    flows.update(tank_flows(network, flows))
    ledger = energy_ledger(network, result.t, p, u, flows, MODELS[scenario.model])
    for a in system.actuators:
        if a.name in system.cylinders:
            add_stroke_channels(result, a)
    _add_circuit_channels(result, system, p, u, flows, scenario.components.inputs())
    add_joint_channels(result, system.model)
    targets = loop_targets(result, system, kwargs["controllers"])
    add_tracking_channels(result, targets)

    summary = {}
    for name in system.cylinders:
        summary[f"{name}.peak_force_N"] = float(np.max(np.abs(result[f"{name}.force"])))
        summary[f"{name}.stroke_range_m"] = float(np.ptp(result[f"{name}.stroke"]))
    for name in system.motors:
        summary[f"{name}.peak_torque_Nm"] = float(np.max(np.abs(result[f"{name}.torque"])))
        summary[f"{name}.angle_range_rad"] = float(np.ptp(result[f"{name}.angle"]))
        summary[f"{name}.peak_speed_rad_s"] = float(np.max(np.abs(result[f"{name}.speed"])))
    for i, node in enumerate(network.nodes):
        summary[f"pressure.{node}.max_Pa"] = float(p[:, i].max())
    summary |= tracking_summary(result, {name: unit for name, (_, _, unit) in targets.items()})
    summary["real_time_factor"] = float(result.counters["real_time_factor"])
    summary["loop_time_s"] = float(result.counters["loop_time_s"])
    figures_summary: list[SummaryFigure] = [*energy_figures(ledger), *summary_figures(summary)]

    table = result.columns()
    strokes, forces, joints = motion_figures(result, system, list(system.cylinders))
    motors = list(system.motors)
    figures = [strokes, forces] if system.cylinders else []
    if motors:
        figures.append(
            FigureSpec(
                "motors.png",
                "Motors: joint angles, speeds and torques (at the joint, the gear folded in).",
                lambda: plot_motors(result, motors),
            )
        )
    figures += [*netlist_figures(network, table, flows, ledger, scenario.name), joints]
    if targets:
        figures.append(
            FigureSpec(
                "tracking.png",
                "Tracking errors and commands of the closed loops (the command is the driven spools' position).",
                lambda: plot_tracking(result, list(targets)),
            )
        )
    figures.append(picture_figure(scenario, system, result))
    notes = [
        start_note(scenario, system),
        *notes,
        "Signs: a flow q > 0 goes from a component's first port to its second (spool edges PA, BT, PB, AT by "
        "their names); a cylinder's force > 0 pushes its pins apart, its velocity > 0 extends it.",
        f"Energy balance error of the ledger: {ledger.balance_error:.3g} J (delivered = dissipated + work + stored).",
    ]
    return ScenarioOutput(
        table=table,
        units={"t": "s", **result.units()},
        labels={},
        summary=figures_summary,
        figures=figures,
        notes=notes,
        counters=dict(result.counters),
    )

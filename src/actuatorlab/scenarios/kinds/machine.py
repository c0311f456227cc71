"""Scenario kind ``machine``: the user's MJCF or URDF model with hydraulic cylinders, circuits,
valve commands or closed loops, loads and an initial pose from one scenario file.

The model file is prepared by :mod:`actuatorlab.multibody.model_file` (never modified), the
cylinders run inside MuJoCo (:mod:`actuatorlab.multibody.system`, one compiled loop), starting
from the consistent initial state that holds the initial pose at rest; the derived channels
and figures of merit come from :mod:`actuatorlab.multibody.machine`.
"""

from __future__ import annotations

from collections.abc import Callable


from ...errors import ParameterError, ScenarioError, SimulationError
from ...hydraulics.pressure_dynamics import PressureDynamics
from ...hydraulics.quasistatic.relaxation import Relaxation
from ...multibody.closed_loop import ClosedLoop
from ...multibody.cylinders import PressureCylinder, QuasistaticCylinder
from ...multibody.open_centre import OpenCentreBleed
from ...multibody.machine import Supply, add_machine_channels, machine_summary
from ...multibody.model_file import PointSite
from ...multibody.system import HydraulicMujocoSystem
from ..machine_schema import CylinderSpec, MachineScenario
from ..output import FigureSpec, ScenarioOutput
from .machine_base import build_model, cylinder_pins, located_error, motion_figures, picture_figure, start_note
from .machine_base import chosen_relaxations, loop_targets, relaxation_note, summary_figures


def _sampler(signal) -> Callable:
    return signal.build().sample


def _cylinder(spec: MachineScenario, c: CylinderSpec, extra: list[PointSite], where: str, relaxation: Relaxation):
    circuit_spec = next(s for s in spec.circuits if s.name == c.circuit)
    head, rod = c.areas()
    circuit = circuit_spec.circuit(head, rod)
    pins = cylinder_pins(c, extra, where)
    constant = circuit_spec.supply == "constant-pressure"
    pump = circuit_spec.name if (circuit_spec.shared and not constant) else None
    supply = circuit_spec.supply_pressure if constant else None
    if spec.model == "quasistatic":
        return QuasistaticCylinder(
            c.name,
            circuit=circuit,
            relaxation=relaxation,
            pump=pump,
            min_length=c.retracted_length,
            max_length=c.retracted_length + c.stroke,
            supply_pressure=supply,
            **pins,
        )
    fluid = PressureDynamics(
        bulk_modulus=circuit_spec.bulk_modulus,
        head_dead_volume=c.head_dead_volume,
        rod_dead_volume=c.rod_dead_volume,
        stroke=c.stroke,
        pump_line_volume=circuit_spec.pump_line_volume,
        laminar_pressure=circuit_spec.laminar_pressure,
        relief_flow_gain=circuit_spec.relief_flow_gain,
        check_flow_gain=circuit_spec.check_flow_gain,
        retracted_length=c.retracted_length,
    )
    return PressureCylinder(
        c.name,
        circuit=circuit,
        fluid=fluid,
        initial_low_pressure=c.initial_low_pressure,
        pump=pump,
        supply_pressure=supply,
        **pins,
    )


def build(spec: MachineScenario) -> tuple[HydraulicMujocoSystem, dict, list[Supply], list[str]]:
    """(the system, the keyword arguments of its ``simulate``, the supplies, notes) of ``spec``
    on ``[[circuits]]``; every ``ParameterError`` comes out as a ``ScenarioError`` naming the field."""
    extra: list[PointSite] = []
    given = spec.given_relaxations()

    def cylinders_with(relaxations: dict, sites: list[PointSite]) -> list:
        out = []
        for i, c in enumerate(spec.cylinders):
            try:
                out.append(_cylinder(spec, c, sites, f"cylinders[{i}]", relaxations[c.name]))
            except ParameterError as err:
                raise ScenarioError(f"cylinders[{i}] ({c.name}): {err}") from None
        return out

    # a cylinder without a relaxation of the file's gets the default for its load, found on the model
    cylinders = cylinders_with({name: r or Relaxation() for name, r in given.items()}, extra)
    system, loads, qpos, notes = build_model(spec, extra, lambda model: HydraulicMujocoSystem(model, cylinders))
    if spec.model == "quasistatic":
        chosen, masses = chosen_relaxations(spec, system, qpos, given)
        if chosen != given:  # the same pins: their sites are in the model already
            system = HydraulicMujocoSystem(system.model, cylinders_with(chosen, []))
        notes.append(relaxation_note(given, chosen, masses))
    bleed, commands, controllers = {}, {}, {}
    for c in spec.cylinders:
        circuit = next(s for s in spec.circuits if s.name == c.circuit)
        bleed[c.name] = (
            OpenCentreBleed(circuit.bleed_span, circuit.bleed_min) if circuit.open_centre else _sampler(circuit.bleed)
        )
        if c.control is None:
            commands[c.name] = _sampler(c.command)
        else:
            target = c.control.stroke if c.control.stroke is not None else c.control.angle
            controllers[c.name] = ClosedLoop(_sampler(target), c.control.controller(), c.control.joint)
    regeneration = {c.name: _sampler(c.regeneration) for c in spec.cylinders if spec.model == "pressure-dynamics"}
    supplies = []
    for s in spec.circuits:
        members = tuple(c.name for c in spec.cylinders if c.circuit == s.name)
        if not members:
            continue
        if s.supply == "pump" and not s.shared:
            supplies += [Supply(f"{s.name}.{m}", (m,), True, s.pump_flow) for m in members]
        else:
            supplies.append(Supply(s.name, members, s.supply == "pump", s.pump_flow))
    kwargs = dict(
        duration=spec.duration,
        valve_commands=commands,
        bleed=bleed,
        loads=loads,
        qpos=qpos,
        consistent=True,
        regeneration=regeneration or None,
        check_interval=spec.check_interval,
        controllers=controllers,
        settle=spec.settle,
    )
    return system, kwargs, supplies, notes


def run(scenario: MachineScenario, progress=None) -> ScenarioOutput:
    if scenario.components is not None:
        from .machine_netlist import run_netlist

        return run_netlist(scenario, progress)
    from ...report.machine_plots import plot_flows, plot_power, plot_pressures, plot_tracking

    system, kwargs, supplies, notes = build(scenario)
    try:
        result = system.simulate(**kwargs)
    except (ParameterError, SimulationError) as err:
        raise located_error(err, scenario) from None
    if progress is not None:
        progress(1.0)
    targets = loop_targets(result, system, kwargs["controllers"])
    add_machine_channels(result, system, supplies, targets)
    summary = machine_summary(result, system, supplies, {name: unit for name, (_, _, unit) in targets.items()})
    table = result.columns()  # written without pandas
    units = {"t": "s", **result.units()}
    loops = list(targets)
    for name in loops:
        unit = targets[name][2]
        notes.append(
            f"{name}: closed loop on its {'stroke' if unit == 'm' else 'joint angle'}, tracking error RMS "
            f"{summary[f'{name}.tracking_rms_{unit}']:.4g} {unit}."
        )
    cylinders = [a.name for a in system.actuators]
    supply_names = [s.name for s in supplies]
    strokes, forces, joints = motion_figures(result, system)
    figures = [
        strokes,
        forces,
        FigureSpec(
            "pressures.png",
            "Chamber pressures and pump or supply pressures.",
            lambda: plot_pressures(result, cylinders, supply_names),
        ),
        FigureSpec(
            "flows.png",
            "Flow from the supply into each cylinder, and pump relief flows.",
            lambda: plot_flows(result, cylinders),
        ),
        FigureSpec(
            "power.png",
            "Hydraulic power in and losses; energy per cylinder and in total.",
            lambda: plot_power(result, cylinders, supply_names, summary),
        ),
        joints,
    ]
    if loops:
        figures.append(
            FigureSpec(
                "tracking.png",
                "Tracking errors and valve commands of the closed loops.",
                lambda: plot_tracking(result, loops),
            )
        )
    figures.append(picture_figure(scenario, system, result))
    return ScenarioOutput(
        table=table,
        units=units,
        labels={},
        summary=summary_figures(summary),
        figures=figures,
        notes=[start_note(scenario, system), *notes],
        counters=dict(result.counters),
    )

"""Scenario kind ``machine``: the user's MJCF or URDF model with hydraulic cylinders, circuits,
valve commands or closed loops, loads and an initial pose from one scenario file.

The model file is prepared by :mod:`actuatorlab.multibody.model_file` (never modified), the
cylinders run inside MuJoCo (:mod:`actuatorlab.multibody.system`, one compiled loop), starting
from the consistent initial state that holds the initial pose at rest; the derived channels
and figures of merit come from :mod:`actuatorlab.multibody.machine`.
"""

from __future__ import annotations

from collections.abc import Callable

import mujoco
import numpy as np

from ...errors import ActuatorlabError, ParameterError, ScenarioError, SimulationError
from ...hydraulics.pressure_dynamics import PressureDynamics
from ...hydraulics.quasistatic.relaxation import Relaxation
from ...multibody.closed_loop import ClosedLoop
from ...multibody.cylinders import PressureCylinder, QuasistaticCylinder, SiteLoad
from ...multibody.open_centre import OpenCentreBleed
from ...multibody.machine import Supply, add_machine_channels, machine_summary
from ...multibody.model_file import Payload, PointSite, joint_values, load_machine_model, movable_joint
from ...multibody.system import HydraulicMujocoSystem
from ..machine_schema import CylinderSpec, MachineScenario, PinSpec
from ..output import FigureSpec, ScenarioOutput, SummaryFigure


def _sampler(signal) -> Callable:
    return signal.build().sample


def _vector(signals) -> Callable:
    parts = [s.build() for s in signals]
    return lambda t: np.stack([p.sample(np.asarray(t, dtype=np.float64)) for p in parts], axis=-1)


def _site(pin: PinSpec, name: str, extra: list[PointSite], where: str) -> str:
    """The site of ``pin``: its own, or a new one ``name`` at body + point (``where``: its field)."""
    if pin.site is not None:
        return pin.site
    extra.append(PointSite(name, pin.body, tuple(pin.point or (0.0, 0.0, 0.0)), f"{where}.body"))
    return name


def _located(err: ActuatorlabError, spec: MachineScenario) -> ActuatorlabError:
    """``err`` naming the cylinder's table rather than the actuator: a ParameterError (a value of
    the file) as a ScenarioError, a SimulationError as itself."""
    message = str(err)
    for i, c in enumerate(spec.cylinders):
        message = message.replace(f"actuator {c.name!r}", f"cylinders[{i}] ({c.name})")
    return SimulationError(message) if isinstance(err, SimulationError) else ScenarioError(message)


def _cylinder(spec: MachineScenario, c: CylinderSpec, extra: list[PointSite], where: str):
    circuit_spec = next(s for s in spec.circuits if s.name == c.circuit)
    head, rod = c.areas()
    circuit = circuit_spec.circuit(head, rod)
    pins = {}
    if c.joint is None:
        pins = {
            "base_site": _site(c.base, f"{c.name}.base", extra, f"{where}.base"),
            "rod_site": _site(c.rod, f"{c.name}.rod", extra, f"{where}.rod"),
        }
    else:
        pins = {"joint": c.joint, "length_offset": c.length_offset}
    constant = circuit_spec.supply == "constant-pressure"
    pump = circuit_spec.name if (circuit_spec.shared and not constant) else None
    supply = circuit_spec.supply_pressure if constant else None
    if spec.model == "quasistatic":
        relaxation = Relaxation(spec.relaxation.stiffness, spec.relaxation.damping)
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
    """(the system, the keyword arguments of its ``simulate``, the supplies, notes) of ``spec``;
    every ``ParameterError`` comes out as a ``ScenarioError`` naming the field."""
    extra: list[PointSite] = []
    cylinders = []
    for i, c in enumerate(spec.cylinders):
        try:
            cylinders.append(_cylinder(spec, c, extra, f"cylinders[{i}]"))
        except ParameterError as err:
            raise ScenarioError(f"cylinders[{i}] ({c.name}): {err}") from None
    loads = []
    for i, load in enumerate(spec.loads):
        site = _site(load.pin(), f"load{i}", extra, f"loads[{i}]")
        loads.append(SiteLoad(site, _vector(load.force), _vector(load.moment)))
    payloads = [
        Payload(f"payload{i}", p.body, tuple(p.point), p.mass, f"payloads[{i}].body")
        for i, p in enumerate(spec.payloads)
    ]
    try:
        model, notes = load_machine_model(
            spec.model_file,
            spec.drop_actuators,
            spec.drop_missing_assets,
            spec.drop_plugins,
            extra,
            payloads,
            spec.contacts,
            spec.timestep,
        )
        system = HydraulicMujocoSystem(model, cylinders)
        pose = {
            name: spec.pose_value(
                name, model.jnt_type[movable_joint(model, name, f"initial_pose.{name}")] == mujoco.mjtJoint.mjJNT_HINGE
            )
            for name in spec.initial_pose
        }
        qpos = joint_values(model, pose)
    except ParameterError as err:
        raise _located(err, spec) from None
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
    )
    return system, kwargs, supplies, notes


def _targets(result, system: HydraulicMujocoSystem, kwargs: dict) -> dict:
    out = {}
    for name, loop in kwargs["controllers"].items():
        target = np.asarray(loop.target(result.t), dtype=np.float64)
        if loop.joint is None:
            a = system.actuators[system.index[name]]
            out[name] = (target, result[f"{name}.length"] - a.length_limits[0], "m")
        else:
            joint = mujoco.mj_name2id(system.model, mujoco.mjtObj.mjOBJ_JOINT, loop.joint)
            out[name] = (target, result[f"qpos_{system.model.jnt_qposadr[joint]}"], "rad")
    return out


def _unit(key: str) -> str:
    for suffix, unit in (("_J", "J"), ("_N", "N"), ("_m", "m"), ("_Pa", "Pa"), ("_s", "s"), ("_rad", "rad")):
        if key.endswith(suffix):
            return unit
    return ""


def run(scenario: MachineScenario, progress=None) -> ScenarioOutput:
    from ...report.machine_picture import RenderJob, plot_picture
    from ...report.machine_plots import (
        plot_flows,
        plot_forces,
        plot_joints,
        plot_power,
        plot_pressures,
        plot_strokes,
        plot_tracking,
    )

    system, kwargs, supplies, notes = build(scenario)
    try:
        result = system.simulate(**kwargs)
    except (ParameterError, SimulationError) as err:
        raise _located(err, scenario) from None
    if progress is not None:
        progress(1.0)
    targets = _targets(result, system, kwargs)
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
    figures_summary = [
        SummaryFigure(key, value, _unit(key), key.replace("_", " ").replace(".", ": "))
        for key, value in summary.items()
    ]
    cylinders = [a.name for a in system.actuators]
    supply_names = [s.name for s in supplies]
    joints = [key.removeprefix("joint.") for key in result.channels if key.startswith("joint.")]
    t = result.t
    times = scenario.picture.times or list(np.linspace(t[0], t[-1], 4))
    # instants after the run's end (a shortened run) are drawn once, at its end
    steps = sorted({int(np.clip(np.searchsorted(t, min(x, t[-1])), 0, t.size - 1)) for x in times})
    qpos = np.column_stack([result[f"qpos_{i}"] for i in range(system.model.nq)])
    pins = [(int(system.ints[i, 0]), int(system.ints[i, 1])) for i in range(len(cylinders)) if system.ints[i, 0] >= 0]

    # MuJoCo renders in a child process, started before the first figure is drawn (never if none
    # is), so that it works while the other figures are drawn; the picture is drawn last
    jobs: list[RenderJob] = []

    def start_rendering() -> None:
        if not jobs and scenario.picture.renderer != "drawing":
            jobs.append(RenderJob(system.model, pins, plane=scenario.picture.plane))
            jobs[0].render(qpos[steps])

    def picture():
        fig, how = plot_picture(
            system.model,
            [t[k] for k in steps],
            qpos[steps],
            pins,
            scenario.picture.renderer,
            scenario.picture.plane,
            jobs[0] if jobs else None,
        )
        fig.text(0.01, 0.01, how, fontsize=7, color="0.3")
        return fig

    figures = [
        FigureSpec(
            "strokes.png",
            "Cylinder strokes (closed-loop targets dashed) and extension rates.",
            lambda: plot_strokes(result, cylinders),
        ),
        FigureSpec(
            "forces.png", "Cylinder forces (> 0 pushes the pins apart).", lambda: plot_forces(result, cylinders)
        ),
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
        FigureSpec("joints.png", "Joint angles and positions of the model.", lambda: plot_joints(result, joints)),
    ]
    if loops:
        figures.append(
            FigureSpec(
                "tracking.png",
                "Tracking errors and valve commands of the closed loops.",
                lambda: plot_tracking(result, loops),
            )
        )
    figures.append(
        FigureSpec(
            "machine.png",
            "The machine at a few instants (MuJoCo's offscreen renderer where it "
            "works, else a drawing of bodies, cylinders and pins from the recorded poses).",
            picture,
            start=start_rendering,
        )
    )
    notes = [
        f"Model file {scenario.model_file} ({scenario.model} cylinders, MuJoCo step {system.timestep:g} s); the "
        "machine starts held at rest at the initial pose (cylinder forces from MuJoCo's inverse dynamics).",
        *notes,
    ]
    return ScenarioOutput(
        table=table,
        units=units,
        labels={},
        summary=figures_summary,
        figures=figures,
        notes=notes,
        counters=dict(result.counters),
    )

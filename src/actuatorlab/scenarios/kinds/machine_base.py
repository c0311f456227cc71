"""What every run of the ``machine`` kind shares, on ``[[circuits]]`` or on a netlist: the model
file loaded with the pins', loads' and payloads' sites, the initial pose, errors located at the
file's tables, and the figures of the motion and of the machine.
"""

from __future__ import annotations

from collections.abc import Callable

import mujoco
import numpy as np

from ...errors import ActuatorlabError, ParameterError, ScenarioError, SimulationError
from ...hydraulics.quasistatic.relaxation import default_relaxation
from ...multibody.cylinders import SiteLoad
from ...multibody.model_file import Payload, PointSite, joint_values, load_machine_model, movable_joint
from ...multibody.system import HydraulicMujocoSystem
from ..machine_schema import CylinderSpec, MachineScenario, PinSpec
from ..output import FigureSpec, SummaryFigure


def _vector(signals) -> Callable:
    parts = [s.build() for s in signals]
    return lambda t: np.stack([p.sample(np.asarray(t, dtype=np.float64)) for p in parts], axis=-1)


def _site(pin: PinSpec, name: str, extra: list[PointSite], where: str) -> str:
    """The site of ``pin``: its own, or a new one ``name`` at body + point (``where``: its field)."""
    if pin.site is not None:
        return pin.site
    extra.append(PointSite(name, pin.body, tuple(pin.point or (0.0, 0.0, 0.0)), f"{where}.body"))
    return name


def located_error(err: ActuatorlabError, spec: MachineScenario) -> ActuatorlabError:
    """``err`` naming the cylinder's table rather than the actuator: a ParameterError (a value of
    the file) as a ScenarioError, a SimulationError as itself."""
    message = str(err)
    for what, actuators in (("cylinders", spec.cylinders), ("motors", spec.motors)):
        for i, a in enumerate(actuators):
            message = message.replace(f"actuator {a.name!r}", f"{what}[{i}] ({a.name})")
    return SimulationError(message) if isinstance(err, SimulationError) else ScenarioError(message)


def cylinder_pins(c: CylinderSpec, extra: list[PointSite], where: str) -> dict:
    """The keyword arguments placing cylinder ``c``: its two sites (new ones appended to
    ``extra`` for body + point pins), or its slide joint and length offset."""
    if c.joint is not None:
        return {"joint": c.joint, "length_offset": c.length_offset}
    return {
        "base_site": _site(c.base, f"{c.name}.base", extra, f"{where}.base"),
        "rod_site": _site(c.rod, f"{c.name}.rod", extra, f"{where}.rod"),
    }


def build_model(spec: MachineScenario, extra: list[PointSite], system: Callable) -> tuple:
    """(the system, the loads, the initial qpos, notes): the model file loaded with the sites
    ``extra`` and the loads' and payloads' own, ``system(model)`` built on it, the initial pose
    read; every ``ParameterError`` comes out located (:func:`located_error`)."""
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
            spec.drop_unreadable_meshes,
        )
        built = system(model)
        pose = {
            name: spec.pose_value(
                name, model.jnt_type[movable_joint(model, name, f"initial_pose.{name}")] == mujoco.mjtJoint.mjJNT_HINGE
            )
            for name in spec.initial_pose
        }
        return built, loads, joint_values(model, pose), notes
    except ParameterError as err:
        raise located_error(err, spec) from None


def chosen_relaxations(spec: MachineScenario, system, qpos, given: dict) -> tuple[dict, dict]:
    """(per cylinder name its relaxation, the effective masses): ``given`` (the file's, or None)
    or else the default for its load at the initial pose ``qpos`` and the model's step
    (``default_relaxation`` on ``HydraulicMujocoSystem.effective_masses``: name → (m [kg], bound)),
    the masses found only where a default was needed (else empty)."""
    if all(r is not None for r in given.values()):
        return dict(given), {}
    try:
        masses = system.effective_masses(qpos)
    except ParameterError as err:
        raise located_error(err, spec) from None
    chosen = {
        name: r if r is not None else default_relaxation(masses[name][0], system.timestep, masses[name][1])
        for name, r in given.items()
    }
    return chosen, masses


def relaxation_note(given: dict, chosen: dict, masses: dict) -> str:
    """The note naming each cylinder's relaxation and where it came from."""
    parts = []
    for name, r in chosen.items():
        source = "given" if given[name] is not None else f"the default for its effective mass {masses[name][0]:.4g} kg"
        parts.append(f"{name} K = {r.stiffness:.3g} N/m, B = {r.damping:.3g} N s/m ({source})")
    return "Relaxation of the quasistatic cylinders: " + "; ".join(parts) + "."


def _unit(key: str) -> str:
    suffixes = (("_J", "J"), ("_N", "N"), ("_Nm", "N*m"), ("_m", "m"), ("_Pa", "Pa"), ("_rad_s", "rad/s"))
    for suffix, unit in (*suffixes, ("_s", "s"), ("_rad", "rad")):
        if key.endswith(suffix):
            return unit
    return ""


def picture_figure(scenario: MachineScenario, system: HydraulicMujocoSystem, result) -> FigureSpec:
    """``machine.png``: the machine at ``scenario.picture.times`` (default four instants).
    MuJoCo renders in a child process, started before the first figure is drawn (never if none
    is), so that it works while the other figures are drawn; the picture is drawn last."""
    from ...report.machine_picture import RenderJob, plot_picture

    t = result.t
    times = scenario.picture.times or list(np.linspace(t[0], t[-1], 4))
    # instants after the run's end (a shortened run) are drawn once, at its end
    steps = sorted({int(np.clip(np.searchsorted(t, min(x, t[-1])), 0, t.size - 1)) for x in times})
    qpos = np.column_stack([result[f"qpos_{i}"] for i in range(system.model.nq)])
    count = len(system.actuators)
    pins = [(int(system.ints[i, 0]), int(system.ints[i, 1])) for i in range(count) if system.ints[i, 0] >= 0]
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

    return FigureSpec(
        "machine.png",
        "The machine at a few instants (MuJoCo's offscreen renderer where it "
        "works, else a drawing of bodies, cylinders and pins from the recorded poses).",
        picture,
        start=start_rendering,
    )


def motion_figures(result, system: HydraulicMujocoSystem, cylinders: list[str] | None = None) -> list[FigureSpec]:
    """Strokes and forces of ``cylinders`` (default: every actuator), and the joints."""
    from ...report.machine_plots import plot_forces, plot_joints, plot_strokes

    cylinders = [a.name for a in system.actuators] if cylinders is None else cylinders
    joints = [key.removeprefix("joint.") for key in result.channels if key.startswith("joint.")]
    return [
        FigureSpec(
            "strokes.png",
            "Cylinder strokes (closed-loop targets dashed) and extension rates.",
            lambda: plot_strokes(result, cylinders),
        ),
        FigureSpec(
            "forces.png", "Cylinder forces (> 0 pushes the pins apart).", lambda: plot_forces(result, cylinders)
        ),
        FigureSpec("joints.png", "Joint angles and positions of the model.", lambda: plot_joints(result, joints)),
    ]


def summary_figures(summary: dict[str, float]) -> list[SummaryFigure]:
    """The figures of merit, each key's unit read from its suffix."""
    return [SummaryFigure(k, v, _unit(k), k.replace("_", " ").replace(".", ": ")) for k, v in summary.items()]


def start_note(scenario: MachineScenario, system: HydraulicMujocoSystem) -> str:
    return (
        f"Model file {scenario.model_file} ({scenario.model} cylinders, MuJoCo step {system.timestep:g} s); the "
        "machine starts held at rest at the initial pose (cylinder forces from MuJoCo's inverse dynamics)."
    )


def loop_targets(result, system: HydraulicMujocoSystem, controllers: dict) -> dict:
    """Per closed loop (name → ``ClosedLoop``): (target, measurement, unit) on ``result.t``: the
    stroke ℓ − ℓ₀ [m], or the qpos of the loop's joint [rad]."""
    out = {}
    for name, loop in controllers.items():
        target = np.asarray(loop.target(result.t), dtype=np.float64)
        if loop.joint is None:
            a = system.actuators[system.index[name]]
            out[name] = (target, result[f"{name}.length"] - a.length_limits[0], "m")
        else:
            joint = mujoco.mj_name2id(system.model, mujoco.mjtObj.mjOBJ_JOINT, loop.joint)
            out[name] = (target, result[f"qpos_{system.model.jnt_qposadr[joint]}"], "rad")
    return out

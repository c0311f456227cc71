"""The ~20 t excavator of :mod:`actuatorlab.machines.excavator` in MuJoCo: three cylinders on one
pump, the digging cycle with its soil loads, and the cycle's figures of merit.

Cylinder models (``model``):

- ``"quasistatic"``: three ``QuasistaticCylinder`` on one pump (``pump="main"``,
  ``PumpNetwork``, Kikuuwe et al. Sec. 6.2): the pump flow Q, its bleed valve and relief valve
  P_M are shared; each cylinder has its own four main valves and chamber reliefs.
- ``"pressure-dynamics"``: three ``PressureCylinder`` on one shared pump line (``pump="main"``):
  bulk-modulus chambers and one pump-line volume fed by Q, with the same bleed and relief.

Signs: a cylinder force f > 0 pushes its pins apart; u_c > 0 extends (boom up, stick in, bucket
curl). All values SI. The built-in ``excavator-dig`` scenario is the same machine as a ``machine`` file.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError, SimulationError, needs_extras
from ..machines.excavator import (
    CYLINDER_SITES,
    CYLINDERS,
    DIG_START_POSE,
    JOINTS,
    PUMP,
    SOIL_SITE,
    TIP_SITE,
    DigCycle,
    ExcavatorParameters,
    excavator_mjcf,
)
from ..simulation.result import Channel, SimulationResult
from ..validation import positive
from .cylinders import PressureCylinder, QuasistaticCylinder, SiteLoad
from .system import HydraulicMujocoSystem

with needs_extras("actuatorlab.multibody"):
    import mujoco

MODELS = ("quasistatic", "pressure-dynamics")
"""The cylinder models ``excavator_system`` and ``run_dig_cycle`` take."""


def excavator_system(
    model: str = "quasistatic", params: ExcavatorParameters | None = None, timestep: float = 1e-3
) -> HydraulicMujocoSystem:
    """The excavator with its three cylinders on one pump (``pump="main"``) as
    ``QuasistaticCylinder`` (``model="quasistatic"``) or ``PressureCylinder``
    (``"pressure-dynamics"``)."""
    p = params or ExcavatorParameters()
    if model not in MODELS:
        raise ParameterError(f"model = {model!r}: give one of {', '.join(MODELS)}")
    actuators = []
    for name in CYLINDERS:
        base, rod = CYLINDER_SITES[name]
        size = p.cylinder(name)
        if model == "quasistatic":
            actuators.append(
                QuasistaticCylinder(
                    name,
                    base,
                    rod,
                    p.circuit(name),
                    p.relaxation,
                    pump=PUMP,
                    min_length=size.retracted_length,
                    max_length=size.retracted_length + size.stroke,
                )
            )
        else:
            actuators.append(
                PressureCylinder(name, base, rod, p.circuit(name), p.fluid(name), initial_low_pressure=1.0e6, pump=PUMP)
            )
    return HydraulicMujocoSystem(excavator_mjcf(p, timestep), actuators)


def dig_cycle_loads(cycle: DigCycle) -> list[SiteLoad]:
    """The soil loads of ``cycle``: the drag at the tooth tip and the soil's weight in the bucket."""
    return [SiteLoad(TIP_SITE, cycle.drag_force), SiteLoad(SOIL_SITE, cycle.soil_force)]


def holding_report(system: HydraulicMujocoSystem, qpos=DIG_START_POSE, loads=()) -> dict[str, dict[str, float]]:
    """Per cylinder, the static holding state at rest at ``qpos`` under gravity and ``loads`` (at
    t = 0): ``force_N`` f (> 0 pushes the pins apart), ``side`` (+1 head, −1 rod: the loaded
    chamber), ``pressure_Pa`` the loaded chamber's pressure with the other at 0 (|f|/A),
    ``chamber_relief_Pa`` and ``pump_relief_Pa`` of its circuit, and ``pump_margin_Pa`` =
    P_M − pressure: < 0 means the pump relief opens below the static load, so the pump cannot
    move this cylinder against the load (it stalls with the relief passing the pump flow)."""
    forces, _, _ = system.holding_forces(list(qpos), loads)
    out = {}
    for i, a in enumerate(system.actuators):
        f = float(forces[i])
        c = a.circuit
        side = 1.0 if f >= 0.0 else -1.0
        area = c.head_area if f >= 0.0 else c.rod_area
        relief = c.head_relief_pressure if f >= 0.0 else c.rod_relief_pressure
        pressure = abs(f) / area
        out[a.name] = {
            "force_N": f,
            "side": side,
            "pressure_Pa": pressure,
            "chamber_relief_Pa": relief,
            "pump_relief_Pa": c.pump_relief_pressure,
            "pump_margin_Pa": c.pump_relief_pressure - pressure,
        }
    return out


def check_reliefs(report: dict[str, dict[str, float]]) -> None:
    """Raise ``SimulationError`` naming every cylinder whose static load exceeds its chamber
    relief (no holding state) or the pump relief (the pump cannot drive it against the load)."""
    problems = []
    for name, r in report.items():
        chamber = "head" if r["side"] > 0 else "rod"
        if r["pressure_Pa"] > r["chamber_relief_Pa"]:
            problems.append(
                f"{name}: the static load needs {r['pressure_Pa'] / 1e6:.3g} MPa in the {chamber} chamber "
                f"(f = {r['force_N'] / 1e3:.4g} kN), above its chamber relief {r['chamber_relief_Pa'] / 1e6:.3g} MPa: "
                "the relief would open and the machine cannot be held"
            )
        elif r["pump_margin_Pa"] < 0.0:
            problems.append(
                f"{name}: the static load needs {r['pressure_Pa'] / 1e6:.3g} MPa in the {chamber} chamber "
                f"(f = {r['force_N'] / 1e3:.4g} kN), above the pump relief P_M = {r['pump_relief_Pa'] / 1e6:.3g} MPa: "
                "the pump cannot move this cylinder against the load"
            )
    if problems:
        raise SimulationError(
            "relief pressure below the static load — "
            + "; ".join(problems)
            + ". Raise the relief settings or reduce the load."
        )


def run_dig_cycle(
    model: str = "quasistatic",
    duration: float | None = None,
    timestep: float = 1e-3,
    params: ExcavatorParameters | None = None,
    cycle: DigCycle | None = None,
    qpos=DIG_START_POSE,
    check_relief: bool = True,
) -> tuple[SimulationResult, dict]:
    """Run the digging cycle ``cycle`` (default ``DigCycle()``, 12 s) with consistent
    initialisation (held at rest at ``qpos`` under gravity), all three cylinders on one pump.

    ``duration`` [s]: run length (default the cycle's; shorter cuts it). Returns
    ``(result, info)``: ``result`` has the channels of ``HydraulicMujocoSystem.simulate``
    (``qpos_0..2`` joint angles [rad], ``<cyl>.length`` [m], ``.force`` [N], ``.pump_pressure``
    [Pa], ``.pump_relief_flow`` [m³/s], chamber pressures [Pa] for the pressure model) plus
    ``<cyl>.stroke`` [m] (piston position ℓ − ℓ₀), ``boom_angle``, ``stick_angle``,
    ``bucket_angle`` [rad] (= qpos_0..2), ``tip_x``, ``tip_z`` [m] (bucket tooth tip,
    world), ``drag_weight``, ``soil_weight`` [-]; ``info`` holds ``system``, ``params``,
    ``cycle``, ``model``, ``summary`` (see ``dig_cycle_summary``) and ``holding``
    (``holding_report`` at the start pose).

    ``check_relief``: before the run, raise ``SimulationError`` if a relief setting is below the
    static load at the start pose (``check_reliefs``: a chamber relief below the holding
    pressure, or the pump relief below it so the cylinder could not be driven against the load).
    """
    p = params or ExcavatorParameters()
    cyc = cycle or DigCycle()
    system = excavator_system(model, p, timestep)
    run = cyc.duration if duration is None else positive("duration", duration, "s")
    loads = dig_cycle_loads(cyc)
    holding = holding_report(system, qpos, loads)
    if check_relief:
        check_reliefs(holding)
    result = system.simulate(run, cyc.commands(), cyc.bleed(), loads, qpos=list(qpos), consistent=True)
    add_derived_channels(result, system, p, cyc)
    info = {"system": system, "params": p, "cycle": cyc, "model": model, "holding": holding}
    info["summary"] = dig_cycle_summary(result, p)
    return result, info


def tip_path(system: HydraulicMujocoSystem, qpos: np.ndarray, site: str = TIP_SITE) -> np.ndarray:
    """World (x, z) [m] of ``site`` for every row of ``qpos`` (n, nq) by MuJoCo forward kinematics."""
    model = system.model
    data = mujoco.MjData(model)
    sid = system.site_id(site)
    out = np.empty((len(qpos), 2))
    for k, q in enumerate(qpos):
        data.qpos[:] = q
        mujoco.mj_kinematics(model, data)
        out[k] = data.site_xpos[sid, [0, 2]]
    return out


def recorded_qpos(result: SimulationResult, nq: int) -> np.ndarray:
    """The joint positions ``qpos_0 … qpos_{nq−1}`` of ``result`` as an array (n_steps, nq)."""
    return np.column_stack([result[f"qpos_{i}"] for i in range(nq)])


def add_derived_channels(
    result: SimulationResult, system: HydraulicMujocoSystem, params: ExcavatorParameters, cycle: DigCycle
) -> None:
    """Add strokes, named joint angles, the tip path and the load weights to ``result`` (in place)."""
    for name in CYLINDERS:
        l0 = params.cylinder(name).retracted_length
        result.channels[f"{name}.stroke"] = Channel(
            result[f"{name}.length"] - l0, "m", f"{name} piston position ℓ − ℓ₀"
        )
    for j, joint in enumerate(JOINTS):
        what = "boom angle from horizontal" if j == 0 else f"{joint.split('_')[0]} angle relative to the link before"
        result.channels[f"{joint.split('_')[0]}_angle"] = Channel(
            result[f"qpos_{j}"], "rad", f"{what} (counter-clockwise in the side view)"
        )
    tip = tip_path(system, recorded_qpos(result, system.model.nq))
    result.channels["tip_x"] = Channel(tip[:, 0], "m", "bucket tip x (forward)")
    result.channels["tip_z"] = Channel(tip[:, 1], "m", "bucket tip z (up)")
    result.channels["drag_weight"] = Channel(cycle.drag_weight(result.t), "1", "soil drag load weight")
    result.channels["soil_weight"] = Channel(cycle.soil_weight(result.t), "1", "soil in bucket weight")


def dig_cycle_summary(result: SimulationResult, params: ExcavatorParameters | None = None) -> dict[str, float]:
    """Cycle figures: ``cycle_time_s``, ``peak_pump_pressure_Pa``, ``peak_chamber_pressure_Pa``
    (pressure model; for the quasistatic model the peak of |f|/A over the loaded side is given
    as ``peak_equivalent_pressure_Pa`` instead), ``peak_force_<cyl>_N`` (largest |f|),
    ``stroke_range_<cyl>_m``, ``relief_volume_m3`` (oil through the pump relief),
    ``relief_time_s`` (time with relief flow), ``real_time_factor``, ``loop_time_s``,
    ``tip_travel_m`` (path length of the tip)."""
    p = params or ExcavatorParameters()
    h = float(result.t[1] - result.t[0]) if result.t.size > 1 else 0.0
    pump = result[f"{CYLINDERS[0]}.pump_pressure"]
    relief = result[f"{CYLINDERS[0]}.pump_relief_flow"]
    out = {
        "cycle_time_s": float(result.t[-1] + h),
        "peak_pump_pressure_Pa": float(np.max(pump)),
        "relief_volume_m3": float(np.sum(relief) * h),
        "relief_time_s": float(np.count_nonzero(relief > 0.0) * h),
        "real_time_factor": float(result.counters["real_time_factor"]),
        "loop_time_s": float(result.counters["loop_time_s"]),
    }
    chamber = []
    for name in CYLINDERS:
        f = result[f"{name}.force"]
        out[f"peak_force_{name}_N"] = float(np.max(np.abs(f)))
        out[f"stroke_range_{name}_m"] = (
            float(np.ptp(result[f"{name}.stroke"]))
            if f"{name}.stroke" in result.channels
            else float(np.ptp(result[f"{name}.length"]))
        )
        if f"{name}.head_pressure" in result.channels:
            chamber.append(max(np.max(result[f"{name}.head_pressure"]), np.max(result[f"{name}.rod_pressure"])))
        else:
            c = p.circuit(name)
            chamber.append(max(np.max(f) / c.head_area, np.max(-f) / c.rod_area, 0.0))
    key = (
        "peak_chamber_pressure_Pa"
        if f"{CYLINDERS[0]}.head_pressure" in result.channels
        else "peak_equivalent_pressure_Pa"
    )
    out[key] = float(max(chamber))
    tip = np.column_stack([result["tip_x"], result["tip_z"]]) if "tip_x" in result.channels else None
    if tip is not None:
        out["tip_travel_m"] = float(np.sum(np.linalg.norm(np.diff(tip, axis=0), axis=1)))
    return out

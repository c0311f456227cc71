"""A machine run's derived channels and figures of merit: strokes, chamber pressures, power and energy.

From a ``SimulationResult`` of ``HydraulicMujocoSystem.simulate`` (signs of :mod:`.cylinders`:
f > 0 pushes the pins apart, ℓ̇ > 0 extends) this adds, per cylinder ``c``:

- ``c.stroke`` x = ℓ − ℓ₀ [m] and ``c.velocity`` ℓ̇ [m/s];
- quasistatic model: ``c.head_pressure``, ``c.rod_pressure`` [Pa] from the state (v, f) by
  (61)–(62) and (106) (:mod:`actuatorlab.hydraulics.quasistatic.chambers`);
- ``c.hydraulic_power`` P·Q_p [W], the power the supply delivers into the cylinder's valves
  (pump or supply pressure P times the flow Q_p it feeds the cylinder), and
  ``c.mechanical_power`` f·ℓ̇ [W], the power the cylinder delivers to the machine (< 0 when the
  load drives it); their time integrals ``c.hydraulic_energy`` and ``c.work`` [J];
- ``c.compliance_power`` [W], the power taken up by the cylinder's compliance: the relaxed
  spring–damper between rod and pins, f·(v − ℓ̇) (quasistatic: v the rod's velocity), or the
  oil in its chambers, p_h V_h ṗ_h/β + p_r V_r ṗ_r/β (pressure dynamics: what the chamber flows
  bring in beyond the piston's displacement). It is < 0 where the compliance gives back energy
  it held, as a cylinder holding a load at the start does when the load is taken off: its pins
  then move and it does work with no oil from the supply;
- ``c.valve_losses`` [W] = P·Q_p − f·ℓ̇ − compliance: the power dissipated in its valves and
  chamber reliefs, Σ Δp·q over them (meter-in and meter-out throttling, relief flows; the
  quasistatic model's P·Q_p − f·v), ≥ 0 at every step;
- closed loops: ``c.target`` and ``c.tracking_error`` (target − measurement) [m or rad];

and per supply ``supply.<name>.power`` [W]: P·Q of a fixed-displacement pump (its whole flow at
its pressure: what the cylinders take, the bleed and the relief), P_s·ΣQ_p of a constant-pressure
supply; ``supply.<name>.compliance`` [W], its cylinders' compliance power and, for a pump line
of the pressure-dynamics model, the oil compressed in that line (P V_p Ṗ/β);
``supply.<name>.losses`` [W] = power − Σ f·ℓ̇ − compliance (valves, bleed and relief); and
``joint.<name>`` the named hinge [rad] and slide [m] joints.

Energies are the rectangle sums Σ P_k·h over the samples t_k; a rate ṗ is (p_k − p_{k−1})/h, the
backward-Euler step of the pressures, from the run's initial pressures (so the ledger closes:
supply energy = work + compliance + losses, to round-off).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import mujoco
import numpy as np

from ..hydraulics.quasistatic.chambers import run_chamber_pressures
from ..simulation.result import Channel, SimulationResult
from .cylinders import PressureCylinder, QuasistaticCylinder
from .inputs import valve_scale
from .model_file import MOVABLE
from .system import HydraulicMujocoSystem


@dataclass(frozen=True)
class Supply:
    """A supply of the run: ``name``, its cylinders (names), and whether it is a
    fixed-displacement pump of flow ``pump_flow`` [m³/s] (else a constant-pressure supply)."""

    name: str
    cylinders: tuple[str, ...]
    fixed_displacement: bool
    pump_flow: float = 0.0


def _quasistatic_pressures(system: HydraulicMujocoSystem, result: SimulationResult, a: QuasistaticCylinder):
    u = result[f"{a.name}.valve_command"]
    openings = np.column_stack(
        [np.maximum(u, 0.0), np.maximum(u, 0.0), np.maximum(-u, 0.0), np.maximum(-u, 0.0), result[f"{a.name}.bleed"]]
    ) * valve_scale(a.circuit)
    shared = a.pump is not None or a.supply_pressure is not None
    pump = result[f"{a.name}.pump_pressure"] if shared else np.full(result.t.size, np.nan)
    return run_chamber_pressures(
        a.circuit.kernel_array(),
        openings,
        np.zeros(result.t.size),
        pump,
        result[f"{a.name}.rod_velocity"],
        result[f"{a.name}.force"],
    )


def add_machine_channels(
    result: SimulationResult,
    system: HydraulicMujocoSystem,
    supplies: Sequence[Supply],
    targets: Mapping[str, tuple[np.ndarray, np.ndarray, str]],
) -> None:
    """Add the channels of the module docstring to ``result`` in place. ``targets``: per
    closed-loop cylinder (target, measurement, unit) sampled on ``result.t``."""
    h = system.timestep
    ch = result.channels
    for a in system.actuators:
        name = a.name
        add_stroke_channels(result, a)
        if isinstance(a, QuasistaticCylinder):
            head, rod = _quasistatic_pressures(system, result, a)
            ch[f"{name}.head_pressure"] = Channel(head, "Pa", "head-side pressure p_h (from v, f)")
            ch[f"{name}.rod_pressure"] = Channel(rod, "Pa", "rod-side pressure p_r (from v, f)")
        power_in = result[f"{name}.pump_pressure"] * result[f"{name}.supply_flow"]
        power_out = result[f"{name}.force"] * result[f"{name}.length_rate"]
        compliance = _compliance_power(result, a, h)
        ch[f"{name}.hydraulic_power"] = Channel(power_in, "W", f"{name}: supply power into its valves P·Q_p")
        ch[f"{name}.mechanical_power"] = Channel(power_out, "W", f"{name}: power to the machine f·ℓ̇")
        ch[f"{name}.compliance_power"] = Channel(compliance, "W", f"{name}: power into its compliance")
        ch[f"{name}.valve_losses"] = Channel(
            power_in - power_out - compliance, "W", f"{name}: power lost in its valves and chamber reliefs"
        )
        ch[f"{name}.hydraulic_energy"] = Channel(np.cumsum(power_in) * h, "J", f"{name}: supply energy ∫P·Q_p dt")
        ch[f"{name}.work"] = Channel(np.cumsum(power_out) * h, "J", f"{name}: work on the machine ∫f·ℓ̇ dt")
    add_tracking_channels(result, targets)
    for s in supplies:
        first = s.cylinders[0]
        pressure = result[f"{first}.pump_pressure"]
        if s.fixed_displacement:
            power = pressure * s.pump_flow
        else:
            power = sum(result[f"{c}.hydraulic_power"] for c in s.cylinders)
        work = sum(result[f"{c}.mechanical_power"] for c in s.cylinders)
        stored = sum(result[f"{c}.compliance_power"] for c in s.cylinders) + _pump_line_power(result, system, s, h)
        ch[f"supply.{s.name}.pressure"] = Channel(pressure, "Pa", f"{s.name}: pump or supply pressure")
        ch[f"supply.{s.name}.power"] = Channel(power, "W", f"{s.name}: hydraulic power delivered by the supply")
        ch[f"supply.{s.name}.compliance"] = Channel(stored, "W", f"{s.name}: power into the cylinders' compliance")
        ch[f"supply.{s.name}.losses"] = Channel(
            power - work - stored, "W", f"{s.name}: power lost (valves, bleed, relief)"
        )
    add_joint_channels(result, system.model)


def _rate(result: SimulationResult, key: str, h: float) -> np.ndarray:
    """(y_k − y_{k−1})/h of channel ``key``, from the run's initial value (its first sample if none)."""
    values = result[key]
    return np.diff(values, prepend=result.initial.get(key, values[0])) / h


def _compliance_power(result: SimulationResult, a, h: float) -> np.ndarray:
    """The power [W] into cylinder ``a``'s compliance (module docstring): f·(v − ℓ̇) of the
    relaxed element, or the chambers' oil p V ṗ/β (V_h = V_h0 + A_h x, V_r = V_r0 + A_r (s − x))."""
    name = a.name
    if isinstance(a, PressureCylinder):
        fluid, circuit = a.fluid, a.circuit
        x = result[f"{name}.length"] - fluid.retracted_length
        head = (fluid.head_dead_volume + circuit.head_area * x) * result[f"{name}.head_pressure"]
        rod = (fluid.rod_dead_volume + circuit.rod_area * (fluid.stroke - x)) * result[f"{name}.rod_pressure"]
        return (
            head * _rate(result, f"{name}.head_pressure", h) + rod * _rate(result, f"{name}.rod_pressure", h)
        ) / fluid.bulk_modulus
    if f"{name}.rod_velocity" not in result.channels:
        return np.zeros(result.t.size)
    return result[f"{name}.force"] * (result[f"{name}.rod_velocity"] - result[f"{name}.length_rate"])


def _pump_line_power(result: SimulationResult, system: HydraulicMujocoSystem, s: Supply, h: float) -> np.ndarray:
    """The power [W] into the oil of a pressure-dynamics pump line, P V_p Ṗ/β (its first
    cylinder's line parameters, as the step takes them); 0 for a constant supply or a quasistatic
    pump (whose node holds no oil)."""
    first = system.actuators[system.index[s.cylinders[0]]]
    if not (s.fixed_displacement and isinstance(first, PressureCylinder)):
        return np.zeros(result.t.size)
    key = f"{first.name}.pump_pressure"
    return result[key] * first.fluid.pump_line_volume * _rate(result, key, h) / first.fluid.bulk_modulus


def add_tracking_channels(result: SimulationResult, targets: Mapping[str, tuple[np.ndarray, np.ndarray, str]]):
    """``c.target`` and ``c.tracking_error`` (target − measurement) of each closed loop, in place."""
    for name, (target, measured, unit) in targets.items():
        result.channels[f"{name}.target"] = Channel(target, unit, f"{name}: closed-loop target")
        result.channels[f"{name}.tracking_error"] = Channel(target - measured, unit, f"{name}: target − measurement")


def tracking_summary(result: SimulationResult, closed_loops: Mapping[str, str]) -> dict[str, float]:
    """The RMS and largest tracking error of each closed loop (name → unit, m or rad)."""
    out = {}
    for name, unit in closed_loops.items():
        error = result[f"{name}.tracking_error"]
        out[f"{name}.tracking_rms_{unit}"] = float(np.sqrt(np.mean(error**2)))
        out[f"{name}.tracking_max_{unit}"] = float(np.max(np.abs(error)))
    return out


def add_stroke_channels(result: SimulationResult, a) -> None:
    """``c.stroke`` x = ℓ − ℓ₀ [m] and ``c.velocity`` ℓ̇ [m/s] of actuator ``a``, in place."""
    name = a.name
    result.channels[f"{name}.stroke"] = Channel(
        result[f"{name}.length"] - a.length_limits[0], "m", f"{name} stroke x = ℓ − ℓ₀"
    )
    result.channels[f"{name}.velocity"] = Channel(result[f"{name}.length_rate"], "m/s", f"{name} extension rate ℓ̇")


def add_joint_channels(result: SimulationResult, model) -> None:
    """``joint.<name>`` of every named hinge [rad] and slide [m] joint of ``model``, in place."""
    ch = result.channels
    for j in range(model.njnt):
        kind = model.jnt_type[j]
        joint = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j)
        if joint and int(kind) in MOVABLE:
            unit = "rad" if kind == mujoco.mjtJoint.mjJNT_HINGE else "m"
            ch[f"joint.{joint}"] = Channel(result[f"qpos_{model.jnt_qposadr[j]}"], unit, f"joint {joint}")


def machine_summary(
    result: SimulationResult, system: HydraulicMujocoSystem, supplies: Sequence[Supply], closed_loops: Mapping[str, str]
) -> dict[str, float]:
    """Figures of merit (keys end with their unit): per cylinder the peak |f|, the stroke range,
    the supply energy, the work, the energy taken up by its compliance and the valve losses (≥ 0;
    energy = work + compliance + valve losses); per supply the energy, the compliance, the losses
    and the peak pressure; in total the supply energy, the work, the compliance, the losses
    (energy = work + compliance + losses) and the efficiency (work / supply energy, of the work
    done on the machine, ≤ 1); the RMS and largest tracking error of each closed loop
    (``closed_loops``: name → unit of its measurement, m or rad); the loop's real-time factor
    (simulated time over the wall time of the compiled loop alone)."""
    h = system.timestep
    out: dict[str, float] = {}
    for a in system.actuators:
        name = a.name
        out[f"{name}.peak_force_N"] = float(np.max(np.abs(result[f"{name}.force"])))
        out[f"{name}.stroke_range_m"] = float(np.ptp(result[f"{name}.stroke"]))
        out[f"{name}.hydraulic_energy_J"] = float(np.sum(result[f"{name}.hydraulic_power"]) * h)
        out[f"{name}.work_J"] = float(np.sum(result[f"{name}.mechanical_power"]) * h)
        out[f"{name}.compliance_J"] = float(np.sum(result[f"{name}.compliance_power"]) * h)
        out[f"{name}.valve_losses_J"] = float(np.sum(result[f"{name}.valve_losses"]) * h)
    total_energy = total_work = total_stored = 0.0
    for s in supplies:
        energy = float(np.sum(result[f"supply.{s.name}.power"]) * h)
        stored = float(np.sum(result[f"supply.{s.name}.compliance"]) * h)
        out[f"supply.{s.name}.energy_J"] = energy
        out[f"supply.{s.name}.compliance_J"] = stored
        out[f"supply.{s.name}.losses_J"] = float(np.sum(result[f"supply.{s.name}.losses"]) * h)
        out[f"supply.{s.name}.peak_pressure_Pa"] = float(np.max(result[f"supply.{s.name}.pressure"]))
        total_energy += energy
        total_stored += stored
        total_work += sum(out[f"{c}.work_J"] for c in s.cylinders)
    out["total.energy_J"] = total_energy
    out["total.work_J"] = total_work
    out["total.compliance_J"] = total_stored
    out["total.losses_J"] = total_energy - total_work - total_stored
    out["total.efficiency"] = total_work / total_energy if total_energy > 0.0 else float("nan")
    out |= tracking_summary(result, closed_loops)
    out["real_time_factor"] = float(result.counters["real_time_factor"])
    out["loop_time_s"] = float(result.counters["loop_time_s"])
    return out

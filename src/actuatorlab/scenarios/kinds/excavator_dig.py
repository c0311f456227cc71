"""Scenario kind ``excavator-dig``: a ~20 t excavator (boom, stick, bucket; MJCF built from
documented typical values) with three cylinders on one pump, our actuators inside MuJoCo,
consistent initial states, running a scripted digging cycle; the same cycle with the
pressure-dynamics model for comparison (Kikuuwe et al. Sec. 4 and 6 in a multibody engine)."""

from __future__ import annotations

import numpy as np

from ...machines.excavator import DigCycle
from ...multibody.excavator import run_dig_cycle
from ...report.machine_figures import plot_excavator, plot_strokes
from ..excavator_schema import ExcavatorDigScenario
from ..output import FigureSpec, ScenarioOutput, SummaryFigure

UNITS = {"s": "s", "Pa": "Pa", "m3": "m^3", "N": "N", "m": "m"}


def _summary(values: dict[str, float], model: str) -> list[SummaryFigure]:
    out = []
    for key, value in values.items():
        unit = next((u for suffix, u in UNITS.items() if key.endswith(f"_{suffix}")), "")
        out.append(SummaryFigure(f"{model}.{key}", float(value), unit, f"{model}: {key.replace('_', ' ')}"))
    return out


def run(scenario: ExcavatorDigScenario, progress=None) -> ScenarioOutput:
    cycle = DigCycle().shortened(scenario.cycle_scale) if scenario.cycle_scale != 1.0 else DigCycle()
    other_model = "pressure-dynamics" if scenario.model == "quasistatic" else "quasistatic"
    models = [scenario.model] + ([other_model] if scenario.compare else [])
    params = scenario.parameters()
    runs = {}
    for index, model in enumerate(models):
        runs[model] = run_dig_cycle(model, timestep=scenario.timestep, params=params, cycle=cycle)
        if progress is not None:
            progress((index + 1) / len(models))
    result, info = runs[scenario.model]
    table = result.to_dataframe()
    units = {"t": "s", **result.units()}
    summary = _summary(info["summary"], scenario.model)
    figures = [FigureSpec("excavator_side_view.png", "The machine at a few instants of the cycle, with the bucket tip path "
                          f"({scenario.model} model).", lambda: plot_excavator(result, info["system"])),
               FigureSpec("excavator_strokes.png", f"Cylinder strokes, forces, pump pressure and relief flow ({scenario.model}).",
                          lambda: plot_strokes(result))]
    notes = ["All three cylinders on one pump with bleed and relief; the machine starts held at rest: the actuator "
             "forces from MuJoCo's inverse dynamics at the start pose, then the relaxed elements' stretch (quasistatic) or "
             "the chamber pressures (pressure dynamics).",
             "Geometry, masses, cylinder sizes and circuit values are typical of a 20 t machine (assumptions documented in "
             "machines/excavator.py); the bucket linkage is a single lever, the base is fixed (no swing, tracks or ground).",
             "Soil: a drag at the tooth tip during the stick-in and curl, and 1.8 t of soil in the bucket from the curl on."]
    if scenario.compare:
        other, other_info = runs[other_model]
        summary += _summary(other_info["summary"], other_model)
        quasistatic, pressure = runs["quasistatic"][1], runs["pressure-dynamics"][1]
        ratio = pressure["summary"]["loop_time_s"] / quasistatic["summary"]["loop_time_s"]
        angles = [f"{name}_angle" for name in ("boom", "stick", "bucket")]
        gap = max(float(np.max(np.abs(result[a] - other[a]))) for a in angles)
        summary += [SummaryFigure("loop_time_ratio", ratio, "", "pressure-dynamics loop time / quasistatic loop time"),
                    SummaryFigure("max_angle_difference_rad", gap, "rad", "largest joint-angle difference between the models")]
        figures.append(FigureSpec(f"excavator_strokes_{other_model.replace('-', '_')}.png",
                                  f"The same cycle with the {other_model} model.", lambda: plot_strokes(other)))
    return ScenarioOutput(table=table, units=units, labels={}, summary=summary, figures=figures, notes=notes)

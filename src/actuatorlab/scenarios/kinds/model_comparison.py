"""Scenario kind ``model-comparison``: one arm run with the quasistatic and the
pressure-dynamics model side by side (θ, f, pressures), their cost and stability limits."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...report.plots import Line, Panel, time_series_figure
from ...simulation.arm import largest_stable_step as quasistatic_stable_step
from ...hydraulics.pressure_dynamics import openings_from_command
from ...simulation.pressure_arm import rk4_stable_step
from ...simulation.result import GAUGE_PRESSURE
from ..output import FigureSpec, ScenarioOutput, SummaryFigure
from ..arm_schema import ModelComparisonScenario
from .arm import simulate_scenario
from .arm_figures import RELIEF_TOLERANCE


def switching_mask(t, command, force, head_relief, rod_relief, margin) -> np.ndarray:
    """True for samples farther than ``margin`` [s] from every change of the valve command and
    from every sample where either model's force is at a relief limit (switching instants)."""
    changes = np.flatnonzero(np.diff(command) != 0.0) + 1
    relief = np.flatnonzero(
        np.any(
            (force <= -rod_relief * (1 - RELIEF_TOLERANCE)) | (force >= head_relief * (1 - RELIEF_TOLERANCE)), axis=0
        )
    )
    events = t[np.union1d(changes, relief)]
    if events.size == 0:
        return np.ones(t.size, dtype=bool)
    nearest = np.min(np.abs(t[:, None] - events[None, :]), axis=1)
    return nearest > margin


def run(scenario: ModelComparisonScenario, progress=None) -> ScenarioOutput:
    """Simulate with both models, then compare θ, f and the pressures."""
    report = progress or (lambda fraction: None)
    quasi = simulate_scenario(scenario.as_arm("quasistatic"), lambda f: report(0.1 * f))
    press = simulate_scenario(scenario.as_arm("pressure-dynamics"), lambda f: report(0.1 + 0.8 * f))
    arm, circuit = scenario.arm.build(), scenario.circuit.build()
    fluid = scenario.pressure_dynamics.build(scenario.cylinder)
    t = quasi.t
    raw = openings_from_command(press["valve_command"], press["bleed"], press["regeneration"])
    rk4_step = rk4_stable_step(arm, circuit, fluid, press, raw)
    report(1.0)
    fhm, frm = circuit.head_relief_force, circuit.rod_relief_force
    keep = switching_mask(
        t, quasi["valve_command"], np.vstack([quasi["force"], press["force"]]), fhm, frm, scenario.switching_margin
    )
    dtheta = np.abs(quasi["theta"] - press["theta"])
    time_q = quasi.counters["loop_time_s"]
    time_p = press.counters["loop_time_s"]
    table = pd.DataFrame(
        {
            "t": t,
            "theta_quasistatic": quasi["theta"],
            "theta_pressure": press["theta"],
            "force_quasistatic": quasi["force"],
            "force_pressure": press["force"],
            "head_pressure_quasistatic": quasi["head_pressure"],
            "head_pressure_pressure": press["head_pressure"],
            "rod_pressure_quasistatic": quasi["rod_pressure"],
            "rod_pressure_pressure": press["rod_pressure"],
            "pump_pressure_pressure": press["pump_pressure"],
            "compared": keep,
        }
    )
    units = {
        "t": "s",
        "compared": "1",
        **{c: "rad" for c in table if c.startswith("theta")},
        **{c: "N" for c in table if c.startswith("force")},
        **{c: GAUGE_PRESSURE for c in table if "pressure_" in c},
    }
    labels = {c: c.replace("_", " ") for c in table}
    deg = 180.0 / np.pi
    summary = [
        SummaryFigure("quasistatic_time_s", time_q, "s", "quasistatic: time-loop wall time"),
        SummaryFigure(
            "pressure_dynamics_time_s",
            time_p,
            "s",
            "pressure dynamics: integration wall time",
            f"{scenario.pressure_dynamics.solver}, rtol {scenario.pressure_dynamics.rtol:g}",
        ),
        SummaryFigure(
            "speed_ratio", time_p / time_q if time_q > 0 else None, "1", "wall time pressure dynamics / quasistatic"
        ),
        SummaryFigure(
            "quasistatic_max_step_s",
            quasistatic_stable_step(arm, scenario.relaxation.build()),
            "s",
            "quasistatic: largest stable step",
            "closed-valve bound h²K/m + 2hB/m < 4",
        ),
        SummaryFigure(
            "pressure_dynamics_rk4_max_step_s",
            rk4_step,
            "s",
            "pressure dynamics: largest stable RK4 step",
            "minimum over the trajectory of the RK4 bound at the Jacobian's eigenvalues; "
            "the adaptive stiff solvers have no such limit",
        ),
        SummaryFigure(
            "theta_max_difference_rad",
            float(dtheta[keep].max()) if keep.any() else None,
            "rad",
            "max |θ_quasistatic − θ_pressure| away from switching",
            f"samples farther than {scenario.switching_margin:g} s from valve switching and relief",
        ),
        SummaryFigure(
            "theta_rms_difference_rad",
            float(np.sqrt(np.mean(dtheta[keep] ** 2))) if keep.any() else None,
            "rad",
            "RMS θ difference away from switching",
        ),
        SummaryFigure("theta_max_difference_all_rad", float(dtheta.max()), "rad", "max θ difference, all samples"),
        SummaryFigure("compared_fraction", float(keep.mean()), "1", "fraction of samples compared"),
    ]
    panels = [
        Panel(
            "θ [deg]",
            [Line("theta_quasistatic", "quasistatic", deg), Line("theta_pressure", "pressure dyn.", deg, style="--")],
        ),
        Panel(
            "f [kN]",
            [Line("force_quasistatic", "quasistatic", 1e-3), Line("force_pressure", "pressure dyn.", 1e-3, style="--")],
            hlines=[(fhm * 1e-3, "F_hM"), (-frm * 1e-3, "−F_rM")],
        ),
        Panel(
            "p_h [MPa]",
            [
                Line("head_pressure_quasistatic", "quasistatic", 1e-6),
                Line("head_pressure_pressure", "pressure dyn.", 1e-6, style="--"),
            ],
        ),
        Panel(
            "p_r [MPa]",
            [
                Line("rod_pressure_quasistatic", "quasistatic", 1e-6),
                Line("rod_pressure_pressure", "pressure dyn.", 1e-6, style="--"),
            ],
        ),
    ]
    table["theta_difference"] = dtheta
    units["theta_difference"] = "rad"
    labels["theta_difference"] = "|θ_quasistatic − θ_pressure|"
    difference = [Panel("|Δθ| [deg]", [Line("theta_difference", "|Δθ|", deg)])]
    figures = [
        FigureSpec(
            "comparison.png",
            "Both models on the same inputs: angle, actuator force, chamber pressures "
            "(quasistatic: from the chamber maps (61)–(62); at rest the unloaded chamber is at 0).",
            lambda: time_series_figure(table, panels, title=f"{scenario.name}: quasistatic vs pressure dynamics"),
        ),
        FigureSpec(
            "difference.png",
            "Angle difference between the models.",
            lambda: time_series_figure(table, difference, title=f"{scenario.name}: |Δθ|"),
        ),
    ]
    notes = [
        "Both models share the circuit, the arm and the inputs; the quasistatic model is relaxed by (K, B) and "
        "stepped by (72), the pressure-dynamics model integrated by an adaptive stiff solver.",
        "The quasistatic model has no pressure state: at rest it fixes only the force, so the chamber pressures "
        "shown for it at rest are the least pair; the pressure-dynamics model keeps its initial pre-charge and "
        "rings (oil-column mode) after every valve closure.",
        f"θ is compared away from switching: farther than {scenario.switching_margin:g} s from a change of the "
        "valve command and from the samples where either force is at a relief limit.",
    ]
    counters = {"quasistatic_loop_time_s": time_q, "pressure_loop_time_s": time_p}
    return ScenarioOutput(table, units, labels, summary, figures, notes, counters)

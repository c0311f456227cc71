"""The output of scenario kind ``arm``: table, key figures, Fig. 6-style plots and notes of a
simulated run (also used by ``model-comparison``); its imports hold no numba."""

from __future__ import annotations

import numpy as np

from ...errors import ScenarioError
from ...simulation.result import SimulationResult
from ..arm_schema import ArmScenario
from ..output import FigureSpec, ScenarioOutput, SummaryFigure
from .arm_figures import ARM_FIGURES, TIMING_FIGURES, arm_figure_values, summary_figures, timing_values


def output(scenario: ArmScenario, result: SimulationResult) -> ScenarioOutput:
    """The table, key figures, plots and notes of a simulated run of ``scenario``."""
    circuit = scenario.circuit.build()
    fhm, frm = circuit.head_relief_force, circuit.rod_relief_force
    stretch = result["stretch"] if "stretch" in result.channels else None
    values = arm_figure_values(result.t, result["theta"], result["force"], fhm, frm, stretch)
    summary = [
        *summary_figures(values, ARM_FIGURES),
        *_pressure_figures(result),
        *summary_figures(timing_values(scenario.simulation.duration, result.counters["loop_time_s"]), TIMING_FIGURES),
    ]
    channels = scenario.outputs.channels or list(result.channels)
    unknown = sorted(set(channels) - set(result.channels))
    if unknown:
        raise ScenarioError(f"outputs.channels: unknown {unknown}; valid channels are {', '.join(result.channels)}")
    columns = result.columns()  # the table as columns: the command writes it without pandas (see the runner)
    table = {k: columns[k] for k in ("t", *channels)}
    units = {k: v for k, v in result.units().items() if k in table}
    labels = {k: result.channels[k].label for k in channels}
    open_at = summary[0].value
    return ScenarioOutput(
        table=table,
        units=units,
        labels=labels,
        summary=summary,
        figures=_figures(columns, scenario.name, fhm, frm, open_at),
        notes=_notes(scenario),
        counters=result.counters,
    )


def _pressure_figures(result: SimulationResult) -> list[SummaryFigure]:
    """Key figures of the pressure-dynamics model only: the pressure extremes."""
    if "stretch" in result.channels:
        return []
    chambers = np.minimum(result["head_pressure"], result["rod_pressure"])
    return [
        SummaryFigure(
            "min_chamber_pressure_Pa",
            float(chambers.min()),
            "Pa",
            "lowest chamber pressure",
            "below 0 Pa gauge the suction check valves feed the chamber",
        ),
        SummaryFigure("max_rod_pressure_Pa", float(result["rod_pressure"].max()), "Pa", "highest rod-side pressure"),
        SummaryFigure("rhs_evaluations", result.counters["rhs_evaluations"], "1", "right-hand-side evaluations"),
    ]


def _figures(df: dict[str, np.ndarray], name, fhm, frm, open_at) -> list[FigureSpec]:
    """The report's figures of a run's columns ``df`` (``t`` and every channel)."""
    from ...report.plots import Line, Panel, time_series_figure  # matplotlib: where figures are specified

    kn, deg, mm = 1e-3, 180.0 / np.pi, 1e3
    inputs = [
        Panel("command [-]", [Line("valve_command", "u_c"), Line("bleed", "u_b", style="--")]),
        Panel("f_ey [kN]", [Line("external_force", "external force", kn)]),
    ]
    response = [
        Panel("θ [deg]", [Line("theta", "θ", deg)]),
        Panel("θ̇ [deg/s]", [Line("theta_rate", "θ̇", deg)]),
        Panel("f [kN]", [Line("force", "f", kn)], hlines=[(fhm * kn, "F_hM"), (-frm * kn, "−F_rM")]),
        Panel("v [m/s]", [Line("rod_velocity", "rod velocity")]),
    ]
    if "stretch" in df:
        response.append(Panel("p − ℓ [mm]", [Line("stretch", "p − ℓ", mm)]))
    pressures = [Line("head_pressure", "p_h", 1e-6), Line("rod_pressure", "p_r", 1e-6)]
    if "pump_pressure" in df:
        pressures.append(Line("pump_pressure", "P", 1e-6, style="--"))
    response.append(Panel("pressure [MPa, gauge]", pressures))
    figures = [
        FigureSpec(
            "inputs.png",
            "Inputs (Fig. 6(a) style): valve command, bleed opening and external force.",
            lambda: time_series_figure(df, inputs, title=f"{name}: inputs"),
        ),
        FigureSpec(
            "response.png",
            "Response (Fig. 6(b)–(f) style): angle, rate, actuator force with the relief "
            "limits, rod velocity, the stretch of the virtual element (quasistatic model), and the "
            "chamber pressures (with the pump pressure in the pressure-dynamics model).",
            lambda: time_series_figure(df, response, title=f"{name}: response"),
        ),
    ]
    if open_at is not None:
        near = (df["t"] >= open_at - 0.5) & (df["t"] <= open_at + 0.5)
        window = {k: v[near] for k, v in df.items()}
        zoom = [response[2], response[3], response[0]]
        figures.append(
            FigureSpec(
                "relief.png",
                f"Around the first relief opening at t = {open_at:.3f} s: the force saturates at the "
                "relief limit and the rod starts to move.",
                lambda: time_series_figure(window, zoom, title=f"{name}: relief opens at {open_at:.3f} s"),
            )
        )
    return figures


def _notes(scenario: ArmScenario) -> list[str]:
    signs = "Signs: f > 0 pushes the rod out, v > 0 extends it; extending lowers the arm; f_ey > 0 pushes the arm up."
    if scenario.model == "quasistatic":
        return [
            "Quasistatic actuator (Kikuuwe et al. Secs. 3–5) relaxed by a virtual spring–damper, stepped by "
            "algorithm (72) (with Λ_reg of (105) while the regeneration valve is open); the arm (79) by "
            "semi-implicit Euler with the same step.",
            signs,
            "The spring–damper sign follows (68a), f = K(p − ℓ) + B(ṗ − ℓ̇); (81) prints the opposite sign.",
            "At t = 0 the virtual element is unstretched (p = ℓ, as in the paper), so the arm settles by "
            "about f/K in the first steps.",
        ]
    fluid = scenario.pressure_dynamics
    return [
        f"Pressure-dynamics model of the same circuit (bulk modulus {fluid.bulk_modulus / 1e9:g} GPa), integrated by "
        f"{fluid.solver}" + (f" at rtol {fluid.rtol:g}" if fluid.solver != "RK4" else " with the fixed step") + "; "
        "orifices regularised below the laminar transition pressure, relief valves proportional above cracking.",
        signs,
        f"At t = 0 the chamber pressures hold the arm, the less loaded chamber at "
        f"{fluid.initial_low_pressure / 1e6:g} MPa; the pump line is at its idle pressure.",
    ]

"""Figures of a netlist run (``circuit`` kind, a machine on a netlist) besides the time series:
the pressure and flow panels, the inputs' panels and the energy bars."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

from .plots import STYLE, Line, Panel, _figure

INPUT_PANELS = {
    "dimensionless": ("spool position [-]", 1.0),
    "angular_velocity": ("speed [rpm]", 30.0 / math.pi),
    "velocity": ("velocity [mm/s]", 1e3),
    "length": ("position [mm]", 1e3),
}
"""Input dimension → (panel label, scale from SI)."""


FLOW_SHOWN = 1e-3
"""Share of the largest flow below which a branch is left out of the flow plots (closed edges)."""
FLOW_GROUPS = {
    "pumps, reliefs [L/min]": ("FixedPump", "VariablePump", "ReliefValve"),
    "actuators, loads [L/min]": ("Cylinder", "CoupledCylinder", "Motor", "Tank"),
}
"""Flow panel → the component types it shows; every other type goes to ``valves [L/min]``."""


def pressure_flow_panels(network, flows: Mapping[str, np.ndarray]) -> list[Panel]:
    """The pressures [bar] of the nodes not held at 0 (columns ``pressure.NODE``), then the flows
    [L/min] (columns ``flow.KEY``) of pumps and reliefs, valves, and actuators and tanks held at a
    pressure; a branch whose flow stays below :data:`FLOW_SHOWN` of the largest is left out."""
    free = [n for i, n in enumerate(network.nodes) if np.isnan(network.held[i]) or network.held[i] != 0.0]
    panels = [Panel("pressure [bar]", [Line(f"pressure.{n}", n, 1e-5) for n in free])]
    groups = {label: [] for label in (*FLOW_GROUPS, "valves [L/min]")}
    largest = max((float(np.abs(q).max()) for q in flows.values()), default=0.0)
    for key, q in flows.items():
        component = network.parts[key.split(".")[0]][0]
        kind = type(component).__name__
        if not np.abs(q).max() > FLOW_SHOWN * largest or (kind == "Tank" and component.pressure == 0.0):
            continue
        group = next((label for label, kinds in FLOW_GROUPS.items() if kind in kinds), "valves [L/min]")
        groups[group].append(Line(f"flow.{key}", key, 6e4))
    order = ("pumps, reliefs [L/min]", "valves [L/min]", "actuators, loads [L/min]")
    return panels + [Panel(label, groups[label]) for label in order if groups[label]]


def input_panels(table: Mapping, inputs: Sequence[str], dimensions: Mapping[str, str]) -> list[Panel]:
    """One panel per kind of input (columns ``input.KEY``), then cylinder forces [kN] and motor
    torques [N m] (columns ``force.*``, ``torque.*``) where the table has them."""
    panels = []
    for dimension, (label, scale) in INPUT_PANELS.items():
        lines = [Line(f"input.{key}", key, scale) for key in inputs if dimensions[key] == dimension]
        if lines:
            panels.append(Panel(label, lines))
    for prefix, label, scale in (("force.", "force [kN]", 1e-3), ("torque.", "torque [N m]", 1.0)):
        lines = [Line(c, c.removeprefix(prefix), scale) for c in table if c.startswith(prefix)]
        if lines:
            panels.append(Panel(label, lines))
    return panels


@mpl.rc_context(STYLE)
def energy_figure(
    delivered: Mapping[str, float], dissipated: Mapping[str, float], work: Mapping[str, float], stored: float
) -> Figure:
    """Bars [kJ] per component: energy delivered (pumps), work on the loads and, stacked on it,
    what it dissipated (valves, leakage, motor losses); then the energy stored in the oil and gas."""
    names = list(dict.fromkeys([*delivered, *dissipated, *work]))
    fig = _figure((6.0, 2.8))
    ax = fig.add_subplot()
    x = np.arange(len(names) + 1)
    bottom = np.zeros(len(names))
    for values, label in ((delivered, "delivered"), (work, "work on the load"), (dissipated, "dissipated")):
        heights = np.array([values.get(n, 0.0) / 1e3 for n in names])
        ax.bar(x[:-1], heights, 0.6, bottom=bottom, label=label)
        bottom += heights
    ax.bar(x[-1:], [stored / 1e3], 0.6, label="stored", color="0.5")
    ax.set_xticks(x, [*names, "stored"], rotation=30, ha="right")
    ax.set_ylabel("energy [kJ]")
    ax.axhline(0.0, color="0.3", linewidth=0.5)
    ax.grid(True, axis="y")
    ax.legend(loc="best")
    return fig

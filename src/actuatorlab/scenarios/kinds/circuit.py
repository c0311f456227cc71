"""Scenario kind ``circuit``: a netlist from the file simulated with its inputs given over time.

Channels (SI, units in the table's metadata): ``pressure.NODE`` [Pa] of every node;
``flow.COMPONENT`` or ``flow.COMPONENT.BRANCH`` [m³/s] of every branch (q > 0 from its first
port to its second, :mod:`actuatorlab.hydraulics.circuits.branch_ports`), ``flow.TANK`` into
each tank; ``force.CYLINDER`` = A_h p_h − A_r p_r [N] (> 0 pushes the rod out);
``torque.MOTOR`` = η_m D Δp / 2π [N m]; ``input.COMPONENT.INPUT`` as applied (a spool's position
after its time constant, a cylinder's position integrated from its velocity). Key figures: the
energy ledger of :mod:`actuatorlab.hydraulics.circuits.ledger` per component and in total, the
highest pressure of each node.
"""

from __future__ import annotations

import time

import numpy as np

from ...errors import ScenarioError
from ...hydraulics.circuits import Cylinder, Motor
from ...hydraulics.circuits.spools import spool_positions
from ..circuit_schema import MODELS, CircuitScenario
from ..output import FigureSpec, ScenarioOutput, SummaryFigure
from ..signal_specs import check_samples
from ..units import DIMENSIONS


def sample_inputs(scenario: CircuitScenario, inputs: tuple[str, ...], t: np.ndarray) -> np.ndarray:
    """The inputs (len(t), len(inputs)) as the network reads them, checked: spool positions in
    [−1, 1] (lagged by the spool's time constant), cylinder positions in [0, stroke]."""
    u = np.zeros((t.size, len(inputs)))
    for key, signal in scenario.inputs.items():
        u[:, inputs.index(key)] = signal.build(where=f'inputs."{key}"').sample(t)
    for e in scenario.components.entries:
        if e.type == "SpoolValve":
            column = inputs.index(f"{e.name}.position")
            check_samples(f'inputs."{e.name}.position"', t, u[:, column], -1.0, 1.0, "a spool position")
            u[:, column] = spool_positions(u[:, column], scenario.timestep, e.component.time_constant)
        elif e.type == "Cylinder":
            column = inputs.index(f"{e.name}.position")
            if f"{e.name}.position" not in scenario.inputs:
                v = u[:, inputs.index(f"{e.name}.velocity")]
                steps = 0.5 * (v[1:] + v[:-1]) * np.diff(t)
                u[:, column] = scenario.initial_positions.get(e.name, 0.0) + np.concatenate(([0.0], np.cumsum(steps)))
            where = f"{e.name}'s position (its inputs and initial_positions)"
            check_samples(where, t, u[:, column], 0.0, e.component.stroke, "a cylinder's position")
    return u


def simulate_circuit(scenario: CircuitScenario):
    """(network, t, inputs, pressures, wall time [s]) of a run."""
    from ...hydraulics.circuits.solvers import simulate

    network = scenario.network()
    t = np.arange(round(scenario.duration / scenario.timestep) + 1) * scenario.timestep
    u = sample_inputs(scenario, network.inputs, t)
    initial = np.where(np.isnan(network.held), 0.0, network.held)
    for node, pressure in scenario.initial_pressures.items():
        initial[network.node(node)] = pressure
    start = time.perf_counter()
    p = simulate(network, t, u, initial, model=MODELS[scenario.model])
    return network, t, u, p, time.perf_counter() - start


def run(scenario: CircuitScenario, progress=None) -> ScenarioOutput:
    from ...hydraulics.circuits.ledger import energy_ledger, run_flows, tank_flows
    from ...report.circuit_plots import input_panels
    from ...report.plots import time_series_figure

    network, t, u, p, wall = simulate_circuit(scenario)
    if progress is not None:
        progress(1.0)
    flows = run_flows(network, p, u)
    tanks = tank_flows(network, flows)
    ledger = energy_ledger(network, t, p, u, flows, MODELS[scenario.model])
    table = {"t": t}
    units = {"t": "s"}
    labels = {}

    def add(column: str, values, unit: str, label: str) -> None:
        table[column], units[column], labels[column] = np.asarray(values, dtype=np.float64), unit, label

    for i, node in enumerate(network.nodes):
        add(f"pressure.{node}", p[:, i], "Pa", f"pressure at node {node} (gauge)")
    for key, q in {**flows, **tanks}.items():
        add(f"flow.{key}", q, "m^3/s", f"flow of {key}")
    for name, (component, ports) in network.parts.items():
        pressures = [p[:, network.node(node)] for node in ports.values()][:2]
        if isinstance(component, Cylinder):
            add(f"force.{name}", component.force(*pressures), "N", f"{name}: force A_h p_h - A_r p_r (> 0 pushes out)")
        elif isinstance(component, Motor):
            add(f"torque.{name}", component.torque(*pressures), "N*m", f"{name}: torque on its shaft")
    dimensions = scenario.components.inputs()
    for i, key in enumerate(network.inputs):
        add(f"input.{key}", u[:, i], input_unit(dimensions[key]), f"input {key} as applied")

    summary = energy_figures(ledger)
    for i, node in enumerate(network.nodes):
        summary.append(
            SummaryFigure(f"pressure.{node}.max_Pa", float(p[:, i].max()), "Pa", f"highest pressure at {node}")
        )
    summary.append(SummaryFigure("wall_time_s", wall, "s", "solver wall time"))

    circuit, pressures_flows, energy = netlist_figures(network, table, {**flows, **tanks}, ledger, scenario.name)
    inputs = FigureSpec(
        "inputs.png",
        "The inputs as applied, and the cylinder forces and motor torques.",
        lambda: time_series_figure(table, input_panels(table, network.inputs, dimensions), "inputs"),
    )
    figures = [circuit, pressures_flows, inputs, energy]
    channels = scenario.outputs.channels or list(table)[1:]
    unknown = [c for c in channels if c not in table]
    if unknown:
        raise ScenarioError(f"outputs.channels: unknown {unknown}; valid channels are {', '.join(list(table)[1:])}")
    kept = ("t", *channels)
    notes = [
        f"Model: {scenario.model} (time step {scenario.timestep:g} s, bulk modulus {scenario.bulk_modulus:g} Pa).",
        "Signs: a flow q > 0 goes from a component's first port to its second (spool edges PA, BT, PB, AT by "
        "their names); a cylinder's velocity > 0 extends it and its force > 0 pushes the rod out.",
        "Energy: a pump's delivered energy, each part's dissipated energy ∫ Σ q Δp dt, the work on the loads "
        "(cylinders ∫ f v dt, motors ∫ T ω dt, tanks held at a pressure ∫ p q dt) and the energy stored in the oil "
        f"and the accumulators; balance error {ledger.balance_error:.3g} J.",
    ]
    return ScenarioOutput(
        table={k: table[k] for k in kept},
        units={k: units[k] for k in kept},
        labels={k: labels[k] for k in kept if k in labels},
        summary=summary,
        figures=figures,
        notes=notes,
        counters={"wall_time_s": wall},
    )


def netlist_figures(network, table, flows, ledger, title: str) -> tuple[FigureSpec, FigureSpec, FigureSpec]:
    """The figures of every netlist run: the circuit's picture, its node pressures and branch
    flows (columns ``pressure.*`` and ``flow.*`` of ``table``), the energy per component."""
    from ...report.circuit_picture import circuit_figure
    from ...report.circuit_plots import energy_figure, pressure_flow_panels
    from ...report.plots import time_series_figure

    panels = pressure_flow_panels(network, flows)
    return (
        FigureSpec(
            "circuit.png",
            "The circuit: nodes (dots, named) and components (boxes, named and typed) joined to their ports.",
            lambda: circuit_figure(network.parts, title),
        ),
        FigureSpec(
            "pressures_flows.png",
            "Node pressures (gauge; tanks at 0 left out) and the flows of the components [L/min] (branches "
            "that stay closed left out).",
            lambda: time_series_figure(table, panels, title),
        ),
        FigureSpec(
            "energy.png",
            "Energy per component: delivered by the pumps, dissipated, work on the loads; the energy stored.",
            lambda: energy_figure(ledger.delivered, ledger.dissipated, ledger.work, ledger.stored),
        ),
    )


def input_unit(dimension: str) -> str:
    """The SI unit of an input's dimension as a table column states it ("" for a pure number)."""
    si = DIMENSIONS[dimension].si
    return "" if si == "dimensionless" else si


def energy_figures(ledger) -> list[SummaryFigure]:
    out = []
    for what, values, label in (
        ("delivered", ledger.delivered, "energy delivered by"),
        ("dissipated", ledger.dissipated, "energy dissipated in"),
        ("work", ledger.work, "work done on the load by"),
    ):
        for name, value in values.items():
            out.append(SummaryFigure(f"energy.{name}.{what}_J", value, "J", f"{label} {name}"))
    totals = {
        "delivered": sum(ledger.delivered.values()),
        "dissipated": sum(ledger.dissipated.values()),
        "work": sum(ledger.work.values()),
        "stored": ledger.stored,
        "balance_error": ledger.balance_error,
    }
    for what, value in totals.items():
        out.append(SummaryFigure(f"energy.total.{what}_J", value, "J", f"total energy {what.replace('_', ' ')}"))
    return out

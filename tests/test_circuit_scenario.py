"""The ``circuit`` kind (issue 30): a netlist file runs end to end, its branches are named by
their ports, and the energy ledger balances: Σ delivered = Σ dissipated + Σ work + stored."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from actuatorlab.hydraulics.circuits.branch_ports import branch_ports
from actuatorlab.hydraulics.circuits.ledger import energy_ledger, run_flows
from actuatorlab.scenarios.circuit_schema import MODELS
from actuatorlab.scenarios.kinds.circuit import simulate_circuit
from actuatorlab.scenarios.loading import parse_scenario
from actuatorlab.scenarios.netlist_schema import COMPONENTS
from actuatorlab.scenarios.runner import run_scenario

MACHINE = {
    "kind": "circuit",
    "name": "balance",
    "description": "pump, relief, accumulator, float-centre spool with a leaking cylinder, motor",
    "duration": "1 s",
    "timestep": "2 ms",
    "components": {
        "tank": {"type": "Tank", "ports": {"port": "T"}},
        "pump": {"type": "FixedPump", "ports": {"inlet": "T", "outlet": "P"}, "displacement": "20 cm^3/rev"},
        "relief": {"type": "ReliefValve", "ports": {"inlet": "P", "outlet": "T"}, "setting": "150 bar"},
        "line": {"type": "Line", "ports": {"port": "P"}, "volume": "1 L"},
        "accumulator": {"type": "Accumulator", "ports": {"port": "P"}, "precharge_pressure": "30 bar"},
        "valve": {"type": "SpoolValve", "ports": {"P": "P", "T": "T", "A": "A", "B": "B"}, "centre": "float"},
        "cylinder": {"type": "Cylinder", "ports": {"head": "A", "rod": "B"}, "leakage": "0.01 L/min/bar"},
        "orifice": {"type": "Orifice", "ports": {"inlet": "P", "outlet": "M"}, "area": "10 mm^2"},
        "motor": {"type": "Motor", "ports": {"inlet": "M", "outlet": "T"}, "mechanical_efficiency": 0.9},
        "motor_line": {"type": "Line", "ports": {"port": "M"}, "volume": "0.2 L"},
    },
    "inputs": {
        "pump.speed": "1500 rpm",
        "valve.position": {"type": "piecewise-linear", "times": [0, 0.2], "values": [0.3, 0.6]},
        "cylinder.velocity": {"type": "sine", "amplitude": "5 mm/s", "frequency": "2 Hz", "offset": "2 mm/s"},
        "motor.speed": "100 rpm",
    },
    "initial_positions": {"cylinder": "0.3 m"},
    "initial_pressures": {"P": "100 bar", "A": "100 bar", "M": "50 bar"},
}


@pytest.mark.parametrize("model", ["pressure-dynamics", "quasistatic"])
def test_the_energy_ledger_balances(model):
    """Pumps' energy = losses + work + stored (oil compression, accumulator gas), to the solver's
    tolerance; every passive part dissipates, the motor's work is ∫ T ω dt < its hydraulic energy."""
    scenario = parse_scenario({**copy.deepcopy(MACHINE), "model": model})
    network, t, u, p, _ = simulate_circuit(scenario)
    ledger = energy_ledger(network, t, p, u, run_flows(network, p, u), MODELS[model])
    delivered = sum(ledger.delivered.values())
    assert delivered > 1e3 and ledger.stored > 0.0
    assert abs(ledger.balance_error) < 1e-6 * delivered
    assert all(value >= -1e-9 * delivered for value in ledger.dissipated.values())
    assert ledger.work["motor"] > 0.0 and ledger.dissipated["motor"] > 0.0
    assert ledger.dissipated["cylinder"] > 0.0  # its piston leakage


def test_every_branch_is_named_by_the_ports_it_joins():
    """branch_ports lists each class's branches in the order and between the ports of its rows."""
    for name, cls in COMPONENTS.items():
        for component in _variants(cls):
            ports = (*component.PORTS, *component.PILOTS)
            nodes = {port: i for i, port in enumerate(ports)}
            rows = component.branches(nodes, {s: i for i, s in enumerate(component.INPUTS)})
            named = branch_ports(component)
            assert len(named) == len(rows), name
            assert len({n for n, _, _ in named}) == len(named), name
            for (_, a, b), row in zip(named, rows):
                assert (row.a, row.b) == (nodes.get(a, -1), nodes.get(b, -1)), name


def _variants(cls):
    kinds = {
        "SpoolValve": [{"centre": c} for c in ("closed", "open", "float")],
        "Cylinder": [{}, {"leakage": 1e-12}],
        "VariablePump": [{}, {"control": "load_sensing"}],
        "Compensator": [{}, {"position": "before"}],
        "Shuttle": [{"count": 3}],
    }
    return [cls(**kw) for kw in kinds.get(cls.__name__, [{}])]


def test_the_built_in_bank_runs_and_writes_its_results_and_report(tmp_path):
    data = parse_scenario({**copy.deepcopy(MACHINE), "duration": "0.4 s"}).model_dump()
    output, files = run_scenario(parse_scenario(data), tmp_path)
    assert {"results.parquet", "report.html", "circuit.png", "energy.png", "pressures_flows.png"} <= set(files)
    table = output.table
    assert {"pressure.P", "flow.valve.PA", "flow.tank", "force.cylinder", "torque.motor"} <= set(table)
    head, rod = table["pressure.A"], table["pressure.B"]
    np.testing.assert_allclose(table["force.cylinder"], 0.024 * head - 0.012 * rod)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["energy.pump.delivered_J"] > 0.0 and "energy.total.balance_error_J" in summary


def test_a_sweep_sets_a_netlist_parameter_in_units_and_refuses_a_wrong_one():
    """``--grid components.pump.displacement=…``: the netlist is edited as its tables and checked
    again (issue 30, item 6: sweeps accept netlist fields)."""
    from actuatorlab.errors import ScenarioError
    from actuatorlab.scenarios.variants import checked_value, set_values

    scenario = parse_scenario(copy.deepcopy(MACHINE))
    changed = set_values(scenario, ["components.pump.displacement"], ["25 cm^3/rev"])
    assert changed.components["pump"].component.displacement == pytest.approx(25e-6, rel=1e-12)
    assert changed.components["relief"] == scenario.components["relief"]
    assert checked_value(scenario, "components.relief.setting", "120 bar", "--grid") == pytest.approx(12e6)
    with pytest.raises(ScenarioError, match="expected a pressure"):
        checked_value(scenario, "components.relief.setting", "120 m", "--grid")
    with pytest.raises(ScenarioError, match="no entry 'pumpx'.*pump"):
        set_values(scenario, ["components.pumpx.displacement"], ["25 cm^3/rev"])

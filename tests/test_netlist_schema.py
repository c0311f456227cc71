"""Netlists in scenario files (issue 30): a file's netlist is the network built in Python, its
quantities convert by one table of dimensions, and every bad entry is one ScenarioError line
naming the component and the key, from Python and from the command line; never a traceback."""

from __future__ import annotations

import copy
import dataclasses
import re
import tomllib

import numpy as np
import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from actuatorlab.cli import app
from actuatorlab.errors import ScenarioError
from actuatorlab.hydraulics.circuits import Cylinder, FixedPump, Network, ReliefValve, SpoolValve, Tank
from actuatorlab.scenarios.loading import parse_scenario, scenario_to_toml
from actuatorlab.scenarios.netlist_schema import COMPONENTS, INPUT_DIMENSIONS, PARAMETER_DIMENSIONS
from actuatorlab.scenarios.units import DIMENSIONS

BASE = {
    "kind": "circuit",
    "name": "float-centre",
    "description": "pump, relief, float-centre spool, cylinder",
    "duration": "0.05 s",
    "components": {
        "tank": {"type": "Tank", "ports": {"port": "T"}},
        "pump": {"type": "FixedPump", "ports": {"inlet": "T", "outlet": "P"}, "displacement": "45 cm^3/rev"},
        "relief": {"type": "ReliefValve", "ports": {"inlet": "P", "outlet": "T"}, "setting": "200 bar"},
        "valve": {
            "type": "SpoolValve",
            "ports": {"P": "P", "T": "T", "A": "A", "B": "B"},
            "centre": "float",
            "area": "80 mm^2",
        },
        "cylinder": {"type": "Cylinder", "ports": {"head": "A", "rod": "B"}, "stroke": "600 mm"},
    },
    "inputs": {"pump.speed": "1500 rpm", "valve.position": 0.4, "cylinder.velocity": "20 mm/s"},
    "initial_positions": {"cylinder": "100 mm"},
}


def _python_network() -> Network:
    return Network(
        {
            "tank": (Tank(), {"port": "T"}),
            "pump": (FixedPump(displacement=45e-6), {"inlet": "T", "outlet": "P"}),
            "relief": (ReliefValve(setting=2e7), {"inlet": "P", "outlet": "T"}),
            "valve": (SpoolValve(centre="float", area=80e-6), {"P": "P", "T": "T", "A": "A", "B": "B"}),
            "cylinder": (Cylinder(stroke=0.6), {"head": "A", "rod": "B"}),
        }
    )


def test_a_file_netlist_is_the_network_built_in_python():
    network = parse_scenario(copy.deepcopy(BASE)).network()
    expected = _python_network()
    assert network.nodes == expected.nodes and network.inputs == expected.inputs
    assert network.owners == expected.owners
    np.testing.assert_array_equal(network.rows, expected.rows)
    np.testing.assert_array_equal(network.volumes, expected.volumes)


def test_quantities_convert_to_si():
    scenario = parse_scenario(copy.deepcopy(BASE))
    assert scenario.components["relief"].component.setting == 2e7  # "200 bar"
    assert scenario.components["pump"].component.displacement == pytest.approx(45e-6, rel=1e-15)
    assert scenario.inputs["pump.speed"].value == pytest.approx(50 * np.pi, rel=1e-15)  # 1500 rpm


def test_show_writes_every_default_and_reads_back_equal():
    scenario = parse_scenario(copy.deepcopy(BASE))
    text = scenario_to_toml(scenario)
    assert 'setting = "20 MPa"' in text and "discharge_coefficient = 0.6" in text
    assert parse_scenario(tomllib.loads(text)) == scenario


def test_every_numeric_parameter_and_input_has_one_dimension():
    """A new component cannot slip by: each float field of each class is in the table."""
    for name, cls in COMPONENTS.items():
        for f in dataclasses.fields(cls):
            if f.type in ("float", float):
                assert PARAMETER_DIMENSIONS.get(f.name) in DIMENSIONS, (name, f.name)
        for signal in cls.INPUTS:
            assert INPUT_DIMENSIONS.get((name, signal)) in DIMENSIONS, (name, signal)


def _set(data: dict, path: str, value) -> None:
    keys = path.split("/")
    for key in keys[:-1]:
        data = data[key]
    if value is None:
        del data[keys[-1]]
    else:
        data[keys[-1]] = value


BAD = {
    "unknown type": ("components/pump/type", "FixedPumpp", r"^components\.pump\.type: 'FixedPumpp' is not a comp"),
    "unknown parameter": (
        "components/relief/settting",
        "200 bar",
        r"^components\.relief\.settting: ReliefValve has no parameter 'settting'; its parameters are setting, band",
    ),
    "wrong unit": (
        "components/relief/setting",
        "200 m",
        r'^components\.relief\.setting: "200 m" is a length; expected a pressure',
    ),
    "displacement as a volume": (
        "components/pump/displacement",
        "45 cm^3",
        r"^components\.pump\.displacement: .* is a volume; expected a displacement",
    ),
    "bad value": ("components/relief/setting", "-2 MPa", r"^components\.relief: setting = -2000000.0 Pa"),
    "unconnected port": (
        "components/relief/ports/outlet",
        None,
        r"^components\.relief\.ports: port 'outlet' is not connected; add outlet = \"NODE\"",
    ),
    "unknown port": (
        "components/relief/ports/drain",
        "T",
        r"^components\.relief\.ports\.drain: ReliefValve has no port 'drain'; its ports are inlet, outlet",
    ),
    "missing type": ("components/pump/type", None, r"^components\.pump\.type: missing; add type = one of"),
    "missing ports": ("components/pump/ports", None, r"^components\.pump\.ports: missing; add ports = "),
    "pilot to a missing node": (
        "components/cbv",
        {"type": "CounterbalanceValve", "ports": {"valve": "A", "load": "A2", "pilot": "X"}},
        r"^components: component 'cbv' pilot port 'pilot': node 'X' is joined by no",
    ),
    "no path to tank": (
        "components/orifice",
        {"type": "Orifice", "ports": {"inlet": "Q", "outlet": "R"}},
        r"^components: component 'orifice' port 'inlet': node 'Q' has no path to a tank",
    ),
    "dead-headed pump": (
        "components/relief",
        None,
        r"^components: component 'pump' port 'outlet': the pump is dead-headed at node 'P'",
    ),
    "unknown input": (
        "inputs/valve.speed",
        1.0,
        r'^inputs\."valve\.speed": not an input of the circuit; its inputs are pump\.speed, valve\.position',
    ),
    "input of the wrong unit": (
        "inputs/cylinder.velocity",
        "20 mm",
        r'^inputs\."cylinder\.velocity"(\.value)?: "20 mm" is a length; expected a velocity',
    ),
    "signal table without times": (
        "inputs/valve.position",
        {"type": "steps", "values": [0.1]},
        r'^inputs\."valve\.position"\.times: required but missing',
    ),
    "unknown node of an initial pressure": (
        "initial_pressures",
        {"Z": "1 bar"},
        r"^initial_pressures\.Z: not a node of the circuit; its nodes are T, P, A, B",
    ),
    "bad component name": ("components/a.b", {"type": "Tank", "ports": {"port": "T"}}, r"^components\.a\.b: a comp"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_each_bad_entry_is_one_line_naming_where(case):
    path, value, pattern = BAD[case]
    data = copy.deepcopy(BASE)
    _set(data, path, value)
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(data, "bad.toml")
    message = str(caught.value).removeprefix("bad.toml: ")
    assert len(message.splitlines()) == 1
    assert re.search(pattern, message), message


def test_the_command_line_prints_one_line_and_exits_2(tmp_path):
    data = copy.deepcopy(BASE)
    _set(data, "components/pump/type", "Pumpp")
    path = tmp_path / "bad.toml"
    path.write_text(tomli_w.dumps(data))
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert message.startswith("error:") and "components.pump.type" in message and len(message.splitlines()) <= 2
    assert isinstance(result.exception, SystemExit)


NAMES = st.sampled_from(["tank", "pump", "relief", "valve", "cylinder", "x"])
NODES = st.sampled_from(["T", "P", "A", "B", "Q", ""])
VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from(["200 bar", "3 kg", "45 cm^3/rev", "abc", "", "open", "after", "load_sensing", "1e400 Pa"]),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["a", "type"]), st.integers(), max_size=2),
)
FIELDS = st.sampled_from(sorted(PARAMETER_DIMENSIONS) + ["centre", "control", "position", "count", "bogus"])
COMPONENT = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from(sorted(COMPONENTS)), VALUES)},
    optional={
        "ports": st.one_of(
            st.dictionaries(
                st.sampled_from(["port", "inlet", "outlet", "P", "T", "A", "B", "head", "rod", "ls", "pilot"]),
                st.one_of(NODES, VALUES),
                max_size=5,
            ),
            VALUES,
        )
    },
).flatmap(lambda c: st.dictionaries(FIELDS, VALUES, max_size=3).map(lambda extra: {**extra, **c}))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(components=st.dictionaries(NAMES, st.one_of(COMPONENT, VALUES), max_size=6))
def test_fuzzed_netlists_raise_only_scenario_errors(components):
    data = {**copy.deepcopy(BASE), "components": components, "inputs": {}, "initial_positions": {}}
    try:
        scenario = parse_scenario(data, "fuzz.toml")
    except ScenarioError as error:
        assert len(str(error).splitlines()) <= 2
    else:
        assert scenario.network().nodes

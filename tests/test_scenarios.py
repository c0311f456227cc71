"""Scenario files: units, schema, built-in scenarios, TOML round trip and error messages."""

import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actuatorlab.errors import ScenarioError
from actuatorlab.hydraulics.quasistatic.circuit import ValveCircuit
from actuatorlab.hydraulics.quasistatic.relaxation import Relaxation
from actuatorlab.mechanics.single_arm import SingleArm
from actuatorlab.scenarios.loading import load_scenario, scenario_to_toml
from actuatorlab.scenarios.sources import builtin_scenarios
from actuatorlab.scenarios.arm_schema import (
    ArmScenario,
    ArmSpec,
    CircuitSpec,
    GammaMapScenario,
    RelaxationSpec,
)
from actuatorlab.scenarios.schema import LOC_TAGS, scenario_class
from actuatorlab.scenarios.spec_base import Spec
from actuatorlab.scenarios import units as units_module
from actuatorlab.scenarios.units import DIMENSIONS, format_quantity, to_si

ARM = """\
kind = "arm"
name = "test"
description = "a test arm"

[simulation]
duration = "10 s"
"""

GAMMA = """\
kind = "gamma-map"
name = "test"
description = "a test map"

[[panels]]
title = "a"
u_c = 0.5
u_b = 0.2
"""


def write(tmp_path, text: str, name: str = "scenario.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def load_error(tmp_path, text: str) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(write(tmp_path, text))
    message = str(info.value)
    assert message.count("\n") <= 1
    return message


# --- units -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,dimension,expected",
    [
        ("36 MPa", "pressure", 36e6),
        ("500 L/min", "volume_flow", 500 / 60000),
        ("75 mm", "length", 0.075),
        ("30 deg", "angle", math.radians(30)),
        (0.5, "angle", 0.5),  # a bare number is SI (rad)
        ("2.5e6 N s/m", "damping", 2.5e6),
        ("5000 kg m^2", "inertia", 5000.0),
        ("\u221220 kN", "force", -20e3),  # a typographic minus is a minus
        ("10 deg/s", "angular_velocity", math.radians(10)),
        ("1 ms", "time", 1e-3),
        ("50 %", "dimensionless", 0.5),
    ],
)
def test_to_si(value, dimension, expected):
    assert to_si(value, dimension, "x") == pytest.approx(expected, rel=1e-15)


def test_to_si_errors_name_the_field_and_a_remedy():
    with pytest.raises(
        ScenarioError,
        match=r'^circuit\.pump_relief_pressure: "36 m" is a length; '
        r'expected a pressure such as "36 MPa"$',
    ):
        to_si("36 m", "pressure", "circuit.pump_relief_pressure")
    with pytest.raises(ScenarioError, match=r"^a\.b: \"36 pascalz\" could not be read as a quantity: write a"):
        to_si("36 pascalz", "pressure", "a.b")
    # angles and frequencies are kept apart although pint calls both 1/s
    with pytest.raises(ScenarioError, match="is an angular velocity; expected a frequency"):
        to_si("60 rpm", "frequency", "f")
    with pytest.raises(ScenarioError, match="is an angle; expected a dimensionless number"):
        to_si("30 deg", "dimensionless", "u")
    with pytest.raises(ScenarioError, match="expected a number or a quantity string"):
        to_si(True, "length", "x")


@pytest.mark.parametrize("dimension", sorted(DIMENSIONS))
@settings(max_examples=25, deadline=None)
@given(x=st.floats(min_value=-1e9, max_value=1e9, allow_nan=False))
def test_format_quantity_reads_back_exactly(dimension, x):
    text = format_quantity(x, dimension)
    assert to_si(text, dimension, "x") == x


def test_format_quantity_display_units():
    assert format_quantity(36e6, "pressure") == "36 MPa"
    assert format_quantity(500 / 60000, "volume_flow") == "500 L/min"
    assert format_quantity(math.pi / 4, "angle") == "45 deg"
    assert format_quantity(-110e3, "force") == "-110 kN"
    assert format_quantity(2.5e6, "damping") == "2.5e6 N*s/m"
    assert format_quantity(0.3, "dimensionless") == 0.3
    assert format_quantity(math.inf, "time") == math.inf


# --- schema defaults mirror the dataclasses ----------------------------------------------------


def test_spec_defaults_match_the_dataclasses():
    assert CircuitSpec().build() == ValveCircuit.paper_example()
    assert ArmSpec().build() == SingleArm()
    assert ArmSpec().base == SingleArm().base
    assert RelaxationSpec().build() == Relaxation()


def test_union_tags_are_not_field_names():
    """Error paths drop pydantic's union tags, so no field may share a tag's name."""
    todo, tables = [Spec], []
    while todo:
        cls = todo.pop()
        tables.append(cls)
        todo.extend(cls.__subclasses__())
    assert len(tables) > 15
    for cls in tables:
        assert not LOC_TAGS & set(cls.model_fields), cls


def test_per_valve_tables(tmp_path):
    text = ARM + '\n[circuit]\nmax_area = {ph = "1 cm^2", tr = "1 cm^2", pr = "2 cm^2", th = "2 cm^2", b = "1 cm^2"}\n'
    circuit = load_scenario(write(tmp_path, text)).circuit.build()
    reference = ValveCircuit(max_area={"ph": 1e-4, "tr": 1e-4, "pr": 2e-4, "th": 2e-4, "b": 1e-4})
    assert circuit.coefficients == pytest.approx(reference.coefficients, rel=1e-15)


# --- built-in scenarios ----------------------------------------------------------------------


def test_builtin_names_and_descriptions():
    scenarios = builtin_scenarios()
    assert list(scenarios) == sorted(scenarios)
    assert {"arm-relief", "gamma-map"} <= set(scenarios)
    assert all(scenarios.values())


@pytest.mark.parametrize("name", sorted(builtin_scenarios()))
def test_builtin_loads(name):
    scenario = load_scenario(name)
    assert scenario.name == name
    assert isinstance(scenario, scenario_class(scenario.kind))
    if not hasattr(scenario, "circuit"):
        return  # the kinds of other papers
    # every Kikuuwe built-in uses the paper's circuit (66)
    built = scenario.circuit.build()
    reference = ValveCircuit.paper_example()
    assert built.kernel_array() == pytest.approx(reference.kernel_array(), rel=1e-15)


def test_gamma_map_builtin_is_fig_3():
    scenario = load_scenario("gamma-map")
    assert isinstance(scenario, GammaMapScenario)
    assert scenario.velocity_range == (-0.6, 0.6)
    assert [(p.u_c, p.u_b) for p in scenario.panels] == [
        (0.5, 0.2),
        (-0.5, 0.2),
        ((-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0), 0.2),
        (0.7, (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)),
    ]
    assert scenario.velocities().shape == (scenario.points,)


def test_arm_relief_builtin_is_sec_4_3():
    scenario = load_scenario("arm-relief")
    assert isinstance(scenario, ArmScenario)
    arm = scenario.arm.build()
    # Sec. 4.3: L_g 1.5 m, L_m 0.6 m, α = π/4, L_f 3 m, M 2000 kg, J 5000 kg m²
    assert (arm.com_distance, arm.mount_distance, arm.load_distance) == (1.5, 0.6, 3.0)
    assert arm.mount_angle == pytest.approx(math.pi / 4, rel=1e-15)
    assert (arm.mass, arm.inertia) == (2000.0, 5000.0)
    assert arm.base == SingleArm().base
    assert scenario.relaxation.build() == Relaxation(5e7, 2.5e6)
    assert (scenario.simulation.step, scenario.simulation.duration) == (1e-3, 10.0)
    t = scenario.simulation.times()
    scenario.check_inputs(t)
    signals = scenario.inputs.signals()
    at = np.array([0.0, 2.9, 3.0, 5.9, 6.0, 7.0, 9.0])
    assert signals["valve_command"].sample(at).tolist() == [0, 0, -0.3, -0.3, 0, 0, 0]
    assert signals["bleed"].sample(at).tolist() == [0.3] * 7
    force = signals["external_force"].sample(np.array([0.0, 0.5, 4.0, 7.0, 9.0]))
    ripple = 8e3 * math.sin(2 * math.pi * 1.5 * 0.5)
    # the chosen ramp of arm-relief.toml: -20 kN at 6 s to -104 kN at 8 s, released to -20 kN by 8.5 s
    assert force == pytest.approx([-20e3, -20e3 + ripple, -20e3, -62e3, -20e3], rel=1e-12)


@pytest.mark.parametrize("name", sorted(builtin_scenarios()))
def test_round_trip(tmp_path, name):
    scenario = load_scenario(name)
    text = scenario_to_toml(scenario)
    if hasattr(scenario, "circuit"):
        assert "36 MPa" in text and "500 L/min" in text  # display units of the Kikuuwe circuit
    again = load_scenario(write(tmp_path, text))
    assert again == scenario
    assert scenario_to_toml(again) == text


def test_round_trip_fills_defaults(tmp_path):
    scenario = load_scenario(write(tmp_path, ARM))
    text = scenario_to_toml(scenario)
    for key in ("[circuit]", "[arm]", "[relaxation]", "[outputs]", "bleed = 0.3", 'step = "0.001 s"'):
        assert key in text
    assert load_scenario(write(tmp_path, text, "again.toml")) == scenario


# --- bad input -------------------------------------------------------------------------------


def test_malformed_toml(tmp_path):
    message = load_error(tmp_path, ARM + "\n[circuit]\npump_flow = 500 L/min\n")
    assert "scenario.toml" in message and "not valid TOML" in message
    assert "line 9" in message and 'in quotes, e.g. pump_flow = "500 L/min"' in message


def test_unknown_field(tmp_path):
    message = load_error(tmp_path, ARM + "\n[arm]\nmasss = 2000\n")
    assert "arm.masss: unknown field; valid fields are mass, inertia," in message


def test_wrong_unit(tmp_path):
    message = load_error(tmp_path, ARM + '\n[circuit]\npump_relief_pressure = "36 m"\n')
    assert 'circuit.pump_relief_pressure: "36 m" is a length; expected a pressure such as "36 MPa"' in message


def test_wrong_unit_deep_in_a_signal(tmp_path):
    text = (
        ARM
        + '\n[inputs.external_force]\ntype = "sum"\nterms = [{type = "sine", amplitude = "8 m", frequency = "1 Hz"}]\n'
    )
    message = load_error(tmp_path, text)
    assert 'inputs.external_force.terms[0].amplitude: "8 m" is a length; expected a force' in message


def test_gamma_panel_opening_out_of_range(tmp_path):
    text = GAMMA + '\n[[panels]]\ntitle = "b"\nu_c = [0.5, 1.5]\nu_b = 0.2\n'
    message = load_error(tmp_path, text)
    assert "panels[1].u_c" in message and "1.5 is outside [-1, 1]" in message
    message = load_error(tmp_path, GAMMA.replace("u_b = 0.2", "u_b = 1.2"))
    assert "panels[0].u_b" in message and "must lie in [0, 1]" in message


def test_valve_command_reaching_out_of_range(tmp_path):
    text = ARM + '\n[inputs]\nvalve_command = {type = "steps", times = ["3 s"], values = [1.5]}\n'
    scenario = load_scenario(write(tmp_path, text))
    with pytest.raises(ScenarioError) as info:
        scenario.check_inputs(scenario.simulation.times())
    assert str(info.value) == "inputs.valve_command reaches 1.5 at t = 3 s; a valve command must lie in [-1, 1]"


def test_negative_area(tmp_path):
    message = load_error(tmp_path, ARM + '\n[circuit]\nhead_area = "-0.024 m^2"\n')
    assert "circuit.head_area = -0.024 m^2: must be a finite number > 0" in message
    message = load_error(
        tmp_path, ARM + "\n[circuit.max_area]\nph = 1e-4\ntr = 1e-4\npr = -1e-4\nth = 1e-4\nb = 1e-4\n"
    )
    assert "circuit.max_area.pr = -0.0001 m^2: must be a finite number > 0" in message


def test_bad_signal_parameters_name_the_signal(tmp_path):
    text = ARM + '\n[inputs]\nbleed = {type = "steps", times = ["2 s", "1 s"], values = [0.1, 0.2]}\n'
    assert "inputs.bleed: steps: times must increase strictly" in load_error(tmp_path, text)
    text = ARM + '\n[inputs]\nbleed = {type = "ramp"}\n'
    message = load_error(tmp_path, text)
    assert 'inputs.bleed: type = "ramp" is not a signal type; use one of "constant", "steps"' in message


def test_unknown_kind(tmp_path):
    message = load_error(tmp_path, ARM.replace('"arm"', '"robot"'))
    assert (
        'kind = "robot" is not a scenario kind; valid kinds are "arm", "model-comparison", "arms-one-pump", '
        '"gamma-map", "network-map"' in message
    )
    message = load_error(tmp_path, ARM.replace('kind = "arm"\n', ""))
    assert (
        'kind: missing; add kind = one of "arm", "model-comparison", "arms-one-pump", "gamma-map", "network-map"'
        in message
    )


def test_unknown_model(tmp_path):
    message = load_error(tmp_path, 'model = "hydrostatic"\n' + ARM)
    assert 'model: "hydrostatic" is not allowed; use one of "quasistatic" or "pressure-dynamics"' in message


def test_unknown_builtin_name():
    with pytest.raises(ScenarioError) as info:
        load_scenario("no-such-scenario")
    message = str(info.value)
    assert "no built-in scenario or file named 'no-such-scenario'" in message
    assert "arm-relief, circuit-ls-bank, crane-abcd" in message  # sorted names


def test_step_larger_than_duration(tmp_path):
    message = load_error(tmp_path, ARM.replace('duration = "10 s"', 'duration = "10 s"\nstep = "20 s"'))
    assert "simulation: step = 20 s is not smaller than duration = 10 s; make the step smaller" in message
    message = load_error(tmp_path, ARM.replace('duration = "10 s"', 'duration = "10 s"\nstep = "1 ns"'))
    assert "simulation: duration/step = 1e+10 samples exceeds the limit" in message


def test_missing_field_says_what_to_add(tmp_path):
    message = load_error(tmp_path, ARM.replace('duration = "10 s"', ""))
    assert 'simulation.duration: required but missing; add duration = "10 s" to [simulation]' in message


def test_several_problems_are_counted(tmp_path):
    message = load_error(tmp_path, ARM + '\n[circuit]\nhead_area = "1 m"\nrod_area = "1 s"\n')
    assert message.endswith("(and 1 more problem)")


@pytest.mark.parametrize("unit", sorted(units_module.COMMON_UNITS))
def test_common_units_convert_as_pint_does(unit, monkeypatch):
    """Each row of the pint-free table gives, to the last bit, the SI value and the display text
    that pint's own factors give (the independent computation: pint's registry)."""
    dimension = units_module.COMMON_UNITS[unit][0]
    si = DIMENSIONS[dimension].si
    values = [1.0, 0.3, 7.0, 36.0, 500.0, 1e-4, 2.5e6, 123.456]
    table = [units_module._scale(v, unit, si) for v in values]
    units_module._factors.cache_clear()
    monkeypatch.setattr(units_module, "_common_unit", lambda _: None)
    try:
        assert [units_module._scale(v, unit, si) for v in values] == table
    finally:
        units_module._factors.cache_clear()


def test_a_common_unit_file_is_read_without_pint():
    """The built-in arm scenario, written in common units, loads without importing pint."""
    code = (
        "import sys; from actuatorlab.scenarios.loading import load_scenario; load_scenario('arm-relief'); "
        "print('pint' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_showing_an_arm_scenario_imports_no_numba():
    """``actuatorlab show`` (load, validate, build every parameter class, write the TOML) of the
    arm kinds imports no numba (issue 19): the parameter classes the arm schema builds live in
    modules without compiled kernels."""
    code = (
        "import sys, actuatorlab\n"
        "for name in ('arm-relief', 'two-arms-one-pump', 'gamma-map'):\n"
        "    actuatorlab.load(name).show()\n"
        "print(sorted(m for m in sys.modules if m.startswith(('numba', 'llvmlite'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_listing_the_built_in_scenarios_imports_no_schema():
    """``actuatorlab scenarios`` reads the TOML files only: no pydantic, numba or numpy."""
    code = (
        "import sys; from actuatorlab.scenarios.sources import builtin_scenarios; names = builtin_scenarios(); "
        "print('arm-relief' in names, [m for m in ('pydantic', 'numba', 'numpy') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True []"

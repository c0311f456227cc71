"""The public Python API (issue 16): the README's example, doctests of every public name,
validated changes, and a cheap ``import actuatorlab``."""

from __future__ import annotations

import doctest
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import actuatorlab
from actuatorlab.errors import ScenarioError

README = Path(__file__).resolve().parents[1] / "README.md"
API_MODULES = (
    "actuatorlab.api.scenario",
    "actuatorlab.api.results",
    "actuatorlab.api.sweeps",
    "actuatorlab.api.identify",
)


def test_the_readme_example_runs_without_a_private_module(tmp_path, monkeypatch):
    """The notebook-length example of the README: load, change two fields with units, run,
    plot, compare two runs in one DataFrame, a 20-variant sweep."""
    section = README.read_text(encoding="utf-8").split("## Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert "import actuatorlab\n" in code and not re.search(r"actuatorlab\.\w+\.", code.replace("errors.", ""))
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, str(README), "exec"), namespace)
    both, study = namespace["both"], namespace["study"]
    assert list(both.columns) == [
        ("500 L/min", "theta"),
        ("500 L/min", "force"),
        ("75 L/min", "theta"),
        ("75 L/min", "force"),
    ]
    # below the 79 L/min the rod side takes at u_c = −0.3 (0.012 m² × 0.11 m/s), the pump limits the rise
    assert both.loc[5.0, ("75 L/min", "theta")] < 0.5 * both.loc[5.0, ("500 L/min", "theta")]
    assert len(study.index) == 20 and (study.index["status"] == "ok").all()
    assert (tmp_path / "runs" / "slow-arm" / "report.html").exists()
    assert len(namespace["figures"]) == 3


@pytest.mark.parametrize("module", API_MODULES)
def test_docstring_examples_run(module):
    result = doctest.testmod(
        importlib.import_module(module), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0 and result.attempted > 0


def test_every_public_name_has_a_docstring_with_an_example():
    for name in actuatorlab.__all__:
        obj = getattr(actuatorlab, name)
        doc = obj.__doc__ or ""
        assert doc.strip(), f"{name} has no docstring"
        assert ">>>" in doc, f"{name}'s docstring has no example"


def test_set_validates_with_the_field_path_and_leaves_the_base_alone():
    arm = actuatorlab.load("arm-relief")
    with pytest.raises(ScenarioError, match=r"circuit.pump_flow.*\"3 m\" is a length; expected a volume flow"):
        arm.set("circuit.pump_flow", "3 m")
    with pytest.raises(ScenarioError, match=r"no field 'pump_flw' at circuit; fields there: .*pump_flow"):
        arm.set(circuit__pump_flw="300 L/min")
    with pytest.raises(ScenarioError, match="no field given"):
        arm.set()
    changed = arm.set({"arm.mass": "2.5 t", "inputs.bleed": 0.25})
    assert changed.get("arm.mass") == pytest.approx(2500.0) and changed.get("inputs.bleed") == 0.25
    assert arm.get("arm.mass") == 2000.0


def test_show_and_to_toml_round_trip(tmp_path):
    arm = actuatorlab.load("arm-relief").set("circuit.pump_flow", "300 L/min")
    arm.to_toml(tmp_path / "arm.toml")
    again = actuatorlab.load(tmp_path / "arm.toml")
    assert again.show() == arm.show() == str(arm)
    assert 'pump_flow = "300 L/min"' in again.show()


def test_importing_the_package_loads_no_numerics_until_used():
    """``import actuatorlab`` loads nothing heavy; loading a scenario loads no tables or plots;
    running it (in this process: no forked child) loads the numerics, and its table, pandas only
    when it is asked for (a saved run writes its Parquet file from the columns)."""
    code = (
        "import sys, tempfile, actuatorlab\n"
        "heavy = lambda: [m for m in ('numba', 'mujoco', 'pandas', 'matplotlib', 'dask') if m in sys.modules]\n"
        "print(heavy()); arm = actuatorlab.load('arm-relief'); print(heavy()); result = arm.run(); print(heavy())\n"
        "result.save(tempfile.mkdtemp()); print(heavy()); result.table; print(heavy())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "ACTUATORLAB_NO_FORK": "1"},
    ).stdout.split("\n")
    assert out[0] == "[]"
    assert "pandas" not in out[1] and "matplotlib" not in out[1] and "dask" not in out[1]
    assert "numba" in out[2] and "mujoco" not in out[2]
    assert "pandas" not in out[3] and "matplotlib" in out[3]
    assert "pandas" in out[4]


def test_an_arm_run_imports_only_what_it_uses(tmp_path):
    """Running and saving an arm scenario loads no other paper's stack (issue 19: every kind
    imports only what it uses): no MuJoCo, CasADi, pymoo, SymPy, OSQP, Dask, pint or
    identification module."""
    code = (
        "import sys, actuatorlab\n"
        f"actuatorlab.load('arm-relief').run().save({str(tmp_path / 'run')!r})\n"
        "unused = ('mujoco', 'casadi', 'pymoo', 'sympy', 'osqp', 'dask', 'pint', 'actuatorlab.identification',"
        " 'actuatorlab.multibody', 'actuatorlab.control', 'actuatorlab.optimization', 'actuatorlab.electromech')\n"
        "print(sorted(m for m in sys.modules if m.startswith(unused)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_mistyped_key_figure_names_the_closest_and_compare_takes_a_list():
    result = actuatorlab.load("gamma-map").run()
    key = next(iter(result.summary))
    with pytest.raises(KeyError) as error:
        result.summary[key[:-1]]  # one character short
    assert f"did you mean {key!r}" in str(error.value)
    with pytest.raises(KeyError, match="the keys are"):
        result.summary["nothing like it at all, not even close"]
    both = actuatorlab.compare([result, result], ["f_low"])
    assert list(both.columns) == [("gamma-map", "f_low"), ("gamma-map #2", "f_low")]


def test_set_takes_a_pint_quantity_of_the_users_own_registry():
    import pint

    ureg = pint.UnitRegistry()  # not actuatorlab's: the value travels as its quantity string
    scenario = actuatorlab.load("arm-relief").set("circuit.pump_flow", ureg.Quantity(300, "L/min"))
    assert scenario.get("circuit.pump_flow") == pytest.approx(300 / 60000, rel=1e-15)
    with pytest.raises(ScenarioError, match="is a pressure; expected a volume flow"):
        actuatorlab.load("arm-relief").set("circuit.pump_flow", ureg.Quantity(300, "bar"))


def test_a_run_without_progress_says_when_kernels_compile(monkeypatch, capsys):
    """Scenario.run with no progress callback prints one line on stderr when numba compiles (as
    the command line does): the runner's compile hook, called here as numba's listener would."""
    import actuatorlab.scenarios.runner as runner

    class Stop(Exception):
        pass

    def compiling_simulate(spec, progress, on_compile, processes):
        on_compile()
        progress(0.5)
        raise Stop

    monkeypatch.setattr(runner, "simulate", compiling_simulate)
    with pytest.raises(Stop):
        actuatorlab.load("gamma-map").run()
    err = capsys.readouterr().err
    assert err.count("compiling kernels, once per machine") == 1
    with pytest.raises(Stop):
        actuatorlab.load("gamma-map").run(progress=lambda stage, fraction: None)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("name", ["arm-relief", "excavator-ls", "ieha-step"])
def test_a_scenario_pickles_and_comes_back_equal(name):
    import pickle

    scenario = actuatorlab.load(name).set("description", "changed before pickling")
    back = pickle.loads(pickle.dumps(scenario))
    assert back.show() == scenario.show()
    assert back.get("description") == "changed before pickling"


def test_a_run_keeps_the_scenario_it_ran():
    scenario = actuatorlab.load("gamma-map").set("description", "kept")
    result = scenario.run()
    assert result.scenario is scenario and result.scenario.get("description") == "kept"


def test_a_sweep_into_a_folder_holding_one_says_what_to_pass_in_python(tmp_path):
    short = actuatorlab.load("arm-relief").set("simulation.duration", "0.2 s")
    actuatorlab.sweep(short, grid={"inputs.bleed": [0.2]}, workers=1, out=tmp_path / "s")
    with pytest.raises(ScenarioError) as error:
        actuatorlab.sweep(short, grid={"inputs.bleed": [0.2]}, workers=1, out=tmp_path / "s")
    assert "holds a sweep already; pass resume=True to finish it, or give another out=" in str(error.value)
    assert "--" not in str(error.value)
    again = actuatorlab.sweep(short, grid={"inputs.bleed": [0.2]}, workers=1, out=tmp_path / "s", resume=True)
    assert again.skipped == 1


def test_the_type_hints_of_every_public_name_resolve():
    # typing.get_type_hints (IDEs, pydantic, typeguard) on the root's functions, classes and methods:
    # names kept lazy for speed are resolvable all the same
    import inspect
    import typing

    for name in actuatorlab.__all__:
        thing = getattr(actuatorlab, name)
        members = inspect.getmembers(thing, inspect.isfunction) if inspect.isclass(thing) else []
        for target in [thing, *(member for _, member in members)]:
            typing.get_type_hints(target)


def test_get_reads_a_field_in_the_unit_asked_for():
    arm = actuatorlab.load("arm-relief")
    assert arm.get("circuit.pump_flow", "L/min") == 500.0  # as the file writes it, exactly
    assert arm.get("arm.mount_angle", "deg") == pytest.approx(45.0)
    assert arm.get("inputs.bleed", "") == 0.3  # a constant signal's value
    with pytest.raises(ScenarioError, match=r'"1 L/min" is a volume flow; expected a mass'):
        arm.get("arm.mass", "L/min")
    with pytest.raises(ScenarioError, match="inputs.valve_command is not a quantity"):
        arm.get("inputs.valve_command", "s")


def test_open_brings_back_a_run_a_sweep_and_a_sensitivity_analysis(tmp_path):
    short = actuatorlab.load("arm-relief").set("simulation.duration", "1 s")
    run = short.run()
    run.save(tmp_path / "run")
    again = actuatorlab.open(tmp_path / "run")
    pd.testing.assert_frame_equal(again.table, run.table)
    assert again.summary == run.summary and again.notes == run.notes and again.title == run.title
    assert again.table.attrs["units"]["theta"] == "rad" and again.scenario.get("simulation.duration") == 1.0
    assert [f.get_size_inches()[0] > 1 for f in again.plot(show=False)] == [True] * len(run.plot(show=False))
    swept = actuatorlab.sweep(short, grid=["inputs.bleed=0.1,0.3"], workers=1, out=tmp_path / "sweep")
    pd.testing.assert_frame_equal(actuatorlab.open(tmp_path / "sweep").index, swept.index)
    ranked = actuatorlab.sensitivity(
        short,
        ["inputs.bleed=uniform(0.1, 0.5)"],
        method="morris",
        samples=4,
        figures=["max_angle_rad"],
        workers=1,
        out=tmp_path / "morris",
    )
    pd.testing.assert_frame_equal(actuatorlab.open(tmp_path / "morris").table, ranked.table)


def test_open_refuses_a_folder_without_a_result_in_one_line(tmp_path):
    (tmp_path / "thesis.tex").write_text("mine")
    with pytest.raises(ScenarioError, match="holds no actuatorlab result"):
        actuatorlab.open(tmp_path)
    with pytest.raises(ScenarioError, match="no such folder"):
        actuatorlab.open(tmp_path / "missing")


def test_a_run_result_pickles_with_its_table_key_figures_and_scenario():
    import pickle

    run = actuatorlab.load("arm-relief").set("simulation.duration", "1 s").run()
    back = pickle.loads(pickle.dumps(run))
    pd.testing.assert_frame_equal(back.table, run.table)
    assert back.summary == run.summary and back.notes == run.notes
    assert back.scenario.show() == run.scenario.show() and back.plot(show=False) == []

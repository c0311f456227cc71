"""Every parameter class is validated at construction (issue 15; docs/architecture.md).

A dataclass in the physics, machine, method and simulation packages either checks its fields
in ``__post_init__`` (raising ``ParameterError`` naming the field, value, unit and range), or
declares each of its number fields with ``validation.quantity`` (unit and check) and inherits
a ``__post_init__`` that runs ``validation.check_quantities`` (the netlist components), or is a
result or record the library computes, listed below with what it is. Read from the source
with ``ast``, so a new dataclass that is none of these fails here.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import sys
from pathlib import Path

import pytest

from actuatorlab.errors import ParameterError
from actuatorlab.hydraulics.pressure_dynamics import PressureDynamics
from actuatorlab.hydraulics.quasistatic.circuit import ValveCircuit
from actuatorlab.machines.excavator import ExcavatorParameters
from actuatorlab.simulation.robot_experiments import LockedStep

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "actuatorlab"
CHECKED_PACKAGES = (
    "hydraulics",
    "mechanics",
    "electromech",
    "machines",
    "control",
    "optimization",
    "identification",
    "multibody",
    "simulation",
    "numerics",
)

COMPUTED = {
    "control/rdsc.py:RDSCCommand": "the controller's output of one sample",
    "electromech/efficiency.py:EfficiencyMap": "an efficiency map computed over a grid",
    "electromech/emla.py:Linearisation": "a numerical linearisation of the EMLA model",
    "hydraulics/circuits/ledger.py:Ledger": "the energy ledger computed from a circuit run",
    "identification/transfer_function.py:TransferFunctionFit": "a fit's estimates and standard errors",
    "identification/bands.py:ResponseBands": "a fitted model's Bode and step responses with their bands",
    "identification/robot_least_squares.py:Rows": "regressor rows built from an experiment",
    "identification/pressure_offset.py:PressureOffset": "the pressure offset fitted with the torques",
    "identification/robot_least_squares.py:LeastSquares": "a least-squares solution and its diagnostics",
    "identification/robot_least_squares.py:Identification": "identified parameters with standard errors",
    "identification/robot_least_squares.py:Repeated": "statistics over repeated identifications",
    "identification/sequential.py:SequentialFluid": "the sequential method's fluid estimates",
    "identification/uncertainty.py:BootstrapSummary": "a bootstrap's estimates, bias, spread and intervals",
    "mechanics/mujoco_model.py:ComparisonStats": "statistics of the inverse-dynamics comparison",
    "mechanics/parallel_serial.py:Workspace": "scratch arrays of the compiled recursions",
    "multibody/cylinders.py:CylinderArrays": "the packed kernel arrays of validated cylinders",
    "multibody/machine.py:Supply": "a supply's cylinders, gathered from validated circuits",
    "multibody/native.py:MujocoCalls": "addresses of MuJoCo's C functions and of a model and its data",
    "multibody/holding.py:InitialState": "the consistent initial state computed at the initial pose",
    "multibody/stability.py:ActuatorStability": "a stability margin computed from the effective mass",
    "optimization/leader.py:Evaluation": "one follower solve of the leader's search",
    "optimization/leader.py:LeaderProgress": "progress of the leader's search",
    "optimization/leader.py:BilevelResult": "the bilevel optimisation's result",
    "optimization/trajectory_efficiency.py:EfficiencySummary": "efficiencies of a computed trajectory",
    "optimization/trajectory_task.py:FollowerSolution": "the follower NLP's solution",
    "optimization/trajectory_task.py:TrajectorySamples": "dense samples of a solved trajectory",
    "simulation/arm.py:StabilityLimit": "the stability bound computed for a run",
    "simulation/arm.py:ArmDrive": "one batched run's inputs, sampled from validated signal tables",
    "simulation/arm_batch.py:ArmRun": "one batched run, assembled from validated arms, circuits and relaxation",
    "simulation/crane.py:CraneRun": "a crane run's recorded signals",
    "simulation/crane_reference.py:JointReference": "a joint reference computed by inverse kinematics",
    "simulation/emla_tracking.py:EMLATrackingResult": "a tracking run's recorded signals",
    "simulation/ieha.py:IEHAResult": "an IEHA run's recorded signals",
    "simulation/ieha_control.py:ClosedLoopResult": "a closed-loop IEHA run's signals and metrics",
    "simulation/result.py:Channel": "one recorded channel with its unit",
    "simulation/result.py:SimulationResult": "a run's recorded channels",
    "simulation/robot_simulation.py:RobotRun": "a robot run's recorded signals",
    "simulation/robot_search.py:SearchResult": "a PSO or GA search's result",
    "simulation/robot_bootstrap.py:RobotBootstrap": "the robot bootstrap's summary and the noise it used",
    "simulation/robot_bootstrap.py:Coverage": "how often intervals contained the truth over realisations",
    "simulation/robot_validation.py:Validation": "a cross-validation's FIT values",
}
"""Dataclasses that hold what the library computed, not parameters a user gives: module:class → what."""


def _dataclasses() -> dict[str, ast.ClassDef]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] not in CHECKED_PACKAGES:
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and any("dataclass" in ast.unparse(d) for d in node.decorator_list):
                found[f"{relative.as_posix()}:{node.name}"] = node
    return found


def _class(name: str) -> type:
    """The class ``module/path.py:Class`` of the package."""
    path, cls = name.split(":")
    return getattr(importlib.import_module("actuatorlab." + path.removesuffix(".py").replace("/", ".")), cls)


def _unchecked_numbers(cls: type) -> list[str]:
    """The float fields of a dataclass that uses ``quantity`` for some field but not for these."""
    fields = dataclasses.fields(cls)
    if not any("check" in f.metadata for f in fields):
        return []
    return [f.name for f in fields if "check" not in f.metadata and f.type in ("float", float)]


def _checks_declared_quantities(name: str) -> bool:
    """The class inherits a ``__post_init__`` that checks its declared quantities, and declares
    every number field as one."""
    cls = _class(name)
    return (
        _runs_check_quantities(cls)
        and any("check" in f.metadata for f in dataclasses.fields(cls))
        and not _unchecked_numbers(cls)
    )


def _runs_check_quantities(cls: type) -> bool:
    """The ``__post_init__`` a class runs calls ``check_quantities``, itself or through the
    ``super().__post_init__()`` calls it makes up its bases."""
    for klass in cls.__mro__:
        if "__post_init__" in vars(klass):
            source = inspect.getsource(vars(klass)["__post_init__"])
            if "check_quantities(self" in source:
                return True
            if "super().__post_init__()" not in source:
                return False
    return False


def test_every_parameter_class_validates_its_fields():
    unchecked = [
        name
        for name, node in _dataclasses().items()
        if name not in COMPUTED
        and not any(isinstance(item, ast.FunctionDef) and item.name == "__post_init__" for item in node.body)
        and not _checks_declared_quantities(name)
    ]
    assert not unchecked, (
        "validate these parameter classes in __post_init__ (or list a computed result in "
        f"COMPUTED with what it is): {unchecked}"
    )


def test_a_class_that_declares_quantities_declares_every_float_field_so():
    """``check_quantities`` checks only the fields declared with ``quantity``: a float field
    written plainly beside them (a subclass giving a base's field a new default, say) would be
    left unchecked."""
    plain = {name: _unchecked_numbers(_class(name)) for name in _dataclasses() if name not in COMPUTED}
    assert not {name: fields for name, fields in plain.items() if fields}


def test_the_list_of_computed_results_names_existing_classes():
    assert set(COMPUTED) <= set(_dataclasses()), sorted(set(COMPUTED) - set(_dataclasses()))


def test_the_check_sees_a_missing_validation(tmp_path, monkeypatch):
    """The walk would catch a parameter class without __post_init__."""
    module = tmp_path / "actuatorlab" / "hydraulics" / "new_valve.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "from dataclasses import dataclass\n\n@dataclass(frozen=True)\nclass Valve:\n    area: float = 1e-4\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "actuatorlab")
    assert list(_dataclasses()) == ["hydraulics/new_valve.py:Valve"]


@pytest.mark.parametrize(
    ("cls", "field", "value"),
    [
        (ValveCircuit, "pump_flow", -1.0),
        (ExcavatorParameters, "pump_flow", float("nan")),
        (PressureDynamics, "bulk_modulus", 0.0),
    ],
)
def test_a_bad_value_is_refused_naming_its_field(cls, field, value):
    with pytest.raises(ParameterError, match=field):
        cls(**{field: value})


@pytest.mark.parametrize(
    ("angles", "driven", "field"),
    [
        ((0.1, float("nan")), (0,), "angles"),
        ((0.1, 0.2), (), "driven"),
        ((0.1, 0.2), (1, 1), "driven"),
        ((0.1, 0.2), (-1,), "driven"),
    ],
)
def test_a_locked_step_is_checked_when_it_is_built(angles, driven, field):
    with pytest.raises(ParameterError, match=field):
        LockedStep("step", angles, driven)


def test_a_payload_needs_a_mass_and_a_point():
    from actuatorlab.multibody.model_file import Payload

    with pytest.raises(ParameterError, match="mass"):
        Payload("load", "boom", (1.0, 0.0, 0.0), 0.0, "payloads[0]")
    with pytest.raises(ParameterError, match=r"payloads\[0\].point"):
        Payload("load", "boom", (1.0, float("nan"), 0.0), 10.0, "payloads[0]")


def test_a_declared_quantity_is_refused_naming_its_field_and_unit():
    """``quantity`` fields are checked by ``check_quantities`` with the unit they declare."""
    from actuatorlab.electromech.pmsm import PMSM
    from actuatorlab.hydraulics.circuits import ReliefValve

    with pytest.raises(ParameterError, match=r"pmsm\.inductance_d = -1\.0 H: must be a finite number > 0"):
        PMSM(4, 0.1, -1.0, 1e-3, 0.1, 1e-3, 10.0, 100.0)
    with pytest.raises(ParameterError, match=r"band = 0\.0 Pa"):  # a base's field, re-defaulted by the valve
        ReliefValve(band=0.0)
    assert PMSM(4, 1, 1, 1, 1, 1, 1, 1).resistance == 1.0 and type(PMSM(4, 1, 1, 1, 1, 1, 1, 1).resistance) is float


def test_a_count_refuses_what_is_not_a_whole_number_in_one_error():
    """``validation.count``: a string, NaN or infinity is refused as a ParameterError, as 2.5 is."""
    from actuatorlab.validation import count

    assert count("pistons", 7.0, "") == 7
    for value in (2.5, 0, float("nan"), float("inf"), "seven", None):
        with pytest.raises(ParameterError, match="pistons = .*must be an integer >= 1"):
            count("pistons", value, "")

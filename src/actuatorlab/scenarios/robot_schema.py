"""Schema of the hydraulic-robot tables (Sakai & Maeshima): the known robot (also the
``--known`` file of ``actuatorlab identify hydraulic-robot``), identification options, and
the ``identify-robot`` scenario that generates, identifies, validates and reports.

Joints are numbered from 1 in files (``driven = [2]``); spool inputs and flow gains are in
the spool unit of the logs (default mm), so they are plain numbers here.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, StrictBool, StrictInt, StrictStr, field_validator

from ..errors import ScenarioError
from ..hydraulics.fluid import SAKAI_BULK_MODULUS
from ..identification.robot_least_squares import DERIVATIVES, GRAVITY, IdentificationOptions
from ..machines import sakai_robot
from ..mechanics.robot_dynamics import CylinderMount, HydraulicRobot, RobotParameters, mechanical_names
from ..simulation.robot_experiments import Excitation, LockedStep, paper_steps
from .log_layout import LogSpec
from .spec_base import (
    Acceleration,
    Angle,
    Area,
    Frequency,
    Length,
    OutputsSpec,
    PlainName,
    Pressure,
    Spec,
    Time,
    Volume,
    at_least,
    defaults_of,
    reported_at,
)


_OPTIONS = defaults_of(IdentificationOptions)
_EXCITATION = defaults_of(Excitation)


class CylinderSpec(Spec):
    """One joint's cylinder, :class:`~actuatorlab.mechanics.robot_dynamics.CylinderMount`."""

    base_distance: Length
    link_distance: Length
    angle_offset: Angle = 0.0
    mid_stroke_length: Length
    stroke: Length
    head_area: Area
    rod_area: Area
    head_line_volume: Volume
    rod_line_volume: Volume


def _table2() -> list[CylinderSpec]:
    return [
        CylinderSpec(**{k: getattr(c, k) for k in CylinderSpec.model_fields})
        for c in sakai_robot.table2_robot().cylinders
    ]


class HydraulicRobotSpec(Spec):
    """The known robot (default: Table II): cylinders, supply pressure, gravity and its tilt."""

    cylinders: list[CylinderSpec] = Field(default_factory=_table2)
    supply_pressure: Pressure = sakai_robot.SUPPLY_PRESSURE
    gravity: Acceleration = sakai_robot.GRAVITY
    gravity_tilt: Angle = 0.0

    def build(self, where: str = "robot") -> HydraulicRobot:
        with reported_at(where):
            mounts = tuple(CylinderMount(**c.model_dump()) for c in self.cylinders)
            return HydraulicRobot(mounts, self.supply_pressure, self.gravity, self.gravity_tilt)


class IdentificationSpec(Spec):
    """Options of the least squares, :class:`~actuatorlab.identification.robot_least_squares.IdentificationOptions`."""

    derivatives: Literal[DERIVATIVES] = _OPTIONS["derivatives"]
    taps: StrictInt = _OPTIONS["taps"]
    zero_phase: StrictBool = _OPTIONS["zero_phase"]
    gravity: Literal[GRAVITY] = _OPTIONS["gravity"]
    lock_tolerance: Angle = _OPTIONS["lock_tolerance"]

    def build(self, where: str = "identification") -> IdentificationOptions:
        with reported_at(where):
            return IdentificationOptions(**self.model_dump())


class UncertaintySpec(Spec):
    """The parametric bootstrap of an identification from logs
    (:mod:`~actuatorlab.simulation.robot_bootstrap`): ``replicates`` (0: the least-squares
    formula only, which is too narrow on filtered noisy data), their ``seed`` (absent: derived
    from the logs, :func:`~actuatorlab.simulation.robot_bootstrap.seed_from_logs`) and the
    ``workers`` (threads) they run on."""

    replicates: StrictInt = 200
    seed: StrictInt | None = None
    workers: StrictInt = 2

    @field_validator("replicates", "workers", "seed")
    @classmethod
    def _count(cls, value: int | None, info) -> int | None:
        if value is not None and value < 0:
            raise ValueError(f"{value}: give a {'seed' if info.field_name == 'seed' else 'count'} >= 0")
        return value


class KnownFile(HydraulicRobotSpec):
    """The ``--known`` file: the robot's known values, the identification and uncertainty
    options and the layout of the logs (``[log]``, :mod:`~actuatorlab.scenarios.log_layout`)."""

    identification: IdentificationSpec = Field(default_factory=IdentificationSpec)
    uncertainty: UncertaintySpec = Field(default_factory=UncertaintySpec)
    log: LogSpec = Field(default_factory=LogSpec)


class RobotTruthSpec(Spec):
    """Parameters the synthetic experiments are generated with (default: Table III means):
    ``mechanical`` a1 in SI, ``bulk_modulus``, ``flow_gains`` (one [C++, C+−, C−+, C−−] per valve,
    m³/(s·[u]·√Pa))."""

    mechanical: list[float] = Field(default_factory=lambda: sakai_robot.table3_parameters().mechanical.tolist())
    bulk_modulus: Pressure = SAKAI_BULK_MODULUS
    flow_gains: list[list[float]] = Field(default_factory=lambda: sakai_robot.table3_parameters().flow_gains.tolist())

    def build(self, where: str = "truth") -> RobotParameters:
        with reported_at(where):
            return RobotParameters(self.mechanical, self.bulk_modulus, self.flow_gains)


class StepSpec(Spec):
    """A locked-joint experiment: start ``angles`` of every joint (locked ones stay there; a
    missing list starts driven joints at mid-stroke) and the ``driven`` joints (from 1)."""

    name: PlainName
    angles: list[Angle]
    driven: list[StrictInt]


class ExcitationSpec(Spec):
    """The spool sine, run length and kept window, sampling, centering and sensor noise,
    :class:`~actuatorlab.simulation.robot_experiments.Excitation`."""

    amplitude: float = _EXCITATION["amplitude"]
    frequency: Frequency = _EXCITATION["frequency"]
    duration: Time = _EXCITATION["duration"]
    window: tuple[Time, Time] = _EXCITATION["window"]
    sample_time: Time = _EXCITATION["sample_time"]
    centering: float = _EXCITATION["centering"]
    angle_noise: Angle = _EXCITATION["angle_noise"]
    pressure_noise: Pressure = _EXCITATION["pressure_noise"]
    spool_noise: float = _EXCITATION["spool_noise"]
    angle_quantum: Angle = _EXCITATION["angle_quantum"]
    pressure_quantum: Pressure = _EXCITATION["pressure_quantum"]
    seed: StrictInt = _EXCITATION["seed"]

    def build(self, where: str = "excitation", **changes) -> Excitation:
        with reported_at(where):
            return Excitation(**{**self.model_dump(), **changes})


class SearchSpec(Spec):
    """Budget of the PSO and GA output-error baselines (population 0 skips them)."""

    population: StrictInt = 10
    generations: StrictInt = 4
    seed: StrictInt = 1


class IdentifyRobotScenario(Spec):
    """Generate locked-joint experiments of a hydraulic robot, identify every parameter by the
    coupled least squares, compare with the sequential method and PSO/GA, cross-validate at
    another frequency, and report (Sakai & Maeshima)."""

    kind: Literal["identify-robot"] = "identify-robot"
    name: PlainName
    description: StrictStr
    robot: HydraulicRobotSpec = Field(default_factory=HydraulicRobotSpec)
    truth: RobotTruthSpec = Field(default_factory=RobotTruthSpec)
    experiments: list[StepSpec] | None = None
    excitation: ExcitationSpec = Field(default_factory=ExcitationSpec)
    repetitions: StrictInt = 10
    identification: IdentificationSpec = Field(default_factory=IdentificationSpec)
    validation_frequency: Frequency = 3.0
    search: SearchSpec = Field(default_factory=SearchSpec)
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    _positive = field_validator("repetitions")(at_least(1, "give at least 1 repetition"))

    def locked_steps(self) -> list[LockedStep]:
        """The steps as data (default: Steps 1–3 of Fig. 3 for a 2-DOF robot)."""
        robot = self.robot.build("robot")
        if self.experiments is None:
            with reported_at("experiments"):
                return paper_steps(robot)
        steps = []
        for k, step in enumerate(self.experiments):
            if (
                len(step.angles) != robot.joints
                or not step.driven
                or any(not 1 <= j <= robot.joints for j in step.driven)
            ):
                raise ScenarioError(
                    f"experiments[{k}] ({step.name}): give {robot.joints} angles and driven joints among "
                    f"1…{robot.joints}"
                )
            steps.append(LockedStep(step.name, tuple(step.angles), tuple(j - 1 for j in step.driven)))
        return steps

    def check(self) -> None:
        robot = self.robot.build("robot")
        truth = self.truth.build("truth")
        if truth.joints != robot.joints:
            raise ScenarioError(
                f"truth: flow_gains give {truth.joints} valves and mechanical needs "
                f"{len(mechanical_names(robot.joints))} values for the robot's {robot.joints} joints"
            )
        self.identification.build()
        self.excitation.build()
        self.locked_steps()
        if not math.isfinite(self.validation_frequency) or self.validation_frequency <= 0:
            raise ScenarioError("validation_frequency: must be > 0 Hz")

"""Schema of the parallel–serial crane scenarios (Petrović & Mattila): the closed-loop diamond
under VDC and the inverse-dynamics check against MuJoCo."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictInt, StrictStr

from ..errors import ScenarioError
from .spec_base import OutputsSpec, PlainName, Pressure, Spec, Time

VARIANTS = ("corrected", "as_given")
PLANTS = ("native", "mujoco")


class CraneSetup(Spec):
    """Shared tables: the lab crane's parameter set (``corrected``: the centres of mass of the
    extension rod and pistons fixed, see ``lab_crane``; ``as_given``: the authors' set)."""

    name: PlainName
    description: StrictStr
    variant: Literal[VARIANTS] = "corrected"
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    def check(self) -> None:
        """Nothing beyond the schema: the crane's values are built in."""


class CraneVDCScenario(CraneSetup):
    """The tool tip tracks the A–B–C–D diamond (quintic rest-to-rest segments) under VDC at 1 kHz
    with the pressure-dynamics plant, ``plant`` = "native" (the model's own forward dynamics) or
    "mujoco" (the multibody integrated by MuJoCo, the hydraulics ours)."""

    kind: Literal["crane-vdc"] = "crane-vdc"
    loops: StrictInt = 2
    segment_time: Time = 2.0
    substeps: StrictInt = 2
    plant: Literal[PLANTS] = "native"
    supply_pressure: Pressure = 185e5
    spool_time_constant: Time = 0.0

    def check(self) -> None:
        if self.loops < 1 or self.substeps < 1:
            raise ScenarioError("loops and substeps: give integers >= 1")
        if self.segment_time <= 0.1:
            raise ScenarioError(f"segment_time = {self.segment_time} s: give more than 0.1 s per segment")


class CraneInverseDynamicsScenario(CraneSetup):
    """Actuator forces of the closed-form (68) against MuJoCo's inverse dynamics along a random
    smooth joint trajectory, and gravity-only static poses."""

    kind: Literal["crane-inverse-dynamics"] = "crane-inverse-dynamics"
    duration: Time = 10.0
    samples: StrictInt = 2000
    seed: StrictInt = 0

    def check(self) -> None:
        if self.samples < 10:
            raise ScenarioError(f"samples = {self.samples}: give at least 10")

"""Schema of the excavator scenario: our hydraulic actuators inside a MuJoCo excavator."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool, StrictStr

from ..errors import ScenarioError
from .spec_base import OutputsSpec, Spec, Time


class ExcavatorDigScenario(Spec):
    """The scripted digging cycle (hold, boom down, stick in, bucket curl, boom up under load)
    with the quasistatic model, and with ``compare`` the pressure-dynamics model too; MuJoCo's
    ``timestep`` is the actuators' step; ``cycle_scale`` < 1 shortens every phase."""

    kind: Literal["excavator-dig"] = "excavator-dig"
    name: StrictStr
    description: StrictStr
    timestep: Time = 1e-3
    compare: StrictBool = True
    cycle_scale: float = 1.0
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    def check(self) -> None:
        if not 0 < self.timestep <= 5e-3:
            raise ScenarioError(f"timestep = {self.timestep} s: give a step in (0, 5 ms]")
        if not 0.1 <= self.cycle_scale <= 10:
            raise ScenarioError(f"cycle_scale = {self.cycle_scale}: give a factor in [0.1, 10]")

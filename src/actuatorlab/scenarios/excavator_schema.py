"""Schema of the excavator scenario: our hydraulic actuators inside a MuJoCo excavator."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool, StrictStr

from ..errors import ScenarioError
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..machines.excavator import ExcavatorParameters
from .spec_base import Damping, OutputsSpec, Spec, Stiffness, Time, reported_at

_RELAXATION = ExcavatorParameters().relaxation


class ExcavatorDigScenario(Spec):
    """The scripted digging cycle (hold, boom down, stick in, bucket curl, boom up under load)
    with the actuator ``model``, and with ``compare`` the other model too; MuJoCo's ``timestep``
    is the actuators' step; ``stiffness`` K and ``damping`` B of the relaxed quasistatic
    actuators (checked against the effective masses); ``cycle_scale`` < 1 shortens every phase."""

    kind: Literal["excavator-dig"] = "excavator-dig"
    name: StrictStr
    description: StrictStr
    model: Literal["quasistatic", "pressure-dynamics"] = "quasistatic"
    timestep: Time = 1e-3
    stiffness: Stiffness = _RELAXATION.stiffness
    damping: Damping = _RELAXATION.damping
    compare: StrictBool = True
    cycle_scale: float = 1.0
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    def parameters(self) -> ExcavatorParameters:
        """The excavator with this scenario's relaxation."""
        with reported_at("", own_prefix="relaxation."):
            return ExcavatorParameters(relaxation=Relaxation(self.stiffness, self.damping))

    def check(self) -> None:
        self.parameters()
        if not 0 < self.timestep <= 5e-3:
            raise ScenarioError(f"timestep = {self.timestep} s: give a step in (0, 5 ms]")
        if not 0.1 <= self.cycle_scale <= 10:
            raise ScenarioError(f"cycle_scale = {self.cycle_scale}: give a factor in [0.1, 10]")

"""Schema of the electro-mechanical linear actuator scenarios (Bahari et al.): efficiency maps,
the bilevel trajectory optimisation and RDSC tracking on the three-DOF crane. The actuators are
the Table I EMLAs of ``electromech/data/actuators.toml``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictInt, StrictStr

from ..errors import ParameterError, ScenarioError
from ..control.rdsc import RDSCGains
from ..optimization.leader import CRITERIA_OUTER, LeaderSettings
from ..simulation.emla_tracking import Disturbance
from .spec_base import Frequency, OutputsSpec, PlainName, Spec, Time, defaults_of


_DISTURBANCE = defaults_of(Disturbance)
_GAINS = defaults_of(RDSCGains)


class EMLASetup(Spec):
    name: PlainName
    description: StrictStr
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    def check(self) -> None:
        """Nothing beyond the schema."""


class EfficiencyMapsScenario(EMLASetup):
    """Efficiency η(f, v) of each actuator over its force and velocity ranges (Fig. 7)."""

    kind: Literal["emla-efficiency-maps"] = "emla-efficiency-maps"
    points: StrictInt = 121

    def check(self) -> None:
        if self.points < 11:
            raise ScenarioError(f"points = {self.points}: give at least 11 per axis")


class LeaderSpec(Spec):
    """The leader's search, :class:`~actuatorlab.optimization.leader.LeaderSettings`."""

    max_evaluations: StrictInt = 24
    workers: StrictInt = 2
    criterion: Literal[CRITERIA_OUTER] = "energy"
    cache_file: StrictStr = ""
    """JSON file of evaluated candidates: a rerun resumes from it ("" keeps none)."""

    def build(self) -> LeaderSettings:
        try:
            return LeaderSettings(max_evaluations=self.max_evaluations, workers=self.workers, criterion=self.criterion)
        except ParameterError as error:
            raise ScenarioError(f"leader: {error}") from None


class BilevelScenario(EMLASetup):
    """The leader–follower optimisation of the crane's motion (Algorithm 1) against the
    effort-only, power-only and equal-weight baselines."""

    kind: Literal["emla-bilevel"] = "emla-bilevel"
    leader: LeaderSpec = Field(default_factory=LeaderSpec)

    def check(self) -> None:
        self.leader.build()


class DisturbanceSpec(Spec):
    """Load disturbance as fractions of each actuator's max force,
    :class:`~actuatorlab.simulation.emla_tracking.Disturbance`."""

    bias: float = _DISTURBANCE["bias"]
    amplitude: float = _DISTURBANCE["amplitude"]
    frequency: Frequency = _DISTURBANCE["frequency"]
    friction: float = _DISTURBANCE["friction"]
    velocity_scale: float = _DISTURBANCE["velocity_scale"]
    spring: float = _DISTURBANCE["spring"]

    def build(self) -> Disturbance:
        try:
            return Disturbance(**self.model_dump())
        except ParameterError as error:
            raise ScenarioError(f"disturbance: {error}") from None


class GainsSpec(Spec):
    """RDSC gains (70)–(71), :class:`~actuatorlab.control.rdsc.RDSCGains`: a number or four values
    (subsystems ν = 1..4) each; defaults: the paper's k = 7, σ = 9, δ = 75 000, ε = 9."""

    k: float | list[float] = _GAINS["k"]
    sigma: float | list[float] = _GAINS["sigma"]
    delta: float | list[float] = _GAINS["delta"]
    epsilon: float | list[float] = _GAINS["epsilon"]

    def build(self) -> RDSCGains:
        values = {name: tuple(v) if isinstance(v, list) else v for name, v in self.model_dump().items()}
        try:
            return RDSCGains(**values)
        except ParameterError as error:
            raise ScenarioError(f"gains: {error}") from None


class TrackingScenario(BilevelScenario):
    """The optimal motion tracked by the three EMLAs under RDSC with time- and state-varying load
    disturbances (Figs. 20–23)."""

    kind: Literal["emla-tracking"] = "emla-tracking"
    disturbance: DisturbanceSpec = Field(default_factory=DisturbanceSpec)
    gains: GainsSpec = Field(default_factory=GainsSpec)
    step: Time = 1e-5
    samples: StrictInt = 2001

    def check(self) -> None:
        super().check()
        self.disturbance.build()
        self.gains.build()
        if not 0 < self.step <= 1e-4:
            raise ScenarioError(f"step = {self.step} s: give a step in (0, 0.1 ms]; the current loop needs it")

"""Schema of the integrated electro-hydraulic actuator scenarios (Alfayad et al.).

``actuator`` overrides fields of :class:`~actuatorlab.hydraulics.ieha.IEHAParams` by name, in SI
(``actuator = { bulk_modulus = 1.2e9 }``); every other value is Table 1 or the documented
default. ``actuatorlab show ieha-step`` lists none of the defaults (they live in the model);
see the docstring of ``IEHAParams`` for every field, its unit and its source.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, StrictFloat, StrictStr

from ..errors import ParameterError, ScenarioError
from ..hydraulics.ieha import IEHAParams
from .spec_base import AngularVelocity, Force, Frequency, Length, OutputsSpec, PlainName, Spec, Time


class IEHASetup(Spec):
    """Shared tables: name, description, actuator overrides, outputs."""

    name: PlainName
    description: StrictStr
    actuator: dict[str, StrictFloat] = Field(default_factory=dict)
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    def params(self) -> IEHAParams:
        try:
            return IEHAParams().replace(**self.actuator)
        except (ParameterError, TypeError) as error:
            raise ScenarioError(f"actuator: {error}") from None

    def check(self) -> None:
        self.params()


class IEHAScenario(IEHASetup):
    """The open-loop ``step`` of Figs. 5–9 (X = ``x_step`` from t = 0, no load) or the
    ``backdrive`` test (X = ``x_step`` until ``close_time``, then X = 0 and a sinusoidal force)."""

    kind: Literal["ieha"] = "ieha"
    experiment: Literal["step", "backdrive"] = "step"
    duration: Time = 1.0
    x_step: Length = 0.04e-2
    close_time: Time = 0.5
    force_amplitude: Force = 600.0
    force_frequency: Frequency = 1.0
    sample_time: Time = 1e-4

    def check(self) -> None:
        params = self.params()
        if abs(self.x_step) > params.max_eccentricity:
            raise ScenarioError(
                f"x_step = {self.x_step * 100:g} cm exceeds E_max = {params.max_eccentricity * 100:g} cm; "
                "give a smaller step"
            )
        if not 0 < self.sample_time < self.duration:
            raise ScenarioError("sample_time: must lie in (0, duration)")


class IEHAIdentifyScenario(IEHASetup):
    """Pulse, step and chirp inputs to the nonlinear model; G1 (and G2 from a force chirp) fitted
    by output error; linear and nonlinear responses overlaid."""

    kind: Literal["ieha-identify"] = "ieha-identify"
    duration: Time = 10.0
    sample_time: Time = 1e-3
    x_offset: Length = 0.01e-2
    x_amplitude: Length = 0.008e-2
    f0: Frequency = 0.1
    f1: Frequency = 10.0
    force_amplitude: Force = 200.0
    step_amplitude: Length = 0.02e-2
    pulse_width: Time = 0.05
    response_duration: Time = 0.3


class IEHAMPCScenario(IEHASetup):
    """Sine tracking under a sinusoidal load on the nonlinear plant: MPC (OSQP) beside PID."""

    kind: Literal["ieha-mpc"] = "ieha-mpc"
    duration: Time = 4.0
    amplitude: Length = 5e-3
    reference_frequency: AngularVelocity = math.pi
    force_amplitude: Force = 600.0
    force_frequency: Frequency = 1.0
    metrics_from: Time = 1.0
    identification_duration: Time = 10.0
    """Length of the chirp record the MPC's model is identified from (as ieha-identify)."""

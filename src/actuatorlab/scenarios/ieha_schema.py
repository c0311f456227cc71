"""Schema of the integrated electro-hydraulic actuator scenarios (Alfayad et al.).

``actuator`` overrides fields of :class:`~actuatorlab.hydraulics.ieha.IEHAParams` by name, each
a number in SI or a string with a unit (``actuator = { bulk_modulus = "1.2 GPa" }``); every other
value is the class's default (Table 1 or documented), and ``actuatorlab show`` lists them all.
See the docstring of ``IEHAParams`` for every field, its unit and its source.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, StrictInt, StrictStr

from ..errors import ScenarioError
from ..hydraulics.ieha import IEHAParams
from .spec_base import (
    AngularVelocity,
    Area,
    Damping,
    Density,
    Dimensionless,
    FlowGain,
    Force,
    Frequency,
    Length,
    Mass,
    OutputsSpec,
    PlainName,
    Pressure,
    Spec,
    Time,
    Volume,
    defaults_of,
    reported_at,
)

_IEHA = defaults_of(IEHAParams)


class IEHAActuatorSpec(Spec):
    """The fields of :class:`~actuatorlab.hydraulics.ieha.IEHAParams`, with units; defaults are
    the class's."""

    supply_pressure: Pressure = _IEHA["supply_pressure"]
    valve_radius: Length = _IEHA["valve_radius"]
    carriage_mass: Mass = _IEHA["carriage_mass"]
    carriage_area: Area = _IEHA["carriage_area"]
    max_eccentricity: Length = _IEHA["max_eccentricity"]
    carriage_volume: Volume = _IEHA["carriage_volume"]
    bulk_modulus: Pressure = _IEHA["bulk_modulus"]
    discharge_coefficient: Dimensionless = _IEHA["discharge_coefficient"]
    density: Density = _IEHA["density"]
    shaft_speed: AngularVelocity = _IEHA["shaft_speed"]
    pump_supply_pressure: Pressure = _IEHA["pump_supply_pressure"]
    n_pistons: StrictInt = _IEHA["n_pistons"]
    port_radius: Length = _IEHA["port_radius"]
    piston_area: Area = _IEHA["piston_area"]
    ring_radius: Length = _IEHA["ring_radius"]
    load_mass: Mass = _IEHA["load_mass"]
    chamber_volume_a: Volume = _IEHA["chamber_volume_a"]
    area_a: Area = _IEHA["area_a"]
    area_b: Area = _IEHA["area_b"]
    chamber_volume_b: Volume = _IEHA["chamber_volume_b"]
    piston_dead_volume: Volume = _IEHA["piston_dead_volume"]
    vent_radius: Length = _IEHA["vent_radius"]
    internal_leakage: FlowGain = _IEHA["internal_leakage"]
    external_leakage: FlowGain = _IEHA["external_leakage"]
    carriage_leakage: FlowGain = _IEHA["carriage_leakage"]
    piston_leakage: FlowGain = _IEHA["piston_leakage"]
    load_damping: Damping = _IEHA["load_damping"]
    laminar_pressure: Pressure = _IEHA["laminar_pressure"]
    port_smoothing: Dimensionless = _IEHA["port_smoothing"]
    eccentricity_smoothing: Length = _IEHA["eccentricity_smoothing"]
    check_valve_radius: Length = _IEHA["check_valve_radius"]

    def params(self, where: str = "actuator") -> IEHAParams:
        """The validated :class:`IEHAParams`; a bad value raises ScenarioError under ``where``."""
        with reported_at(where, own_prefix="ieha."):
            return IEHAParams(**{name: getattr(self, name) for name in _IEHA})


class IEHASetup(Spec):
    """Shared tables: name, description, actuator parameters, outputs."""

    name: PlainName
    description: StrictStr
    actuator: IEHAActuatorSpec = Field(default_factory=IEHAActuatorSpec)
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

    def params(self) -> IEHAParams:
        return self.actuator.params()

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

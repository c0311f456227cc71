"""The actuators a netlist drives in a MuJoCo model, as values: ``NetlistCylinder`` (pins or a
slide joint, chambers at two nodes) and ``NetlistMotor`` (a hinge through a gear, ports at two
nodes), each with the component it adds to the network. Stepped by
:class:`actuatorlab.multibody.netlist_machine.NetlistMujocoSystem`; this module loads no MuJoCo,
so that a scenario's schema can check them and take their defaults.

Signs: a cylinder's f = A_h p_h − A_r p_r > 0 pushes its pins apart, v > 0 extends; a motor's
ω > 0 turns its joint positively about the joint's axis, with oil flowing inlet → outlet.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..errors import ParameterError
from ..hydraulics.circuits import Cylinder, Motor
from ..hydraulics.circuits.actuators import CoupledCylinder, CoupledMotor
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..validation import check_quantities, finite, efficiency, non_negative, quantity


@dataclass(frozen=True)
class NetlistCylinder:
    """A cylinder of the model joined to the netlist: pins ``base_site`` and ``rod_site`` (or a
    slide ``joint``, ℓ = qpos + ``length_offset`` [m]), chambers at nodes ``head_node`` and
    ``rod_node``; ``head_area``, ``rod_area`` (annulus) [m²], ``stroke`` [m],
    ``retracted_length`` ℓ₀ [m] pin to pin, dead volumes [m³] (hoses included), piston
    ``leakage`` [m³/(s Pa)], ``initial_low_pressure`` [Pa] of the less loaded chamber in the
    pressure-dynamics model's holding state."""

    name: str
    head_node: str
    rod_node: str
    head_area: float = quantity(unit="m^2")
    rod_area: float = quantity(unit="m^2")
    stroke: float = quantity(unit="m")
    retracted_length: float = quantity(unit="m")
    base_site: str | None = None
    rod_site: str | None = None
    joint: str | None = None
    length_offset: float = quantity(0.0, "m", finite)
    head_dead_volume: float = quantity(0.5e-3, "m^3")
    rod_dead_volume: float = quantity(0.5e-3, "m^3")
    leakage: float = quantity(0.0, "m^3/(s Pa)", non_negative)
    initial_low_pressure: float = quantity(2.0e6, "Pa", non_negative)

    def __post_init__(self) -> None:
        check_quantities(self, f"cylinder {self.name!r}: ")
        self.component(0.0)  # the annulus below the head area, as the network's cylinder checks

    def component(self, admittance: float) -> Cylinder:
        """The network's component of this cylinder (``CoupledCylinder`` when ``admittance`` > 0)."""
        return _component(
            f"cylinder {self.name!r}", Cylinder, CoupledCylinder, admittance, _shared_fields(self, Cylinder)
        )


@dataclass(frozen=True)
class NetlistMotor:
    """A hydraulic motor of the netlist turning hinge ``joint`` of the model through a gear:
    ports at nodes ``inlet_node`` and ``outlet_node``; ``displacement`` D [m³/rev] of the motor
    and ``gear_ratio`` i (motor revolutions per revolution of the joint), so that at the joint it
    is a motor of displacement i D: it takes Q = i D ω/(2π η_v) inlet → outlet at the joint's
    speed ω [rad/s] (ω > 0 turns the joint positively about its axis) and gives the joint
    T = η_m i D (p_in − p_out)/2π [N m] (the gear's losses counted in η_m);
    ``volumetric_efficiency`` η_v, ``mechanical_efficiency`` η_m [-] in (0, 1]; the relaxation
    joining its shaft to the joint, ``stiffness`` K [N m/rad] and ``damping`` B [N m s/rad]
    (quasistatic model); ``initial_low_pressure`` [Pa] of the less loaded port at the start."""

    name: str
    joint: str
    inlet_node: str
    outlet_node: str
    displacement: float = quantity(unit="m^3/rev")
    gear_ratio: float = quantity(1.0, "-")
    volumetric_efficiency: float = quantity(1.0, "-", efficiency)
    mechanical_efficiency: float = quantity(1.0, "-", efficiency)
    stiffness: float = quantity(1.0e8, "N m/rad", non_negative)
    damping: float = quantity(2.0e6, "N m s/rad")
    initial_low_pressure: float = quantity(2.0e6, "Pa", non_negative)

    def __post_init__(self) -> None:
        check_quantities(self, f"motor {self.name!r}: ")

    @property
    def torque_gain(self) -> float:
        """η_m i D/2π [m³/rad]: the torque per pressure difference at the joint, T = gain·Δp."""
        return self.mechanical_efficiency * self.gear_ratio * self.displacement / (2.0 * math.pi)

    def relaxation(self) -> Relaxation:
        """The rotational relaxation (K [N m/rad], B [N m s/rad]) of its shaft."""
        try:
            return Relaxation(self.stiffness, self.damping)
        except ParameterError as error:
            raise ParameterError(f"motor {self.name!r}: {error} (rotational here: N m/rad, N m s/rad)") from None

    def component(self, admittance: float) -> Motor:
        """The network's component at the joint (``CoupledMotor`` when ``admittance`` > 0)."""
        fields = _shared_fields(self, Motor) | {"displacement": self.gear_ratio * self.displacement}
        return _component(f"motor {self.name!r}", Motor, CoupledMotor, admittance, fields)


def _shared_fields(actuator, component: type) -> dict:
    """The fields of the network's ``component`` class, each read from the ``actuator`` (which
    has one of the same name and meaning for each)."""
    return {f.name: getattr(actuator, f.name) for f in dataclasses.fields(component)}


def _component(what: str, plain: type, coupled: type, admittance: float, fields: dict):
    """``plain(**fields)``, or ``coupled(**fields, admittance=…)`` when ``admittance`` > 0; a
    refused value is named after ``what``."""
    try:
        return coupled(**fields, admittance=admittance) if admittance > 0.0 else plain(**fields)
    except ParameterError as error:
        raise ParameterError(f"{what}: {error}") from None

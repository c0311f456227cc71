"""Cylinders and hydraulic motors: where the network meets the mechanics.

The mechanics gives the rod velocity v [m/s] and position x [m] (a cylinder) or the shaft speed
ω [rad/s] (a motor) as inputs; the network returns the chamber pressures, from which the force
(``Cylinder.force``) or torque (``Motor.torque``) follows. Source: Merritt, *Hydraulic Control
Systems*, §5.2; Manring & Fales, 2nd ed., ch. 9 (motor efficiencies).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import ParameterError
from ...validation import efficiency, non_negative, quantity
from .branch import Branch, Law
from .component import Component, Volume


class Coupled:
    """What ``CoupledCylinder`` and ``CoupledMotor`` add to their component: the ``admittance``
    1/β ≥ 0 of the relaxation joining it to the mechanics (each class declares it with its unit),
    and, where it is > 0, the branches of ``coupling`` after the component's own."""

    def branches(self, nodes, inputs):
        """The component's branches, then those of ``coupling`` when ``admittance`` > 0."""
        rows = super().branches(nodes, inputs)
        return rows + self.coupling(nodes) if self.admittance > 0.0 else rows


@dataclass(frozen=True)
class Cylinder(Component):
    """Single-rod cylinder, ports ``head`` and ``rod``; inputs ``velocity`` v (> 0 extends) and
    ``position`` x ∈ [0, stroke] from full retraction.

    Flows: the head chamber takes A_h v from its node, the rod chamber gives A_r v to its node,
    the piston leaks G (p_h − p_r) head → rod. Volumes V_h = V_h0 + A_h x, V_r = V_r0 + A_r (s − x).
    Force f = A_h p_h − A_r p_r [N] (> 0 pushes the rod out).

    head_area A_h, rod_area A_r [m²] (annulus, < A_h); stroke s [m]; head_dead_volume,
    rod_dead_volume [m³] (hoses included); leakage G [m³/(s Pa)].
    """

    head_area: float = quantity(0.024, "m^2")
    rod_area: float = quantity(0.012, "m^2")
    stroke: float = quantity(0.8, "m")
    head_dead_volume: float = quantity(0.5e-3, "m^3")
    rod_dead_volume: float = quantity(0.5e-3, "m^3")
    leakage: float = quantity(0.0, "m^3/(s Pa)", non_negative)
    PORTS = ("head", "rod")
    INPUTS = ("velocity", "position")

    @property
    def SEPARATES(self) -> bool:  # noqa: N802 (the class attribute's name)
        """The chambers are joined only by the piston's leakage, if any."""
        return self.leakage == 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.rod_area >= self.head_area:
            raise ParameterError(
                f"rod_area = {self.rod_area:g} m^2 >= head_area = {self.head_area:g} m^2: the annulus "
                "area is the piston area less the rod's; give rod_area < head_area"
            )

    def branches(self, nodes, inputs):
        h, r, v = nodes["head"], nodes["rod"], inputs["velocity"]
        rows = [
            Branch(h, -1, self.head_area, gain_input=v, law=Law.SOURCE),
            Branch(-1, r, self.rod_area, gain_input=v, law=Law.SOURCE),
        ]
        if self.leakage > 0.0:
            rows.append(Branch(h, r, self.leakage, law=Law.LAMINAR))
        return rows

    def volumes(self, nodes, inputs):
        x = inputs["position"]
        return [
            Volume(nodes["head"], self.head_dead_volume, self.head_area, x),
            Volume(nodes["rod"], self.rod_dead_volume + self.rod_area * self.stroke, -self.rod_area, x),
        ]

    def force(self, head_pressure, rod_pressure):
        """f = A_h p_h − A_r p_r [N]."""
        return self.head_area * head_pressure - self.rod_area * rod_pressure


@dataclass(frozen=True)
class CoupledCylinder(Coupled, Cylinder):
    """A ``Cylinder`` whose rod is joined to the mechanics through the relaxation of Kikuuwe et
    al. (68a): the rod carries f = f̄ + β v to the mechanics (β = B + hK [N s/m], f̄ [N] from the
    last step's stretch and the pins' motion, algorithm (72)), and the chambers give the force
    f = A_h p_h − A_r p_r, so the rod's velocity is

        v = v̄ + (A_h p_h − A_r p_r)/β,  v̄ = −f̄/β,

    ``admittance`` 1/β [m/(s N)], the input ``velocity`` the free velocity v̄ [m/s]. The chamber
    flows A_h v and A_r v are then linear in p_h and p_r: the network's quasistatic solve finds
    the pressures and the rod's velocity together, as Λ(β, f̄) does for the papers' circuit
    (``actuatorlab.hydraulics.quasistatic.kernels.relaxed_step_scalar``). Their
    Jacobian block [A_h², −A_h A_r; −A_h A_r, A_r²]/β is symmetric and positive semidefinite:
    the co-content ½ (A_h p_h − A_r p_r)²/β keeps the network's balance a convex gradient. A
    cylinder of a machine, built by :mod:`actuatorlab.multibody.netlist_machine`; not a netlist
    type of its own."""

    admittance: float = quantity(0.0, "m/(s N)", non_negative)

    def coupling(self, nodes) -> list[Branch]:
        """The chamber flows A_h v̂ and A_r v̂ of the rod velocity's pressure term."""
        h, r = nodes["head"], nodes["rod"]
        pilots = dict(pilot1=h, coef1=self.head_area, pilot2=r, coef2=-self.rod_area, law=Law.AFFINE)
        return [
            Branch(h, -1, self.head_area * self.admittance, **pilots),
            Branch(-1, r, self.rod_area * self.admittance, **pilots),
        ]


@dataclass(frozen=True)
class Motor(Component):
    """Hydraulic motor, ports ``inlet`` and ``outlet``; input ``speed`` ω [rad/s].

    It takes Q = D ω / (2π η_v) [m³/s] inlet → outlet (so it turns at n = Q η_v / D rev/s) and
    gives the torque T = η_m D (p_in − p_out) / 2π [N m]; the efficiencies are those of the
    motoring quadrant. displacement D [m³/rev]; volumetric_efficiency η_v, mechanical_efficiency
    η_m [-] in (0, 1].
    """

    displacement: float = quantity(100e-6, "m^3/rev")
    volumetric_efficiency: float = quantity(1.0, "-", efficiency)
    mechanical_efficiency: float = quantity(1.0, "-", efficiency)
    PORTS = ("inlet", "outlet")
    SEPARATES = True
    INPUTS = ("speed",)

    def branches(self, nodes, inputs):
        gain = self.displacement / (2.0 * math.pi * self.volumetric_efficiency)
        return [Branch(nodes["inlet"], nodes["outlet"], gain, gain_input=inputs["speed"], law=Law.SOURCE)]

    def torque(self, inlet_pressure, outlet_pressure):
        """T = η_m D (p_in − p_out) / 2π [N m]."""
        return self.mechanical_efficiency * self.displacement * (inlet_pressure - outlet_pressure) / (2.0 * math.pi)


@dataclass(frozen=True)
class CoupledMotor(Coupled, Motor):
    """A ``Motor`` whose shaft is joined to the mechanics through a rotational relaxation, as
    ``CoupledCylinder``'s rod is: the shaft carries T = T̄ + β ω (β = B + hK [N m s/rad], T̄
    [N m] from the last step's twist and the joint's motion, algorithm (72) of Kikuuwe et al.
    read for rotation) and the ports give T = η_m D Δp / 2π, so the shaft turns at

        ω = ω̄ + η_m D (p_in − p_out) / (2π β),  ω̄ = −T̄/β,

    ``admittance`` 1/β [rad/(s N m)], the input ``speed`` the free speed ω̄ [rad/s]. Its flow
    Q = D ω / (2π η_v) is then the source D ω̄ /(2π η_v) plus a laminar branch inlet → outlet of
    conductance (D/2π)² η_m / (η_v β) [m³/(s Pa)]: symmetric and positive, so the network's
    balance stays a convex gradient. A motor of a machine, built by
    :mod:`actuatorlab.multibody.netlist_machine`; not a netlist type of its own."""

    admittance: float = quantity(0.0, "rad/(s N m)", non_negative)

    def coupling(self, nodes) -> list[Branch]:
        """The laminar branch inlet → outlet of the shaft speed's pressure term."""
        per_radian = self.displacement / (2.0 * math.pi)
        conductance = per_radian**2 * self.mechanical_efficiency * self.admittance / self.volumetric_efficiency
        return [Branch(nodes["inlet"], nodes["outlet"], conductance, law=Law.LAMINAR)]

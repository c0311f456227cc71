"""Valve-controlled differential cylinder of Petrović & Mattila Sec. 3.4 (eqs. 78–89).

Signs: the stroke x ∈ (0, s) [m] grows as the rod extends; ẋ > 0 extends; the piston force
f_p = A_a p_a − A_b p_b (79) [N] > 0 pushes the rod out; f_p = f_c + f_f (78) with friction
f_f(ẋ). A valve input u > 0 connects chamber A to supply p_s and B to return p_r (82)–(84).

Chambers (80)–(81), generalised with dead volumes V_a0, V_b0 [m³] and internal leakage
Q_l = c_l (p_a − p_b) from A to B (as the paper's ref. [32] models them); with V_a0 = V_b0 = c_l = 0 they are
the paper's equations:

.. math::
    ṗ_a = \\frac{β}{V_{a0} + A_a x}(Q_a − A_a ẋ − Q_l),\\qquad
    ṗ_b = \\frac{β}{V_{b0} + A_b (s − x)}(Q_b + A_b ẋ + Q_l)

Valve (82)–(85): Q_a = c_p1 v(p_s − p_a) u S(u) + c_n1 v(p_a − p_r) u S(−u),
Q_b = −c_n2 v(p_b − p_r) u S(u) − c_p2 v(p_s − p_b) u S(−u), v(Δp) = sign(Δp)√|Δp|; here v is
made linear inside a small band |Δp| < p_lin (default 0.1 bar) so its derivative stays
bounded when a chamber reaches p_s or p_r; outside the band it is exactly (85).

With k_a = A_a/V_a and k_b = A_b/V_b the force rate is ḟ_p = β[u_f − (k_a A_a + k_b A_b) ẋ −
(k_a + k_b) Q_l] with the voltage-related term u_f = k_a Q_a − k_b Q_b (86)–(88) (the paper's
Q_a/x − Q_b/(s − x) when V_a0 = V_b0 = 0). The valve inverse (89) gives u from u_f; it is exact
while p_s > p_a, p_b > p_r (Assumption 5) and the input is not saturated.

"Pressures kept physical": a chamber pressure does not fall below ``p_min`` (cavitation floor):
its rate is clipped to ≥ 0 there. No relief valve is modelled: a meter-out chamber braking a
load may exceed p_s (as in the uncapped paper model); the valve inverse stays finite there.

A manipulator's actuators together: ``CraneHydraulics`` (one cylinder, valve and friction per
actuator, their packed arrays, the pressures that hold given forces at rest) and the compiled
``hydraulic_rates`` of the state [p_a, p_b, u_spool] of all of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..numerics.layout import Layout
from ..validation import check_quantities, non_negative, positive, quantity
from .fluid import CRANE_BULK_MODULUS
from .pressure_dynamics import holding_pressures


@dataclass(frozen=True)
class Cylinder:
    """head_area A_a, rod_area A_b [m²], stroke s [m], bulk_modulus β [Pa], dead volumes
    V_a0, V_b0 [m³] (0: the paper's model), leakage c_l [m³/(s Pa)], p_min floor [Pa]."""

    head_area: float = quantity(unit="m^2")
    rod_area: float = quantity(unit="m^2")
    stroke: float = quantity(unit="m")
    bulk_modulus: float = quantity(CRANE_BULK_MODULUS, "Pa")
    dead_volume_a: float = quantity(0.0, "m^3", non_negative)
    dead_volume_b: float = quantity(0.0, "m^3", non_negative)
    leakage: float = quantity(0.0, "m^3/(s Pa)", non_negative)
    p_min: float = quantity(0.0, "Pa", non_negative)
    name: str = "cylinder"
    LAYOUT: ClassVar[Layout] = Layout(
        "C_",
        "aa:head_area",
        "ab:rod_area",
        "s:stroke",
        "bulk_modulus:bulk_modulus",
        "va0:dead_volume_a",
        "vb0:dead_volume_b",
        "leak:leakage",
        "pmin:p_min",
    )
    """The packed cylinder: areas, stroke, bulk modulus, dead volumes, leakage, pressure floor."""

    def __post_init__(self) -> None:
        check_quantities(self, f"{self.name}.")
        if self.rod_area >= self.head_area:
            raise ParameterError(
                f"{self.name}.rod_area = {self.rod_area:g} m^2 must be smaller than head_area = {self.head_area:g} m^2 "
                "(the annulus is the head area minus the rod's cross-section)"
            )

    @classmethod
    def from_diameters(cls, bore: float, rod: float, stroke: float, **kwargs) -> Cylinder:
        """Areas from bore and rod diameters [m]: A_a = π D_a²/4, A_b = π (D_a² − D_b²)/4."""
        bore, rod = positive("bore", bore, "m"), positive("rod", rod, "m")
        return cls(math.pi * bore**2 / 4, math.pi * (bore**2 - rod**2) / 4, stroke, **kwargs)

    def packed(self) -> np.ndarray:
        """The cylinder's parameters as the vector the compiled rates read (``LAYOUT``)."""
        return self.LAYOUT.pack_of(self)


(C_AA, C_AB, C_S, C_BULK_MODULUS, C_VA0, C_VB0, C_LEAK, C_PMIN) = Cylinder.LAYOUT.indices
N_CYL = len(Cylinder.LAYOUT)


EDGE = "m^3/(s sqrt(Pa))"
"""Unit of a servo valve's edge coefficient: flow per unit input per square root of pressure drop."""


@dataclass(frozen=True)
class ServoValve:
    """Edge coefficients c_p1 (P→A), c_n1 (A→T), c_p2 (P→B), c_n2 (B→T) [m³/(s √Pa) per unit
    input], supply p_s and return p_r [Pa], input limit u_max (units of u, e.g. V), first-order
    spool time constant tau [s] (0: static valve as in the paper), laminar band p_lin [Pa]."""

    c_p1: float = quantity(unit=EDGE)
    c_n1: float = quantity(unit=EDGE)
    c_p2: float = quantity(unit=EDGE)
    c_n2: float = quantity(unit=EDGE)
    supply_pressure: float = quantity(unit="Pa")
    return_pressure: float = quantity(unit="Pa", check=non_negative)
    u_max: float = quantity(10.0, "(input units)")
    tau: float = quantity(0.0, "s", non_negative)
    p_lin: float = quantity(1e4, "Pa")
    name: str = "valve"
    LAYOUT: ClassVar[Layout] = Layout(
        "V_",
        "cp1:c_p1",
        "cn1:c_n1",
        "cp2:c_p2",
        "cn2:c_n2",
        "ps:supply_pressure",
        "pr:return_pressure",
        "umax:u_max",
        "tau:tau",
        "plin:p_lin",
    )
    """The packed valve: edge coefficients, supply and return pressures, saturation, spool time
    constant, laminar band."""

    def __post_init__(self) -> None:
        check_quantities(self, f"{self.name}.")
        s, r = self.supply_pressure, self.return_pressure
        if s <= r:
            raise ParameterError(
                f"{self.name}: supply_pressure = {s:g} Pa must exceed return_pressure = {r:g} Pa (Assumption 5)"
            )

    @classmethod
    def symmetric(cls, rated_flow: float, rated_drop: float, u_rated: float, **kwargs) -> ServoValve:
        """All edges equal: ``rated_flow`` [m³/s] through one edge at ``rated_drop`` [Pa] across
        it (the datasheet's "per notch" rating) and input ``u_rated``: c = Q_N/(u_N √Δp_N)."""
        c = positive("rated_flow", rated_flow, "m^3/s") / (
            positive("u_rated", u_rated, "(input units)") * math.sqrt(positive("rated_drop", rated_drop, "Pa"))
        )
        return cls(c, c, c, c, **kwargs)

    def packed(self) -> np.ndarray:
        """The valve's parameters as the vector the compiled rates read (``LAYOUT``)."""
        return self.LAYOUT.pack_of(self)


(V_CP1, V_CN1, V_CP2, V_CN2, V_PS, V_PR, V_UMAX, V_TAU, V_PLIN) = ServoValve.LAYOUT.indices
N_VALVE = len(ServoValve.LAYOUT)


@dataclass(frozen=True)
class Friction:
    """Piston friction f_f(ẋ) = b ẋ + F_C tanh(ẋ/v_c) [N]: viscous b [N s/m], Coulomb F_C [N],
    smoothing velocity v_c [m/s]. The Zhu–Piedboeuf (2005) model without its Stribeck term
    (the authors' set has F_S = 0): increasing, continuous and odd, as the proof needs (C.13)."""

    viscous: float = quantity(0.0, "N s/m", non_negative)
    coulomb: float = quantity(0.0, "N", non_negative)
    smoothing_velocity: float = quantity(5e-3, "m/s")
    name: str = "friction"
    LAYOUT: ClassVar[Layout] = Layout("F_", "b:viscous", "c:coulomb", "v:smoothing_velocity")

    def __post_init__(self) -> None:
        check_quantities(self, f"{self.name}.")

    def packed(self) -> np.ndarray:
        """[viscous [N s/m], Coulomb [N], smoothing velocity [m/s]] (``LAYOUT``), as the compiled
        friction reads them."""
        return self.LAYOUT.pack_of(self)

    def __call__(self, velocity):
        """f_f [N] at piston velocity [m/s] (array or scalar)."""
        return self.viscous * np.asarray(velocity) + self.coulomb * np.tanh(
            np.asarray(velocity) / self.smoothing_velocity
        )


(F_B, F_C, F_V) = Friction.LAYOUT.indices
N_FRICTION = len(Friction.LAYOUT)


@dataclass(frozen=True)
class CraneHydraulics:
    """One cylinder, servo valve and friction model per actuator of a manipulator, in its
    coordinate order (the same number of each, at least one)."""

    cylinders: tuple[Cylinder, ...]
    valves: tuple[ServoValve, ...]
    frictions: tuple[Friction, ...]

    def __post_init__(self) -> None:
        for field, kind in (("cylinders", Cylinder), ("valves", ServoValve), ("frictions", Friction)):
            items = tuple(getattr(self, field))
            for i, item in enumerate(items):
                if not isinstance(item, kind):
                    raise ParameterError(f"CraneHydraulics.{field}[{i}] = {item!r}: give a {kind.__name__}")
            object.__setattr__(self, field, items)
        n = len(self.cylinders)
        if n == 0 or len(self.valves) != n or len(self.frictions) != n:
            raise ParameterError(
                f"CraneHydraulics: {len(self.cylinders)} cylinders, {len(self.valves)} valves, "
                f"{len(self.frictions)} frictions; give one of each per actuator"
            )

    def packed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(cyl (m, N_CYL), valve (m, N_VALVE), fric (m, N_FRICTION)) for the kernels."""
        return (
            np.array([c.packed() for c in self.cylinders]),
            np.array([v.packed() for v in self.valves]),
            np.array([f.packed() for f in self.frictions]),
        )

    def holding_pressures(self, forces, low_pressure: float = 30e5) -> tuple[np.ndarray, np.ndarray]:
        """Chamber pressures (p_a, p_b) [Pa] whose piston forces (79) equal ``forces`` [N] (one
        per actuator, > 0 pushes out), the less loaded chamber at ``low_pressure`` [Pa]
        (``pressure_dynamics.holding_pressures``); raises if they fall outside (p_r, p_s)."""
        low_pressure = positive("low_pressure", low_pressure, "Pa")
        forces = np.asarray(forces, dtype=float)
        if forces.shape != (len(self.cylinders),):
            raise ParameterError(f"forces have shape {forces.shape}; give one per actuator ({len(self.cylinders)})")
        pa, pb = np.empty_like(forces), np.empty_like(forces)
        for i, (c, v) in enumerate(zip(self.cylinders, self.valves)):
            pa[i], pb[i] = holding_pressures(c, forces[i], low_pressure)
            if not (v.return_pressure < min(pa[i], pb[i]) and max(pa[i], pb[i]) < v.supply_pressure):
                raise ParameterError(
                    f"{c.name}: holding force {forces[i]:.0f} N needs pressures ({pa[i]:.3g}, {pb[i]:.3g}) Pa outside "
                    f"(p_r, p_s) = ({v.return_pressure:g}, {v.supply_pressure:g}) Pa; raise the supply pressure"
                )
        return pa, pb


# ---------------------------------------------------------------------------------------------
# compiled kernels (scalars; ``cyl``, ``valve``, ``fric`` are the packed arrays)
# ---------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def friction_force(fric, xd):
    """f_f(ẋ) [N] of ``Friction``."""
    return fric[F_B] * xd + fric[F_C] * math.tanh(xd / fric[F_V])


@nb.njit(cache=True)
def piston_force(cyl, pa, pb):
    """f_p = A_a p_a − A_b p_b [N] (79)."""
    return cyl[C_AA] * pa - cyl[C_AB] * pb


@nb.njit(cache=True)
def signed_root(dp, p_lin):
    """v(Δp) = sign(Δp) √|Δp| (85), linear (Δp/√p_lin) for |Δp| < p_lin [Pa]."""
    if dp >= p_lin:
        return math.sqrt(dp)
    if dp <= -p_lin:
        return -math.sqrt(-dp)
    return dp / math.sqrt(p_lin)


@nb.njit(cache=True)
def valve_flows(valve, u, pa, pb):
    """(Q_a, Q_b) [m³/s] into the chambers (82)–(84) at input u (unsaturated here)."""
    ps, pr, lin = valve[V_PS], valve[V_PR], valve[V_PLIN]
    if u > 0.0:
        return valve[V_CP1] * signed_root(ps - pa, lin) * u, -valve[V_CN2] * signed_root(pb - pr, lin) * u
    return valve[V_CN1] * signed_root(pa - pr, lin) * u, -valve[V_CP2] * signed_root(ps - pb, lin) * u


@nb.njit(cache=True)
def stiffness_terms(cyl, x):
    """(k_a, k_b) = (A_a/V_a, A_b/V_b) [1/m] at stroke x [m]; (1/x, 1/(s − x)) without dead volume."""
    va = cyl[C_VA0] + cyl[C_AA] * x
    vb = cyl[C_VB0] + cyl[C_AB] * (cyl[C_S] - x)
    return cyl[C_AA] / va, cyl[C_AB] / vb


@nb.njit(cache=True)
def chamber_rates(cyl, qa, qb, x, xd, pa, pb):
    """(ṗ_a, ṗ_b) [Pa/s] of (80)–(81) with dead volumes and leakage; a rate that would take a
    pressure below p_min there is clipped to 0."""
    ka, kb = stiffness_terms(cyl, x)
    bulk_modulus = cyl[C_BULK_MODULUS]
    leak = cyl[C_LEAK] * (pa - pb)
    dpa = bulk_modulus * ka / cyl[C_AA] * (qa - cyl[C_AA] * xd - leak)
    dpb = bulk_modulus * kb / cyl[C_AB] * (qb + cyl[C_AB] * xd + leak)
    if pa <= cyl[C_PMIN] and dpa < 0.0:
        dpa = 0.0
    if pb <= cyl[C_PMIN] and dpb < 0.0:
        dpb = 0.0
    return dpa, dpb


@nb.njit(cache=True)
def voltage_term(cyl, qa, qb, x):
    """u_f = k_a Q_a − k_b Q_b [m²/s] (86)."""
    ka, kb = stiffness_terms(cyl, x)
    return ka * qa - kb * qb


@nb.njit(cache=True)
def motion_term(cyl, x, xd, pa, pb):
    """(k_a A_a + k_b A_b) ẋ + (k_a + k_b) Q_l [m²/s]: what u_f must supply at ḟ_p = 0 (88)."""
    ka, kb = stiffness_terms(cyl, x)
    return (ka * cyl[C_AA] + kb * cyl[C_AB]) * xd + (ka + kb) * cyl[C_LEAK] * (pa - pb)


@nb.njit(cache=True)
def valve_inverse(cyl, valve, uf, x, pa, pb):
    """Input u giving the voltage-related term u_f [m²/s] at stroke x and pressures (89);
    sign(u) = sign(u_f) under Assumption 5. Not saturated here."""
    ka, kb = stiffness_terms(cyl, x)
    ps, pr, lin = valve[V_PS], valve[V_PR], valve[V_PLIN]
    # a pressure drop below the laminar band (Assumption 5 violated) is taken at the band edge so
    # the gain stays positive and finite; the inverse is then approximate
    if uf > 0.0:
        return uf / (
            ka * valve[V_CP1] * signed_root(max(ps - pa, lin), lin)
            + kb * valve[V_CN2] * signed_root(max(pb - pr, lin), lin)
        )
    return uf / (
        ka * valve[V_CN1] * signed_root(max(pa - pr, lin), lin)
        + kb * valve[V_CP2] * signed_root(max(ps - pb, lin), lin)
    )


@nb.njit(cache=True)
def saturate(valve, u):
    """u clipped to [−u_max, u_max]."""
    return min(valve[V_UMAX], max(-valve[V_UMAX], u))


@nb.njit(cache=True)
def spool_rate(valve, u_cmd, u_spool):
    """First-order spool: du/dt = (sat(u_cmd) − u)/τ [1/s]; 0 for a static valve (τ = 0)."""
    if valve[V_TAU] <= 0.0:
        return 0.0
    return (saturate(valve, u_cmd) - u_spool) / valve[V_TAU]


@nb.njit(cache=True)
def hydraulic_rates(cyl, valve, u_cmd, x, xd, z, dz):
    """ż [Pa/s, 1/s] of the hydraulic state z = [p_a, p_b, u_spool] (3 m) of m actuators at
    piston strokes x and rates ẋ (m,) and held valve commands u_cmd: (80)–(85) and the spool.
    ``cyl``, ``valve`` are the (m, ·) arrays of ``CraneHydraulics.packed``."""
    m = u_cmd.size
    for i in range(m):
        pa, pb = z[i], z[m + i]
        u = z[2 * m + i] if valve[i, V_TAU] > 0.0 else saturate(valve[i], u_cmd[i])
        qa, qb = valve_flows(valve[i], u, pa, pb)
        dpa, dpb = chamber_rates(cyl[i], qa, qb, x[i], xd[i], pa, pb)
        dz[i] = dpa
        dz[m + i] = dpb
        dz[2 * m + i] = spool_rate(valve[i], u_cmd[i], z[2 * m + i])


def check_pressures(valve: ServoValve, pa, pb) -> None:
    """Raise unless p_s ≥ p_a, p_b ≥ p_r (Assumption 5), where (89) is the exact inverse."""
    for name, p in (("p_a", pa), ("p_b", pb)):
        p = np.asarray(p, dtype=float)
        if np.any(p > valve.supply_pressure) or np.any(p < valve.return_pressure):
            raise ParameterError(
                f"{name} = {p!r} Pa is outside [p_r, p_s] = [{valve.return_pressure:g}, {valve.supply_pressure:g}] Pa; "
                "the valve inverse (89) needs Assumption 5"
            )

"""Parameters of the four-valve independent-metering circuit and the valve openings.

Kikuuwe et al., "Nonsmooth quasistatic modeling of hydraulic actuators", Sec. 3.1, Fig. 1:
a fixed-flow pump (flow Q) with a check valve, a bleed valve and a relief valve (cracking
pressure P_M); four main valves ph (pump→head), tr (rod→tank), pr (pump→rod), th (head→tank);
per chamber a relief valve (P_hM, P_rM) and a suction check valve; optionally (Sec. 5, Fig. 7) a
regeneration valve a (rod→head). Tank pressure is 0 and all pressures are gauge. Orifices
follow Q = c·u·R(ΔP) with c = C·a·√(2/ρ) (39h–l).

Valve order everywhere is the paper's u = [u_ph, u_tr, u_pr, u_th, u_b] (38).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...errors import ParameterError
from ...numerics.layout import Layout
from ...validation import check_fields, non_negative, positive, unit_interval
from ..fluid import OIL_DENSITY

VALVES = ("ph", "tr", "pr", "th", "b")
"""Valve names in the paper's order: pump→head, rod→tank, pump→rod, head→tank, bleed."""

NORMALISED_OPENINGS = Layout("J_", *VALVES)
"""Layout of the normalised opening vector û = [û_ph, û_tr, û_pr, û_th, U_b] (40)–(43)."""
(J_PH, J_TR, J_PR, J_TH, J_B) = NORMALISED_OPENINGS.indices


def _per_valve(name: str, value, unit: str) -> tuple[float, ...]:
    """One common value or a mapping valve → value, returned in VALVES order."""
    if isinstance(value, Mapping):
        unknown = set(value) - set(VALVES)
        missing = set(VALVES) - set(value)
        if unknown or missing:
            raise ParameterError(
                f"{name}: give one number or one per valve with keys {', '.join(VALVES)}"
                + (f"; unknown {sorted(unknown)}" if unknown else "")
                + (f"; missing {sorted(missing)}" if missing else "")
            )
        return tuple(positive(f"{name}.{v}", value[v], unit) for v in VALVES)
    common = positive(name, value, unit)
    return (common,) * len(VALVES)


@dataclass(frozen=True)
class ValveCircuit:
    """A cylinder on a four-valve independent-metering circuit (all SI units).

    Parameters
    ----------
    discharge_coefficient : float or mapping
        C_* [-], one value for every valve or ``{"ph": .., "tr": .., "pr": .., "th": .., "b": ..}``.
    max_area : float or mapping
        a_* [m²], maximum opening area, common or per valve as above.
    oil_density : float
        ρ [kg/m³].
    head_area, rod_area : float
        A_h, A_r [m²], piston area on the head side and annulus area on the rod side.
    head_relief_pressure, rod_relief_pressure : float
        P_hM, P_rM [Pa], cracking pressures of the chamber relief valves.
    pump_relief_pressure : float
        P_M [Pa], cracking pressure of the pump relief valve.
    pump_flow : float
        Q [m³/s], the fixed pump delivery.
    regeneration_discharge_coefficient, regeneration_max_area : float
        C_a [-] and a_a [m²] of the regeneration valve rod→head (Sec. 5); it only acts when
        opened (u_a > 0), so the defaults are those of the paper's example.

    Derived (read-only): ``coefficients`` c_* = C_*·a_*·√(2/ρ) [m^{7/2} kg^{-1/2}] in VALVES
    order, ``head_relief_force`` F_hM = A_h·P_hM [N], ``rod_relief_force`` F_rM = A_r·P_rM [N],
    ``regeneration_coefficient`` c_a = C_a·a_a·√(2/ρ).
    """

    discharge_coefficient: float | Mapping[str, float] = 0.6
    max_area: float | Mapping[str, float] = 1.0e-4
    oil_density: float = OIL_DENSITY
    head_area: float = 0.024
    rod_area: float = 0.012
    head_relief_pressure: float = 42.0e6
    rod_relief_pressure: float = 40.0e6
    pump_relief_pressure: float = 36.0e6
    pump_flow: float = 500.0 / 60000.0
    regeneration_discharge_coefficient: float = 0.6
    regeneration_max_area: float = 1.0e-4
    coefficients: tuple[float, ...] = field(init=False, repr=False)
    head_relief_force: float = field(init=False, repr=False)
    rod_relief_force: float = field(init=False, repr=False)
    regeneration_coefficient: float = field(init=False, repr=False)
    LAYOUT: ClassVar[Layout] = Layout(
        "I_",
        "ah:head_area",
        "ar:rod_area",
        "fhm:head_relief_force",
        "frm:rod_relief_force",
        "pm:pump_relief_pressure",
        "q:pump_flow",
        *(f"c{v}" for v in VALVES),
        "ca:regeneration_coefficient",
    )
    """The compiled kernels' parameter vector: areas A_h, A_r [m²], relief forces F_hM, F_rM [N],
    P_M [Pa], Q [m³/s], coefficients c_ph … c_b, c_a [m^{7/2} kg^{-1/2}]."""

    def __post_init__(self) -> None:
        discharge = _per_valve("discharge_coefficient", self.discharge_coefficient, "")
        areas = _per_valve("max_area", self.max_area, "m^2")
        density = positive("oil_density", self.oil_density, "kg/m^3")
        check_fields(
            self,
            positive,
            (
                ("head_area", "m^2"),
                ("rod_area", "m^2"),
                ("head_relief_pressure", "Pa"),
                ("rod_relief_pressure", "Pa"),
                ("pump_relief_pressure", "Pa"),
                ("regeneration_discharge_coefficient", ""),
                ("regeneration_max_area", "m^2"),
            ),
        )
        if self.rod_area >= self.head_area:
            raise ParameterError(
                f"rod_area = {self.rod_area:g} m^2 >= head_area = {self.head_area:g} m^2: the rod-side (annulus) "
                "area of a single-rod cylinder is the piston area less the rod's; give rod_area < head_area"
            )

        object.__setattr__(self, "pump_flow", non_negative("pump_flow", self.pump_flow, "m^3/s"))
        object.__setattr__(self, "oil_density", density)
        root = math.sqrt(2.0 / density)
        object.__setattr__(self, "coefficients", tuple(c * a * root for c, a in zip(discharge, areas)))
        object.__setattr__(self, "head_relief_force", self.head_area * self.head_relief_pressure)
        object.__setattr__(self, "rod_relief_force", self.rod_area * self.rod_relief_pressure)
        object.__setattr__(
            self,
            "regeneration_coefficient",
            self.regeneration_discharge_coefficient * self.regeneration_max_area * root,
        )

    @classmethod
    def paper_example(cls) -> "ValveCircuit":
        """The circuit of Kikuuwe et al. (66): C = 0.6, a = 1e-4 m², ρ = 850 kg/m³,
        A_r = 0.012 m², A_h = 0.024 m², P_rM = 40 MPa, P_hM = 42 MPa, P_M = 36 MPa, Q = 500 L/min;
        regeneration valve of Sec. 5: C_a = 0.6, a_a = 1e-4 m²."""
        return cls()

    def kernel_array(self) -> np.ndarray:
        """The float64 parameter vector of the compiled kernels (``LAYOUT``)."""
        return self.LAYOUT.pack_of(self, **dict(zip((f"c{v}" for v in VALVES), self.coefficients)))


(I_AH, I_AR, I_FHM, I_FRM, I_PM, I_Q, I_CPH, I_CTR, I_CPR, I_CTH, I_CB, I_CA) = ValveCircuit.LAYOUT.indices
N_CIRCUIT = len(ValveCircuit.LAYOUT)


@dataclass(frozen=True)
class Openings:
    """Valve openings u_* ∈ [0, 1] (scalars or arrays that broadcast together).

    The quasistatic model holds in one mode at a time (38): extend (u_ph or u_tr open, u_pr and
    u_th closed), retract (u_pr or u_th open, u_ph and u_tr closed) or hold (all four closed).
    Openings that mix the two pairs are rejected.
    """

    u_ph: float | np.ndarray = 0.0
    u_tr: float | np.ndarray = 0.0
    u_pr: float | np.ndarray = 0.0
    u_th: float | np.ndarray = 0.0
    u_b: float | np.ndarray = 0.0

    def __post_init__(self) -> None:
        for name in ("u_ph", "u_tr", "u_pr", "u_th", "u_b"):
            object.__setattr__(self, name, unit_interval(name, getattr(self, name)))
        mixed = ((self.u_ph > 0) | (self.u_tr > 0)) & ((self.u_pr > 0) | (self.u_th > 0))
        if np.any(mixed):
            raise ParameterError(
                "openings mix the extend valves (u_ph, u_tr) with the retract valves (u_pr, u_th); "
                "the quasistatic model covers one mode at a time: close one pair"
            )

    @classmethod
    def from_command(cls, u_c, u_b) -> "Openings":
        """Openings from a command u_c ∈ [−1, 1] and bleed u_b ∈ [0, 1], eq. (67):
        u_ph = u_tr = max(u_c, 0), u_pr = u_th = max(−u_c, 0)."""
        u_c = np.asarray(u_c, dtype=np.float64)
        if np.any(~((u_c >= -1.0) & (u_c <= 1.0))):
            raise ParameterError(f"u_c = {u_c!r}: the valve command must lie in [-1, 1]")
        extend = np.maximum(u_c, 0.0)
        retract = np.maximum(-u_c, 0.0)
        return cls(extend, extend, retract, retract, u_b)

    def as_array(self) -> np.ndarray:
        """Openings broadcast to one array of shape ``(..., 5)`` in VALVES order."""
        parts = np.broadcast_arrays(self.u_ph, self.u_tr, self.u_pr, self.u_th, self.u_b)
        return np.stack(parts, axis=-1)


def normalised_openings(circuit: ValveCircuit, openings: Openings) -> np.ndarray:
    """û = [û_ph, û_tr, û_pr, û_th, U_b] of (40)–(43), shape ``(..., 5)``.

    û_ph = c_ph u_ph / A_h^{3/2}, û_th = c_th u_th / A_h^{3/2}, û_tr = c_tr u_tr / A_r^{3/2},
    û_pr = c_pr u_pr / A_r^{3/2} [m^{1/2} kg^{-1/2}]; U_b = c_b u_b [m^{7/2} kg^{-1/2}].
    """
    scale = np.array(
        [
            circuit.head_area**-1.5,
            circuit.rod_area**-1.5,
            circuit.rod_area**-1.5,
            circuit.head_area**-1.5,
            1.0,
        ]
    )
    return openings.as_array() * (np.asarray(circuit.coefficients) * scale)

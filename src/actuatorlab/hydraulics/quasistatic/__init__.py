"""Nonsmooth quasistatic model of a cylinder on a four-valve independent-metering circuit.

Kikuuwe et al., "Nonsmooth quasistatic modeling of hydraulic actuators" (Secs. 2–4).

Sign conventions: v > 0 extends the rod; f > 0 is the force that pushes the rod out (the
external load compressing the rod). Pressures are gauge (tank at 0 Pa), SI units throughout.

- ``ValveCircuit``, ``Openings``: parameters (66) and valve openings (38), (67);
- ``gamma``, ``gamma_interval``, ``gamma_segments``: the map f ∈ Γ(v) (61)–(65);
- ``Relaxation``, ``lam``, ``relaxed_step``, ``relaxed_rate``: the virtual spring–damper
  relaxation (68), its closed-form solution Λ (73)–(74), the step (72) and the ODE (70).
"""

from .circuit import VALVES, Openings, ValveCircuit, normalised_openings
from .maps import chamber_pressures, gamma, gamma_interval, gamma_segments
from .relaxation import Relaxation, lam, relaxed_rate, relaxed_step

__all__ = [
    "VALVES",
    "chamber_pressures",
    "Openings",
    "Relaxation",
    "ValveCircuit",
    "gamma",
    "gamma_interval",
    "gamma_segments",
    "lam",
    "normalised_openings",
    "relaxed_rate",
    "relaxed_step",
]

"""Nonsmooth quasistatic model of a cylinder on a four-valve independent-metering circuit.

Kikuuwe et al., "Nonsmooth quasistatic modeling of hydraulic actuators" (Secs. 2–6).

Sign conventions: v > 0 extends the rod; f > 0 is the force that pushes the rod out (the
external load compressing the rod). Pressures are gauge (tank at 0 Pa), SI units throughout.

- ``ValveCircuit``, ``Openings``: parameters (66) and valve openings (38), (67);
- ``gamma``, ``gamma_interval``, ``gamma_segments``: the map f ∈ Γ(v) (61)–(65), and
  ``chamber_pressures`` of a quasistatic state;
- ``Relaxation``, ``lam``, ``relaxed_step``, ``relaxed_rate``: the virtual spring–damper
  relaxation (68), its closed-form solution Λ (73)–(74), the step (72) and the ODE (70);
- ``gamma_regeneration``, ``regeneration_velocity``, ``lam_regeneration``,
  ``relaxed_regeneration_step``: the regeneration circuit (Sec. 5, (90)–(105));
- :mod:`.network`: several actuators on one pump, ``PumpNetwork`` (Sec. 6, (106)–(126)).
"""

from .circuit import VALVES, Openings, ValveCircuit, normalised_openings
from .maps import chamber_pressures, gamma, gamma_interval, gamma_segments
from .regeneration import gamma_regeneration, lam_regeneration, regeneration_velocity, relaxed_regeneration_step
from .relaxation import Relaxation, lam, relaxed_rate, relaxed_step

__all__ = [
    "VALVES",
    "Openings",
    "Relaxation",
    "ValveCircuit",
    "chamber_pressures",
    "gamma",
    "gamma_interval",
    "gamma_regeneration",
    "gamma_segments",
    "lam",
    "lam_regeneration",
    "normalised_openings",
    "regeneration_velocity",
    "relaxed_rate",
    "relaxed_regeneration_step",
    "relaxed_step",
]

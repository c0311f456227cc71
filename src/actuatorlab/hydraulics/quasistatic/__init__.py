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

Each name is imported from its module on first use, so the parameter classes (``circuit``,
``relaxation``) load without the compiled maps: a scenario file validates without numba.
"""

from __future__ import annotations

import importlib

HOMES = {
    "VALVES": "circuit",
    "Openings": "circuit",
    "ValveCircuit": "circuit",
    "normalised_openings": "circuit",
    "chamber_pressures": "maps",
    "gamma": "maps",
    "gamma_interval": "maps",
    "gamma_segments": "maps",
    "gamma_regeneration": "regeneration",
    "lam_regeneration": "regeneration",
    "regeneration_velocity": "regeneration",
    "relaxed_regeneration_step": "regeneration",
    "Relaxation": "relaxation",
    "default_relaxation": "relaxation",
    "lam": "relaxation",
    "relaxed_rate": "relaxation",
    "relaxed_step": "relaxation",
}
"""Public name → the module of this package that defines it."""

__all__ = sorted(HOMES)


def __getattr__(name: str):
    if name in HOMES:
        return getattr(importlib.import_module(f"{__name__}.{HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])

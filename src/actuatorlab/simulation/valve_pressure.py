"""A valve-opening → oil-pressure record with an oscillating response, from the pressure
dynamics of one cylinder chamber (Petrović & Mattila (80), one chamber): a record to try
transfer-function identification on, like the classic hydraulic-actuator record (valve opening
in, oil pressure out, 1 024 samples) whose resonance a chain of lags cannot follow.

A single-acting cylinder of area A [m²] and dead volume V₀ [m³] is fed from a supply p_s [Pa]
through a valve edge of opening u ∈ [0, 1], Q = c_v u √(p_s − p) (laminar below 1 bar,
``servo_cylinder.signed_root``), and drained by a laminar leakage c_l p [m³/s] to tank; its rod
moves a mass m [kg] against a spring k [N/m] (zero force at x = 0) and a damper b [N s/m]:

.. math::
    ṗ = \\frac{β}{V_0 + A x}(Q − A ẋ − c_l p),\\qquad m ẍ = A p − k x − b ẋ

The spool follows its command, random levels held for ``hold`` samples each (a multilevel
pseudo-random input), with a first-order lag; the logged opening is the spool's. The record
starts at the equilibrium of its first opening, and the pressure is logged relative to that
start with optional white noise. Linearised at the defaults' mean opening the
opening → pressure response has three poles, a pair at ω_n ≈ 53 rad/s (8.4 Hz) with ζ ≈ 0.46
and a real one at ≈ 350 rad/s, and two zeros (the mass–spring's): a ``3p2z`` structure
(tests/test_transfer_function_orders.py compares a fit with the linearisation). Integrated by
RK4 at a tenth of the sample period (compiled).
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pandas as pd
from scipy.optimize import brentq

from ..hydraulics.fluid import OIL_BULK_MODULUS
from ..hydraulics.servo_cylinder import signed_root
from ..numerics.rk4 import rk4_step

SUBSTEPS = 10
"""RK4 steps per sample."""
LAMINAR_BAND = 1e5
"""Pressure drop [Pa] below which the valve edge's flow is laminar."""


@nb.njit(cache=True)
def _rates(t, y, out, levels, hold_time, params):
    p, x, v, u = y[0], y[1], y[2], y[3]
    area, dead, supply, valve, leak, mass, spring, damping, bulk, spool = params
    command = levels[min(int(t / hold_time), levels.size - 1)]
    flow = valve * u * signed_root(supply - p, LAMINAR_BAND)
    out[0] = bulk / (dead + area * x) * (flow - area * v - leak * p)
    out[1] = v
    out[2] = (area * p - spring * x - damping * v) / mass
    out[3] = (command - u) / spool


@nb.njit(cache=True)
def _integrate(y, levels, hold_time, params, dt, n):
    logged = np.empty((n, 2))
    k1, k2, k3, k4, tmp = np.empty(4), np.empty(4), np.empty(4), np.empty(4), np.empty(4)
    h = dt / SUBSTEPS
    for i in range(n):
        logged[i, 0], logged[i, 1] = y[3], y[0]
        for j in range(SUBSTEPS):
            rk4_step(_rates, (levels, hold_time, params), i * dt + j * h, y, h, k1, k2, k3, k4, tmp)
    return logged


def valve_pressure_record(
    samples: int = 1024,
    dt: float = 2e-3,
    hold: int = 16,
    noise: float = 0.0,
    seed: int = 0,
    area: float = 1.2e-3,
    dead_volume: float = 2e-4,
    supply_pressure: float = 10e6,
    valve_coefficient: float = 2e-7,
    leakage: float = 2e-11,
    mass: float = 800.0,
    spring: float = 2e6,
    damping: float = 8e3,
    bulk_modulus: float = OIL_BULK_MODULUS,
    spool_time_constant: float = 5e-3,
) -> pd.DataFrame:
    """Columns ``t`` [s], ``valve`` (the spool's opening, 0.45–0.55) and ``pressure`` [Pa] (from its
    first sample, plus white noise of std ``noise`` [Pa]) of the chamber above (module docstring):
    ``samples`` every ``dt`` [s], the opening's command redrawn every ``hold`` samples (``seed``)."""
    rng = np.random.default_rng(seed)
    levels = rng.uniform(0.45, 0.55, samples // hold + 1)
    params = np.array(
        [area, dead_volume, supply_pressure, valve_coefficient, leakage, mass, spring, damping, bulk_modulus]
        + [spool_time_constant]
    )
    balance = lambda p: valve_coefficient * levels[0] * np.sqrt(supply_pressure - p) - leakage * p  # noqa: E731
    p0 = brentq(balance, 0.0, supply_pressure)
    y = np.array([p0, area * p0 / spring, 0.0, levels[0]])
    opening, pressure = _integrate(y, levels, hold * dt, params, dt, samples).T
    logged = pressure - pressure[0] + noise * rng.standard_normal(samples)
    return pd.DataFrame({"t": np.arange(samples) * dt, "valve": opening, "pressure": logged})

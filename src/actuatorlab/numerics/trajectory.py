"""Reference trajectories of time: rest-to-rest quintic segments through waypoints.

A segment from waypoint a to b over T [s] follows p(t) = a + (b − a) s(τ), τ = t/T, with the
quintic s(τ) = 10τ³ − 15τ⁴ + 6τ⁵: zero velocity and acceleration at both ends. Units are those
of the waypoints (per s, per s² for the derivatives).
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError


def quintic_segments(waypoints, segment_time: float, dt: float):
    """Rest-to-rest quintic segments through ``waypoints`` (k, d), ``segment_time`` [s] each,
    sampled every dt [s]: returns (t, p, ṗ, p̈) with p of shape (n, d)."""
    waypoints = np.asarray(waypoints, dtype=float)
    if waypoints.ndim != 2 or len(waypoints) < 2:
        raise ParameterError("waypoints must be an array (k ≥ 2, d)")
    if not (segment_time > 0 and dt > 0 and segment_time >= 10 * dt):
        raise ParameterError(f"segment_time = {segment_time} s must be > 0 and ≥ 10 dt (dt = {dt} s)")
    n_seg = len(waypoints) - 1
    t = np.arange(round(n_seg * segment_time / dt) + 1) * dt
    idx = np.minimum((t // segment_time).astype(int), n_seg - 1)
    s = (t - idx * segment_time) / segment_time
    shape = (10 * s**3 - 15 * s**4 + 6 * s**5)[:, None]
    dshape = ((30 * s**2 - 60 * s**3 + 30 * s**4) / segment_time)[:, None]
    ddshape = ((60 * s - 180 * s**2 + 120 * s**3) / segment_time**2)[:, None]
    delta = waypoints[idx + 1] - waypoints[idx]
    return t, waypoints[idx] + shape * delta, dshape * delta, ddshape * delta

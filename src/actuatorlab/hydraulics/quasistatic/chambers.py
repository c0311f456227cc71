"""Chamber pressures of a recorded quasistatic run (Kikuuwe et al. (61)–(62), (93), (106)).

The quasistatic model does not carry pressures as states, but it gives them from the state:
for v ≠ 0 the chamber forces (F_h, F_r) = (A_h P_h, A_r P_r) are single-valued —

- own pump, regeneration closed: Γ_h±(v), Γ_r±(v) (61b–c), (62b–c);
- own pump, regeneration open while extending: Γ_h+(v − Â v̂_a), Γ_r+(v − v̂_a) (93a–b) with the
  regeneration flow v̂_a (101);
- several actuators on one pump at pump pressure P: the head (v > 0) or rod (v < 0) side fed
  at force A_h·P or A_r·P (106b–c).

At v = 0 the model fixes only F_h − F_r = f; the least pair is reported, the unloaded chamber
at tank pressure. Pressures are gauge [Pa] (tank = 0).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .circuit import I_AH, I_AR
from .kernels import chamber_forces_scalar, head_minus_scalar, head_plus_scalar, rod_minus_scalar, rod_plus_scalar
from .regeneration import regenerated_chamber_forces_scalar, regeneration_velocity_scalar


@nb.njit(cache=True, error_model="numpy")
def _run_chamber_loop(cp, uh, ua_hat, pump_pressure, v, f, head, rod):
    for k in range(v.size):
        vk = v[k]
        if vk == 0.0:
            fh, fr = chamber_forces_scalar(cp, uh[k], vk, f[k])
        elif not math.isnan(pump_pressure[k]):  # a shared pump at pressure P (106b–c)
            if vk > 0.0:
                fh, fr = head_plus_scalar(cp, uh[k], cp[I_AH] * pump_pressure[k], vk), rod_plus_scalar(cp, uh[k], vk)
            else:
                fh, fr = head_minus_scalar(cp, uh[k], vk), rod_minus_scalar(cp, uh[k], cp[I_AR] * pump_pressure[k], vk)
        elif ua_hat[k] > 0.0 and vk > 0.0:  # regeneration (93a–b)
            va, _ = regeneration_velocity_scalar(cp, uh[k], ua_hat[k], vk)
            fh, fr = regenerated_chamber_forces_scalar(cp, uh[k], vk, va)
        else:
            fh, fr = chamber_forces_scalar(cp, uh[k], vk, f[k])
        head[k] = fh / cp[I_AH]
        rod[k] = fr / cp[I_AR]


def run_chamber_pressures(
    cp: np.ndarray, uh: np.ndarray, ua_hat: np.ndarray, pump_pressure: np.ndarray, v: np.ndarray, f: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(P_h, P_r) [Pa, gauge] along a run of one actuator: ``cp`` its circuit's kernel array,
    ``uh`` (n, 5) normalised openings, ``ua_hat`` (n,) û_a (0: regeneration closed),
    ``pump_pressure`` (n,) P [Pa] of a shared pump (NaN: the actuator's own pump), ``v`` (n,) rod
    velocity [m/s] and ``f`` (n,) force [N] of the run."""
    head = np.empty(v.size)
    rod = np.empty(v.size)
    _run_chamber_loop(
        cp,
        np.ascontiguousarray(uh),
        np.ascontiguousarray(ua_hat, dtype=np.float64),
        np.ascontiguousarray(pump_pressure, dtype=np.float64),
        np.ascontiguousarray(v),
        np.ascontiguousarray(f),
        head,
        rod,
    )
    return head, rod

"""The IEHA's controllers (``control.mpc``: MPC and PID) in closed loop on the nonlinear plant
(Alfayad et al. §5.4, Fig. 13).

Closed-loop test (paper): track r = A sin(π t) under F_ext = 600 sin(2π f_F t) N; the paper
gives neither A nor f_F: defaults A = 5 mm (3.1 cm/s peak, within the 3.1 cm/s the pump gives
into the large chamber B at E_max), f_F = 1 Hz.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..control.mpc import LinearMPC
from ..errors import ParameterError
from ..hydraulics.ieha import I_Y, IEHAParams
from .ieha import IEHAStepper


@dataclass
class ClosedLoopResult:
    """Samples at the control period: t [s], reference r [m], position y [m], command x [m],
    f_ext [N]; metrics over t ≥ ``metrics_from`` [s]: max_error, rms_error [m], lag [s]
    (phase delay of y behind r at the reference frequency, > 0 = late), overshoot [% of the
    amplitude: (max y − max r)/A]; solve times of the controller [s] (mean, max)."""

    t: np.ndarray
    r: np.ndarray
    y: np.ndarray
    x: np.ndarray
    f_ext: np.ndarray
    max_error: float
    rms_error: float
    lag: float
    overshoot: float
    solve_time_mean: float
    solve_time_max: float
    metrics_from: float
    extra: dict = field(default_factory=dict)


def _lag(t, r, y, omega) -> float:
    basis = np.column_stack([np.sin(omega * t), np.cos(omega * t), np.ones_like(t)])
    cr = np.linalg.lstsq(basis, r, rcond=None)[0]
    cy = np.linalg.lstsq(basis, y, rcond=None)[0]
    dphi = math.atan2(cr[1], cr[0]) - math.atan2(cy[1], cy[0])
    dphi = (dphi + math.pi) % (2.0 * math.pi) - math.pi
    return dphi / omega


def closed_loop(
    controller,
    params: IEHAParams | None = None,
    duration: float = 4.0,
    amplitude: float = 5e-3,
    omega_ref: float = math.pi,
    force_amplitude: float = 600.0,
    force_frequency: float = 1.0,
    dt: float = 2e-5,
    metrics_from: float = 1.0,
) -> ClosedLoopResult:
    """Run ``controller`` (a :class:`~actuatorlab.control.mpc.LinearMPC` or
    :class:`~actuatorlab.control.mpc.PID`, period ``controller`` ts) on the nonlinear IEHA:
    r = A sin(ω_ref t) [m], F_ext = F_A sin(2π f_F t) [N], X held over each period (zero-order
    hold), the plant integrated with step dt [s]."""
    params = IEHAParams() if params is None else params
    ts = controller.settings.ts if isinstance(controller, LinearMPC) else controller.ts
    sub = round(ts / dt)
    if sub < 1 or abs(sub * dt - ts) > 1e-9 * ts:
        raise ParameterError(f"the control period {ts} s must be a multiple of the plant step dt = {dt} s")
    horizon = controller.settings.horizon if isinstance(controller, LinearMPC) else 1
    n = round(duration / ts)
    t = np.arange(n + 1) * ts

    def ref(tt):
        return amplitude * np.sin(omega_ref * tt)

    def force(tt):
        return force_amplitude * np.sin(2.0 * math.pi * force_frequency * tt)

    plant = IEHAStepper(params, dt)
    controller.reset(0.0)
    ys = np.empty(n + 1)
    xs = np.empty(n + 1)
    fine = np.arange(sub + 1) * dt
    for k in range(n + 1):
        y = plant.y[I_Y]
        f_now = float(force(t[k]))
        x = controller.step(y, f_now, ref(t[k] + ts * np.arange(horizon + 1)))
        ys[k], xs[k] = y, x
        if k < n:
            plant.advance(np.full(sub + 1, x), force(t[k] + fine))
    r = ref(t)
    window = t >= metrics_from
    err = r[window] - ys[window]
    times = np.asarray(controller.solve_times)
    return ClosedLoopResult(
        t,
        r,
        ys,
        xs,
        force(t),
        float(np.max(np.abs(err))),
        float(np.sqrt(np.mean(err**2))),
        _lag(t[window], r[window], ys[window], omega_ref),
        float(100.0 * (np.max(ys[window]) - np.max(r[window])) / amplitude),
        float(times.mean()),
        float(times.max()),
        metrics_from,
    )

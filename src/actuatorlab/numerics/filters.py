"""Filters and derivatives of sampled signals: differences and the moving average of Sakai &
Maeshima (Sec. IV-A), and the filtered derivative (a Tustin biquad) of the VDC's required force.

Every function works along axis 0 (time) of an array sampled every ``dt`` seconds and keeps
its length; the first and last samples of a difference use one-sided formulas and should be
trimmed with :func:`edge_samples`. The identification applies one filter to every regressor
column and right-hand side alike, so the linear relation between them survives filtering.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..validation import positive

SCHEMES = ("central", "backward")


def first_difference(x: np.ndarray, dt: float, scheme: str = "central") -> np.ndarray:
    """dx/dt: ``central`` (x[k+1] − x[k−1]) / 2dt (second-order accurate) or ``backward``
    (x[k] − x[k−1]) / dt (first-order, causal)."""
    x = np.asarray(x, dtype=float)
    if scheme == "central":
        return np.gradient(x, dt, axis=0, edge_order=1)
    if scheme == "backward":
        out = np.empty_like(x)
        out[1:] = np.diff(x, axis=0) / dt
        out[0] = out[1]
        return out
    raise ParameterError(f"difference scheme {scheme!r}: choose one of {', '.join(SCHEMES)}")


def second_difference(x: np.ndarray, dt: float, scheme: str = "central") -> np.ndarray:
    """d²x/dt²: ``central`` (x[k+1] − 2x[k] + x[k−1]) / dt², ``backward`` the same stencil one
    sample later (x[k] − 2x[k−1] + x[k−2]) / dt² (causal)."""
    x = np.asarray(x, dtype=float)
    if scheme not in SCHEMES:
        raise ParameterError(f"difference scheme {scheme!r}: choose one of {', '.join(SCHEMES)}")
    out = np.empty_like(x)
    inner = (x[2:] - 2.0 * x[1:-1] + x[:-2]) / (dt * dt)
    if scheme == "central":
        out[1:-1] = inner
        out[0], out[-1] = inner[0], inner[-1]
    else:
        out[2:] = inner
        out[:2] = inner[0]
    return out


def moving_average(x: np.ndarray, taps: int = 20, zero_phase: bool = True) -> np.ndarray:
    """The ``taps``-sample moving average (20 at 1 kHz: first null at 50 Hz, the paper's cut-off).

    ``zero_phase`` runs it forward and backward (no delay, magnitude squared, same nulls);
    otherwise it is causal with a delay of (taps − 1)/2 samples. ``taps`` ≤ 1 returns ``x``.
    """
    x = np.asarray(x, dtype=float)
    if taps <= 1:
        return x
    if x.shape[0] < 3 * taps + 1:
        raise ParameterError(
            f"{x.shape[0]} samples are too few for a {taps}-tap moving average; "
            f"give at least {3 * taps + 1} or fewer taps"
        )
    from scipy.signal import filtfilt, lfilter  # 0.2 s to import; only the identification needs it

    b = np.full(taps, 1.0 / taps)
    if zero_phase:
        return filtfilt(b, [1.0], x, axis=0, padtype="even", padlen=taps)
    return lfilter(b, [1.0], x, axis=0)


def edge_samples(taps: int) -> int:
    """Samples to drop at each end after differences and a ``taps`` moving average."""
    return 2 + 2 * max(taps, 0)


def derivative_filter(cutoff_hz: float, dt: float) -> np.ndarray:
    """Coefficients [b0, b1, b2, a1, a2] of H(s) = ω² s/(s + ω)² (a derivative behind a
    critically damped 2nd-order low-pass at ω = 2π·cutoff) by the Tustin transform at dt [s]."""
    w = 2.0 * math.pi * positive("cutoff_hz", cutoff_hz, "Hz")
    k = 2.0 / positive("dt", dt, "s")
    a0 = (k + w) ** 2
    return np.array(
        [
            w * w * k / a0,
            0.0,
            -w * w * k / a0,
            (2.0 * w * w - 2.0 * k * k) / a0,
            (k - w) ** 2 / a0,
        ]
    )


@nb.njit(cache=True)
def filter_reset(coef, state, x0):
    """Set the (2,) state to the steady state of a constant input x0 (output 0)."""
    state[0] = -coef[0] * x0
    state[1] = coef[2] * x0


@nb.njit(cache=True)
def filter_step(coef, state, x):
    """One sample of the biquad (direct form II transposed); returns the output."""
    y = coef[0] * x + state[0]
    state[0] = coef[1] * x - coef[3] * y + state[1]
    state[1] = coef[2] * x - coef[4] * y
    return y

"""95 % bands of a fitted transfer function's Bode plot and step response, from the fit's
parameter covariance: parameter sets drawn from the normal distribution of the estimate in the
fitted variables q (logarithms of time constants and natural frequencies, so a draw keeps every
pole stable), each one's response evaluated, and the 2.5 % and 97.5 % quantiles taken per
frequency and per time (the delta method's normal approximation, propagated without
linearising the response; Ljung, *System Identification*, 2nd ed., 1999, §9.4). Parameters
the record does not resolve (NaN variance) are held at their estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DRAWS = 200
"""Parameter sets drawn per band."""


@dataclass(frozen=True)
class ResponseBands:
    """``omega`` [rad/s]; ``magnitude`` |G| and ``phase`` [deg] as (estimate, 2.5 %, 97.5 %)
    rows (3, n_ω); ``t`` [s] and ``step`` the response to a unit step from rest at t = 0
    (reached at the first sample, the input linear between samples) likewise (3, n_t)."""

    omega: np.ndarray
    magnitude: np.ndarray
    phase: np.ndarray
    t: np.ndarray
    step: np.ndarray


def response_bands(structure, theta: np.ndarray, covariance: np.ndarray, dt: float, duration: float, seed: int = 0):
    """:class:`ResponseBands` of ``structure`` at ``theta`` with the parameters' ``covariance``
    (in θ), on frequencies from 1/``duration`` [Hz] to Nyquist and a step of ``duration``/4 [s]."""
    theta = np.asarray(theta, float)
    omega = np.logspace(np.log10(2.0 * np.pi / duration), np.log10(np.pi / dt), 300)
    t = np.arange(int(round(0.25 * duration / dt)) + 1) * dt
    draws = [theta, *_draws(structure, theta, covariance, seed)]
    responses = np.array([structure.frequency_response(p, omega, dt) for p in draws])
    phases = np.degrees(np.unwrap(np.angle(responses), axis=1))
    steps = np.array([structure.simulate(p, (t > 0.0).astype(float), dt) for p in draws])

    def band(values: np.ndarray) -> np.ndarray:
        return np.vstack([values[0], np.quantile(values[1:], [0.025, 0.975], axis=0)])

    return ResponseBands(omega, band(np.abs(responses)), band(phases), t, band(steps))


def _draws(structure, theta: np.ndarray, covariance: np.ndarray, seed: int) -> list[np.ndarray]:
    """DRAWS parameter sets θ = from_free(q), q normal about the estimate's q with the covariance
    mapped through dθ/dq (unresolved parameters fixed)."""
    chain = structure.chain(theta)
    cov = np.nan_to_num(np.asarray(covariance, float)) / np.outer(chain, chain)
    values, vectors = np.linalg.eigh(0.5 * (cov + cov.T))
    root = vectors * np.sqrt(np.clip(values, 0.0, None))
    normal = np.random.default_rng(seed).standard_normal((DRAWS, theta.size))
    centre = structure.to_free(theta)
    return [structure.from_free(centre + root @ z) for z in normal]

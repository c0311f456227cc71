"""Goodness of fit of a simulated output against a measured one."""

from __future__ import annotations

import numpy as np


def fit_ratio(measured: np.ndarray, simulated: np.ndarray) -> np.ndarray:
    """NRMSE fit [%] per column: 100·(1 − ‖y − ŷ‖₂ / ‖y − ȳ‖₂) (MATLAB ``compare``).

    100 is a perfect match, 0 is no better than the mean, and it is negative when worse.
    """
    y = np.asarray(measured, dtype=float)
    y_hat = np.asarray(simulated, dtype=float)
    spread = np.linalg.norm(y - y.mean(axis=0), axis=0)
    return 100.0 * (1.0 - np.linalg.norm(y - y_hat, axis=0) / np.where(spread > 0, spread, np.nan))

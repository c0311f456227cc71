"""Uncertainty of identified parameters that holds on noisy, filtered data: the statistics of a
parametric bootstrap, the noise levels it needs, the diagnosis of poorly determined
parameters, and the covariance of an output-error fit with correlated residuals
(:func:`output_error_covariance`).

Why not the least-squares formula: σ²(XᵀX)⁻¹ assumes independent residuals and exact
regressors, but the robot's regressors are differentiated, moving-averaged noisy signals: the
residuals are correlated over the filter length and the regressor noise both widens and biases
the estimates (errors in variables; on angles with 2e-5 rad noise M1 is 0.3 % low, several of
its formula standard errors). A parametric bootstrap sees all of it: the identified model is
re-simulated under the logged input, measurement noise at the levels estimated from the data
is added, the identification is repeated, and the spread and mean shift of the replicates are
the estimator's standard error and bias (Efron & Tibshirani, *An Introduction to the
Bootstrap*, 1993, ch. 6 and 10).

Reported (:func:`summarize`): where the bias is significant (larger than ``BIAS_SIGNIFICANCE``
standard errors of the replicates' mean, i.e. distinguishable from zero by the bootstrap itself)
the bias-corrected estimate θ̂ − bias, otherwise θ̂; the 95 % interval is the reported value
± 1.96 bootstrap standard deviations.

Noise levels (:func:`noise_levels`): the third difference of a signal sampled far above its
bandwidth is its white measurement noise times √20 (the sum of the squared binomial
coefficients 1, 3, 3, 1); samples beyond six robust standard deviations (a valve switching,
a spike) are left out of the mean square.

The signal under the noise (:func:`denoised`): the Fourier coefficients of the logged signal
(its end-to-end ramp removed, so the record wraps without a jump) whose power exceeds the white
noise's expected power per coefficient, n σ², by the universal threshold ln n are kept, the
rest are dropped. A coefficient of pure noise has exponentially distributed power, so about one
of the n/2 is kept by chance (Donoho & Johnstone, Biometrika 81, 1994, hard thresholding in an
orthonormal basis); a signal's coefficients (a 1 Hz sine, the low frequencies of a step) are
kept whole.
"""

from __future__ import annotations

import contextlib
import ctypes
from dataclasses import dataclass

import numpy as np
from scipy.signal import lfilter

Z95 = 1.959963984540054
"""Two-sided 95 % quantile of the standard normal distribution."""
BIAS_SIGNIFICANCE = 3.0
"""A bias is corrected when it exceeds this many standard errors of the replicates' mean."""
THIRD_DIFFERENCE_GAIN = np.sqrt(20.0)
"""Standard deviation of the third difference of unit white noise, √(1² + 3² + 3² + 1²)."""
POORLY_DETERMINED = 0.05
"""A parameter whose 95 % interval half-width exceeds this fraction of its value is diagnosed."""


def noise_levels(x: np.ndarray) -> np.ndarray:
    """Standard deviation of the white measurement noise of each column of ``x`` (n, m) (or of
    ``x`` (n,)), from its third difference (module docstring)."""
    x = np.asarray(x, dtype=float)
    d = np.diff(x, n=3, axis=0)
    robust = 1.4826 * np.median(np.abs(d - np.median(d, axis=0)), axis=0)
    keep = np.abs(d) <= 6.0 * np.maximum(robust, np.finfo(float).tiny)
    mean_square = np.where(keep, d * d, 0.0).sum(axis=0) / np.maximum(keep.sum(axis=0), 1)
    return np.sqrt(mean_square) / THIRD_DIFFERENCE_GAIN


def denoised(x: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """The signal under white measurement noise of std ``noise`` (per column) in ``x`` (n, m),
    by hard thresholding its Fourier coefficients at the universal threshold (module
    docstring); a noise-free column is returned as it is."""
    x = np.asarray(x, dtype=float)
    n = x.shape[0]
    ramp = x[:1] + (x[-1:] - x[:1]) * (np.arange(n) / max(n - 1, 1)).reshape((n,) + (1,) * (x.ndim - 1))
    spectrum = np.fft.rfft(x - ramp, axis=0)
    floor = n * np.square(np.asarray(noise, dtype=float)) * np.log(n)
    kept = np.where(np.abs(spectrum) ** 2 > floor, spectrum, 0.0)
    return ramp + np.fft.irfft(kept, n, axis=0)


@dataclass(frozen=True)
class BootstrapSummary:
    """Per parameter: the estimate θ̂ from the data, the bootstrap bias (mean of the replicates −
    θ̂) and standard deviation, whether the bias is corrected, the reported value and its 95 %
    interval; ``replicates`` (B, p)."""

    names: list[str]
    estimate: np.ndarray
    bias: np.ndarray
    sd: np.ndarray
    corrected: np.ndarray
    reported: np.ndarray
    low: np.ndarray
    high: np.ndarray
    replicates: np.ndarray

    def covers(self, truth: np.ndarray) -> np.ndarray:
        """Whether each 95 % interval contains ``truth`` (coverage checks)."""
        return (self.low <= truth) & (truth <= self.high)

    def rows(self) -> list[dict]:
        """One dict per parameter for tables and JSON."""
        return [
            {
                "parameter": n,
                "estimate": float(e),
                "bias": float(b),
                "bootstrap_sd": float(s),
                "bias_corrected": bool(c),
                "reported": float(r),
                "ci95_low": float(lo),
                "ci95_high": float(hi),
            }
            for n, e, b, s, c, r, lo, hi in zip(
                self.names, self.estimate, self.bias, self.sd, self.corrected, self.reported, self.low, self.high
            )
        ]


def summarize(names: list[str], estimate: np.ndarray, replicates: np.ndarray) -> BootstrapSummary:
    """Bias, spread, the reported value and its 95 % interval from the replicates (B, p) of a
    parametric bootstrap about ``estimate`` (module docstring)."""
    replicates = np.asarray(replicates, dtype=float)
    count = replicates.shape[0]
    if count < 2:
        raise ValueError(f"{count} bootstrap replicates: give at least 2 (200 for 95 % intervals)")
    estimate = np.asarray(estimate, dtype=float)
    bias = replicates.mean(axis=0) - estimate
    sd = replicates.std(axis=0, ddof=1)
    corrected = np.abs(bias) > BIAS_SIGNIFICANCE * sd / np.sqrt(count)
    reported = np.where(corrected, estimate - bias, estimate)
    return BootstrapSummary(
        list(names), estimate, bias, sd, corrected, reported, reported - Z95 * sd, reported + Z95 * sd, replicates
    )


def collinearity(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(variance inflation factor, index of the most correlated other column) of each column of
    the regressor ``x``: VIF_i = [(X̃ᵀX̃)⁻¹]_ii with X̃ the column-normalised, centred-free X (1
    for a column orthogonal to the rest), the partner from the inverse Gram matrix's partial
    correlations."""
    xs = x / np.linalg.norm(x, axis=0)
    inverse = np.linalg.inv(xs.T @ xs)
    vif = np.diag(inverse).copy()
    partial = -inverse / np.sqrt(np.outer(vif, vif))
    np.fill_diagonal(partial, 0.0)
    return vif, np.argmax(np.abs(partial), axis=1)


_BLAS_THREADS = (
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
    ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
    ("openblas_get_num_threads", "openblas_set_num_threads"),
)


@contextlib.contextmanager
def single_threaded_blas():
    """Run the block with every loaded OpenBLAS on one thread (restored after). A bootstrap makes
    hundreds of small LAPACK calls (9 × 9 eigenproblems); OpenBLAS's worker threads spin after
    each and, on two shared cores, slowed the re-identifications 3× (40 ms against 14 ms each).
    Where the libraries cannot be found (not Linux, another BLAS) the block runs unchanged."""
    restore = []
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower() and "/" in line})
    except OSError:
        paths = []
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for get, set_ in _BLAS_THREADS:
            if hasattr(library, get) and hasattr(library, set_):
                restore.append((getattr(library, set_), getattr(library, get)()))
                getattr(library, set_)(1)
                break
    try:
        yield
    finally:
        for set_threads, count in restore:
            set_threads(count)


def output_error_covariance(
    jacobian: np.ndarray, residual: np.ndarray, order: int | None = None
) -> tuple[np.ndarray, int]:
    """(covariance of an output-error least-squares estimate, order of the noise model used) that
    holds for serially correlated residuals: the sandwich (JᵀJ)⁻¹ JᵀΣJ (JᵀJ)⁻¹ with Σ the
    covariance of an autoregressive model of the residual, r = e / A(q), A(q) = 1 − a_1 q⁻¹ − … −
    a_p q⁻ᵖ, e white of variance σ_e²; then JᵀΣJ = σ_e² ‖HᵀJ‖², HᵀJ the columns of J filtered
    by 1/A backwards in time (the asymptotic covariance of an output-error estimate whose noise
    is not modelled, Ljung, *System Identification*, 2nd ed., 1999, ch. 9). The AR model comes
    from the residual's autocovariances by the Durbin–Levinson recursion, its order p (unless
    given) the one of least BIC, n ln σ_p² + p ln n (Schwarz, Ann. Stat. 6, 1978), among
    0 … 10 log₁₀ n (R's ``ar`` default). ``order = 0``: the white-noise formula σ²(JᵀJ)⁻¹.
    Scaled by n/(n − p_θ) as the usual σ² is.

    Why not Newey–West on the scores g_k = J_k r_k (the previous method): the noise is
    stationary, the Jacobian of a chirp response is not, and their product is far from the
    VAR(1) that Andrews & Monahan's prewhitening assumes; with AR(1) residuals of lag-one
    correlation 0.9 that estimate made the IEHA's λ standard error 43 % too large (its 95 %
    interval covered 99.5 %), here 4 % (docs/benchmarks.md). The Jacobian's columns are
    scaled to unit norm before the inversion and the result scaled back: a pseudo-inverse of
    JᵀJ itself would drop a parameter whose column is 10⁸ times shorter than another's (a
    pressure gain beside a time constant) as if the data did not see it."""
    n, p = jacobian.shape
    centred = residual - residual.mean()
    most = min(n - 1, int(10 * np.log10(n))) if order is None else order
    autocovariance = np.array([centred[: n - k] @ centred[k:] for k in range(most + 1)]) / n
    tiny = np.finfo(float).tiny
    a, variance = np.zeros(0), max(autocovariance[0], tiny)
    best = (n * np.log(variance), a, variance)
    for k in range(1, most + 1):
        reflection = (autocovariance[k] - a @ autocovariance[k - 1 : 0 : -1]) / variance
        a = np.concatenate([a - reflection * a[::-1], [reflection]])
        variance = max(variance * (1.0 - reflection**2), tiny)
        criterion = n * np.log(variance) + k * np.log(n)
        if (order is None and criterion < best[0]) or k == order:
            best = (criterion, a, variance)
    _, a, variance = best
    norms = np.linalg.norm(jacobian, axis=0)
    scaled = jacobian / np.where(norms > 0.0, norms, 1.0)  # columns of one scale: a gain of 1e6 beside a lag of 1e-3
    filtered = lfilter([1.0], np.concatenate([[1.0], -a]), scaled[::-1], axis=0)[::-1]
    bread = np.linalg.pinv(scaled.T @ scaled)
    meat = n / max(n - p, 1) * variance * bread @ (filtered.T @ filtered) @ bread
    return meat / np.outer(np.where(norms > 0.0, norms, 1.0), np.where(norms > 0.0, norms, 1.0)), a.size

"""Continuous-time transfer functions fitted to sampled input–output data by output error.

A structure (:class:`LagStructure`) is a gain K, an optional integrator and n first-order lags:

.. math:: G(s) = \\frac{K}{s^{i}\\,\\prod_{k=1}^{n} (1 + \\lambda_k s)},\\quad i \\in \\{0, 1\\}

e.g. the IEHA's G1 = K/(s(1+λ1 s)(1+λ2 s)(1+λ3 s)) and G2 = K′/(s(1+λ′s)) (Alfayad et al.,
(26)–(28)). Several inputs add their channels: y = Σ_j G_j u_j. The fit is the prediction-error
(output-error) minimisation of the paper's PEM: ``scipy.optimize.least_squares`` (TRF,
central-difference Jacobian: forward differences stall short of the optimum) on the
residual y − ŷ(θ), ŷ simulated exactly from the samples (each G discretised with a
first-order hold, i.e. inputs linear between samples, then ``lfilter``); λ_k = exp(q_k) > 0.
Initial guesses come from the low-frequency expansion G ≈ K/s − K Σλ (integrating structures:
linear regression of y on ∫u and u) or G ≈ K (1 − Σλ s) (static ones: on u and u̇).

Fit (NRMSE, as MATLAB's ``compare``): fit = 100 (1 − ‖y − ŷ‖₂ / ‖y − ȳ‖₂) [%].
With a 0.1–10 Hz excitation and λ ≈ 1 ms (corner ≈ 150 Hz) the data fix K and the sum Σλ
well but not how Σλ splits between the λ_k: compare sums, or excite faster.

Uncertainty: standard errors √diag(σ² (JᵀJ)⁻¹), σ² = ‖y − ŷ‖²/(n_samples − n_params), J the
residual Jacobian in (K, λ) (chain rule through λ = e^q); valid for white output noise.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.integrate import cumulative_trapezoid
from scipy.optimize import least_squares
from scipy.signal import chirp as _chirp
from scipy.signal import cont2discrete, lfilter

from ..errors import ParameterError


@dataclass(frozen=True)
class LagStructure:
    """K / (s^integrator · Π_{k≤n_lags} (1 + λ_k s)); parameters ordered (K, λ_1 … λ_n)."""

    n_lags: int
    integrator: bool = True

    def __post_init__(self) -> None:
        if int(self.n_lags) != self.n_lags or not 0 <= self.n_lags <= 6:
            raise ParameterError(f"n_lags = {self.n_lags!r}: must be an integer in 0 … 6")

    @property
    def n_params(self) -> int:
        return 1 + self.n_lags

    def names(self, prefix: str = "") -> list[str]:
        return [f"K{prefix}"] + [f"lambda{prefix}_{k + 1}" for k in range(self.n_lags)]

    def polynomials(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(numerator, denominator) coefficients in descending powers of s."""
        den = np.array([1.0])
        for lam in theta[1:]:
            den = np.polymul(den, [lam, 1.0])
        if self.integrator:
            den = np.polymul(den, [1.0, 0.0])
        return np.array([theta[0]]), den

    def simulate(self, theta: np.ndarray, u: np.ndarray, dt: float) -> np.ndarray:
        """Response to samples ``u`` every ``dt`` [s] from rest (inputs linear between samples;
        the input ramps from 0 at −dt to u[0], so a record starting with u[0] ≠ 0 gains an
        offset ≈ K u[0] dt/2 with an integrator: start records at rest when it matters)."""
        num, den = self.polynomials(theta)
        b, a, _ = cont2discrete((num, den), dt, method="foh")
        return lfilter(np.ravel(b), a, u)


G1_STRUCTURE = LagStructure(3)
"""K/(s(1+λ1 s)(1+λ2 s)(1+λ3 s)), valve command X → rod position Y (27)."""
G2_STRUCTURE = LagStructure(1)
"""K′/(s(1+λ′ s)), external force F_ext → rod position Y (28)."""


@dataclass
class TransferFunctionFit:
    """Result of :func:`fit_transfer_functions`: per input channel the structure and its
    parameters (K in output/input units [·s⁻¹ with an integrator], λ [s]) with standard errors;
    ``fit_percent`` NRMSE fit [%]; ``y_model`` the simulated output; ``cost`` ½‖y − ŷ‖²;
    ``nfev``; ``wall_time_s``."""

    structures: tuple[LagStructure, ...]
    params: tuple[np.ndarray, ...]
    std_errors: tuple[np.ndarray, ...]
    fit_percent: float
    y_model: np.ndarray
    cost: float
    nfev: int
    wall_time_s: float

    def table(self) -> list[dict]:
        """Rows ``name``, ``value``, ``std_error`` (channels numbered from 1)."""
        rows = []
        for j, (structure, theta, std) in enumerate(zip(self.structures, self.params, self.std_errors)):
            for name, value, err in zip(structure.names(f"{j + 1}"), theta, std):
                rows.append({"name": name, "value": float(value), "std_error": float(err)})
        return rows


def nrmse_fit(y: np.ndarray, y_model: np.ndarray) -> float:
    """100 (1 − ‖y − ŷ‖ / ‖y − mean(y)‖) [%]; 100 is perfect, may be negative."""
    spread = np.linalg.norm(y - np.mean(y))
    if spread == 0.0:
        raise ParameterError("the output is constant: an input–output fit needs an output that moves")
    return float(100.0 * (1.0 - np.linalg.norm(y - y_model) / spread))


def initial_guess(structures: Sequence[LagStructure], inputs: np.ndarray, y: np.ndarray, dt: float) -> list[np.ndarray]:
    """(K, λ…) per channel from the low-frequency expansion (module docstring); the total lag
    Σλ is split over the λ_k with a ±10 % spread, floored at 2 dt."""
    columns = []
    for structure, u in zip(structures, inputs.T):
        low = cumulative_trapezoid(u, dx=dt, initial=0.0) if structure.integrator else u
        high = u if structure.integrator else np.gradient(u, dt)
        columns += [low, high]
    coef = np.linalg.lstsq(np.column_stack(columns), y, rcond=None)[0]
    guesses = []
    for j, structure in enumerate(structures):
        k, slope = coef[2 * j], coef[2 * j + 1]
        k = k if k != 0.0 else 1.0
        total = max(-slope / k, 2.0 * dt * max(structure.n_lags, 1))
        spread = np.linspace(0.9, 1.1, structure.n_lags) if structure.n_lags > 1 else np.ones(structure.n_lags)
        guesses.append(np.concatenate([[k], total / max(structure.n_lags, 1) * spread]))
    return guesses


def fit_transfer_functions(
    t: np.ndarray,
    inputs: np.ndarray,
    y: np.ndarray,
    structures: Sequence[LagStructure] = (G1_STRUCTURE,),
    initial: Sequence[np.ndarray] | None = None,
) -> TransferFunctionFit:
    """Output-error fit of y ≈ Σ_j G_j(θ_j) u_j on a uniform grid ``t`` [s].

    inputs: shape (n,) or (n, n_inputs), one column per structure; y: (n,) output from rest
    (y[0] and the inputs before t[0] are taken as 0: subtract an operating point first).
    initial: optional (K, λ…) per channel, else :func:`initial_guess`.
    """
    t = np.asarray(t, dtype=float)
    u = np.asarray(inputs, dtype=float).reshape(t.size, -1)
    y = np.asarray(y, dtype=float)
    structures = tuple(structures)
    if y.shape != t.shape or u.shape[1] != len(structures):
        raise ParameterError(
            f"got {u.shape[1]} input column(s), {len(structures)} structure(s), output shape {y.shape} for "
            f"{t.size} samples: give one input column per structure and one output sample per time"
        )
    dt = float(t[1] - t[0])
    if dt <= 0.0 or not np.allclose(np.diff(t), dt, rtol=1e-6):
        raise ParameterError("t must be a uniform increasing grid")
    if not (np.all(np.isfinite(u)) and np.all(np.isfinite(y))):
        raise ParameterError("inputs and output must be finite")
    start = time.perf_counter()
    guesses = initial_guess(structures, u, y, dt) if initial is None else [np.asarray(g, float) for g in initial]
    sizes = [s.n_params for s in structures]
    splits = np.cumsum(sizes)[:-1]
    scale_y = max(float(np.std(y)), 1e-300)

    def unpack(q: np.ndarray) -> list[np.ndarray]:
        return [np.concatenate([[p[0]], np.exp(np.clip(p[1:], -40.0, 5.0))]) for p in np.split(q, splits)]

    def model(q: np.ndarray) -> np.ndarray:
        return sum(s.simulate(theta, u[:, j], dt) for j, (s, theta) in enumerate(zip(structures, unpack(q))))

    q0 = np.concatenate([np.concatenate([[g[0]], np.log(np.maximum(g[1:], 1e-12))]) for g in guesses])
    sol = least_squares(
        lambda q: (model(q) - y) / scale_y, q0, jac="3-point", x_scale="jac", method="trf", xtol=1e-12, ftol=1e-12
    )
    thetas = unpack(sol.x)
    y_model = model(sol.x)
    # Jacobian in (K, λ): ∂r/∂λ = ∂r/∂q / λ
    jac = sol.jac * scale_y
    chain = np.concatenate([np.concatenate([[1.0], th[1:]]) for th in thetas])
    jac = jac / chain
    dof = max(y.size - sol.x.size, 1)
    sigma2 = float(np.sum((y - y_model) ** 2)) / dof
    cov = sigma2 * np.linalg.pinv(jac.T @ jac)
    std = np.split(np.sqrt(np.maximum(np.diag(cov), 0.0)), splits)
    return TransferFunctionFit(
        structures, tuple(thetas), tuple(std), nrmse_fit(y, y_model), y_model, float(sol.cost) * scale_y**2,
        int(sol.nfev), time.perf_counter() - start,
    )


def step_signal(t: np.ndarray, amplitude: float, start: float = 0.0) -> np.ndarray:
    """amplitude for t ≥ start, else 0."""
    return np.where(np.asarray(t) >= start, float(amplitude), 0.0)


def pulse_signal(t: np.ndarray, amplitude: float, start: float, width: float) -> np.ndarray:
    """amplitude on [start, start + width), else 0; width [s] > 0."""
    if not width > 0.0:
        raise ParameterError(f"pulse width = {width!r} s: must be > 0")
    t = np.asarray(t)
    return np.where((t >= start) & (t < start + width), float(amplitude), 0.0)


def chirp_signal(
    t: np.ndarray, amplitude: float, f0: float = 0.1, f1: float = 10.0, offset: float = 0.0, method: str = "logarithmic"
) -> np.ndarray:
    """offset + amplitude·sin sweep from f0 to f1 [Hz] over the span of ``t`` (paper: 0.1–10 Hz),
    starting at phase 0 so the signal starts at ``offset``."""
    t = np.asarray(t, dtype=float)
    if not (0.0 < f0 < f1):
        raise ParameterError(f"chirp frequencies f0 = {f0!r}, f1 = {f1!r} Hz: need 0 < f0 < f1")
    span = float(t[-1] - t[0])
    return offset + amplitude * _chirp(t - t[0], f0, span, f1, method=method, phi=-90.0)


def frequency_response(structure: LagStructure, theta: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """G(jω) at angular frequencies ``omega`` [rad/s]."""
    num, den = structure.polynomials(np.asarray(theta, float))
    s = 1j * np.asarray(omega, float)
    return np.polyval(num, s) / np.polyval(den, s)


PAPER_G1 = np.array([115.4, 1.14e-3, 1.14e-3, 1.11e-3])
"""(K [1/s], λ1, λ2, λ3 [s]) of (27), Alfayad et al. §3.12."""
PAPER_G2 = np.array([6.3e-4, 0.43e-6])
"""(K′, λ′ [s]) of (28); the paper states no unit for K′."""

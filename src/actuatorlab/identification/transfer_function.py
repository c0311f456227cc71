"""Continuous-time transfer functions fitted to sampled input–output data by output error.

A structure (:class:`LagStructure`) is a gain K, an optional integrator and n first-order lags:

.. math:: G(s) = \\frac{K}{s^{i}\\,\\prod_{k=1}^{n} (1 + \\lambda_k s)},\\quad i \\in \\{0, 1\\}

e.g. the IEHA's G1 = K/(s(1+λ1 s)(1+λ2 s)(1+λ3 s)) and G2 = K′/(s(1+λ′s)) (Alfayad et al.,
(26)–(28)). Several inputs add their channels: y = Σ_j G_j u_j. The fit is the prediction-error
(output-error) minimisation of the paper's PEM: ``scipy.optimize.least_squares`` (TRF,
central-difference Jacobian: forward differences stall short of the optimum) on the
residual y − ŷ(θ), ŷ simulated exactly from the samples (each G, realised as its lags in
series, discretised with a first-order hold, i.e. inputs linear between samples, then
``lfilter``); λ_k = exp(q_k) > 0.
A trial step whose simulation overflows or breaks down (a gain stepped decades away) returns
an inf residual, which ``least_squares`` rejects by shrinking its trust region, and the fit goes
on; only a start that cannot be simulated ends the fit (with the message naming the record's scale).
Initial guesses come from the low-frequency expansion G ≈ K/s − K Σλ (integrating structures:
linear regression of y on ∫u and u) or G ≈ K (1 − Σλ s) (static ones: on u and u̇).

Fit (NRMSE, as MATLAB's ``compare``): fit = 100 (1 − ‖y − ŷ‖₂ / ‖y − ȳ‖₂) [%].
With a 0.1–10 Hz excitation and λ ≈ 1 ms (corner ≈ 150 Hz) the data fix K and the sum Σλ
well but not how Σλ splits between the λ_k: compare sums, or excite faster.

Uncertainty: standard errors from the sandwich (JᵀJ)⁻¹ JᵀΣJ (JᵀJ)⁻¹ of the residual Jacobian
J in (K, λ) (chain rule through λ = e^q), Σ the covariance of an autoregressive model of the
residual whose order the data choose (BIC;
``identification.uncertainty.output_error_covariance``): the white-noise formula σ²(JᵀJ)⁻¹
is too narrow when the residuals are correlated (coloured sensor noise, an unmodelled
resonance), as a log's residuals usually are. The residual is modelled, not the scores J_k r_k
(Newey–West): the noise is stationary where a chirp's Jacobian is not, and the scores'
prewhitened Newey–West estimate made λ's interval cover 99.5 % under strongly correlated
noise. Coverage of the 95 % intervals: tests/test_identification_uncertainty.py and
docs/benchmarks.md.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy.integrate import cumulative_trapezoid
from scipy.optimize import least_squares
from scipy.signal import cont2discrete, lfilter, ss2tf

from ..errors import ParameterError
from .discrete import ARXStructure, fit_arx
from .uncertainty import Z95, output_error_covariance


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
        """The number of parameters, K and the n lags."""
        return 1 + self.n_lags

    def names(self, prefix: str = "") -> list[str]:
        """Parameter names ``K{prefix}``, ``lambda{prefix}_1`` …, in the order of θ."""
        return [f"K{prefix}"] + [f"lambda{prefix}_{k + 1}" for k in range(self.n_lags)]

    def polynomials(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(numerator, denominator) coefficients in descending powers of s."""
        den = np.array([1.0])
        for lam in theta[1:]:
            den = np.polymul(den, [lam, 1.0])
        if self.integrator:
            den = np.polymul(den, [1.0, 0.0])
        return np.array([theta[0]]), den

    def state_space(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(A, B, C, D) of the lags in series, then the integrator: ẋ_1 = (K u − x_1)/λ_1,
        ẋ_k = (x_{k−1} − x_k)/λ_k, then ẏ = x_n (y = x_n without integrator). A is bidiagonal with
        the poles −1/λ_k (and 0) on its diagonal, so it stays exact for lags decades apart, where
        the companion form of :meth:`polynomials` loses every digit (1e-9 s beside 1 ms)."""
        k, lags = theta[0], np.asarray(theta[1:], float)
        n = lags.size + int(self.integrator)
        a, b, c = np.zeros((n, n)), np.zeros((n, 1)), np.zeros((1, n))
        idx = np.arange(lags.size)
        a[idx, idx] = -1.0 / lags
        a[idx[1:], idx[:-1]] = 1.0 / lags[1:]
        if self.integrator and lags.size:
            a[-1, -2] = 1.0
        b[0, 0] = k / lags[0] if lags.size else k
        c[0, -1] = 1.0
        return a, b, c, np.zeros((1, 1))

    def __str__(self) -> str:
        return NAMES.get(self, f"{'I+' if self.integrator else ''}{self.n_lags}")

    def to_free(self, theta: np.ndarray) -> np.ndarray:
        """θ → the fitted variables q = (K, ln λ_1 …)."""
        theta = np.asarray(theta, float)
        return np.concatenate([[theta[0]], np.log(np.maximum(theta[1:], 1e-12))])

    def from_free(self, q: np.ndarray) -> np.ndarray:
        """q → θ (ln λ clipped to [−40, 5]: a trial step cannot overflow)."""
        return np.concatenate([[q[0]], np.exp(np.clip(q[1:], -40.0, 5.0))])

    def chain(self, theta: np.ndarray) -> np.ndarray:
        """dθ/dq: 1 for K, λ_k for the lags."""
        return np.concatenate([[1.0], theta[1:]])

    def bounds(self, n_samples: int, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """No bounds on q."""
        return np.full(self.n_params, -np.inf), np.full(self.n_params, np.inf)

    def unresolved(self, theta: np.ndarray, dt: float) -> np.ndarray:
        """Lags below ``LAG_RESOLUTION`` of the sample period: bounded by the record, not measured."""
        return np.concatenate([[False], theta[1:] < LAG_RESOLUTION * dt])

    def frequency_response(self, theta: np.ndarray, omega: np.ndarray, dt: float = 0.0) -> np.ndarray:
        """G(jω) at angular frequencies ``omega`` [rad/s] (``dt`` unused: continuous time)."""
        num, den = self.polynomials(np.asarray(theta, float))
        s = 1j * np.asarray(omega, float)
        return np.polyval(num, s) / np.polyval(den, s)

    def simulate(self, theta: np.ndarray, u: np.ndarray, dt: float) -> np.ndarray:
        """Response to samples ``u`` every ``dt`` [s] from rest (inputs linear between samples;
        the input ramps from 0 at −dt to u[0], so a record starting with u[0] ≠ 0 gains an
        offset ≈ K u[0] dt/2 with an integrator: start records at rest when it matters)."""
        if self.n_lags == 0 and not self.integrator:
            return theta[0] * np.asarray(u, float)
        ad, bd, cd, dd, _ = cont2discrete(self.state_space(theta), dt, method="foh")
        b, a = ss2tf(ad, bd, cd, dd)
        return lfilter(np.ravel(b), a, u)


G1_STRUCTURE = LagStructure(3)
"""K/(s(1+λ1 s)(1+λ2 s)(1+λ3 s)), valve command X → rod position Y (27)."""
G2_STRUCTURE = LagStructure(1)
"""K′/(s(1+λ′ s)), external force F_ext → rod position Y (28)."""
NAMES = {G1_STRUCTURE: "G1", G2_STRUCTURE: "G2"}


class Structure(Protocol):
    """What the output-error fit needs of a structure (:class:`LagStructure`,
    :class:`~.rational.RationalStructure`, :class:`~.discrete.OEStructure`): θ ↔ the fitted
    variables q, dθ/dq, bounds on q, the simulated response, the parameters a record leaves
    unresolved, and G at given frequencies."""

    n_params: int

    def names(self, prefix: str = "") -> list[str]:
        """The parameters' names in the order of θ, numbered with ``prefix``."""

    def to_free(self, theta: np.ndarray) -> np.ndarray:
        """θ → the fitted variables q."""

    def from_free(self, q: np.ndarray) -> np.ndarray:
        """q → θ."""

    def chain(self, theta: np.ndarray) -> np.ndarray:
        """dθ/dq per parameter at θ."""

    def bounds(self, n_samples: int, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) bounds on q for a record of ``n_samples`` every ``dt`` [s]."""

    def simulate(self, theta: np.ndarray, u: np.ndarray, dt: float) -> np.ndarray:
        """The response to samples ``u`` every ``dt`` [s] from rest."""

    def unresolved(self, theta: np.ndarray, dt: float) -> np.ndarray:
        """True for the parameters the record bounds but does not measure."""

    def frequency_response(self, theta: np.ndarray, omega: np.ndarray, dt: float) -> np.ndarray:
        """G at angular frequencies ``omega`` [rad/s] (discrete ones at e^{jωΔt})."""


@dataclass
class TransferFunctionFit:
    """Result of :func:`fit_transfer_functions`: per input channel the structure and its
    parameters (K in output/input units [·s⁻¹ with an integrator], λ [s], …) with standard errors;
    ``fit_percent`` NRMSE fit [%]; ``y_model`` the simulated output; ``cost`` ½‖y − ŷ‖²;
    ``nfev``; ``wall_time_s``; ``correlation_lags``: the order of the residual's autoregressive
    model that the standard errors account for (0: white residuals); ``white_std_errors``: what
    the formula that takes the residuals as white would give, for comparison; ``covariance``: of
    all parameters in θ, channel after channel (rows and columns of unresolved ones are NaN)."""

    structures: tuple[Structure, ...]
    params: tuple[np.ndarray, ...]
    std_errors: tuple[np.ndarray, ...]
    fit_percent: float
    y_model: np.ndarray
    cost: float
    nfev: int
    wall_time_s: float
    correlation_lags: int = 0
    white_std_errors: tuple[np.ndarray, ...] = ()
    covariance: np.ndarray | None = None

    def table(self) -> list[dict]:
        """Rows ``name``, ``value``, ``std_error``, ``ci95_low``, ``ci95_high`` (channels numbered from 1)."""
        rows = []
        for j, (structure, theta, std) in enumerate(zip(self.structures, self.params, self.std_errors)):
            for name, value, err in zip(structure.names(f"{j + 1}"), theta, std):
                rows.append(
                    {
                        "name": name,
                        "value": float(value),
                        "std_error": float(err),
                        "ci95_low": float(value - Z95 * err),
                        "ci95_high": float(value + Z95 * err),
                    }
                )
        return rows

    def simulate(self, inputs: np.ndarray, dt: float) -> np.ndarray:
        """The fitted model's response to ``inputs`` (n,) or (n, channels) from rest."""
        u = np.asarray(inputs, float).reshape(len(inputs), -1)
        return sum(s.simulate(theta, u[:, j], dt) for j, (s, theta) in enumerate(zip(self.structures, self.params)))


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


def starting_values(structures: Sequence[Structure], inputs: np.ndarray, y: np.ndarray, dt: float) -> list[np.ndarray]:
    """θ per channel: the lag structures together by :func:`initial_guess`, every other one from
    its own ``initial`` on the whole output (exact for one input; a start for several)."""
    lags = [j for j, s in enumerate(structures) if isinstance(s, LagStructure)]
    guesses: dict[int, np.ndarray] = {}
    if lags:
        guesses.update(zip(lags, initial_guess([structures[j] for j in lags], inputs[:, lags], y, dt)))
    for j, structure in enumerate(structures):
        if j not in guesses:
            guesses[j] = structure.initial(inputs[:, j], y, dt)
    return [guesses[j] for j in range(len(structures))]


def fit_transfer_functions(
    t: np.ndarray,
    inputs: np.ndarray,
    y: np.ndarray,
    structures: Sequence[Structure] = (G1_STRUCTURE,),
    initial: Sequence[np.ndarray] | None = None,
    names: Sequence[str] | None = None,
) -> TransferFunctionFit:
    """Output-error fit of y ≈ Σ_j G_j(θ_j) u_j on a uniform grid ``t`` [s]; an
    :class:`~.discrete.ARXStructure` (one input) is fitted by least squares on its equation error.

    inputs: shape (n,) or (n, n_inputs), one column per structure; y: (n,) output from rest
    (y[0] and the inputs before t[0] are taken as 0: subtract an operating point first).
    initial: optional θ per channel, else :func:`starting_values`; names: the inputs' names
    for messages.

    Raises ``ParameterError`` for data that cannot identify the structures: fewer than
    ``MIN_SAMPLES_PER_PARAMETER`` samples per parameter, an input that is zero throughout (no
    excitation), or a Jacobian at the optimum of lower rank than the parameters (naming the
    parameter that the data leave undetermined) — rather than returning the initial guess. A lag
    that the fit drives below the sample period is not resolved by the record: it is kept, with
    standard error NaN (below ``LAG_RESOLUTION`` of the sample period).
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
    if not (np.all(np.isfinite(u)) and np.all(np.isfinite(y))):
        raise ParameterError("inputs and output must be finite")
    names = list(names) if names is not None else [f"input {j + 1}" for j in range(len(structures))]
    n_params = sum(s.n_params for s in structures)
    if t.size < MIN_SAMPLES_PER_PARAMETER * n_params:
        raise ParameterError(
            f"{t.size} samples cannot identify {n_params} parameters; log at least "
            f"{MIN_SAMPLES_PER_PARAMETER * n_params} ({MIN_SAMPLES_PER_PARAMETER} per parameter)"
        )
    dt = float(t[1] - t[0])
    if dt <= 0.0 or not np.allclose(np.diff(t), dt, rtol=1e-6):
        raise ParameterError("t must be a uniform increasing grid")
    silent = [name for name, column in zip(names, u.T) if not np.any(column)]
    if silent:
        raise ParameterError(
            f"input {', '.join(silent)} is zero throughout: no excitation to identify its "
            "transfer function from; log a record in which it moves (a step, pulse or chirp)"
        )
    if not np.any(y):
        raise ParameterError(
            "the output does not respond (it stays at its first sample throughout): there is no "
            "response to fit; check the output column and that the record covers the motion"
        )
    if any(isinstance(s, ARXStructure) for s in structures) and len(structures) > 1:
        raise ParameterError("an arx structure fits one input: give one --input, or use oe(nb,nf,nk) for several")
    start = time.perf_counter()
    try:
        with np.errstate(over="raise", invalid="raise"):
            return _fit(t, u, y, dt, structures, initial, names, start)
    except (np.linalg.LinAlgError, FloatingPointError, ValueError) as error:
        if isinstance(error, ParameterError):
            raise
        largest = max(float(np.max(np.abs(u))), float(np.max(np.abs(y))))
        raise ParameterError(
            f"the fit failed numerically ({error}); the record holds values up to {largest:.3g}: "
            "check the columns' units and scale, or remove the outlying rows"
        ) from None


def _fit(t, u, y, dt, structures, initial, names, start) -> TransferFunctionFit:
    """The fit itself (``fit_transfer_functions`` has checked the data)."""
    if isinstance(structures[0], ARXStructure):
        theta, residual, jac = fit_arx(structures[0], u[:, 0], y)
        thetas, nfev = [theta], 1
    else:
        thetas, residual, jac, nfev = _output_error(u, y, dt, structures, initial)
    sizes = [s.n_params for s in structures]
    splits = np.cumsum(sizes)[:-1]
    unresolved = np.concatenate([s.unresolved(th, dt) for s, th in zip(structures, thetas)])
    _refuse_undetermined(jac[:, ~unresolved], [lab for lab, u in zip(_labels(structures, names), unresolved) if not u])
    cov, lags = output_error_covariance(jac, residual)
    white = np.sqrt(np.maximum(np.diag(output_error_covariance(jac, residual, 0)[0]), 0.0))
    cov[unresolved, :] = np.nan  # a lag far below the sample period: the record bounds it, it does not measure it
    cov[:, unresolved] = np.nan
    std = np.sqrt(np.maximum(np.diag(cov), 0.0))
    white[unresolved] = np.nan
    y_model = sum(s.simulate(theta, u[:, j], dt) for j, (s, theta) in enumerate(zip(structures, thetas)))
    return TransferFunctionFit(
        structures,
        tuple(thetas),
        tuple(np.split(std, splits)),
        nrmse_fit(y, y_model),
        y_model,
        0.5 * float(np.sum((y - y_model) ** 2)),
        nfev,
        time.perf_counter() - start,
        lags,
        tuple(np.split(white, splits)),
        cov,
    )


def _output_error(u, y, dt, structures, initial):
    """(θ per channel, residual y − ŷ, Jacobian of the residual in θ, evaluations) of the
    output-error least squares in the structures' free variables."""
    guesses = starting_values(structures, u, y, dt) if initial is None else [np.asarray(g, float) for g in initial]
    splits = np.cumsum([s.n_params for s in structures])[:-1]
    scale_y = max(float(np.std(y)), 1e-300)

    def unpack(q: np.ndarray) -> list[np.ndarray]:
        return [s.from_free(p) for s, p in zip(structures, np.split(q, splits))]

    def model(q: np.ndarray) -> np.ndarray:
        return sum(s.simulate(theta, u[:, j], dt) for j, (s, theta) in enumerate(zip(structures, unpack(q))))

    def residual(q: np.ndarray) -> np.ndarray:
        """(ŷ − y)/std(y); inf where the simulation at q breaks down (module docstring)."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            try:
                r = (model(q) - y) / scale_y
            except (np.linalg.LinAlgError, ValueError):
                return np.full(y.size, np.inf)
        return r if np.all(np.isfinite(r)) else np.full(y.size, np.inf)

    q0 = np.concatenate([s.to_free(g) for s, g in zip(structures, guesses)])
    low, high = (np.concatenate(b) for b in zip(*(s.bounds(y.size, dt) for s in structures)))
    q0 = np.clip(q0, low, high)
    bounded = np.any(np.isfinite(low) | np.isfinite(high))
    sol = least_squares(
        residual,
        q0,
        jac="3-point",
        x_scale="jac",
        method="trf",
        xtol=1e-12,
        ftol=1e-12,
        bounds=(low, high) if bounded else (-np.inf, np.inf),
    )
    thetas = unpack(sol.x)
    chain = np.concatenate([s.chain(th) for s, th in zip(structures, thetas)])
    # the residual y − ŷ's Jacobian in θ: ∂r/∂θ = −scale · ∂((ŷ − y)/scale)/∂q / (dθ/dq)
    return thetas, y - model(sol.x), -sol.jac * scale_y / chain, int(sol.nfev)


def _labels(structures: Sequence[Structure], names: Sequence[str]) -> list[str]:
    return [f"{name} {label}" for name, s in zip(names, structures) for label in s.names()]


def _refuse_undetermined(jac: np.ndarray, labels: list[str]) -> None:
    """Raise if the Jacobian (in θ; columns ``labels``) at the optimum has a direction the data
    do not see: a zero column, or a smallest singular value of the column-scaled Jacobian below
    RANK_TOLERANCE of the largest. Lags below the sample period are left out by the caller:
    the record resolves them as "far shorter than a sample", which is reported, not refused."""
    norms = np.linalg.norm(jac, axis=0)
    if norms.size == 0:
        return
    if norms.min() == 0.0:
        worst, condition = int(np.argmin(norms)), "no sensitivity to it"
    else:
        _, singular, vt = np.linalg.svd(jac / norms, full_matrices=False)
        if singular[-1] > RANK_TOLERANCE * singular[0]:
            return
        worst = int(np.argmax(np.abs(vt[-1])))
        condition = f"condition {singular[0] / singular[-1]:.3g}" if singular[-1] > 0.0 else "a singular Jacobian"
    raise ParameterError(
        f"the record does not determine {labels[worst]} (the output error has {condition}); "
        "excite the input over more frequencies (a chirp) or fit a structure with fewer parameters"
    )


def interval_coverage(
    structure: LagStructure,
    truth: np.ndarray,
    u: np.ndarray,
    dt: float,
    noise: float,
    correlation: float,
    realisations: int,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """How often the 95 % intervals of a fit contain ``truth`` (per parameter) over
    ``realisations`` records of ``structure``'s response to ``u`` plus AR(1) noise of std
    ``noise`` and lag-one ``correlation``: (these intervals, the white-noise formula's)."""
    from scipy.signal import lfilter

    y = structure.simulate(np.asarray(truth, float), u, dt)
    t = np.arange(len(u)) * dt
    hits = np.zeros(structure.n_params)
    white = np.zeros(structure.n_params)
    for r in range(realisations):
        e = lfilter([1.0], [1.0, -correlation], np.random.default_rng([seed, r]).standard_normal(len(u)))
        fit = fit_transfer_functions(t, u, y + noise * e / e.std(), [structure])
        error = np.abs(fit.params[0] - truth)
        hits += error <= Z95 * fit.std_errors[0]
        white += error <= Z95 * fit.white_std_errors[0]
    return hits / realisations, white / realisations


MIN_SAMPLES_PER_PARAMETER = 10
"""Samples per fitted parameter below which a record is refused as too short to identify it."""
LAG_RESOLUTION = 0.1
"""A fitted lag below this fraction of the sample period is not resolved by the record (std NaN)."""
RANK_TOLERANCE = 1e-9
"""Smallest singular value, relative to the largest, of the column-scaled Jacobian at the optimum
that still counts as determined (below it a parameter is not identified by the data)."""

PAPER_G1 = np.array([115.4, 1.14e-3, 1.14e-3, 1.11e-3])
"""(K [1/s], λ1, λ2, λ3 [s]) of (27), Alfayad et al. §3.12."""
PAPER_G2 = np.array([6.3e-4, 0.43e-6])
"""(K′, λ′ [s]) of (28); the paper states no unit for K′."""

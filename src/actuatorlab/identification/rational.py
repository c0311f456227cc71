"""Continuous-time transfer functions of any order: poles (complex allowed), zeros, an optional
integrator and an optional input delay, for the output-error fit of
:func:`~actuatorlab.identification.transfer_function.fit_transfer_functions`.

.. math::
    G(s) = \\frac{K\\,(1 + c_1 s + … + c_m s^m)\\,e^{-τ s}}
                {s^{i}\\,\\prod_k \\left(\\frac{s^2}{ω_k^2} + \\frac{2ζ_k s}{ω_k} + 1\\right)
                 \\,(1 + λ s)^{n \\bmod 2}}

``n`` stable poles in ⌊n/2⌋ second-order sections (natural frequency ω_k [rad/s], damping
ζ_k [-]; ζ_k ≥ 1 is a pair of real poles) and, for odd n, one first-order lag λ [s]; ``m ≤ n``
zeros; K the static gain (per second with the integrator, i = 1); τ ≥ 0 [s] the input delay.
ω, ζ and λ are fitted through their logarithms, so every pole stays in the left half-plane.

Simulation (exact for inputs linear between samples, as
:class:`~.transfer_function.LagStructure`'s): the sections in series as a state space with unit
static gain per section (states y_k and ẏ_k/ω_k: well scaled for poles decades apart), the
numerator as the output row Σ c_j C A^j (the chain's relative degree is n, so C A^{j−1} B = 0 for
j < n and only c_n adds a feedthrough), then the integrator; discretised with a first-order hold
and filtered by ``lfilter``. The delay shifts the input by τ, interpolated between samples by a
cubic (:func:`delayed`).

Starting values (:meth:`RationalStructure.initial`): the poles of a discrete model of the
record, estimated by instrumental variables (:func:`~actuatorlab.identification.discrete.iv_arx`,
noise-free instruments, so output noise does not bias them) and refined as an output-error model
(:func:`~actuatorlab.identification.discrete.refined_oe`), mapped by s = ln z / Δt, the
integrator's pole taken out, unstable ones reflected; of the structure's order, or the slowest
poles of a model two orders higher, whichever leaves the smaller residual; a whole number of
samples of delay chosen by the ARX model's loss; then the gain and zeros by linear least squares
on the responses of s^j / D(s). Reading: the numerator's normalisation 1 + c₁s + … puts the static gain in K, as the
papers' K/(s(1+λs)…) do; a system without static gain (a differentiator) cannot be written so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.signal import cont2discrete, lfilter, ss2tf

from ..errors import ParameterError
from .discrete import iv_arx, refined_oe

MAX_POLES = 8
"""Highest number of poles (besides an integrator) a structure may have."""
DAMPING_RANGE = (1e-3, 1e3)
"""Bounds of a section's damping ζ during a fit."""
LOG_LIMIT = 40.0
"""Fitted logarithms are clipped to ±LOG_LIMIT (e^40 ≈ 2e17) so a trial step cannot overflow."""


@dataclass(frozen=True)
class RationalStructure:
    """``n_poles`` stable poles, ``n_zeros`` zeros (≤ n_poles), an optional integrator and an
    optional input delay; parameters ordered (K, c_1 … c_m, ω_1, ζ_1, …, [λ], [τ])."""

    n_poles: int
    n_zeros: int = 0
    integrator: bool = False
    delay: bool = False

    def __post_init__(self) -> None:
        if not (isinstance(self.n_poles, int) and 0 <= self.n_poles <= MAX_POLES):
            raise ParameterError(f"{self.n_poles!r} poles: give an integer in 0 … {MAX_POLES}")
        if not (isinstance(self.n_zeros, int) and 0 <= self.n_zeros <= self.n_poles):
            raise ParameterError(
                f"{self.n_zeros!r} zeros with {self.n_poles} poles: give at most as many zeros as poles "
                "(a transfer function with more zeros than poles is not proper)"
            )
        if self.n_poles == 0 and not self.integrator:
            raise ParameterError("a structure needs at least one pole or the integrator (0p0z is a pure gain)")

    def __str__(self) -> str:
        return f"{'I+' if self.integrator else ''}{self.n_poles}p{self.n_zeros}z{'+d' if self.delay else ''}"

    @property
    def n_pairs(self) -> int:
        """The number of second-order sections, ⌊n/2⌋."""
        return self.n_poles // 2

    @property
    def n_params(self) -> int:
        """K, the zeros' coefficients, two per section, the odd lag and the delay."""
        return 1 + self.n_zeros + 2 * self.n_pairs + self.n_poles % 2 + int(self.delay)

    def names(self, prefix: str = "") -> list[str]:
        """Parameter names in the order of θ: ``K``, ``c_j``, ``wn_k``, ``zeta_k``, ``lambda``, ``delay``."""
        names = [f"K{prefix}"] + [f"c{prefix}_{j + 1}" for j in range(self.n_zeros)]
        for k in range(self.n_pairs):
            names += [f"wn{prefix}_{k + 1}", f"zeta{prefix}_{k + 1}"]
        names += [f"lambda{prefix}"] * (self.n_poles % 2) + [f"delay{prefix}"] * int(self.delay)
        return names

    def _logged(self) -> np.ndarray:
        """True for the parameters fitted through their logarithm (ω, ζ, λ)."""
        mask = np.zeros(self.n_params, bool)
        mask[1 + self.n_zeros : 1 + self.n_zeros + 2 * self.n_pairs + self.n_poles % 2] = True
        return mask

    def to_free(self, theta: np.ndarray) -> np.ndarray:
        """θ → the fitted variables q (logarithms of ω, ζ, λ)."""
        q = np.array(theta, float)
        logged = self._logged()
        q[logged] = np.log(np.maximum(q[logged], 1e-300))
        return q

    def from_free(self, q: np.ndarray) -> np.ndarray:
        """q → θ."""
        theta = np.array(q, float)
        logged = self._logged()
        theta[logged] = np.exp(np.clip(theta[logged], -LOG_LIMIT, LOG_LIMIT))
        return theta

    def chain(self, theta: np.ndarray) -> np.ndarray:
        """dθ/dq per parameter (θ for the logged ones, 1 otherwise)."""
        return np.where(self._logged(), theta, 1.0)

    def bounds(self, n_samples: int, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """Bounds on q: each damping in ``DAMPING_RANGE`` (a pair driven to ζ → 0 would sit on
        the imaginary axis, its ζ unmeasurable), the delay in [0, a quarter of the record]."""
        low, high = np.full(self.n_params, -np.inf), np.full(self.n_params, np.inf)
        zetas = 2 + self.n_zeros + 2 * np.arange(self.n_pairs)
        low[zetas], high[zetas] = np.log(DAMPING_RANGE)
        if self.delay:
            low[-1], high[-1] = 0.0, 0.25 * n_samples * dt
        return low, high

    def unresolved(self, theta: np.ndarray, dt: float) -> np.ndarray:
        """Poles far beyond the sampling (faster than 10/Δt, λ < Δt/10, as the lags of
        :class:`~.transfer_function.LagStructure`): bounded by the record, not measured by it
        (standard errors reported as n/a). A section is so when its faster pole is (|s| = ω, or
        ω (ζ + √(ζ² − 1)) for ζ > 1: then it is a slow lag with an unresolved partner, its ω and
        ζ not measured apart), or when its damping ends on a bound of ``DAMPING_RANGE``."""
        mask = np.zeros(self.n_params, bool)
        start = 1 + self.n_zeros
        for k in range(self.n_pairs):
            omega, zeta = theta[start + 2 * k], theta[start + 2 * k + 1]
            fastest = omega * (zeta + np.sqrt(zeta * zeta - 1.0)) if zeta > 1.0 else omega  # the larger |pole|
            bounded = not DAMPING_RANGE[0] * 1.001 < zeta < DAMPING_RANGE[1] / 1.001
            mask[start + 2 * k : start + 2 * k + 2] = fastest > 10.0 / dt or bounded
        if self.n_poles % 2:
            index = start + 2 * self.n_pairs
            mask[index] = theta[index] < 0.1 * dt
        return mask

    def split(self, theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray, float]:
        """(K, c_1…c_m, ω per section, ζ per section, λ (empty or one), τ) of θ."""
        theta = np.asarray(theta, float)
        m, p = self.n_zeros, self.n_pairs
        sections = theta[1 + m : 1 + m + 2 * p]
        lag = theta[1 + m + 2 * p : 1 + m + 2 * p + self.n_poles % 2]
        return theta[0], theta[1 : 1 + m], sections[0::2], sections[1::2], lag, (theta[-1] if self.delay else 0.0)

    def state_space(self, theta: np.ndarray, numerator: np.ndarray | None = None):
        """(A, B, C, D) of the structure without its delay (module docstring); ``numerator``
        b_0 … b_m replaces K (1, c_1 … c_m) (the basis responses of the starting values)."""
        k, c, omega, zeta, lag, _ = self.split(theta)
        b = k * np.concatenate([[1.0], c]) if numerator is None else np.asarray(numerator, float)
        n = self.n_poles
        a, inlet = np.zeros((n, n)), np.zeros((n, 1))
        out = np.zeros((1, n))
        row = 0
        for w, z in zip(omega, zeta):
            if row:
                a[row + 1, row - 2] = w  # the previous section's output drives this one
            else:
                inlet[1, 0] = w
            a[row, row + 1] = w
            a[row + 1, row] = -w
            a[row + 1, row + 1] = -2.0 * z * w
            row += 2
        if lag.size:
            a[row, row] = -1.0 / lag[0]
            if row:
                a[row, row - 2] = 1.0 / lag[0]
            else:
                inlet[0, 0] = 1.0 / lag[0]
            row += 1
        last = n - 1 if lag.size else n - 2
        if n:
            out[0, last] = 1.0
        powers = [out]
        for _ in range(b.size - 1):
            powers.append(powers[-1] @ a)
        c_row = sum(coefficient * power for coefficient, power in zip(b, powers))
        feed = b[n] * (powers[n - 1] @ inlet).item() if n and b.size == n + 1 else 0.0
        if n == 0:
            c_row, feed = np.zeros((1, 0)), float(b[0])
        if not self.integrator:
            return a, inlet, c_row, np.array([[feed]])
        big = np.zeros((n + 1, n + 1))
        big[:n, :n] = a
        big[n, :n] = c_row[0]
        gate = np.zeros((n + 1, 1))
        gate[:n] = inlet
        gate[n, 0] = feed
        final = np.zeros((1, n + 1))
        final[0, n] = 1.0
        return big, gate, final, np.zeros((1, 1))

    def simulate(self, theta: np.ndarray, u: np.ndarray, dt: float, numerator: np.ndarray | None = None) -> np.ndarray:
        """Response to samples ``u`` every ``dt`` [s] from rest (inputs linear between samples)."""
        u = np.asarray(u, float)
        if self.delay:
            u = delayed(u, self.split(theta)[5] / dt)
        ad, bd, cd, dd, _ = cont2discrete(self.state_space(theta, numerator), dt, method="foh")
        num, den = ss2tf(ad, bd, cd, dd)
        return lfilter(np.ravel(num), den, u)

    def frequency_response(self, theta: np.ndarray, omega: np.ndarray, dt: float = 0.0) -> np.ndarray:
        """G(jω) at angular frequencies ``omega`` [rad/s], evaluated factor by factor."""
        k, c, wn, zeta, lag, tau = self.split(theta)
        s = 1j * np.asarray(omega, float)
        response = k * np.polyval(np.concatenate([c[::-1], [1.0]]), s) * np.exp(-tau * s)
        for w, z in zip(wn, zeta):
            response = response / ((s / w) ** 2 + 2.0 * z * s / w + 1.0)
        for lam in lag:
            response = response / (1.0 + lam * s)
        return response / s if self.integrator else response

    def initial(self, u: np.ndarray, y: np.ndarray, dt: float) -> np.ndarray:
        """Starting θ from the record (module docstring): the better, by the residual after its
        gain and zeros, of the poles of a discrete model of the structure's order and the slowest
        of one two orders higher (a structure below the record's order then keeps its dominant
        poles, a resonance, rather than the ones a too-small model averages into)."""
        u, y = np.asarray(u, float), np.asarray(y, float)
        order = self.n_poles + int(self.integrator)
        delays = range(0, max(1, min(u.size // 20, 50))) if self.delay else [0]
        best = None
        for nk in delays:
            a, b, loss = iv_arx(y, u, order, order + 1, nk)
            if best is None or loss < best[0]:
                best = (loss, a, b, nk)
        _, a, b, nk = best
        starts = []
        for extra in (0, 2) if self.n_poles else (0,):
            if extra:
                a, b, _ = iv_arx(y, u, order + extra, order + extra + 1, nk)
            poles = _continuous_poles(np.roots(refined_oe(y, u, a, b, nk)[0]), dt)
            poles = poles[np.argsort(np.abs(poles))][:order]
            if self.integrator:
                poles = _without_integrator(poles)
            starts.append(self._with_numerator(poles, nk, u, y, dt))
        return min(starts, key=lambda start: start[1])[0]

    def _with_numerator(self, poles: np.ndarray, nk: int, u: np.ndarray, y: np.ndarray, dt: float):
        """(θ with these poles and delay, the gain and zeros by least squares; its squared residual)."""
        omega, zeta, lag = _sections(poles, self.n_pairs, self.n_poles % 2, dt)
        theta = np.concatenate([[1.0], np.zeros(self.n_zeros), np.column_stack([omega, zeta]).ravel(), lag])
        if self.delay:
            theta = np.append(theta, nk * dt)
        basis = np.column_stack(
            [self.simulate(theta, u, dt, np.eye(self.n_zeros + 1)[j]) for j in range(self.n_zeros + 1)]
        )
        b, *_ = np.linalg.lstsq(basis, y, rcond=None)
        gain = b[0] if abs(b[0]) > 1e-12 * np.max(np.abs(b)) else (b[0] or 1.0)
        theta[0] = gain
        theta[1 : 1 + self.n_zeros] = b[1:] / gain
        return theta, float(np.sum((basis @ b - y) ** 2))


def delayed(u: np.ndarray, shift: float) -> np.ndarray:
    """u(t − shift·Δt) on the sample grid: the samples interpolated by the Catmull–Rom cubic
    through the four nearest (zero before the record, the last sample held after it), which
    passes through the samples and is C¹ in the shift, so the fit's derivative in the delay
    exists everywhere (linear interpolation's kinks at whole samples stall it there)."""
    whole = int(np.floor(shift))
    g = 1.0 - (shift - whole)
    right = np.arange(u.size) - whole
    padded = np.concatenate([np.zeros(3), u, u[-1:]])

    def at(index: np.ndarray) -> np.ndarray:
        return padded[np.clip(index, -3, u.size) + 3]

    p0, p1, p2, p3 = at(right - 2), at(right - 1), at(right), at(right + 1)
    return 0.5 * (
        2.0 * p1 + (p2 - p0) * g + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * g**2 + (3.0 * (p1 - p2) + p3 - p0) * g**3
    )


def _continuous_poles(z: np.ndarray, dt: float) -> np.ndarray:
    """s = ln z / Δt of discrete poles, reflected into the left half-plane (a starting value)."""
    s = np.log(np.where(np.abs(z) > 0.0, z, 1e-12).astype(complex)) / dt
    return np.where(s.real < 0.0, s, -np.abs(s.real) - 1e-6 / dt + 1j * s.imag)


def _without_integrator(poles: np.ndarray) -> np.ndarray:
    """The poles without the one nearest s = 0 (its conjugate, if complex, becomes real)."""
    nearest = int(np.argmin(np.abs(poles)))
    rest = np.delete(poles, nearest)
    if abs(poles[nearest].imag) > 0.0:
        partner = int(np.argmin(np.abs(rest - np.conj(poles[nearest]))))
        rest[partner] = -abs(rest[partner])
    return rest


def _sections(poles: np.ndarray, n_pairs: int, n_lags: int, dt: float):
    """(ω, ζ, λ) of ``n_pairs`` sections and ``n_lags`` (0 or 1) lag from poles s (upper
    half-plane of each complex pair, real ones paired by size; the odd lag the fastest real)."""
    upper = [p for p in poles if p.imag > 1e-9 * abs(p)]
    real = sorted((-abs(p) for p in poles if abs(p.imag) <= 1e-9 * abs(p)), key=abs)
    lag = []
    if n_lags:
        lag = [-1.0 / real.pop()] if real else [-1.0 / min(upper, key=abs).real]
    pairs = [(abs(p), -p.real / abs(p)) for p in upper]
    while len(real) >= 2:
        s1, s2 = real.pop(0), real.pop(0)
        w = np.sqrt(s1 * s2)
        pairs.append((w, -(s1 + s2) / (2.0 * w)))
    pairs = sorted(pairs)[:n_pairs]
    while len(pairs) < n_pairs:  # too few poles came out (an integrator stood in): spread them
        pairs.append((np.pi / dt / 10.0 ** (len(pairs) + 1), 0.7))
    limit = np.pi / dt * 1e3
    omega = np.clip([w for w, _ in pairs], 1e-6, limit)
    zeta = np.clip([z for _, z in pairs], 1e-3, 1e3)
    return omega, zeta, np.clip(lag, dt / 1e3, 1e6)

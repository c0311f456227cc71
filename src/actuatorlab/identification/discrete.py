"""Discrete-time polynomial models on the sample grid (Ljung, *System Identification*, 2nd ed.,
1999, ch. 4 and 7; the structures and names of MATLAB's ``arx`` and ``oe``):

- ARX(na, nb, nk): A(q) y(t) = B(q) u(t − nk) + e(t), fitted by linear least squares on the
  equation error (:func:`fit_arx`); biased when the noise is on the output, not in the equation.
- OE(nb, nf, nk): y(t) = B(q)/F(q) u(t − nk) + e(t), fitted by output error like the
  continuous structures (its θ = (b_1 … b_nb, f_1 … f_nf)).

with A(q) = 1 + a_1 q⁻¹ + … + a_na q⁻ⁿᵃ, B(q) = b_1 + b_2 q⁻¹ + … + b_nb q⁻ⁿᵇ⁺¹,
F(q) = 1 + f_1 q⁻¹ + … + f_nf q⁻ⁿᶠ, q⁻¹ the one-sample delay.

Instrumental variables (:func:`iv_arx`, the starting values of every higher-order structure):
the least-squares ARX estimate, then twice θ = (ZᵀΦ)⁻¹ Zᵀ y with instruments Z built from the
current model's noise-free simulated output instead of the measured one (Ljung §7.6, the
"IV4"-like bootstrap without prefilter): uncorrelated with output noise, so the poles it gives
are consistent where least squares' are not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares
from scipy.signal import lfilter

from ..errors import ParameterError

MAX_ORDER = 20
"""Highest polynomial order (na, nb, nf) and delay nk accepted."""


def _regressors(y: np.ndarray, u: np.ndarray, na: int, nb: int, nk: int) -> tuple[np.ndarray, int]:
    """(Φ, first row t₀): rows [−y(t−1) … −y(t−na), u(t−nk) … u(t−nk−nb+1)] for t ≥ t₀."""
    start = max(na, nk + nb - 1, 1)
    n = y.size
    columns = [-y[start - k : n - k] for k in range(1, na + 1)]
    columns += [u[start - nk - j : n - nk - j] for j in range(nb)]
    return np.column_stack(columns), start


def iv_arx(y: np.ndarray, u: np.ndarray, na: int, nb: int, nk: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(A = [1, a_1 … a_na], B = [b_1 … b_nb], mean squared equation error of the least-squares
    estimate) of ARX(na, nb, nk) by instrumental variables (module docstring); A's roots outside
    the unit circle are reflected into it (:func:`stabilised`), so the model can be simulated."""
    phi, start = _regressors(y, u, na, nb, nk)
    target = y[start:]
    theta = np.linalg.lstsq(phi, target, rcond=None)[0]
    loss = float(np.mean((target - phi @ theta) ** 2))
    for _ in range(2):
        a = stabilised(np.concatenate([[1.0], theta[:na]]))
        simulated = lfilter(np.concatenate([np.zeros(nk), theta[na:]]), a, u)
        instruments, _ = _regressors(simulated, u, na, nb, nk)
        try:
            theta = np.linalg.solve(instruments.T @ phi, instruments.T @ target)
        except np.linalg.LinAlgError:
            break
    return stabilised(np.concatenate([[1.0], theta[:na]])), theta[na:], loss


def refined_oe(y: np.ndarray, u: np.ndarray, a: np.ndarray, b: np.ndarray, nk: int) -> tuple[np.ndarray, np.ndarray]:
    """(F = [1, f_1 …], B) of OE(len(b), len(a) − 1, nk) by output error from the start (a, b):
    the poles a higher-order continuous structure starts from, which instrumental variables
    alone leave far off on a lightly damped record. The start is returned if the fit breaks down."""
    na = a.size - 1

    def residual(theta: np.ndarray) -> np.ndarray:
        r = lfilter(np.concatenate([np.zeros(nk), theta[na:]]), np.concatenate([[1.0], theta[:na]]), u) - y
        return r if np.all(np.isfinite(r)) else np.full(y.size, np.inf)

    start = np.concatenate([a[1:], b])
    with np.errstate(all="ignore"):
        try:
            theta = least_squares(residual, start, x_scale="jac", max_nfev=100 * start.size).x
        except (ValueError, np.linalg.LinAlgError):
            theta = start
    return stabilised(np.concatenate([[1.0], theta[:na]])), theta[na:]


def stabilised(a: np.ndarray) -> np.ndarray:
    """The monic polynomial ``a`` (in q⁻¹) with each root z on or outside the unit circle
    replaced by 0.999/z̄ (same frequency, mirrored damping; MATLAB's ``polystab``)."""
    roots = np.roots(a)
    outside = np.abs(roots) >= 1.0
    if not np.any(outside):
        return np.asarray(a, float)
    roots[outside] = 0.999 / np.conj(roots[outside])
    return np.real(np.poly(roots))


def check_orders(structure, orders: dict[str, int]) -> None:
    """Refuse an order outside 0 … ``MAX_ORDER`` (``nb`` ≥ 1: a model needs an input term)."""
    for name, value in orders.items():
        low = 1 if name == "nb" else 0
        if not (isinstance(value, int) and low <= value <= MAX_ORDER):
            raise ParameterError(f"{structure}: {name} = {value!r} must be an integer in {low} … {MAX_ORDER}")


class _Polynomial:
    """What the discrete structures share: θ holds the coefficients of two polynomials, the
    orders ``ORDERS`` (field names, in θ's order; their first letters name the coefficients),
    fitted as they are (no transform), and an input delay ``nk``; a structure says which part of
    θ is the numerator B and which the denominator (``_split``)."""

    KIND = ""
    ORDERS: tuple[str, str] = ("", "")

    def _check(self) -> None:
        check_orders(self, {name: getattr(self, name) for name in (*self.ORDERS, "nk")})

    def __str__(self) -> str:
        first, second = (getattr(self, name) for name in self.ORDERS)
        return f"{self.KIND}({first},{second},{self.nk})"

    @property
    def n_params(self) -> int:
        """The sum of the two orders."""
        return sum(getattr(self, name) for name in self.ORDERS)

    def names(self, prefix: str = "") -> list[str]:
        """The coefficients in θ's order, ``a_1`` … ``a_na`` and so on, numbered with ``prefix``."""
        return [f"{name[1]}{prefix}_{k + 1}" for name in self.ORDERS for k in range(getattr(self, name))]

    def _split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(numerator B, denominator without its leading 1) of θ."""
        raise NotImplementedError

    def simulate(self, theta: np.ndarray, u: np.ndarray, dt: float) -> np.ndarray:
        """The model's simulated (not one-step predicted) output B(q)/A(q) u(t − nk) from rest."""
        b, a = self._split(theta)
        return lfilter(np.concatenate([np.zeros(self.nk), b]), np.concatenate([[1.0], a]), u)

    def frequency_response(self, theta: np.ndarray, omega: np.ndarray, dt: float) -> np.ndarray:
        """B(z⁻¹) z⁻ⁿᵏ / A(z⁻¹) at z = e^{jωΔt}, ω [rad/s]."""
        b, a = self._split(theta)
        back = np.exp(-1j * np.asarray(omega, float) * dt)
        return back**self.nk * np.polyval(b[::-1], back) / np.polyval(np.concatenate([[1.0], a])[::-1], back)

    def to_free(self, theta: np.ndarray) -> np.ndarray:
        """The coefficients are fitted as they are: q = θ."""
        return np.array(theta, float)

    def from_free(self, q: np.ndarray) -> np.ndarray:
        """θ = q."""
        return np.array(q, float)

    def chain(self, theta: np.ndarray) -> np.ndarray:
        """dθ/dq = 1."""
        return np.ones(len(theta))

    def bounds(self, n_samples: int, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """No bounds."""
        return np.full(self.n_params, -np.inf), np.full(self.n_params, np.inf)

    def unresolved(self, theta: np.ndarray, dt: float) -> np.ndarray:
        """Every coefficient is measured by the record."""
        return np.zeros(self.n_params, bool)


@dataclass(frozen=True)
class ARXStructure(_Polynomial):
    """ARX(na, nb, nk); θ = (a_1 … a_na, b_1 … b_nb)."""

    na: int
    nb: int
    nk: int = 1
    KIND = "arx"
    ORDERS = ("na", "nb")

    def __post_init__(self) -> None:
        self._check()

    def _split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return theta[self.na :], theta[: self.na]


@dataclass(frozen=True)
class OEStructure(_Polynomial):
    """OE(nb, nf, nk); θ = (b_1 … b_nb, f_1 … f_nf): B(q)/F(q) u(t − nk)."""

    nb: int
    nf: int
    nk: int = 1
    KIND = "oe"
    ORDERS = ("nb", "nf")

    def __post_init__(self) -> None:
        self._check()

    def _split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return theta[: self.nb], theta[self.nb :]

    def initial(self, u: np.ndarray, y: np.ndarray, dt: float) -> np.ndarray:
        """B and F of the instrumental-variable ARX(nf, nb, nk) model (module docstring)."""
        a, b, _ = iv_arx(np.asarray(y, float), np.asarray(u, float), self.nf, self.nb, self.nk)
        return np.concatenate([b, a[1:]])


def fit_arx(structure: ARXStructure, u: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(θ, equation error e(t), Jacobian −Φ of e in θ) of the least-squares ARX estimate."""
    phi, start = _regressors(np.asarray(y, float), np.asarray(u, float), structure.na, structure.nb, structure.nk)
    if phi.shape[0] <= phi.shape[1]:
        raise ParameterError(f"{structure}: {phi.shape[0]} usable samples cannot fit {phi.shape[1]} coefficients")
    theta = np.linalg.lstsq(phi, y[start:], rcond=None)[0]
    return theta, y[start:] - phi @ theta, -phi

"""Clarke and Park transforms of Bahari et al. (1)–(2) and their inverses (amplitude-invariant).

Convention: **amplitude-invariant** (the paper's 2/3 factor in (2)): a balanced set
v_a = V cos(θ_e + φ), v_b = V cos(θ_e − 2π/3 + φ), v_c = V cos(θ_e + 2π/3 + φ) maps to
v_d = V cos φ, v_q = V sin φ, v_0 = 0, so a dq magnitude √(v_d² + v_q²) is the phase peak value
and the three-phase power is P = (3/2)(v_d i_d + v_q i_q) (+ 3 v_0 i_0).

Angle: the Park angle is the **electrical** angle θ_e = p θ_m (p pole pairs, θ_m the rotor's
mechanical angle [rad]). The paper writes θ_m in (1); for p > 1 that is only right if θ_m is read
as the electrical angle (a reading taken); use :func:`electrical_angle`.

Shapes: phase quantities have a leading axis of length 3 (``(3,)`` or ``(3, n)``), angles are
scalars or ``(n,)``; everything is vectorised with numpy.
"""

from __future__ import annotations

import numpy as np

_TWO_PI_3 = 2.0 * np.pi / 3.0


def electrical_angle(mechanical_angle, pole_pairs: int):
    """θ_e = p θ_m [rad] (the angle the Park transform needs)."""
    return pole_pairs * np.asarray(mechanical_angle, dtype=np.float64)


def clarke(abc) -> np.ndarray:
    """(α, β, 0) of phase quantities ``abc`` (3, ...): amplitude-invariant (2/3 factor)."""
    a, b, c = np.asarray(abc, dtype=np.float64)
    alpha = (2.0 * a - b - c) / 3.0
    beta = (b - c) / np.sqrt(3.0)
    zero = (a + b + c) / 3.0
    return np.stack([alpha, beta, zero])


def inverse_clarke(alpha_beta_zero) -> np.ndarray:
    """(a, b, c) of (α, β, 0) (3, ...); exact inverse of :func:`clarke`."""
    al, be, z = np.asarray(alpha_beta_zero, dtype=np.float64)
    a = al + z
    b = -0.5 * al + np.sqrt(3.0) / 2.0 * be + z
    c = -0.5 * al - np.sqrt(3.0) / 2.0 * be + z
    return np.stack([a, b, c])


def park(abc, theta_e) -> np.ndarray:
    """(d, q, 0) of phase quantities ``abc`` (3, ...) at electrical angle θ_e [rad], eq. (2):

    .. math::
        [d, q, 0]^T = \\tfrac23 \\begin{bmatrix} \\cos θ_γ & \\cos θ_δ & \\cos θ_ε \\\\
        −\\sin θ_γ & −\\sin θ_δ & −\\sin θ_ε \\\\ ½ & ½ & ½ \\end{bmatrix} [a, b, c]^T

    with θ_γ = θ_e, θ_δ = θ_e − 2π/3, θ_ε = θ_e + 2π/3 (1).
    """
    a, b, c = np.asarray(abc, dtype=np.float64)
    th = np.asarray(theta_e, dtype=np.float64)
    tg, td, te = th, th - _TWO_PI_3, th + _TWO_PI_3
    d = 2.0 / 3.0 * (np.cos(tg) * a + np.cos(td) * b + np.cos(te) * c)
    q = -2.0 / 3.0 * (np.sin(tg) * a + np.sin(td) * b + np.sin(te) * c)
    z = (a + b + c) / 3.0
    return np.stack(np.broadcast_arrays(d, q, z))


def inverse_park(dq0, theta_e) -> np.ndarray:
    """(a, b, c) of (d, q, 0) (3, ...) at electrical angle θ_e [rad]; exact inverse of :func:`park`:
    x_k = d cos θ_k − q sin θ_k + 0 for θ_k ∈ {θ_γ, θ_δ, θ_ε}."""
    d, q, z = np.asarray(dq0, dtype=np.float64)
    th = np.asarray(theta_e, dtype=np.float64)
    out = [d * np.cos(t) - q * np.sin(t) + z for t in (th, th - _TWO_PI_3, th + _TWO_PI_3)]
    return np.stack(np.broadcast_arrays(*out))

"""Rigid-body dynamics in the virtual-decomposition form (Petrović & Mattila eqs. 7–8; Zhu 2010).

For a body with frame {A}, mass m [kg], centre of mass r = ^A r_AC [m] and inertia I [kg m²]
**about the centre of mass**, expressed in {A} (using the inertia about A's origin would count
the parallel-axis term twice; the paper does not say which):

.. math::
    M_A = \\begin{bmatrix} m I_3 & -m(r\\times) \\\\ m(r\\times) & I - m(r\\times)^2 \\end{bmatrix},\\quad
    C_A(ω) = \\begin{bmatrix} m(ω\\times) & -m(ω\\times)(r\\times) \\\\
             m(r\\times)(ω\\times) & (ω\\times)I + I(ω\\times) - m(r\\times)(ω\\times)(r\\times) \\end{bmatrix},

G_A = [m ^A R_W g_W; m (r×) ^A R_W g_W] with g_W = +g on the world "up" axis (gravity is on the
left-hand side). Net force (7): F* = M_A dV/dt + C_A(ω) V + G_A; required net force (8):
F*_r = M_A dV_r/dt + C_A(ω) V_r + G_A + K_A (V_r − V), with the *measured* ω in C_A.
dV/dt is the derivative of the components of V in the moving frame {A}.

The matrices are built by ``mass_matrix`` / ``coriolis_matrix`` / ``gravity_force``; the compiled
``net_force`` evaluates the same products in fused form (m a_C at the centre of mass, moment
r × f + I dω + ω × Iω), tested against the matrices.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..numerics.spatial import skew
from ..validation import non_negative

BODY_SIZE = 13
"""Packed body: [m, r_x, r_y, r_z, I (3×3 row-major)]."""


@dataclass(frozen=True)
class RigidBody:
    """Inertial parameters of one subsystem body in its own frame {A}.

    mass [kg] (0 allowed: a massless placeholder), com ^A r_AC [m] (3,), inertia about the
    centre of mass in {A} [kg m²] (3×3, symmetric, positive semi-definite).
    """

    mass: float
    com: tuple[float, float, float] = (0.0, 0.0, 0.0)
    inertia: tuple = field(default=((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)))
    name: str = "body"

    def __post_init__(self) -> None:
        object.__setattr__(self, "mass", non_negative(f"{self.name}.mass", self.mass, "kg"))
        com = np.asarray(self.com, dtype=float)
        if com.shape != (3,) or not np.all(np.isfinite(com)):
            raise ParameterError(f"{self.name}.com = {self.com!r} m: give three finite numbers (x, y, z)")
        inertia = np.asarray(self.inertia, dtype=float)
        if inertia.shape != (3, 3) or not np.all(np.isfinite(inertia)):
            raise ParameterError(f"{self.name}.inertia = {self.inertia!r} kg m^2: give a finite 3x3 matrix")
        if not np.allclose(inertia, inertia.T, rtol=1e-9, atol=1e-12):
            raise ParameterError(f"{self.name}.inertia = {inertia.tolist()} kg m^2: must be symmetric")
        smallest = float(np.linalg.eigvalsh(inertia).min())
        if smallest < -1e-9 * max(1.0, float(np.abs(inertia).max())):
            raise ParameterError(
                f"{self.name}.inertia has eigenvalue {smallest:.3g} kg m^2 < 0: "
                "give the inertia about the centre of mass (positive semi-definite)"
            )
        object.__setattr__(self, "com", tuple(float(c) for c in com))
        object.__setattr__(self, "inertia", tuple(tuple(float(v) for v in row) for row in inertia))

    def packed(self) -> np.ndarray:
        """The body as the (13,) array the kernels use: [m, r (3), I row-major (9)]."""
        return np.concatenate(([self.mass], self.com, np.ravel(self.inertia)))


def _unpack(body):
    return body[0], body[1:4], body[4:].reshape(3, 3)


def mass_matrix(body: np.ndarray) -> np.ndarray:
    """M_A (6×6) of a packed body."""
    m, r, inertia = _unpack(np.asarray(body, dtype=float))
    rx = skew(r)
    return np.block([[m * np.eye(3), -m * rx], [m * rx, inertia - m * rx @ rx]])


def coriolis_matrix(body: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """C_A(ω) (6×6) of a packed body at angular velocity ω [rad/s]; skew-symmetric."""
    m, r, inertia = _unpack(np.asarray(body, dtype=float))
    rx, wx = skew(r), skew(np.asarray(omega, dtype=float))
    return np.block(
        [
            [m * wx, -m * wx @ rx],
            [m * rx @ wx, wx @ inertia + inertia @ wx - m * rx @ wx @ rx],
        ]
    )


def gravity_force(body: np.ndarray, rot_aw: np.ndarray, g_world: np.ndarray) -> np.ndarray:
    """G_A (6,) for ^A R_W (3×3, world components → {A}) and g_W [m/s²] pointing *up*."""
    m, r, _ = _unpack(np.asarray(body, dtype=float))
    g = m * (np.asarray(rot_aw) @ np.asarray(g_world, dtype=float))
    return np.concatenate((g, np.cross(r, g)))


@nb.njit(cache=True, inline="always")
def _cross(a, b):
    return (
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    )


@nb.njit(cache=True, inline="always")
def _inertia_times(body, w):
    return (
        body[4] * w[0] + body[5] * w[1] + body[6] * w[2],
        body[7] * w[0] + body[8] * w[1] + body[9] * w[2],
        body[10] * w[0] + body[11] * w[1] + body[12] * w[2],
    )


@nb.njit(cache=True)
def net_force_into(body, dv, v, omega, g_body, out):
    """``out`` ← M_A dv + C_A(omega) v + G_A (6,) with g_body = ^A R_W g_W [m/s²] (up, in {A}).

    Eq. (7) with ``v`` = V, ``dv`` = dV/dt and ``omega`` = ω (= v[3:]); eq. (8) without its
    K_A term with ``v`` = V_r, ``dv`` = dV_r/dt and the measured ``omega``. Fused form: the
    linear rows are m a with a = dv_lin − r×dv_ang + ω×v_lin − ω×(r×v_ang) + g; the angular
    rows are r×(m a) + I dv_ang + ω×(I v_ang) + I(ω×v_ang).
    """
    m = body[0]
    r = (body[1], body[2], body[3])
    lin = (v[0], v[1], v[2])
    ang = (v[3], v[4], v[5])
    dang = (dv[3], dv[4], dv[5])
    w = (omega[0], omega[1], omega[2])
    r_da = _cross(r, dang)
    w_l = _cross(w, lin)
    w_rw = _cross(w, _cross(r, ang))
    f = (
        m * (dv[0] - r_da[0] + w_l[0] - w_rw[0] + g_body[0]),
        m * (dv[1] - r_da[1] + w_l[1] - w_rw[1] + g_body[1]),
        m * (dv[2] - r_da[2] + w_l[2] - w_rw[2] + g_body[2]),
    )
    rf = _cross(r, f)
    i_da = _inertia_times(body, dang)
    w_ia = _cross(w, _inertia_times(body, ang))
    i_wa = _inertia_times(body, _cross(w, ang))
    for i in range(3):
        out[i] = f[i]
        out[3 + i] = rf[i] + i_da[i] + w_ia[i] + i_wa[i]


@nb.njit(cache=True)
def net_force(body, dv, v, omega, g_body):
    """``net_force_into`` returning a new (6,) array."""
    out = np.empty(6)
    net_force_into(body, dv, v, omega, g_body, out)
    return out


@nb.njit(cache=True)
def required_net_force(body, dv_r, v_r, v, gain, g_body):
    """F*_r of eq. (8): M_A dV_r/dt + C_A(ω) V_r + G_A + K_A (V_r − V), ω = v[3:] measured;
    ``gain`` is K_A (6×6, positive definite)."""
    return net_force(body, dv_r, v_r, v[3:], g_body) + gain @ (v_r - v)

"""Virtual decomposition control of a parallel–serial hydraulic manipulator (Petrović & Mattila
Sec. 4, eqs. 35–48, 70–77, 90–93).

One controller step:

1. required rates (35)–(37), one law for every coordinate: ṙ_r = ṙ_d + λ (r_d − r) with r the
   joint angle q_j (36) or the telescope stroke x_tj (37); q̈_r = q̈_d + λ (q̇_d − q̇) is its
   exact time derivative (no measured acceleration needed);
2. required velocities (38)–(48) and their time derivatives through the loop closure with the
   measured geometry (``parallel_serial_kernels.forward_pass``) — dV_r/dt is computed analytically here
   (the authors' repository differentiates numerically through an 8 Hz filter instead);
3. required net forces (8) with K_A = k_A I_6 and required forces (70)–(77) (same recursion as
   the actual forces, ``backward_pass``) giving f_cr per actuator;
4. f_pr = f_cr + f_f(ẋ_r) (friction at the required piston rate: implied by C.13, not printed);
   ḟ_pr by a filtered numerical derivative ``DerivativeFilter`` (the paper does not say how;
   the authors' repository: 2nd order, damping 1, 8 Hz, Tustin);
5. piston force control (90)/(92): u_fr = ḟ_pr/β + (k_a A_a + k_b A_b) ẋ + (k_a + k_b) Q_l
   + k_x (ẋ_r − ẋ) + k_f (f_pr − f_p) (the paper's form when there is no dead volume and no
   leakage, see ``servo_cylinder``), and the valve input (91)/(93) by the valve inverse (89).

Saturation: the input is clipped to ±u_max. While it is clipped, u_f ≠ u_fr, the term
(1/k_x) e_f (u_fr − u_f) of (C.10) no longer vanishes and the virtual-stability argument of
App. C — hence the L2/L∞ guarantee and convergence (100) — does not hold; it resumes when the
command leaves saturation (with whatever errors saturation left). The simulation reports the
fraction of saturated samples. The proof also assumes exact parameters, no spool dynamics and
no noise.

Gains: λ [1/s], k_A [N s/m on the linear rows, N m s on the angular rows], k_x [m],
k_f [m²/(N s)]; the force error obeys ė_f = −β k_f e_f − β k_x e_v on an exact model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..hydraulics.servo_cylinder import (
    C_BULK_MODULUS,
    friction_force,
    motion_term,
    piston_force,
    saturate,
    valve_inverse,
)
from ..mechanics.parallel_serial_kernels import (
    N_BODIES,
    S_COL,
    S_PRISM,
    backward_pass,
    body_net_forces,
    forward_pass,
)
from ..numerics.filters import filter_reset, filter_step
from ..validation import positive


@dataclass(frozen=True)
class VDCGains:
    """Gains per coordinate / actuator (coordinate order of the manipulator).

    lam λ [1/s] (35)–(37); body_gain k_A with K_A = k_A I_6 for every body (8); kx k_x [m] and
    kf k_f [m²/(N s)] (90)/(92); derivative_cutoff [Hz] of the ḟ_pr filter; dt controller
    sample time [s].
    """

    lam: tuple[float, ...]
    kx: tuple[float, ...]
    kf: tuple[float, ...]
    body_gain: float = 5.0
    derivative_cutoff: float = 8.0
    dt: float = 1e-3

    def __post_init__(self) -> None:
        n = len(self.lam)
        for name in ("lam", "kx", "kf"):
            values = tuple(float(v) for v in getattr(self, name))
            if len(values) != n:
                raise ParameterError(f"VDCGains.{name} has {len(values)} entries; give one per coordinate ({n})")
            for v in values:
                positive(
                    f"VDCGains.{name}",
                    v,
                    {"lam": "1/s", "kx": "m", "kf": "m^2/(N s)"}[name],
                )
            object.__setattr__(self, name, values)
        object.__setattr__(self, "body_gain", positive("VDCGains.body_gain", self.body_gain, "N s/m"))
        object.__setattr__(self, "dt", positive("VDCGains.dt", self.dt, "s"))
        cutoff = positive("VDCGains.derivative_cutoff", self.derivative_cutoff, "Hz")
        if cutoff >= 0.5 / self.dt:
            raise ParameterError(
                f"VDCGains.derivative_cutoff = {cutoff:g} Hz is not below the Nyquist frequency "
                f"{0.5 / self.dt:g} Hz; lower it"
            )
        object.__setattr__(self, "derivative_cutoff", cutoff)

    def body_gains(self, n_structures: int) -> np.ndarray:
        """K_A for every body as an (n, 7, 6, 6) array."""
        return np.broadcast_to(self.body_gain * np.eye(6), (n_structures, N_BODIES, 6, 6)).copy()


def lab_crane_gains() -> VDCGains:
    """The authors' gains (their supplementary repository): λ = 3 s⁻¹, k_x = 5e-3, 5e-3, 1e-3 m, k_f = 2e-8, 2e-8,
    8e-9 m²/(N s), K_A = 5 I_6, ḟ_pr filter at 8 Hz, 1 kHz."""
    return VDCGains(lam=(3.0, 3.0, 3.0), kx=(5e-3, 5e-3, 1e-3), kf=(2e-8, 2e-8, 8e-9))


# ---------------------------------------------------------------------------------------------
# control law kernels
# ---------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def required_rates(lam, q, qd, q_d, qd_d, qdd_d, qd_r, qdd_r):
    """(35)–(37): q̇_r = q̇_d + λ (q_d − q) and its derivative q̈_r = q̈_d + λ (q̇_d − q̇)."""
    for i in range(q.size):
        qd_r[i] = qd_d[i] + lam[i] * (q_d[i] - q[i])
        qdd_r[i] = qdd_d[i] + lam[i] * (qd_d[i] - qd[i])


@nb.njit(cache=True)
def add_body_gains(gains, v_r, v, fstar):
    """F*_r += K_A (V_r − V), the feedback term of (8), for every body."""
    n = fstar.shape[0]
    for j in range(n):
        for k in range(N_BODIES):
            for i in range(6):
                s = 0.0
                for c in range(6):
                    s += gains[j, k, i, c] * (v_r[j, k, c] - v[j, k, c])
                fstar[j, k, i] += s


@nb.njit(cache=True)
def piston_motion(seg, lk, q, qd, qd_r, x, xd, xd_r):
    """Measured stroke x, rate ẋ and required rate ẋ_r [m, m/s] of every actuator from a required
    forward pass (``lk``): (21) for revolute segments, the coordinate itself for prismatic ones."""
    for j in range(seg.shape[0]):
        col = int(seg[j, S_COL])
        x[col] = lk[j, 1]
        xd[col] = lk[j, 4]
        xd_r[col] = lk[j, 7]
        if seg[j, S_PRISM] > 0.5:
            x[col + 1] = q[col + 1]
            xd[col + 1] = qd[col + 1]
            xd_r[col + 1] = qd_r[col + 1]


@nb.njit(cache=True)
def required_actuator_forces(seg, inert, trf, base, gains, q, qd, qd_r, qdd_r, tool_r, work_r, work_m, f_cr):
    """Required actuator forces f_cr [N] (76), (73) into ``f_cr``: required velocities (38)–(48),
    required net forces (8), required forces (70)–(77). ``work_r`` ends holding the required
    state (lk with ẋ_r), ``work_m`` the measured velocities and poses."""
    lk, v_r, dv_r, rw, pw, fstar, fc, tmp = work_r
    lk_m, v, dv, rw_m, pw_m = work_m[0], work_m[1], work_m[2], work_m[3], work_m[4]
    forward_pass(seg, trf, base, q, qd, qd, qd * 0.0, lk_m, v, dv, rw_m, pw_m)
    forward_pass(seg, trf, base, q, qd, qd_r, qdd_r, lk, v_r, dv_r, rw, pw)
    body_net_forces(inert, base, rw, v_r, dv_r, v, fstar, 1.0)
    add_body_gains(gains, v_r, v, fstar)
    backward_pass(seg, trf, lk, q, fstar, tool_r, f_cr, fc, tmp)


@nb.njit(cache=True)
def force_command(cyl, valve, kx, kf, fpr, dfpr, pa, pb, x, xd, xd_r):
    """Piston force control (90)/(92) and the valve inverse (91)/(93): returns (u_fr [m²/s], u)
    with u **not** saturated."""
    fp = piston_force(cyl, pa, pb)
    ufr = dfpr / cyl[C_BULK_MODULUS] + motion_term(cyl, x, xd, pa, pb) + kx * (xd_r - xd) + kf * (fpr - fp)
    return ufr, valve_inverse(cyl, valve, ufr, x, pa, pb)


@nb.njit(cache=True)
def controller_step(ctrl, filt, q, qd, pa, pb, q_d, qd_d, qdd_d, work_r, work_m, scratch, first, out_u):
    """One VDC sample: valve inputs (saturated) into ``out_u``; ``scratch`` (8, m) returns
    rows [q̇_r, q̈_r, f_cr, f_pr, ḟ_pr, x, ẋ, ẋ_r]. ``ctrl`` = (seg, inert, trf, base, gains,
    lam, kx, kf, cyl, valve, fric, coef); ``first``: reset the derivative filters to the
    current f_pr (no start-up spike)."""
    seg, inert, trf, base, gains, lam, kx, kf, cyl, valve, fric, coef = ctrl
    m = q.size
    qd_r, qdd_r, f_cr, f_pr, df_pr, x, xd, xd_r = (
        scratch[0],
        scratch[1],
        scratch[2],
        scratch[3],
        scratch[4],
        scratch[5],
        scratch[6],
        scratch[7],
    )
    required_rates(lam, q, qd, q_d, qd_d, qdd_d, qd_r, qdd_r)
    required_actuator_forces(
        seg,
        inert,
        trf,
        base,
        gains,
        q,
        qd,
        qd_r,
        qdd_r,
        np.zeros(6),
        work_r,
        work_m,
        f_cr,
    )
    piston_motion(seg, work_r[0], q, qd, qd_r, x, xd, xd_r)
    for i in range(m):
        f_pr[i] = f_cr[i] + friction_force(fric[i], xd_r[i])
        if first:
            filter_reset(coef, filt[i], f_pr[i])
        df_pr[i] = filter_step(coef, filt[i], f_pr[i])
        _, u = force_command(
            cyl[i],
            valve[i],
            kx[i],
            kf[i],
            f_pr[i],
            df_pr[i],
            pa[i],
            pb[i],
            x[i],
            xd[i],
            xd_r[i],
        )
        out_u[i] = saturate(valve[i], u)

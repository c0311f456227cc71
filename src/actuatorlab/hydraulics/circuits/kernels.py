"""Compiled node balances of a netlist and the damped semismooth Newton that solves them.

Both models solve, at each step of length h [s], the node balances

.. math::

    G_i(p) = \\sum_{b \\to i} q_b(p, u) - \\sum_{b \\leftarrow i} q_b(p, u)
             - \\frac{V_i(u)}{β} \\frac{p_i - p_i^{prev}}{h} - \\frac{S_i(p_i) - S_i(p_i^{prev})}{h} = 0

for the free node pressures p [Pa] (a tank's node is held), with q_b the branch laws of
:mod:`.branch`, V_i the node's oil volume, S_i the oil its accumulators store (:mod:`.storage`).
Pressure dynamics: one backward-Euler step of V/β ṗ = Σq − Ṡ, the oil's compressibility 1/β [1/Pa]
passed as ``compressibility``. Quasistatic: 1/β = 0 (the set-valued network's relaxed balance;
only accumulators keep a memory).

Newton's method with the analytic (generalised, on the kinks of the clamps) Jacobian including the
pilot pressures' columns; a step is cut where it first crosses a kink of a valve's opening
(``kink_fraction``: the next iteration re-linearises there instead of jumping over a steep band),
then damped by backtracking on ‖G‖² (Armijo). Where a node's balance does not depend on its pressure
at all (every branch at it closed, no volume) or of a group of nodes floats (no path to a held node
conducts), the Jacobian is singular (or nearly: a Newton step beyond ``MAX_STEP``): a
Levenberg–Marquardt step of growing length (``FIRST_TRUST`` × 4ᵏ) moves them the way their balances
push until a valve opens (a relief, a check); a singular Jacobian at the solution is reported as
``SINGULAR`` with the node, because that node's pressure is not unique there.
Nothing raises inside; the drivers in :mod:`.solvers` raise on a status.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ...numerics.layout import Layout
from ..pressure_dynamics import orifice_flow
from .branch import B, Law, Opening
from .component import GasStore, Volume

OK = 0
NOT_CONVERGED = 1
SINGULAR = 2
NOT_FINITE = 3
STATUS_TEXT = {
    OK: "converged",
    NOT_CONVERGED: "Newton's method did not converge",
    SINGULAR: "the node's pressure is not unique (every branch at it closed and no volume)",
    NOT_FINITE: "a non-finite pressure",
}
"""Status codes of ``solve_nodes`` and their causes in words."""

MAX_ITER = 60
MAX_STEP = 5.0e7
"""A Newton step that changes a node pressure by more than this [Pa] counts as singular (a group
of nodes held only by leakages): a trust-region step is taken instead."""
KINK_PUSH = 1.0e-6
"""How far past a kink a truncated step lands, as a fraction of the valve's band."""
FIRST_TRUST = 1.0e5
"""First step [Pa] out of a singular point (then 4x per singular iteration, up to MAX_STEP)."""
PRESSURE_ATOL = 1.0e-6
PRESSURE_RTOL = 1.0e-12
STALL_RTOL = 1.0e-8
"""A Newton step below this fraction of the pressures that does not lower the merit ends the
solve as converged (rounding floor); a larger one as not converged."""
SINGULAR_RTOL = 1.0e-13
"""A pivot below this fraction of the Jacobian's largest entry counts as zero."""
SCRATCH_ROWS = 7
"""Rows of the scratch array ``work`` (n + SCRATCH_ROWS, n) beyond the Jacobian's n: G, trial G,
trial p, the Newton step (``solve_nodes``), a step's start and its first guess
(``solvers.network_step``), the pivots of the factorised Jacobian (``solve_nodes``)."""

VOLUME_COLUMNS = Layout("V_", *Volume._fields)
GAS_COLUMNS = Layout("S_", *GasStore._fields)
"""Columns of the volume table (node, V [m³], gain [m³/unit], input) and of the gas table
(node, p₀ [Pa], V₀ [m³], n [-]): the fields of ``component.Volume`` and ``component.GasStore``."""
(V_NODE, V_VOLUME, V_GAIN, V_INPUT) = VOLUME_COLUMNS.indices
(S_NODE, S_PRECHARGE_PRESSURE, S_GAS_VOLUME, S_POLYTROPIC_INDEX) = GAS_COLUMNS.indices


@nb.njit(cache=True, inline="always")
def _clamp01(s: float) -> float:
    return 0.0 if s <= 0.0 else (1.0 if s >= 1.0 else s)


@nb.njit(cache=True, inline="always")
def _pilot_signal(rows, k, p) -> float:
    """s = (offset + Σ coef_j p_{pilot_j}) / band of the piloted branch ``k`` (linear in p)."""
    s = rows[k, B.OFFSET]
    for j in range(3):
        node = int(rows[k, B.PILOT1 + 2 * j])
        if node >= 0:
            s += rows[k, B.COEF1 + 2 * j] * p[node]
    return s / rows[k, B.BAND]


@nb.njit(cache=True, inline="always")
def branch_flow(rows, k, p, u, dq) -> float:
    """Flow q [m³/s] of branch ``k`` of the table ``rows`` (a → b) at node pressures ``p`` and
    inputs ``u``; writes ∂q/∂p_a, ∂q/∂p_b, ∂q/∂p_pilot1..3 into ``dq[0:5]`` (on a kink of the
    clamp: the closed or fully open side's slope, 0). The opening comes first: a closed branch
    off its band (most reliefs and checks, the closed edges of a spool) passes its leakage only,
    and its law is not evaluated. Reads the table in place (a row view would cost two atomic
    reference counts per branch and evaluation)."""
    a = int(rows[k, B.A])
    b = int(rows[k, B.B])
    pa = p[a] if a >= 0 else 0.0
    pb = p[b] if b >= 0 else 0.0
    dp = pa - pb
    g = rows[k, B.LEAKAGE]
    law = int(rows[k, B.LAW])
    kind = int(rows[k, B.OPENING])
    o = 1.0
    s = 0.0
    if kind == Opening.EDGE:
        e = rows[k, B.OVERLAP]
        o = _clamp01((rows[k, B.SIGN] * u[int(rows[k, B.OPENING_INPUT])] - e) / (1.0 - e))
    elif kind == Opening.NEUTRAL:
        e = rows[k, B.OVERLAP]
        o = _clamp01((e - abs(u[int(rows[k, B.OPENING_INPUT])])) / e)
    elif kind == Opening.PILOTED:
        s = _pilot_signal(rows, k, p)
        o = _clamp01(s)
        if law != Law.SOURCE and dp <= 0.0:
            o, s = 0.0, 0.0  # a pressure-operated poppet or spool seats against reverse flow
    dq[2] = 0.0
    dq[3] = 0.0
    dq[4] = 0.0
    if o == 0.0 and not 0.0 < s < 1.0:
        dq[0] = g
        dq[1] = -g
        return g * dp
    m = rows[k, B.GAIN]
    gi = int(rows[k, B.GAIN_INPUT])
    if gi >= 0:
        m *= u[gi]
    if law == Law.AFFINE:
        dq[0] = g
        dq[1] = -g
        phi = rows[k, B.OFFSET]
        for j in range(3):
            node = int(rows[k, B.PILOT1 + 2 * j])
            if node >= 0:
                phi += rows[k, B.COEF1 + 2 * j] * p[node]
                dq[2 + j] = m * rows[k, B.COEF1 + 2 * j]
        return m * phi + g * dp
    if law == Law.TURBULENT:
        phi, dphi = orifice_flow(1.0, dp, rows[k, B.TRANSITION])
    elif law == Law.LAMINAR:
        phi, dphi = dp, 1.0
    else:
        phi, dphi = 1.0, 0.0
    dq[0] = m * o * dphi + g
    dq[1] = -dq[0]
    if 0.0 < s < 1.0:
        slope = m * phi / rows[k, B.BAND]
        for j in range(3):
            dq[2 + j] = slope * rows[k, B.COEF1 + 2 * j]
    return m * o * phi + g * dp


@nb.njit(cache=True, inline="always")
def stored_volume(p: float, p0: float, v0: float, n: float) -> tuple[float, float]:
    """(S, dS/dp) of a gas accumulator: S = V₀ (1 − (p₀/p)^{1/n}) [m³] for p > p₀, else 0."""
    if p <= p0:
        return 0.0, 0.0
    ratio = (p0 / p) ** (1.0 / n)
    return v0 * (1.0 - ratio), v0 * ratio / (n * p)


@nb.njit(cache=True)
def flow_history(rows, p, u, out) -> None:
    """Flows [m³/s] of every branch (columns, in table order) at every sample k of the pressures
    ``p`` (n_t, n) and inputs ``u`` (n_t, n_u) into ``out`` (n_t, n_branches)."""
    dq = np.empty(5)
    for k in range(p.shape[0]):
        for j in range(rows.shape[0]):
            out[k, j] = branch_flow(rows, j, p[k], u[k], dq)


@nb.njit(cache=True)
def stored_history(p, p0, v0, n, out) -> None:
    """Oil S [m³] a gas accumulator (p₀, V₀, n) holds at each pressure of ``p`` into ``out``."""
    for k in range(p.size):
        out[k], _ = stored_volume(p[k], p0, v0, n)


@nb.njit(cache=True)
def balances(rows, vols, gas, fixed, compressibility, u, h, p_prev, p, g, jac, dq, with_jacobian=True) -> None:
    """Node balances G (n,) [m³/s] into ``g`` and, if ``with_jacobian``, ∂G/∂p (n, n) into
    ``jac`` (module docstring; otherwise ``jac`` is left as it is); a held node (``fixed`` not
    NaN) has G = 0 and a diagonal row (the free rows' largest entry, so it does not set the
    scale of the singularity test)."""
    n = p.size
    g[:] = 0.0
    if with_jacobian:
        jac[:, :] = 0.0
    for k in range(rows.shape[0]):
        q = branch_flow(rows, k, p, u, dq)
        a = int(rows[k, B.A])
        b = int(rows[k, B.B])
        if a >= 0:
            g[a] -= q
        if b >= 0:
            g[b] += q
        if not with_jacobian:
            continue
        if a >= 0:
            jac[a, a] -= dq[0]
            if b >= 0:
                jac[a, b] -= dq[1]
        if b >= 0:
            jac[b, b] += dq[1]
            if a >= 0:
                jac[b, a] += dq[0]
        if dq[2] != 0.0 or dq[3] != 0.0 or dq[4] != 0.0:
            for j in range(3):
                node = int(rows[k, B.PILOT1 + 2 * j])
                if node >= 0:
                    if a >= 0:
                        jac[a, node] -= dq[2 + j]
                    if b >= 0:
                        jac[b, node] += dq[2 + j]
    for k in range(vols.shape[0]):
        i = int(vols[k, V_NODE])
        volume = vols[k, V_VOLUME]
        if vols[k, V_INPUT] >= 0:
            volume += vols[k, V_GAIN] * u[int(vols[k, V_INPUT])]
        c = compressibility * volume / h
        g[i] -= c * (p[i] - p_prev[i])
        if with_jacobian:
            jac[i, i] -= c
    for k in range(gas.shape[0]):
        i = int(gas[k, S_NODE])
        s, ds = stored_volume(p[i], gas[k, S_PRECHARGE_PRESSURE], gas[k, S_GAS_VOLUME], gas[k, S_POLYTROPIC_INDEX])
        s_prev, _ = stored_volume(
            p_prev[i], gas[k, S_PRECHARGE_PRESSURE], gas[k, S_GAS_VOLUME], gas[k, S_POLYTROPIC_INDEX]
        )
        g[i] -= (s - s_prev) / h
        if with_jacobian:
            jac[i, i] -= ds / h
    for i in range(n):
        if not math.isnan(fixed[i]):
            g[i] = 0.0
    if not with_jacobian:
        return
    scale = 0.0
    for i in range(n):
        if math.isnan(fixed[i]):
            for j in range(n):
                scale = max(scale, abs(jac[i, j]))
    for i in range(n):
        if not math.isnan(fixed[i]):
            jac[i, :] = 0.0
            jac[i, i] = scale if scale > 0.0 else 1.0


@nb.njit(cache=True)
def lu_solve(a, x, perm) -> int:
    """Solve a·y = x in place (``x`` becomes y) by Gaussian elimination with partial pivoting;
    ``a`` becomes its factors (U above the diagonal, the multipliers below) and ``perm`` (n,)
    the pivot row of each step, so that ``lu_resolve`` solves for another right-hand side.
    Returns −1, or the column whose pivot is below SINGULAR_RTOL × max|a|."""
    n = x.size
    scale = 0.0
    for i in range(n):
        for j in range(n):
            scale = max(scale, abs(a[i, j]))
    tiny = SINGULAR_RTOL * scale
    for k in range(n):
        piv = k
        for i in range(k + 1, n):
            if abs(a[i, k]) > abs(a[piv, k]):
                piv = i
        if not abs(a[piv, k]) > tiny:
            return k
        perm[k] = piv
        if piv != k:
            for j in range(k, n):
                a[k, j], a[piv, j] = a[piv, j], a[k, j]
            x[k], x[piv] = x[piv], x[k]
        inv = 1.0 / a[k, k]
        for i in range(k + 1, n):
            f = a[i, k] * inv
            a[i, k] = f
            if f != 0.0:
                for j in range(k + 1, n):
                    a[i, j] -= f * a[k, j]
                x[i] -= f * x[k]
    _back_substitute(a, x)
    return -1


@nb.njit(cache=True)
def lu_resolve(a, perm, x) -> None:
    """Solve with the factors ``a`` and pivots ``perm`` of ``lu_solve`` for the right-hand side
    ``x``, in place (the same row exchanges and eliminations, in the same order)."""
    n = x.size
    for k in range(n):
        piv = int(perm[k])
        if piv != k:
            x[k], x[piv] = x[piv], x[k]
        for i in range(k + 1, n):
            f = a[i, k]
            if f != 0.0:
                x[i] -= f * x[k]
    _back_substitute(a, x)


@nb.njit(cache=True, inline="always")
def _back_substitute(a, x) -> None:
    """x ← U⁻¹ x in place, U the upper triangle of ``a`` (its diagonal included)."""
    for k in range(x.size - 1, -1, -1):
        s = x[k]
        for j in range(k + 1, x.size):
            s -= a[k, j] * x[j]
        x[k] = s / a[k, k]


@nb.njit(cache=True)
def _norm2(g) -> float:
    s = 0.0
    for i in range(g.size):
        s += g[i] * g[i]
    return s


@nb.njit(cache=True)
def kink_fraction(rows, p, step) -> float:
    """The largest t ≤ 1 such that p + t·step crosses no kink (s = 0 or 1) of a piloted opening,
    plus KINK_PUSH past the first one crossed: Newton re-linearises on the far side of a kink
    instead of jumping over a valve's whole band."""
    t = 1.0
    for k in range(rows.shape[0]):
        if int(rows[k, B.OPENING]) != Opening.PILOTED:
            continue
        s0 = _pilot_signal(rows, k, p)
        ds = 0.0
        for j in range(3):
            node = int(rows[k, B.PILOT1 + 2 * j])
            if node >= 0:
                ds += rows[k, B.COEF1 + 2 * j] * step[node]
        ds /= rows[k, B.BAND]
        if ds == 0.0:
            continue
        for edge in (0.0, 1.0):
            target = edge + (KINK_PUSH if ds > 0.0 else -KINK_PUSH)
            crossing = (target - s0) / ds
            if (s0 - edge) * (s0 + ds - edge) < 0.0 and 0.0 < crossing < t:
                t = crossing
    return t


@nb.njit(cache=True)
def solve_nodes(rows, vols, gas, fixed, compressibility, u, h, p_prev, p, work, dq) -> tuple[int, int, int]:
    """Solve G(p) = 0 (module docstring) in place from the guess ``p`` (n,). ``work``
    (n + SCRATCH_ROWS, n) is scratch: rows 0…n−1 the Jacobian, then G, trial G, trial p, step,
    and row n + 6 the pivots. Returns (status, iterations, node): ``node`` the node whose
    pressure is not unique (status SINGULAR), else −1.

    Damped Newton: each iteration factorises the Jacobian at p, steps (cut at the first kink of
    a piloted opening, then halved until the merit ‖G‖² falls) and evaluates only G at the trial
    point. After a full step, the step the same factors give for the new G (a chord step) is
    tried first: within the pressure tolerance it ends the solve without a new Jacobian, as the
    next Newton step would (their difference is that step times the change of the Jacobian over
    the step, far below the tolerance); otherwise the Jacobian is evaluated at the new p."""
    n = p.size
    if work.shape[0] < n + SCRATCH_ROWS or work.shape[1] != n:
        raise ValueError("solve_nodes: give work of shape (n + SCRATCH_ROWS, n)")
    jac = work[:n]
    g = work[n]
    g_trial = work[n + 1]
    p_trial = work[n + 2]
    step = work[n + 3]
    perm = work[n + 6]
    for i in range(n):
        if not math.isnan(fixed[i]):
            p[i] = fixed[i]
    balances(rows, vols, gas, fixed, compressibility, u, h, p_prev, p, g, jac, dq)
    merit = _norm2(g)
    trust = FIRST_TRUST
    for it in range(MAX_ITER):
        for i in range(n):
            step[i] = -g[i]
        singular = lu_solve(jac, step, perm)
        biggest = 0.0
        for i in range(n):
            biggest = max(biggest, abs(step[i]))
        if singular >= 0 or not biggest <= MAX_STEP:
            # a (nearly) floating group of nodes: a Levenberg-Marquardt step of about ``trust`` in
            # the direction the balances push, taken whatever the merit, the trust growing 4x
            balances(rows, vols, gas, fixed, compressibility, u, h, p_prev, p, g, jac, dq)
            shift = 0.0
            for i in range(n):
                step[i] = -g[i]
                shift = max(shift, abs(g[i]))
            shift /= trust
            for i in range(n):
                if math.isnan(fixed[i]):
                    jac[i, i] -= shift
            if shift == 0.0 or lu_solve(jac, step, perm) >= 0:
                return SINGULAR, it, max(singular, 0)
            t = kink_fraction(rows, p, step)
            for i in range(n):
                p[i] += t * step[i]
            trust = min(4.0 * trust, MAX_STEP)
            balances(rows, vols, gas, fixed, compressibility, u, h, p_prev, p, g, jac, dq)
            merit = _norm2(g)
            continue
        trust = FIRST_TRUST
        if _within_tolerance(step, p):  # the Jacobian just factorised is that of p
            for i in range(n):
                p[i] += step[i]
            return OK, it + 1, -1
        t = kink_fraction(rows, p, step)
        decreased = False
        for _ in range(40):  # G only: ``jac`` keeps the factors for the chord step
            for i in range(n):
                p_trial[i] = p[i] + t * step[i]
            balances(rows, vols, gas, fixed, compressibility, u, h, p_prev, p_trial, g_trial, jac, dq, False)
            trial = _norm2(g_trial)
            if trial <= (1.0 - 1e-4 * t) * merit:
                decreased = True
                break
            t *= 0.5
        if not (decreased and t == 1.0):
            # the full Newton step does not lower the merit: if that step is below STALL_RTOL of
            # the pressures the merit is at its rounding floor (a steep band's opening is rounded
            # at p·ulp/band): converged; a larger one that cannot lower it at all: stalled
            floor = True
            for i in range(n):
                if not abs(step[i]) <= PRESSURE_ATOL + STALL_RTOL * abs(p[i]):
                    floor = False
            if floor:
                return _certify(rows, vols, gas, fixed, compressibility, u, h, p_prev, p, work, dq, it + 1)
            if not decreased:
                return NOT_CONVERGED, it + 1, -1
        if not math.isfinite(trial):
            return NOT_FINITE, it, -1
        for i in range(n):
            p[i] = p_trial[i]
        merit = trial
        if merit == 0.0:
            return _certify(rows, vols, gas, fixed, compressibility, u, h, p_prev, p, work, dq, it + 1)
        if t == 1.0:
            for i in range(n):
                step[i] = -g_trial[i]
            lu_resolve(jac, perm, step)
            if _within_tolerance(step, p):
                for i in range(n):
                    p[i] += step[i]
                return OK, it + 1, -1
        balances(rows, vols, gas, fixed, compressibility, u, h, p_prev, p, g, jac, dq)
    return NOT_CONVERGED, MAX_ITER, -1


@nb.njit(cache=True, inline="always")
def _within_tolerance(step, p) -> bool:
    """Every |step_i| ≤ PRESSURE_ATOL + PRESSURE_RTOL |p_i|: the solve has converged."""
    for i in range(p.size):
        if not abs(step[i]) <= PRESSURE_ATOL + PRESSURE_RTOL * abs(p[i]):
            return False
    return True


@nb.njit(cache=True)
def _certify(rows, vols, gas, fixed, compressibility, u, h, p_prev, p, work, dq, iterations) -> tuple[int, int, int]:
    """At a converged ``p``: SINGULAR (with the node) if the Jacobian there is singular, else OK."""
    n = p.size
    jac = work[:n]
    g = work[n]
    step = work[n + 3]
    balances(rows, vols, gas, fixed, compressibility, u, h, p_prev, p, g, jac, dq)
    step[:] = 0.0
    node = lu_solve(jac, step, work[n + 6])
    if node >= 0:
        return SINGULAR, iterations, node
    return OK, iterations, -1

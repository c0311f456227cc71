"""The classical fourth-order Runge–Kutta step, written once for every fixed-step loop.

    y ← y + h/6 (k₁ + 2k₂ + 2k₃ + k₄),  k₁ = F(t, y), k₂ = F(t + h/2, y + h/2 k₁),
    k₃ = F(t + h/2, y + h/2 k₂), k₄ = F(t + h, y + h k₃).

F is a compiled right-hand side ``rhs(t, y, out, *args)`` writing ẏ into ``out``. The step is
compiled with ``inline="always"``: a cached loop that calls a separately compiled function
taking a function argument cannot be cached, and inlining lets numba specialise the stages on
the caller's ``rhs``. Explicit, so stable only below a step set by the Jacobian's eigenvalues
(``simulation.ode.largest_stable_step``).
"""

from __future__ import annotations

import numba as nb


@nb.njit(inline="always")
def rk4_step(rhs, args, t, y, h, k1, k2, k3, k4, tmp):
    """Advance ``y`` (in place) by one RK4 step of h [s] from time t [s]; ``k1`` … ``k4`` and
    ``tmp`` are scratch arrays of y's size. On return ``k1`` holds F(t, y) at the start."""
    m = y.size
    rhs(t, y, k1, *args)
    for i in range(m):
        tmp[i] = y[i] + 0.5 * h * k1[i]
    rhs(t + 0.5 * h, tmp, k2, *args)
    for i in range(m):
        tmp[i] = y[i] + 0.5 * h * k2[i]
    rhs(t + 0.5 * h, tmp, k3, *args)
    for i in range(m):
        tmp[i] = y[i] + h * k3[i]
    rhs(t + h, tmp, k4, *args)
    for i in range(m):
        y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0

"""A sampled PI controller with velocity feed-forward, saturation and anti-windup.

At each sample t_j = j·T (sample time T [s]) the controller reads the error e = r − y between a
target r and a measurement y (a cylinder stroke [m] or a joint angle [rad]; "unit" below) and
the target's rate ṙ over the coming sample [unit/s], and sets the valve command

    u = k_p·e + k_i·I + k_ff·ṙ,    clipped to [−u_max, u_max],

held until the next sample (zero-order hold). Gains: k_p [1/unit] (the command per unit of
error), k_i [1/(unit·s)], k_ff [s/unit] (the command per unit of target speed: 1/k_ff is the
speed the valve gives at full command), u_max ∈ (0, 1]. The integral I [unit·s] advances by
T·e at each sample (backward rectangle) unless the command is saturated and the error pushes
it further into saturation (conditional integration, the anti-windup of Åström & Hägglund,
*Advanced PID Control*, 2006, Sec. 3.5). Signs: u > 0 extends the cylinder (valve command of
Kikuuwe et al. (67)), so a positive error must call for extension: for a joint-angle target
whose angle falls as the cylinder extends, give negative gains.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..numerics.layout import Layout
from ..validation import finite, positive

# layout of the parameter vector of ``pi_step``
PARAMETERS = Layout("PI_", "kp", "ki", "kff", "limit")
(PI_KP, PI_KI, PI_KFF, PI_LIMIT) = PARAMETERS.indices
N_PI = len(PARAMETERS)


@dataclass(frozen=True)
class PIController:
    """Gains and limits of the sampled PI controller (see the module docstring for the law).

    ``kp`` [1/unit], ``ki`` [1/(unit·s)], ``kff`` [s/unit] (unit: m for a stroke, rad for a joint
    angle; finite, any sign, but k_p, k_i and k_ff of one sign); ``limit`` u_max ∈ (0, 1] [-];
    ``sample_time`` T [s] > 0.
    """

    kp: float
    ki: float = 0.0
    kff: float = 0.0
    limit: float = 1.0
    sample_time: float = 0.01

    def __post_init__(self) -> None:
        for name in ("kp", "ki", "kff"):
            object.__setattr__(self, name, finite(f"controller.{name}", getattr(self, name), ""))
        positive("controller.sample_time", self.sample_time, "s")
        limit = positive("controller.limit", self.limit, "")
        if limit > 1.0:
            raise ParameterError(
                f"controller.limit = {limit!r}: the valve command saturates within [-1, 1]; give a limit in (0, 1]"
            )
        signs = {math.copysign(1.0, g) for g in (self.kp, self.ki, self.kff) if g != 0.0}
        if len(signs) > 1:
            raise ParameterError(
                f"controller gains kp = {self.kp!r}, ki = {self.ki!r}, kff = {self.kff!r} have mixed signs: the three "
                "act in one direction (negative gains when extending the cylinder lowers the measurement)"
            )
        if self.kp == 0.0 and self.ki == 0.0:
            raise ParameterError("controller.kp = 0 and controller.ki = 0: give a feedback gain")

    def kernel_array(self) -> np.ndarray:
        """The parameter vector of ``pi_step`` (layout ``PI_*``)."""
        out = np.empty(N_PI)
        out[PI_KP], out[PI_KI], out[PI_KFF], out[PI_LIMIT] = self.kp, self.ki, self.kff, self.limit
        return out


@nb.njit(cache=True, inline="always", error_model="numpy")
def pi_step(params, error: float, target_rate: float, integral: float, sample_time: float) -> tuple[float, float]:
    """One sample of the PI law: (u, the integral after this sample) from the error e [unit], the
    target rate ṙ [unit/s], the integral I [unit·s] and the sample time T [s]; ``params``: layout
    ``PI_*``. Conditional integration: I is kept when the saturated command and e have one sign."""
    kp = params[PI_KP]
    ki = params[PI_KI]
    limit = params[PI_LIMIT]
    base = kp * error + params[PI_KFF] * target_rate
    advanced = integral + sample_time * error
    u = base + ki * advanced
    if abs(u) > limit and u * ki * error > 0.0:
        advanced = integral
        u = base + ki * integral
    return min(max(u, -limit), limit), advanced

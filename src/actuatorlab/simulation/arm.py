"""Time simulation of the single-DOF arm driven by the relaxed quasistatic actuator.

Kikuuwe et al. Sec. 4.3, per step k (t_k = k·h):

1. ℓ_k = ‖r_m(θ_k) − r_b‖ (80);
2. (p_k, f_k) from algorithm (72) with ℓ_k, ℓ_{k−1}, p_{k−1} and the openings at t_k;
3. semi-implicit Euler on (79): θ̇_{k+1} = θ̇_k + h·τ(θ_k, f_k, f_ey,k)/J_pivot, θ_{k+1} = θ_k + h·θ̇_{k+1}.

At t = 0 the relaxed element is unstretched, p_{−1} = ℓ_{−1} = ℓ_0 (the paper's p(0) = ℓ(0)).

Stability. With all valves closed the relaxed element is a spring–damper (K, B) on the arm's
effective mass m = J_pivot/(dℓ/dθ)² ≥ J_pivot/L_m². The scheme above is then stable iff
h²K/m + 2hB/m < 4 (eigenvalues of the linear two-step recursion; B enters explicitly through
ℓ̇ ≈ (ℓ_k − ℓ_{k−1})/h). ``check_stability`` applies this bound before a run; the time loop
also reports a non-finite state, a runaway stretch |p − ℓ| or a chattering force as a status.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import SimulationError
from ..hydraulics.quasistatic.circuit import I_FHM, I_FRM, Openings, ValveCircuit, normalised_openings
from ..hydraulics.quasistatic.kernels import relaxed_step_scalar
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..mechanics.single_arm import K_JP, SingleArm, arm_geometry, arm_torque
from .result import Channel, SimulationResult

STATUS_OK = 0
STATUS_NOT_FINITE = 1
STATUS_STRETCH = 2
STATUS_CHATTER = 3
MAX_STRETCH = 0.5
"""|p − ℓ| [m] beyond which the relaxed element is taken to have diverged."""
CHATTER_STEPS = 20
CHATTER_FRACTION = 0.01
"""A force whose step-to-step change alternates in sign for CHATTER_STEPS steps in a row, each
change larger than CHATTER_FRACTION·(F_hM + F_rM), is a numerical oscillation: past the
stability bound the relief valves keep it finite, so it never shows up as a non-finite state."""

# rows of the kernel's output array
(ROW_THETA, ROW_RATE, ROW_LENGTH, ROW_P, ROW_V, ROW_F) = range(6)
# entries of the carried state
(S_THETA, S_RATE, S_P, S_LPREV) = range(4)

ProgressCallback = Callable[[float], None]
"""Called with the fraction of the run completed, in [0, 1]."""


@dataclass(frozen=True)
class StabilityLimit:
    """Largest stable values for the closed-valve arm: stiffness K [N/m] at the given B and h."""

    effective_mass: float
    max_stiffness: float
    max_damping: float
    stable: bool


def check_stability(arm: SingleArm, relaxation: Relaxation, h: float) -> StabilityLimit:
    """Evaluate h²K/m + 2hB/m < 4 with m = J_pivot/L_m², the lightest effective mass."""
    m = arm.pivot_inertia / arm.mount_distance**2
    a = h * h * relaxation.stiffness / m
    b = h * relaxation.damping / m
    max_damping = 2.0 * m / h
    max_stiffness = max(4.0 - 2.0 * b, 0.0) * m / (h * h)
    return StabilityLimit(m, max_stiffness, max_damping, a + 2.0 * b < 4.0)


@nb.njit(cache=True)
def _arm_loop(cp, ap, uh, f_ey, stiffness, damping, h, state, k0, k1, out):
    """Advance the arm from sample k0 to k1 (exclusive), filling ``out[:, k]``.

    Returns (status, k) with k the sample where a failure was detected (or k1).
    """
    jp = ap[K_JP]
    chatter_size = CHATTER_FRACTION * (cp[I_FHM] + cp[I_FRM])
    alternations = 0
    f_prev = 0.0
    df_prev = 0.0
    theta = state[S_THETA]
    rate = state[S_RATE]
    p = state[S_P]
    l_prev = state[S_LPREV]
    for k in range(k0, k1):
        length, lever = arm_geometry(ap, theta)
        p, f, v = relaxed_step_scalar(cp, uh[k], stiffness, damping, h, p, l_prev, length)
        out[ROW_THETA, k] = theta
        out[ROW_RATE, k] = rate
        out[ROW_LENGTH, k] = length
        out[ROW_P, k] = p
        out[ROW_V, k] = v
        out[ROW_F, k] = f
        if not (np.isfinite(f) and np.isfinite(theta) and np.isfinite(rate)):
            return STATUS_NOT_FINITE, k
        if abs(p - length) > MAX_STRETCH:
            return STATUS_STRETCH, k
        df = f - f_prev
        if abs(df) > chatter_size and df * df_prev < 0.0:
            alternations += 1
            if alternations >= CHATTER_STEPS:
                return STATUS_CHATTER, k
        else:
            alternations = 0
        f_prev = f
        df_prev = df
        rate += h * arm_torque(ap, theta, lever, f, f_ey[k]) / jp
        theta += h * rate
        l_prev = length
    state[S_THETA] = theta
    state[S_RATE] = rate
    state[S_P] = p
    state[S_LPREV] = l_prev
    return STATUS_OK, k1


def simulate_arm(
    arm: SingleArm,
    circuit: ValveCircuit,
    relaxation: Relaxation,
    t: np.ndarray,
    valve_command: np.ndarray,
    bleed: np.ndarray,
    external_force: np.ndarray,
    initial_angle: float = 0.0,
    initial_rate: float = 0.0,
    progress: ProgressCallback | None = None,
    chunks: int = 50,
) -> SimulationResult:
    """Simulate the arm on the uniform grid ``t`` [s] with inputs sampled on it.

    ``valve_command`` u_c ∈ [−1, 1] (67), ``bleed`` u_b ∈ [0, 1], ``external_force`` f_ey [N]
    (positive upward); angles in rad. Raises ``SimulationError`` if the step is unstable for
    the relaxation or the run diverges.
    """
    h = float(t[1] - t[0])
    limit = check_stability(arm, relaxation, h)
    if not limit.stable:
        raise SimulationError(
            f"relaxation.stiffness = {relaxation.stiffness:.3g} N/m and damping = {relaxation.damping:.3g} N s/m "
            f"are unstable with step h = {h:g} s (arm effective mass {limit.effective_mass:.4g} kg): "
            f"set stiffness below {limit.max_stiffness:.3g} N/m (for example {0.5 * limit.max_stiffness:.2g} N/m) "
            f"with damping below {limit.max_damping:.3g} N s/m, or use a smaller step"
        )
    openings = Openings.from_command(valve_command, bleed)
    uh = np.ascontiguousarray(normalised_openings(circuit, openings))
    cp = circuit.kernel_array()
    ap = arm.kernel_array()
    n = t.size
    out = np.empty((6, n))
    length0 = float(arm.cylinder_length(initial_angle)[0])
    state = np.array([initial_angle, initial_rate, length0, length0])
    f_ey = np.ascontiguousarray(external_force, dtype=np.float64)

    t0 = time.perf_counter()
    _arm_loop(cp, ap, uh[:1], f_ey[:1], relaxation.stiffness, relaxation.damping, h, state.copy(), 0, 1, out)
    compile_time = time.perf_counter() - t0

    edges = np.linspace(0, n, min(chunks, n) + 1).astype(np.int64)
    t0 = time.perf_counter()
    status, k_fail = STATUS_OK, n
    for k0, k1 in zip(edges[:-1], edges[1:]):
        status, k_fail = _arm_loop(
            cp, ap, uh, f_ey, relaxation.stiffness, relaxation.damping, h, state, k0, k1, out
        )
        if progress is not None:
            progress(k1 / n)
        if status != STATUS_OK:
            break
    loop_time = time.perf_counter() - t0
    if status != STATUS_OK:
        what = {
            STATUS_NOT_FINITE: "a non-finite state",
            STATUS_STRETCH: f"a relaxed stretch |p − ℓ| > {MAX_STRETCH} m",
            STATUS_CHATTER: "a force chattering from step to step",
        }[status]
        raise SimulationError(
            f"the arm simulation diverged at t = {t[k_fail]:.4g} s (θ = {np.degrees(out[ROW_THETA, k_fail]):.4g} deg, "
            f"f = {out[ROW_F, k_fail]:.4g} N) with {what}: reduce the step or relaxation.stiffness"
        )
    lengths = out[ROW_LENGTH]
    channels = {
        "valve_command": Channel(np.asarray(valve_command, dtype=np.float64), "1", "valve command u_c"),
        "bleed": Channel(np.asarray(bleed, dtype=np.float64), "1", "bleed opening u_b"),
        "external_force": Channel(f_ey, "N", "external force f_ey"),
        "theta": Channel(out[ROW_THETA], "rad", "arm angle θ"),
        "theta_rate": Channel(out[ROW_RATE], "rad/s", "arm angular rate θ̇"),
        "length": Channel(lengths, "m", "cylinder length ℓ"),
        "rod_position": Channel(out[ROW_P], "m", "rod displacement p"),
        "rod_velocity": Channel(out[ROW_V], "m/s", "rod velocity v"),
        "force": Channel(out[ROW_F], "N", "actuator force f"),
        "stretch": Channel(out[ROW_P] - lengths, "m", "relaxed element p − ℓ"),
    }
    counters = {"steps": float(n), "compile_time_s": compile_time, "loop_time_s": loop_time}
    return SimulationResult(t=t, channels=channels, counters=counters)

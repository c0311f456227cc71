"""Time simulation of single-DOF arms driven by relaxed quasistatic actuators.

Kikuuwe et al. Sec. 4.3, per step k (t_k = k·h), for each arm j:

1. ℓ_k = ‖r_m(θ_k) − r_b‖ (80);
2. (p_k, f_k) from the relaxed step with ℓ_k, ℓ_{k−1}, p_{k−1} and the openings at t_k: one arm
   on its own pump by algorithm (72), with Λ_reg (105) while its regeneration valve is open
   (Sec. 5); several arms on one pump by the network step of Sec. 6.2 (P from (126), then
   Λ̂_j (122));
3. semi-implicit Euler on (79): θ̇_{k+1} = θ̇_k + h·τ(θ_k, f_k, f_ey,k)/J_pivot, θ_{k+1} = θ_k + h·θ̇_{k+1}.

At t = 0 the relaxed element is unstretched, p_{−1} = ℓ_{−1} = ℓ_0 (the paper's p(0) = ℓ(0)).

Stability. With all valves closed the relaxed element is a spring–damper (K, B) on the arm's
effective mass m = J_pivot/(dℓ/dθ)² ≥ J_pivot/L_m². The scheme above is then stable iff
h²K/m + 2hB/m < 4 (eigenvalues of the linear two-step recursion; B enters explicitly through
ℓ̇ ≈ (ℓ_k − ℓ_{k−1})/h). ``check_stability`` applies this bound before a run; the time loop
also reports a non-finite state, a runaway stretch |p − ℓ|, a chattering force or a failed
root search as a status.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import SimulationError
from ..hydraulics.quasistatic.chambers import run_chamber_pressures
from ..hydraulics.quasistatic.circuit import I_FHM, I_FRM, Openings, ValveCircuit, normalised_openings
from ..hydraulics.quasistatic.network import PumpNetwork, new_pump_state, relaxed_network_step_kernel
from ..hydraulics.quasistatic.regeneration import (
    REG_CLOSED_BLEED,
    regeneration_openings,
    relaxed_regeneration_step_scalar,
)
from ..hydraulics.quasistatic.kernels import openings_at, relaxed_step_scalar
from ..hydraulics.quasistatic.relaxation import Relaxation, stable_relaxation_advice
from ..mechanics.single_arm import SingleArm
from ..mechanics.single_arm_kernels import arm_geometry, arm_geometry_at, arm_torque
from ..mechanics.single_arm_layout import K_ALPHA, K_JP
from ..numerics.layout import Layout
from ..numerics.rotation import rotate_unit
from ..numerics.status import (
    CHATTER_FRACTION,
    CHATTER_STEPS,
    MAX_STRETCH,
    STATUS_CHATTER,
    STATUS_CLOSED_BLEED,
    STATUS_NOT_FINITE,
    STATUS_OK,
    STATUS_ROOT,
    STATUS_STRETCH,
)
from .result import GAUGE_PRESSURE, Channel, SimulationResult
from .travel import check_travel

CHUNK_STEPS = 200_000
"""Samples per call of a time loop (between progress reports; the carried cos/sin restart at each)."""

# rows of the kernel's output array out[row, arm, k]
RECORD = Layout("ROW_", "theta", "rate", "length", "p", "v", "f", "pump")
(ROW_THETA, ROW_RATE, ROW_LENGTH, ROW_P, ROW_V, ROW_F, ROW_PUMP) = RECORD.indices
# columns of the carried state, one row per arm
STATE = Layout("S_", "theta", "rate", "p", "lprev", "fprev", "dfprev", "alternations")
(S_THETA, S_RATE, S_P, S_LPREV, S_FPREV, S_DFPREV, S_ALTERNATIONS) = STATE.indices

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


def largest_stable_step(arm: SingleArm, relaxation: Relaxation) -> float:
    """The largest h [s] with h²K/m + 2hB/m < 4 (m = J_pivot/L_m²): the root of K h² + 2B h − 4m."""
    m = arm.pivot_inertia / arm.mount_distance**2
    k, b = relaxation.stiffness, relaxation.damping
    if k == 0.0:
        return 2.0 * m / b
    return 4.0 * m / (b + math.sqrt(b * b + 4.0 * k * m))


@nb.njit(cache=True, inline="always", error_model="numpy")
def _record_sample(out, j, k, theta, rate, length, p, v, f, pump, chatter_size, f_prev, df_prev, alternations):
    """Write sample k of arm j to ``out`` and check it; returns (status, Δf, alternations).

    Status: a non-finite state, a runaway stretch |p − ℓ| > MAX_STRETCH, or the CHATTER_STEPS-th
    alternating force change larger than ``chatter_size`` [N] in a row; else STATUS_OK.
    """
    out[ROW_THETA, j, k] = theta
    out[ROW_RATE, j, k] = rate
    out[ROW_LENGTH, j, k] = length
    out[ROW_P, j, k] = p
    out[ROW_V, j, k] = v
    out[ROW_F, j, k] = f
    out[ROW_PUMP, j, k] = pump
    df = f - f_prev
    if abs(df) > chatter_size and df * df_prev < 0.0:
        alternations += 1.0
    else:
        alternations = 0.0
    if not (np.isfinite(f) and np.isfinite(theta) and np.isfinite(rate)):
        return STATUS_NOT_FINITE, df, alternations
    if abs(p - length) > MAX_STRETCH:
        return STATUS_STRETCH, df, alternations
    if alternations >= CHATTER_STEPS:
        return STATUS_CHATTER, df, alternations
    return STATUS_OK, df, alternations


@nb.njit(cache=True, error_model="numpy")
def own_pump_loop(cp, ap, uh, ua_hat, f_ey, stiffness, damping, h, state, k0, k1, out):
    """Advance one arm on its own pump from sample k0 to k1 (exclusive), filling ``out[:, 0, k]``.

    ``uh``: normalised openings (n, 5); ``ua_hat``: û_a per sample (regeneration, Sec. 5);
    ``f_ey``: (n,); ``state``: (1, 7), carried across calls. Returns (status, k, 0) as
    ``shared_pump_loop`` does. Built for speed, since the chain θ_k → ℓ_k → f_k → θ_{k+1} is
    serial: the state lives in locals, the openings come as tuples, and (cos, sin)(θ − α) is
    carried and rotated by h·θ̇ each step (``rotate_unit``), restarted from θ at every call.
    """
    theta, rate, p_prev, l_prev, f_prev, df_prev, alternations = state[0]
    chatter_size = CHATTER_FRACTION * (cp[I_FHM] + cp[I_FRM])
    h_over_inertia = h / ap[K_JP]
    c = math.cos(theta - ap[K_ALPHA])
    s = math.sin(theta - ap[K_ALPHA])
    status, k_end = STATUS_OK, k1
    for k in range(k0, k1):
        l_now, lever, cos_theta = arm_geometry_at(ap, c, s)
        reg_status = 0
        if ua_hat[k] == 0.0:
            p, f, v = relaxed_step_scalar(cp, openings_at(uh, k), stiffness, damping, h, p_prev, l_prev, l_now)
        else:
            p, f, v, reg_status = relaxed_regeneration_step_scalar(
                cp, uh[k], ua_hat[k], stiffness, damping, h, p_prev, l_prev, l_now
            )
        # recorded before any failure is reported, so the error names this sample's state
        status, df_prev, alternations = _record_sample(
            out, 0, k, theta, rate, l_now, p, v, f, np.nan, chatter_size, f_prev, df_prev, alternations
        )
        if reg_status != 0:
            status = STATUS_CLOSED_BLEED if reg_status == REG_CLOSED_BLEED else STATUS_ROOT
        if status != STATUS_OK:
            k_end = k
            break
        f_prev = f
        rate += h_over_inertia * arm_torque(ap, cos_theta, lever, f, f_ey[k])
        theta += h * rate
        c, s = rotate_unit(c, s, h * rate)
        p_prev = p
        l_prev = l_now
    state[0, 0], state[0, 1], state[0, 2], state[0, 3] = theta, rate, p_prev, l_prev
    state[0, 4], state[0, 5], state[0, 6] = f_prev, df_prev, alternations
    return status, k_end, 0


@nb.njit(cache=True, error_model="numpy")
def shared_pump_loop(cps, aps, uhs, f_ey, stiffness, damping, h, state, pump_state, k0, k1, out):
    """Advance N arms on one pump (Sec. 6) from sample k0 to k1 (exclusive), filling ``out[:, j, k]``.

    ``uhs``: normalised openings (n, N, 5); ``f_ey``: (n, N); ``stiffness``, ``damping``: per
    arm; ``state``: (N, 7) and ``pump_state`` carried across calls. Returns (status, k, j): the
    sample and arm where a failure was detected, or (STATUS_OK, k1, 0).
    """
    n_arms = cps.shape[0]
    theta = state[:, S_THETA].copy()
    rate = state[:, S_RATE].copy()
    p_prev = state[:, S_P].copy()
    l_prev = state[:, S_LPREV].copy()
    f_prev = state[:, S_FPREV].copy()
    df_prev = state[:, S_DFPREV].copy()
    alternations = state[:, S_ALTERNATIONS].copy()
    chatter_size = CHATTER_FRACTION * (cps[:, I_FHM] + cps[:, I_FRM])
    h_over_inertia = h / aps[:, K_JP]
    l_now = np.empty(n_arms)
    levers = np.empty(n_arms)
    cosines = np.empty(n_arms)
    p_new = np.empty(n_arms)
    f_new = np.empty(n_arms)
    v_new = np.empty(n_arms)
    for k in range(k0, k1):
        for j in range(n_arms):
            l_now[j], levers[j], cosines[j] = arm_geometry(aps[j], theta[j])
        pump, root_status = relaxed_network_step_kernel(
            cps, uhs[k], stiffness, damping, h, p_prev, l_prev, l_now, p_new, f_new, v_new, pump_state
        )
        for j in range(n_arms):
            f = f_new[j]
            status, df_prev[j], alternations[j] = _record_sample(
                out,
                j,
                k,
                theta[j],
                rate[j],
                l_now[j],
                p_new[j],
                v_new[j],
                f,
                pump,
                chatter_size[j],
                f_prev[j],
                df_prev[j],
                alternations[j],
            )
            if root_status != 0:
                status = STATUS_ROOT
            if status != STATUS_OK:
                return status, k, j
            f_prev[j] = f
            rate[j] += h_over_inertia[j] * arm_torque(aps[j], cosines[j], levers[j], f, f_ey[k, j])
            theta[j] += h * rate[j]
            p_prev[j] = p_new[j]
            l_prev[j] = l_now[j]
    for j in range(n_arms):
        state[j, S_THETA], state[j, S_RATE], state[j, S_P], state[j, S_LPREV] = theta[j], rate[j], p_prev[j], l_prev[j]
        state[j, S_FPREV], state[j, S_DFPREV], state[j, S_ALTERNATIONS] = f_prev[j], df_prev[j], alternations[j]
    return STATUS_OK, k1, 0


def refuse_unstable(arm: SingleArm, relaxation: Relaxation, h: float, which: str) -> None:
    """Raise SimulationError naming the largest stable stiffness if the relaxation (K, B) is unstable
    at step ``h`` [s] on the arm's closed valves (h²K/m + 2hB/m < 4); ``which`` prefixes the fields."""
    limit = check_stability(arm, relaxation, h)
    if not limit.stable:
        raise SimulationError(
            f"{which}relaxation.stiffness = {relaxation.stiffness:.3g} N/m and damping = {relaxation.damping:.3g} "
            f"N s/m are unstable with step h = {h:g} s (arm effective mass {limit.effective_mass:.4g} kg): "
            f"{stable_relaxation_advice(limit.effective_mass, h, relaxation.damping)}, or use a smaller step"
        )


def simulate_arms(
    arms: list[SingleArm],
    circuits: list[ValveCircuit],
    relaxation: Relaxation,
    t: np.ndarray,
    valve_commands: np.ndarray,
    bleed: np.ndarray,
    external_forces: np.ndarray,
    initial_angles,
    initial_rates,
    regeneration: np.ndarray | None = None,
    progress: ProgressCallback | None = None,
    chunk_steps: int = CHUNK_STEPS,
    length_range: tuple[float, float] | None = None,
    angle_ranges: list[tuple[float, float] | None] | None = None,
    shared_pump: bool | None = None,
) -> list[SimulationResult]:
    """Simulate N arms on the uniform grid ``t`` [s] with inputs sampled on it; one result each.

    ``valve_commands`` u_c ∈ [−1, 1] (67), shape (len(t), N); ``bleed`` u_b ∈ [0, 1], shape
    (len(t),), belongs to the pump; ``external_forces`` f_ey [N] (positive upward), (len(t), N);
    ``regeneration`` u_a ∈ [0, 1], shape (len(t),), only for one arm on its own pump (Sec. 5;
    regeneration on a shared pump is an open problem of the paper). Several arms share one pump
    (Sec. 6), their circuits agreeing on the pump fields. ``length_range`` (ℓ_min, ℓ_max) [m], the
    cylinders' travel, and ``angle_ranges`` (θ_min, θ_max) [rad] per arm bound the motion
    (``travel.check_travel``). ``shared_pump``: step the arms as a pump network (Sec. 6), which also
    reports the pump pressure P; default: when there are several arms. Raises ``SimulationError`` if
    the step is unstable for the relaxation, the run diverges or leaves those bounds (the earliest
    of these is named).
    """
    n_arms = len(arms)
    shared = n_arms > 1 if shared_pump is None else bool(shared_pump)
    h = float(t[1] - t[0])
    n = t.size
    for j, arm in enumerate(arms):
        refuse_unstable(arm, relaxation, h, f"arm {j + 1}: " if n_arms > 1 else "")
    drive = ArmDrive.of(valve_commands, bleed, external_forces, regeneration, n, n_arms)
    refuse_shared_regeneration(drive, shared)
    uhs, ua_hat = drive.kernel_openings(circuits, shared)
    cps = np.array([c.kernel_array() for c in circuits])
    aps = np.array([a.kernel_array() for a in arms])
    state = initial_state(arms, initial_angles, initial_rates)

    if not shared:
        loop = own_pump_loop
        inputs = (
            cps[0],
            aps[0],
            np.ascontiguousarray(uhs[:, 0]),
            ua_hat,
            np.ascontiguousarray(drive.forces[:, 0]),
            relaxation.stiffness,
            relaxation.damping,
            h,
        )
        carried = (state,)
    else:
        loop = shared_pump_loop
        inputs = (
            cps,
            aps,
            uhs,
            drive.forces,
            np.full(n_arms, relaxation.stiffness),
            np.full(n_arms, relaxation.damping),
            h,
        )
        carried = (state, new_pump_state(PumpNetwork(circuits)))

    t0 = time.perf_counter()
    out = np.empty((7, n_arms, n))
    loop(*inputs, *(c.copy() for c in carried), 0, 1, out)  # compilation or cache load, timed apart
    compile_time = time.perf_counter() - t0

    edges = np.unique(np.append(np.arange(0, n, chunk_steps), n))
    t0 = time.perf_counter()
    status, k_fail, j_fail = STATUS_OK, n, 0
    for k0, k1 in zip(edges[:-1], edges[1:]):
        status, k_fail, j_fail = loop(*inputs, *carried, k0, k1, out)
        if progress is not None:
            progress(k1 / n)
        if status != STATUS_OK:
            break
    loop_time = time.perf_counter() - t0
    check_run(t, out, status, k_fail, j_fail, length_range, angle_ranges)
    counters = {"steps": float(n), "compile_time_s": compile_time, "loop_time_s": loop_time}
    return arm_results(t, out, drive, cps, uhs, ua_hat, shared, counters)


@dataclass(frozen=True)
class ArmDrive:
    """The inputs of one run sampled on its time grid (n samples, N arms): valve commands u_c
    (n, N), bleed u_b (n,), external forces f_ey [N] (n, N), regeneration opening u_a (n,)."""

    commands: np.ndarray
    bleed: np.ndarray
    forces: np.ndarray
    regeneration: np.ndarray

    @classmethod
    def of(cls, valve_commands, bleed, external_forces, regeneration, n: int, n_arms: int) -> ArmDrive:
        """The inputs as float arrays of the shapes above (``regeneration`` None: closed)."""
        return cls(
            np.asarray(valve_commands, dtype=np.float64).reshape(n, n_arms),
            np.asarray(bleed, dtype=np.float64),
            np.ascontiguousarray(np.asarray(external_forces, dtype=np.float64).reshape(n, n_arms)),
            np.zeros(n) if regeneration is None else np.asarray(regeneration, dtype=np.float64),
        )

    def kernel_openings(self, circuits, shared: bool) -> tuple[np.ndarray, np.ndarray]:
        """(û (n, N, 5) of (40)–(43) per arm's circuit, û_a (n,)) as the loops take them (û_a is
        u_a itself on a shared pump, where regeneration is refused)."""
        uhs = np.empty((self.forces.shape[0], len(circuits), 5))
        for j, circuit in enumerate(circuits):
            uhs[:, j] = normalised_openings(circuit, Openings.from_command(self.commands[:, j], self.bleed))
        return uhs, self.regeneration if shared else regeneration_openings(circuits[0], self.regeneration)


def refuse_shared_regeneration(drive: ArmDrive, shared: bool) -> None:
    """Raise SimulationError if arms ``shared`` on one pump open a regeneration valve (not modelled)."""
    if shared and np.any(drive.regeneration > 0.0):
        raise SimulationError(
            "regeneration with several arms on one pump is not modelled (an open problem of "
            "Kikuuwe et al. Sec. 7); set the regeneration opening to 0 or simulate one arm"
        )


def initial_state(arms: list[SingleArm], initial_angles, initial_rates) -> np.ndarray:
    """The loops' carried state (N, 7) at t = 0: θ(0), θ̇(0), and p = ℓ_prev = ℓ(θ(0)) (unstretched)."""
    state = np.zeros((len(arms), 7))
    for j, arm in enumerate(arms):
        length0 = float(arm.cylinder_length(initial_angles[j])[0])
        state[j, [S_THETA, S_RATE, S_P, S_LPREV]] = (initial_angles[j], initial_rates[j], length0, length0)
    return state


def check_run(t, out, status, k_fail, j_fail, length_range, angle_ranges) -> None:
    """Raise ``SimulationError`` for a run (records ``out`` (7, N, n)) that left its travel or
    stopped with ``status`` at sample ``k_fail`` of arm ``j_fail``; the travel is named first (a
    motion past the end of travel is the cause of a later divergence)."""
    n_arms = out.shape[1]
    ran = k_fail + 1 if status != STATUS_OK else t.size
    angle_ranges = angle_ranges or [None] * n_arms
    for j in range(n_arms):
        check_travel(
            t[:ran],
            out[ROW_LENGTH, j, :ran],
            length_range,
            out[ROW_THETA, j, :ran],
            angle_ranges[j],
            f"arm {j + 1}" if n_arms > 1 else "the arm",
        )
    if status != STATUS_OK:
        _raise_failure(status, t[k_fail], j_fail, out[:, j_fail, k_fail], n_arms)


def arm_results(t, out, drive: ArmDrive, cps, uhs, ua_hat, shared: bool, counters) -> list[SimulationResult]:
    """One ``SimulationResult`` per arm of a finished run (records ``out`` (7, N, n))."""
    n = t.size
    return [
        _arm_result(
            t,
            out[:, j],
            drive.commands[:, j],
            drive.bleed,
            drive.regeneration,
            drive.forces[:, j],
            shared=shared,
            counters=counters,
            chambers=run_chamber_pressures(
                cps[j], uhs[:, j], np.zeros(n) if shared else ua_hat, out[ROW_PUMP, j], out[ROW_V, j], out[ROW_F, j]
            ),
        )
        for j in range(out.shape[1])
    ]


def _raise_failure(status: int, time_: float, arm: int, row: np.ndarray, n_arms: int) -> None:
    which = f"arm {arm + 1} of the " if n_arms > 1 else "the arm "
    state = f"t = {time_:.4g} s (θ = {np.degrees(row[ROW_THETA]):.4g} deg, f = {row[ROW_F]:.4g} N)"
    if status == STATUS_CLOSED_BLEED:
        raise SimulationError(
            f"{which}simulation stopped at {state}: the regeneration valve is open while extending with the bleed "
            "closed, which the regeneration model does not cover (Kikuuwe et al. Sec. 5); open the bleed a little "
            "(u_b > 0) or close the regeneration valve there"
        )
    what = {
        STATUS_NOT_FINITE: "a non-finite state",
        STATUS_STRETCH: f"a relaxed stretch |p − ℓ| > {MAX_STRETCH} m",
        STATUS_CHATTER: "a force chattering from step to step",
        STATUS_ROOT: "a root search that did not converge",
    }[status]
    raise SimulationError(f"{which}simulation diverged at {state} with {what}: reduce the step or relaxation.stiffness")


def _arm_result(t, rows, command, bleed, u_a, f_ey, shared: bool, counters, chambers) -> SimulationResult:
    lengths = rows[ROW_LENGTH]
    channels = {
        "valve_command": Channel(command, "1", "valve command u_c"),
        "bleed": Channel(np.asarray(bleed, dtype=np.float64), "1", "bleed opening u_b"),
        "regeneration": Channel(u_a, "1", "regeneration opening u_a"),
        "external_force": Channel(f_ey, "N", "external force f_ey"),
        "theta": Channel(rows[ROW_THETA], "rad", "arm angle θ"),
        "theta_rate": Channel(rows[ROW_RATE], "rad/s", "arm angular rate θ̇"),
        "length": Channel(lengths, "m", "cylinder length ℓ"),
        "rod_position": Channel(rows[ROW_P], "m", "rod displacement p"),
        "rod_velocity": Channel(rows[ROW_V], "m/s", "rod velocity v"),
        "force": Channel(rows[ROW_F], "N", "actuator force f"),
        "stretch": Channel(rows[ROW_P] - lengths, "m", "relaxed element p − ℓ"),
        "head_pressure": Channel(chambers[0], GAUGE_PRESSURE, "head-side pressure P_h"),
        "rod_pressure": Channel(chambers[1], GAUGE_PRESSURE, "rod-side pressure P_r"),
    }
    if shared:
        channels["pump_pressure"] = Channel(rows[ROW_PUMP], GAUGE_PRESSURE, "pump pressure P (126)")
    return SimulationResult(t=t, channels=channels, counters=dict(counters))


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
    regeneration: np.ndarray | None = None,
    progress: ProgressCallback | None = None,
    length_range: tuple[float, float] | None = None,
    angle_range: tuple[float, float] | None = None,
) -> SimulationResult:
    """Simulate one arm on its own pump (see ``simulate_arms``): ``valve_command``, ``bleed``,
    ``external_force`` and ``regeneration`` sampled on ``t``, of shape (len(t),)."""
    (result,) = simulate_arms(
        [arm],
        [circuit],
        relaxation,
        t,
        valve_command,
        bleed,
        external_force,
        [initial_angle],
        [initial_rate],
        regeneration=regeneration,
        progress=progress,
        length_range=length_range,
        angle_ranges=[angle_range],
    )
    return result

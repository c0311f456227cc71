"""Single-DOF arms of Kikuuwe et al. Sec. 4.3 driven by pressure-dynamics cylinders on one pump.

N arms (N = 1 for the arm of Fig. 5, N = 2 for Fig. 13), each with its own cylinder and four
valves, share one pump line. State y = [θ_j, θ̇_j, p_h,j, p_r,j for j = 0 … N−1, then P]
(rad, rad/s, Pa, Pa; Pa). Cylinder j of :mod:`actuatorlab.hydraulics.pressure_dynamics` sits
between the pins of arm j: piston position x = ℓ(θ) − ℓ₀, rate ẋ = (dℓ/dθ)·θ̇, force
f = A_h p_h − A_r p_r entering (79) through the lever arm dℓ/dθ, exactly as the relaxed
quasistatic actuator does in :mod:`.arm`. Inputs (valve openings, external forces) are
sampled on the output grid and interpolated linearly in time. The Jacobian is analytic
(``chamber_rates`` partials and d²ℓ/dθ² from ``arm_curvature``). The pump line (Q, P_M, bleed,
volume) is that of the first actuator; the others must agree (``PumpNetwork`` checks it).

At t = 0 every arm is held: its chamber pressures balance the torque of gravity and load with
the less loaded chamber at ``initial_low_pressure``, and the pump line is at its idle pressure.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..hydraulics.pressure_dynamics import (
    D_P,
    D_PH,
    D_PR,
    D_X,
    D_XDOT,
    H_L0,
    U_B,
    PressureDynamics,
    chamber_rates,
    holding_pressures,
    idle_pump_pressure,
    openings_from_command,
    pump_line_rate,
    pump_line_stiffness,
)
from ..hydraulics.quasistatic.circuit import I_AH, I_AR, ValveCircuit
from ..mechanics.single_arm import SingleArm
from ..mechanics.single_arm_kernels import arm_curvature, arm_geometry, arm_torque, arm_torque_slope
from ..mechanics.single_arm_layout import K_JP
from ..numerics.layout import Layout
from .ode import inputs_at, integrate, jacobians_along, largest_stable_step
from .travel import check_travel
from .result import GAUGE_PRESSURE, Channel, SimulationResult

ARM_STATE = Layout("A_", "theta", "rate", "ph", "pr")
(A_THETA, A_RATE, A_PH, A_PR) = ARM_STATE.indices
PER_ARM = len(ARM_STATE)


@nb.njit(cache=True)
def arms_pressure_rhs(t, y, out, cps, hps, aps, u_samples, f_samples, h):
    """ẏ of N arms on one pump (see the module docstring); parameter rows per arm."""
    u, f_ey = inputs_at(t, h, u_samples, f_samples)
    n_arms = cps.shape[0]
    pump = y[PER_ARM * n_arms]
    rates = np.empty(2)
    partials = np.empty((2, 5))
    draw = 0.0
    for j in range(n_arms):
        i = PER_ARM * j
        cp, hp, ap = cps[j], hps[j], aps[j]
        length, lever, cos_theta = arm_geometry(ap, y[i + A_THETA])
        q, _, _, _ = chamber_rates(
            cp, hp, u[j], length - hp[H_L0], lever * y[i + A_RATE], y[i + A_PH], y[i + A_PR], pump, rates, partials
        )
        draw += q
        force = cp[I_AH] * y[i + A_PH] - cp[I_AR] * y[i + A_PR]
        out[i + A_THETA] = y[i + A_RATE]
        out[i + A_RATE] = arm_torque(ap, cos_theta, lever, force, f_ey[j]) / ap[K_JP]
        out[i + A_PH] = rates[0]
        out[i + A_PR] = rates[1]
    out[PER_ARM * n_arms], _ = pump_line_rate(cps[0], hps[0], u[0, U_B], pump, draw)


@nb.njit(cache=True)
def arms_pressure_jac(t, y, out, cps, hps, aps, u_samples, f_samples, h):
    """∂ẏ/∂y of ``arms_pressure_rhs``, analytic."""
    u, f_ey = inputs_at(t, h, u_samples, f_samples)
    n_arms = cps.shape[0]
    last = PER_ARM * n_arms
    pump = y[last]
    rates = np.empty(2)
    partials = np.empty((2, 5))
    out[:, :] = 0.0
    draw = 0.0
    for j in range(n_arms):
        i = PER_ARM * j
        cp, hp, ap = cps[j], hps[j], aps[j]
        theta = y[i + A_THETA]
        rate = y[i + A_RATE]
        length, lever, _ = arm_geometry(ap, theta)
        curvature = arm_curvature(ap, theta, length, lever)
        q, dq_ph, dq_pr, dq_p = chamber_rates(
            cp, hp, u[j], length - hp[H_L0], lever * rate, y[i + A_PH], y[i + A_PR], pump, rates, partials
        )
        draw += q
        force = cp[I_AH] * y[i + A_PH] - cp[I_AR] * y[i + A_PR]
        jp = ap[K_JP]
        out[i + A_THETA, i + A_RATE] = 1.0
        out[i + A_RATE, i + A_THETA] = arm_torque_slope(ap, theta, curvature, force, f_ey[j]) / jp
        out[i + A_RATE, i + A_PH] = lever * cp[I_AH] / jp
        out[i + A_RATE, i + A_PR] = -lever * cp[I_AR] / jp
        for c in range(2):
            row = i + A_PH + c
            out[row, i + A_THETA] = partials[c, D_X] * lever + partials[c, D_XDOT] * curvature * rate
            out[row, i + A_RATE] = partials[c, D_XDOT] * lever
            out[row, i + A_PH] = partials[c, D_PH]
            out[row, i + A_PR] = partials[c, D_PR]
            out[row, last] = partials[c, D_P]
        kp = -pump_line_stiffness(hps[0])  # ∂Ṗ/∂(draw)
        out[last, i + A_PH] = kp * dq_ph
        out[last, i + A_PR] = kp * dq_pr
        out[last, last] += kp * dq_p
    _, d_pump = pump_line_rate(cps[0], hps[0], u[0, U_B], pump, draw)
    out[last, last] += d_pump


def simulate_arms_pressure(
    arms: list[SingleArm],
    circuits: list[ValveCircuit],
    fluids: list[PressureDynamics],
    t: np.ndarray,
    openings: np.ndarray,
    external_forces: np.ndarray,
    initial_angles,
    initial_rates,
    initial_low_pressure: float = 2.0e6,
    solver: str = "LSODA",
    rtol: float = 1e-6,
    progress=None,
    angle_ranges: list[tuple[float, float] | None] | None = None,
) -> list[SimulationResult]:
    """Simulate N arms on one pump on the uniform grid ``t`` [s]; one result per arm.

    ``openings``: raw valve openings of shape (len(t), N, 6) in the layout of
    ``pressure_dynamics.raw_openings`` (u_ph, u_tr, u_pr, u_th, u_b, u_a), u_b equal for all
    arms; ``external_forces`` f_ey [N] (positive upward), shape (len(t), N). ``solver`` and
    ``rtol`` as in :func:`.ode.integrate`; the step of "RK4" is the grid step. Raises
    ``SimulationError`` if the integration fails, a piston leaves its stroke [0, s] or an arm its
    ``angle_ranges`` entry (θ_min, θ_max) [rad] (``travel.check_travel``: the model has no end
    stops). Each result carries the shared pump pressure.
    """
    n_arms = len(arms)
    h = float(t[1] - t[0])
    cps = np.array([c.kernel_array() for c in circuits])
    hps = np.array([f.kernel_array() for f in fluids])
    aps = np.array([a.kernel_array() for a in arms])
    u = np.ascontiguousarray(openings, dtype=np.float64)
    f_ey = np.ascontiguousarray(external_forces, dtype=np.float64)
    y0 = np.empty(PER_ARM * n_arms + 1)
    scale = max(max(c.head_relief_pressure, c.rod_relief_pressure, c.pump_relief_pressure) for c in circuits)
    atol = np.empty_like(y0)
    bounds = np.empty_like(y0)
    for j, (arm, circuit) in enumerate(zip(arms, circuits)):
        _, lever0 = (float(a) for a in arm.cylinder_length(initial_angles[j]))
        load_torque = float(arm.torque(initial_angles[j], 0.0, f_ey[0, j]))
        p_h0, p_r0 = holding_pressures(circuit, -load_torque / lever0, initial_low_pressure)
        y0[PER_ARM * j : PER_ARM * (j + 1)] = (initial_angles[j], initial_rates[j], p_h0, p_r0)
        atol[PER_ARM * j : PER_ARM * (j + 1)] = (1e-8, 1e-7, 1e-6 * scale, 1e-6 * scale)
        bounds[PER_ARM * j : PER_ARM * (j + 1)] = (1e3, 1e4, 10.0 * scale, 10.0 * scale)
    y0[-1] = idle_pump_pressure(circuits[0], float(u[0, 0, U_B]))
    atol[-1] = 1e-6 * scale
    bounds[-1] = 10.0 * scale
    args = (cps, hps, aps, u, f_ey, h)
    states, counters = integrate(
        arms_pressure_rhs,
        arms_pressure_jac,
        args,
        y0,
        t,
        solver=solver,
        rtol=rtol,
        atol=atol,
        bounds=bounds,
        progress=progress,
    )
    counters["steps"] = float(t.size)
    angle_ranges = angle_ranges or [None] * n_arms
    for j, (arm, fluid) in enumerate(zip(arms, fluids)):
        theta = states[:, PER_ARM * j + A_THETA]
        check_travel(
            t,
            arm.cylinder_length(theta)[0],
            (fluid.retracted_length, fluid.retracted_length + fluid.stroke),
            theta,
            angle_ranges[j],
            f"arm {j + 1}" if n_arms > 1 else "the arm",
        )
    return [
        _arm_result(t, states, j, arms[j], circuits[j], fluids[j], u[:, j], f_ey[:, j], counters) for j in range(n_arms)
    ]


def simulate_arm_pressure(
    arm: SingleArm,
    circuit: ValveCircuit,
    fluid: PressureDynamics,
    t: np.ndarray,
    valve_command: np.ndarray,
    bleed: np.ndarray,
    external_force: np.ndarray,
    initial_angle: float = 0.0,
    initial_rate: float = 0.0,
    regeneration: np.ndarray | float = 0.0,
    progress=None,
    angle_range: tuple[float, float] | None = None,
    **integration,
) -> SimulationResult:
    """Simulate one arm on its own pump (see :func:`simulate_arms_pressure`) driven by a valve
    command u_c ∈ [−1, 1], bleed u_b and regeneration u_a ∈ [0, 1] sampled on ``t`` (openings by
    (67)); ``integration``: ``initial_low_pressure``, ``solver``, ``rtol``."""
    openings = openings_from_command(valve_command, bleed, regeneration)
    (result,) = simulate_arms_pressure(
        [arm],
        [circuit],
        [fluid],
        t,
        openings[:, None, :],
        np.asarray(external_force)[:, None],
        [initial_angle],
        [initial_rate],
        progress=progress,
        angle_ranges=[angle_range],
        **integration,
    )
    return result


def _arm_result(t, states, j, arm, circuit, fluid, u, f_ey, counters) -> SimulationResult:
    theta = states[:, PER_ARM * j + A_THETA]
    rate = states[:, PER_ARM * j + A_RATE]
    p_h = states[:, PER_ARM * j + A_PH]
    p_r = states[:, PER_ARM * j + A_PR]
    lengths, levers = arm.cylinder_length(theta)
    channels = {
        "valve_command": Channel(u[:, 0] - u[:, 2], "1", "valve command u_c"),
        "bleed": Channel(u[:, 4], "1", "bleed opening u_b"),
        "regeneration": Channel(u[:, 5], "1", "regeneration opening u_a"),
        "external_force": Channel(f_ey, "N", "external force f_ey"),
        "theta": Channel(theta, "rad", "arm angle θ"),
        "theta_rate": Channel(rate, "rad/s", "arm angular rate θ̇"),
        "length": Channel(lengths, "m", "cylinder length ℓ"),
        "rod_velocity": Channel(levers * rate, "m/s", "rod velocity ℓ̇"),
        "force": Channel(circuit.head_area * p_h - circuit.rod_area * p_r, "N", "actuator force f"),
        "head_pressure": Channel(p_h, GAUGE_PRESSURE, "head-side pressure p_h"),
        "rod_pressure": Channel(p_r, GAUGE_PRESSURE, "rod-side pressure p_r"),
        "pump_pressure": Channel(states[:, -1], GAUGE_PRESSURE, "pump-line pressure P"),
    }
    return SimulationResult(t=t, channels=channels, counters=dict(counters))


def rk4_stable_step(
    arm: SingleArm, circuit: ValveCircuit, fluid: PressureDynamics, result: SimulationResult, openings: np.ndarray
) -> float:
    """The largest fixed step [s] RK4 could take along the trajectory of a one-arm ``result``:
    the minimum of ``ode.largest_stable_step`` over the Jacobians at its samples. ``openings``
    are the raw openings (len(t), 6) the run was driven with."""
    t = result.t
    args = (
        circuit.kernel_array()[None],
        fluid.kernel_array()[None],
        arm.kernel_array()[None],
        np.ascontiguousarray(openings[:, None, :]),
        np.ascontiguousarray(result["external_force"][:, None]),
        float(t[1] - t[0]),
    )
    states = np.column_stack(
        [result[name] for name in ("theta", "theta_rate", "head_pressure", "rod_pressure", "pump_pressure")]
    )
    return largest_stable_step(jacobians_along(arms_pressure_jac, args, t, states))

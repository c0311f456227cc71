"""A loaded rod on the pressure-dynamics cylinder: the test bench of the quasistatic limit.

State y = [x, ẋ, p_h, p_r, P] (m, m/s, Pa, Pa, Pa); x is the piston position from full
retraction. The rod and its load have mass m [kg]; the external load F_load + b·ẋ [N] acts on
the rod with the sign of the actuator force (F_load > 0 compresses the rod, b [N s/m] is a load
damper), so m ẍ = f − F_load − b ẋ with f = A_h p_h − A_r p_r. Under constant openings the
steady velocity solves F_load + b v ∈ Γ(v), i.e. v = Λ(b, F_load) of the quasistatic model,
which the damper makes unique on the relief branches too.
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
    H_BULK_MODULUS,
    H_VP,
    U_B,
    PressureDynamics,
    chamber_rates,
    holding_pressures,
    idle_pump_pressure,
    pump_line_rate,
)
from ..hydraulics.quasistatic.circuit import I_AH, I_AR, ValveCircuit
from ..numerics.layout import Layout
from ..validation import non_negative, positive
from .ode import inputs_at, integrate
from .result import GAUGE_PRESSURE, Channel, SimulationResult

STATE = Layout("Y_", "x", "xdot", "ph", "pr", "p")
(Y_X, Y_XDOT, Y_PH, Y_PR, Y_P) = STATE.indices


@nb.njit(cache=True, inline="always")
def _rod_chambers(t, y, cp, hp, u_samples, f_samples, h):
    """The openings u and load [N] at t [s], and ``chamber_rates`` at the state y: (u, load,
    chamber pressure rates [Pa/s] (2,), their partials (2, 5), pump-line draw [m³/s] and its
    partials in p_h, p_r, P [m³/(s Pa)])."""
    u, load = inputs_at(t, h, u_samples, f_samples)
    rates = np.empty(2)
    partials = np.empty((2, 5))
    draw, dq_ph, dq_pr, dq_p = chamber_rates(cp, hp, u, y[Y_X], y[Y_XDOT], y[Y_PH], y[Y_PR], y[Y_P], rates, partials)
    return u, load, rates, partials, draw, dq_ph, dq_pr, dq_p


@nb.njit(cache=True)
def rod_pressure_rhs(t, y, out, cp, hp, mass, damping, u_samples, f_samples, h):
    """ẏ of the loaded rod (see the module docstring)."""
    u, load, rates, _, draw, _, _, _ = _rod_chambers(t, y, cp, hp, u_samples, f_samples, h)
    out[Y_X] = y[Y_XDOT]
    out[Y_XDOT] = (cp[I_AH] * y[Y_PH] - cp[I_AR] * y[Y_PR] - load - damping * y[Y_XDOT]) / mass
    out[Y_PH] = rates[0]
    out[Y_PR] = rates[1]
    out[Y_P], _ = pump_line_rate(cp, hp, u[U_B], y[Y_P], draw)


@nb.njit(cache=True)
def rod_pressure_jac(t, y, out, cp, hp, mass, damping, u_samples, f_samples, h):
    """∂ẏ/∂y of ``rod_pressure_rhs``, analytic."""
    u, _, _, partials, draw, dq_ph, dq_pr, dq_p = _rod_chambers(t, y, cp, hp, u_samples, f_samples, h)
    _, d_pump = pump_line_rate(cp, hp, u[U_B], y[Y_P], draw)
    kp = hp[H_BULK_MODULUS] / hp[H_VP]
    out[:, :] = 0.0
    out[Y_X, Y_XDOT] = 1.0
    out[Y_XDOT, Y_XDOT] = -damping / mass
    out[Y_XDOT, Y_PH] = cp[I_AH] / mass
    out[Y_XDOT, Y_PR] = -cp[I_AR] / mass
    for i in range(2):
        row = Y_PH + i
        out[row, Y_X] = partials[i, D_X]
        out[row, Y_XDOT] = partials[i, D_XDOT]
        out[row, Y_PH] = partials[i, D_PH]
        out[row, Y_PR] = partials[i, D_PR]
        out[row, Y_P] = partials[i, D_P]
    out[Y_P, Y_PH] = -kp * dq_ph
    out[Y_P, Y_PR] = -kp * dq_pr
    out[Y_P, Y_P] = d_pump - kp * dq_p


def simulate_rod_pressure(
    circuit: ValveCircuit,
    fluid: PressureDynamics,
    mass: float,
    t: np.ndarray,
    openings: np.ndarray,
    load: np.ndarray,
    load_damping: float = 0.0,
    initial_position: float | None = None,
    initial_low_pressure: float = 2.0e6,
    solver: str = "LSODA",
    rtol: float = 1e-6,
) -> SimulationResult:
    """Simulate the loaded rod on the uniform grid ``t`` [s] from rest, the chambers holding the
    initial load. ``openings`` (len(t), 6) as in ``pressure_dynamics.raw_openings``; ``load``
    F_load [N]; ``load_damping`` b [N s/m]; ``initial_position`` x(0) [m], default mid-stroke."""
    mass = positive("mass", mass, "kg")
    load_damping = non_negative("load_damping", load_damping, "N s/m")
    h = float(t[1] - t[0])
    u = np.ascontiguousarray(openings, dtype=np.float64)
    f_load = np.ascontiguousarray(load, dtype=np.float64)
    x0 = 0.5 * fluid.stroke if initial_position is None else float(initial_position)
    p_h0, p_r0 = holding_pressures(circuit, float(f_load[0]), initial_low_pressure)
    y0 = np.array([x0, 0.0, p_h0, p_r0, idle_pump_pressure(circuit, float(u[0, 4]))])
    scale = max(circuit.head_relief_pressure, circuit.rod_relief_pressure, circuit.pump_relief_pressure)
    atol = np.array([1e-9, 1e-9, 1e-6 * scale, 1e-6 * scale, 1e-6 * scale])
    args = (circuit.kernel_array(), fluid.kernel_array(), mass, load_damping, u, f_load, h)
    states, counters = integrate(rod_pressure_rhs, rod_pressure_jac, args, y0, t, solver=solver, rtol=rtol, atol=atol)
    channels = {
        "position": Channel(states[:, Y_X], "m", "piston position x"),
        "velocity": Channel(states[:, Y_XDOT], "m/s", "rod velocity ẋ"),
        "force": Channel(
            circuit.head_area * states[:, Y_PH] - circuit.rod_area * states[:, Y_PR], "N", "actuator force f"
        ),
        "head_pressure": Channel(states[:, Y_PH], GAUGE_PRESSURE, "head-side pressure p_h"),
        "rod_pressure": Channel(states[:, Y_PR], GAUGE_PRESSURE, "rod-side pressure p_r"),
        "pump_pressure": Channel(states[:, Y_P], GAUGE_PRESSURE, "pump-line pressure P"),
    }
    return SimulationResult(t=t, channels=channels, counters=counters)

"""Throughput of the relaxed step of N actuators on one pump (Kikuuwe et al. Sec. 6, algorithm H).

A compiled time loop calls ``relaxed_network_step_kernel`` every step, h = 1 ms, K = 5e7 N/m,
B = 2.5e6 N s/m, paper circuit (66), u_b = 0.2. Each rod drives a point mass of 5000 kg under a
compressive load of 1–1.5e5 N that varies in time, so ℓ changes every step; each actuator's
command is a ±u_c square wave (period 2 s) with its own phase, so at any time some extend and
some retract. With |u_c| = 0.5 the actuators together ask for more than the pump delivers: P
is below P_M (the pump node is contested, a root search every step) most of the time. With
|u_c| = 0.05 they ask for less: the pump relief is open (one balance evaluation per step).
The loop passes ``pump_state`` from step to step (the warm start); the last case omits it, so
every P search starts cold, for comparison.

Target: at least 10⁶ actuator-steps per second (≤ 2 µs per step for N = 2, ≤ 8 µs for N = 8).
Run: .venv/bin/python benchmarks/bench_network.py
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from _timing import median_time
from actuatorlab.hydraulics.quasistatic import Openings, ValveCircuit
from actuatorlab.hydraulics.quasistatic.circuit import I_PM
from actuatorlab.hydraulics.quasistatic.network import PumpNetwork, network_openings, relaxed_network_step_kernel

TARGET = 1.0e6
STEPS = 100_000
H = 1.0e-3
MASS = 5000.0  # kg: closed valves are stable for m > (h²K + 2hB)/4 ≈ 1.3 t
COMMAND_PERIOD = 2.0  # s
LOAD_PERIOD = 0.7  # s


@nb.njit(cache=True)
def _time_loop(cps, uh_extend, uh_retract, stiffness, damping, h, mass, load, steps, warm):
    """Run ``steps`` relaxed network steps, passing ``pump_state`` from step to step if ``warm``
    (else every P search starts cold); returns (steps with the pump relief open, failed steps)."""
    n = cps.shape[0]
    uhs = np.empty((n, 5))
    p = np.zeros(n)
    f = np.zeros(n)
    v = np.zeros(n)
    rate = np.zeros(n)
    l_now = np.zeros(n)
    l_prev = np.zeros(n)
    relief = 0
    failed = 0
    pump_state = np.array([cps[0, I_PM], 0.0])
    half_period = int(0.5 * COMMAND_PERIOD / h + 0.5)  # steps
    for k in range(steps):
        swing = 0.3 * math.sin(2.0 * math.pi * k * h / LOAD_PERIOD)
        for j in range(n):
            # square-wave command, phase shifted by j/n of a period: half the actuators extend
            extend = ((k + 2 * half_period * j // n) // half_period) % 2 == 0
            uhs[j] = uh_extend[j] if extend else uh_retract[j]
            # semi-implicit Euler of the point mass, m ℓ̈ = f − load; odd and even loads swing in antiphase
            load_now = load[j] * (1.0 + (swing if j % 2 == 0 else -swing))
            rate[j] += h * (f[j] - load_now) / mass
            l_prev[j] = l_now[j]
            l_now[j] += h * rate[j]
        if warm:
            pressure, status = relaxed_network_step_kernel(
                cps, uhs, stiffness, damping, h, p, l_prev, l_now, p, f, v, pump_state
            )
        else:
            pressure, status = relaxed_network_step_kernel(cps, uhs, stiffness, damping, h, p, l_prev, l_now, p, f, v)
        relief += pressure == cps[0, I_PM]
        failed += status != 0
    return relief, failed


def _case(n: int, command: float, warm: bool) -> tuple[float, float, float]:
    """(actuator-steps/s median, actuator-steps/s best, fraction of steps in relief) for N = n
    actuators at commands ±``command``."""
    circuit = ValveCircuit.paper_example()
    network = PumpNetwork([circuit] * n)
    cps = network.kernel_array()
    uh_extend = network_openings(network, [Openings.from_command(command, 0.2)] * n)
    uh_retract = network_openings(network, [Openings.from_command(-command, 0.2)] * n)
    stiffness = np.full(n, 5.0e7)
    damping = np.full(n, 2.5e6)
    load = 1.0e5 * (1.0 + 0.5 * np.arange(n) / n)
    result = []

    def run():
        result.append(_time_loop(cps, uh_extend, uh_retract, stiffness, damping, H, MASS, load, STEPS, warm))

    median, best = median_time(run, repeats=5)
    relief, failed = result[-1]
    if failed:
        print(f"  warning: {failed} steps with a failed pump-pressure search")
    return n * STEPS / median, n * STEPS / best, relief / STEPS


CASES = (
    ("contested", 0.5, True),
    ("relief", 0.05, True),
    ("contested, no pump_state", 0.5, False),
)


def main() -> dict[str, float]:
    figures = {}
    for n in (2, 8):
        for label, command, warm in CASES:
            rate, best, relief = _case(n, command, warm)
            figures[f"N={n} {label}"] = rate
            print(
                f"network step, N = {n}, {label:24s} (|u_c| = {command:4}, relief open {relief:4.0%} of steps): "
                f"{rate / 1e6:5.2f} M actuator-steps/s = {n / rate * 1e6:5.2f} us/step "
                f"(median of 5, best {best / 1e6:.2f} M/s)  "
                + (
                    f"target >= {TARGET / 1e6:.0f} M/s: {'met' if rate >= TARGET else 'NOT met'}"
                    if warm
                    else "(for comparison)"
                )
            )
    return figures


if __name__ == "__main__":
    main()

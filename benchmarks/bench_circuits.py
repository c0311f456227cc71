"""Network solve of a netlist per quasistatic step (issue 30): three cylinders and a slewing
motor on a load-sensing bank with post-compensators (flow sharing), an LS pump and shuttle.

A compiled loop steps the quasistatic network at h = 1 ms for 20 000 steps with smoothly varying
spool positions and actuator velocities (each step's Newton started from the last two states
extrapolated), and reports the mean time of one network solve. Target (issue 30, item 4): ≤ 5 µs per step.
Run: .venv/bin/python benchmarks/bench_circuits.py
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from _timing import median_time
from actuatorlab.hydraulics.circuits import (
    CheckValve,
    Compensator,
    Cylinder,
    Motor,
    Network,
    ReliefValve,
    Shuttle,
    SpoolValve,
    Tank,
    VariablePump,
)
from actuatorlab.hydraulics.circuits.kernels import OK, SCRATCH_ROWS
from actuatorlab.hydraulics.circuits.solvers import network_step, solve

TARGET = 5e-6
STEPS = 20_000
H = 1e-3


def ls_bank() -> Network:
    """Pump → per section: a 4/3 spool (its P→A edge meters) then a post-compensator, to a
    cylinder (or the motor), B back through the spool; LS shuttle over the compensator inlets;
    a port relief and an anti-cavitation check on each service line, so that any velocity the
    mechanics imposes has a consistent state (flow the valve meters beyond it crosses the port
    relief, a deficit is sucked from the tank)."""
    parts = {
        "tank": (Tank(), {"port": "T"}),
        "pump": (
            VariablePump(max_displacement=120e-6, control="load_sensing", margin=2e6, band=0.2e6),
            {"inlet": "T", "outlet": "P", "ls": "LS"},
        ),
        "relief": (ReliefValve(setting=32e6), {"inlet": "P", "outlet": "T"}),
        "shuttle": (Shuttle(count=4), {"out": "LS", "drain": "T"}),
    }
    for i, name in enumerate(("boom", "stick", "bucket", "slew")):
        parts[f"{name}_valve"] = (
            SpoolValve(area=4e-5, leakage=1e-12),
            {"P": "P", "T": "T", "A": f"{name}_m", "B": f"{name}_b"},
        )
        parts[f"{name}_comp"] = (
            Compensator(position="after", spring_pressure=0.2e6),
            {"inlet": f"{name}_m", "outlet": f"{name}_a", "ls": "LS"},
        )
        parts["shuttle"][1][f"in{i + 1}"] = f"{name}_m"
        actuator = Motor(displacement=200e-6) if name == "slew" else Cylinder()
        ports = (
            {"inlet": f"{name}_a", "outlet": f"{name}_b"}
            if name == "slew"
            else {"head": f"{name}_a", "rod": f"{name}_b"}
        )
        parts[name] = (actuator, ports)
        for side in ("a", "b"):  # port relief and anti-cavitation check of each service line
            parts[f"{name}_{side}_relief"] = (ReliefValve(setting=30e6), {"inlet": f"{name}_{side}", "outlet": "T"})
            parts[f"{name}_{side}_suction"] = (CheckValve(), {"inlet": "T", "outlet": f"{name}_{side}"})
    return Network(parts)


@nb.njit(cache=True)
def _loop(rows, vols, gas, held, u_index, p, steps, h):
    """Quasistatic steps with slowly varying inputs, each Newton started from the last two
    states extrapolated (as ``solvers.simulate`` does); returns (failures, Newton iterations)."""
    n = p.size
    work = np.empty((n + SCRATCH_ROWS, n))
    dq = np.empty(5)
    u = np.zeros(u_index.shape[0])
    before, guess = p.copy(), p.copy()
    failures = 0
    iterations = 0
    for k in range(steps):
        t = k * h
        u[u_index[0]] = 180.0  # pump speed
        for j in range(4):
            x = 0.4 + 0.3 * math.sin(0.5 * t + j)  # spool opening (extend)
            u[u_index[1 + j]] = x
            u[u_index[5 + j]] = 0.02 * x  # actuator velocity (or motor speed / 5), below the demand
        for i in range(n):
            guess[i] = 2.0 * p[i] - before[i]
            before[i] = p[i]
        status, its, _ = network_step(rows, vols, gas, held, 0.0, u, h, p, guess, work, dq)
        iterations += its
        if status != OK:
            failures += 1
    return failures, iterations


def main() -> None:
    network = ls_bank()
    names = [
        "pump.speed",
        *(f"{n}_valve.position" for n in ("boom", "stick", "bucket", "slew")),
        "boom.velocity",
        "stick.velocity",
        "bucket.velocity",
        "slew.speed",
    ]
    u_index = np.array([network.inputs.index(n) for n in names])
    u0 = np.zeros(len(network.inputs))
    u0[u_index[0]] = 180.0
    for j in range(4):
        u0[u_index[1 + j]] = 0.4 + 0.3 * math.sin(j)
        u0[u_index[5 + j]] = 0.02 * u0[u_index[1 + j]]
    p0 = solve(network, u0)
    median, best = median_time(
        lambda: _loop(network.rows, network.volumes, network.gas, network.held, u_index, p0.copy(), STEPS, H), repeats=5
    )
    failures, iterations = _loop(network.rows, network.volumes, network.gas, network.held, u_index, p0.copy(), STEPS, H)
    per_step = median / STEPS
    print(f"LS bank, 3 cylinders + motor: {len(network.nodes)} nodes, {network.rows.shape[0]} branches")
    print(
        f"network solve: {per_step * 1e6:.2f} µs per step (best {best / STEPS * 1e6:.2f}), "
        f"{iterations / STEPS:.2f} Newton iterations per step, {failures} failed steps; "
        f"target ≤ {TARGET * 1e6:.0f} µs: {'met' if per_step <= TARGET else 'NOT met'}"
    )


if __name__ == "__main__":
    main()

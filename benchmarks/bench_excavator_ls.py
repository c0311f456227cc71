"""The built-in excavator-ls: three cylinders and a swing motor on a load-sensing bank, in MuJoCo.

Reports the compiled loop's wall time for the 12 s dig-and-swing cycle at 1 ms (median of 5
runs after a warm-up; the real-time factor is 12 s over it) in both models, and the time of
the quasistatic network solve alone: the run's steps replayed in a compiled loop (each step's
free velocities rebuilt from the recorded rod velocities and forces, v̄ = v − f/β, its Newton
started from the last two states extrapolated as the machine's loop does). Targets (issue 30,
item 4): ≥ 100 × real time with three cylinders and the motor, ≤ 5 µs per network solve.
Run: .venv/bin/python benchmarks/bench_excavator_ls.py
"""

from __future__ import annotations

import numba as nb
import numpy as np

from _timing import median_time
from actuatorlab.hydraulics.circuits.kernels import OK, SCRATCH_ROWS
from actuatorlab.hydraulics.circuits.solvers import network_step
from actuatorlab.scenarios.kinds.machine_netlist import build_netlist
from actuatorlab.scenarios.loading import load_scenario

REAL_TIME_TARGET = 100.0
SOLVE_TARGET = 5e-6


@nb.njit(cache=True)
def _replay(rows, vols, gas, held, h, p, u, iterations) -> int:
    """Re-solve every recorded step from the one before; returns the failed steps."""
    n = p.shape[1]
    work = np.empty((n + SCRATCH_ROWS, n))
    dq = np.empty(5)
    start, guess = np.empty(n), np.empty(n)
    failures = 0
    for k in range(2, p.shape[0]):
        for j in range(n):
            start[j] = p[k - 1, j]
            guess[j] = 2.0 * p[k - 1, j] - p[k - 2, j]
        status, its, _ = network_step(rows, vols, gas, held, 0.0, u[k], h, start, guess, work, dq)
        iterations[k] = its
        if status != OK:
            failures += 1
    return failures


def _free_inputs(system, result, u: np.ndarray) -> np.ndarray:
    """The coupled network's inputs of each step: every actuator's free velocity v̄ = v − f/β."""
    free = u.copy()
    for i, a in enumerate(system.actuators):
        column, admittance = int(system.link_ints[i, 2]), system.link_floats[i, 3]
        load = result[f"{a.name}.torque"] if a.name in system.motors else result[f"{a.name}.force"]
        free[:, column] = u[:, column] - load * admittance
    return free


def _loop_times(model: str):
    """(system, loop times [s] of 5 runs after a warm-up, the last run's (result, p, u), duration)."""
    system, kwargs, _ = build_netlist(load_scenario("excavator-ls").model_copy(update={"model": model}))
    runs = [system.simulate(**kwargs) for _ in range(6)]
    return system, sorted(r[0].counters["loop_time_s"] for r in runs[1:]), runs[-1], kwargs["duration"]


def _solve_time(system, run) -> tuple[float, float, int]:
    """(median time [s] of one network solve, mean Newton iterations, failed steps) of the replay."""
    result, p, u = run
    free = _free_inputs(system, result, u)
    net = system.network
    iterations = np.zeros(p.shape[0], dtype=np.int64)

    def replay() -> int:
        return _replay(net.rows, net.volumes, net.gas, net.held, system.timestep, p, free, iterations)

    median, _ = median_time(replay, repeats=5)
    failures = replay()
    return median / (p.shape[0] - 2), float(iterations[2:].mean()), failures


def main() -> None:
    for model in ("quasistatic", "pressure-dynamics"):
        system, times, run, duration = _loop_times(model)
        factor = duration / times[2]
        print(
            f"excavator-ls, {model}: {len(system.network.nodes)} nodes, {system.network.rows.shape[0]} branches; "
            f"loop {times[2] * 1e3:.1f} ms (best {times[0] * 1e3:.1f}) → {factor:.1f} × real time "
            f"(target ≥ {REAL_TIME_TARGET:.0f} ×: {'met' if factor >= REAL_TIME_TARGET else 'NOT met'})"
        )
        if model == "quasistatic":
            per_step, iterations, failures = _solve_time(system, run)
            print(
                f"network solve alone: {per_step * 1e6:.2f} µs per step, {iterations:.2f} Newton iterations per "
                f"step, {failures} failed; target ≤ {SOLVE_TARGET * 1e6:.0f} µs: "
                f"{'met' if per_step <= SOLVE_TARGET else 'NOT met'}"
            )


if __name__ == "__main__":
    main()

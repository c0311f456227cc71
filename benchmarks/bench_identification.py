"""Identification of the 2-DOF hydraulic robot (Sakai & Maeshima).

Reported: wall time of the coupled least squares on 3 steps × 4 000 samples (derivatives by
central differences, 20-tap moving average, regressors built, stacked and both systems solved;
target ≤ 50 ms; the paper took 6.5 s), median of 9; and the simulation of one 4 s experiment
at 1 kHz (target ≥ 20 × real time), median of 9. Compilation is excluded (one warm-up run).
Run: .venv/bin/python benchmarks/bench_identification.py
"""

from __future__ import annotations

import time

import numpy as np

from actuatorlab.identification.robot_least_squares import IdentificationOptions, identify
from actuatorlab.machines.sakai_robot import table2_robot, table3_parameters
from actuatorlab.simulation.robot_experiments import Excitation, make_experiments, paper_steps, run_step

IDENTIFY_TARGET = 0.050
REAL_TIME_TARGET = 20.0


def _median_time(action, repeats: int = 9) -> float:
    action()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main() -> dict[str, float]:
    robot, truth = table2_robot(), table3_parameters()
    steps = paper_steps(robot)
    experiments = make_experiments(robot, truth, steps, Excitation(angle_noise=2e-5, pressure_noise=5e3))
    options = IdentificationOptions(derivatives="central", taps=20)
    identify_s = _median_time(lambda: identify(robot, experiments, options))
    four_seconds = Excitation(duration=4.0, window=(0.0, 4.0))
    simulate_s = _median_time(lambda: run_step(robot, truth, steps[1], four_seconds))
    factor = 4.0 / simulate_s
    print(
        f"coupled least squares, 3 steps x 4 000 samples: {identify_s * 1e3:.1f} ms "
        f"(target <= {IDENTIFY_TARGET * 1e3:.0f} ms: {'met' if identify_s <= IDENTIFY_TARGET else 'NOT met'}; "
        f"paper 6.5 s)"
    )
    print(
        f"simulation of a 4 s experiment at 1 kHz: {simulate_s * 1e3:.1f} ms -> {factor:.0f} x real time "
        f"(target >= {REAL_TIME_TARGET:.0f}: {'met' if factor >= REAL_TIME_TARGET else 'NOT met'})"
    )
    return {"identify_s": identify_s, "simulate_s": simulate_s, "real_time_factor": factor}


if __name__ == "__main__":
    main()

"""Uncertainty of the identifications (issue 21): time of the robot's parametric bootstrap and
coverage of the 95 % intervals over independent noisy realisations of a known truth.

Reported:
- the bootstrap of the 2-DOF robot (3 steps × 4 000 samples, the identify-2dof sensor noise):
  200 re-identifications, on 1 and on 2 threads (target ≤ 10 s), median of 3;
- coverage over REALISATIONS (default 200) realisations of the Table II robot with the Table III
  means as truth, per parameter: the bootstrap's intervals (REPLICATES each, default 100), the
  least-squares formula's, and how often the bias was corrected (target 90–98 %);
- coverage over 200 records of the IEHA's transfer function K/(s(1 + λs)) (K = 115.4 1/s,
  Σλ = 3.39 ms of Alfayad et al. (27) as one lag) under a 0.5–40 Hz chirp, 2 % output noise,
  white and AR(1) with lag-one correlation 0.5 and 0.9: the intervals of the sandwich with an
  autoregressive noise model and the white-noise formula's.
Run: .venv/bin/python benchmarks/bench_identification_uncertainty.py [REALISATIONS [REPLICATES [SEED]]]
(SEED: of the robot's realisations, default 2026; another seed is an independent repetition).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from actuatorlab.identification.robot_least_squares import IdentificationOptions, identify
from actuatorlab.identification.transfer_function import LagStructure, interval_coverage
from actuatorlab.machines.sakai_robot import table2_robot, table3_parameters
from actuatorlab.simulation.robot_bootstrap import add_noise, bootstrap_identification, coverage
from actuatorlab.simulation.robot_experiments import Excitation, make_experiments, paper_steps

BOOTSTRAP_TARGET = 10.0
NOISE = {"q": np.full(2, 2e-5), "p_plus": np.full(2, 5e3), "p_minus": np.full(2, 5e3), "u": np.full(2, 1e-3)}
"""The sensor noise of the identify-2dof scenario (angle [rad], pressures [Pa], spool [mm])."""
IEHA_TF = np.array([115.4, 3.39e-3])
"""K [1/s] and the sum of the lags [s] of G1, Alfayad et al. (27)."""


def bootstrap_time(robot, clean, workers: int) -> float:
    """Median of 3 bootstraps (200 replicates) of one noisy realisation on ``workers`` threads [s]."""
    data = [add_noise(e, NOISE, np.random.default_rng(1)) for e in clean]
    options = IdentificationOptions()
    fit = identify(robot, data, options)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        bootstrap_identification(robot, data, options, fit, 200, workers=workers)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main(realisations: int = 200, replicates: int = 100, seed: int = 2026) -> dict:
    robot, truth = table2_robot(), table3_parameters()
    clean = make_experiments(robot, truth, paper_steps(robot), Excitation())
    bootstrap_identification(robot, clean, IdentificationOptions(), identify(robot, clean), 2)  # compile, warm up
    out = {}
    for workers in (1, 2):
        out[f"bootstrap_s_{workers}"] = bootstrap_time(robot, clean, workers)
        print(
            f"bootstrap, 200 re-identifications of 3 x 4 000 samples on {workers} thread(s): "
            f"{out[f'bootstrap_s_{workers}']:.2f} s (target <= {BOOTSTRAP_TARGET:.0f} s: "
            f"{'met' if out[f'bootstrap_s_{workers}'] <= BOOTSTRAP_TARGET else 'NOT met'})"
        )
    start = time.perf_counter()
    result = coverage(robot, truth, clean, NOISE, realisations, replicates, seed=seed)
    print(
        f"\nrobot coverage, {realisations} realisations x {replicates} replicates "
        f"({time.perf_counter() - start:.0f} s):"
    )
    print("| parameter | bootstrap 95 % interval | least-squares formula | bias corrected |")
    print("|---|---|---|---|")
    for name, b, f, c in zip(result.names, result.bootstrap, result.formula, result.corrected):
        print(f"| {name} | {100 * b:.1f} % | {100 * f:.1f} % | {100 * c:.0f} % |")
    out["robot_coverage"] = dict(zip(result.names, result.bootstrap.tolist()))
    dt = 1e-3
    t = np.arange(0.0, 4.0, dt)
    u = 1e-3 * np.sin(2 * np.pi * np.cumsum(0.5 + 39.5 * t / 4.0) * dt)
    structure = LagStructure(1)
    noise = 0.02 * structure.simulate(IEHA_TF, u, dt).std()
    print(f"\nIEHA transfer function K/(s(1 + λs)), {realisations} records:")
    print("| residuals | K: AR-noise sandwich | K: white formula | λ: AR-noise sandwich | λ: white formula |")
    print("|---|---|---|---|---|")
    for label, rho in (("white", 0.0), ("AR(1), ρ = 0.5", 0.5), ("AR(1), ρ = 0.9", 0.9)):
        hits, white = interval_coverage(structure, IEHA_TF, u, dt, noise, rho, realisations, seed=7)
        print(
            f"| {label} | {100 * hits[0]:.1f} % | {100 * white[0]:.1f} % | {100 * hits[1]:.1f} % | "
            f"{100 * white[1]:.1f} % |"
        )
        out[f"tf_coverage_{rho}"] = (hits.tolist(), white.tolist())
    return out


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:4]))

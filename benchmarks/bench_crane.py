"""Speed of the parallel–serial crane (Petrović & Mattila): eq. (68), the closed loop, MuJoCo.

- eq. (68) actuator forces of the lab crane (full Newton–Euler recursion per sample, compiled
  batch): evaluations per second (target ≥ 50 000); also the checked per-call Python method;
- the paper's control run (start → A, two A-B-C-D loops, 2 s a segment, VDC at 1 kHz, RK4
  plant): wall time vs simulated time (target ≥ 5 × real time), for 1 and 2 RK4 steps per sample;
- the same run on the MuJoCo plant (``plant="mujoco"``: MuJoCo integrates the multibody at
  0.5 ms, RK4 and implicitfast): wall time, real-time factor and the largest distance between
  its tip path and the native plant's (target < 1 mm);
- the MuJoCo cross-check (2 000 samples): wall time of mj_inverse vs the (68) batch, and the
  relative error reached.
Run: .venv/bin/python benchmarks/bench_crane.py
"""

from __future__ import annotations

import time

import numpy as np
from _timing import median_time

from actuatorlab.mechanics.mujoco_model import (
    compare_inverse_dynamics,
    random_smooth_trajectory,
)
from actuatorlab.machines.lab_crane import lab_crane
from actuatorlab.simulation.crane import diamond_run

EVAL_TARGET = 50_000.0
REALTIME_TARGET = 5.0


def main() -> dict[str, float]:
    crane = lab_crane()
    _, q, qd, qdd = random_smooth_trajectory(crane, 20.0, 20_000, seed=3)
    crane.actuator_forces_batch(q[:10], qd[:10], qdd[:10])  # compile / load cache
    batch, _ = median_time(lambda: crane.actuator_forces_batch(q, qd, qdd), repeats=5)
    rate = len(q) / batch
    print(
        f"eq. (68) lab crane, compiled batch: {rate:,.0f} evaluations/s "
        f"({batch / len(q) * 1e6:.2f} us each; "
        f"target >= {EVAL_TARGET:,.0f}: {'met' if rate >= EVAL_TARGET else 'NOT met'})"
    )
    crane.actuator_forces(q[0], qd[0], qdd[0])  # compile / load cache
    start = time.perf_counter()
    for k in range(2000):
        crane.actuator_forces(q[k], qd[k], qdd[k])
    single = 2000 / (time.perf_counter() - start)
    print(f"eq. (68) per call through the checked Python method: {single:,.0f} evaluations/s")

    figures = {"eq68_evals_per_s": rate, "eq68_python_calls_per_s": single}
    for substeps in (1, 2):
        diamond_run(loops=1, segment_time=0.5, substeps=substeps)  # compile / load cache
        runs = [diamond_run(substeps=substeps) for _ in range(3)]
        wall = float(np.median([r.counters["wall_time"] for r in runs]))
        sim = float(runs[0].t[-1])
        err = np.linalg.norm(runs[0].tip - runs[0].tip_ref, axis=1)
        print(
            f"diamond, 2 loops, 2 s a segment ({sim:g} s simulated), RK4 {substeps} step(s)/ms: {wall:.2f} s wall "
            f"-> {sim / wall:.1f} x real time (target >= {REALTIME_TARGET:g} x: "
            f"{'met' if sim / wall >= REALTIME_TARGET else 'NOT met'}); tip error max {err.max() * 1e3:.2f} mm"
        )
        figures[f"diamond_realtime_factor_{substeps}"] = sim / wall
        if substeps == 2:
            native = runs[0]

    for integrator in ("rk4", "implicitfast"):
        diamond_run(loops=1, segment_time=0.5, plant="mujoco", mujoco_integrator=integrator)  # compile / load cache
        runs = [diamond_run(plant="mujoco", mujoco_integrator=integrator) for _ in range(3)]
        wall = float(np.median([r.counters["wall_time"] for r in runs]))
        sim = float(runs[0].t[-1])
        diff = np.linalg.norm(runs[0].tip - native.tip, axis=1).max()
        err = np.linalg.norm(runs[0].tip - runs[0].tip_ref, axis=1)
        print(
            f"diamond on the MuJoCo plant ({integrator}, 0.5 ms): {wall:.2f} s wall -> {sim / wall:.1f} x real time "
            f"(target >= {REALTIME_TARGET:g} x: {'met' if sim / wall >= REALTIME_TARGET else 'NOT met'}); "
            f"tip error max {err.max() * 1e3:.2f} mm; tip path vs native plant: max {diff * 1e3:.4f} mm "
            f"(target < 1 mm: {'met' if diff < 1e-3 else 'NOT met'}); loops closed to "
            f"{runs[0].counters['loop_violation_max']:.1e} m"
        )
        figures[f"diamond_mujoco_{integrator}_realtime_factor"] = sim / wall
        figures[f"diamond_mujoco_{integrator}_tip_diff_mm"] = diff * 1e3

    stats = compare_inverse_dynamics(crane, duration=20.0, samples=2000, seed=0)
    print(
        f"MuJoCo cross-check, {stats.samples} samples: mj_inverse loop {stats.wall_time_mujoco * 1e3:.1f} ms, "
        f"(68) batch {stats.wall_time_vdc * 1e3:.2f} ms; max relative error {stats.max_relative_error.max():.2e} "
        f"(paper: <= 2e-3)"
    )
    figures.update(
        mujoco_ms=stats.wall_time_mujoco * 1e3,
        mujoco_max_rel_error=float(stats.max_relative_error.max()),
    )
    return figures


if __name__ == "__main__":
    main()

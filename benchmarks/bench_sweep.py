"""Sweeps on Dask: 1 000 variants of arm-relief on 1 and on 2 local worker processes.

Each variant is the full arm-relief run (10 s simulated, 10 001 samples) with its own bleed
opening, its results table written to Parquet and its record to JSON. Reported: wall time of
``run_sweep``, of which the cluster start (processes spawned, actuatorlab imported in each
worker); the speed-up from 1 to 2 workers of the variants' phase (after the start) and of the
whole (target ≥ 1.7); and the engine's per-variant overhead on 1 worker: variants' phase /
variants − the mean time a variant spends inside ``run_variant`` (target ≤ 20 ms).
Run: .venv/bin/python benchmarks/bench_sweep.py [VARIANTS]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time

import numpy as np

from actuatorlab.scenarios.loading import load_scenario
from actuatorlab.scenarios.sweep import run_sweep
from actuatorlab.scenarios.variants import grid_variants

SPEEDUP_TARGET = 1.7
OVERHEAD_TARGET = 0.020


def _timed(scenario, variants, workers: int) -> tuple[float, float, float]:
    """(whole wall time, cluster start, mean time inside run_variant) [s]."""
    folder = tempfile.mkdtemp(prefix="bench-sweep-")
    try:
        start = time.perf_counter()
        result = run_sweep(scenario, variants, folder, workers=workers)
        wall = time.perf_counter() - start
        assert (result.index["status"] == "ok").all()
        return wall, result.startup_s, float(result.index["wall_time_s"].mean())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(count: int = 1000) -> dict[str, float]:
    scenario = load_scenario("arm-relief")
    bleeds = ",".join(f"{b:.6f}" for b in np.linspace(0.1, 0.5, count))
    variants = grid_variants(scenario, [f"inputs.bleed={bleeds}"])
    one, one_start, per_variant = _timed(scenario, variants, 1)
    two, two_start, _ = _timed(scenario, variants, 2)
    phase = (one - one_start) / (two - two_start)
    overhead = (one - one_start) / count - per_variant
    print(f"sweep of {count} arm-relief variants: 1 worker {one:.1f} s (start {one_start:.1f} s), "
          f"2 workers {two:.1f} s (start {two_start:.1f} s)")
    print(f"  speed-up 1 -> 2 workers: variants' phase {phase:.2f} "
          f"(target >= {SPEEDUP_TARGET}: {'met' if phase >= SPEEDUP_TARGET else 'NOT met'}), whole {one / two:.2f}")
    print(f"  per variant: {per_variant * 1e3:.1f} ms inside run_variant, engine overhead {overhead * 1e3:.1f} ms "
          f"(target <= {OVERHEAD_TARGET * 1e3:.0f} ms: {'met' if overhead <= OVERHEAD_TARGET else 'NOT met'})")
    return {"one_worker_s": one, "two_workers_s": two, "speedup_phase": phase, "speedup_whole": one / two,
            "overhead_s": overhead}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)

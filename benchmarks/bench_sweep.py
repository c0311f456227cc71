"""Sweeps on Dask: 1 000 variants of arm-relief on 1 and on 2 local worker processes.

Each variant is the full arm-relief run (10 s simulated, 10 001 samples) with its own bleed
opening, its results table written to Parquet and its record to JSON. Reported: wall time of
``run_sweep``, of which the cluster start (processes spawned, actuatorlab imported in each
worker); the speed-up from 1 to 2 workers of the variants' phase (from handing the variants to
the workers until the last returned; target ≥ 1.7) and of the whole (cluster start, index table
and HTML report included); and the engine's per-variant overhead on 1 worker: variants' phase /
variants − the mean time a variant spends inside ``run_variant`` before its record is written
(target ≤ 20 ms; the record's write counts as overhead). Three rounds, 1 and 2 workers
alternated; medians reported.
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


def _timed(scenario, variants, workers: int) -> tuple[float, float, float, float]:
    """(whole wall time, cluster start, variants' phase, mean time inside run_variant) [s]."""
    folder = tempfile.mkdtemp(prefix="bench-sweep-")
    try:
        start = time.perf_counter()
        result = run_sweep(scenario, variants, folder, workers=workers)
        wall = time.perf_counter() - start
        assert (result.index["status"] == "ok").all()
        return wall, result.startup_s, result.variants_s, float(result.index["wall_time_s"].mean())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(count: int = 1000, rounds: int = 3) -> dict[str, float]:
    scenario = load_scenario("arm-relief")
    bleeds = ",".join(f"{b:.6f}" for b in np.linspace(0.1, 0.5, count))
    variants = grid_variants(scenario, [f"inputs.bleed={bleeds}"])
    runs = {1: [], 2: []}
    for _ in range(rounds):  # alternated, so a slow spell of the shared machine hits both
        for workers in (1, 2):
            runs[workers].append(_timed(scenario, variants, workers))
    ratios = sorted(one[2] / two[2] for one, two in zip(runs[1], runs[2]))
    phase = float(np.median(ratios))
    one, one_start, one_phase, per_variant = (float(np.median(x)) for x in zip(*runs[1]))
    two, two_start, two_phase, _ = (float(np.median(x)) for x in zip(*runs[2]))
    overhead = one_phase / count - per_variant
    print(f"sweep of {count} arm-relief variants, medians of {rounds} alternated rounds: "
          f"1 worker {one:.1f} s (start {one_start:.1f} s, variants {one_phase:.1f} s), "
          f"2 workers {two:.1f} s (start {two_start:.1f} s, variants {two_phase:.1f} s)")
    print(f"  speed-up 1 -> 2 workers: variants' phase {phase:.2f} (rounds: {', '.join(f'{r:.2f}' for r in ratios)}; "
          f"target >= {SPEEDUP_TARGET}: {'met' if phase >= SPEEDUP_TARGET else 'NOT met'}), whole {one / two:.2f}")
    print(f"  per variant: {per_variant * 1e3:.1f} ms inside run_variant, engine overhead {overhead * 1e3:.1f} ms "
          f"(target <= {OVERHEAD_TARGET * 1e3:.0f} ms: {'met' if overhead <= OVERHEAD_TARGET else 'NOT met'})")
    return {"one_worker_s": one, "two_workers_s": two, "speedup_phase": phase, "speedup_whole": one / two,
            "overhead_s": overhead}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)

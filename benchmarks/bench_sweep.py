"""Sweeps on Dask: Monte Carlo variants of arm-relief in compiled batches, on 2 local workers.

Each variant is the full arm-relief run (10 s simulated, 10 001 samples) with three fields
drawn (arm mass, pump flow, relaxation damping), its key figures into the index and its main
signals into the 5/50/95 % envelopes; no time series kept. Reported for 1 000 and 100 000
variants: the whole command (``actuatorlab sweep ... --workers 2``, a new process: imports,
cluster start, variants, index, envelopes and HTML report; wall time, and CPU time of the
command and its workers, which on a machine shared with other work says what the command
costs when the machine is not), and in-process ``run_sweep`` (the
"whole sweep" of the issue's table: cluster start, variants, index, envelopes, report) with
its cluster start (kernels loaded, workers forked) and variants' phase; per variant, the
variants' phase × 2 workers / variants (the worker time a variant costs; its simulation is
0.35 ms of it). Targets (issue 19), judged on the whole command: 1 000 variants ≤ 2 s, 100 000
≤ 60 s. Medians of the rounds (3 for 1 000, 2 for 100 000; 0 skips a size).
Run: .venv/bin/python benchmarks/bench_sweep.py [ROUNDS_1000 ROUNDS_100000]
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from actuatorlab.scenarios.loading import load_scenario
from actuatorlab.scenarios.sweep import run_sweep
from actuatorlab.scenarios.variants import sample_variants

VARY = [
    "arm.mass=uniform(1800 kg, 2200 kg)",
    "circuit.pump_flow=uniform(300 L/min, 600 L/min)",
    "relaxation.damping=uniform(2e6 N s/m, 3e6 N s/m)",
]
TARGETS = {1_000: 2.0, 100_000: 60.0}
WORKERS = 2


def timed_command(args: list[str]) -> tuple[float, float]:
    """(wall time, CPU time of the process and its workers, user + system) [s] of a command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def command(count: int) -> tuple[float, float]:
    """(wall time, CPU time) [s] of the whole ``actuatorlab sweep`` command for ``count`` variants."""
    folder = tempfile.mkdtemp(prefix="bench-sweep-")
    args = [
        str(Path(sys.executable).parent / "actuatorlab"),
        "sweep",
        "arm-relief",
        "--samples",
        str(count),
        *[a for spec in VARY for a in ("--vary", spec)],
        "--workers",
        str(WORKERS),
        "--out",
        folder,
        "--quiet",
    ]
    try:
        return timed_command(args)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def in_process(count: int) -> tuple[float, float, float]:
    """(run_sweep wall time, cluster start, variants' phase) [s] for ``count`` variants."""
    scenario = load_scenario("arm-relief")
    variants = sample_variants(scenario, VARY, count, seed=0)
    folder = tempfile.mkdtemp(prefix="bench-sweep-")
    try:
        result = run_sweep(scenario, variants, folder, workers=WORKERS)
        assert (result.index["status"] == "ok").all() and result.batched
        return result.wall_time_s, result.startup_s, result.variants_s
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(rounds_small: int = 3, rounds_large: int = 2) -> dict[str, float]:
    figures = {}
    for count, rounds in ((1_000, rounds_small), (100_000, rounds_large)):
        if rounds < 1:
            continue
        wholes, cpus = zip(*(command(count) for _ in range(rounds)))
        whole, cpu = float(np.median(wholes)), float(np.median(cpus))
        wall, start, phase = (float(np.median(x)) for x in zip(*(in_process(count) for _ in range(rounds))))
        target = TARGETS[count]
        print(
            f"sweep of {count} arm-relief variants on {WORKERS} workers, median of {rounds}: whole command "
            f"{whole:.2f} s (rounds {', '.join(f'{w:.2f}' for w in wholes)}; target <= {target:.0f} s: "
            f"{'met' if whole <= target else 'NOT met'}; CPU {cpu:.1f} s, /{WORKERS} cores = "
            f"{cpu / WORKERS:.1f} s); run_sweep {wall:.2f} s (cluster start {start:.2f} s, "
            f"variants {phase:.1f} s, {phase * WORKERS / count * 1e3:.2f} ms of a worker per variant)"
        )
        figures[f"command_{count}_s"] = whole
        figures[f"command_cpu_{count}_s"] = cpu
        figures[f"run_sweep_{count}_s"] = wall
    return figures


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))

"""Sobol' sensitivity of arm-relief: 3 parameters, N = 1 024 (8 192 runs), on 2 local workers.

The whole command ``actuatorlab sensitivity arm-relief --vary ... --samples 1024 --workers 2``
(a new process: imports, the base run that names the key figures, the design, the sweep in
compiled batches, SALib's analysis of every key figure with bootstrap intervals, the report);
wall time, and CPU time of the command and its workers (see ``bench_sweep``).
Target (issue 19): ≤ 15 s. Median of 3 rounds.
Run: .venv/bin/python benchmarks/bench_sensitivity.py [ROUNDS]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from bench_sweep import timed_command

VARY = [
    "inputs.bleed=uniform(0.2, 0.4)",
    "arm.mass=uniform(1800 kg, 2200 kg)",
    "circuit.pump_flow=uniform(400 L/min, 600 L/min)",
]
"""Ranges in which every run of arm-relief stays within its cylinder's travel (the indices need every run)."""
TARGET = 15.0


def command() -> tuple[float, float, int]:
    """(wall time and CPU time [s] of the whole command and its workers, runs in its index)."""
    folder = tempfile.mkdtemp(prefix="bench-sensitivity-")
    args = [
        str(Path(sys.executable).parent / "actuatorlab"),
        "sensitivity",
        "arm-relief",
        *[a for spec in VARY for a in ("--vary", spec)],
        "--method",
        "sobol",
        "--samples",
        "1024",
        "--workers",
        "2",
        "--out",
        folder,
        "--quiet",
    ]
    try:
        wall, cpu = timed_command(args)
        return wall, cpu, len(pd.read_parquet(Path(folder) / "index.parquet"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(rounds: int = 3) -> dict[str, float]:
    walls, cpus, runs = zip(*(command() for _ in range(rounds)))
    wall, cpu = float(np.median(walls)), float(np.median(cpus))
    print(
        f"Sobol' sensitivity of arm-relief, 3 parameters, N = 1024 ({runs[0]} runs), 2 workers, median of {rounds}: "
        f"{wall:.1f} s whole command (rounds {', '.join(f'{w:.1f}' for w in walls)}; target <= {TARGET:.0f} s: "
        f"{'met' if wall <= TARGET else 'NOT met'}); CPU {cpu:.1f} s, /2 cores = {cpu / 2:.1f} s"
    )
    return {"sobol_1024_s": wall, "sobol_1024_cpu_s": cpu}


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))

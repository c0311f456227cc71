"""Sobol' sensitivity of arm-relief: 3 parameters, N = 1 024 (8 192 runs), on 2 local workers.

The whole command ``actuatorlab sensitivity arm-relief --vary ... --samples 1024 --workers 2``
(a new process: imports, the base run that names the key figures, the design, the sweep in
compiled batches, SALib's analysis of every key figure with bootstrap intervals, the report).
Target (issue 19): ≤ 15 s. Median of 3 rounds.
Run: .venv/bin/python benchmarks/bench_sensitivity.py [ROUNDS]
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

VARY = ["inputs.bleed=uniform(0.2, 0.4)", "arm.mass=uniform(1800 kg, 2200 kg)",
        "circuit.pump_flow=uniform(400 L/min, 600 L/min)"]
"""Ranges in which every run of arm-relief stays within its cylinder's travel (the indices need every run)."""
TARGET = 15.0


def command() -> tuple[float, int]:
    """(wall time [s] of the whole command, runs in its index)."""
    folder = tempfile.mkdtemp(prefix="bench-sensitivity-")
    args = [str(Path(sys.executable).parent / "actuatorlab"), "sensitivity", "arm-relief",
            *[a for spec in VARY for a in ("--vary", spec)], "--method", "sobol", "--samples", "1024",
            "--workers", "2", "--out", folder, "--quiet"]
    try:
        start = time.perf_counter()
        subprocess.run(args, check=True)
        wall = time.perf_counter() - start
        return wall, len(pd.read_parquet(Path(folder) / "index.parquet"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(rounds: int = 3) -> dict[str, float]:
    walls, runs = zip(*(command() for _ in range(rounds)))
    wall = float(np.median(walls))
    print(f"Sobol' sensitivity of arm-relief, 3 parameters, N = 1024 ({runs[0]} runs), 2 workers, median of {rounds}: "
          f"{wall:.1f} s whole command (rounds {', '.join(f'{w:.1f}' for w in walls)}; target <= {TARGET:.0f} s: "
          f"{'met' if wall <= TARGET else 'NOT met'})")
    return {"sobol_1024_s": wall}


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))

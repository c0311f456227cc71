"""Speed of the arm-relief scenario: 10 s of the relaxed arm at h = 1 ms.

Reports the compiled time loop's real-time factor (target: at least 2 000 × faster than real
time), the JIT cost separately (a fresh process with an empty numba cache, and one that loads
the cache), and the wall time of the whole ``actuatorlab run arm-relief`` command.
Run: .venv/bin/python benchmarks/bench_arm.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import median_time
from actuatorlab.scenarios.kinds.arm import simulate_scenario
from actuatorlab.scenarios.loading import load_scenario

TARGET = 2000.0
CLI = Path(sys.executable).with_name("actuatorlab")
FIRST_CALL = (
    "import time; t0 = time.perf_counter();"
    "from actuatorlab.scenarios.kinds.arm import simulate_scenario;"
    "from actuatorlab.scenarios.loading import load_scenario;"
    "s = load_scenario('arm-relief'); t1 = time.perf_counter(); r = simulate_scenario(s);"
    "print(t1 - t0, time.perf_counter() - t1)"
)


def _first_call(cache_dir: str) -> tuple[float, float]:
    """(import time, first simulation time) [s] in a new process using ``cache_dir`` for numba."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", FIRST_CALL], env=env, check=True, capture_output=True, text=True)
    imports, first = map(float, out.stdout.split())
    return imports, first


def main() -> dict[str, float]:
    scenario = load_scenario("arm-relief")
    duration = scenario.simulation.duration
    loops = []
    median_time(lambda: loops.append(simulate_scenario(scenario).counters["loop_time_s"]), repeats=7)
    loop = statistics.median(loops[1:])
    print(
        f"arm-relief time loop: {loop * 1e3:.2f} ms for {duration:g} s simulated "
        f"-> {duration / loop:,.0f} x real time (median of 7; target >= {TARGET:,.0f} x: "
        f"{'met' if duration / loop >= TARGET else 'NOT met'})"
    )

    cold_dir = tempfile.mkdtemp(prefix="numba-cold-")
    try:
        cold_import, cold = _first_call(cold_dir)  # empty cache: compiles every kernel
        warm_import, warm = _first_call(cold_dir)  # the cache written by the previous process
    finally:
        shutil.rmtree(cold_dir, ignore_errors=True)
    print(
        f"new process, empty numba cache (JIT): import {cold_import:.2f} s + first simulation {cold:.2f} s; "
        f"with the cache: import {warm_import:.2f} s + first simulation {warm:.3f} s"
    )

    with tempfile.TemporaryDirectory() as out:
        cmd = [str(CLI), "run", "arm-relief", "--out", out, "--quiet"]
        subprocess.run(cmd, check=True)  # warm-up: fills the cache
        walls = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True)
            walls.append(time.perf_counter() - t0)
    wall = statistics.median(walls)
    print(
        f"`actuatorlab run arm-relief` whole command: {wall:.2f} s wall (median of 3, warm cache; "
        "includes start-up, simulation, Parquet, 3 plots and the report)"
    )
    return {
        "real_time_factor": duration / loop,
        "jit_import_s": cold_import,
        "jit_first_run_s": cold,
        "cached_import_s": warm_import,
        "cached_first_run_s": warm,
        "cli_wall_s": wall,
    }


if __name__ == "__main__":
    main()

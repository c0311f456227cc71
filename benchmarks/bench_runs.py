"""CPU time of whole built-in runs in memory: ``actuatorlab.load(NAME).run()`` with warm kernels.

Process CPU time (``time.process_time``), the best of ``repeats`` runs after one warm-up run,
so a busy machine's preemption does not count. To compare two versions of the library, run it
once per source tree in the same minutes and take the ratios:

    PYTHONPATH=OLD/src .venv/bin/python benchmarks/bench_runs.py
    PYTHONPATH=src     .venv/bin/python benchmarks/bench_runs.py

Run: .venv/bin/python benchmarks/bench_runs.py [NAME,NAME,...] [REPEATS]
"""

from __future__ import annotations

import sys
import time

import actuatorlab

SCENARIOS = ("arm-relief", "two-arms-one-pump", "model-comparison", "crane-abcd", "ieha-step")


def main(names=SCENARIOS, repeats: int = 3) -> dict[str, float]:
    figures = {}
    for name in names:
        scenario = actuatorlab.load(name)
        scenario.run()
        best = float("inf")
        for _ in range(repeats):
            start = time.process_time()
            scenario.run()
            best = min(best, time.process_time() - start)
        figures[name] = best
        print(f"{name:<20s} {best * 1e3:10.2f} ms CPU (best of {repeats})")
    return figures


if __name__ == "__main__":
    main(sys.argv[1].split(",") if len(sys.argv) > 1 else SCENARIOS, int(sys.argv[2]) if len(sys.argv) > 2 else 3)

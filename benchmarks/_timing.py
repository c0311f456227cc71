"""Small timing helpers shared by the benchmarks (median of repeated runs after a warm-up)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_time(func: Callable[[], object], repeats: int = 7, warmup: int = 1) -> tuple[float, float]:
    """(median, best) wall time [s] of ``func()`` over ``repeats`` runs after ``warmup`` runs."""
    for _ in range(warmup):
        func()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)

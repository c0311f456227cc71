"""Throughput of Λ(β, f̄) (Kikuuwe et al. (73)–(74)) on 10⁶ random pairs, one core.

Target (issue: foundation): at least 5 × 10⁶ evaluations per second.
Run: .venv/bin/python benchmarks/bench_lam.py
"""

from __future__ import annotations

import numpy as np

from _timing import median_time
from actuatorlab.hydraulics.quasistatic import Openings, ValveCircuit, lam

N = 1_000_000
TARGET = 5.0e6


def main() -> dict[str, float]:
    rng = np.random.default_rng(1)
    circuit = ValveCircuit.paper_example()
    impedance = 10.0 ** rng.uniform(3.0, 8.0, N)  # β = B + hK [N s/m]
    fbar = rng.uniform(-2.0e6, 2.0e6, N)  # N: every branch, reliefs included
    figures = {}
    for label, u_c in (("extend u_c=0.5", 0.5), ("retract u_c=-0.5", -0.5), ("hold u_c=0", 0.0)):
        openings = Openings.from_command(u_c, 0.2)
        median, best = median_time(lambda openings=openings: lam(circuit, openings, impedance, fbar))
        rate = N / median
        figures[label] = rate
        print(
            f"lam, {label:18s}: {rate / 1e6:6.1f} M evaluations/s (median of 7, best {N / best / 1e6:.1f})"
            f"  target >= {TARGET / 1e6:.0f} M/s: {'met' if rate >= TARGET else 'NOT met'}"
        )
    return figures


if __name__ == "__main__":
    main()

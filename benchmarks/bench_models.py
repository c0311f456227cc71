"""Cost of the two actuator models on the same run: arm-relief (10 s simulated).

In one process: the quasistatic model's compiled time loop (h = 1 ms) and the pressure-dynamics
model integrated by each adaptive stiff solver at rtol 1e-6 (analytic Jacobian), reported as
wall times and as the ratio pressure dynamics / quasistatic (target: at least 100). The ratio
compares the models' integration loops; the whole call (input sampling and result assembly,
the same for both models) is printed beside it.
Run: .venv/bin/python benchmarks/bench_models.py
"""

from __future__ import annotations

import statistics
import time

from actuatorlab.scenarios.kinds.arm import simulate_scenario
from actuatorlab.scenarios.loading import load_scenario
from actuatorlab.simulation.ode import ADAPTIVE_SOLVERS

TARGET = 100.0
RTOL = 1e-6


def _times(scenario, repeats: int) -> tuple[float, float]:
    """Medians over ``repeats`` runs of (integration loop, whole ``simulate_scenario`` call) [s]."""
    simulate_scenario(scenario)  # warm-up: compilation or cache load
    loops, calls = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        result = simulate_scenario(scenario)
        calls.append(time.perf_counter() - start)
        loops.append(result.counters["loop_time_s"])
    return statistics.median(loops), statistics.median(calls)


def main() -> dict[str, float]:
    base = load_scenario("arm-relief")
    quasi = base.model_copy(update={"model": "quasistatic"})
    t_quasi, call_quasi = _times(quasi, repeats=9)
    print(
        f"arm-relief, 10 s: quasistatic (relaxed, h = 1 ms) {t_quasi * 1e3:.2f} ms (median of 9; "
        f"whole call {call_quasi * 1e3:.2f} ms)"
    )
    figures = {"quasistatic_s": t_quasi, "quasistatic_call_s": call_quasi}
    for solver in ADAPTIVE_SOLVERS:
        fluid = base.pressure_dynamics.model_copy(update={"solver": solver, "rtol": RTOL})
        pressure = base.model_copy(update={"model": "pressure-dynamics", "pressure_dynamics": fluid})
        t_pressure, call_pressure = _times(pressure, repeats=3)
        ratio = t_pressure / t_quasi
        print(
            f"  pressure dynamics, {solver:6s} rtol {RTOL:g}: {t_pressure * 1e3:8.1f} ms (median of 3; whole call "
            f"{call_pressure * 1e3:.1f} ms) -> ratio {ratio:6.1f} "
            f"(target >= {TARGET:g}: {'met' if ratio >= TARGET else 'NOT met'}; whole calls "
            f"{call_pressure / call_quasi:.1f})"
        )
        figures[f"{solver}_s"] = t_pressure
        figures[f"{solver}_ratio"] = ratio
    return figures


if __name__ == "__main__":
    main()

"""Cost of the two actuator models on the same run: arm-relief (10 s simulated).

In one process: the quasistatic model's compiled time loop (h = 1 ms) and the pressure-dynamics
model integrated by each adaptive stiff solver at rtol 1e-6 (analytic Jacobian), reported as
wall times and as the ratio pressure dynamics / quasistatic (target: at least 100).
Run: .venv/bin/python benchmarks/bench_models.py
"""

from __future__ import annotations

import statistics

from actuatorlab.scenarios.kinds.arm import simulate_scenario
from actuatorlab.scenarios.loading import load_scenario
from actuatorlab.simulation.ode import ADAPTIVE_SOLVERS

TARGET = 100.0
RTOL = 1e-6


def _loop_time(scenario, repeats: int) -> float:
    simulate_scenario(scenario)  # warm-up: compilation or cache load
    return statistics.median(simulate_scenario(scenario).counters["loop_time_s"] for _ in range(repeats))


def main() -> dict[str, float]:
    base = load_scenario("arm-relief")
    quasi = base.model_copy(update={"model": "quasistatic"})
    t_quasi = _loop_time(quasi, repeats=9)
    print(f"arm-relief, 10 s: quasistatic (relaxed, h = 1 ms) {t_quasi * 1e3:.2f} ms (median of 9)")
    figures = {"quasistatic_s": t_quasi}
    for solver in ADAPTIVE_SOLVERS:
        fluid = base.pressure_dynamics.model_copy(update={"solver": solver, "rtol": RTOL})
        pressure = base.model_copy(update={"model": "pressure-dynamics", "pressure_dynamics": fluid})
        t_pressure = _loop_time(pressure, repeats=3)
        ratio = t_pressure / t_quasi
        print(f"  pressure dynamics, {solver:6s} rtol {RTOL:g}: {t_pressure * 1e3:8.1f} ms (median of 3) "
              f"-> ratio {ratio:6.1f} (target >= {TARGET:g}: {'met' if ratio >= TARGET else 'NOT met'})")
        figures[f"{solver}_s"] = t_pressure
        figures[f"{solver}_ratio"] = ratio
    return figures


if __name__ == "__main__":
    main()

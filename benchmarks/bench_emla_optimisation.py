"""Speed of the EMLA bilevel trajectory optimisation (Bahari et al., spec 004 §2.6–2.7).

- building the follower NLP (dynamics fit + CasADi/IPOPT set-up) for the default task;
- one follower solve (cold start from the reference trajectory, and warm-started from the
  solution at nearby weights): wall time (target ≤ 5 s per solve);
- the whole bilevel optimisation with the default leader settings (2 worker processes,
  baselines included, no cache): wall time (target ≤ 10 min), and the optimum against the
  fixed-weight baselines.
Run: .venv/bin/python benchmarks/bench_emla_optimisation.py
"""

from __future__ import annotations

import time

from _timing import median_time

from actuatorlab.machines.lab_crane import emla_lab_crane
from actuatorlab.optimization.follower import Follower
from actuatorlab.optimization.leader import LeaderSettings, run_bilevel

SOLVE_TARGET = 5.0
BILEVEL_TARGET = 600.0


def main() -> dict[str, float]:
    crane = emla_lab_crane()
    start = time.perf_counter()
    follower = Follower(crane)
    build = time.perf_counter() - start
    print(f"follower build (dynamics fit + NLP): {build:.2f} s; fit error {follower.model_error.round(2)} N")

    weights = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (0.8, 0.2)]
    cold = [median_time(lambda w=w: follower.solve(w), repeats=3)[0] for w in weights]
    worst = max(cold)
    print(
        f"follower solve, cold start: median {sorted(cold)[len(cold) // 2]:.3f} s, worst {worst:.3f} s "
        f"over weights {weights} (target <= {SOLVE_TARGET:g} s: {'met' if worst <= SOLVE_TARGET else 'NOT met'})"
    )
    near = follower.solve((0.7, 0.3))
    warm, _ = median_time(lambda: follower.solve((0.8, 0.2), warm_start=near), repeats=5)
    print(f"follower solve, warm start from w = (0.7, 0.3): {warm:.3f} s")

    settings = LeaderSettings()
    start = time.perf_counter()
    result = run_bilevel(crane=crane, settings=settings)
    bilevel = time.perf_counter() - start
    print(
        f"bilevel optimisation ({result.n_solved} follower solves, {settings.workers} workers, "
        f"criterion {settings.criterion}): {bilevel:.1f} s "
        f"(target <= {BILEVEL_TARGET:g} s: {'met' if bilevel <= BILEVEL_TARGET else 'NOT met'})"
    )
    for row in result.comparison():
        effs = ", ".join(f"{k[4:]} {v:.3f}" for k, v in row.items() if k.startswith("eta_"))
        print(
            f"  {row['name']:8s} w = ({row['w_effort']:.3f}, {row['w_power']:.3f}) t_M = {row['duration']:.2f} s "
            f"F = {row['F']:.4f} F/t_M = {row['F_per_time']:.4f}; efficiency: {effs}"
        )
    return {
        "follower_build_s": build,
        "follower_solve_worst_s": worst,
        "follower_solve_warm_s": warm,
        "bilevel_s": bilevel,
        "bilevel_solves": float(result.n_solved),
        "optimum_efficiency_total": result.efficiency_total,
    }


if __name__ == "__main__":
    main()

"""EMLA (Bahari et al. 2024) costs: efficiency-map evaluation rate and RDSC tracking real-time factor.

- efficiency map: 201 × 201 force–velocity grid per Table I actuator (compiled, all losses and
  limits); also the optimiser's vectorised ``actuator_efficiency`` on 100 000 points;
- closed loop: three EMLAs under RDSC (paper gains) tracking smooth references for 5 s with
  disturbances, fixed step 10 µs (100 kHz control); target: real-time factor ≥ 1
  (simulated time / wall time).
Run: .venv/bin/python benchmarks/bench_emla.py
"""

from __future__ import annotations

import numpy as np
from _timing import median_time

from actuatorlab.electromech import actuator_efficiency, efficiency_map, load_actuators
from actuatorlab.simulation.emla_tracking import simulate_tracking, smooth_reference


def main() -> dict[str, float]:
    figures: dict[str, float] = {}
    acts = load_actuators()
    for name, a in acts.items():
        forces = np.linspace(-a.max_force, a.max_force, 201)
        vel = np.linspace(-a.max_velocity, a.max_velocity, 201)
        efficiency_map(a, forces[:3], vel[:3])  # compile or load the cache
        med, best = median_time(lambda a=a, forces=forces, vel=vel: efficiency_map(a, forces, vel), repeats=7)
        m = efficiency_map(a, forces, vel)
        rate = forces.size * vel.size / med
        figures[f"map_{name}_points_per_s"] = rate
        print(
            f"efficiency map {name}: {forces.size}x{vel.size} in {med * 1e3:.2f} ms (best {best * 1e3:.2f}) "
            f"= {rate / 1e6:.2f} M points/s; feasible {m.feasible.mean() * 100:.0f} %, "
            f"max η {np.nanmax(m.efficiency):.3f}"
        )
    a = acts["lift"]
    rng = np.random.default_rng(0)
    f = rng.uniform(-a.max_force, a.max_force, 100_000)
    v = rng.uniform(-a.max_velocity, a.max_velocity, 100_000)
    med, _ = median_time(lambda: actuator_efficiency(a, f, v), repeats=7)
    figures["actuator_efficiency_points_per_s"] = f.size / med
    print(f"actuator_efficiency (lift), 100 000 points: {med * 1e3:.2f} ms = {f.size / med / 1e6:.2f} M points/s")

    duration, n = 5.0, 5001
    refs = [smooth_reference(act, duration, n, phase=j) for j, act in enumerate(acts.values())]
    t = refs[0][0]
    x, vr, fr = (np.column_stack([r[i] for r in refs]) for i in (1, 2, 3))
    simulate_tracking(acts, t[:11], x[:11], vr[:11], fr[:11])  # compile or load the cache
    runs = [simulate_tracking(acts, t, x, vr, fr) for _ in range(3)]
    walls = sorted(r.counters["wall_time"] for r in runs)
    r = runs[0]
    rtf = duration / walls[1]
    figures["tracking_real_time_factor"] = rtf
    figures["tracking_max_error_m"] = float(np.abs(r.errors).max())
    print(
        f"RDSC tracking, 3 EMLAs, {duration:.0f} s at h = {r.counters['step_size'] * 1e6:.0f} µs "
        f"({r.counters['steps']:.0f} steps): wall {walls[1]:.3f} s (median of 3), real-time factor {rtf:.1f} "
        f"(target >= 1: {'met' if rtf >= 1 else 'NOT met'}); "
        f"max |position error| {np.abs(r.errors).max() * 1e9:.1f} nm, "
        f"max |i_d| {np.abs(r.i_d).max() * 1e3:.2f} mA, limits hit: "
        f"{int(r.current_limited.sum() + r.voltage_limited.sum())} samples"
    )
    return figures


if __name__ == "__main__":
    main()

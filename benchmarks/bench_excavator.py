"""Speed of the 20 t excavator dig cycle on one pump (actuatorlab.multibody.excavator).

- the 12 s dig cycle with three quasistatic cylinders on one ``PumpNetwork`` at h = 1 ms:
  wall time of the MuJoCo + actuator loop and real-time factor (target >= 20 x real time);
- the same cycle with three pressure-dynamics cylinders on one shared pump line (backward Euler
  on 7 pressures per step);
- the ratio of the two loop times, measured in this run, and the largest joint-angle and tip
  difference between the two models.
The loop time is the median of 5 runs after a warm-up (compilation excluded: it is counted
separately by ``simulate``). Run: .venv/bin/python benchmarks/bench_excavator.py
"""

from __future__ import annotations

import math
import statistics

import numpy as np

from actuatorlab.multibody.excavator import MODELS, run_dig_cycle

REALTIME_TARGET = 20.0


def main(repeats: int = 5) -> dict[str, float]:
    figures: dict[str, float] = {}
    runs = {}
    for model in MODELS:
        run_dig_cycle(model)  # warm-up: compile / load the numba cache
        loop_times = []
        for _ in range(repeats):
            result, info = run_dig_cycle(model)
            loop_times.append(result.counters["loop_time_s"])
        loop = statistics.median(loop_times)
        sim = info["summary"]["cycle_time_s"]
        rtf = sim / loop
        runs[model] = (result, info)
        s = info["summary"]
        peak = s.get("peak_chamber_pressure_Pa", s.get("peak_equivalent_pressure_Pa"))
        print(
            f"excavator dig cycle, {model}, h = 1 ms, {sim:.1f} s simulated: loop {loop * 1e3:.1f} ms -> "
            f"{rtf:.0f} x real time"
            + (
                f" (target >= {REALTIME_TARGET:g} x: {'met' if rtf >= REALTIME_TARGET else 'NOT met'})"
                if model == "quasistatic"
                else ""
            )
            + f"; peak pump {s['peak_pump_pressure_Pa'] / 1e6:.2f} MPa, peak chamber {peak / 1e6:.2f} MPa, "
            f"relief {s['relief_volume_m3'] * 1e3:.3f} L; peak forces boom {s['peak_force_boom_N'] / 1e3:.0f} kN, "
            f"stick {s['peak_force_stick_N'] / 1e3:.0f} kN, bucket {s['peak_force_bucket_N'] / 1e3:.0f} kN"
        )
        key = model.replace("-", "_")
        figures[f"{key}_loop_s"] = loop
        figures[f"{key}_realtime_factor"] = rtf
    ratio = figures["pressure_dynamics_loop_s"] / figures["quasistatic_loop_s"]
    rq, rp = runs["quasistatic"][0], runs["pressure-dynamics"][0]
    angle = max(float(np.max(np.abs(rq[f"qpos_{i}"] - rp[f"qpos_{i}"]))) for i in range(3))
    tip = float(np.max(np.hypot(rq["tip_x"] - rp["tip_x"], rq["tip_z"] - rp["tip_z"])))
    print(
        f"pressure-dynamics / quasistatic loop time: {ratio:.2f}; largest joint-angle difference "
        f"{math.degrees(angle):.2f} deg, tip {tip * 1e3:.0f} mm"
    )
    figures.update(loop_time_ratio=ratio, max_angle_diff_deg=math.degrees(angle), max_tip_diff_m=tip)
    return figures


if __name__ == "__main__":
    main()

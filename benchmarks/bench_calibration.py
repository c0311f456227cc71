"""Calibration (issue 32): the cost of a fit and the coverage of its 95 % intervals.

Reported:
- a three-field fit of arm-relief (arm.mass, circuit.discharge_coefficient, arm.inertia) to a noisy
  log of its angle and head pressure, through the API and through the command (import, fit,
  files and report): target ≤ 10 s wall; median of 3;
- coverage over REALISATIONS (default 200) noisy logs of a known truth, per field, the fraction
  whose 95 % interval holds the truth (target 90–98 %): ``arm`` (arm-relief, the three fields
  above, compiled batches), ``machine`` (crane-pick-place in MuJoCo: payload mass, rated valve
  flow and bleed area from two forces, the pump pressure and a length, one run at a time) and
  ``ieha`` (ieha-step shortened to 0.15 s: bulk modulus, load damping and internal leakage
  from the rod position and both chamber pressures, one run at a time).
Run: .venv/bin/python benchmarks/bench_calibration.py [KIND [REALISATIONS]]   (KIND: time, arm, machine, ieha, all)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import actuatorlab

CASES = {
    "arm": dict(
        scenario=lambda: actuatorlab.load("arm-relief"),
        truth={"arm.mass": 2300.0, "circuit.discharge_coefficient": 0.55, "arm.inertia": 6000.0},
        free=["arm.mass=1000 kg..4000 kg", "circuit.discharge_coefficient=0.3..0.9", "arm.inertia"],
        noise={"theta": 1e-4, "head_pressure": 2e4},
    ),
    "machine": dict(
        scenario=lambda: actuatorlab.load("crane-pick-place"),
        truth={
            "payloads[0].mass": 80.0,
            "circuits[0].valve_rated_flow": 55.0 / 60000.0,
            "circuits[0].bleed_area": 0.6e-4,
        },
        free=[
            "payloads[0].mass=10 kg..500 kg",
            "circuits[0].valve_rated_flow=20 L/min..200 L/min",
            "circuits[0].bleed_area",
        ],
        noise={"lift.force": 50.0, "jib.force": 50.0, "lift.pump_pressure": 2e4, "lift.length": 1e-4},
    ),
    "ieha": dict(
        scenario=lambda: actuatorlab.load("ieha-step").set("duration", "0.15 s"),
        truth={"actuator.bulk_modulus": 6e8, "actuator.load_damping": 200.0, "actuator.internal_leakage": 2e-12},
        free=[
            "actuator.bulk_modulus=100 MPa..2 GPa",
            "actuator.load_damping=0 N s/m..2000 N s/m",
            "actuator.internal_leakage=0 L/min/bar..1 L/min/bar",
        ],
        noise={"y": 2e-7, "p_a": 2e3, "p_b": 2e3},
    ),
}
"""Per kind: the scenario, the truth (SI), the free fields and the channels' noise std (SI)."""


def noisy(table: pd.DataFrame, noise: dict[str, float], seed: int) -> pd.DataFrame:
    """The run's matched channels with white noise of the given std (a realisation)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"t": table["t"], **{c: table[c] + s * rng.standard_normal(len(table)) for c, s in noise.items()}}
    )


def coverage(kind: str, realisations: int) -> None:
    case = CASES[kind]
    base = case["scenario"]()
    clean = base.set(case["truth"]).run().table
    hits = {path: 0 for path in case["truth"]}
    start = time.perf_counter()
    for r in range(realisations):
        fit = actuatorlab.calibrate(base, noisy(clean, case["noise"], r), case["free"], list(case["noise"]))
        table = fit.table.set_index("path")
        for path, value in case["truth"].items():
            hits[path] += table.loc[path, "low"] <= value <= table.loc[path, "high"]
    wall = time.perf_counter() - start
    shares = ", ".join(f"{path} {100.0 * h / realisations:.1f} %" for path, h in hits.items())
    print(f"coverage {kind}, {realisations} realisations ({wall:.0f} s): {shares} (target 90–98 %)")


def fit_time() -> None:
    case = CASES["arm"]
    base = case["scenario"]()
    log = noisy(base.set(case["truth"]).run().table, case["noise"], 0)
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        fit = actuatorlab.calibrate(base, log, case["free"], list(case["noise"]))
        times.append(time.perf_counter() - t0)
    runs = fit.summary["simulations"].value
    print(f"arm-relief, three fields, API: median {np.median(times):.2f} s, {runs:.0f} runs (target <= 10 s)")
    exe = Path(sys.executable).with_name("actuatorlab")
    with tempfile.TemporaryDirectory() as folder:
        log.to_csv(Path(folder) / "log.csv", index=False)
        command = [str(exe), "calibrate", "arm-relief", "log.csv", *(f"--free={f}" for f in case["free"])]
        command += ["--match", "theta", "--match", "head_pressure", "--quiet"]
        times = []
        for k in range(3):
            t0 = time.perf_counter()
            subprocess.run([*command, "--out", f"out{k}"], cwd=folder, check=True)
            times.append(time.perf_counter() - t0)
    print(f"arm-relief, three fields, the command (import, fit, files, report): median {np.median(times):.2f} s")


def main(kind: str = "all", realisations: int = 200) -> None:
    if kind not in ("time", "all", *CASES):
        raise SystemExit(f"KIND {kind!r}: one of time, all, {', '.join(CASES)}")
    if kind in ("time", "all"):
        fit_time()
    for name in CASES if kind == "all" else [kind] if kind in CASES else []:
        coverage(name, realisations)


if __name__ == "__main__":
    main(*sys.argv[1:2], *map(int, sys.argv[2:3]))

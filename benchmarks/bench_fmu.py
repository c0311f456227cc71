"""One doStep of the exported quasistatic actuator (FMU of arm-relief, FMI 3.0), timed two ways:

- in a small C harness (src/actuatorlab/fmu/c/harness.c) that loads the binary with dlopen and
  drives it with precomputed inputs: per step (set length and command + doStep + get force) and
  per doStep (the same loop less a loop without doStep), in process CPU time, the best of 5 runs
  (a shared machine preempts a run; the best run is the FMU's own cost);
- through FMPy's ctypes wrapper from Python (set, doStep, get per step), the cost a Python
  master pays.

Target (issue 20): the C harness at most 100 ns per step.
Run: .venv/bin/python benchmarks/bench_fmu.py
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import actuatorlab
from actuatorlab.fmu.compiler import C_DIR

TARGET_NS = 100.0
HARNESS_STEPS = 2_000_000
FMPY_STEPS = 20_000


def _harness(folder: Path) -> dict[str, float]:
    from fmpy import extract

    unzipped = Path(extract(str(folder / "arm-relief.fmu"), unzipdir=str(folder / "unzipped")))
    exe = folder / "harness"
    subprocess.run(
        ["cc", "-std=c99", "-O2", f"-I{unzipped / 'sources'}", str(C_DIR / "harness.c"), "-o", str(exe), "-ldl", "-lm"],
        check=True,
    )
    library = unzipped / "binaries" / "x86_64-linux" / "arm_relief.so"
    runs = []
    for _ in range(5):
        out = subprocess.run(
            [str(exe), str(library), str(HARNESS_STEPS), "1"], capture_output=True, text=True, check=True
        ).stdout
        runs.append({k: float(v) for k, v in (item.split("=") for item in out.split())})
    return {key: float(np.min([r[key] for r in runs])) for key in ("ns_per_step", "ns_per_dostep")}


def _fmpy(folder: Path) -> float:
    from fmpy import extract, read_model_description
    from fmpy.fmi3 import FMU3Slave

    path = str(folder / "arm-relief.fmu")
    md = read_model_description(path)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    fmu = FMU3Slave(
        guid=md.guid,
        unzipDirectory=extract(path),
        modelIdentifier=md.coSimulation.modelIdentifier,
        instanceName="bench",
    )
    fmu.instantiate()
    fmu.enterInitializationMode(startTime=0.0)
    fmu.exitInitializationMode()
    inputs, force = [vr["length"], vr["valve_command"]], [vr["force"]]
    lengths = 1.5 + 0.02 * np.sin(3e-3 * np.arange(FMPY_STEPS))
    commands = 0.5 * np.sin(7e-4 * np.arange(FMPY_STEPS))
    t0 = time.perf_counter()
    for k in range(FMPY_STEPS):
        fmu.setFloat64(inputs, [lengths[k], commands[k]])
        fmu.doStep(k * 1e-3, 1e-3)
        fmu.getFloat64(force)
    elapsed = time.perf_counter() - t0
    fmu.terminate()
    fmu.freeInstance()
    return 1e9 * elapsed / FMPY_STEPS


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        actuatorlab.export_fmu("arm-relief", folder / "arm-relief.fmu", fmi=3)
        figures = _harness(folder)
        figures["fmpy_ns_per_step"] = _fmpy(folder)
    met = "met" if figures["ns_per_step"] <= TARGET_NS else "NOT met"
    print(
        f"FMU doStep, C harness : {figures['ns_per_step']:6.1f} ns per step (set + doStep + get), "
        f"{figures['ns_per_dostep']:6.1f} ns per doStep  target <= {TARGET_NS:.0f} ns: {met}"
    )
    print(f"FMU doStep, FMPy ctypes: {figures['fmpy_ns_per_step'] / 1e3:6.1f} us per step (set + doStep + get)")
    return figures


if __name__ == "__main__":
    main()

"""
Calibrate a scenario to a machine's log
=======================================

A log of the arm of Kikuuwe et al. Sec. 4.3 — its angle and head pressure — is made here by
running ``arm-relief`` with a heavier arm, a lower discharge coefficient and a larger inertia
than the file says, and adding sensor noise; a real log is read the same way from CSV or
Parquet. :func:`actuatorlab.calibrate` finds the three
values back, with 95 % intervals, from the scenario's own values as the start.
"""

import os

import numpy as np
import pandas as pd

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")  # CI: a shorter experiment

arm = actuatorlab.load("arm-relief")
if QUICK:
    arm = arm.set("simulation.duration", "8 s")
truth = arm.set({"arm.mass": "2300 kg", "circuit.discharge_coefficient": 0.55, "arm.inertia": "6000 kg m^2"})
run = truth.run().table
rng = np.random.default_rng(0)
log = pd.DataFrame(
    {
        "t": run["t"],  # s
        "ANGLE": np.degrees(run["theta"]) + 0.005 * rng.standard_normal(len(run)),  # deg
        "PH": run["head_pressure"] / 1e5 + 0.2 * rng.standard_normal(len(run)),  # bar
    }
)
log.attrs["units"] = {"ANGLE": "deg", "PH": "bar"}  # as a CSV header "ANGLE [deg]" would say

fit = actuatorlab.calibrate(
    arm,
    log,
    free=["arm.mass=1000 kg..4000 kg", "circuit.discharge_coefficient=0.3..0.9", "arm.inertia"],
    match=["theta=ANGLE", "head_pressure=PH"],
)
print(fit.table[["path", "value", "low", "high", "start"]])
print("\n".join(fit.notes[1:]))  # the fit per channel before → after, and the diagnosis

# %%
# The arm only ever lifts one load, so its mass and its inertia are barely separated by the
# log (the diagnosis says so, and their intervals are the widest); a second log with another
# load would separate them. The overlay of the log, the start and the calibrated scenario:
figures = fit.plot(show=False)

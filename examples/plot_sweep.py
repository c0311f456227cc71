"""
A sweep
=======

Any scenario field can be swept: a grid of values or Monte Carlo draws, each variant validated
before anything runs, run on local worker processes (or a Dask cluster), one Parquet file and
one record per variant, and an index of key figures. Here: how the pump flow Q limits how far the
arm of ``arm-relief`` rises during its retract command (3–6 s).
"""

import os
import tempfile

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

# Up to the ramping load (7 s), and with the bleed nearly closed: at u_b = 0.3 a small pump's
# flow leaves through the bleed before the pressure can lift the arm.
arm = actuatorlab.load("arm-relief").set({"simulation.duration": "7 s", "inputs.bleed": 0.05})
flows = (
    ["75 L/min", "150 L/min", "500 L/min"]
    if QUICK
    else ["50 L/min", "75 L/min", "100 L/min", "150 L/min", "200 L/min", "300 L/min", "500 L/min"]
)

# Where worker processes are spawned rather than forked (not Linux, or Dask), they import this
# script again: a script that sweeps needs the usual guard, or each would start a sweep of its own.
if __name__ == "__main__":
    study = actuatorlab.sweep(
        arm,
        grid={"circuit.pump_flow": flows},
        workers=2,
        keep_series=len(flows),
        out=os.path.join(tempfile.mkdtemp(), "pump-flow"),
    )
    index = study.index
    index["Q [L/min]"] = index["circuit.pump_flow"] * 60000  # the index holds SI values (m³/s)
    print(index[["variant", "Q [L/min]", "status", "max_angle_rad", "final_angle_rad"]])

# %%
# The index holds every key figure of every variant; ``study.variant(i)`` reads one variant's
# time series back from its Parquet file.
if __name__ == "__main__":
    fig, (ax_relief, ax_theta) = plt.subplots(1, 2, figsize=(10, 3.8))
    ax_relief.plot(index["Q [L/min]"], index["max_angle_rad"], "o-")
    ax_relief.set_xlabel("pump flow Q [L/min]")
    ax_relief.set_ylabel("highest arm angle [rad]")
    for variant in index.loc[index["status"] == "ok", "variant"]:  # a failed variant keeps its error
        table = study.variant(int(variant))  # units in table.attrs["units"]
        ax_theta.plot(table["t"], table["theta"], label=f"Q = {index.loc[variant, 'Q [L/min]']:.0f} L/min")
    ax_theta.set_xlabel("t [s]")
    ax_theta.set_ylabel("θ [rad]")
    ax_theta.legend(fontsize="small")
    fig.tight_layout()

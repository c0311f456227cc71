"""
First run: load, change, run, compare
=====================================

The Python API in ten lines: load the built-in scenario ``arm-relief`` (the single-DOF arm of
Kikuuwe et al., Sec. 4.3), make a copy with a smaller pump (and its bleed nearly closed, so the
small flow is not lost through it), run both in memory and compare the arm angle. Every value is
written as in a scenario file, with its unit; results come back in SI.
"""

import os

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")  # CI: a shorter run

arm = actuatorlab.load("arm-relief")
if QUICK:
    arm = arm.set("simulation.duration", "7 s")
small_pump = arm.set("circuit.pump_flow", "75 L/min").set(inputs__bleed=0.05)  # new, validated; arm is unchanged
runs = {"500 L/min": arm.run(), "75 L/min": small_pump.run()}
both = actuatorlab.compare(runs, ["theta", "force"])  # one DataFrame, index t [s]

# %%
# Each result carries its units and key figures; ``both`` holds the two runs side by side.
print(runs["75 L/min"].table.attrs["units"]["theta"])
for name, result in runs.items():
    figure = result.summary["final_angle_rad"]
    print(f"{name}: {figure.label} = {figure.value:.3f} {figure.unit}")

fig, (ax_theta, ax_force) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
for name in runs:
    ax_theta.plot(both.index, both[(name, "theta")], label=f"Q = {name}")
    ax_force.plot(both.index, both[(name, "force")] / 1e3, label=f"Q = {name}")
ax_theta.set_ylabel("arm angle θ [rad]")
ax_force.set_ylabel("cylinder force f [kN]")
ax_force.set_xlabel("t [s]")
ax_theta.legend()
ax_theta.set_title("arm-relief: a 75 L/min pump limits the rise (3–6 s)")
fig.tight_layout()

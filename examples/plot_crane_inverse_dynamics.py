"""
Closed-chain actuator forces against MuJoCo
===========================================

The closed form (68) of Petrović & Mattila gives the cylinder forces of the parallel–serial
crane from a Newton–Euler recursion over its virtual decomposition. The scenario
``crane-inverse-dynamics`` checks it against MuJoCo's inverse dynamics of an MJCF model built from
the same parameters, along a random smooth trajectory (the paper checks against Simscape, 0.2 %).
"""

import os

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

scenario = actuatorlab.load("crane-inverse-dynamics")
if QUICK:
    scenario = scenario.set("samples", 400)
result = scenario.run()
table = result.table

fig, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 6))
for ax, actuator in zip(axes, ("lift", "tilt", "extension")):
    ax.plot(table["t"], table[f"f68_{actuator}"] / 1e3, label="(68)")
    ax.plot(table["t"], table[f"f_mujoco_{actuator}"] / 1e3, "--", label="MuJoCo")
    error = result.summary[f"max_relative_error_{actuator}"].value
    ax.set_ylabel(f"{actuator} [kN]")
    ax.set_title(f"{actuator}: largest relative difference {error:.1e}", fontsize="small")
axes[0].legend()
axes[-1].set_xlabel("t [s]")
fig.tight_layout()

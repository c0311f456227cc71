"""
The integrated electro-hydraulic actuator: open-loop step
=========================================================

Alfayad et al.'s IEHA: a voice-coil micro-valve (command X) moves a carriage that sets the
eccentricity E of a radial pump of N micro-pistons; a passive distributor sends the pump's flow
to one chamber or the other of the output cylinder. The nonlinear ("virtual") model has the
carriage, every piston chamber and both cylinder chambers as states. This is the paper's
open-loop step X = 0.04 cm (Figs. 5–9), the built-in scenario ``ieha-step``.
"""

import os

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

step = actuatorlab.load("ieha-step")
if QUICK:
    step = step.set("duration", "0.3 s")
result = step.run()
table = result.table
for key in ("settling_time_s", "velocity_m_s", "dp_Pa"):
    figure = result.summary[key]
    print(f"{figure.label}: {figure.value:.4g} {figure.unit}")

fig, axes = plt.subplots(4, 1, sharex=True, figsize=(7, 7))
axes[0].plot(table["t"], table["eccentricity"] * 1e3)
axes[0].set_ylabel("E [mm]")
axes[1].plot(table["t"], table["pump_flow"] * 6e4)
axes[1].set_ylabel("Q_A + Q_B [L/min]")
axes[2].plot(table["t"], table["dp"] / 1e5)
axes[2].set_ylabel("ΔP = P_A − P_B [bar]")
axes[3].plot(table["t"], table["v"] * 1e3)
axes[3].set_ylabel("Ẏ [mm/s]")
axes[3].set_xlabel("t [s]")
axes[0].set_title("IEHA step X = 0.04 cm (Figs. 5–9)")
fig.tight_layout()

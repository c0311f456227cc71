"""
EMLA efficiency maps
====================

Bahari et al. drive the lab crane with electro-mechanical linear actuators (EMLAs): a PMSM,
an optional gear stage and a screw. Their efficiency η (13) over force and velocity, inside
the current, voltage and speed limits, decides which motions are cheap (Fig. 7). The losses
(12) are documented standard models (the paper's (6)–(11) are missing from its text).
Signs: v_x > 0 extends, f_x > 0 pushes; η = P_out/P_in when motoring, P_in/P_out when the
load back-drives the actuator.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from actuatorlab.electromech import efficiency_map, load_actuators

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")
points = 41 if QUICK else 161

actuators = load_actuators()  # Table I: lift, tilt, extension (values and sources in data/actuators.toml)
fig, axes = plt.subplots(1, 3, figsize=(12, 3.8), sharey=False)
for ax, (joint, emla) in zip(axes, actuators.items()):
    forces = np.linspace(-emla.max_force, emla.max_force, points)  # [N]
    velocities = np.linspace(-emla.max_velocity, emla.max_velocity, points)  # [m/s]
    grid = efficiency_map(emla, forces, velocities)  # η NaN where a limit is exceeded
    image = ax.pcolormesh(velocities * 1e3, forces / 1e3, grid.efficiency, vmin=0, vmax=1, shading="auto")
    ax.set_title(f"{joint}: peak η = {np.nanmax(grid.efficiency):.2f}")
    ax.set_xlabel("v_x [mm/s]")
axes[0].set_ylabel("f_x [kN]")
fig.colorbar(image, ax=axes, label="efficiency η")

for joint, emla in actuators.items():
    print(
        f"{joint}: max force {emla.max_force / 1e3:.1f} kN, max velocity {emla.max_velocity * 1e3:.0f} mm/s, "
        f"stroke {emla.stroke * 1e3:.0f} mm"
    )

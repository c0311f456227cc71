"""
The lab crane under virtual decomposition control
=================================================

Petrović & Mattila's HIAB-type lab crane (lift, tilt and telescope cylinders on a
parallel–serial chain) tracks the A–B–C–D diamond with its tool tip under VDC, on the
pressure-dynamics plant: Figs. 13–16 of the paper. The built-in scenario ``crane-abcd`` runs it;
here we read the tip path and the lift cylinder's required and achieved piston forces.
"""

import os

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

crane = actuatorlab.load("crane-abcd")  # 2 loops of 4 segments, 2 s each, native plant
if QUICK:
    crane = crane.set("loops", 1)
result = crane.run()
table = result.table
print(
    f"max tip error: {result.summary['max_tip_error_m'].value * 1e3:.2f} mm, "
    f"saturated samples: {result.summary['saturated_fraction'].value:.1%}"
)

fig, (ax_path, ax_force) = plt.subplots(1, 2, figsize=(10, 4.2))
ax_path.plot(table["tip_ref_x"], table["tip_ref_y"], "k--", label="reference")
ax_path.plot(table["tip_x"], table["tip_y"], label="tool tip")
ax_path.set_aspect("equal", adjustable="datalim")
ax_path.set_xlabel("x [m]")
ax_path.set_ylabel("y [m]")
ax_path.set_title("A–B–C–D diamond (Fig. 13)")
ax_path.legend()
ax_force.plot(table["t"], table["f_required_lift"] / 1e3, "k--", label="required f_pr")
ax_force.plot(table["t"], table["f_piston_lift"] / 1e3, label="achieved f_p")
ax_force.set_xlabel("t [s]")
ax_force.set_ylabel("lift piston force [kN]")
ax_force.set_title("piston force control (90)–(93)")
ax_force.legend()
fig.tight_layout()

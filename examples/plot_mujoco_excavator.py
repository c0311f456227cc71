"""
A 20 t excavator in MuJoCo, three cylinders on one pump
=======================================================

The scenario ``excavator-dig``: boom, stick and bucket of a ~20 t excavator (an MJCF model
written from documented typical values), three cylinders sharing one pump (Kikuuwe et al.
Sec. 6 inside MuJoCo), starting in equilibrium and running a scripted digging cycle with soil
loads. With ``compare = true`` the same cycle also runs with the pressure-dynamics cylinders.
"""

import os

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

excavator = actuatorlab.load("excavator-dig").set("compare", not QUICK)
result = excavator.run()
table = result.table
print(f"peak pump pressure: {result.summary['quasistatic.peak_pump_pressure_Pa'].value / 1e6:.1f} MPa")

fig, (ax_tip, ax_p) = plt.subplots(1, 2, figsize=(10, 4))
ax_tip.plot(table["tip_x"], table["tip_z"])
ax_tip.set_aspect("equal", adjustable="datalim")
ax_tip.set_xlabel("x [m]")
ax_tip.set_ylabel("z [m]")
ax_tip.set_title("bucket tip path")
for name in ("boom", "stick", "bucket"):
    ax_p.plot(table["t"], table[f"{name}.force"] / 1e3, label=name)
ax_p.set_xlabel("t [s]")
ax_p.set_ylabel("cylinder force [kN]  (> 0 pushes the pins apart)")
ax_p.legend()
fig.tight_layout()

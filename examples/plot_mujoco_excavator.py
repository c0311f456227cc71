"""
A 20 t excavator in MuJoCo, three cylinders on one pump
=======================================================

The built-in ``excavator-dig``: a scenario file of kind ``machine`` and its model file
(``models/excavator.xml``, written from documented typical values) — boom, stick and bucket
cylinders on one pump (Kikuuwe et al. Sec. 6 inside MuJoCo), starting held at rest and running
a scripted digging cycle with soil loads. The same file with ``model = "pressure-dynamics"``
runs the bulk-modulus cylinders instead; both are compared here.
"""

import os

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

excavator = actuatorlab.load("excavator-dig")
if QUICK:
    excavator = excavator.set("duration", "4 s")
runs = {model: excavator.set("model", model).run() for model in ("quasistatic", "pressure-dynamics")}
quasistatic = runs["quasistatic"]
print(
    f"peak supply pressure: {quasistatic.summary['supply.main.peak_pressure_Pa'].value / 1e6:.1f} MPa, "
    f"hydraulic efficiency of the cycle: {quasistatic.summary['total.efficiency'].value:.2f}"
)

fig, (ax_s, ax_f) = plt.subplots(1, 2, figsize=(10, 4))
for model, result in runs.items():
    style = "-" if model == "quasistatic" else "--"
    for i, name in enumerate(("boom", "stick", "bucket")):
        table = result.table
        ax_s.plot(
            table["t"],
            table[f"{name}.stroke"] * 1e3,
            style,
            color=f"C{i}",
            label=f"{name} ({model})" if model == "quasistatic" else None,
        )
        ax_f.plot(table["t"], table[f"{name}.force"] / 1e3, style, color=f"C{i}")
ax_s.set_xlabel("t [s]")
ax_s.set_ylabel("stroke [mm]")
ax_s.set_title("strokes (dashed: pressure dynamics)")
ax_s.legend()
ax_f.set_xlabel("t [s]")
ax_f.set_ylabel("cylinder force [kN]  (> 0 pushes the pins apart)")
fig.tight_layout()

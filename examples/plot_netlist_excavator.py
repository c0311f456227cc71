"""
An excavator on a load-sensing valve bank: flow sharing in MuJoCo
=================================================================

The built-in ``excavator-ls``: the excavator of ``excavator-dig`` on its slewing upper structure,
its cylinders and swing motor joined to a netlist — a load-sensing pump, LS shuttles and four
post-compensated sections (``machine`` kind with ``[components]``, the same tables as the
``circuit`` kind). When boom up, stick out and swing together ask for more than the pump gives,
the compensators share its flow in the ratio of the spool openings. Both models are run: the
relaxed quasistatic network and pressure dynamics (node volumes at the oil's bulk modulus).
"""

import os

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

excavator = actuatorlab.load("excavator-ls").set("picture.renderer", "drawing")
if QUICK:  # from the start of the combined motion: the house at rest, the pump about to saturate
    excavator = excavator.set("duration", "9.5 s")
runs = {model: excavator.set("model", model).run() for model in ("quasistatic", "pressure-dynamics")}
quasistatic = runs["quasistatic"]
print(
    f"real-time factor {quasistatic.summary['real_time_factor'].value:.0f}, "
    f"energy delivered by the pump {quasistatic.summary['energy.pump.delivered_J'].value / 1e3:.0f} kJ"
)

fig, (ax_q, ax_s) = plt.subplots(1, 2, figsize=(10, 4))
table = quasistatic.table
for column, label in (
    ("flow.pump", "pump"),
    ("flow.boom_meter.PA", "boom meter-in"),
    ("flow.stick_meter.PB", "stick meter-in"),
    ("flow.swing_meter.PA", "swing meter-in"),
):
    ax_q.plot(table["t"], table[column] * 6e4, label=label)
ax_q.set_xlabel("t [s]")
ax_q.set_ylabel("flow [L/min]")
ax_q.set_title("the pump's flow shared between the sections")
ax_q.legend()
for model, result in runs.items():
    style = "-" if model == "quasistatic" else "--"
    for i, name in enumerate(("boom", "stick", "bucket")):
        ax_s.plot(
            result.table["t"],
            result.table[f"{name}.stroke"],
            style,
            color=f"C{i}",
            label=name if model == "quasistatic" else None,
        )
ax_s.set_xlabel("t [s]")
ax_s.set_ylabel("stroke [m]")
ax_s.set_title("strokes (dashed: pressure dynamics)")
ax_s.legend()
fig.tight_layout()
plt.show()

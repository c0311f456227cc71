"""
Quasistatic or pressure dynamics: one word in the scenario
==========================================================

The same arm, circuit and inputs with the two actuator models: the quasistatic one of Kikuuwe
et al. (no pressure states, relaxed at h = 1 ms) and the conventional bulk-modulus model
(chamber and pump-line pressures as states, integrated by SciPy's stiff solvers). Switch with
``model = "quasistatic"`` or ``model = "pressure-dynamics"``.
"""

import os
import time

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

base = actuatorlab.load("arm-relief")
if QUICK:
    base = base.set("simulation.duration", "8 s")
runs, seconds = {}, {}
for model in ("quasistatic", "pressure-dynamics"):
    start = time.perf_counter()
    runs[model] = base.set("model", model).run()
    seconds[model] = time.perf_counter() - start
both = actuatorlab.compare(runs, ["theta", "head_pressure", "rod_pressure"])

for model, wall in seconds.items():
    print(f"{model}: {wall:.2f} s for {base.get('simulation.duration'):.0f} s simulated")

fig, (ax_theta, ax_p) = plt.subplots(2, 1, sharex=True, figsize=(7, 5.5))
for model, style in (("quasistatic", "-"), ("pressure-dynamics", "--")):
    ax_theta.plot(both.index, both[(model, "theta")], style, label=model)
    ax_p.plot(both.index, both[(model, "rod_pressure")] / 1e6, style, label=f"rod side, {model}")
ax_theta.set_ylabel("θ [rad]")
ax_p.set_ylabel("p_r [MPa, gauge]")
ax_p.set_xlabel("t [s]")
ax_theta.legend()
ax_p.legend(fontsize="small")
ax_theta.set_title("arm-relief with both actuator models")
fig.tight_layout()

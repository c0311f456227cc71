"""
Bilevel trajectory optimisation of the EMLA crane
=================================================

Bahari et al.'s Algorithm 1: a follower computes a B-spline motion of the EMLA-driven crane
with free final time, minimising a weighted sum of actuator effort and power (CasADi, IPOPT);
a leader chooses the two weights to maximise the motion's energy efficiency. The fixed-weight
baselines (effort only, power only, equal weights) are candidates too, so the optimum is at least
as good as each. The built-in scenario ``emla-bilevel`` runs it.
"""

import os

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

# workers = 1 solves the candidates in this process (more workers start "spawn" processes,
# which need the `if __name__ == "__main__":` guard in a script).
scenario = actuatorlab.load("emla-bilevel").set({"leader.workers": 1, "leader.max_evaluations": 4 if QUICK else 24})
result = scenario.run()
for key in ("w_effort", "w_power", "duration_s", "efficiency_total", "follower_solves"):
    figure = result.summary[key]
    print(f"{figure.label}: {figure.value:.4g} {figure.unit}")

table = result.table
fig, (ax_f, ax_eta) = plt.subplots(2, 1, sharex=True, figsize=(7, 5.5))
for joint in ("lift", "tilt", "extension"):
    ax_f.plot(table["t"], table[f"f_{joint}"] / 1e3, label=joint)
    ax_eta.plot(table["t"], table[f"eta_{joint}"], label=joint)
ax_f.set_ylabel("actuator force f_x [kN]")
ax_eta.set_ylabel("efficiency η")
ax_eta.set_xlabel("t [s]")
ax_f.legend()
ax_f.set_title("the leader's optimal motion")
fig.tight_layout()

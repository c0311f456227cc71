"""
A study in a notebook
=====================

The commands and the API meet on disk: what ``actuatorlab run`` and ``actuatorlab sweep`` write
comes back into Python with :func:`actuatorlab.open` (table with units, key figures, notes,
scenario, plots), a result pickles (for joblib, a cache or another process), and a machine of
your own runs on the default relaxation chosen for each cylinder's load and the step. In a
notebook, the two commands are ``!actuatorlab run …`` and ``!actuatorlab sweep …``; here they are
run as subprocesses, ``python -m actuatorlab``, which is the same command.
"""

import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")
work = Path(tempfile.mkdtemp())


def command(*words: str) -> None:
    """Run ``actuatorlab WORDS…`` as a notebook's ``!actuatorlab WORDS…`` would."""
    subprocess.run([sys.executable, "-m", "actuatorlab", *words, "--quiet"], check=True)


# %%
# A run written by the command line, back in Python
# -------------------------------------------------
# ``actuatorlab run`` writes results.parquet, summary.json, scenario.toml, the plots and a
# report; ``open`` reads them into the same ``RunResult`` that ``Scenario.run()`` returns.
command("run", "arm-relief", "--out", str(work / "arm"))
arm = actuatorlab.open(work / "arm")
final = arm.summary["final_angle_rad"]
print(f"{arm.scenario.name}: {final.label} = {final.value:.3f} {final.unit} (θ in {arm.table.attrs['units']['theta']})")

# %%
# A sweep written by the command line
# -----------------------------------
# Two pump sizes times two bleed openings: the bleed steals flow only from the small pump.
flows, bleeds = "circuit.pump_flow=150 L/min,500 L/min", "inputs.bleed=0.0,0.2"
command("sweep", "arm-relief", "--grid", flows, "--grid", bleeds, "--out", str(work / "sweep"))
sweep = actuatorlab.open(work / "sweep")
index = sweep.index
index["Q [L/min]"] = index["circuit.pump_flow"] * 60000  # the index holds SI values (m³/s)
print(index[["Q [L/min]", "inputs.bleed", "final_angle_rad"]].to_string(index=False))

# %%
# Results pickle
# --------------
# A result travels to worker processes, joblib or a cache and comes back equal (its figures are
# not pickled: ``plot()`` draws them again on demand).
again = pickle.loads(pickle.dumps(arm))
assert again.table.equals(arm.table) and again.scenario.name == arm.scenario.name
print(f"pickled: {len(pickle.dumps(arm)) / 1e3:.0f} kB")

# %%
# An excavator at its model's 2 ms step, on the default relaxation
# ----------------------------------------------------------------
# Without ``[relaxation]`` each cylinder gets its own, chosen for the mass it moves and the step
# (critical damping within a quarter of the stability bound); the run's notes list them.
excavator = actuatorlab.load("excavator-dig").set({"timestep": "2 ms", "relaxation": None})
if QUICK:
    excavator = excavator.set("duration", "4 s")
dig = excavator.run()
print(next(note for note in dig.notes if note.startswith("Relaxation")))
print(f"real-time factor of the loop: {dig.summary['real_time_factor'].value:.0f}")

fig, (ax_sweep, ax_dig) = plt.subplots(1, 2, figsize=(10, 4))
for (flow, bleed), row in index.set_index(["Q [L/min]", "inputs.bleed"]).iterrows():
    ax_sweep.bar(f"{flow:.0f} L/min\nbleed {bleed:g}", row["final_angle_rad"])
ax_sweep.set_ylabel("final arm angle [rad]")
ax_sweep.set_title("actuatorlab sweep, opened in Python")
for name in ("boom", "stick", "bucket"):
    ax_dig.plot(dig.table["t"], dig.table[f"{name}.length"], label=name)
ax_dig.set_xlabel("t [s]")
ax_dig.set_ylabel("pin-to-pin length ℓ [m]")
ax_dig.set_title("excavator-dig at h = 2 ms, default relaxation")
ax_dig.legend()
fig.tight_layout()

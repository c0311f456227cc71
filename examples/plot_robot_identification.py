"""
Identifying a hydraulic robot from logs
=======================================

Sakai & Maeshima identify every mechanical and fluid parameter of an N-DOF hydraulic robot —
masses, friction, gravity terms, the bulk modulus b and four flow gains per valve — in one
coupled least-squares solve (2)–(3) from locked-joint experiments. Here the built-in scenario
``identify-2dof`` generates the paper's three experiments on the Table II robot (with sensor
noise) and writes them as logs; we then identify from those logs exactly as one would from a
real machine's, with :func:`actuatorlab.identify_hydraulic_robot`.
"""

import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

scenario = actuatorlab.load("identify-2dof").set({"repetitions": 2 if QUICK else 4, "search.population": 0})
generated = scenario.run()  # synthetic experiments, identified, cross-validated
folder = Path(tempfile.mkdtemp()) / "identify-2dof"
generated.save(folder)  # writes logs/*.parquet in the format of `actuatorlab identify hydraulic-robot`

# %%
# A log: one row per sample, ``t`` [s], joint angles ``q1 … qN`` [rad], chamber pressures
# ``p_plus1 …``, ``p_minus1 …`` [Pa, gauge] and spool inputs ``u1 … uN``. A joint whose angle
# does not move is taken as locked.
logs = sorted((folder / "logs").glob("step*.parquet"))
print([log.name for log in logs])
print(pd.read_parquet(logs[0]).head())

identified = actuatorlab.identify_hydraulic_robot(logs)  # known values: the paper's Table II robot
table = identified.table
print(table.head(8))

truth = generated.table.set_index("parameter")["truth"]
fig, ax = plt.subplots(figsize=(8, 3.8))
rows = table.set_index("parameter")
common = [p for p in rows.index if p in truth.index]
reported = rows.loc[common, "reported"]  # bias-corrected where the bootstrap found a significant bias
error = 100 * (reported / truth[common] - 1)
band = (
    100
    * np.vstack([reported - rows.loc[common, "ci95_low"], rows.loc[common, "ci95_high"] - reported])
    / truth[common].to_numpy()
)
ax.bar(range(len(common)), error, yerr=band, capsize=3)
ax.set_xticks(range(len(common)), common, rotation=60, fontsize="small")
ax.set_ylabel("estimate / truth − 1 [%]  (bars: 95 % interval)")
ax.set_title(f"{len(common)} parameters from {len(logs)} logs, one least-squares solve")
fig.tight_layout()

"""
Transfer functions of the IEHA from a logged record
===================================================

Alfayad et al. identify two transfer functions from the valve command X and the external force F_ext
to the rod position Y, G1 = K/(s(1+λ1 s)(1+λ2 s)(1+λ3 s)) and G2 = K′/(s(1+λ′s)) (26)–(28), by
output error. Here the "record" comes from the nonlinear model (a chirp of X around a positive
offset, and a reversed chirp of the load) and is passed as a pandas DataFrame to
:func:`actuatorlab.identify_transfer_function`
— the same call takes a CSV or Parquet log of a real actuator.
"""

import os

import pandas as pd

import actuatorlab
from actuatorlab.simulation.ieha import identification_run

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

run = identification_run(duration=3.0 if QUICK else 10.0, force_amplitude=200.0)  # X: 0.1 → 10 Hz chirp
record = pd.DataFrame({"t": run.t, "x": run.x, "f_ext": run.f_ext, "y": run.y})  # SI: s, m, N, m
print(record.describe().loc[["min", "max"]])

fit = actuatorlab.identify_transfer_function(record, inputs=["x", "f_ext"], output="y", structures=["G1", "G2"])
print(fit.table)  # K [m/(m s)] and λ [s] with their standard errors (NaN: not determined by the data)
for figure in fit.summary.values():
    print(f"{figure.label}: {figure.value:.4g} {figure.unit}")

# %%
# With a 0.1–10 Hz chirp and lags of about a millisecond, the data fix K and the sum of the λ
# well but not how that sum splits between λ1, λ2, λ3 (two of them run to zero above). Compare
# sums, or excite faster. The report's figure overlays the record and the fitted model:
figures = fit.plot(show=False)

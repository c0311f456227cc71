"""
MPC of the IEHA beside PID
==========================

Alfayad et al. control the IEHA with a linear MPC built on the identified transfer functions.
The scenario ``ieha-mpc`` identifies G1 and G2 from the nonlinear model, then tracks a sine
under a sinusoidal 600 N load with MPC (OSQP; input and rate limits, the measured load as a
disturbance) and with a PID for comparison — both in closed loop on the nonlinear model.
"""

import os

import matplotlib.pyplot as plt

import actuatorlab

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

scenario = actuatorlab.load("ieha-mpc")
if QUICK:
    scenario = scenario.set({"duration": "1.5 s", "identification_duration": "4 s"})
result = scenario.run()
table = result.table
for controller in ("mpc", "pid"):
    rms = result.summary[f"{controller}_rms_error_m"].value
    print(f"{controller.upper()}: RMS tracking error {rms * 1e3:.3f} mm")

fig, (ax_y, ax_e) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
ax_y.plot(table["t"], table["r"] * 1e3, "k--", label="reference")
ax_y.plot(table["t"], table["y_mpc"] * 1e3, label="MPC")
ax_y.plot(table["t"], table["y_pid"] * 1e3, label="PID")
ax_y.set_ylabel("Y [mm]")
ax_y.legend()
ax_e.plot(table["t"], table["e_mpc"] * 1e3, label="MPC")
ax_e.plot(table["t"], table["e_pid"] * 1e3, label="PID")
ax_e.set_ylabel("error [mm]")
ax_e.set_xlabel("t [s]")
ax_y.set_title("sine tracking under a 600 N load")
fig.tight_layout()

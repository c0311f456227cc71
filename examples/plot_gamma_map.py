"""
The quasistatic force–velocity map Γ
====================================

Kikuuwe et al. model a cylinder on a four-valve independent-metering circuit as a set-valued
map from rod velocity v to force f: f ∈ Γ(v) (61)–(65). Away from v = 0 it is a function; at
v = 0 it is the interval Γ(0) = [Γ₊(0), Γ₋(0)] (65) the closed valves hold until a relief valve
cracks. This reproduces Fig. 3(c): Γ for u_c ∈ [−1, 1] with the bleed at u_b = 0.2, on the
paper's circuit (66). Signs: v > 0 extends the rod, f > 0 pushes the rod out.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from actuatorlab.hydraulics.quasistatic import Openings, ValveCircuit, gamma, gamma_interval

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")
points = 61 if QUICK else 401

circuit = ValveCircuit.paper_example()  # eq. (66): C = 0.6, a = 1e-4 m², A_h = 0.024 m², A_r = 0.012 m², Q = 500 L/min
v = np.linspace(-0.6, 0.6, points)
v = v[v != 0.0]

fig, ax = plt.subplots(figsize=(7, 4.5))
for u_c in (-1.0, -0.5, 0.0, 0.5, 1.0):
    openings = Openings.from_command(u_c=u_c, u_b=0.2)  # eq. (67): one spool command → four valves
    f = gamma(circuit, openings, v)  # [N], one value for each v ≠ 0
    low, high = gamma_interval(circuit, openings)  # Γ(0) [N]
    (line,) = ax.plot(v[v < 0], f[v < 0] / 1e6, label=f"u_c = {u_c:+.1f}")
    ax.plot(v[v > 0], f[v > 0] / 1e6, color=line.get_color())
    ax.plot([0, 0], [low / 1e6, high / 1e6], color=line.get_color(), lw=3)
ax.set_xlabel("rod velocity v [m/s]  (> 0 extends)")
ax.set_ylabel("force f [MN]  (> 0 pushes the rod out)")
ax.set_title("f ∈ Γ(v), u_b = 0.2 (Fig. 3(c)); the thick bars are Γ(0)")
ax.legend(fontsize="small")
ax.grid(alpha=0.3)
fig.tight_layout()

# %%
# The free velocity of a command is where Γ crosses f = 0: the rod's speed with no load.
openings = Openings.from_command(u_c=0.5, u_b=0.2)
fine = np.linspace(0.01, 0.6, 20001)
free = fine[np.argmin(np.abs(gamma(circuit, openings, fine)))]
print(f"free velocity at u_c = 0.5, u_b = 0.2: {free:.4f} m/s")

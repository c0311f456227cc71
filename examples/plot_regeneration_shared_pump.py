"""
Regeneration and several actuators on one pump
==============================================

Two extensions of the quasistatic model (Kikuuwe et al. Secs. 5–6). Left: a regeneration
valve (opening u_a) lets rod-side oil feed the head side while the rod extends, so the rod
extends faster under light loads: Γ_reg(v) (98), Fig. 8. Right: two cylinders on one pump share
its flow Q, bleed and relief; the pump pressure P follows from the node balance (117), and the
force of actuator 1 at a given v₁ depends on what actuator 2 does (Fig. 12).
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from actuatorlab.hydraulics.quasistatic import Openings, ValveCircuit, gamma_regeneration
from actuatorlab.hydraulics.quasistatic.network import PumpNetwork, gamma_network

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")
points = 41 if QUICK else 241

circuit = ValveCircuit.paper_example()
openings = Openings.from_command(u_c=0.5, u_b=0.2)
fig, (ax_reg, ax_net) = plt.subplots(1, 2, figsize=(10, 4.2))

v = np.linspace(0.005, 0.9, points)
for u_a in (0.0, 0.5, 1.0):
    f = gamma_regeneration(circuit, openings, u_a=u_a, v=v)  # [N]
    ax_reg.plot(v, f / 1e6, label=f"u_a = {u_a}")
ax_reg.set_xlabel("v [m/s]")
ax_reg.set_ylabel("f [MN]")
ax_reg.set_title("Γ_reg(v), u_c = 0.5, u_b = 0.2")
ax_reg.legend()

network = PumpNetwork([circuit, circuit])  # two of the paper's cylinders on one pump
v1 = np.linspace(0.005, 0.4, points)
for v2 in (0.05, 0.15, 0.3):
    velocities = np.stack([v1, np.full_like(v1, v2)], axis=-1)  # (points, 2): both must be ≠ 0
    pressure, forces = gamma_network(network, [openings, openings], velocities)  # P [Pa], f [N]
    ax_net.plot(v1, forces[:, 0] / 1e6, label=f"v₂ = {v2} m/s")
ax_net.set_xlabel("v₁ [m/s]")
ax_net.set_ylabel("f₁ [MN]")
ax_net.set_title("actuator 1 on a shared pump (Fig. 12)")
ax_net.legend()
for ax in (ax_reg, ax_net):
    ax.grid(alpha=0.3)
fig.tight_layout()

"""
Relaxation Λ: stepping a quasistatic actuator at 1 ms
=====================================================

A set-valued Γ cannot be integrated directly. Kikuuwe et al. put the rod in series with a virtual
spring–damper (K, B), f = K(p − ℓ) + B(ṗ − ℓ̇) (68a), and step it implicitly: each step solves
β v + f̄ ∈ Γ(v) for v in closed form, v = Λ(β, f̄) (73)–(74), with β = B + hK and f̄ collecting
the known terms (72). Graphically, v is where the line f = β v + f̄ meets the graph of Γ.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from actuatorlab.hydraulics.quasistatic import Openings, ValveCircuit, gamma, gamma_interval, lam

QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")

circuit = ValveCircuit.paper_example()
openings = Openings.from_command(u_c=0.5, u_b=0.2)
v = np.linspace(-0.1, 0.4, 101 if QUICK else 501)
v = v[v != 0.0]
f = gamma(circuit, openings, v)
low, high = gamma_interval(circuit, openings)

stiffness, damping, h = 5e7, 2.5e6, 1e-3  # K [N/m], B [N s/m] of arm-relief; h [s]
impedance = damping + h * stiffness  # β = B + hK [N s/m], the step's impedance (72)

fig, ax = plt.subplots(figsize=(7, 4.5))
ax.plot(v, f / 1e6, color="k", label="Γ(v)")
ax.plot([0, 0], [low / 1e6, high / 1e6], color="k", lw=3)
for fbar in (-4e5, -1e5, 2e5):
    root = float(lam(circuit, openings, impedance=impedance, fbar=fbar))  # v = Λ(β, f̄)  [m/s]
    (line,) = ax.plot(v, (impedance * v + fbar) / 1e6, ls="--", label=f"β v + f̄, f̄ = {fbar / 1e3:.0f} kN")
    ax.plot(root, (impedance * root + fbar) / 1e6, "o", color=line.get_color())
ax.set_ylim(-1.2, 1.2)
ax.set_xlabel("rod velocity v [m/s]")
ax.set_ylabel("force f [MN]")
ax.set_title(f"Λ solves β v + f̄ ∈ Γ(v) in closed form (β = {impedance:.3g} N s/m)")
ax.legend(fontsize="small")
ax.grid(alpha=0.3)
fig.tight_layout()

# %%
# Λ is vectorised: a million (β, f̄) pairs cost a few tens of milliseconds (see the
# benchmarks page), which is what makes 1 ms multibody steps cheap.
rng = np.random.default_rng(0)
n = 10_000 if QUICK else 1_000_000
velocities = lam(circuit, openings, impedance=np.full(n, impedance), fbar=rng.uniform(-2e6, 2e6, n))
print(f"{n} evaluations, v in [{velocities.min():.3f}, {velocities.max():.3f}] m/s")

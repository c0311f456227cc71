"""Figures of the excavator's dig cycle: a side view of the machine along the run and the stroke diagram.

Built like :mod:`.plots` with the object-oriented API on the Agg canvas (no pyplot); the side
view places the links by MuJoCo forward kinematics of the recorded joint angles. Axes in SI
units scaled for reading (m, kN, MPa, L/min); x forward, z up.
"""

from __future__ import annotations

import matplotlib as mpl
import mujoco
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..machines.excavator import CYLINDER_SITES, CYLINDERS, TIP_SITE
from ..multibody.excavator import recorded_qpos
from ..multibody.system import HydraulicMujocoSystem
from ..simulation.result import SimulationResult


def _figure(size: tuple[float, float]) -> Figure:
    """A figure of ``size`` [inch] on an Agg canvas."""
    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    return fig


_LINKS = (
    ("boom_foot", "stick_cyl_base", "stick_pin", "boom_cyl_rod", "boom_foot"),
    ("stick_cyl_rod", "stick_pin", "bucket_pin", "bucket_cyl_base", "stick_cyl_rod"),
    ("bucket_cyl_rod", "bucket_pin", "bucket_tip", "bucket_back", "bucket_cyl_rod"),
)


def plot_excavator(result: SimulationResult, system: HydraulicMujocoSystem, times=None, ax=None):
    """Side view of the machine at a few instants (default 5 evenly spaced over the run), drawn
    from the recorded joint angles by MuJoCo forward kinematics (lines between the joints and
    pins; cylinders dashed), with the bucket-tip path. Returns a matplotlib Figure."""
    if ax is None:
        fig = _figure((8, 6))
        ax = fig.subplots()
    else:
        fig = ax.figure
    t = result.t
    if times is None:
        times = np.linspace(t[0], t[-1], 5)
    qpos = recorded_qpos(result, system.model.nq)
    data = mujoco.MjData(system.model)

    def xz(name):
        return data.site_xpos[system.site_id(name), [0, 2]]

    cmap = mpl.colormaps["viridis"]
    for j, time_ in enumerate(times):
        k = int(np.clip(np.searchsorted(t, time_), 0, t.size - 1))
        data.qpos[:] = qpos[k]
        mujoco.mj_kinematics(system.model, data)
        colour = cmap(j / max(len(times) - 1, 1))
        for chain in _LINKS:
            pts = np.array([xz(s) for s in chain])
            ax.plot(pts[:, 0], pts[:, 1], "-", color=colour, lw=2)
        for base, rod in CYLINDER_SITES.values():
            pts = np.array([xz(base), xz(rod)])
            ax.plot(pts[:, 0], pts[:, 1], "--", color=colour, lw=3, alpha=0.7)
        tip = xz(TIP_SITE)
        ax.annotate(f"{t[k]:.1f} s", tip, textcoords="offset points", xytext=(4, -10), color=colour, fontsize=8)
    if "tip_x" in result.channels:
        ax.plot(result["tip_x"], result["tip_z"], ":", color="k", lw=1, label="bucket tip path")
    ax.axhline(0.0, color="saddlebrown", lw=1, label="ground")
    ax.add_patch(Rectangle((-2.0, 0.5), 3.0, 1.0, color="0.8", zorder=0))
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_title("Excavator dig cycle: side view (dashed: cylinders)")
    ax.legend(loc="upper right", fontsize=8)
    return fig


def plot_strokes(result: SimulationResult):
    """Stroke diagram: piston positions [m], cylinder forces [kN], pump pressure [MPa] and pump
    relief flow [L/min] against time. Returns a matplotlib Figure."""
    fig = _figure((8, 9))
    axes = fig.subplots(4, 1, sharex=True)
    t = result.t
    for name in CYLINDERS:
        key = f"{name}.stroke" if f"{name}.stroke" in result.channels else f"{name}.length"
        axes[0].plot(t, result[key], label=name)
        axes[1].plot(t, result[f"{name}.force"] / 1e3, label=name)
    axes[2].plot(t, result[f"{CYLINDERS[0]}.pump_pressure"] / 1e6, color="k")
    axes[3].plot(t, result[f"{CYLINDERS[0]}.pump_relief_flow"] * 60000.0, color="r")
    axes[0].set_ylabel("stroke [m]")
    axes[1].set_ylabel("force [kN]")
    axes[2].set_ylabel("pump P [MPa]")
    axes[3].set_ylabel("relief [L/min]")
    axes[3].set_xlabel("t [s]")
    axes[0].legend(fontsize=8)
    axes[1].legend(fontsize=8)
    for a in axes:
        a.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig

"""Figures of a ``machine`` run: strokes and velocities, forces, pressures, flows, power and energy,
joint angles and tracking errors, from the channels of :mod:`actuatorlab.multibody.machine`.

Built with the object-oriented API on the Agg canvas (no pyplot). Axes in SI scaled for reading:
m, m/s, kN, MPa, L/min, kW, kJ, deg. Long runs are drawn at every k-th sample so that each line
keeps at most ``MAX_POINTS`` points, with the extremes of every stretch of k samples kept (the
peak of a relief spike is not lost).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..simulation.result import SimulationResult
from .plots import stacked_margins


MAX_POINTS = 4000


def _xy(t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(t, y) thinned to at most about MAX_POINTS points: of every stretch of k samples the
    smallest and the largest y are kept, in time order."""
    k = max(1, -(-2 * t.size // MAX_POINTS))
    if k == 1:
        return t, y
    n = t.size // k * k
    blocks = y[:n].reshape(-1, k)
    rows = np.arange(blocks.shape[0]) * k
    low, high = rows + blocks.argmin(axis=1), rows + blocks.argmax(axis=1)
    keep = np.concatenate(
        [np.stack([np.minimum(low, high), np.maximum(low, high)], axis=1).ravel(), np.arange(n, t.size)]
    )
    return t[keep], y[keep]


def _plot(ax, result: SimulationResult, values: np.ndarray, *args, **kwargs):
    """``ax.plot`` of ``values`` (one per sample of ``result``) against t, thinned by ``_xy``."""
    return ax.plot(*_xy(result.t, values), *args, **kwargs)


def _figure(rows: int, height: float = 2.4) -> tuple[Figure, np.ndarray]:
    fig = Figure(figsize=(8, 0.6 + height * rows))
    FigureCanvasAgg(fig)
    axes = np.atleast_1d(fig.subplots(rows, 1, sharex=True))
    for ax in axes:
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("t [s]")
    return fig, axes


def _finish(fig: Figure, axes) -> Figure:
    """Legends, and the fixed margins of :mod:`.plots` (a tight layout measures every label: it
    cost about a third of the drawing time)."""
    for ax in axes:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="best")
    fig.subplots_adjust(**stacked_margins(fig.get_size_inches(), title=False))
    return fig


def plot_strokes(result: SimulationResult, cylinders: Sequence[str]) -> Figure:
    """Strokes x = ℓ − ℓ₀ [m] (closed-loop targets dashed) and extension rates ℓ̇ [m/s]."""
    fig, axes = _figure(2)
    for name in cylinders:
        (line,) = _plot(axes[0], result, result[f"{name}.stroke"], label=name)
        if f"{name}.target" in result.channels and result.units()[f"{name}.target"] == "m":
            _plot(axes[0], result, result[f"{name}.target"], "--", color=line.get_color(), lw=1, label=f"{name} target")
        _plot(axes[1], result, result[f"{name}.velocity"], label=name)
    axes[0].set_ylabel("stroke [m]")
    axes[1].set_ylabel("velocity [m/s]")
    return _finish(fig, axes)


def plot_forces(result: SimulationResult, cylinders: Sequence[str]) -> Figure:
    """Cylinder forces f [kN] (> 0 pushes the pins apart)."""
    fig, axes = _figure(1, 3.0)
    for name in cylinders:
        _plot(axes[0], result, result[f"{name}.force"] / 1e3, label=name)
    axes[0].set_ylabel("force [kN]")
    return _finish(fig, axes)


def plot_pressures(result: SimulationResult, cylinders: Sequence[str], supplies: Sequence[str]) -> Figure:
    """Head and rod chamber pressures of each cylinder and the pump or supply pressures [MPa]."""
    fig, axes = _figure(2)
    for name in cylinders:
        (line,) = _plot(axes[0], result, result[f"{name}.head_pressure"] / 1e6, label=f"{name} head")
        _plot(axes[0], result, result[f"{name}.rod_pressure"] / 1e6, ":", color=line.get_color(), label=f"{name} rod")
    for name in supplies:
        _plot(axes[1], result, result[f"supply.{name}.pressure"] / 1e6, label=name)
    axes[0].set_ylabel("chamber p [MPa]")
    axes[1].set_ylabel("pump / supply P [MPa]")
    return _finish(fig, axes)


def plot_flows(result: SimulationResult, cylinders: Sequence[str]) -> Figure:
    """Flow from the supply into each cylinder and the pump relief flows [L/min]."""
    fig, axes = _figure(2)
    for name in cylinders:
        _plot(axes[0], result, result[f"{name}.supply_flow"] * 60000.0, label=name)
        if f"{name}.pump_relief_flow" in result.channels:
            _plot(axes[1], result, result[f"{name}.pump_relief_flow"] * 60000.0, label=f"relief ({name}'s pump)")
    axes[0].set_ylabel("supply flow [L/min]")
    axes[1].set_ylabel("relief flow [L/min]")
    return _finish(fig, axes)


def plot_power(
    result: SimulationResult, cylinders: Sequence[str], supplies: Sequence[str], summary: dict[str, float]
) -> Figure:
    """Hydraulic power in and losses [kW] against time, and the energy balance [kJ] per cylinder
    (supply energy, work on the machine, valve losses, compliance) and in total."""
    fig = Figure(figsize=(8, 7.5))
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, gridspec_kw={"height_ratios": [3, 2]})
    for name in supplies:
        (line,) = _plot(top, result, result[f"supply.{name}.power"] / 1e3, label=f"{name}: power in")
        _plot(top, result, result[f"supply.{name}.losses"] / 1e3, ":", color=line.get_color(), label=f"{name}: losses")
    for name in cylinders:
        _plot(top, result, result[f"{name}.mechanical_power"] / 1e3, lw=0.8, label=f"{name}: f·ℓ̇")
    top.set_xlabel("t [s]")
    top.set_ylabel("power [kW]")
    top.grid(True, alpha=0.3)
    top.legend(fontsize=7)
    labels = [*cylinders, "total"]
    x = np.arange(len(labels))
    bars = (
        ("energy in", "hydraulic_energy_J", "energy_J"),
        ("work on the machine", "work_J", "work_J"),
        ("losses", "valve_losses_J", "losses_J"),
        ("compliance (spring or oil)", "compliance_J", "compliance_J"),
    )
    for k, (label, own, total) in enumerate(bars):
        values = [summary[f"{c}.{own}"] for c in cylinders] + [summary[f"total.{total}"]]
        bottom.bar(x + 0.2 * (k - 1.5), np.array(values) / 1e3, 0.2, label=label)
    bottom.set_xticks(x, labels)
    bottom.set_ylabel("energy [kJ]")
    bottom.axhline(0.0, color="k", lw=0.5)
    bottom.grid(True, axis="y", alpha=0.3)
    bottom.legend(fontsize=7)
    bottom.set_title("energy per cylinder (its valves) and in total (pump: bleed and relief included)", fontsize=9)
    fig.subplots_adjust(**stacked_margins(fig.get_size_inches(), title=False))
    fig.subplots_adjust(hspace=0.3)
    return fig


def plot_joints(result: SimulationResult, joints: Sequence[str]) -> Figure:
    """The named joints: hinges [deg], slides [m] (one axis each)."""
    units = result.units()
    hinges = [j for j in joints if units[f"joint.{j}"] == "rad"]
    slides = [j for j in joints if units[f"joint.{j}"] == "m"]
    fig, axes = _figure(int(bool(hinges)) + int(bool(slides)))
    for ax, group, scale, label in (
        (axes[0], hinges, 180.0 / np.pi, "angle [deg]"),
        (axes[-1], slides, 1.0, "position [m]"),
    ):
        for j in group:
            _plot(ax, result, result[f"joint.{j}"] * scale, label=j)
        if group:
            ax.set_ylabel(label)
    return _finish(fig, axes)


def plot_tracking(result: SimulationResult, loops: Sequence[str]) -> Figure:
    """Tracking errors (target − measurement) of the closed loops [mm or deg] and their commands."""
    fig, axes = _figure(2)
    units = result.units()
    for name in loops:
        metres = units[f"{name}.tracking_error"] == "m"
        _plot(
            axes[0],
            result,
            result[f"{name}.tracking_error"] * (1e3 if metres else 180.0 / np.pi),
            label=f"{name} [{'mm' if metres else 'deg'}]",
        )
        _plot(axes[1], result, result[f"{name}.valve_command"], label=name)
    axes[0].set_ylabel("tracking error")
    axes[1].set_ylabel("valve command u_c")
    return _finish(fig, axes)


def plot_motors(result: SimulationResult, motors: Sequence[str]) -> Figure:
    """Hydraulic motors at their joints: angle [deg], speed [rpm] and torque [kN m]."""
    fig, axes = _figure(3)
    for name in motors:
        _plot(axes[0], result, result[f"{name}.angle"] * 180.0 / np.pi, label=name)
        _plot(axes[1], result, result[f"{name}.speed"] * 30.0 / np.pi, label=name)
        _plot(axes[2], result, result[f"{name}.torque"] / 1e3, label=name)
    axes[0].set_ylabel("angle [deg]")
    axes[1].set_ylabel("speed [rpm]")
    axes[2].set_ylabel("torque [kN m]")
    return _finish(fig, axes)

"""A picture of a netlist: nodes as named dots, components as named boxes joined to their ports.

The layout is deterministic and layered, as a hydraulic schematic reads: the pumps at the bottom
above the tank line, then the nodes and components in the order flow reaches them from the
pumps' outlets (breadth first), the actuators and loads last at the top; within a layer, items
sit under the mean position of what feeds them. A node held by a tank at 0 Pa is the tank line
along the bottom: a port on it drops straight down to the line. Pilot connections are dashed.
Symbols after ISO 1219 where they are simple: a pump is a circle with a filled triangle, a tank
an open box on the tank line; every other component is a box with its name and type.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyBboxPatch, Polygon

from ..hydraulics.circuits import FixedPump, Tank, VariablePump
from ..hydraulics.circuits.component import Component
from .plots import STYLE, _figure

DX, DY = 2.4, 1.3
"""Spacing of the items of a layer and of the layers [drawing units]."""
BOX = (1.9, 0.62)
"""Width and height of a component's box [drawing units]."""
STAGGER = 8
"""A layer of more items than this alternates them between two heights (DY/2 apart), so that
the names of neighbours do not run into each other."""


def _layers(parts: Mapping[str, tuple[Component, Mapping[str, str]]], bus: set[str]) -> dict[str, int]:
    """Layer of every item ("c:NAME" a component, "n:NODE" a node), breadth first from the pumps."""
    flow = {name: [n for p, n in ports.items() if p in c.PORTS and n not in bus] for name, (c, ports) in parts.items()}
    pumps = [name for name, (c, _) in parts.items() if isinstance(c, (FixedPump, VariablePump))]
    layer = {f"c:{name}": 0 for name in pumps}
    frontier = [f"c:{name}" for name in pumps] or [f"c:{next(iter(parts))}"]
    layer.update({item: 0 for item in frontier})
    while frontier:
        following = []
        for item in frontier:
            if item.startswith("c:"):
                neighbours = [f"n:{n}" for n in flow[item[2:]]]
            else:
                neighbours = [f"c:{name}" for name, nodes in flow.items() if item[2:] in nodes]
            for other in neighbours:
                if other not in layer:
                    layer[other] = layer[item] + 1
                    following.append(other)
        frontier = following
    last = max(layer.values(), default=0) + 1
    for name, (c, _) in parts.items():
        if not isinstance(c, Tank) or c.pressure != 0.0:
            layer.setdefault(f"c:{name}", last)
            for n in flow[name]:
                layer.setdefault(f"n:{n}", last + 1)
    return layer


def layout(parts: Mapping[str, tuple[Component, Mapping[str, str]]]) -> tuple[dict[str, tuple[float, float]], set[str]]:
    """(position of every item, the tank-line nodes): see the module docstring."""
    bus = {ports["port"] for c, ports in parts.values() if isinstance(c, Tank) and c.pressure == 0.0}
    layer = _layers(parts, bus)
    neighbours: dict[str, list[str]] = {item: [] for item in layer}
    for name, (_, ports) in parts.items():
        for node in ports.values():
            if f"n:{node}" in layer and f"c:{name}" in layer:
                neighbours[f"c:{name}"].append(f"n:{node}")
                neighbours[f"n:{node}"].append(f"c:{name}")
    rows: dict[int, list[str]] = {}
    for item, level in layer.items():
        rows.setdefault(level, []).append(item)
    x: dict[str, float] = {}
    lift: dict[str, float] = {}
    for level in sorted(rows):
        below = [
            np.mean([x[o] for o in neighbours[i] if o in x]) if any(o in x for o in neighbours[i]) else np.inf
            for i in rows[level]
        ]
        order = [rows[level][k] for k in np.argsort(below, kind="stable")]
        for k, item in enumerate(order):
            x[item] = (k - (len(order) - 1) / 2) * DX
            lift[item] = DY / 2 if len(order) > STAGGER and k % 2 else 0.0
    return {item: (x[item], (layer[item] + 1) * DY + lift[item]) for item in layer}, bus


def _pump(ax, x: float, y: float) -> None:
    ax.add_patch(Circle((x, y), 0.32, fill=False, linewidth=0.9, zorder=3))
    ax.add_patch(Polygon([(x - 0.12, y + 0.1), (x + 0.12, y + 0.1), (x, y + 0.3)], color="0.1", zorder=3))


def _tank(ax, x: float, y: float) -> None:
    ax.plot([x - 0.3, x - 0.3, x + 0.3, x + 0.3], [y + 0.2, y - 0.15, y - 0.15, y + 0.2], color="0.1", linewidth=0.9)


@mpl.rc_context(STYLE)
def circuit_figure(parts: Mapping[str, tuple[Component, Mapping[str, str]]], title: str = "") -> Figure:
    """The picture of the netlist ``parts`` (name → (component, {port: node}), as a
    :class:`~actuatorlab.hydraulics.circuits.Network` holds it)."""
    at, bus = layout(parts)
    xs = [p[0] for p in at.values()] or [0.0]
    width = max(xs) - min(xs) + DX
    height = max(p[1] for p in at.values()) + DY
    fig = _figure((min(max(4.0, 0.75 * width), 14.0), min(max(3.0, 0.75 * height), 9.0)))
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_aspect("equal")
    bus_y = 0.0
    ax.plot([min(xs) - DX / 2, max(xs) + DX / 2], [bus_y, bus_y], color="0.1", linewidth=1.2)
    for node in sorted(bus):
        ax.text(min(xs) - DX / 2, bus_y + 0.08, f"{node} (tank line)", fontsize=7, ha="left", va="bottom")
    for name, (component, ports) in parts.items():
        if isinstance(component, Tank) and component.pressure == 0.0:
            continue
        cx, cy = at[f"c:{name}"]
        for port, node in ports.items():
            pilot = port not in component.PORTS
            style = {"color": "0.45" if pilot else "0.15", "linewidth": 0.6, "linestyle": "--" if pilot else "-"}
            nx, ny = (cx, bus_y) if node in bus else at[f"n:{node}"]
            ax.plot([cx, nx], [cy, ny], zorder=1, **style)
        if isinstance(component, (FixedPump, VariablePump)):
            _pump(ax, cx, cy)
            ax.text(cx + 0.4, cy, f"{name}\n{type(component).__name__}", fontsize=7, va="center", ha="left")
            continue
        w, h = BOX
        box = FancyBboxPatch(
            (cx - w / 2, cy - h / 2), w, h, boxstyle="round,pad=0.02", facecolor="white", edgecolor="0.2", zorder=2
        )
        ax.add_patch(box)
        ax.text(cx, cy + 0.08, name, fontsize=7, ha="center", va="center", weight="bold", zorder=3)
        ax.text(cx, cy - 0.15, type(component).__name__, fontsize=6, ha="center", va="center", color="0.3", zorder=3)
    if bus:
        _tank(ax, min(xs) - DX / 2 + 0.5, bus_y - 0.25)
    for item, (x, y) in at.items():
        if item.startswith("n:"):
            ax.plot([x], [y], "o", color="0.1", markersize=4, zorder=4)
            ax.text(x + 0.1, y + 0.1, item[2:], fontsize=7, color="tab:blue", zorder=5)
    ax.set_xlim(min(xs) - DX / 2 - 0.2, max(xs) + DX / 2 + 0.2)
    ax.set_ylim(bus_y - 0.6, height)
    if title:
        ax.set_title(title)
    return fig

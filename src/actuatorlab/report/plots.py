"""Journal-style figures of results: stacked time series and force–velocity maps Γ.

Figures are built with the object-oriented API on the Agg canvas (``Figure`` +
``FigureCanvasAgg``), not through :mod:`matplotlib.pyplot`: no GUI backend is selected, no
global figure registry grows during a sweep, and building figures in worker threads is safe.
Builders return a :class:`~matplotlib.figure.Figure` and never write files;
:func:`save_figure` writes one atomically.
"""

from __future__ import annotations

import math

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..io.atomic import atomic_path
from ..io.forked import ChildLost, fork_allowed, fork_call
from ..io.results import Table, column_names

#: rcParams of every figure: small type, thin lines and inward ticks, as in journal figures.
STYLE = {
    "font.size": 8.0,
    "axes.titlesize": 8.0,
    "figure.titlesize": 9.0,
    "axes.labelsize": 8.0,
    "legend.fontsize": 7.0,
    "xtick.labelsize": 7.0,
    "ytick.labelsize": 7.0,
    "lines.linewidth": 0.9,
    "axes.linewidth": 0.6,
    "grid.linewidth": 0.4,
    "grid.color": "0.85",
    "xtick.direction": "in",
    "ytick.direction": "in",
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "legend.frameon": False,
    "axes.xmargin": 0.0,
}
_REFERENCE = {"color": "0.45", "linestyle": "--", "linewidth": 0.6}


@dataclass(frozen=True)
class Line:
    """One curve of a panel: ``df[column] * scale`` drawn with matplotlib format ``style``.

    ``scale`` converts the stored SI values to the panel's units (``1e-3`` for N → kN,
    ``180/π`` for rad → deg).
    """

    column: str
    label: str
    scale: float = 1.0
    style: str = "-"


@dataclass(frozen=True)
class Panel:
    """One subplot: y-axis label with unit, its lines, and dashed reference lines.

    ``hlines`` holds ``(value, label)`` pairs, the value in the panel's plotted units
    (e.g. ``(-F_rM / 1e3, "−F_rM")`` in a force panel in kN).
    """

    ylabel: str
    lines: list[Line]
    hlines: list[tuple[float, str]] = field(default_factory=list)


@dataclass(frozen=True)
class GammaCurve:
    """One force–velocity map f ∈ Γ(v) sampled off and at v = 0.

    Parameters
    ----------
    label
        Legend entry (e.g. ``"u_c = 0.5"``).
    v
        Velocities [m/s], shape ``(n,)``, strictly increasing, without 0.
    f
        Γ(v) [N], shape ``(n,)``.
    f0_low, f0_high
        Ends of the set value Γ(0) = [f0_low, f0_high] [N].
    """

    label: str
    v: np.ndarray
    f: np.ndarray
    f0_low: float
    f0_high: float

    def __post_init__(self) -> None:
        v = np.asarray(self.v, dtype=float)
        f = np.asarray(self.f, dtype=float)
        if v.ndim != 1 or f.shape != v.shape:
            raise ValueError(f"GammaCurve {self.label!r}: v and f need one shape (n,), got {v.shape} and {f.shape}")
        if np.any(v == 0.0) or np.any(np.diff(v) <= 0.0):
            raise ValueError(
                f"GammaCurve {self.label!r}: v must be strictly increasing and "
                "exclude 0 (give the value at 0 as f0_low, f0_high)"
            )
        if not self.f0_low <= self.f0_high:
            raise ValueError(f"GammaCurve {self.label!r}: f0_low = {self.f0_low} N exceeds f0_high = {self.f0_high} N")
        object.__setattr__(self, "v", v)
        object.__setattr__(self, "f", f)

    def polyline(self) -> tuple[np.ndarray, np.ndarray]:
        """Vertices ``(v, f)`` through v < 0, (0, f0_high), (0, f0_low), then v > 0.

        Γ is non-increasing, so the limit from the left is the high end of Γ(0) and the
        vertical segment at v = 0 joins the two branches.
        """
        neg = self.v < 0.0
        v = np.concatenate((self.v[neg], [0.0, 0.0], self.v[~neg]))
        f = np.concatenate((self.f[neg], [self.f0_high, self.f0_low], self.f[~neg]))
        return v, f


LEGEND_ROWS = 8
"""Lines of a panel's legend in one column; more are set in columns of small print."""


@mpl.rc_context(STYLE)
def time_series_figure(df: Table, panels: list[Panel], title: str | None = None) -> Figure:
    """Stacked subplots over the shared time axis ``df["t"]`` [s], one per panel; ``df`` a
    DataFrame or its columns (name → array).

    A panel gets a legend when it shows more than one labelled line (reference lines count).

    Raises
    ------
    ValueError
        If ``panels`` is empty or a line names a column that ``df`` lacks.
    """
    if not panels:
        raise ValueError("time_series_figure needs at least one panel")
    needed = ["t", *(line.column for panel in panels for line in panel.lines)]
    missing = [c for c in needed if c not in df]
    if missing:
        raise ValueError(f"columns {missing} not in the table; columns are {column_names(df)}")
    size = (6.0, 0.6 + 1.35 * len(panels))
    fig = _figure(size, stacked_margins(size, title=bool(title)))
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    t = np.asarray(df["t"])
    for ax, panel in zip(axes, panels):
        for line in panel.lines:
            ax.plot(t, np.asarray(df[line.column]) * line.scale, line.style, label=line.label)
        for value, label in panel.hlines:
            ax.axhline(value, label=label, **_REFERENCE)
        ax.set_ylabel(panel.ylabel)
        ax.grid(True)
        shown = len(panel.lines) + len(panel.hlines)
        if shown > LEGEND_ROWS:  # a netlist's many branches: columns of small print
            ax.legend(loc="best", ncol=math.ceil(shown / LEGEND_ROWS), fontsize=5.5)
        elif shown > 1:
            ax.legend(loc="best")
    axes[-1].set_xlabel("Time t [s]")  # plain text: mathtext costs each process 30 ms on first use
    for ax in axes:  # aligned at a fixed offset: matplotlib's align_ylabels measures every tick label
        ax.yaxis.set_label_coords(-YLABEL_OFFSET / (size[0] - MARGINS["left"] - MARGINS["right"]), 0.5)
    if title:
        fig.suptitle(title)
    return fig


@mpl.rc_context(STYLE)
def gamma_map_figure(
    curves: list[GammaCurve],
    title: str,
    segments: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> Figure:
    """Force–velocity maps: v [m/s] across, f [kN] up, the set value at v = 0 drawn vertical.

    More than three curves are coloured along a sequential colormap (in list order).
    ``segments`` maps a name to ``(v [m/s], f [N])`` drawn as thin dashed grey lines named
    at their right-most visible point, as the smooth pieces of Γ in Kikuuwe et al. Fig. 3(a);
    the y range stays that of the curves so that unbounded segments do not flatten them.

    Raises
    ------
    ValueError
        If ``curves`` is empty.
    """
    if not curves:
        raise ValueError("gamma_map_figure needs at least one curve")
    fig = _figure((4.5, 3.4))
    ax = fig.subplots()
    if len(curves) > 3:
        colors = mpl.colormaps["viridis"](np.linspace(0.0, 0.9, len(curves)))
    else:
        colors = [f"C{i}" for i in range(len(curves))]
    for curve, color in zip(curves, colors):
        v, f = curve.polyline()
        ax.plot(v, f * 1e-3, color=color, label=curve.label)
    ylim = ax.get_ylim()
    for name, (v_seg, f_seg) in (segments or {}).items():
        _draw_segment(ax, name, np.asarray(v_seg, float), np.asarray(f_seg, float) * 1e-3, ylim)
    ax.set_ylim(ylim)
    ax.axhline(0.0, color="0.3", linewidth=0.4, zorder=0.5)
    ax.axvline(0.0, color="0.3", linewidth=0.4, zorder=0.5)
    ax.set_xlabel("Velocity $v$ [m/s]")
    ax.set_ylabel("Force $f$ [kN]")
    ax.set_title(title)
    ax.grid(True)
    if len(curves) > 3:  # many curves: keep the legend clear of them
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.legend(loc="best")
    return fig


@dataclass(frozen=True)
class XYPanel:
    """One subplot of curves y(x): ``curves`` holds ``(label, x, y)`` in the plotted units,
    drawn with matplotlib format ``style``; ``axes_through_origin`` draws the lines x = 0, y = 0."""

    xlabel: str
    ylabel: str
    curves: list[tuple[str, np.ndarray, np.ndarray]]
    title: str = ""
    style: str = "-"
    axes_through_origin: bool = True


@mpl.rc_context(STYLE)
def xy_figure(panels: list[XYPanel], title: str | None = None) -> Figure:
    """Side-by-side subplots of curves y(x) (static maps such as Kikuuwe et al. Figs. 8 and 12).

    More than three curves in a panel are coloured along a sequential colormap (in list order).
    """
    if not panels:
        raise ValueError("xy_figure needs at least one panel")
    fig = _figure((3.2 * len(panels) + 0.6, 3.2))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, panel in zip(axes, panels):
        n = len(panel.curves)
        colors = mpl.colormaps["viridis"](np.linspace(0.0, 0.9, n)) if n > 3 else [f"C{i}" for i in range(n)]
        for (label, x, y), color in zip(panel.curves, colors):
            ax.plot(x, y, panel.style, color=color, label=label, markersize=3)
        if panel.axes_through_origin:
            ax.axhline(0.0, color="0.3", linewidth=0.4, zorder=0.5)
            ax.axvline(0.0, color="0.3", linewidth=0.4, zorder=0.5)
        ax.set_xlabel(panel.xlabel)
        ax.set_ylabel(panel.ylabel)
        if panel.title:
            ax.set_title(panel.title)
        ax.grid(True)
        if n > 1:
            ax.legend(loc="best")
    if title:
        fig.suptitle(title)
    return fig


@mpl.rc_context(STYLE)
def heatmap_figure(
    x: np.ndarray, y: np.ndarray, z: np.ndarray, xlabel: str, ylabel: str, zlabel: str, title: str = ""
) -> Figure:
    """A value z(x_i, y_j) on a grid, ``z`` of shape (len(y), len(x)), as a colour map; NaN blank."""
    fig = _figure((4.6, 3.4))
    ax = fig.subplots()
    mesh = ax.pcolormesh(
        np.asarray(x, float), np.asarray(y, float), np.ma.masked_invalid(z), shading="nearest", cmap="viridis"
    )
    fig.colorbar(mesh, ax=ax, label=zlabel)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    return fig


CONSTANT_SPREAD = 1e-9
"""A sample whose range is at most this fraction of its magnitude is drawn as one bar."""
MAX_BINS = 60
"""Upper bound on a histogram's bins, so a few outliers cannot ask for millions."""


@mpl.rc_context(STYLE)
def histogram_figure(values: np.ndarray, xlabel: str, title: str = "", bins: int | str = "auto") -> Figure:
    """The distribution of ``values`` (NaN left out), with its mean marked."""
    fig = _figure((4.2, 3.0))
    _histogram(fig.subplots(), values, xlabel, title, bins)
    return fig


def histograms_figure(columns: dict[str, np.ndarray], bins: int | str = "auto") -> Figure:
    """The distribution of each of ``columns`` (name → values), one panel each, two per row."""
    rows = (len(columns) + 1) // 2
    fig = _figure(
        (8.4 if len(columns) > 1 else 4.2, 3.0 * rows),
        {
            "left": 0.09,
            "right": 0.98,
            "bottom": 0.5 / (3.0 * rows),
            "top": 1 - 0.35 / (3.0 * rows),
            "hspace": 0.45,
            "wspace": 0.22,
        },
    )
    axes = np.atleast_1d(fig.subplots(rows, 2 if len(columns) > 1 else 1)).reshape(-1)
    for ax, (name, values) in zip(axes, columns.items()):
        _histogram(ax, values, name, name, bins)
    for ax in axes[len(columns) :]:
        ax.set_visible(False)
    return fig


def _histogram(ax, values: np.ndarray, xlabel: str, title: str, bins: int | str) -> None:
    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    if values.size:
        low, high = values.min(), values.max()
        scale = max(abs(low), abs(high), np.finfo(float).tiny)
        if high - low <= CONSTANT_SPREAD * scale:
            # constant to round-off: one bar, which a bin rule cannot split into finite-sized bins
            ax.hist(values, bins=1, range=(low - 1e-3 * scale, high + 1e-3 * scale), color="C0", alpha=0.8)
            ax.set_xlim(low - 1e-3 * scale, high + 1e-3 * scale)
        else:
            count = len(np.histogram_bin_edges(values, bins)) - 1 if isinstance(bins, str) else bins
            # one outline for all bins: a rectangle per bin costs the drawing (and the legend's
            # placement) a tenth of a second per panel
            ax.hist(values, bins=min(count, MAX_BINS), color="C0", alpha=0.8, histtype="stepfilled")
        ax.axvline(values.mean(), label=f"mean {values.mean():.4g}", **_REFERENCE)
        ax.legend(loc="upper right")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("variants")
    if title:  # at the axes' top: placing it clear of top tick labels (there are none) measures every tick
        ax.set_title(title, y=1.0)
    ax.grid(True)


def envelope_figure(
    t: np.ndarray, bands: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]], units: dict[str, str]
) -> Figure:
    """One panel per signal: its median over a sweep's variants (line) between its 5 % and 95 %
    quantiles (band) against time ``t`` [s]; ``bands``: signal → (q05, q50, q95), ``units``:
    signal → unit."""
    height = 1.9 * len(bands) + 0.6
    fig = _figure(
        (7.0, height), {"left": 0.12, "right": 0.98, "bottom": 0.5 / height, "top": 1 - 0.15 / height, "hspace": 0.12}
    )
    axes = np.atleast_1d(fig.subplots(len(bands), 1, sharex=True))
    for ax, (name, (low, median, high)) in zip(axes, bands.items()):
        ax.fill_between(t, low, high, color="C0", alpha=0.25, linewidth=0, label="5–95 %")
        ax.plot(t, median, color="C0", linewidth=1.2, label="median")
        ax.set_ylabel(f"{name} [{units.get(name, '')}]")
        ax.grid(True)
    axes[0].legend(loc="best")
    axes[-1].set_xlabel("t [s]")
    return fig


def indices_figure(tables: dict, pairs: list[tuple[str, str]]) -> Figure:
    """Sensitivity indices as bars, one panel per key figure: ``tables`` key figure → table with
    a ``parameter`` column and, per (index, half-width) of ``pairs``, the two columns; the bars
    of each index side by side per parameter, the confidence interval as an error bar."""
    fig = _figure((7.0, 2.2 * len(tables) + 0.6))
    axes = np.atleast_1d(fig.subplots(len(tables), 1))
    width = 0.8 / len(pairs)
    for ax, (key, table) in zip(axes, tables.items()):
        x = np.arange(len(table))
        for i, (index, half) in enumerate(pairs):
            ax.bar(
                x + (i - (len(pairs) - 1) / 2) * width,
                table[index],
                width,
                yerr=table[half],
                capsize=3,
                color=f"C{i}",
                alpha=0.85,
                label=index,
            )
        ax.set_xticks(x, table["parameter"])
        ax.set_title(key)
        ax.axhline(0.0, color="0.4", linewidth=0.6)
        ax.grid(True, axis="y")
    axes[0].legend(loc="best")
    return fig


def save_figure(fig: Figure, path: str | os.PathLike[str], dpi: int = 120) -> None:
    """Save ``fig`` atomically at ``dpi`` [1/inch] in the format of ``path``'s suffix (PNG if none).

    The figure is not registered with pyplot, so nothing has to be closed: it is freed with
    its last reference.
    """
    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=fmt, dpi=dpi)


def draw_figures(
    specs, out_dir: str | os.PathLike[str], progress: Callable[[float], None] | None = None, processes: int = 1
) -> tuple[list[str], list[str]]:
    """Build and save each figure spec (``.file`` relative to ``out_dir``, ``.build()`` → Figure,
    ``.start``: None or work to start first, as :class:`~actuatorlab.scenarios.output.FigureSpec`).

    Every spec's ``start`` is called first, then the figures without one are drawn, then those
    with one (their work had time to go on meanwhile). With ``processes=2`` (the ``run``
    command's choice) and where forking is allowed (:func:`~actuatorlab.io.forked.fork_allowed`),
    a forked child draws every second figure of those without a ``start`` meanwhile: the same
    files in about half the time on two cores; a child lost on the way has its share drawn here.
    A figure that cannot be drawn is skipped and named, with its error, in the notes returned
    beside the files written (in the specs' order): a report step never loses the run or sweep
    it reports.
    """
    specs = list(specs)
    for spec in specs:
        if spec.start is not None:
            try:
                spec.start()
            except Exception:  # noqa: BLE001 — only a head start: the figure's build meets it and is noted
                pass
    started = [spec for spec in specs if spec.start is not None]
    free = [spec for spec in specs if spec.start is None]
    if processes < 2 or len(free) < 2 or not fork_allowed():
        drawn, notes = _draw_each(free + started, out_dir, progress)
    else:
        with fork_call(_draw_each, free[1::2], out_dir) as child:
            drawn, notes = _draw_each(free[0::2] + started, out_dir, progress)
            try:
                theirs = child.result()
            except ChildLost:
                theirs = _draw_each(free[1::2], out_dir)
        drawn, notes = drawn + theirs[0], notes + theirs[1]
    drawn = set(drawn)
    files = [spec.file for spec in specs if spec.file in drawn]
    if progress is not None:
        progress(1.0)
    return files, notes


def _draw_each(specs, out_dir, report: Callable[[float], None] | None = None) -> tuple[list[str], list[str]]:
    """Draw ``specs`` one after the other: (files written, notes on figures not drawn)."""
    files, notes = [], []
    for i, spec in enumerate(specs):
        if report is not None:
            report(i / len(specs))
        try:
            save_figure(spec.build(), Path(out_dir) / spec.file)
        except Exception as exc:  # noqa: BLE001 — any drawing failure is reported, never raised
            notes.append(f"figure {spec.file} was not drawn: {type(exc).__name__}: {exc}")
            continue
        files.append(spec.file)
    return files, notes


def _figure(size: tuple[float, float], margins: dict[str, float] | None = None) -> Figure:
    """A figure of ``size`` [inch] on an Agg canvas: constrained layout, or the fixed ``margins``
    (``subplots_adjust`` arguments) where the panels are regular and the report waits on it
    (the constrained layout costs about a third of the drawing)."""
    fig = Figure(figsize=size, layout=None if margins else "constrained")
    if margins:
        fig.subplots_adjust(**margins)
    FigureCanvasAgg(fig)
    return fig


MARGINS = {"left": 0.72, "right": 0.12, "bottom": 0.42, "top": 0.12, "title": 0.22}
"""Margins [inch] of stacked panels: room for the tick and axis labels of the journal style at 7–8 pt."""
YLABEL_OFFSET = 0.6
"""Distance [inch] of a stacked panel's y label centre left of its axes: clear of tick labels of up
to seven characters at 7 pt."""


def stacked_margins(size, title: bool) -> dict[str, float]:
    """``subplots_adjust`` arguments placing stacked panels of a figure of ``size`` [inch] with the
    fixed :data:`MARGINS` (plus a title band when ``title``).

    Used by the time-series figures, the report's common case: measuring every label's extent
    for a constrained layout took 0.1–0.2 s of the 0.25 s such a figure costs, and their labels
    (a y label, short tick numbers, a legend inside the axes) vary little. Maps with legends or
    colour bars outside the axes keep the constrained layout.
    """
    width, height = size
    top = MARGINS["top"] + (MARGINS["title"] if title else 0.0)
    return {
        "left": MARGINS["left"] / width,
        "right": 1.0 - MARGINS["right"] / width,
        "bottom": MARGINS["bottom"] / height,
        "top": 1.0 - top / height,
        "hspace": 0.12,
    }


def _draw_segment(ax, name: str, v: np.ndarray, f: np.ndarray, ylim: tuple[float, float]) -> None:
    """Dashed grey segment ``(v, f)`` [m/s, kN], named at its right-most point inside ``ylim``."""
    f = np.where(np.isfinite(f), f, np.nan)
    ax.plot(v, f, color="0.55", linestyle="--", linewidth=0.5, zorder=1.5)
    visible = np.flatnonzero((f >= ylim[0]) & (f <= ylim[1]))
    if visible.size:
        i = visible[-1]
        ax.annotate(name, (v[i], f[i]), xytext=(-2, 2), textcoords="offset points", ha="right", fontsize=6, color="0.4")

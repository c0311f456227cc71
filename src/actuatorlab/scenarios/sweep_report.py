"""The HTML report of a sweep: chosen key figures against the varied parameters.

One varied parameter: a line per key figure; two: a heat map per key figure; more: the key
figure against each parameter (points); Monte Carlo samples: a histogram per key figure (one image).
Batched sweeps add the 5/50/95 % envelopes of the main signals over the variants. Failed
variants are counted and listed, not plotted.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..errors import ScenarioError
from ..report.html import write_report
from ..report.plots import XYPanel, draw_figures, envelope_figure, heatmap_figure, histograms_figure, xy_figure
from .output import FigureSpec

DEFAULT_FIGURES = 4
"""How many key figures the report plots when none are chosen."""
MACHINE_DEPENDENT = ("loop_time_s", "real_time_factor", "rhs_evaluations")
"""Key figures that measure the machine, not the design: not plotted by default."""
RECORD_COLUMNS = ("variant", "status", "error", "wall_time_s")


def figure_keys(index: pd.DataFrame, parameters: list[str], chosen: list[str] | None) -> list[str]:
    """The key figures to plot: ``chosen`` (checked against the index) or the first numeric ones."""
    available = [
        c for c in index.columns if c not in (*RECORD_COLUMNS, *parameters) and pd.api.types.is_numeric_dtype(index[c])
    ]
    if chosen:
        unknown = [k for k in chosen if k not in available]
        if unknown:
            raise ScenarioError(
                f"--figure {', '.join(unknown)}: not a key figure of this scenario; "
                f"choose from {', '.join(available)}; the variants are kept: "
                f"rerun with --resume and a valid --figure to draw the report"
            )
        return list(chosen)
    return [k for k in available if k not in MACHINE_DEPENDENT][:DEFAULT_FIGURES]


def sweep_figures(index: pd.DataFrame, parameters: list[str], keys: list[str], sampled: bool) -> list[FigureSpec]:
    """The plots of ``keys`` against ``parameters`` over the variants that ran."""
    ok = index[index["status"] == "ok"]
    if sampled:
        return [
            FigureSpec(
                "sweep_histograms.png",
                f"Distributions of {', '.join(keys)} over {len(ok)} sampled variants (mean marked).",
                lambda: histograms_figure({key: ok[key].to_numpy(float) for key in keys}),
            )
        ]
    if len(parameters) == 2:
        x, y = parameters
        return [
            FigureSpec(
                f"sweep_map_{i}.png",
                f"{key} over the grid of {x} and {y} (blank: failed variant).",
                lambda key=key: _heatmap(ok, x, y, key),
            )
            for i, key in enumerate(keys)
        ]
    style = "line" if len(parameters) == 1 else "points"
    panels = [
        XYPanel(
            p,
            key,
            [(key, *_sorted(ok, p, key))],
            title=key,
            style="o-" if style == "line" else "o",
            axes_through_origin=False,
        )
        for key in keys
        for p in parameters
    ]
    return [
        FigureSpec(
            "sweep_lines.png",
            f"Key figures against the varied parameter{'s' if len(parameters) > 1 else ''} ({style}).",
            lambda: xy_figure(panels),
        )
    ]


def _sorted(df: pd.DataFrame, x: str, y: str) -> tuple[np.ndarray, np.ndarray]:
    part = df[[x, y]].sort_values(x)
    return part[x].to_numpy(float), part[y].to_numpy(float)


def _heatmap(df: pd.DataFrame, x: str, y: str, key: str):
    table = df.pivot_table(index=y, columns=x, values=key, aggfunc="mean")
    return heatmap_figure(
        table.columns.to_numpy(float), table.index.to_numpy(float), table.to_numpy(float), x, y, key, title=key
    )


def envelope_spec(envelopes: pd.DataFrame, count: int) -> FigureSpec:
    """The figure of the 5/50/95 % envelopes (``{signal}_q05`` … columns against ``t``, units in
    ``attrs["units"]``)."""
    signals = [c.removesuffix("_q50") for c in envelopes.columns if c.endswith("_q50")]
    bands = {s: tuple(envelopes[f"{s}_{q}"].to_numpy() for q in ("q05", "q50", "q95")) for s in signals}
    units = {s: envelopes.attrs.get("units", {}).get(f"{s}_q50", "") for s in signals}
    return FigureSpec(
        "sweep_envelopes.png",
        f"Median (line) and 5–95 % band (shaded) of the main signals over the "
        f"{count} variants that ran, at {len(envelopes)} times.",
        lambda: envelope_figure(envelopes["t"].to_numpy(), bands, units),
    )


def write_sweep_report(
    out_dir: Path,
    scenario,
    index: pd.DataFrame,
    parameters: list[str],
    keys: list[str],
    sampled: bool,
    wall_time_s: float,
    scenario_toml: str,
    envelopes: pd.DataFrame | None = None,
    processes: int = 1,
) -> list[str]:
    """Render the plots (drawn by ``processes``, 1 or 2) and ``report.html`` into ``out_dir``;
    returns the files written."""
    figures = sweep_figures(index, parameters, keys, sampled) if (index["status"] == "ok").any() else []
    if envelopes is not None:
        figures.append(envelope_spec(envelopes, int((index["status"] == "ok").sum())))
    files, not_drawn = draw_figures(figures, out_dir, processes=processes)
    failed = index[index["status"] != "ok"]
    notes = [
        f"Varied: {', '.join(parameters)} ({'Monte Carlo samples' if sampled else 'grid'}); values in SI units.",
        *not_drawn,
    ]
    notes += [f"variant {int(r.variant)} {r.status}: {r.error}" for r in failed.head(20).itertuples()]
    if len(failed) > 20:
        notes.append(f"… and {len(failed) - 20} more failed variants; see index.parquet")
    context = {
        "title": f"{scenario.name}: sweep of {len(index)} variants",
        "description": scenario.description,
        "key_figures": [
            {"name": "variants", "value": len(index), "unit": "", "note": ""},
            {"name": "failed", "value": len(failed), "unit": "", "note": "recorded with their errors"},
            {"name": "sweep wall time", "value": wall_time_s, "unit": "s", "note": "this run (resumed ones skip)"},
        ],
        "figures": [{"file": spec.file, "caption": spec.caption} for spec in figures],
        "notes": notes,
        "scenario_toml": scenario_toml,
        "files": [
            "index.parquet",
            *(["envelopes.parquet", "batches/", "series/"] if envelopes is not None else ["variants/"]),
            *files,
            "report.html",
        ],
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "version": __version__,
    }
    write_report(out_dir / "report.html", context)
    return [*files, "report.html"]

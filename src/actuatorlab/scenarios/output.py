"""What a scenario kind computes, before anything is written: table, summary, figures, notes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # matplotlib loads when a kind builds its figures
    from matplotlib.figure import Figure

    from ..io.results import Table


@dataclass(frozen=True)
class SummaryFigure:
    """One key figure: ``key`` (ends with its unit, e.g. ``max_force_N``) and ``value`` in SI."""

    key: str
    value: float | None
    unit: str
    label: str
    note: str = ""


@dataclass(frozen=True)
class FigureSpec:
    """A plot to render into ``file`` (PNG); ``build`` is only called when plots are wanted.

    ``start``, if given, starts work the figure will wait for (a renderer in a child process):
    it is called before any figure of the report is built, in the process that then builds this
    one, so that the work overlaps the drawing of the others.
    """

    file: str
    caption: str
    build: Callable[[], Figure]
    start: Callable[[], None] | None = None


StageProgress = Callable[[str, float], None]
"""Called with a stage name and the fraction of that stage done, in [0, 1]."""


@dataclass
class ScenarioOutput:
    """Results of one scenario run: one row per sample (or grid point) and what to report.

    ``table``: a DataFrame, or its columns (name → 1-D array) where a kind's command should not
    load pandas (:data:`actuatorlab.io.results.Table`)."""

    table: Table
    units: dict[str, str]
    labels: dict[str, str]
    summary: list[SummaryFigure]
    figures: list[FigureSpec] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counters: dict[str, float] = field(default_factory=dict)
    attachments: list[tuple[str, Callable[[Path], None]]] = field(default_factory=list)
    """Further files: (name relative to the output directory, writer called with its path)."""

    def summary_dict(self) -> dict[str, float | None]:
        """``summary.json`` content: key → value (SI, the unit is in the key)."""
        return {s.key: s.value for s in self.summary}


def table_output(rows: list[dict], summary: list[SummaryFigure], figures, notes, attachments=()) -> ScenarioOutput:
    """The output of a fit whose table is its ``rows`` (one per parameter, units in the notes)."""
    import pandas as pd

    table = pd.DataFrame(rows)
    units = {column: "" for column in table.columns}
    return ScenarioOutput(table, units, {}, summary, list(figures), list(notes), attachments=list(attachments))


@dataclass
class BatchOutput:
    """Results of a batch of variants of one scenario run through one compiled call.

    ``ids`` (B,) the variants; ``errors`` (B,) "" for a variant that ran, else its error;
    ``figures``: key figure → (B,) values in SI (NaN: none, or a failed variant), ``units`` key →
    unit; ``series``: variant id → its ``ScenarioOutput`` for the variants whose time series
    were asked for; ``envelope_times`` (P,) [s] and ``envelopes``: signal → (B_ok, P) samples
    at those times of the variants that ran (rows in ``ids`` order), ``envelope_units`` signal →
    unit.
    """

    ids: np.ndarray
    errors: list[str]
    figures: dict[str, np.ndarray]
    units: dict[str, str]
    series: dict[int, ScenarioOutput]
    envelope_times: np.ndarray
    envelopes: dict[str, np.ndarray]
    envelope_units: dict[str, str]

"""What a run returns in Python: its table, key figures, figures and notes, kept in memory.

``RunResult.save(folder)`` writes exactly what ``actuatorlab run`` writes (the command calls it):
results.parquet, scenario.toml, summary.json, the plots and report.html; a folder holding
files of the user's is refused unless ``overwrite=True``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..io.deferred import DeferredModule
from ..io.forked import check_processes
from ..io.results import as_dataframe, column_names, row_count
from ..report.html import format_number
from ..scenarios.output import ScenarioOutput, StageProgress
from ..scenarios.runner import write_output

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib import figure
else:  # named by the annotations, imported when they are resolved (typing.get_type_hints) or used
    pd = DeferredModule(lambda: importlib.import_module("pandas"))
    figure = DeferredModule(lambda: importlib.import_module("matplotlib.figure"))


class KeyFigure(NamedTuple):
    """One key figure of a run, as the report's table and ``summary.json`` give it.

    Parameters
    ----------
    value : float or None
        The value in SI ``unit``; None where it does not apply (a relief that never opened).
    unit : str
        Its SI unit (``"s"``, ``"Pa"``, ``"m/s"``; ``""`` for a number without one).
    label : str
        What it is, in words.
    note : str, default ""
        How it was read, where that matters.

    Examples
    --------
    >>> KeyFigure(7.412, "s", "time a chamber relief opens").value
    7.412
    """

    value: float | None
    unit: str
    label: str
    note: str = ""


class KeyFigures(dict):
    """Key figures by key (a ``dict`` of ``KeyFigure``); an unknown key is a ``KeyError`` naming
    the closest keys, so that a typo says what was meant."""

    def __missing__(self, key):
        import difflib

        close = difflib.get_close_matches(str(key), list(self), n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(map(repr, close))}?" if close else f"the keys are {', '.join(self)}"
        raise KeyError(f"no key figure {key!r}; {hint}")


class RunResult:
    """The result of a run, an identification or a calibration, in memory.

    Returned by :meth:`Scenario.run`, :func:`actuatorlab.identify_hydraulic_robot`,
    :func:`actuatorlab.identify_transfer_function`, :func:`actuatorlab.calibrate` and
    :func:`actuatorlab.open`; not constructed directly. Pickles (joblib, caches of a study) with
    its table, key figures, notes and scenario, without its figures.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per sample (column ``t`` [s]) or grid point; ``table.attrs["units"]`` and
        ``table.attrs["labels"]`` map each column to its SI unit and plot label.
    summary : KeyFigures
        Key figures by key (the key ends with its unit, as in ``summary.json``); a mistyped key
        raises a ``KeyError`` naming the closest keys.
    notes : list[str]
        Modelling choices and readings the run took, as in the report.
    scenario : Scenario or None
        The scenario that ran, or the calibrated one (None for an identification from logs).
    title : str
        The scenario's name, or the identification's title.

    Examples
    --------
    >>> import actuatorlab
    >>> result = actuatorlab.load("gamma-map").run()
    >>> figure = result.summary["a.free_velocity[u_c=0.5,u_b=0.2]_m_s"]
    >>> figure.unit, round(figure.value, 4)
    ('m/s', 0.2438)
    >>> result.table.attrs["units"]["f_low"], len(result.plot(show=False))
    ('N', 4)
    """

    def __init__(
        self,
        output: ScenarioOutput,
        title: str,
        description: str,
        source_toml: str,
        csv: bool = False,
        plots: bool = True,
        scenario=None,
    ):
        self._output = output
        self._title, self._description, self._source = title, description, source_toml
        self._csv, self._plots = csv, plots
        self._table: pd.DataFrame | None = None
        self.summary = KeyFigures({s.key: KeyFigure(s.value, s.unit, s.label, s.note) for s in output.summary})
        self.notes = list(output.notes)
        self.scenario = scenario

    def __reduce__(self):
        """Pickled (joblib, caches of a study) as its table, key figures, notes, scenario and
        scenario text. Its figures and extra files are drawn by closures over the run and do
        not travel: a result loaded from a pickle has none (``save`` the run to keep them;
        :func:`actuatorlab.open` reads them back)."""
        kept = self._output
        output = ScenarioOutput(kept.table, kept.units, kept.labels, kept.summary, [], kept.notes, kept.counters)
        return RunResult, (output, self._title, self._description, self._source, self._csv, self._plots, self.scenario)

    @property
    def table(self) -> pd.DataFrame:
        """The run's table as a DataFrame, built on first use (a command that only saves the run
        does not load pandas)."""
        if self._table is None:
            table = as_dataframe(self._output.table).copy()
            table.attrs["units"] = dict(self._output.units)
            table.attrs["labels"] = dict(self._output.labels)
            self._table = table
        return self._table

    @property
    def title(self) -> str:
        """The scenario's name (or the identification's title)."""
        return self._title

    def plot(self, show: bool | None = None) -> list[figure.Figure]:
        """The report's figures as matplotlib figures.

        Parameters
        ----------
        show : bool, optional
            True: display them (IPython); False: only return them; None (default): display
            them when running under IPython (a notebook), else only return them.

        Returns
        -------
        list of matplotlib.figure.Figure
            One figure per plot of the report, in its order (a result read back by
            :func:`actuatorlab.open` shows the saved images; one loaded from a pickle has none).
        """
        for spec in self._output.figures:
            if spec.start is not None:
                spec.start()
        figures = [spec.build() for spec in self._output.figures]
        if show or (show is None and _in_ipython()):
            from IPython.display import display

            for figure in figures:
                display(figure)
        return figures

    def save(
        self,
        folder: str | os.PathLike[str],
        progress: StageProgress | None = None,
        *,
        overwrite: bool = False,
        processes: int = 1,
    ) -> list[str]:
        """Write the run's files into ``folder`` as ``actuatorlab run`` does.

        The files are ``results.parquet``, ``scenario.toml``, ``summary.json``, the plots and
        ``report.html``; :func:`actuatorlab.open` reads the folder back. An earlier run's folder
        there is replaced whole; nothing is left on failure.

        Parameters
        ----------
        folder : str or os.PathLike
            The folder to write: new, empty, or holding an earlier run's files.
        progress : callable, optional
            ``progress(stage, fraction)`` as the files are written (the stages ``"write
            results"``, ``"plot"`` and ``"report"``).
        overwrite : bool, default False
            Write into a folder that holds files of another kind too: the run's files are then
            written beside them, which stay.
        processes : {1, 2}, default 1
            1: the figures are drawn in this process; 2: a forked child draws half of them, as
            ``actuatorlab run`` does.

        Returns
        -------
        list of str
            The names of the files written.

        Raises
        ------
        OutputTaken
            ``folder`` holds files that are not a run's, and ``overwrite`` is false (a
            ``ScenarioError`` naming what the folder holds).
        ParameterError
            ``processes`` is neither 1 nor 2.
        ScenarioError
            The files cannot be written (no permission, a full disk; the message says why);
            nothing is left.
        """
        check_processes(processes)
        return write_output(
            Path(folder),
            self._output,
            self._title,
            self._description,
            self._source,
            self._csv,
            self._plots,
            progress,
            overwrite,
            processes,
        )

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{escape(f.label)}</td><td style='text-align:right'>{escape(format_number(f.value))}"
            f"</td><td>{escape(f.unit)}</td></tr>"
            for f in self.summary.values()
        )
        table = self._output.table
        return (
            f"<b>{escape(self._title)}</b>: {row_count(table)} rows × {len(column_names(table))} columns"
            f"<table>{rows}</table>"
        )

    def __repr__(self) -> str:
        return f"<RunResult {self._title!r}: {row_count(self._output.table)} rows, {len(self.summary)} key figures>"


def compare(runs: Mapping[str, RunResult] | Sequence[RunResult], columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Several runs side by side in one DataFrame.

    Parameters
    ----------
    runs : Mapping[str, RunResult] or Sequence[RunResult]
        A mapping name → run, or a sequence of runs named by their titles (``#2``, ``#3`` …
        where two share one).
    columns : Sequence[str], optional
        The channels to compare (default: those every run has).

    Returns
    -------
    pandas.DataFrame
        Index: the runs' first column (``t``); columns: (run name, channel).

    Raises
    ------
    ValueError
        ``runs`` is empty.
    KeyError
        A run has no column of ``columns`` (the message lists its columns).

    Examples
    --------
    >>> import actuatorlab
    >>> base = actuatorlab.load("arm-relief").set("simulation.duration", "1 s")
    >>> both = actuatorlab.compare({"u_b 0.3": base.run(), "u_b 0.1": base.set("inputs.bleed", 0.1).run()},
    ...                            ["theta"])
    >>> list(both.columns)
    [('u_b 0.3', 'theta'), ('u_b 0.1', 'theta')]
    """
    import pandas as pd

    if not runs:
        raise ValueError("compare: give at least one run, e.g. {'base': result}")
    if not isinstance(runs, Mapping):
        named: dict[str, RunResult] = {}
        for run in runs:
            name, k = run.title, 1
            while name in named:
                k += 1
                name = f"{run.title} #{k}"
            named[name] = run
        runs = named
    tables = {name: run.table.set_index(run.table.columns[0]) for name, run in runs.items()}
    if columns is None:
        common = set.intersection(*(set(t.columns) for t in tables.values()))
        columns = [c for c in next(iter(tables.values())).columns if c in common]
    missing = {name: [c for c in columns if c not in t.columns] for name, t in tables.items()}
    missing = {name: cols for name, cols in missing.items() if cols}
    if missing:
        name, cols = next(iter(missing.items()))
        raise KeyError(
            f"compare: run {name!r} has no column {', '.join(cols)}; its columns are {', '.join(tables[name].columns)}"
        )
    return pd.concat({name: t[list(columns)] for name, t in tables.items()}, axis=1)


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None

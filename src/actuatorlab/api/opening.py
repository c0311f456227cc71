"""Results back from disk: ``actuatorlab.open(folder)`` reads a folder written by ``actuatorlab
run``, ``identify``, ``calibrate`` or ``RunResult.save`` into a :class:`~actuatorlab.RunResult`,
one written by ``sweep`` into a :class:`~actuatorlab.SweepResult` and one by ``sensitivity`` into
a :class:`~actuatorlab.SensitivityResult`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import ScenarioError
from .results import RunResult
from .sensitivities import SensitivityResult
from .sweeps import SweepResult


def open(folder: str | os.PathLike[str]) -> RunResult | SweepResult | SensitivityResult:  # noqa: A001
    """The result a command (or ``.save``) wrote into ``folder``, back in Python.

    Parameters
    ----------
    folder : str or os.PathLike
        A folder written by ``actuatorlab run``, ``identify``, ``calibrate``, ``sweep`` or
        ``sensitivity``, or by :meth:`RunResult.save`.

    Returns
    -------
    RunResult or SweepResult or SensitivityResult
        A run's table with its units and labels, its key figures with their units and notes,
        its notes and its scenario (the resolved or calibrated ``scenario.toml``; None for an
        identification), ``plot()`` returning the saved figures as images; a sweep's or a
        sensitivity analysis' index (and envelopes, indices) as they were written.

    Raises
    ------
    ScenarioError
        ``folder`` does not exist, holds no actuatorlab result, holds a sweep that has not
        finished (finish it with ``resume``), or its files cannot be read back.

    Examples
    --------
    >>> import actuatorlab, tempfile
    >>> folder = tempfile.mkdtemp() + "/gamma"
    >>> files = actuatorlab.load("gamma-map").run().save(folder)
    >>> again = actuatorlab.open(folder)
    >>> again.title, again.table.attrs["units"]["f_low"], again.scenario.name
    ('gamma-map', 'N', 'gamma-map')
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ScenarioError(f"{folder}: no such folder; give a folder that actuatorlab run, sweep or calibrate wrote")
    if (folder / "sensitivity.parquet").is_file():
        return _sensitivity(folder)
    if (folder / "sweep.json").is_file():
        return _sweep(folder)
    from ..io.output_target import RUN_MANIFEST

    if (folder / RUN_MANIFEST).is_file():
        return _run(folder, folder / RUN_MANIFEST)
    raise ScenarioError(
        f"{folder} holds no actuatorlab result (no {RUN_MANIFEST}, sweep.json or sensitivity.parquet): give the "
        "folder a command or RunResult.save wrote"
    )


def _run(folder: Path, manifest: Path) -> RunResult:
    from ..io.results import read_labels, read_table
    from ..scenarios.output import FigureSpec, ScenarioOutput, SummaryFigure
    from .scenario import load

    try:
        about = json.loads(manifest.read_text(encoding="utf-8"))
        table, units = read_table(folder / "results.parquet")
        values = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ScenarioError(f"{folder}: the run's files cannot be read back ({error}); run it again") from None
    meta = about.get("summary", {})
    summary = [SummaryFigure(key, value, *meta.get(key, ["", key, ""])) for key, value in values.items()]
    captions = about.get("captions", {})
    figures = [
        FigureSpec(name, captions.get(name, name), _image(folder / name))
        for name in about.get("files", [])
        if name.endswith(".png") and (folder / name).is_file()
    ]
    output = ScenarioOutput(
        table, units, read_labels(folder / "results.parquet"), summary, figures, about.get("notes", [])
    )
    try:
        scenario = load(folder / "scenario.toml")
    except ScenarioError:
        scenario = None  # an identification's scenario.toml holds its command, not a scenario
    source = (folder / "scenario.toml").read_text(encoding="utf-8") if (folder / "scenario.toml").is_file() else ""
    return RunResult(output, about.get("title", folder.name), about.get("description", ""), source, scenario=scenario)


def _image(path: Path):
    """A builder of a figure showing the saved image at ``path`` (at the size it was drawn)."""

    def build():
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.image import imread

        pixels = imread(path)
        figure = Figure(figsize=(pixels.shape[1] / 120, pixels.shape[0] / 120))
        FigureCanvasAgg(figure)
        axes = figure.add_axes((0, 0, 1, 1))
        axes.imshow(pixels)
        axes.set_axis_off()
        return figure

    return build


def _sweep(folder: Path) -> SweepResult:
    index, envelopes = _index(folder)
    wall = float(index["wall_time_s"].sum()) if "wall_time_s" in index else 0.0
    return SweepResult(index, folder, 0, len(index), wall, (folder / "batches").is_dir(), envelopes)


def _sensitivity(folder: Path) -> SensitivityResult:
    from ..io.results import read_table

    table, _ = read_table(folder / "sensitivity.parquet")
    index, _ = _index(folder)
    wall = float(index["wall_time_s"].sum()) if "wall_time_s" in index else 0.0
    return SensitivityResult(table, index, folder, 0, len(index), wall)


def _index(folder: Path):
    """(index, envelopes or None) of a finished sweep in ``folder``."""
    from ..io.results import read_table

    if not (folder / "index.parquet").is_file():
        raise ScenarioError(
            f"{folder}: the sweep has not finished (no index.parquet); finish it with the same command and --resume"
        )
    index, units = read_table(folder / "index.parquet")
    index.attrs["units"] = units
    envelopes = None
    if (folder / "envelopes.parquet").is_file():
        envelopes, units = read_table(folder / "envelopes.parquet")
        envelopes.attrs["units"] = units
    return index, envelopes

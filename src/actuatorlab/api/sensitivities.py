"""Sensitivity analysis in Python: the same designs, sweep engine and files as ``actuatorlab sensitivity``."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from ..errors import ScenarioError
from ..scenarios.sensitivity import run_sensitivity
from .scenario import Scenario


class SensitivityResult:
    """The indices of a sensitivity analysis and the sweep that computed them.

    Returned by :func:`actuatorlab.sensitivity` and :func:`actuatorlab.open`; not constructed
    directly.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per key figure and parameter: ``figure``, ``parameter`` and the indices
        (Sobol': ``S1``, ``S1_conf``, ``ST``, ``ST_conf``; Morris: ``mu_star``, ``mu_star_conf``,
        ``mu``, ``sigma``; the ``_conf`` columns are 95 % confidence half-widths).
    index : pandas.DataFrame
        The sweep's index: one row per run of the design (parameters in SI, key figures).
    folder : pathlib.Path
        Where ``sensitivity.parquet``, ``sensitivity.csv``, the sweep's files and ``report.html`` are.
    ran, skipped : int
        The runs this call made, and those an earlier, interrupted call had finished (``resume``).
    wall_time_s : float
        The analysis' wall time [s].

    Examples
    --------
    >>> import actuatorlab, tempfile
    >>> short = actuatorlab.load("arm-relief").set("simulation.duration", "1 s")
    >>> result = actuatorlab.sensitivity(short, ["inputs.bleed=uniform(0.1, 0.5)"], method="morris", samples=4,
    ...                                  figures=["max_angle_rad"], workers=1, out=tempfile.mkdtemp() + "/m")
    >>> list(result.table.columns), len(result.index), result.report.name
    (['figure', 'parameter', 'mu_star', 'mu_star_conf', 'mu', 'sigma'], 8, 'report.html')
    """

    def __init__(
        self, table: pd.DataFrame, index: pd.DataFrame, folder: Path, ran: int, skipped: int, wall_time_s: float
    ):
        self.table, self.index, self.folder = table, index, folder
        self.ran, self.skipped, self.wall_time_s = ran, skipped, wall_time_s

    @property
    def report(self) -> Path:
        """The analysis' ``report.html`` (bar plots of the indices)."""
        return self.folder / "report.html"

    def __repr__(self) -> str:
        return (
            f"<SensitivityResult {self.table['figure'].nunique()} key figures, {len(self.index)} runs in {self.folder}>"
        )


def sensitivity(
    scenario: Scenario,
    vary: Mapping[str, str] | Sequence[str],
    method: str = "sobol",
    samples: int = 1024,
    figures: Sequence[str] | None = None,
    seed: int = 0,
    workers: int | None = None,
    scheduler: str | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    overwrite: bool = False,
) -> SensitivityResult:
    """Which parameter matters: Sobol' or Morris indices of key figures, as ``actuatorlab sensitivity``.

    The design (SALib's) runs as a sweep (local workers or Dask, resumable, as
    :func:`actuatorlab.sweep`); the indices come with 95 % confidence intervals per key figure.

    Parameters
    ----------
    scenario : Scenario
        The base scenario.
    vary : Mapping[str, str] or Sequence[str]
        The parameters and their distributions: ``{"inputs.bleed": "uniform(0.1, 0.5)"}`` or
        ``"PATH=DIST"`` strings (uniform, normal, loguniform).
    method : {"sobol", "morris"}, default "sobol"
        ``"sobol"``: first-order and total indices, N·(2D + 2) runs; ``"morris"``: elementary
        effects μ*, σ, N·(D + 1) runs (D parameters).
    samples : int, default 1024
        N: the base sample of Sobol' (a power of 2), the trajectories of Morris (≥ 2).
    figures : Sequence[str], optional
        The key figures to analyse (default: all that describe the design).
    seed : int, default 0
        The seed of the design (≥ 0).
    workers : int, optional
        Local worker processes (default: one per core).
    scheduler : str, optional
        A Dask scheduler's address ``tcp://HOST:PORT`` (needs the ``dask`` extra).
    out : str or os.PathLike, optional
        The analysis' folder (default ``sensitivity/NAME``).
    resume : bool, default False
        Finish an interrupted analysis in ``out``.
    progress : callable, optional
        ``progress(done, total)`` as runs finish.
    overwrite : bool, default False
        Write into an ``out`` that holds files other than an analysis': its files are then
        written beside them.

    Returns
    -------
    SensitivityResult
        The indices table, the design's index and the folder with its report.

    Raises
    ------
    ScenarioError
        ``vary`` is empty or one string, a parameter is given twice, a path, distribution,
        method, sample count or key figure is refused, or a run of the design failed (the
        indices need every run; the message names the variant and its error).
    OutputTaken
        ``out`` holds files other than an analysis' and ``overwrite`` is false.

    Examples
    --------
    >>> import actuatorlab, tempfile
    >>> short = actuatorlab.load("arm-relief").set("simulation.duration", "1 s")
    >>> result = actuatorlab.sensitivity(
    ...     short, {"inputs.bleed": "uniform(0.1, 0.5)", "arm.mass": "uniform(1.8 t, 2.2 t)"},
    ...     samples=16, figures=["final_angle_rad"], workers=1, out=tempfile.mkdtemp() + "/which",
    ... )
    >>> list(result.table.columns), len(result.index)
    (['figure', 'parameter', 'S1', 'S1_conf', 'ST', 'ST_conf'], 96)
    >>> result.table.set_index("parameter")["ST"].idxmax()  # the mass holds the arm down, the bleed barely matters
    'arm.mass'
    """
    spec = scenario.spec
    if isinstance(vary, str):
        raise ScenarioError("sensitivity: vary takes a mapping or a list of 'PATH=DIST' strings, not one string")
    specs = [f"{path}={dist}" for path, dist in vary.items()] if isinstance(vary, Mapping) else list(vary)
    folder = Path(out) if out is not None else Path("sensitivity") / spec.name
    result = run_sensitivity(
        spec, specs, method, samples, figures, seed, folder, workers, scheduler, resume, progress, overwrite
    )
    return SensitivityResult(result.table, result.index, folder, result.ran, result.skipped, result.wall_time_s)

"""Sweeps in Python: the same engine, files and resume as ``actuatorlab sweep``."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ScenarioError
from ..io.deferred import DeferredModule
from ..io.results import read_table
from ..scenarios.sweep import RECORDS, SERIES, keep_set, run_sweep
from ..scenarios.variants import grid_variants, sample_variants
from .scenario import Scenario

if TYPE_CHECKING:
    import pandas as pd
else:  # pandas loads once the workers run (see scenarios.sweep), or when the annotations are resolved
    pd = DeferredModule(lambda: importlib.import_module("pandas"))


class SweepResult:
    """A finished sweep: its index (one row per variant) and its folder.

    Returned by :func:`actuatorlab.sweep` and :func:`actuatorlab.open`; not constructed directly.

    Attributes
    ----------
    index : pandas.DataFrame
        variant, the varied parameters (SI), status, error, wall time and every key figure.
    envelopes : pandas.DataFrame or None
        Batched sweeps: ``t`` [s] and the 5/50/95 % envelopes of the main signals over the
        variants (``theta_q05``, ``theta_q50``, ``theta_q95``, …; units in ``attrs["units"]``).
    folder : pathlib.Path
        Where ``index.parquet``, the batches or variants, the kept series and ``report.html`` are.
    ran, skipped : int
        The variants this call ran, and those an earlier, interrupted call had finished (``resume``).
    wall_time_s : float
        The sweep's wall time [s].
    batched : bool
        Whether the variants ran in compiled batches (the arm kinds): then only the series of
        the variants asked for were kept.

    Examples
    --------
    >>> import actuatorlab, tempfile
    >>> short = actuatorlab.load("arm-relief").set("simulation.duration", "0.5 s")
    >>> result = actuatorlab.sweep(short, grid=["relaxation.stiffness=5e7,1e12"], workers=1, keep_series=1,
    ...                            out=tempfile.mkdtemp() + "/stiffness")
    >>> list(result.index["status"]), result.variant(0).attrs["units"]["theta"]
    (['ok', 'failed'], 'rad')
    >>> result.variant(1)
    Traceback (most recent call last):
    ...
    actuatorlab.errors.ScenarioError: variant 1 failed: SimulationError: relaxation.stiffness = 1e+12 N/m ...
    """

    def __init__(
        self,
        index: pd.DataFrame,
        folder: Path,
        ran: int,
        skipped: int,
        wall_time_s: float,
        batched: bool = False,
        envelopes: pd.DataFrame | None = None,
    ):
        self.index = index
        self.folder = folder
        self.ran, self.skipped, self.wall_time_s = ran, skipped, wall_time_s
        self.batched, self.envelopes = batched, envelopes

    @property
    def report(self) -> Path:
        """The sweep's ``report.html``."""
        return self.folder / "report.html"

    def variant(self, variant_id: int) -> pd.DataFrame:
        """The results table of one variant.

        Parameters
        ----------
        variant_id : int
            The variant's id (the index's ``variant`` column).

        Returns
        -------
        pandas.DataFrame
            Its time series, units in ``attrs["units"]``.

        Raises
        ------
        ScenarioError
            No variant has that id, the variant failed (the message gives its error), or its
            series were not kept (a batched sweep keeps those of ``keep_series`` and
            ``keep_variants`` only).
        """
        row = self.index[self.index["variant"] == variant_id]
        if row.empty:
            raise ScenarioError(f"variant {variant_id}: not in this sweep (variants 0 … {len(self.index) - 1})")
        if row["status"].iloc[0] != "ok":
            raise ScenarioError(f"variant {variant_id} {row['status'].iloc[0]}: {row['error'].iloc[0]}")
        path = (
            self.folder / SERIES / f"{variant_id:07d}.parquet"
            if self.batched
            else self.folder / RECORDS / f"{variant_id:05d}.parquet"
        )
        if not path.exists():
            raise ScenarioError(
                f"variant {variant_id}: its time series were not kept; run the sweep with "
                f"--keep-variant {variant_id} (keep_variants=[{variant_id}]) or --keep-series N"
            )
        table, units = read_table(path)
        table.attrs["units"] = units
        return table

    def __repr__(self) -> str:
        failed = int((self.index["status"] != "ok").sum())
        return f"<SweepResult {len(self.index)} variants ({failed} failed) in {self.folder}>"


def sweep(
    scenario: Scenario,
    grid: Mapping[str, Sequence] | Sequence[str] | None = None,
    vary: Mapping[str, str] | Sequence[str] | None = None,
    samples: int = 0,
    seed: int = 0,
    workers: int | None = None,
    scheduler: str | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    figures: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    keep_series: int = 0,
    keep_variants: Sequence[int] = (),
    overwrite: bool = False,
) -> SweepResult:
    """Run variants of ``scenario`` into a folder, as ``actuatorlab sweep`` does.

    A grid (the Cartesian product of the values given) or Monte Carlo samples. The variants
    run on local worker processes (forked; on Dask where forking is not available) or on the
    Dask cluster at ``scheduler``. Variants of the arm kinds (quasistatic model) run in compiled
    batches: their key figures go to the index and the 5/50/95 % envelopes of the main signals
    to ``envelopes``; their time series are kept for the first ``keep_series`` variants and the
    ids in ``keep_variants``. Other kinds run one variant at a time and keep every variant's
    series.

    Parameters
    ----------
    scenario : Scenario
        The base scenario.
    grid : Mapping[str, Sequence] or Sequence[str], optional
        ``{"inputs.bleed": [0.1, 0.2], "circuit.pump_flow": ["300 L/min", "500 L/min"]}`` or
        ``"PATH=V1,V2"`` strings: every combination of the values runs.
    vary : Mapping[str, str] or Sequence[str], optional
        With ``samples``: ``{"arm.mass": "normal(2000 kg, 100 kg)"}`` (uniform, normal,
        loguniform) or ``"PATH=DIST"`` strings.
    samples : int, default 0
        The number of Monte Carlo variants drawn from ``vary``.
    seed : int, default 0
        The seed of the draws (≥ 0).
    workers : int, optional
        Local worker processes (default: one per core).
    scheduler : str, optional
        A Dask scheduler's address ``tcp://HOST:PORT`` (needs the ``dask`` extra).
    out : str or os.PathLike, optional
        The sweep's folder (default ``sweeps/NAME``).
    resume : bool, default False
        Finish an interrupted sweep in ``out``: the variants it has are kept.
    figures : Sequence[str], optional
        The key figures the report plots against the varied parameters (default: the first few).
    progress : callable, optional
        ``progress(done, total)`` as variants finish.
    keep_series : int, default 0
        Batched sweeps: keep the time series of the first ``keep_series`` variants.
    keep_variants : Sequence[int], default ()
        Batched sweeps: keep the time series of these variants too.
    overwrite : bool, default False
        Write into an ``out`` that holds files other than a sweep's: the sweep's files are then
        written beside them.

    Returns
    -------
    SweepResult
        The index (one row per variant: its parameters, status, error, wall time and key
        figures), the envelopes of batched sweeps and the folder.

    Raises
    ------
    ScenarioError
        Neither or both of ``grid`` and ``samples``/``vary`` are given, a path or value is
        refused (the message names it), or the scheduler cannot be reached.
    OutputTaken
        ``out`` holds files other than a sweep's and ``overwrite`` is false.
    MissingExtra
        A sweep on Dask without the ``dask`` extra installed.

    Examples
    --------
    >>> import actuatorlab, tempfile
    >>> short = actuatorlab.load("arm-relief").set("simulation.duration", "0.5 s")
    >>> result = actuatorlab.sweep(short, grid={"inputs.bleed": [0.2, 0.4]}, workers=1,
    ...                            out=tempfile.mkdtemp() + "/bleed")
    >>> list(result.index["inputs.bleed"]), list(result.index["status"])
    ([0.2, 0.4], ['ok', 'ok'])
    """
    spec = scenario.spec
    grid_specs = _specs(grid, "grid", lambda path, values: f"{path}={','.join(map(str, values))}")
    vary_specs = _specs(vary, "vary", lambda path, dist: f"{path}={dist}")
    if bool(grid_specs) == bool(samples or vary_specs):
        raise ScenarioError(
            "give either --grid PATH=VALUES (grid=) or --samples N with --vary PATH=DISTRIBUTION (samples=, vary=)"
        )
    if vary_specs and samples < 1:
        raise ScenarioError(f"--samples {samples}: give the number of Monte Carlo variants to draw, at least 1")
    if samples and not vary_specs:
        raise ScenarioError("--samples N needs at least one --vary PATH=DISTRIBUTION (vary=)")
    variants = grid_variants(spec, grid_specs) if grid_specs else sample_variants(spec, vary_specs, samples, seed)
    keep = keep_set(variants, keep_series, keep_variants)
    folder = Path(out) if out is not None else Path("sweeps") / spec.name
    result = run_sweep(
        spec,
        variants,
        folder,
        workers=workers,
        scheduler=scheduler,
        resume=resume,
        progress=progress,
        figures=list(figures) if figures else None,
        keep=keep,
        overwrite=overwrite,
    )
    return SweepResult(
        result.index, folder, result.ran, result.skipped, result.wall_time_s, result.batched, result.envelopes
    )


def _specs(value, name: str, write) -> list[str]:
    if value is None:
        return []
    if isinstance(value, Mapping):
        return [write(path, [v] if name == "grid" and isinstance(v, str) else v) for path, v in value.items()]
    if isinstance(value, str):
        raise ScenarioError(f"sweep: {name} takes a mapping or a list of 'PATH=...' strings, not one string")
    return list(value)

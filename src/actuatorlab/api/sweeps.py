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

    Attributes
    ----------
    index : pandas.DataFrame
        variant, the varied parameters (SI), status, error, wall time and every key figure.
    envelopes : pandas.DataFrame or None
        Batched sweeps: ``t`` [s] and the 5/50/95 % envelopes of the main signals over the
        variants (``theta_q05``, ``theta_q50``, ``theta_q95``, …; units in ``attrs["units"]``).
    folder : pathlib.Path
        Where ``index.parquet``, the batches or variants, the kept series and ``report.html`` are.

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
        """The results table of one variant (units in ``attrs["units"]``); a failed variant, or
        one of a batched sweep whose series were not kept, raises ``ScenarioError``."""
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
    """Run variants of ``scenario`` on Dask (local worker processes, or ``scheduler``
    ``tcp://HOST:PORT``) into ``out`` (default ``sweeps/NAME``), as ``actuatorlab sweep`` does.

    ``grid``: ``{"inputs.bleed": [0.1, 0.2], "circuit.pump_flow": ["300 L/min", "500 L/min"]}``
    (or ``"PATH=V1,V2"`` strings), the Cartesian product; or ``samples`` Monte Carlo variants with
    ``vary``: ``{"arm.mass": "normal(2000 kg, 100 kg)"}`` (uniform, normal, loguniform; or
    ``"PATH=DIST"`` strings) and ``seed``. ``resume`` finishes an interrupted sweep.

    Variants of the arm kinds (quasistatic model) run in compiled batches: their key figures go
    to the index and the 5/50/95 % envelopes of the main signals to ``envelopes``; their time
    series are kept for the first ``keep_series`` variants and the ids in ``keep_variants``.
    Other kinds run one variant at a time and keep every variant's series.

    An ``out`` that holds files other than a sweep's is refused (``OutputTaken``, a
    ``ScenarioError``) unless ``overwrite``: the sweep's files are then written beside them.

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

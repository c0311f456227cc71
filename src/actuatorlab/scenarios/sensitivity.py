"""Global sensitivity analysis: SALib's designs run as a sweep, its indices per key figure.

``--method sobol``: Saltelli's extension of the Sobol' sequence, N·(2D + 2) runs for D varied
parameters (first-order, total and second-order indices, Saltelli 2002; Saltelli et al. 2010);
``--method morris``: N trajectories of D + 1 runs (the elementary effects' mean of absolute
values μ* with its confidence interval, their mean μ and spread σ; Morris 1991, Campolongo et
al. 2007). Confidence intervals are SALib's bootstrap intervals at 95 %.

The design's points are the variants of an ordinary sweep (``sweep.run_sweep``): the same
batches, files, resume and Dask cluster. Each ``--vary PATH=DIST`` gives a parameter and its
distribution (uniform, normal, loguniform; Morris needs bounds, so uniform or loguniform).
Written beside the sweep's files: ``sensitivity.parquet`` and ``sensitivity.csv`` (one row per
key figure and parameter) and ``report.html`` with a bar plot per key figure.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..errors import ScenarioError
from ..io.results import write_csv, write_table
from ..report.html import write_report
from ..report.plots import draw_figures, indices_figure
from .loading import scenario_to_toml
from .output import FigureSpec
from .sweep import check_engine, key_figures, run_sweep
from .sweep_report import MACHINE_DEPENDENT
from .variants import Variants, check_seed, parse_distributions

METHODS = ("sobol", "morris")
MORRIS_LEVELS = 4
"""Grid levels of the Morris design (SALib's default)."""
CONFIDENCE = 0.95
SALIB_DISTRIBUTIONS = {"uniform": "unif", "normal": "norm", "loguniform": "logunif"}
INDICES = {"sobol": ("S1", "S1_conf", "ST", "ST_conf"), "morris": ("mu_star", "mu_star_conf", "mu", "sigma")}
"""Columns of the table per method: the index, its confidence half-width, …"""


@dataclass(frozen=True)
class SensitivityResult:
    """The indices (one row per key figure and parameter) and the sweep that computed them."""

    table: pd.DataFrame
    index: pd.DataFrame
    ran: int
    skipped: int
    wall_time_s: float


def check_request(method: str, samples: int, specs: Sequence[str]) -> None:
    """Refuse an unknown method, a sample count the design cannot use, or no ``--vary``."""
    if method not in METHODS:
        raise ScenarioError(f"--method {method}: not a sensitivity method; choose one of {', '.join(METHODS)}")
    if not specs:
        raise ScenarioError(
            "sensitivity needs the parameters to vary: give --vary PATH=DISTRIBUTION for each, e.g. "
            '--vary "inputs.bleed=uniform(0.1, 0.5)"'
        )
    if method == "sobol" and (samples < 2 or samples & (samples - 1)):
        raise ScenarioError(
            f"--samples {samples}: Sobol' sampling needs a power of 2 (the base sample N; runs = N·(2D + 2)), e.g. 1024"
        )
    if method == "morris" and samples < 2:
        raise ScenarioError(f"--samples {samples}: give at least 2 Morris trajectories (runs = N·(D + 1))")


def problem_of(scenario, specs: Sequence[str], method: str) -> dict:
    """SALib's problem: names (the paths), bounds (SI: LOW, HIGH or MEAN, STD) and distributions."""
    parsed = parse_distributions(scenario, specs)
    paths = [path for path, *_ in parsed]
    if len(set(paths)) != len(paths):
        raise ScenarioError(
            f"--vary: {', '.join(sorted({p for p in paths if paths.count(p) > 1}))} given twice; "
            "vary each parameter once"
        )
    if method == "morris":
        for _path, name, _, spec in parsed:
            if name == "normal":
                raise ScenarioError(
                    f"--vary {spec!r}: the Morris design spans each parameter's range; give it "
                    "bounds (uniform or loguniform), or use --method sobol"
                )
    return {
        "num_vars": len(parsed),
        "names": paths,
        "bounds": [list(bounds) for _, _, bounds, _ in parsed],
        "dists": [SALIB_DISTRIBUTIONS[name] for _, name, _, _ in parsed],
    }


def design(problem: dict, method: str, samples: int, seed: int) -> np.ndarray:
    """The design's points (runs, D) in SI."""
    if method == "sobol":
        from SALib.sample import sobol

        return sobol.sample(problem, samples, calc_second_order=True, seed=seed)
    from SALib.sample import morris

    return morris.sample(problem, samples, num_levels=MORRIS_LEVELS, seed=seed)


def indices(problem: dict, method: str, x: np.ndarray, y: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """SALib's analysis of outputs ``y`` (runs,) at the design points ``x``: INDICES[method] → (D,)."""
    if method == "sobol":
        from SALib.analyze import sobol

        result = sobol.analyze(problem, y, calc_second_order=True, conf_level=CONFIDENCE, seed=seed)
    else:
        from SALib.analyze import morris

        result = morris.analyze(problem, x, y, conf_level=CONFIDENCE, num_levels=MORRIS_LEVELS, seed=seed)
    return {name: np.asarray(result[name], dtype=np.float64) for name in INDICES[method]}


def run_sensitivity(
    scenario,
    specs: Sequence[str],
    method: str = "sobol",
    samples: int = 1024,
    figures: Sequence[str] | None = None,
    seed: int = 0,
    out_dir: str | os.PathLike = "sensitivity",
    workers: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    overwrite: bool = False,
) -> SensitivityResult:
    """Run the ``method`` design of ``samples`` for the ``--vary`` ``specs`` of ``scenario`` as a
    sweep into ``out_dir`` and analyse the key ``figures`` (default: every one that describes the
    design); see the module docstring. Every argument is checked before anything is written;
    ``overwrite`` as for :func:`~.sweep.run_sweep`."""
    check_request(method, samples, specs)
    check_seed(seed)
    check_engine(workers, scheduler)
    problem = problem_of(scenario, specs, method)
    valid = [key for key in key_figures(scenario) if key not in MACHINE_DEPENDENT]
    chosen = list(figures) if figures else valid
    unknown = [key for key in chosen if key not in valid]
    if unknown:
        raise ScenarioError(
            f"--figure {', '.join(unknown)}: not a key figure of {scenario.name}; choose from {', '.join(valid)}"
        )
    x = design(problem, method, samples, seed)
    variants = Variants.of(problem["names"], x, sampled=True)
    result = run_sweep(
        scenario,
        variants,
        out_dir,
        workers=workers,
        scheduler=scheduler,
        resume=resume,
        progress=progress,
        report=False,
        overwrite=overwrite,
    )
    table, notes = _table(problem, method, x, result.index, chosen, seed)
    folder = Path(out_dir)
    units = {"figure": "", "parameter": "", **{name: "1" for name in INDICES[method]}}
    write_table(table, folder / "sensitivity.parquet", units)
    write_csv(table, folder / "sensitivity.csv", units)
    _write_report(folder, scenario, problem, method, samples, table, notes, len(variants), result.wall_time_s)
    return SensitivityResult(table, result.index, result.ran, result.skipped, result.wall_time_s)


def _table(problem, method, x, index: pd.DataFrame, figures, seed) -> tuple[pd.DataFrame, list[str]]:
    """The indices of each key figure over the sweep's ``index``; a figure some run lacks is
    named in the notes (the design needs every run), a failed run fails the analysis."""
    failed = index[index["status"] != "ok"]
    if len(failed):
        first = failed.iloc[0]
        raise ScenarioError(
            f"{len(failed)} of {len(index)} runs of the design failed (variant {int(first.variant)}: "
            f"{first.error}); the indices need every run: narrow the --vary ranges to where the "
            "scenario runs (the runs are kept in index.parquet; --resume reuses them)"
        )
    rows, notes = [], []
    for key in figures:
        y = index.sort_values("variant")[key].to_numpy(dtype=np.float64)
        if not np.all(np.isfinite(y)):
            notes.append(f"{key}: {int((~np.isfinite(y)).sum())} runs have no value; not analysed")
            continue
        if np.ptp(y) == 0.0:
            notes.append(f"{key}: the same in every run ({y[0]:.6g}); no parameter changes it")
            continue
        values = indices(problem, method, x, y, seed)
        for j, name in enumerate(problem["names"]):
            rows.append({"figure": key, "parameter": name, **{k: float(v[j]) for k, v in values.items()}})
    return pd.DataFrame(rows, columns=["figure", "parameter", *INDICES[method]]), notes


def _write_report(folder: Path, scenario, problem, method, samples, table, notes, runs, wall_time_s) -> None:
    index, half, *_ = INDICES[method]
    pairs = [("S1", "S1_conf"), ("ST", "ST_conf")] if method == "sobol" else [("mu_star", "mu_star_conf")]
    keys = list(dict.fromkeys(table["figure"]))
    specs = (
        [
            FigureSpec(
                "sensitivity.png",
                f"{'First-order S1 and total ST' if method == 'sobol' else 'Morris μ*'} "
                f"indices per parameter, with their {CONFIDENCE:.0%} confidence intervals.",
                lambda: indices_figure({key: table[table["figure"] == key] for key in keys}, pairs),
            )
        ]
        if keys
        else []
    )
    files, not_drawn = draw_figures(specs, folder)
    described = "N·(2D + 2)" if method == "sobol" else "N·(D + 1)"
    context = {
        "title": f"{scenario.name}: {method} sensitivity of {len(keys)} key figures",
        "description": scenario.description,
        "key_figures": [
            {
                "name": "runs",
                "value": runs,
                "unit": "",
                "note": f"{described} with N = {samples}, D = {len(problem['names'])}",
            },
            {"name": "sweep wall time", "value": wall_time_s, "unit": "s", "note": "this run (resumed runs skip)"},
        ],
        "figures": [{"file": spec.file, "caption": spec.caption} for spec in specs if spec.file in files],
        "notes": [
            "Varied: "
            + ", ".join(
                f"{n} ({d}, {b[0]:.6g}, {b[1]:.6g} SI)"
                for n, d, b in zip(problem["names"], problem["dists"], problem["bounds"])
            )
            + ".",
            *notes,
            *not_drawn,
            _table_note(table, index, half),
        ],
        "scenario_toml": scenario_to_toml(scenario),
        "files": ["sensitivity.parquet", "sensitivity.csv", "index.parquet", *files, "report.html"],
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "version": __version__,
    }
    write_report(folder / "report.html", context)


def _table_note(table: pd.DataFrame, index: str, half: str) -> str:
    """The indices in words, for the report: ``figure: parameter index ± half-width; …``."""
    parts = [
        f"{r.figure}: {r.parameter} {index} = {getattr(r, index):.3g} ± {getattr(r, half):.2g}"
        for r in table.itertuples()
    ]
    return "Indices: " + ("; ".join(parts) if parts else "none") + "."

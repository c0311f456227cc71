"""Command-line interface: ``actuatorlab run | sweep | sensitivity | identify | export | scenarios | show``.

Only argument parsing and calls into the scenario layer live here. Errors a user can cause
are printed in one or two lines on stderr with exit code 2, without a traceback.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import inspect
import os
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__
from .errors import ActuatorlabError
from .numerics.kernel_loading import COMPILING

HELP = {"rich_markup_mode": None}
"""Help texts are printed as written: "[log]" and "[default: cores]" are not read as rich markup."""
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Model, simulate and report on hydraulic and electro-mechanical actuators.",
    **HELP,
)
err = Console(stderr=True)


def _print_version(asked: bool) -> None:
    if asked:
        Console().print(f"actuatorlab {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", callback=_print_version, is_eager=True),
    ] = False,
) -> None:
    """Model, simulate and report on hydraulic and electro-mechanical actuators."""


out = Console()


def _friendly(command):
    """Turn project errors into a short message and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except ActuatorlabError as exc:  # an error worded for Python has its command-line wording too
            message = exc.for_command_line() if hasattr(exc, "for_command_line") else str(exc)
            err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, markup=True, soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper


def _load(scenario: str):
    """The scenario (built-in name or file)."""
    from .api import load

    return load(scenario)


class DelayedProgress:
    """A progress bar that appears only once a run has taken longer than ``delay`` seconds; the
    stage :data:`~actuatorlab.numerics.kernel_loading.COMPILING` prints a notice instead, once,
    so that a first run's wait is explained."""

    def __init__(self, enabled: bool, delay: float = 1.0):
        self.enabled = enabled
        self.start = time.perf_counter()
        self.delay = delay
        self.bar: Progress | None = None
        self.task = None
        self.compile_said = False

    def __call__(self, stage: str, fraction: float) -> None:
        if not self.enabled:
            return
        if stage == COMPILING:
            if not self.compile_said:
                self.compile_said = True
                err.print(
                    "compiling kernels, once per machine (later runs load them from the cache) …", highlight=False
                )
            return
        if self.bar is None:
            if time.perf_counter() - self.start < self.delay:
                return
            self.bar = Progress(
                TextColumn("{task.description:<14}"),
                BarColumn(),
                TextColumn("{task.percentage:>3.0f}%"),
                TimeElapsedColumn(),
                console=err,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(stage, total=1.0)
        self.bar.update(self.task, description=stage, completed=fraction)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


OVERWRITE_HELP = "Write into an --out that holds other files: only this command's files are replaced."
Overwrite = Annotated[bool, typer.Option("--overwrite", help=OVERWRITE_HELP)]
Workers = Annotated[Optional[int], typer.Option("--workers", help="Local worker processes [default: cores].")]
Scheduler = Annotated[Optional[str], typer.Option("--scheduler", help="tcp://HOST:PORT of a Dask scheduler.")]


@app.command()
@_friendly
def run(
    scenario: Annotated[str, typer.Argument(help="A built-in scenario name or a TOML file.")],
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Output directory [default: runs/NAME].")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar and no summary.")] = False,
    overwrite: Overwrite = False,
) -> None:
    """Run a scenario: writes results.parquet, scenario.toml, plots, summary.json and report.html."""
    from .io.output_target import check_run_folder

    progress = DelayedProgress(enabled=not quiet)
    with _on_ctrl_c("nothing was written"):  # a slow disk can keep a run reading its scenario for seconds
        loaded = _load(scenario)
        target = check_run_folder(out_dir if out_dir is not None else Path("runs") / loaded.name, overwrite)
    try:
        with _on_ctrl_c(f"nothing was written; {target}/ is as it was"):
            result = loaded.run(progress, processes=2)  # the command's choice: two cores, two processes
            files = result.save(target, progress, overwrite=overwrite, processes=2)
    finally:
        progress.close()
    if quiet:
        return
    _print_summary(f"{loaded.name}: key figures", result.summary.values())
    out.print(f"wrote {target}/: {', '.join(files)}")


_ctrl_c_told = False  # a command's own Ctrl-C message was printed (``main`` prints one otherwise)


@contextlib.contextmanager
def _on_ctrl_c(message: str):
    """Ctrl-C: print ``message`` (what was kept, how to go on) instead of a traceback; exit 130."""
    global _ctrl_c_told
    try:
        yield
    except KeyboardInterrupt:
        err.print(f"interrupted: {message}", highlight=False)
        _ctrl_c_told = True
        raise typer.Exit(130) from None


def _resumable(what: str, target: Path):
    """Ctrl-C during a sweep or an analysis: its finished ``what`` are kept; --resume goes on."""
    return _on_ctrl_c(f"the finished {what} are kept in {target}/; run the same command with --resume to finish")


@contextlib.contextmanager
def _counter(what: str, quiet: bool):
    """A progress bar counting ``what`` (done/total) on stderr, or none if ``quiet``; yields the
    ``progress(done, total)`` callback to give the sweep."""
    if quiet:
        yield None
        return
    # redrawn when a count arrives, not by rich's refresh thread: a process with one thread may fork its workers
    bar = Progress(
        TextColumn(what),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        auto_refresh=False,
    )
    bar.start()
    task = bar.add_task(what, total=None)
    try:
        yield lambda done, total: bar.update(task, completed=done, total=total, refresh=True)
    finally:
        bar.stop()


@app.command()
@_friendly
def sweep(
    scenario: Annotated[str, typer.Argument(help="A built-in scenario name or a TOML file.")],
    grid: Annotated[list[str], typer.Option("--grid", help="PATH=V1,V2,... (repeat for a product grid).")] = [],  # noqa: B006
    samples: Annotated[int, typer.Option("--samples", help="Monte Carlo: number of variants.")] = 0,
    vary: Annotated[
        list[str], typer.Option("--vary", help="PATH=uniform(LOW, HIGH) | normal(MEAN, STD) | loguniform(LOW, HIGH).")
    ] = [],  # noqa: B006
    seed: Annotated[int, typer.Option("--seed", help="Seed of the Monte Carlo draws.")] = 0,
    workers: Workers = None,
    scheduler: Scheduler = None,
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Output directory [default: sweeps/NAME].")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Finish a sweep: skip complete variants.")] = False,
    figure: Annotated[
        list[str], typer.Option("--figure", help="A key figure (summary.json key) to plot in the report; repeatable.")
    ] = [],  # noqa: B006
    keep_series: Annotated[
        int, typer.Option("--keep-series", help="Batched kinds: keep the time series of the first N variants.")
    ] = 0,
    keep_variant: Annotated[
        list[int], typer.Option("--keep-variant", help="Batched kinds: keep this variant's time series; repeatable.")
    ] = [],  # noqa: B006
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar and no summary.")] = False,
    overwrite: Overwrite = False,
) -> None:
    """Run a scenario for a grid of parameter values or Monte Carlo samples, on local worker
    processes or a Dask cluster."""
    from .api import sweep as run_sweep

    spec = _load(scenario)
    target = out_dir if out_dir is not None else Path("sweeps") / spec.name
    with _resumable("variants", target), _counter("variants", quiet) as progress:
        result = run_sweep(
            spec,
            grid=grid or None,
            vary=vary or None,
            samples=samples,
            seed=seed,
            workers=workers,
            scheduler=scheduler,
            out=target,
            resume=resume,
            figures=figure or None,
            keep_series=keep_series,
            keep_variants=keep_variant,
            progress=progress,
            overwrite=overwrite,
        )
    if quiet:
        return
    failed = int((result.index["status"] != "ok").sum())
    files = "index.parquet, envelopes.parquet, batches/, series/" if result.batched else "index.parquet, variants/"
    out.print(
        f"{len(result.index)} variants: {result.ran} run, {result.skipped} already complete, {failed} failed; "
        f"{result.wall_time_s:.1f} s. Wrote {target}/: {files}, report.html"
    )


@app.command()
@_friendly
def sensitivity(
    scenario: Annotated[str, typer.Argument(help="A built-in scenario name or a TOML file.")],
    vary: Annotated[
        list[str],
        typer.Option(
            "--vary", help="PATH=uniform(LOW, HIGH) | normal(MEAN, STD) | loguniform(LOW, HIGH); one per parameter."
        ),
    ] = [],  # noqa: B006
    method: Annotated[
        str, typer.Option("--method", help="sobol (S1, ST; N(2D+2) runs) or morris (mu*; N(D+1) runs).")
    ] = "sobol",
    samples: Annotated[
        int, typer.Option("--samples", help="N: Sobol' base sample (a power of 2) or Morris trajectories.")
    ] = 1024,
    figure: Annotated[
        list[str],
        typer.Option("--figure", help="A key figure to analyse; repeatable [default: all that describe the design]."),
    ] = [],  # noqa: B006
    seed: Annotated[int, typer.Option("--seed", help="Seed of the design.")] = 0,
    workers: Workers = None,
    scheduler: Scheduler = None,
    out_dir: Annotated[
        Optional[Path], typer.Option("--out", help="Output directory [default: sensitivity/NAME].")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Finish an interrupted analysis: skip complete runs.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar and no table.")] = False,
    overwrite: Overwrite = False,
) -> None:
    """Which parameter matters: Sobol' or Morris indices of key figures over the --vary ranges
    (SALib's designs run as a sweep); writes sensitivity.parquet/.csv and report.html."""
    from .api import sensitivity as analyse

    spec = _load(scenario)
    target = out_dir if out_dir is not None else Path("sensitivity") / spec.name
    with _resumable("runs", target), _counter("runs", quiet) as progress:
        result = analyse(
            spec,
            vary,
            method=method,
            samples=samples,
            figures=figure or None,
            seed=seed,
            workers=workers,
            scheduler=scheduler,
            out=target,
            resume=resume,
            progress=progress,
            overwrite=overwrite,
        )
    if quiet:
        return
    table = Table(title=f"{spec.name}: {method} indices (95 % confidence half-widths)", show_header=True)
    for column in result.table.columns:
        table.add_column(column)
    for row in result.table.itertuples(index=False):
        table.add_row(*(f"{v:.3g}" if isinstance(v, float) else str(v) for v in row))
    out.print(table)
    out.print(
        f"{len(result.index)} runs ({result.skipped} already complete), {result.wall_time_s:.1f} s. "
        f"Wrote {target}/: sensitivity.parquet, sensitivity.csv, index.parquet, report.html"
    )


@app.command()
@_friendly
def scenarios() -> None:
    """List the built-in scenarios."""
    from .scenarios.sources import builtin_scenarios

    scenarios = builtin_scenarios()
    width = max(map(len, scenarios))
    for name, description in scenarios.items():
        out.print(f"[bold]{name:<{width}}[/]  {description}", highlight=False)


@app.command()
@_friendly
def show(scenario: Annotated[str, typer.Argument(help="A built-in scenario name or a TOML file.")]) -> None:
    """Print the resolved scenario (every default filled in) with units."""
    print(_load(scenario).show(), end="")


identify_app = typer.Typer(no_args_is_help=True, help="Identify model parameters from logged data.", **HELP)
app.add_typer(identify_app, name="identify")


export_app = typer.Typer(no_args_is_help=True, help="Export a scenario's actuator for other simulators.", **HELP)
app.add_typer(export_app, name="export")


@export_app.command("fmu")
@_friendly
def export_fmu(
    scenario: Annotated[str, typer.Argument(help="A built-in scenario name or a TOML file of kind arm.")],
    out_file: Annotated[Optional[Path], typer.Option("--out", help="The FMU file [default: NAME.fmu].")] = None,
    fmi: Annotated[str, typer.Option("--fmi", help="FMI version: 3 or 2.")] = "3",
    model: Annotated[
        Optional[str], typer.Option("--model", help="quasistatic or pressure-dynamics [default: the scenario's model].")
    ] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an --out file that is not an FMU.")] = False,
) -> None:
    """Write the scenario's actuator as a co-simulation FMU (FMI 3.0 or 2.0) that runs without Python:
    inputs valve_command, bleed, regeneration, length, length_rate; outputs force, pressures, flows."""
    from .api import export_fmu as export

    loaded = _load(scenario)
    path = export(
        loaded, out_file if out_file is not None else Path(f"{loaded.name}.fmu"), fmi, model, overwrite=overwrite
    )
    out.print(f"wrote {path} (FMI {fmi.removesuffix('.0')}.0 co-simulation)", highlight=False)


def _print_summary(title: str, summary, notes: bool = False) -> None:
    """Key figures (objects with ``label``, ``value``, ``unit``, and ``note`` if ``notes``) as a
    table on the terminal."""
    table = Table(title=title, show_header=True)
    for column in ("figure", "value", "unit") + (("note",) if notes else ()):
        table.add_column(column)
    for s in summary:
        table.add_row(s.label, "—" if s.value is None else f"{s.value:.6g}", s.unit, *((s.note,) if notes else ()))
    out.print(table)


LayoutColumn = Annotated[
    list[str],
    typer.Option("--column", help="QUANTITY=COLUMN: the log column holding a quantity (e.g. q1=ANGLE_1); repeatable."),
]
LayoutUnit = Annotated[
    list[str],
    typer.Option(
        "--unit", help="QUANTITY=UNIT: the column's unit as pint reads it (e.g. q1=deg, p_plus1=bar, t=ms); repeatable."
    ),
]
LayoutScale = Annotated[
    list[str],
    typer.Option(
        "--scale", help="QUANTITY=SCALE: a factor or quantity multiplying the column (e.g. u1='0.12 mm/V'); repeatable."
    ),
]
LayoutOffset = Annotated[
    list[str],
    typer.Option(
        "--offset", help="QUANTITY=OFFSET: added to the raw column first, in its unit (e.g. q1=-90); repeatable."
    ),
]
LayoutTime = Annotated[Optional[str], typer.Option("--time-column", help="The time column (same as --column t=NAME).")]
LayoutRate = Annotated[
    Optional[str], typer.Option("--sample-rate", help="The sample rate of a log without a time column, e.g. '500 Hz'.")
]
LayoutHeader = Annotated[
    Optional[int],
    typer.Option("--header-row", help="The line (from 1) holding the column names; the lines above are skipped."),
]
LayoutSkip = Annotated[
    Optional[int], typer.Option("--skip-rows", help="Lines below the header that are not data (e.g. a units row).")
]
LayoutDelimiter = Annotated[
    Optional[str], typer.Option("--delimiter", help="Column delimiter [default: from the header].")
]
LayoutWindow = Annotated[
    list[str],
    typer.Option(
        "--window",
        help="START:END, the time kept [s] (e.g. 2:10, or '500 ms:9.5 s'; END may be left out); "
        "FILE=START:END for one log; repeatable.",
    ),
]
LayoutGap = Annotated[
    Optional[int],
    typer.Option("--max-gap", help="Missing samples filled by linear interpolation (default 0: refuse gaps)."),
]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Print what would be read from the logs and stop.")]
Bootstrap = Annotated[
    Optional[int],
    typer.Option(
        "--bootstrap",
        help="Parametric bootstrap re-identifications for bias and 95 % intervals (0: none) [default: 200].",
    ),
]
BootstrapSeed = Annotated[
    Optional[int], typer.Option("--seed", help="Seed of the bootstrap's draws [default: derived from the logs].")
]


IdentifiedOut = Annotated[Optional[Path], typer.Option("--out", help="Output directory.")]
Quiet = Annotated[bool, typer.Option("--quiet", help="No summary.")]
LogLayout = Optional[dict]
"""A command's ``layout`` parameter: :func:`_log_layout_options` puts the log-layout options in its place."""

_LOG_LAYOUT_OPTIONS = (
    ("column", LayoutColumn, []),
    ("unit", LayoutUnit, []),
    ("scale", LayoutScale, []),
    ("offset", LayoutOffset, []),
    ("time_column", LayoutTime, None),
    ("sample_rate", LayoutRate, None),
    ("header_row", LayoutHeader, None),
    ("skip_rows", LayoutSkip, None),
    ("delimiter", LayoutDelimiter, None),
    ("window", LayoutWindow, []),
    ("max_gap", LayoutGap, None),
)
"""The log-layout options every ``identify`` command takes: parameter, annotation, default."""


def _log_layout(
    column, unit, scale, offset, time_column, sample_rate, header_row, skip_rows, delimiter, window, max_gap
) -> dict:
    """The ``[log]`` table the log-layout options make (:func:`options_table`)."""
    from .scenarios.log_layout import options_table, parse_windows

    return options_table(
        [*column, *([f"t={time_column}"] if time_column else [])],
        unit,
        scale,
        offset,
        sample_rate=sample_rate,
        header_row=header_row,
        skip_rows=skip_rows,
        delimiter=delimiter,
        max_gap=max_gap,
        **parse_windows(window),
    )


def _log_layout_options(command):
    """Give ``command`` the options of :data:`_LOG_LAYOUT_OPTIONS` where its ``layout`` parameter
    stands; it is called with ``layout``, the ``[log]`` table they make."""
    signature = inspect.signature(command, eval_str=True)
    parameters = list(signature.parameters.values())
    at = [parameter.name for parameter in parameters].index("layout")
    options = [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=annotation, default=default)
        for name, annotation, default in _LOG_LAYOUT_OPTIONS
    ]

    @functools.wraps(command)
    def wrapper(**kwargs):
        values = {name: kwargs.pop(name) for name, _, _ in _LOG_LAYOUT_OPTIONS}
        return command(**kwargs, layout=_log_layout(**values))

    wrapper.__signature__ = signature.replace(parameters=[*parameters[:at], *options, *parameters[at + 1 :]])
    return wrapper


def _save_identified(result, out_dir: Path, overwrite: bool, quiet: bool, title: str) -> None:
    """Write an identification ``result`` into ``out_dir`` and, unless ``quiet``, print its key figures."""
    files = result.save(out_dir, overwrite=overwrite)
    if not quiet:
        _print_summary(title, result.summary.values(), notes=True)
        out.print(f"wrote {out_dir}/: {', '.join(files)}")


@identify_app.command("hydraulic-robot")
@_friendly
@_log_layout_options
def identify_hydraulic_robot(
    data: Annotated[list[Path], typer.Argument(help="Logs (CSV or Parquet), one per locked-joint experiment.")],
    known: Annotated[
        Path, typer.Option("--known", help="TOML file of the known robot values, options and [log] layout.")
    ],
    validate: Annotated[
        list[Path], typer.Option("--validate", help="A held-out log to cross-validate on; repeatable.")
    ] = [],  # noqa: B006
    layout: LogLayout = None,
    spool_unit: Annotated[
        Optional[str],
        typer.Option("--spool-unit", help="The unit the flow gains are per, that u is converted to [default: mm]."),
    ] = None,
    bootstrap: Bootstrap = None,
    seed: BootstrapSeed = None,
    dry_run: DryRun = False,
    out_dir: IdentifiedOut = Path("identified"),
    quiet: Quiet = False,
    overwrite: Overwrite = False,
) -> None:
    """Identify every parameter of a hydraulic robot from logs (Sakai & Maeshima): writes
    parameters.toml/.json, results.parquet (Table III style) and report.html with validation plots."""
    from .api.identify import identify_hydraulic_robot, inspect_hydraulic_robot_logs
    from .io.output_target import check_run_folder

    if spool_unit is not None:
        layout["spool_unit"] = spool_unit
    if dry_run:
        print(inspect_hydraulic_robot_logs(data, known, validate, layout))
        return
    check_run_folder(out_dir, overwrite)
    result = identify_hydraulic_robot(data, known, validate, layout, bootstrap, seed)
    _save_identified(result, out_dir, overwrite, quiet, "identification: key figures")


@identify_app.command("transfer-function")
@_friendly
@_log_layout_options
def identify_transfer_function(
    data: Annotated[Path, typer.Argument(help="A log (CSV or Parquet) with a time column or a --sample-rate.")],
    inputs: Annotated[list[str], typer.Option("--input", help="An input quantity; repeatable.")],
    output: Annotated[str, typer.Option("--output", help="The output quantity.")],
    structure: Annotated[
        list[str],
        typer.Option(
            "--structure",
            help=(
                "G1, G2, I+N (integrator and N lags), N (N lags), NpMz (N poles, M zeros; I+ before it for an "
                "integrator, +d after it for a delay: 2p0z, I+3p1z+d), arx(na,nb,nk) or oe(nb,nf,nk): one per "
                "--input, one for all, or several for one input (candidates: the best is chosen)."
            ),
        ),
    ] = ["G1"],  # noqa: B006
    validate: Annotated[
        Optional[Path],
        typer.Option("--validate", help="A second log the fitted model is checked on (validation fit)."),
    ] = None,
    layout_file: Annotated[
        Optional[Path],
        typer.Option("--layout", help="TOML file with a [log] table: the log's columns, units, time (as in --known)."),
    ] = None,
    layout: LogLayout = None,
    dry_run: DryRun = False,
    out_dir: IdentifiedOut = Path("identified"),
    quiet: Quiet = False,
    overwrite: Overwrite = False,
) -> None:
    """Fit transfer functions of any order to a logged record by output error: writes the
    parameters with 95 % intervals that hold for correlated residuals (results.parquet), the fit
    (and the validation fit), the order table of candidate structures (orders.csv), overlay,
    Bode and step-response plots with their bands, and report.html."""
    from .api.identify import identify_transfer_function, inspect_transfer_function_log
    from .io.output_target import check_run_folder

    if dry_run:
        print(inspect_transfer_function_log(data, inputs, output, layout_file, layout))
        return
    check_run_folder(out_dir, overwrite)
    result = identify_transfer_function(data, inputs, output, structure, layout_file, layout, validate)
    _save_identified(result, out_dir, overwrite, quiet, "transfer-function fit")


@app.command()
@_friendly
@_log_layout_options
def calibrate(
    scenario: Annotated[str, typer.Argument(help="A built-in scenario's name or a scenario file.")],
    data: Annotated[list[Path], typer.Argument(help="Logs (CSV or Parquet), one per experiment.")],
    free: Annotated[
        list[str],
        typer.Option(
            "--free", help="A field to fit, PATH or PATH=LOW..HIGH (units as in a scenario file); repeatable."
        ),
    ],
    match: Annotated[
        list[str],
        typer.Option("--match", help="A run channel compared with the log, CHANNEL or CHANNEL=COLUMN; repeatable."),
    ],
    validate: Annotated[
        list[Path], typer.Option("--validate", help="A log the calibrated scenario is checked on; repeatable.")
    ] = [],  # noqa: B006
    inputs: Annotated[
        list[str],
        typer.Option("--input", help="A scenario input driven by a log column, PATH=COLUMN; repeatable."),
    ] = [],  # noqa: B006
    weight: Annotated[
        list[str],
        typer.Option("--weight", help="CHANNEL=W: a factor on the channel's residual (default 1); repeatable."),
    ] = [],  # noqa: B006
    layout_file: Annotated[
        Optional[Path],
        typer.Option("--layout", help="TOML file with a [log] table: the logs' columns, units, time."),
    ] = None,
    layout: LogLayout = None,
    out_dir: IdentifiedOut = Path("calibrated"),
    quiet: Quiet = False,
    overwrite: Overwrite = False,
) -> None:
    """Fit numeric fields of a scenario to logged channels by output error: writes the fitted
    values with 95 % intervals (parameters.json, results.parquet), the calibrated scenario.toml,
    the fits before and after, overlays, the correlation of the estimates and report.html."""
    from .api.calibration import calibrate as fit
    from .io.output_target import check_run_folder
    from .scenarios.calibration import parse_pairs

    check_run_folder(out_dir, overwrite)
    weights = parse_pairs(weight, "--weight", "CHANNEL=W")
    driven = parse_pairs(inputs, "--input", "PATH=COLUMN")
    with _counter("scenario runs", quiet) as progress:
        tell = None if progress is None else lambda runs: progress(runs, None)
        result = fit(scenario, data, free, match, validate, driven, weights, layout_file, layout, tell)
    _save_identified(result, out_dir, overwrite, quiet, "calibration")


def main() -> None:
    """Entry point of the ``actuatorlab`` command.

    The cyclic garbage collector is off while the command runs, and what exists is frozen out of
    it when the command ends (``gc.freeze``): a command loads about a million objects that live
    as long as the process (numba, pydantic, matplotlib, pyarrow), which the collector's full
    collections would walk several times as they load and once more at exit, for no garbage
    (measured: a fifth of a short run's time). A command is short or, if long, made of arrays
    that reference counting frees. Pydantic's plugins (validation hooks found among the installed
    packages' entry points) are off in the command unless ``PYDANTIC_DISABLE_PLUGINS`` says
    otherwise: looking them up cost every command 30 ms, and a command has no use for them. A
    Ctrl-C before the command's own handler (while the command line is read) exits 130 with one
    line, no traceback.
    """
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    gc.disable()
    try:
        app()
    except KeyboardInterrupt:  # while typer read the command line
        err.print("interrupted: nothing was written", highlight=False)
        raise SystemExit(130) from None
    except SystemExit as stop:  # typer's own Ctrl-C exit (130, silent) before the command's handler
        if stop.code == 130 and not _ctrl_c_told:
            err.print("interrupted: nothing was written", highlight=False)
        raise
    finally:
        gc.freeze()

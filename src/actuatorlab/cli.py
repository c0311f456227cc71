"""Command-line interface: ``actuatorlab run | scenarios | show``.

Only argument parsing and calls into the scenario layer live here. Errors a user can cause
are printed in one or two lines on stderr with exit code 2, without a traceback.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .errors import ActuatorlabError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Model, simulate and report on hydraulic and electro-mechanical actuators.")
err = Console(stderr=True)
out = Console()


def _friendly(command):
    """Turn project errors into a short message and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except ActuatorlabError as exc:
            err.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True, soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper


class DelayedProgress:
    """A progress bar that appears only once a run has taken longer than ``delay`` seconds."""

    def __init__(self, enabled: bool, delay: float = 1.0):
        self.enabled = enabled
        self.start = time.perf_counter()
        self.delay = delay
        self.bar: Progress | None = None
        self.task = None

    def __call__(self, stage: str, fraction: float) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.start < self.delay:
                return
            self.bar = Progress(TextColumn("{task.description:<14}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                                TimeElapsedColumn(), console=err, transient=True)
            self.bar.start()
            self.task = self.bar.add_task(stage, total=1.0)
        self.bar.update(self.task, description=stage, completed=fraction)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


@app.command()
@_friendly
def run(
    scenario: Annotated[str, typer.Argument(help="A built-in scenario name or a TOML file.")],
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Output directory [default: runs/NAME].")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar and no summary.")] = False,
) -> None:
    """Run a scenario: writes results.parquet, scenario.toml, plots, summary.json and report.html."""
    from .scenarios.loading import load_scenario
    from .scenarios.runner import run_scenario

    progress = DelayedProgress(enabled=not quiet)
    spec = load_scenario(scenario)
    target = out_dir if out_dir is not None else Path("runs") / spec.name
    try:
        output, files = run_scenario(spec, target, progress)
    finally:
        progress.close()
    if quiet:
        return
    table = Table(title=f"{spec.name}: key figures", show_header=True)
    for column in ("figure", "value", "unit"):
        table.add_column(column)
    for s in output.summary:
        table.add_row(s.label, "—" if s.value is None else f"{s.value:.6g}", s.unit)
    out.print(table)
    out.print(f"wrote {target}/: {', '.join(files)}")


@app.command()
@_friendly
def scenarios() -> None:
    """List the built-in scenarios."""
    from .scenarios.loading import builtin_scenarios

    for name, description in builtin_scenarios().items():
        out.print(f"[bold]{name:<14}[/] {description}", highlight=False)


@app.command()
@_friendly
def show(scenario: Annotated[str, typer.Argument(help="A built-in scenario name or a TOML file.")]) -> None:
    """Print the resolved scenario (every default filled in) with units."""
    from .scenarios.loading import load_scenario, scenario_to_toml

    print(scenario_to_toml(load_scenario(scenario)), end="")


def main() -> None:
    """Entry point of the ``actuatorlab`` command."""
    app()

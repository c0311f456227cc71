"""Run a validated scenario and write its files: results, resolved scenario, plots, summary, report.

The run's folder is written beside its target and renamed into place whole, the report last,
so an interrupted or failed run leaves no folder (or the previous result, untouched) and a
folder that exists is a complete run.
"""

from __future__ import annotations

import datetime as _dt
import functools
import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from .. import __version__
from ..errors import ScenarioError, needs_extras
from ..io.atomic import atomic_write_text
from ..io.forked import ChildLost, fork_allowed, fork_call
from ..io.output_target import check_run_folder, write_run_folder
from ..numerics.kernel_loading import COMPILING, reporting_compiles
from ..report.html import write_report
from .kinds import KINDS
from .loading import scenario_to_toml
from .output import ScenarioOutput, StageProgress


def kind_module(kind: str) -> ModuleType:
    """The module that runs scenarios of ``kind`` (imported on first use); a kind whose optional
    dependency is missing raises ``MissingExtra`` naming the extra to install."""
    with needs_extras(f"the {kind} kind"):
        return importlib.import_module(f"{__package__}.kinds.{KINDS[kind].run}")


def simulate(
    scenario,
    progress: Callable[[float], None] | None = None,
    on_compile: Callable[[], None] | None = None,
    processes: int = 1,
) -> ScenarioOutput:
    """Run ``scenario``'s kind and return its output (table, key figures, figure specs, notes);
    ``progress(fraction)`` as it goes, ``on_compile()`` once if numba compiles a kernel its cache
    does not hold (seconds, once per machine).

    In this process, unless ``processes=2`` (the ``run`` command's choice): then a kind that can
    (``apart`` in :data:`~.kinds.KINDS`) simulates in a child forked where forking is allowed
    (:func:`~actuatorlab.io.forked.fork_allowed`) while this process loads the output's libraries
    (pyarrow, matplotlib). The result is the same (the same compiled code on the same inputs); a
    child lost on the way is replaced by simulating here.
    """
    module = kind_module(scenario.kind)
    if processes < 2 or not KINDS[scenario.kind].apart or not fork_allowed():
        with reporting_compiles(on_compile):
            return module.run(scenario, progress)
    with fork_call(_simulate_reporting_compiles, module.simulate_scenario, scenario) as child:
        _load_output_libraries()
        try:
            result = child.result(functools.partial(_reported, progress, on_compile))
        except ChildLost:
            with reporting_compiles(on_compile):
                result = module.simulate_scenario(scenario, progress)
    return module.output(scenario, result)


def _simulate_reporting_compiles(simulate_scenario, scenario, report: Callable[[object], None]):
    """A forked child's work: the simulation, with :data:`COMPILING` reported through ``report``
    if numba compiles on the way (the other values reported are progress fractions)."""
    with reporting_compiles(lambda: report(COMPILING)):
        return simulate_scenario(scenario, report)


def _reported(progress: Callable[[float], None] | None, on_compile: Callable[[], None] | None, value) -> None:
    """Pass what the simulation child reported on: a progress fraction, or that numba compiles."""
    if value == COMPILING:
        if on_compile is not None:
            on_compile()
    elif progress is not None:
        progress(value)


def _load_output_libraries() -> None:
    """Import what the output and its files need (pyarrow, matplotlib)."""
    importlib.import_module("..io.results", __package__)
    importlib.import_module("..report.plots", __package__)


def run_scenario(
    scenario, out_dir: str | Path, progress: StageProgress | None = None, overwrite: bool = False
) -> tuple[ScenarioOutput, list[str]]:
    """Run ``scenario`` and write its files into ``out_dir``; returns the output and file names."""
    out_dir = check_run_folder(out_dir, overwrite)
    report = progress or (lambda stage, fraction: None)
    output = simulate(scenario, lambda f: report("simulate", f))
    resolved = scenario_to_toml(scenario)
    files = write_output(
        out_dir,
        output,
        scenario.name,
        scenario.description,
        resolved,
        scenario.outputs.csv,
        scenario.outputs.plots,
        report,
        overwrite,
    )
    return output, files


def write_output(
    out_dir: Path,
    output: ScenarioOutput,
    title: str,
    description: str,
    source_toml: str,
    csv: bool = False,
    plots: bool = True,
    progress: StageProgress | None = None,
    overwrite: bool = False,
    processes: int = 1,
) -> list[str]:
    """Write results, ``scenario.toml`` (``source_toml``), summary, plots and the report (last);
    the figures drawn by ``processes`` (1 or 2, see :func:`~actuatorlab.report.plots.draw_figures`).

    The folder is built apart and put in place at the end (see :mod:`..io.output_target`): an
    earlier run's folder is replaced whole, none of its files left behind; a folder holding
    anything else is refused (:class:`~..io.output_target.OutputTaken`) unless ``overwrite``,
    and then only the run's files are written into it. A failure or Ctrl-C leaves ``out_dir``
    as it was. A folder that cannot be written raises ScenarioError naming it.
    """
    out_dir = check_run_folder(out_dir, overwrite)
    try:
        return write_run_folder(
            out_dir,
            lambda work: _write_files(
                work,
                output,
                title,
                description,
                source_toml,
                csv,
                plots,
                progress or (lambda stage, fraction: None),
                processes,
            ),
            overwrite,
            run_about(title, description, output),
        )
    except OSError as exc:
        raise ScenarioError(
            f"cannot write the results into {out_dir}: {_why_unwritable(out_dir, exc)}; choose a folder you can write"
        ) from None


def run_about(title: str, description: str, output: ScenarioOutput) -> dict:
    """What a run's manifest keeps for reading it back (``actuatorlab.open``): its title and
    description, each key figure's unit, label and note, the notes and the figures' captions."""
    return {
        "title": title,
        "description": description,
        "summary": {s.key: [s.unit, s.label, s.note] for s in output.summary},
        "notes": list(output.notes),
        "captions": {spec.file: spec.caption for spec in output.figures},
    }


def _why_unwritable(out_dir: Path, exc: OSError) -> str:
    """The reason in words: the first ancestor that is a file, else the system's message."""
    for ancestor in reversed(out_dir.absolute().parents):
        if ancestor.exists() and not ancestor.is_dir():
            return f"{ancestor} is a file, not a folder"
    return exc.strerror or str(exc)


def _write_files(
    out_dir: Path,
    output: ScenarioOutput,
    title: str,
    description: str,
    source_toml: str,
    csv: bool,
    plots: bool,
    report: StageProgress,
    processes: int,
) -> list[str]:
    from ..io.results import write_csv, write_json, write_table  # pyarrow: only when files are written
    from ..report.plots import draw_figures  # matplotlib: likewise

    report("write results", 0.0)
    files = ["results.parquet"]
    write_table(output.table, out_dir / "results.parquet", output.units, output.labels)
    if csv:
        write_csv(output.table, out_dir / "results.csv", output.units)
        files.append("results.csv")
    atomic_write_text(out_dir / "scenario.toml", source_toml)
    write_json(out_dir / "summary.json", output.summary_dict())
    files += ["scenario.toml", "summary.json"]
    for name, writer in output.attachments:
        (out_dir / name).parent.mkdir(parents=True, exist_ok=True)
        writer(out_dir / name)
        files.append(name)
    drawn, not_drawn = draw_figures(output.figures if plots else [], out_dir, lambda f: report("plot", f), processes)
    files += drawn
    report("report", 0.0)
    files.append("report.html")
    write_report(out_dir / "report.html", _report_context(title, description, output, source_toml, files, not_drawn))
    report("report", 1.0)
    return files


def _report_context(
    title: str, description: str, output: ScenarioOutput, resolved: str, files: list[str], not_drawn: list[str]
) -> dict:
    return {
        "title": title,
        "description": description,
        "key_figures": [{"name": s.label, "value": s.value, "unit": s.unit, "note": s.note} for s in output.summary],
        "figures": [{"file": f.file, "caption": f.caption} for f in output.figures if f.file in files],
        "notes": [*output.notes, *not_drawn],
        "scenario_toml": resolved,
        "files": files,
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "version": __version__,
    }

"""Calibration in Python: ``actuatorlab calibrate`` as a function taking a scenario and logs
(files or DataFrames) and returning a :class:`~actuatorlab.RunResult` whose
``scenario`` is the calibrated one (``.save(folder)`` writes what the command writes)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from ..errors import ScenarioError
from .identify import Log
from .results import RunResult
from .scenario import Scenario, load


def calibrate(
    scenario: Scenario | str | os.PathLike,
    logs: Log | Sequence[Log],
    free: str | Sequence[str],
    match: str | Sequence[str],
    validate: Sequence[Log] = (),
    inputs: Mapping[str, str] | None = None,
    weights: Mapping[str, float | str] | None = None,
    layout_file: str | os.PathLike | None = None,
    layout: Mapping | None = None,
    progress: Callable[[int], None] | None = None,
) -> RunResult:
    """Fit numeric fields of ``scenario`` so that its simulated channels match the logs, by
    output error, as ``actuatorlab calibrate``.

    Parameters
    ----------
    scenario : Scenario or str or os.PathLike
        The scenario, a built-in name or a scenario file.
    logs : Log or Sequence[Log]
        The log(s) to fit: CSV or Parquet files, or DataFrames.
    free : str or Sequence[str]
        ``"PATH"`` or ``"PATH=LOW..HIGH"`` per fitted field (bounds as in a scenario file, with
        units).
    match : str or Sequence[str]
        ``"CHANNEL"`` or ``"CHANNEL=COLUMN"`` per compared channel (a column of the run's table,
        from the log's quantity of that name or the column given).
    validate : Sequence[Log], default ()
        Logs only simulated with the result, and compared.
    inputs : Mapping[str, str], optional
        Scenario input path → the log column that drives it (a piecewise-linear signal through
        the samples).
    weights : Mapping[str, float or str], optional
        Channel → factor on its residual (default 1: each channel weighs by its noise level).
    layout_file : str or os.PathLike, optional
        A TOML file with the logs' ``[log]`` layout (columns, units, time), as for the identify
        commands.
    layout : Mapping, optional
        Keys of a ``[log]`` table over the file's.
    progress : callable, optional
        ``progress(runs)``, called with the count of scenario runs so far (a fit runs tens).

    Returns
    -------
    RunResult
        Its table lists each field's value, 95 % interval and standard error [SI]; its
        ``scenario`` is the calibrated scenario; ``.save(folder)`` writes what the command
        writes.

    Raises
    ------
    ScenarioError
        No log is given, a field or channel is unknown or not numeric, or the logs cannot
        separate the fields (the message names them).
    ParameterError
        A log cannot be read (the message names the log and the column).

    Examples
    --------
    >>> import numpy as np, pandas as pd, actuatorlab
    >>> truth = actuatorlab.load("arm-relief").set("arm.mass", "2300 kg").run().table
    >>> log = pd.DataFrame({"t": truth["t"], "theta": truth["theta"]})
    >>> fit = actuatorlab.calibrate("arm-relief", log, free="arm.mass=1000 kg..4000 kg", match="theta")
    >>> round(fit.scenario.get("arm.mass"))
    2300
    """
    from ..scenarios.calibration import calibrate as fit_fields
    from ..scenarios.calibration import experiment, parse_free, parse_match
    from ..scenarios.calibration_report import calibration_output
    from ..scenarios.log_layout import check_windows

    base = scenario if isinstance(scenario, Scenario) else load(scenario)
    logs = [logs] if _is_log(logs) else list(logs)
    if not logs:
        raise ScenarioError("give at least one log to calibrate against")
    fields = parse_free(base.spec, [free] if isinstance(free, str) else list(free))
    matches = parse_match([match] if isinstance(match, str) else list(match), weights)
    inputs = dict(inputs or {})
    spec = _layout(matches, layout_file, layout)
    check_windows(spec, [*logs, *validate])
    read = [_mapped(log, i, matches, inputs, spec, "log") for i, log in enumerate(logs)]
    held = [_mapped(log, i, matches, inputs, spec, "validation log") for i, log in enumerate(validate)]
    experiments = [experiment(base.spec, m, matches, inputs) for m in read]
    checks = [experiment(base.spec, m, matches, inputs) for m in held]
    result = fit_fields(fields, matches, experiments, checks, progress)
    calibrated = base.set({f.path: float(v) for f, v in zip(fields, result.values)})
    command = (
        f"# actuatorlab calibrate {base.name} "
        + " ".join(
            [m.source for m in read]
            + [f"--free '{f}'" for f in ([free] if isinstance(free, str) else free)]
            + [f"--match {m.channel}={m.column}" for m in matches]
            + [f"--validate {m.source}" for m in held]
            + [f"--input {p}={c}" for p, c in inputs.items()]
        )
        + "\n"
    )
    output = calibration_output(result, matches, experiments, checks, _si_units(base, fields))
    return RunResult(
        output,
        f"calibration of {base.name}",
        f"{', '.join(f.path for f in fields)} fitted to {', '.join(m.channel for m in matches)}",
        command + calibrated.show(),
        scenario=calibrated,
    )


def _si_units(scenario: Scenario, fields) -> dict[str, str]:
    """Each free field's SI unit (its values are reported in it)."""
    from ..scenarios.units import DIMENSIONS
    from ..scenarios.variants import get_path

    dimensions = scenario.spec.model_dump(context={"dimensions": True})
    units = {}
    for field in fields:
        dimension = get_path(dimensions, field.path)
        dimension = dimension["value"] if isinstance(dimension, Mapping) else dimension
        units[field.path] = DIMENSIONS[dimension].si if dimension in DIMENSIONS and dimension != "dimensionless" else ""
    return units


def _is_log(value) -> bool:
    import pandas as pd

    return isinstance(value, (str, os.PathLike, pd.DataFrame))


def _layout(matches, layout_file, layout):
    """The logs' layout: the file's ``[log]`` table, ``layout`` over it, and each ``--match
    CHANNEL=COLUMN``'s column (a unit or scale given for the channel stays)."""
    from ..scenarios.log_layout import merge_layout, read_layout_file

    base = {} if layout_file is None else read_layout_file(layout_file)
    overrides = dict(layout or {})
    columns = {m.channel: {"column": m.column} for m in matches if m.column != m.channel}
    for name, entry in overrides.get("columns", {}).items():
        columns.setdefault(name, {}).update(entry)
    return merge_layout(base, {**overrides, "columns": columns})


def _mapped(log, index: int, matches, inputs: dict[str, str], spec, what: str):
    import pandas as pd

    from ..scenarios.log_layout import read_mapped_log

    targets = {m.channel: None for m in matches} | {column: None for column in inputs.values()}
    source = f"{what} {index + 1}" if isinstance(log, pd.DataFrame) else None
    return read_mapped_log(log, spec, targets, source=source)

"""Identification in Python: the two ``actuatorlab identify`` commands as functions that take
logs as files or as pandas DataFrames and return a :class:`~actuatorlab.RunResult` (``.save(folder)``
writes what the command writes)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from ..errors import ParameterError
from .results import RunResult

Log = pd.DataFrame | str | os.PathLike
"""A log: a CSV or Parquet file, or a DataFrame (units in ``attrs["units"]`` if any)."""


def identify_hydraulic_robot(
    logs: Sequence[Log],
    known: str | os.PathLike | None = None,
    validate: Sequence[Log] = (),
    layout: Mapping | None = None,
    bootstrap: int | None = None,
    seed: int | None = None,
) -> RunResult:
    """Identify every parameter of a hydraulic robot from logs of locked-joint experiments, as
    ``actuatorlab identify hydraulic-robot``.

    One coupled least-squares solve of Sakai & Maeshima's method (:doc:`/bibliography`) gives
    the mechanical and fluid parameters (bulk modulus, flow gains) with their intervals.

    Parameters
    ----------
    logs : Sequence[Log]
        One log per experiment (a CSV or Parquet file, or a DataFrame): quantities ``t`` [s],
        ``q1 … qN`` [rad], ``p_plus1 …``, ``p_minus1 …`` [Pa, gauge], ``u1 … uN``, each from
        the column of its name or as the layout maps it.
    known : str or os.PathLike, optional
        The TOML file of known values and the ``[log]`` layout (None: the paper's Table II
        robot, the column names above).
    validate : Sequence[Log], default ()
        Held-out logs to cross-validate on.
    layout : Mapping, optional
        Keys of a ``[log]`` table over the known file's (e.g. ``{"columns": {"q1": {"column":
        "ANGLE_1", "unit": "deg"}}, "sample_rate": "500 Hz"}``).
    bootstrap : int, optional
        The replicates of the parametric bootstrap (None: the known file's ``[uncertainty]``,
        default 200; 0: the least-squares formula only).
    seed : int, optional
        The seed of the bootstrap's draws, ≥ 0 (None: the known file's, else derived from the
        logs, so that the same logs give the same result; the notes say which seed was used).

    Returns
    -------
    RunResult
        The identified parameters with their intervals (``table``), the fit's key figures, the
        notes and the report's figures; ``.save(folder)`` writes what the command writes.

    Raises
    ------
    ParameterError
        No log is given, a log lacks a column or cannot be read (the message names the log, the
        column and the option that maps it), ``bootstrap`` or ``seed`` is negative, or the logs
        cannot identify the parameters.

    Examples
    --------
    >>> import actuatorlab
    >>> actuatorlab.identify_hydraulic_robot([])
    Traceback (most recent call last):
    ...
    actuatorlab.errors.ParameterError: give at least one log of a locked-joint experiment
    """
    from ..scenarios.robot_identification import identify_logs
    from ..scenarios.variants import check_seed

    if bootstrap is not None and bootstrap < 0:
        raise ParameterError(
            f"--bootstrap {bootstrap}: give the number of bootstrap re-identifications, 0 or more (0: none)"
        )
    if seed is not None:
        check_seed(seed)
    spec, text, experiments, held_out = _robot_logs(logs, known, validate, layout)
    output, _ = identify_logs(
        spec,
        [e for e, _ in experiments],
        [e for e, _ in held_out],
        [m for _, m in experiments + held_out],
        bootstrap,
        seed,
    )
    return RunResult(
        output, "hydraulic-robot identification", f"Coupled least squares on {len(experiments)} logs", text
    )


def inspect_hydraulic_robot_logs(
    logs: Sequence[Log],
    known: str | os.PathLike | None = None,
    validate: Sequence[Log] = (),
    layout: Mapping | None = None,
) -> str:
    """What :func:`~actuatorlab.identify_hydraulic_robot` would read from ``logs``, as ``--dry-run`` prints it.

    Parameters
    ----------
    logs, known, validate, layout
        As for :func:`~actuatorlab.identify_hydraulic_robot`.

    Returns
    -------
    str
        Per log: the columns found and mapped, units, duration, sample rate, jitter, gaps and
        locked joints, one item a line.

    Raises
    ------
    ParameterError
        A log cannot be read, as the identification would refuse it.

    Examples
    --------
    >>> import numpy as np, pandas as pd, actuatorlab
    >>> log = pd.DataFrame({"t": np.arange(0.0, 1.0, 1e-3), "ANGLE_1": 0.0})
    >>> actuatorlab.inspect_hydraulic_robot_logs([log])
    Traceback (most recent call last):
    ...
    actuatorlab.errors.ParameterError: log 1: no column 'q1' for q1; the columns are t, ANGLE_1: give --column q1=NAME
    """
    from ..scenarios.robot_logs import describe_robot_log

    spec, _, experiments, held_out = _robot_logs(logs, known, validate, layout)
    tolerance = spec.identification.lock_tolerance
    lines = []
    for role, group in (("identification", experiments), ("validation", held_out)):
        for experiment, mapped in group:
            lines += [
                f"[{role}] " + row if i == 0 else row
                for i, row in enumerate(describe_robot_log(experiment, mapped, tolerance))
            ]
    return "\n".join(lines)


def _robot_logs(logs, known, validate, layout):
    """(known values, the known file's text, [(experiment, how read)] of logs and of validate)."""
    from ..errors import ParameterError
    from ..scenarios.robot_identification import parse_known, read_known
    from ..scenarios.log_layout import check_windows, merge_layout

    if not logs:
        raise ParameterError("give at least one log of a locked-joint experiment")
    text = "" if known is None else read_known(known)
    spec = parse_known(text, "known values" if known is None else os.fspath(known))
    log_layout = merge_layout(spec.log.model_dump(), dict(layout or {}), "[log]")
    spec = spec.model_copy(update={"log": log_layout})
    check_windows(log_layout, [*logs, *validate])
    read = [[_experiment(log, spec, log_layout, i) for i, log in enumerate(group)] for group in (logs, validate)]
    return spec, text, read[0], read[1]


def identify_transfer_function(
    record: Log,
    inputs: str | Sequence[str],
    output: str,
    structures: str | Sequence[str] = "G1",
    layout_file: str | os.PathLike | None = None,
    layout: Mapping | None = None,
    validate: Log | None = None,
) -> RunResult:
    """Fit transfer functions, one per input, to a logged record by output error, as
    ``actuatorlab identify transfer-function``.

    Standard errors and 95 % intervals account for correlated residuals (an autoregressive
    model of the residual).

    Parameters
    ----------
    record : Log
        A CSV or Parquet file, or a DataFrame: time ``t`` [s], the inputs and the output (taken
        from its first sample), each from the column of its name or as the layout maps it.
    inputs : str or Sequence[str]
        The input channel(s).
    output : str
        The output channel.
    structures : str or Sequence[str], default "G1"
        ``G1``, ``G2``, ``I+N``, ``N`` (an integrator and first-order lags), ``NpMz`` (N poles,
        complex allowed, M zeros; ``I+`` before it for an integrator, ``+d`` after it for an
        input delay), ``arx(na,nb,nk)`` or ``oe(nb,nf,nk)``. Several for one input are
        candidates: the one of best validation fit (else least AIC) is reported, all in
        ``orders.csv``.
    layout_file : str or os.PathLike, optional
        A TOML file with a ``[log]`` table (columns, units, time).
    layout : Mapping, optional
        Keys of a ``[log]`` table over the file's.
    validate : Log, optional
        A second record read the same way, on which the model's fit is reported (summary
        ``validation_fit_percent``).

    Returns
    -------
    RunResult
        The parameters with standard errors and intervals (``table``), the fit's key figures,
        the overlay, Bode plot and step response.

    Raises
    ------
    ParameterError
        A structure is not understood, a column is missing or the record cannot be read (the
        message names it), or the fit fails.

    Examples
    --------
    >>> import numpy as np, pandas as pd, actuatorlab
    >>> t = np.arange(0.0, 2.0, 1e-3)
    >>> u = np.where(t > 0.1, 1.0, 0.0) + 0.2 * np.sin(2 * np.pi * 3 * t)
    >>> y = np.cumsum(u) * 1e-3 * 2.0  # a pure integrator with gain 2
    >>> fit = actuatorlab.identify_transfer_function(pd.DataFrame({"t": t, "u": u, "y": y}), "u", "y", "I+1")
    >>> round(fit.table.loc[fit.table["name"] == "K1", "value"].item(), 2)
    2.0
    """
    from ..scenarios.transfer_function_logs import fit_record

    inputs = [inputs] if isinstance(inputs, str) else list(inputs)
    structures = [structures] if isinstance(structures, str) else list(structures)
    mapped = _record(record, inputs, output, layout_file, layout)
    checked = (
        None if validate is None else _record(validate, inputs, output, layout_file, layout, "the validation record")
    )
    result = fit_record(mapped, inputs, output, structures, checked)
    source = mapped.source
    command = (
        f"# actuatorlab identify transfer-function {source} --output {output} "
        + " ".join(
            [f"--input {i}" for i in inputs]
            + [f"--structure '{s}'" for s in structures]
            + ([] if checked is None else [f"--validate {checked.source}"])
        )
        + "\n"
    )
    return RunResult(
        result, f"transfer functions of {Path(source).name}", f"{output} from {', '.join(inputs)}", command
    )


def inspect_transfer_function_log(
    record: Log,
    inputs: str | Sequence[str],
    output: str,
    layout_file: str | os.PathLike | None = None,
    layout: Mapping | None = None,
) -> str:
    """What :func:`~actuatorlab.identify_transfer_function` would read from ``record``, as ``--dry-run`` prints it.

    Parameters
    ----------
    record, inputs, output, layout_file, layout
        As for :func:`~actuatorlab.identify_transfer_function`.

    Returns
    -------
    str
        The columns found and mapped, units, duration, sample rate, jitter and gaps, one item a
        line.

    Raises
    ------
    ParameterError
        The record cannot be read, as the identification would refuse it.

    Examples
    --------
    >>> import numpy as np, pandas as pd, actuatorlab
    >>> t = np.arange(0.0, 2.0, 1e-3)
    >>> record = pd.DataFrame({"t": t, "u": np.sin(t), "y": np.cos(t)})
    >>> print(actuatorlab.inspect_transfer_function_log(record, "u", "y"))  # doctest: +ELLIPSIS
    the record: 2000 rows; columns t, u, y
    ...
      time (t): 0–1.999 s (1.999 s), 2000 samples, period 1 ms (1000 Hz)
    ...
    """
    from ..scenarios.log_layout import describe

    inputs = [inputs] if isinstance(inputs, str) else list(inputs)
    return "\n".join(describe(_record(record, inputs, output, layout_file, layout)))


def _record(record, inputs, output, layout_file, layout, name="the record"):
    from ..errors import ParameterError
    from ..scenarios.log_layout import check_windows, merge_layout, read_layout_file, read_mapped_log

    base = {} if layout_file is None else read_layout_file(layout_file)
    spec = merge_layout(base, dict(layout or {}), "--layout" if layout_file is None else f"--layout {layout_file}")
    if spec.spool_unit != "mm":
        raise ParameterError(
            "spool_unit applies to hydraulic-robot logs; give a transfer-function input's unit "
            "with --unit and its gain with --scale"
        )
    check_windows(spec, [record])
    source = name if isinstance(record, pd.DataFrame) else os.fspath(record)
    return read_mapped_log(record, spec, {name: None for name in [*inputs, output]}, source=source)


def _experiment(log: Log, spec, layout, index: int):
    from ..scenarios.robot_logs import read_robot_log

    frame = isinstance(log, pd.DataFrame)
    return read_robot_log(
        log,
        len(spec.cylinders),
        layout,
        spec.identification.lock_tolerance,
        source=f"log {index + 1}" if frame else None,
        name=f"log{index + 1}" if frame else None,
        supply_pressure=spec.supply_pressure,
    )

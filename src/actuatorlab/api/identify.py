"""Identification in Python: the two ``actuatorlab identify`` commands as functions that take
logs as files or as pandas DataFrames and return a :class:`~actuatorlab.api.results.RunResult` (``.save(folder)`` writes
what the command writes)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from .results import RunResult

Log = pd.DataFrame | str | os.PathLike
"""A log: a CSV or Parquet file, or a DataFrame (units in ``attrs["units"]`` if any)."""


def identify_hydraulic_robot(logs: Sequence[Log], known: str | os.PathLike | None = None,
                             validate: Sequence[Log] = ()) -> RunResult:
    """Identify every parameter of a hydraulic robot (Sakai & Maeshima) from logs of locked-joint
    experiments by one coupled least-squares solve, as ``actuatorlab identify hydraulic-robot``.

    ``logs``: one per experiment, columns ``t`` [s], ``q1 … qN`` [rad], ``p_plus1 …``,
    ``p_minus1 …`` [Pa, gauge], ``u1 … uN``; ``known``: the TOML file of known values (None: the
    paper's Table II robot); ``validate``: held-out logs to cross-validate on.

    Examples
    --------
    >>> import actuatorlab
    >>> actuatorlab.identify_hydraulic_robot([])
    Traceback (most recent call last):
    ...
    actuatorlab.errors.ParameterError: give at least one log of a locked-joint experiment
    """
    from ..errors import ParameterError
    from ..scenarios.kinds.identify_robot import identify_logs, parse_known, read_known

    if not logs:
        raise ParameterError("give at least one log of a locked-joint experiment")
    text = "" if known is None else read_known(known)
    spec = parse_known(text, "known values" if known is None else os.fspath(known))
    joints = len(spec.cylinders)
    experiments = [_experiment(log, joints, i) for i, log in enumerate(logs)]
    held_out = [_experiment(log, joints, i) for i, log in enumerate(validate)]
    output, _ = identify_logs(spec, experiments, held_out)
    return RunResult(output, "hydraulic-robot identification", f"Coupled least squares on {len(experiments)} logs", text)


def identify_transfer_function(record: Log, inputs: str | Sequence[str], output: str,
                               structures: str | Sequence[str] = "G1") -> RunResult:
    """Fit continuous-time transfer functions (an integrator and first-order lags: ``G1``,
    ``G2``, ``I+N``, ``N``), one per input column, to a logged record by output error, as
    ``actuatorlab identify transfer-function``. ``record``: column ``t`` [s] on a uniform grid,
    the inputs and the output (taken from its first sample).

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
    from ..io.results import read_log
    from ..scenarios.transfer_function_logs import fit_record

    inputs = [inputs] if isinstance(inputs, str) else list(inputs)
    structures = [structures] if isinstance(structures, str) else list(structures)
    if isinstance(record, pd.DataFrame):
        table, source = record, "the record"
    else:
        table, source = read_log(record)[0], os.fspath(record)
    result = fit_record(table, inputs, output, structures, source=source)
    command = f"# actuatorlab identify transfer-function {source} --output {output} " + " ".join(
        [f"--input {i}" for i in inputs] + [f"--structure {s}" for s in structures]) + "\n"
    return RunResult(result, f"transfer functions of {Path(source).name}", f"{output} from {', '.join(inputs)}", command)


def _experiment(log: Log, joints: int, index: int):
    from ..scenarios.robot_logs import read_robot_log, robot_experiment

    if isinstance(log, pd.DataFrame):
        return robot_experiment(log, joints, log.attrs.get("units"), source=f"log {index + 1}", name=f"log{index + 1}")
    return read_robot_log(log, joints)

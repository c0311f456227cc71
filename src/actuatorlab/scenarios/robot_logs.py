"""Logs of hydraulic-robot experiments, for ``actuatorlab identify hydraulic-robot``.

One file per experiment (a locked-joint step), CSV or Parquet, one row per sample:

    t [s]                 sample time, uniformly spaced
    q1 … qN [rad]         joint angles (locked joints constant: they are recognised as locked)
    p_plus1 … [Pa]        head-side (cap) pressures, gauge
    p_minus1 … [Pa]       rod-side pressures, gauge
    u1 … uN               spool displacements, in the unit the flow gains are per (e.g. mm)
    repetition            optional integer: logs with the same value form one identification

CSV headers may carry the unit in brackets (``p_plus1 [Pa]``); Parquet columns may carry it in
the field metadata. A unit other than the SI one above is refused, naming the column.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..identification.robot_least_squares import Experiment
from ..io.results import numeric_columns, read_log, write_table

SI_UNITS = {"t": "s", "q": "rad", "p_plus": "Pa", "p_minus": "Pa"}


def _columns(joints: int) -> list[str]:
    return ["t"] + [f"{name}{i + 1}" for name in ("q", "p_plus", "p_minus", "u") for i in range(joints)]


def read_robot_log(path: str | os.PathLike, joints: int) -> Experiment:
    """The experiment in ``path`` (format in the module docstring) for a robot of ``joints`` joints."""
    path = Path(path)
    df, units = read_log(path)
    return robot_experiment(df, joints, units, source=path.name, name=path.stem)


def robot_experiment(df: pd.DataFrame, joints: int, units: dict[str, str] | None = None,
                     source: str = "the log", name: str = "log") -> Experiment:
    """The experiment in the table ``df`` (columns as in the module docstring, SI units);
    ``units`` (column → unit, ``""`` unknown) are checked against SI; errors name ``source``."""
    units = units or {}
    missing = [c for c in _columns(joints) if c not in df.columns]
    if missing:
        raise ParameterError(f"{source}: missing columns {', '.join(missing)}; a log of a {joints}-joint robot needs "
                             f"{', '.join(_columns(joints))}")
    for column in _columns(joints):
        expected = SI_UNITS.get(column.rstrip("0123456789"))
        if expected and units.get(column, "") not in ("", expected):
            raise ParameterError(f"{source}: column {column} is in {units[column]}; write it in {expected}")
    values = numeric_columns(df, _columns(joints), source)
    repetition = int(numeric_columns(df, ["repetition"], source)[0, 0]) if "repetition" in df.columns else 0
    t = values[:, 0]
    q, p_plus, p_minus, u = (values[:, 1 + k * joints: 1 + (k + 1) * joints] for k in range(4))
    return Experiment(name, t, q, p_plus, p_minus, u, repetition)


def write_robot_log(experiment: Experiment, path: str | os.PathLike) -> None:
    """Write ``experiment`` as a Parquet log (atomically), units in the column metadata."""
    joints = experiment.q.shape[1]
    data = {"t": experiment.t}
    for name in ("q", "p_plus", "p_minus", "u"):
        values = getattr(experiment, name)
        data.update({f"{name}{i + 1}": values[:, i] for i in range(joints)})
    data["repetition"] = np.full(len(experiment.t), experiment.repetition)
    df = pd.DataFrame(data)
    units = {c: SI_UNITS.get(c.rstrip("0123456789"), "") for c in df.columns}
    write_table(df, path, units)

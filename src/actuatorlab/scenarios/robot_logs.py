"""Logs of hydraulic-robot experiments, for ``actuatorlab identify hydraulic-robot``.

One file per experiment (a locked-joint step), CSV or Parquet, one row per sample. The
quantities, each read from the column of its name unless the layout (the ``[log]`` table of
the ``--known`` file, ``scenarios.log_layout``) maps it to another column, unit, scale or offset::

    t [s]                 sample time (or a sample rate instead)
    q1 … qN [rad]         joint angles (locked joints constant: they are recognised as locked)
    p_plus1 … [Pa]        head-side (cap) pressures, gauge
    p_minus1 … [Pa]       rod-side pressures, gauge
    u1 … uN               spool displacements, in the unit the flow gains are per (``spool_unit``,
                          default mm; a command voltage with its gain as scale, "0.12 mm/V")
    repetition            optional integer: logs with the same value form one identification

CSV headers may carry the unit in brackets (``p_plus1 [bar]``), Parquet columns in the field
metadata; the values are converted. A joint that moves at the start of a log and then holds
still is refused: the log starts before the experiment (cut it with a window). Pressures that read
about one atmosphere off gauge (absolute sensors read as gauge) are refused once the logs are
pooled (:func:`refuse_atmospheric_offset`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..identification.pressure_offset import ATMOSPHERE, pressure_offset
from ..identification.robot_least_squares import Experiment, IdentificationOptions
from ..io.results import write_table
from ..mechanics.robot_dynamics import HydraulicRobot
from .log_layout import LogSpec, MappedLog, describe, read_mapped_log

SI_UNITS = {"t": "s", "q": "rad", "p_plus": "Pa", "p_minus": "Pa"}
SETTLED_FRACTION = 0.5
"""A joint still over this final fraction of a log but moving before it: the log starts early (a
driven joint never holds still for half a log)."""


def robot_quantities(joints: int, spool_unit: str) -> dict[str, str]:
    """Quantity → unit it is read in, for a robot of ``joints`` joints."""
    out = {}
    for name in ("q", "p_plus", "p_minus", "u"):
        out.update({f"{name}{i + 1}": SI_UNITS.get(name, spool_unit) for i in range(joints)})
    return out


def read_robot_log(
    log: str | os.PathLike | pd.DataFrame,
    joints: int,
    layout: LogSpec | None = None,
    lock_tolerance: float = 1e-3,
    source: str | None = None,
    name: str | None = None,
    supply_pressure: float | None = None,
) -> tuple[Experiment, MappedLog]:
    """The experiment in ``log`` (a file, or a DataFrame with units in ``attrs["units"]``) read
    through ``layout`` (module docstring) for a robot of ``joints`` joints, and how it was read.
    With ``supply_pressure`` [Pa], a pressure column that lies outside [0, p_s] (a unit or offset
    mapped wrong) is refused."""
    layout = layout or LogSpec()
    if name is None:
        name = Path(log).stem if not isinstance(log, pd.DataFrame) else "log"
    mapped = read_mapped_log(log, layout, robot_quantities(joints, layout.spool_unit), ("repetition",), source)
    v = mapped.values
    q, p_plus, p_minus, u = (
        np.column_stack([v[f"{k}{i + 1}"] for i in range(joints)]) for k in ("q", "p_plus", "p_minus", "u")
    )
    _refuse_early_start(mapped, q, lock_tolerance)
    if supply_pressure is not None:
        _refuse_implausible_pressures(mapped, supply_pressure)
    repetition = int(v["repetition"][0]) if "repetition" in v and np.isfinite(v["repetition"][0]) else 0
    return Experiment(name, mapped.t, q, p_plus, p_minus, u, repetition), mapped


def _refuse_early_start(mapped: MappedLog, q: np.ndarray, lock_tolerance: float) -> None:
    """Refuse a joint that moves at first and then holds still (the log starts before the step)."""
    tail = int(len(q) * (1.0 - SETTLED_FRACTION))
    for j in range(q.shape[1]):
        still = np.median(q[tail:, j])
        off = np.abs(q[:, j] - still) > lock_tolerance
        if off.any() and not off[tail:].any():
            k = int(np.flatnonzero(off)[-1]) + 1
            raise ParameterError(
                f"{mapped.source}: q{j + 1} moves until t = {mapped.t[k]:.4g} s and then holds "
                "still: the log starts before the experiment; keep the experiment with --window "
                f"{Path(mapped.source).name}={mapped.t[k]:.4g}: (windows in [log])"
            )


PRESSURE_BOUNDS = (-0.01, 1.1)
"""Gauge pressures outside these fractions of p_s (below tank by 1 % of the supply, above it by
10 %) in more than 1 % of a column's samples, or a column that never exceeds 1 % of the supply:
the column is refused as mapped wrong (sensor noise and overshoot stay inside; a chamber at
work holds a good fraction of p_s)."""


def _refuse_implausible_pressures(mapped: MappedLog, supply: float) -> None:
    low, high = PRESSURE_BOUNDS[0] * supply, PRESSURE_BOUNDS[1] * supply
    for m in mapped.mappings:
        if m.quantity.startswith("p_"):
            p = mapped.values[m.quantity]
            if ((p < low) | (p > high)).mean() > 0.01 or np.abs(p).max() < PRESSURE_BOUNDS[0] * -supply:
                how = f"unit ({m.unit or 'none: Pa'})" + (f" and offset ({m.offset:g} {m.unit})" if m.offset else "")
                raise ParameterError(
                    f"{mapped.source}: {m.quantity} (column {m.column}) lies in {m.low / 1e6:.4g} … "
                    f"{m.high / 1e6:.4g} MPa, not a working chamber's between tank and supply "
                    f"(0 … {supply / 1e6:g} MPa): "
                    f"check its {how}, e.g. --unit {m.quantity}=bar"
                )


def refuse_atmospheric_offset(
    robot: HydraulicRobot, experiments: list[Experiment], options: IdentificationOptions, mapped: list[MappedLog]
) -> None:
    """Refuse logs whose pressures, fitted with the robot's torques, read about one atmosphere
    above gauge (absolute sensors without their offset) or below it (gauge sensors given one),
    naming the pressure columns (as ``mapped``, how each log was read) and the offset to give."""
    offset = pressure_offset(robot, experiments, options)
    if offset is None or not offset.atmospheres:
        return
    pressures = [m for m in (mapped[0].mappings if mapped else []) if m.quantity.startswith("p_")]
    unit, factor = (pressures[0].unit or "Pa", pressures[0].factor) if pressures else ("Pa", 1.0)
    logs = ", ".join(m.source for m in mapped) or ", ".join(e.name for e in experiments)
    size, spread = abs(offset.estimate) / factor, offset.standard_error / factor
    side = "above" if offset.atmospheres > 0 else "below"
    found = (
        f"{logs}: the pressures read {size:.4g} {unit} (± {spread:.2g}) {side} gauge, about one atmosphere "
        "(fitted with the torques): "
    )
    if offset.atmospheres > 0:
        named = [m for m in pressures if not m.offset] or pressures
        columns = ", ".join(f"{m.quantity} ({m.column})" for m in named) or "the pressure columns"
        example = f"{named[0].quantity}={-ATMOSPHERE / factor:.6g}" if named else f"p_plus1={-ATMOSPHERE:.6g}"
        remedy = (
            f"absolute sensors read as gauge; give {columns} their offset to gauge, e.g. --offset "
            f'{example} ({unit}) or offset = "-1 atm" in [log.columns]'
        )
    else:
        named = [m for m in pressures if m.offset] or pressures
        columns = ", ".join(f"{m.quantity} ({m.column}, offset {m.offset:g} {m.unit or 'Pa'})" for m in named)
        remedy = f"gauge sensors given an offset to gauge; remove the offset of {columns or 'the pressure columns'}"
    raise ParameterError(found + remedy + "; if the logged pressures are gauge, set check_gauge = false in [log]")


def describe_robot_log(experiment: Experiment, mapped: MappedLog, lock_tolerance: float) -> list[str]:
    """``log_layout.describe`` plus the joints found locked and driven."""
    display = {k: ("deg", 180 / np.pi) if k[0] == "q" else ("MPa", 1e-6) for k in mapped.values if k[0] in "qp"}
    driven = experiment.driven(lock_tolerance)
    joints = [
        f"joint {j + 1} "
        + (
            f"driven (std {np.degrees(experiment.q[:, j].std()):.3g} deg)"
            if d
            else f"locked at {np.degrees(experiment.q[:, j].mean()):.4g} deg"
        )
        for j, d in enumerate(driven)
    ]
    return describe(mapped, display) + [
        f"  joints: {', '.join(joints)} (lock tolerance "
        f"{np.degrees(lock_tolerance):.3g} deg); repetition {experiment.repetition}"
    ]


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


LOGGER_HEADER = (
    "# logger: DAQ-16 v4.2, serial 0113\n# site: test rig, oil 40 degC\n# channels: 11, nominal rate 1000 Hz\n"
)
LOGGER_LAYOUT = """[log]
header_row = 4      # three metadata lines above the column names
skip_rows = 1       # the units row below them
delimiter = ";"
max_gap = 3

[log.columns]
t = { column = "TIME_MS", unit = "ms" }
q1 = { column = "ANGLE_1", unit = "deg" }
q2 = { column = "ANGLE_2", unit = "deg", offset = 180 }
p_plus1 = { column = "P_HEAD_1", unit = "bar" }
p_minus1 = { column = "P_ROD_1", unit = "bar" }
p_plus2 = { column = "P_HEAD_2", unit = "bar" }
p_minus2 = { column = "P_ROD_2", unit = "bar" }
u1 = { column = "SPOOL_CMD_1", unit = "V", scale = "0.12 mm/V" }
u2 = { column = "SPOOL_CMD_2", unit = "V", scale = "0.12 mm/V" }
"""
"""The ``[log]`` table of the logs :func:`write_logger_example` writes."""


def write_logger_example(
    experiments: list[Experiment], folder: str | os.PathLike, jitter: float = 0.1, seed: int = 0
) -> list[Path]:
    """Write 2-joint ``experiments`` as a data logger would (the layout :data:`LOGGER_LAYOUT`):
    metadata lines, a units row, ";" delimiters, an ISO timestamp column, time in ms sampled with
    jitter (std ``jitter`` of a period), angles in degrees (q2 from the other end, −180°),
    pressures in bar, the spool as a command voltage (0.12 mm/V), an oil-temperature column and
    one missing sample. Returns the files (``<name>.csv``)."""
    from ..io.atomic import atomic_write_text

    rng = np.random.default_rng(seed)
    folder = Path(folder)
    files = []
    for e in experiments:
        t = e.t + jitter * e.dt * np.clip(rng.standard_normal(len(e.t)), -2, 2)
        t[[0, -1]] = e.t[[0, -1]]

        def at(x, t=t, e=e):
            return np.interp(t, e.t, x)

        columns = {
            "TIMESTAMP": (pd.Timestamp("2026-05-01T10:00:00") + pd.to_timedelta(t, unit="s")).strftime(
                "%Y-%m-%dT%H:%M:%S.%f"
            ),
            "TIME_MS": np.round(t * 1e3, 4),
            "ANGLE_1": np.degrees(at(e.q[:, 0])),
            "ANGLE_2": np.degrees(at(e.q[:, 1])) - 180.0,
        }
        for j in range(2):
            columns[f"P_HEAD_{j + 1}"] = at(e.p_plus[:, j]) / 1e5
            columns[f"P_ROD_{j + 1}"] = at(e.p_minus[:, j]) / 1e5
        for j in range(2):
            columns[f"SPOOL_CMD_{j + 1}"] = at(e.u[:, j]) / 0.12
        columns["T_OIL"] = 40.0 + 0.1 * rng.standard_normal(len(t))
        df = pd.DataFrame(columns)
        df.loc[len(df) // 2, "P_HEAD_1"] = np.nan  # a sample the logger dropped
        units = ";ms;deg;deg;bar;bar;bar;bar;V;V;degC\n"
        text = (
            LOGGER_HEADER
            + ";".join(df.columns)
            + "\n"
            + units
            + df.to_csv(sep=";", index=False, header=False, float_format="%.7g")
        )
        path = folder / f"{e.name}.csv"
        atomic_write_text(path, text)
        files.append(path)
    return files

"""Logs in a data logger's own layout, for both ``actuatorlab identify`` commands.

A layout (the ``[log]`` table of the robot's ``--known`` file, a ``--layout`` file of
``identify transfer-function``, or the same as command-line options) says where each quantity
a command needs is and how to read it:

    header_row   line (from 1) holding the column names; the lines above (metadata) are skipped
    skip_rows    lines below the header that are not data (a units row)
    delimiter    "," ";" tab "|" (default: the one the header line uses most)
    columns      quantity → {column, unit, scale, offset}: the value is (raw + offset)·unit·scale,
                 converted to the quantity's unit (``unit`` and ``scale`` are pint strings:
                 unit = "bar", "deg", "ms", "V"; scale = "0.12 mm/V" for a spool logged as a
                 command voltage; a bare offset is in the column's unit). Unmapped quantities are
                 read from the column of their own name, in the unit of its header bracket
                 (``p_plus1 [Pa]``) or else already in the quantity's unit; other columns (a
                 timestamp, an oil temperature) are ignored.
    sample_rate  the rate of a log without a time column (a time column is then not read)
    window       [start, end] of time kept, e.g. to drop what was logged before the experiment
    windows      file name → [start, end] for one log (over ``window``)
    max_gap      rows of missing samples (empty or NaN cells, or a time step of several periods)
                 filled by linear interpolation; a longer gap is refused with its lines
    check_gauge  false: the robot's pressures are gauge as mapped; skip the test that refuses
                 pressures about one atmosphere off gauge (``scenarios.robot_logs``)

Time: the sample instants are fitted by a uniform grid (least squares of t against the sample
index, a step of several periods counting as missing samples); a log whose instants deviate from
it by more than a millionth of the period is resampled onto it by linear interpolation of every
column. An instant off the grid by more than ``JITTER_LIMIT`` of a period (a clock that jumped,
two logs joined), or a time that does not increase, is refused with its line. The
numbers are what :func:`describe` prints for ``--dry-run``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from pydantic import Field, StrictBool, StrictInt, StrictStr, ValidationError, field_validator, model_validator

from ..errors import ParameterError, ScenarioError
from ..io.results import DELIMITERS, TEXT_LOGS, numeric_columns, read_log
from .loading import describe_validation_error
from .spec_base import Frequency, Spec, Time, at_least
from .toml_text import decode, parse
from .units import DIMENSIONS, registry

JITTER_LIMIT = 0.25
"""Largest deviation of a sample instant from the uniform grid, as a fraction of the period, that
is resampled (linear interpolation errs by at most a quarter period's change of a signal); beyond
it the log is refused."""
UNIFORM = 1e-6
"""Deviation from the grid, as a fraction of the period, below which a log is used as logged."""
MIN_SAMPLES = 3
"""Fewest timed samples a log may have before any identification looks at it."""
EXAMPLE_UNITS = {"s": '"ms"', "rad": '"deg"', "Pa": '"bar"'}


class ColumnSpec(Spec):
    """Where one quantity is: ``column`` of the log, its ``unit`` (pint), ``scale`` (a number or
    a pint quantity such as "0.12 mm/V") and ``offset`` (added to the raw value first)."""

    column: StrictStr
    unit: StrictStr = ""
    scale: float | StrictStr = 1.0
    offset: float | StrictStr = 0.0


class LogSpec(Spec):
    """The ``[log]`` table: the layout of a logger's files (module docstring)."""

    header_row: StrictInt = 1
    skip_rows: StrictInt = 0
    delimiter: StrictStr | None = None
    sample_rate: Frequency | None = None
    window: tuple[Time, Time] | None = None
    windows: dict[StrictStr, tuple[Time, Time]] = Field(default_factory=dict)
    max_gap: StrictInt = 0
    spool_unit: StrictStr = "mm"
    check_gauge: StrictBool = True
    columns: dict[StrictStr, ColumnSpec] = Field(default_factory=dict)

    _header = field_validator("header_row")(at_least(1, "give the line (from 1) that holds the column names"))
    _count = field_validator("skip_rows", "max_gap")(at_least(0, "give a count of rows >= 0"))

    @field_validator("delimiter")
    @classmethod
    def _delimiter(cls, value: str | None) -> str | None:
        if value is not None and value not in DELIMITERS:
            raise ValueError(f"{value!r}: use one of {', '.join(repr(d) for d in DELIMITERS)}")
        return value

    @model_validator(mode="after")
    def _ranges(self):
        if self.sample_rate is not None and not (math.isfinite(self.sample_rate) and self.sample_rate > 0):
            raise ValueError(f"sample_rate = {self.sample_rate} Hz: must be a finite rate > 0")
        for name, window in [("window", self.window), *((f"windows.{k}", w) for k, w in self.windows.items())]:
            if window is not None and not window[0] < window[1]:
                raise ValueError(f"{name} = {list(window)} s: the start must come before the end")
        if self.sample_rate is not None and "t" in self.columns:
            raise ValueError("both a time column (columns.t) and a sample_rate: give one of them")
        return self


def parse_pairs(options: list[str], flag: str) -> dict[str, str]:
    """``["q1=ANGLE_1", …]`` of a repeatable ``--flag QUANTITY=VALUE`` option as a dict."""
    example = {"--column": "q1=ANGLE_1", "--unit": "q1=deg", "--scale": "'u1=0.12 mm/V'", "--offset": "q2=180"}
    out = {}
    for option in options:
        name, sep, value = option.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ScenarioError(f"{flag} {option!r}: write QUANTITY=VALUE, e.g. {flag} {example.get(flag, 'q1=...')}")
        out[name.strip()] = value.strip()
    return out


def parse_windows(options: list[str]) -> dict:
    """``--window START:END`` (every log; in s, or with units "500 ms:9.5 s"; END may be left
    out) and ``--window FILE=START:END`` (one log) as the ``window`` and ``windows`` keys."""
    out: dict = {}
    for text in options:
        name, sep, span = text.rpartition("=")
        start, colon, end = span.partition(":")
        if not colon or not start.strip():
            raise ScenarioError(
                f"--window {text!r}: write START:END in s, e.g. --window 2:10, or FILE=START:END for "
                "one log (END may be left out)"
            )
        window = [start.strip(), end.strip() or "inf"]
        if sep:
            out.setdefault("windows", {})[name.strip()] = window
        else:
            out["window"] = window
    return out


def options_table(
    columns: list[str] = (), units: list[str] = (), scales: list[str] = (), offsets: list[str] = (), **settings
) -> dict:
    """The command-line layout options as a ``[log]`` table: ``--column q1=ANGLE_1`` etc. and the
    scalar ``settings`` (None: not given)."""
    table: dict = {k: v for k, v in settings.items() if v is not None}
    mapped: dict = {}
    for flag, key, options in (
        ("--column", "column", columns),
        ("--unit", "unit", units),
        ("--scale", "scale", scales),
        ("--offset", "offset", offsets),
    ):
        for name, value in parse_pairs(list(options), flag).items():
            mapped.setdefault(name, {})[key] = _number_or_text(value) if key in ("scale", "offset") else value
    if mapped:
        table["columns"] = mapped
    return table


def merge_layout(base: dict | None, overrides: dict | None = None, label: str = "log layout") -> LogSpec:
    """The :class:`LogSpec` of the ``[log]`` table ``base`` with ``overrides`` (the same keys, e.g.
    from :func:`options_table`) over it; a quantity's entries merge key by key."""
    data = {**(base or {}), **{k: v for k, v in (overrides or {}).items() if k != "columns"}}
    data["windows"] = {**(base or {}).get("windows", {}), **(overrides or {}).get("windows", {})}
    columns = {k: dict(v) for k, v in (base or {}).get("columns", {}).items()}
    for name, entry in (overrides or {}).get("columns", {}).items():
        columns.setdefault(name, {}).update(entry)
    for name, entry in columns.items():
        entry.setdefault("column", name)
    data["columns"] = columns
    try:
        return LogSpec.model_validate(data)
    except ValidationError as error:
        raise ScenarioError(f"{label}: {describe_validation_error(error, LogSpec)}") from None


def check_windows(layout: LogSpec, logs: list) -> None:
    """Refuse a per-log window naming a file that is not among ``logs`` (paths or DataFrames)."""
    names = [Path(log).name for log in logs if not isinstance(log, pd.DataFrame)]
    unknown = sorted(set(layout.windows) - set(names))
    if unknown:
        raise ScenarioError(
            f"a window is given for {', '.join(unknown)}, which is not among the logs "
            f"({', '.join(names) or 'none read from files'}); name a log's file as FILE=START:END"
        )


def read_layout_file(path: str | os.PathLike) -> dict:
    """The ``[log]`` table of a TOML layout file (a file with only that table); one-line errors."""
    label = f"--layout {os.fspath(path)}"
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise ScenarioError(f"{label}: cannot be read ({error}); give a TOML file with a [log] table") from None
    data = parse(decode(raw, label), label)
    if set(data) - {"log"} or not isinstance(data.get("log", {}), dict):
        raise ScenarioError(
            f"--layout {os.fspath(path)}: holds {', '.join(data) or 'nothing'}; write the layout as "
            "a [log] table (header_row, columns, sample_rate, window, ...)"
        )
    return data.get("log", {})


def _number_or_text(value: str) -> float | str:
    try:
        return float(value)
    except ValueError:
        return value


@dataclass(frozen=True)
class Mapping:
    """How one quantity was read: column, unit, scale, offset, the factor to ``target`` and the
    values' range (in ``target``)."""

    quantity: str
    column: str
    unit: str
    scale: float | str
    offset: float
    factor: float
    target: str
    low: float = math.nan
    high: float = math.nan


@dataclass(frozen=True)
class MappedLog:
    """A log read through a layout: ``t`` [s] on a uniform grid, each quantity's samples in its
    unit, and what was done (for ``--dry-run`` and the report)."""

    source: str
    t: np.ndarray
    values: dict[str, np.ndarray]
    columns: list[str]
    mappings: list[Mapping]
    rows: int
    first_line: int | None
    period: float
    jitter_max: float = 0.0
    jitter_rms: float = 0.0
    resampled: bool = False
    gaps: list[str] = field(default_factory=list)
    window: tuple[float, float] | None = None
    time_source: str = "t"

    @property
    def ignored(self) -> list[str]:
        used = {m.column for m in self.mappings}
        return [c for c in self.columns if c not in used]


def read_mapped_log(
    log: str | os.PathLike | pd.DataFrame,
    layout: LogSpec,
    targets: dict[str, str | None],
    optional: tuple[str, ...] = (),
    source: str | None = None,
) -> MappedLog:
    """Read the quantities ``targets`` (quantity → unit to convert to; None: the SI unit of the
    column's unit) of ``log`` through ``layout`` (module docstring); ``optional`` quantities are
    read raw if their column exists. Errors are one line naming the file, quantity and column."""
    if isinstance(log, pd.DataFrame):
        df, header_units, first_line = log, dict(log.attrs.get("units") or {}), None
        source = source or "the log"
    else:
        source = source or Path(log).name
        try:
            df, header_units = read_log(log, layout.header_row, layout.skip_rows, layout.delimiter)
        except ParameterError as error:
            hint = _metadata_hint(log, layout.header_row)
            if hint is None:
                raise
            raise ParameterError(f"{source}: {hint}") from error
        first_line = None if Path(log).suffix.lower() == ".parquet" else layout.header_row + layout.skip_rows + 1
    columns = [str(c) for c in df.columns]
    wanted = dict(targets) if layout.sample_rate is not None else {"t": "s", **targets}
    known = ["t", *targets, *optional]
    for name in layout.columns:
        if name not in known:
            raise ScenarioError(
                f"{source}: the layout maps {name!r}, which this command does not read; map one of {', '.join(known)}"
            )
    mappings, raw = [], {}
    for quantity, target in wanted.items():
        spec = layout.columns.get(quantity) or ColumnSpec(column=quantity)
        if spec.column not in columns:
            hint = None if isinstance(log, pd.DataFrame) else _metadata_hint(log, layout.header_row)
            if hint is not None:
                raise ParameterError(f"{source}: no column {spec.column!r} for {quantity}; {hint}")
            how = (
                f"--column {quantity}=NAME"
                if quantity not in layout.columns
                else f"the column of {quantity} (now {spec.column!r})"
            )
            raise ParameterError(
                f"{source}: no column {spec.column!r} for {quantity}; the columns are "
                f"{', '.join(columns)}: give {how}" + (" or --sample-rate" if quantity == "t" else "")
            )
        unit = spec.unit or header_units.get(spec.column, "")
        factor, target_unit, offset = _conversion(quantity, unit, spec, target, source)
        raw[quantity] = (numeric_columns(df, [spec.column], source)[:, 0] + offset) * factor
        mappings.append(Mapping(quantity, spec.column, unit, spec.scale, offset, factor, target_unit))
    for quantity in optional:
        if quantity in columns:
            raw[quantity] = numeric_columns(df, [quantity], source)[:, 0]
    if len(df) == 0:
        raise ParameterError(f"{source}: the table has a header but no rows; log at least one sample")
    t = raw.pop("t") if layout.sample_rate is None else np.arange(len(df)) / layout.sample_rate
    window = layout.windows.get(Path(source).name, layout.window)
    return _on_grid(source, t, raw, columns, mappings, layout, first_line, window)


def _cells(line: str, delimiter: str | None = None) -> int:
    """How many cells a text line holds, split at ``delimiter`` (None: the one of
    :data:`DELIMITERS` it holds most)."""
    return line.count(delimiter or max(DELIMITERS, key=line.count)) + 1


def _metadata_hint(path: str | os.PathLike, header_row: int, scan: int = 200) -> str | None:
    """Where a text log's header line ``header_row`` looks like a logger's metadata (it starts
    with ``#`` or holds a single cell), what to give instead: the first line (of the first
    ``scan``) not starting with ``#`` that holds several cells, as many as the line below it,
    is taken for the header. None for anything else."""
    if Path(path).suffix.lower() not in TEXT_LOGS:
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            lines = [line.rstrip("\r\n") for _, line in zip(range(scan), file)]
    except OSError:
        return None
    if len(lines) < header_row:
        return None
    header = lines[header_row - 1]
    if not (header.lstrip().startswith("#") or _cells(header) == 1):
        return None
    below = lines[header_row] if len(lines) > header_row else ""
    if (
        _cells(header) > 1
        and not below.lstrip().startswith("#")
        and _cells(below, max(DELIMITERS, key=header.count)) == _cells(header)
    ):
        return None  # "# t,x,y": names behind a "#", read as they are
    said = f"line {header_row} ({_clip(header)}) looks like metadata, not column names: "
    for number, (line, below) in enumerate(zip(lines, lines[1:]), start=1):
        delimiter = max(DELIMITERS, key=line.count)
        if not line.lstrip().startswith("#") and _cells(line) > 1 and _cells(below, delimiter) == _cells(line):
            return (
                said + f"the column names seem to be on line {number} ({_clip(line)}); give --header-row "
                f"{number} (header_row = {number} in [log])"
            )
    return said + "give the line that holds the column names as --header-row N (header_row = N in [log])"


def _clip(line: str, width: int = 60) -> str:
    line = line.strip()
    return repr(line if len(line) <= width else line[: width - 1] + "…")


def _conversion(quantity: str, unit: str, spec: ColumnSpec, target: str | None, source: str):
    """(factor, target unit, offset in the column's unit) of value = (raw + offset)·factor."""
    if not unit and isinstance(spec.scale, float) and isinstance(spec.offset, float):
        return spec.scale, target or "as logged", spec.offset
    ureg = registry()
    where = f"{source}: {quantity} (column {spec.column})"
    try:
        scale = ureg.Quantity(spec.scale) if isinstance(spec.scale, str) else spec.scale
        one = ureg.Quantity(1.0, unit or "dimensionless") * scale
        if target is None:
            target = _si_unit(one) or unit or "dimensionless"
        factor = float(one.to(target).magnitude)
        offset = (
            spec.offset
            if isinstance(spec.offset, float)
            else float(ureg.Quantity(spec.offset).to(unit or "dimensionless").magnitude)
        )
    except Exception as error:  # noqa: BLE001 — pint raises several unrelated types for unreadable or mismatched units
        example = EXAMPLE_UNITS.get(target or "", '"V" with a scale such as "0.12 mm/V"')
        raise ScenarioError(
            f"{where}: {unit or 'no unit'}{'' if spec.scale == 1.0 else f' × {spec.scale}'} cannot be "
            f"read as {target} ({str(error).splitlines()[0]}); give its unit, e.g. {example}"
        ) from None
    if not math.isfinite(factor) or factor == 0.0:
        raise ScenarioError(f"{where}: scale {spec.scale!r} gives a factor {factor}; give a finite, non-zero scale")
    return factor, target, offset


def _si_unit(quantity) -> str | None:
    """The SI unit (pint string) of a quantity of one of the dimensions of scenario files, or
    None for another dimension (a voltage stays in the column's unit)."""
    dims = quantity.dimensionality
    for spec in DIMENSIONS.values():
        if registry().parse_expression(spec.si).dimensionality == dims and spec.si != "dimensionless":
            return spec.si
    return None


def _lines(first_line: int | None, first: int, last: int) -> str:
    """``lines 12–15`` (CSV) or ``rows 8–11`` (a table without line numbers) of rows first…last."""
    word, base = ("row", 1) if first_line is None else ("line", first_line)
    return f"{word} {first + base}" if first == last else f"{word}s {first + base}–{last + base}"


def _on_grid(source, t, raw, columns, mappings, layout, first_line, window) -> MappedLog:
    """Window, gaps and jitter (module docstring): the samples on a uniform grid."""
    rows = np.arange(len(t))
    if window is not None:
        start, end = window
        filled = pd.Series(t).interpolate(limit_area="inside").to_numpy()
        keep = (filled >= start) & (filled <= end)
        if keep.sum() < 2:
            raise ParameterError(
                f"{source}: window {start:g}–{end:g} s keeps {keep.sum()} samples; the log runs "
                f"{np.nanmin(t):g}–{np.nanmax(t):g} s"
            )
        rows, t = rows[keep], t[keep]
        raw = {k: v[keep] for k, v in raw.items()}
    bad = ~np.isfinite(t)
    for v in raw.values():
        bad |= ~np.isfinite(v)
    gaps = _gap_runs(bad)
    for a, b in gaps:
        if a == 0 or b == len(t):
            raise ParameterError(
                f"{source}: {_lines(first_line, rows[a], rows[b - 1])} "
                "have empty or non-finite cells at an end of the log; cut them off with --window"
            )
        if b - a > layout.max_gap:
            count = f"{b - a} row{'s' if b - a > 1 else ''}"
            raise ParameterError(
                f"{source}: {_lines(first_line, rows[a], rows[b - 1])}: {count} with empty or "
                f"non-finite cells; fill gaps of up to {count} by linear interpolation with --max-gap "
                f"{b - a} (max_gap), or cut them out with --window"
            )
    valid = np.isfinite(t)
    tv, rv = t[valid], rows[valid]
    if len(tv) < MIN_SAMPLES:
        raise ParameterError(
            f"{source}: {len(tv)} samples with a time; a log needs at least {MIN_SAMPLES} (and an "
            "identification many more)"
        )
    steps = np.diff(tv)
    if np.any(~(steps > 0)):
        k = int(np.argmax(~(steps > 0)))
        raise ParameterError(
            f"{source}: time does not increase at {_lines(first_line, rv[k + 1], rv[k + 1])} ({tv[k + 1]:.6g} s "
            f"after {tv[k]:.6g} s); sort the log, remove repeated rows or cut with --window"
        )
    median = float(np.median(steps))
    with np.errstate(over="ignore"):
        whole = np.maximum(np.round(steps / median), 1.0)
    missing = whole - 1
    if not np.all(missing <= layout.max_gap):
        k = int(np.argmax(np.where(np.isfinite(missing), missing, np.inf)))
        where = (
            f"before {_lines(first_line, rv[k + 1], rv[k + 1])} (time jumps {steps[k]:.4g} s, the period is "
            f"{median:.4g} s)"
        )
        if not missing[k] < len(t):
            raise ParameterError(
                f"{source}: the time jumps {steps[k]:.4g} s before "
                f"{_lines(first_line, rv[k + 1], rv[k + 1])}, more samples than the log holds (the "
                f"period is {median:.4g} s): cut the jump out with --window or fix the time column"
            )
        raise ParameterError(
            f"{source}: {missing[k]:.0f} samples are missing {where}; fill them with --max-gap "
            f"{missing[k]:.0f} (max_gap) or cut them out with --window"
        )
    index = np.concatenate([[0.0], np.cumsum(whole)])
    period, start = np.polyfit(index, tv, 1)
    deviation = np.abs(tv - (start + period * index)) / period
    if deviation.max() > JITTER_LIMIT:
        k = int(np.argmax(deviation))
        raise ParameterError(
            f"{source}: the sample at {_lines(first_line, rv[k], rv[k])} (t = {tv[k]:.6g} s) is "
            f"{100 * deviation[k]:.0f} % of a period ({period * 1e3:.4g} ms) off the uniform grid, beyond the "
            f"{100 * JITTER_LIMIT:.0f} % that is resampled; the clock jumped or two logs were joined: cut the log "
            "with --window"
        )
    notes = [f"{_lines(first_line, rows[a], rows[b - 1])} (empty cells)" for a, b in gaps]
    notes += [
        f"{int(m)} missing samples before {_lines(first_line, rv[k + 1], rv[k + 1])}"
        for k, m in enumerate(missing)
        if m
    ]
    values = dict(raw)
    resampled = bool(deviation.max() > UNIFORM or missing.any() or gaps)
    if resampled:
        grid = start + period * np.arange(int(index[-1]) + 1)
        for name, v in raw.items():
            ok = np.isfinite(v) & np.isfinite(t)
            values[name] = np.interp(grid, t[ok], v[ok])
        t = grid
    mappings = [
        m
        if m.quantity not in values
        else Mapping(
            **{**m.__dict__, "low": float(np.min(values[m.quantity])), "high": float(np.max(values[m.quantity]))}
        )
        for m in mappings
    ]
    return MappedLog(
        source,
        t,
        values,
        columns,
        mappings,
        len(rows),
        first_line,
        period,
        float(deviation.max()),
        float(np.sqrt(np.mean(deviation**2))),
        resampled,
        notes,
        window,
        "t" if layout.sample_rate is None else f"{layout.sample_rate:g} Hz",
    )


def _gap_runs(bad: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) of each run of True in ``bad``."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], bad.astype(int), [0]])))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist()))


def describe(log: MappedLog, display: dict[str, tuple[str, float]] | None = None) -> list[str]:
    """What was read, for ``--dry-run``: columns, mapping, time, jitter, gaps; ``display`` maps a
    quantity to (unit, factor from its unit) for its range (e.g. ("MPa", 1e-6))."""
    display = display or {}
    lines_read = (
        ""
        if log.first_line is None
        else f" (lines {log.first_line}–{log.first_line + log.rows - 1})"
        if log.window is None
        else ""
    )
    out = [f"{log.source}: {log.rows} rows{lines_read}; columns {', '.join(log.columns)}"]
    for m in log.mappings:
        how = (
            f"{m.unit or '(no unit)'}"
            + (f" × {m.scale}" if m.scale != 1.0 else "")
            + (f", offset {m.offset:g}" if m.offset else "")
        )
        span = ""
        if m.quantity in log.values:
            unit, factor = display.get(m.quantity, (m.target, 1.0))
            span = f"  range {m.low * factor:.4g} … {m.high * factor:.4g} {unit}"
        out.append(f"  {m.quantity:<10} ← {m.column:<16} {how} → {m.target} (×{m.factor:.6g}){span}")
    if log.ignored:
        out.append(f"  ignored columns: {', '.join(log.ignored)}")
    duration = log.t[-1] - log.t[0]
    period = (log.t[-1] - log.t[0]) / (len(log.t) - 1)
    window = "" if log.window is None else f", window {log.window[0]:g}–{log.window[1]:g} s"
    out.append(
        f"  time ({log.time_source}): {log.t[0]:.6g}–{log.t[-1]:.6g} s ({duration:.6g} s{window}), "
        f"{len(log.t)} samples, period {period * 1e3:.6g} ms ({1 / period:.6g} Hz)"
    )
    out.append(
        f"  jitter: max {100 * log.jitter_max:.3g} %, rms {100 * log.jitter_rms:.3g} % of a period; "
        + ("resampled onto a uniform grid by linear interpolation" if log.resampled else "used as logged")
    )
    out.append("  gaps: " + ("; ".join(log.gaps) + ", filled by linear interpolation" if log.gaps else "none"))
    return out

"""Result tables and summaries on disk: Parquet with units, CSV, JSON; every write is atomic.

A time-series table has one row per sample, column ``t`` [s] first, then one column per
channel. A table to write is a pandas DataFrame or, where a command should not pay pandas'
import, its columns: a mapping name → 1-D array, all of one length (:data:`Table`); the Parquet
file is the same. In Parquet each column's unit (and optionally its plot label) is stored in the Arrow
field metadata under the keys ``b"unit"`` and ``b"label"``, so a table read back carries
its units without a side file.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Union

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import ParameterError
from .atomic import atomic_path, atomic_write_text

if TYPE_CHECKING:  # pandas loads where a DataFrame is read or built, not to write a table of columns
    import pandas as pd

UNIT_KEY = b"unit"
LABEL_KEY = b"label"

Table = Union["pd.DataFrame", Mapping[str, np.ndarray]]
"""A result table: a DataFrame, or its columns (name → 1-D array of one length, ``t`` first)."""


def column_names(table: Table) -> list[str]:
    """The table's column names, in order."""
    return [str(c) for c in table.keys()]


def row_count(table: Table) -> int:
    """The table's number of rows."""
    if isinstance(table, Mapping):
        return len(next(iter(table.values()))) if table else 0
    return len(table)


def as_dataframe(table: Table) -> pd.DataFrame:
    """The table as a DataFrame (a DataFrame is returned as it is)."""
    if not isinstance(table, Mapping):
        return table
    import pandas as pd

    return pd.DataFrame({name: np.asarray(values) for name, values in table.items()})


def write_table(
    df: Table,
    path: str | os.PathLike[str],
    units: Mapping[str, str],
    labels: Mapping[str, str] | None = None,
    durable: bool = True,
) -> None:
    """Write ``df`` to Parquet at ``path`` atomically, with each column's unit and label.

    Parameters
    ----------
    df
        Table with string column names (a DataFrame, whose index is not written, or its columns).
    path
        Target ``.parquet`` file.
    units
        Column name → unit string (``"s"``, ``"N"``, ``"rad/s"``; ``""`` or ``"1"`` for a
        dimensionless column). Every column needs one.
    labels
        Column name → label for plots, for any subset of the columns.
    durable
        fsync the write (see :mod:`actuatorlab.io.atomic`).

    Raises
    ------
    ValueError
        If a column has no unit, or ``units``/``labels`` name a column that ``df`` lacks.
    """
    labels = {} if labels is None else labels
    _check_columns(df, units, "units", require_all=True)
    _check_columns(df, labels, "labels", require_all=False)
    if isinstance(df, Mapping):
        table = pa.Table.from_arrays([_arrow_column(v) for v in df.values()], names=column_names(df))
    else:
        table = pa.Table.from_pandas(df, preserve_index=False, nthreads=1)  # result tables are small: threads cost more
    fields = []
    for fld in table.schema:
        meta = {UNIT_KEY: units[fld.name].encode()}
        if fld.name in labels:
            meta[LABEL_KEY] = labels[fld.name].encode()
        fields.append(fld.with_metadata(meta))
    # the same columns under the annotated schema (Table.cast would import pyarrow.compute: 60 ms)
    table = pa.Table.from_arrays(table.columns, schema=pa.schema(fields, metadata=table.schema.metadata))
    with atomic_path(path, durable) as tmp:
        pq.write_table(table, tmp)


def _arrow_column(values) -> pa.Array:
    """A 1-D numeric or text column as an Arrow array built from buffers (``pa.array`` would import
    pandas to check what it was given: a quarter of a short command's start-up); any other
    column through ``pa.array``."""
    array = np.asarray(values)
    if array.ndim == 1 and array.dtype.kind in "fiu" and array.dtype.isnative:
        array = np.ascontiguousarray(array)
        kind = pa.from_numpy_dtype(array.dtype)
        missing = np.isnan(array) if array.dtype.kind == "f" else None
        if missing is None or not missing.any():
            return pa.Array.from_buffers(kind, len(array), [None, pa.py_buffer(array)])
        # NaN is written as null, as pandas' conversion writes it
        validity = pa.py_buffer(np.packbits(~missing, bitorder="little"))
        return pa.Array.from_buffers(kind, len(array), [validity, pa.py_buffer(array)], null_count=int(missing.sum()))
    if array.ndim == 1 and (
        array.dtype.kind == "U" or (array.dtype == object and all(isinstance(v, str) for v in array))
    ):
        encoded = [str(v).encode() for v in array]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        return pa.Array.from_buffers(
            pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
        )
    return pa.array(array)


def read_table(path: str | os.PathLike[str]) -> tuple[pd.DataFrame, dict[str, str]]:
    """Read a Parquet table; return it and its units (column → unit, ``""`` where none stored)."""
    table = pq.read_table(path)
    return table.to_pandas(), _field_metadata(table.schema, UNIT_KEY)


DELIMITERS = (",", ";", "\t", "|")
"""Column delimiters a CSV log may use; without one given, the header line's most frequent wins."""
TEXT_LOGS = (".csv", ".tsv", ".txt", ".dat", ".log")
"""Suffixes of delimited-text logs (what loggers name them); read as CSV with their delimiter."""


def read_log(
    path: str | os.PathLike[str], header_row: int = 1, skip_rows: int = 0, delimiter: str | None = None
) -> tuple[pd.DataFrame, dict[str, str]]:
    """A logged table from Parquet or delimited text (CSV and the other :data:`TEXT_LOGS`), and
    its units (column → unit, ``""`` where none).

    Text: ``header_row`` is the line (from 1) holding the column names, the lines above it
    (a logger's metadata) are skipped, and so are ``skip_rows`` lines below it (a units row);
    ``delimiter`` None picks the one of :data:`DELIMITERS` the header line uses most. Headers
    may carry the unit in brackets (``p_plus1 [Pa]``); the bracket is stripped from the column
    name. Raises ``ParameterError`` naming the file for a missing, unreadable or unsupported
    file.
    """
    path = Path(path)
    if not path.exists():
        raise ParameterError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix != ".parquet" and suffix not in TEXT_LOGS:
        raise ParameterError(
            f"{path}: read a delimited-text log ({', '.join(TEXT_LOGS)}) or Parquet (.parquet); "
            "export the logger's file as one of them"
        )
    if suffix == ".parquet" and (header_row, skip_rows) != (1, 0):
        raise ParameterError(f"{path}: a Parquet log has no header lines to skip; leave header_row and skip_rows out")
    try:
        if suffix == ".parquet":
            return read_table(path)
        if delimiter is None:
            delimiter = _sniff_delimiter(path, header_row)
        import pandas as pd

        df = (
            pd.read_csv(path, sep=delimiter, skiprows=range(header_row - 1), header=0)
            .iloc[skip_rows:]
            .reset_index(drop=True)
        )
    except (OSError, ValueError, pa.ArrowException) as error:
        reason = " ".join(str(error).split())
        text = suffix != ".parquet"
        hint = "the header line (header_row), the delimiter or " if text else ""
        raise ParameterError(
            f"{path}: cannot be read as {'delimited text' if text else 'parquet'} ({reason}); check {hint}the file"
        ) from None
    names = [str(c).partition("[")[0].strip() for c in df.columns]
    units = {name: str(c).partition("[")[2].rstrip("]").strip() for name, c in zip(names, df.columns)}
    df.columns = names
    return df, units


def _sniff_delimiter(path: Path, header_row: int) -> str:
    """The delimiter of :data:`DELIMITERS` that line ``header_row`` of ``path`` holds most often."""
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if number == header_row:
                return max(DELIMITERS, key=line.count)
    raise ParameterError(
        f"{path}: has fewer than {header_row} lines, so line {header_row} cannot be the header; "
        "give the line that holds the column names as header_row"
    )


def numeric_columns(df: pd.DataFrame, columns: list[str], source: str | os.PathLike[str]) -> np.ndarray:
    """``df[columns]`` as a float array of shape (rows, len(columns)).

    Raises ``ParameterError`` naming ``source`` for a table without rows, and for the first
    cell that is not a number, with its column and its line in a CSV file (header = line 1).
    """
    if len(df) == 0:
        raise ParameterError(f"{source}: the table has a header but no rows; log at least one sample")
    import pandas as pd

    block = df[columns].apply(pd.to_numeric, errors="coerce")
    bad = block.isna() & df[columns].notna()
    if bad.to_numpy().any():
        row, col = np.argwhere(bad.to_numpy())[0]
        raise ParameterError(
            f"{source}: column {columns[col]} holds {df[columns[col]].iloc[row]!s:.40} at data row "
            f"{row + 1} (line {row + 2} of a CSV file), not a number; fix or remove that row"
        )
    return block.to_numpy(float)


def read_labels(path: str | os.PathLike[str]) -> dict[str, str]:
    """Column → plot label of a Parquet table (``""`` where none); reads the schema only."""
    return _field_metadata(pq.read_schema(path), LABEL_KEY)


def write_csv(df: Table, path: str | os.PathLike[str], units: Mapping[str, str]) -> None:
    """Write ``df`` (a DataFrame or its columns) as CSV atomically, with header cells ``name [unit]``.

    A column whose unit is ``""`` gets the bare name. Floats are written with full precision
    (they round-trip exactly); the index is not written.

    Raises
    ------
    ValueError
        If a column has no unit, or ``units`` names a column that ``df`` lacks.
    """
    _check_columns(df, units, "units", require_all=True)
    names = column_names(df)
    header = [f"{name} [{units[name]}]" if units[name] else name for name in names]
    atomic_write_text(path, as_dataframe(df).to_csv(index=False, header=header, lineterminator="\n"))


def write_json(path: str | os.PathLike[str], obj: object, durable: bool = True) -> None:
    """Write ``obj`` as JSON atomically (fsynced if ``durable``): sorted keys, indent 2, UTF-8, trailing newline.

    numpy scalars become Python numbers, numpy arrays nested lists, tuples lists and mapping
    keys strings; non-finite floats (NaN, ±inf), which JSON cannot represent, become ``null``.

    Raises
    ------
    TypeError
        If ``obj`` contains a value of another type (the message names the type).
    """
    text = json.dumps(_jsonable(obj), sort_keys=True, indent=2, allow_nan=False, ensure_ascii=False)
    atomic_write_text(path, text + "\n", durable=durable)


def _check_columns(df: Table, mapping: Mapping[str, str], what: str, *, require_all: bool) -> None:
    """Raise ``ValueError`` if ``mapping`` names unknown columns or, if required, misses some."""
    columns = column_names(df)
    unknown = sorted(set(mapping) - set(columns))
    if unknown:
        raise ValueError(f"{what} name columns not in the table: {unknown}; columns are {columns}")
    missing = [c for c in columns if c not in mapping]
    if require_all and missing:
        raise ValueError(f"{what} missing for columns {missing}: give every column one")


def _field_metadata(schema: pa.Schema, key: bytes) -> dict[str, str]:
    """Column name → decoded field metadata value under ``key`` (``""`` if absent)."""
    return {f.name: (f.metadata or {}).get(key, b"").decode() for f in schema}


def _jsonable(obj: object) -> object:
    """``obj`` with numpy values, tuples and non-finite floats converted for :mod:`json`."""
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    raise TypeError(f"cannot write {type(obj).__name__} to JSON: convert it to a number, str, list or dict")

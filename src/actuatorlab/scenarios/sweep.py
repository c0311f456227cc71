"""Run the variants of a scenario on Dask and collect them into a Parquet dataset.

Layout of a sweep directory::

    sweep.json              the scenario (resolved TOML) and every variant's overrides
    variants/00000.parquet  the results table of variant 0 (units in the column metadata)
    variants/00000.json     its record: status, error, wall time, every summary figure
    index.parquet           one row per variant: id, parameter values (SI units), status, wall
                            time, error and the summary figures (written when the sweep ends)
    report.html, sweep_*.png  chosen key figures against the varied parameters

A variant's record is written last and atomically, so it marks a complete variant: ``resume``
skips variants whose record is valid JSON and whose table's Parquet footer is readable with the
row count the record gives (a failed variant counts as complete, its error kept), removes the
temporary files of writes a killed process left, and runs the rest. A variant that raises is
recorded with its error and does not stop the sweep; an interrupted sweep (Ctrl-C, a killed
process) leaves complete variants only. Variant files are written without ``fsync`` (parallel
workers' fsyncs queue on the file system's journal and cost a fifth of the speed-up of two
workers); after a power loss, the validation above sends any file the crash damaged to be run
again. The manifest and the index are fsynced.

The engine is ``dask.distributed``: by default a ``LocalCluster`` of worker processes bound to
127.0.0.1, one thread each, as many as the machine has cores; or an existing cluster given by
its scheduler address (``dask scheduler`` then ``dask worker tcp://HOST:8786`` on each machine).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import ScenarioError
from ..io.atomic import atomic_write_text
from ..io.results import write_json, write_table
from .loading import parse_scenario, scenario_to_toml
from .sweep_report import figure_keys, write_sweep_report
from .variants import Variant, with_values

RECORDS = "variants"
MANIFEST = "sweep.json"
INDEX = "index.parquet"
MAX_BATCH = 25
TASKS_PER_SLOT = 8
"""Variants go to the workers in batches (one task each) of up to MAX_BATCH, about TASKS_PER_SLOT
tasks per worker thread, so the scheduler's per-task cost is shared and the load still balances."""


@dataclass(frozen=True)
class SweepResult:
    """The index table (one row per variant) and run figures of a sweep."""

    index: pd.DataFrame
    ran: int
    skipped: int
    wall_time_s: float
    startup_s: float = 0.0
    """Of ``wall_time_s``: starting or connecting to the cluster and loading actuatorlab in the workers."""
    variants_s: float = 0.0
    """Of ``wall_time_s``: from handing the variants to the workers until the last one returned."""


def run_variant(data: dict, out_dir: str, variant_id: int) -> dict:
    """Run one variant (scenario data, SI) and write its table and record; returns the record.

    Runs in a worker process. Any exception becomes a ``failed`` record naming it.
    """
    from .runner import kind_module  # the scenario kinds import plotting; load them in the worker

    start = time.perf_counter()
    folder = Path(out_dir) / RECORDS
    record: dict = {"variant": variant_id}
    try:
        scenario = parse_scenario(data, f"variant {variant_id}")
        output = kind_module(scenario.kind).run(scenario)
        write_table(output.table, folder / f"{variant_id:05d}.parquet", output.units, output.labels, durable=False)
        record.update(status="ok", error="", rows=len(output.table), summary=output.summary_dict(),
                      units={f.key: f.unit for f in output.summary})
    except Exception as error:  # noqa: BLE001 (a failing variant is recorded, the sweep goes on)
        record.update(status="failed", error=f"{type(error).__name__}: {error}")
    record["wall_time_s"] = time.perf_counter() - start
    write_json(folder / f"{variant_id:05d}.json", record, durable=False)
    return record


def run_batch(base: dict, out_dir: str, variants: list[Variant]) -> list[dict]:
    """``run_variant`` for several variants of the scenario data ``base`` (SI) in one task: fewer,
    larger tasks cost the scheduler less, and the base travels to each worker once."""
    return [run_variant(with_values(base, v), out_dir, v.id) for v in variants]


def batch_size(variants: int, slots: int) -> int:
    """Variants per task: about eight tasks per worker slot, at most ``MAX_BATCH``, at least 1."""
    return max(1, min(MAX_BATCH, variants // (TASKS_PER_SLOT * max(slots, 1))))


def _manifest(scenario, variants: list[Variant]) -> dict:
    return {
        "scenario_toml": scenario_to_toml(scenario),
        "variants": [{"id": v.id, "overrides": v.overrides} for v in variants],
    }


def _existing_sweep(out_dir: Path, manifest: dict, resume: bool) -> bool:
    """Whether ``out_dir`` holds this sweep already (to resume); raises if it holds another, or
    this one without ``resume``. Writes nothing."""
    path = out_dir / MANIFEST
    if not path.exists():
        return False
    if not resume:
        raise ScenarioError(f"--out {out_dir}: holds a sweep already; add --resume to finish it or choose "
                            "another directory")
    if json.loads(path.read_text(encoding="utf-8")) != json.loads(json.dumps(manifest)):
        raise ScenarioError(f"--out {out_dir}: holds a different sweep (scenario or variants differ); "
                            "resume it with the same arguments or choose another directory")
    for partial in (out_dir / RECORDS).glob(".*.tmp*"):
        partial.unlink()  # a write cut short by a killed process (atomic writes never leave more)
    return True


def _start_sweep(out_dir: Path, manifest: dict) -> None:
    """Create the sweep directory and its manifest."""
    try:
        (out_dir / RECORDS).mkdir(parents=True, exist_ok=True)
        atomic_write_text(out_dir / MANIFEST, json.dumps(manifest, indent=1))
    except OSError as exc:
        raise ScenarioError(f"--out {out_dir}: cannot write the sweep there ({exc.strerror or exc}); "
                            "choose a folder you can write") from None


def _complete_variants(out_dir: Path) -> set[int]:
    """The ids of the variants whose records in ``out_dir`` are complete."""
    return {variant for variant in map(_complete_variant, (out_dir / RECORDS).glob("*.json")) if variant is not None}


def _complete_variant(record: Path) -> int | None:
    """The id of the variant ``record`` describes if it is complete and valid, else None."""
    try:
        content = json.loads(record.read_text(encoding="utf-8"))
        if content.get("status") == "failed":
            return int(content["variant"])
        rows = pq.read_metadata(record.with_suffix(".parquet")).num_rows
        return int(content["variant"]) if rows == content.get("rows") else None
    except (OSError, ValueError, KeyError, pa.ArrowException):
        return None  # damaged or missing: run the variant again


SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")


def check_engine(workers: int | None, scheduler: str | None) -> None:
    """Refuse a worker count below 1 or a scheduler that is not an address, before anything runs."""
    if workers is not None and workers < 1:
        raise ScenarioError(f"--workers {workers}: give at least 1 local worker process (default: one per core)")
    if scheduler is not None:
        parts = urlsplit(scheduler)
        try:
            port = parts.port
        except ValueError:
            port = None
        if parts.scheme not in SCHEDULER_SCHEMES or not parts.hostname or port is None:
            raise ScenarioError(f"--scheduler {scheduler}: not a scheduler address; write SCHEME://HOST:PORT, e.g. "
                                "tcp://127.0.0.1:8786 (the address `dask scheduler` prints)")


def _client(workers: int | None, scheduler: str | None):
    from dask.distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout="10s"), None
        except (OSError, ValueError) as error:
            raise ScenarioError(f"--scheduler {scheduler}: cannot connect ({error}); start one with "
                                "`dask scheduler` and workers with `dask worker ADDRESS`") from None
    n = workers or os.cpu_count() or 1
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None)
    return Client(cluster), cluster


def run_sweep(
    scenario,
    variants: list[Variant],
    out_dir: str | os.PathLike,
    workers: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    figures: list[str] | None = None,
    sampled: bool = False,
) -> SweepResult:
    """Run ``variants`` of ``scenario`` on Dask into ``out_dir``; see the module docstring.

    ``progress(done, total)`` is called as variants complete (skipped ones count as done).
    ``figures``: the key figures the report plots (default: the first few); ``sampled``: the
    variants are Monte Carlo samples (histograms) rather than a grid.
    """
    if not variants:
        raise ScenarioError("no variants to run; give --grid PATH=VALUES or --samples N with --vary")
    check_engine(workers, scheduler)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ScenarioError(f"--out {out}: exists and is not a directory; name a directory")
    manifest = _manifest(scenario, variants)
    started = _existing_sweep(out, manifest, resume)
    done = _complete_variants(out) if started else set()
    pending = [v for v in variants if v.id not in done]
    report = progress or (lambda finished, total: None)
    report(len(done), len(variants))
    start = time.perf_counter()
    startup = phase = 0.0
    if pending:
        from dask.distributed import as_completed

        client, cluster = _client(workers, scheduler)  # a cluster that cannot be had leaves no sweep behind
        try:
            if not started:
                _start_sweep(out, manifest)
            client.run(_load_kind, scenario.kind)
            startup = time.perf_counter() - start
            size = batch_size(len(pending), sum(client.nthreads().values()))
            batches = [pending[i : i + size] for i in range(0, len(pending), size)]
            phase_start = time.perf_counter()
            base = client.scatter(scenario.model_dump(), broadcast=True)
            folder = os.fspath(out.resolve())
            futures = [client.submit(run_batch, base, folder, batch, pure=False) for batch in batches]
            finished = len(done)
            for future in as_completed(futures):
                finished += len(future.result())
                report(finished, len(variants))
            phase = time.perf_counter() - phase_start
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    index = collect_index(out, variants)
    parameters = [p for p in variants[0].values if len({v.values[p] for v in variants}) > 1] or list(variants[0].values)
    keys = figure_keys(index, parameters, figures)
    wall = time.perf_counter() - start
    write_sweep_report(out, scenario, index, parameters, keys, sampled, wall, scenario_to_toml(scenario))
    return SweepResult(index, len(pending), len(done), wall, startup, phase)


def _load_kind(kind: str) -> None:
    """Import the module of the sweep's scenario kind in a worker before its first variant."""
    from .runner import kind_module

    kind_module(kind)


def collect_index(out_dir: str | os.PathLike, variants: list[Variant]) -> pd.DataFrame:
    """Build and write ``index.parquet`` from the variant records (missing ones: status ``missing``)."""
    out = Path(out_dir)
    rows, units = [], {"variant": "", "status": "", "error": "", "wall_time_s": "s"}
    for variant in variants:
        path = out / RECORDS / f"{variant.id:05d}.json"
        record = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        units.update(record.get("units", {}))
        rows.append({"variant": variant.id, **variant.values, "status": record.get("status", "missing"),
                     "error": record.get("error", ""), "wall_time_s": record.get("wall_time_s"),
                     **record.get("summary", {})})
    index = pd.DataFrame(rows)
    units.update({path: "SI" for path in variants[0].values})
    write_table(index, out / INDEX, {c: units.get(c, "") for c in index.columns})
    return index

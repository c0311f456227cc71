"""Run the variants of a scenario on Dask and collect them into one Parquet index.

Layout of a sweep directory::

    sweep.json                 the scenario (resolved TOML), the varied paths, a digest of the
                               variants' values, the variants whose series are kept
    batches/0000000.parquet    batched kinds: one row per variant of the batch starting at
                               variant 0 (status, error, wall time, every key figure)
    batches/0000000.envelope.parquet   its sketch of the main signals (``sweep_envelopes``)
    series/0000017.parquet     the results table of a kept variant (as ``actuatorlab run`` writes it)
    variants/00000.parquet     other kinds: the results table of variant 0, and
    variants/00000.json        its record (status, error, wall time, every key figure)
    index.parquet              one row per variant: id, parameter values (SI), status, wall time,
                               error and the key figures (written when the sweep ends)
    envelopes.parquet          5/50/95 % envelopes of the main signals over the variants
    report.html, sweep_*.png   chosen key figures against the varied parameters, the envelopes

Variants of a kind with batch support (a ``batch`` module in :data:`.kinds.KINDS`: the arm
kinds, quasistatic model, varying fields that keep the time grid) run as batches through one compiled call each; a
batch writes its kept series, then its sketch, then its table, each atomically: the table marks
the batch complete. Other kinds run one Python call per variant and write a table and a record
per variant, the record last (it marks the variant complete).

``resume`` keeps the batches whose table (and sketch) has a readable Parquet footer and the
variants whose record is valid JSON with a readable table of the row count it gives (a failed
variant counts as complete, its error kept); it removes the temporary files of writes a killed
process left and the files of batches that did not complete, and runs the rest, so every
variant is in the index once. A variant that raises is recorded with its error and does not
stop the sweep; one stopped by something outside its scenario (a full disk, no memory, a lost
worker; ``sweep_outcomes``) is left for ``resume``, and the sweep then raises, counting them.
Sweep files are written without ``fsync`` (parallel workers' fsyncs queue on
the file system's journal and cost a fifth of the speed-up of two workers); after a power
loss, the validation above sends any file the crash damaged to be run again. The manifest
and the index are fsynced.

The engine (``sweep_engines``): local workers are processes forked from this one after it has
loaded the kind and its compiled kernels (a start in milliseconds; while they run, this one
imports pandas and the report's plotting, which the workers do not need: they write their
batch tables from columns); where forking is not allowed
(not Linux, or a process with threads) a Dask ``LocalCluster`` of worker processes on 127.0.0.1,
started by Dask's configured method (spawn: forking a process with threads can deadlock the
child), each loading the kind before its first task;
or an existing Dask cluster given by its scheduler address (``dask scheduler`` then ``dask worker
tcp://HOST:8786`` on each machine).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import ScenarioError, needs_extras
from ..io.atomic import atomic_write_text
from ..io.forked import fork_allowed
from ..io.output_target import refuse_foreign
from ..io.results import row_count, write_json, write_table
from .kinds import KINDS
from .loading import parse_scenario, scenario_to_toml
from .sweep_engines import Task, WorkerLost, dask_client, run_forked, run_on_dask
from .sweep_envelopes import LEVELS, RANKS, mixture_quantiles, sketch
from .sweep_outcomes import INTERRUPTED, LOST_WORKER, OUTSIDE, Tally, explained, incomplete_message, reason
from .variants import Variants, with_values

if TYPE_CHECKING:  # pandas and the report's plotting load in the command while its workers run
    import pandas as pd

RECORDS = "variants"
BATCHES = "batches"
SERIES = "series"
MANIFEST = "sweep.json"
INDEX = "index.parquet"
ENVELOPES = "envelopes.parquet"
ENVELOPE_POINTS = 200
"""Times (spread evenly over the run, on its samples) at which the envelopes are taken."""
MAX_BATCH = 25
MAX_BATCHED = 5000
TASKS_PER_SLOT = 8
BATCHED_TASKS_PER_SLOT = 4
"""Variants go to the workers in batches (one task each) of up to MAX_BATCH (one Python call per
variant) or MAX_BATCHED (batched kinds), about TASKS_PER_SLOT (BATCHED_TASKS_PER_SLOT) tasks per
worker thread, so the scheduler's per-task cost is shared and the load still balances."""
RECORD_UNITS = {"variant": "", "status": "", "error": "", "wall_time_s": "s"}


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
    batched: bool = False
    """Whether the variants ran in compiled batches (series kept in ``series/``) or one by one."""
    envelopes: pd.DataFrame | None = None
    """Batched sweeps: t and the 5/50/95 % envelopes of the main signals (``{signal}_q05`` …)."""


def run_variant(data: dict, out_dir: str, variant_id: int) -> Tally:
    """Run one variant (scenario data, SI) and write its table and record; returns its tally.

    Runs in a worker process. An exception of the scenario becomes a ``failed`` record naming
    it; one from outside it (``sweep_outcomes.OUTSIDE``: a full disk, no memory) an
    ``interrupted`` record, if that can be written, and the tally's reason.
    """
    from .runner import kind_module  # the scenario kinds import plotting; load them in the worker

    start = time.perf_counter()
    folder = Path(out_dir) / RECORDS
    record: dict = {"variant": variant_id}
    try:
        scenario = parse_scenario(data, f"variant {variant_id}")
        output = kind_module(scenario.kind).run(scenario)
        write_table(output.table, folder / f"{variant_id:05d}.parquet", output.units, output.labels, durable=False)
        record.update(
            status="ok",
            error="",
            rows=row_count(output.table),
            summary=output.summary_dict(),
            units={f.key: f.unit for f in output.summary},
        )
    except OUTSIDE as error:
        record.update(status=INTERRUPTED, error=reason(error))
    except Exception as error:  # noqa: BLE001 (a failing variant is recorded, the sweep goes on)
        record.update(status="failed", error=f"{type(error).__name__}: {error}")
    record["wall_time_s"] = time.perf_counter() - start
    try:
        write_json(folder / f"{variant_id:05d}.json", record, durable=False)
    except OUTSIDE as error:  # no record: --resume runs the variant again
        if record["status"] != INTERRUPTED:
            record.update(status=INTERRUPTED, error=reason(error))
    if record["status"] == INTERRUPTED:
        return Tally(0, {record["error"]: 1})
    return Tally(1)


def run_batch(base: dict, out_dir: str, variants: Variants) -> Tally:
    """``run_variant`` for several variants of the scenario data ``base`` (SI) in one task: fewer,
    larger tasks cost the scheduler less."""
    tally = Tally()
    for i, variant_id in enumerate(variants.ids):
        tally.add(run_variant(with_values(base, variants.row(i)), out_dir, int(variant_id)))
    return tally


def batch_module(kind: str):
    """The module of ``kinds`` with ``batch_support`` and ``run_batch`` for ``kind`` (one that has a
    compiled batch path, ``KINDS[kind].batch``)."""
    with needs_extras(f"the {kind} kind"):
        return importlib.import_module(f"{__package__}.kinds.{KINDS[kind].batch}")


def batch_name(first_id: int) -> str:
    """File stem of the batch whose first variant is ``first_id``."""
    return f"{first_id:07d}"


def run_compiled_batch(base: dict, out_dir: str, variants: Variants, keep: frozenset[int]) -> Tally:
    """Run ``variants`` of the scenario data ``base`` (SI; a batched kind) through one compiled
    call and write the batch: the kept variants' series, the sketch of the main signals, then
    the table that marks it complete. Runs in a worker; an unexpected error of the scenario
    fails the batch's variants with it; one from outside it (``sweep_outcomes.OUTSIDE``) leaves
    the batch without its table (``--resume`` runs it again) and is the tally's reason."""
    start = time.perf_counter()
    folder = Path(out_dir)
    name = batch_name(int(variants.ids[0]))
    try:
        scenario = parse_scenario(base, "the swept scenario")
        output = batch_module(scenario.kind).run_batch(scenario, variants, keep, ENVELOPE_POINTS)
        errors, figures, units = output.errors, output.figures, output.units
    except OUTSIDE as error:
        return Tally(0, {reason(error): len(variants)})
    except Exception as error:  # noqa: BLE001 (a failing batch is recorded, the sweep goes on)
        output, figures, units = None, {}, {}
        errors = [f"{type(error).__name__}: {error}"] * len(variants)
    wall_time = np.full(len(variants), (time.perf_counter() - start) / len(variants))
    table = {
        "variant": variants.ids.astype(np.int64),
        "status": ["failed" if e else "ok" for e in errors],
        "error": errors,
        "wall_time_s": wall_time,
        **figures,
    }  # columns: a worker does not load pandas
    try:
        if output is not None:
            for variant_id, result in output.series.items():
                write_table(
                    result.table,
                    folder / SERIES / f"{variant_id:07d}.parquet",
                    result.units,
                    result.labels,
                    durable=False,
                )
            ran = next(iter(output.envelopes.values())).shape[0] if output.envelopes else 0
            if ran:
                _write_sketch(folder / BATCHES / f"{name}.envelope.parquet", output)
        write_table(table, folder / BATCHES / f"{name}.parquet", {**RECORD_UNITS, **units}, durable=False)
    except OUTSIDE as error:  # the batch has no table: resume removes its other files and runs it again
        return Tally(0, {reason(error): len(variants)})
    return Tally(len(variants))


def _write_sketch(path: Path, output) -> None:
    """The batch's sketch: one row per (rank, envelope time), one column per signal."""
    points = output.envelope_times.size
    data = {"rank": np.repeat(RANKS, points), "t": np.tile(output.envelope_times, RANKS.size)}
    data.update({name: sketch(samples).reshape(-1) for name, samples in output.envelopes.items()})
    write_table(data, path, {"rank": "1", "t": "s", **output.envelope_units}, durable=False)


def batch_size(variants: int, slots: int, batched: bool = False) -> int:
    """Variants per task: a few tasks per worker slot, at most ``MAX_BATCH`` (``MAX_BATCHED``
    for batched kinds), at least 1."""
    per_slot, cap = (BATCHED_TASKS_PER_SLOT, MAX_BATCHED) if batched else (TASKS_PER_SLOT, MAX_BATCH)
    return max(1, min(cap, variants // (per_slot * max(slots, 1))))


def _manifest(scenario, variants: Variants, keep: Collection[int], batched: bool) -> dict:
    digest = hashlib.sha256(np.ascontiguousarray(variants.values).tobytes())
    digest.update(np.ascontiguousarray(variants.ids, dtype=np.int64).tobytes())
    return {
        "scenario_toml": scenario_to_toml(scenario),
        "paths": list(variants.paths),
        "variants": len(variants),
        "values_sha256": digest.hexdigest(),
        "layout": BATCHES if batched else RECORDS,
        "keep_series": sorted(int(k) for k in keep) if batched else "all",
    }


class SweepThere(ScenarioError):
    """The output folder holds a sweep that this one may not resume. Worded for Python
    (``out=``, ``resume=True``); :meth:`for_command_line` with the command's options."""

    def __init__(self, folder: Path, problem: str, python_remedy: str, command_remedy: str):
        self.folder, self.problem, self.command_remedy = folder, problem, command_remedy
        super().__init__(f"out={os.fspath(folder)!r}: {problem}; {python_remedy}")

    def for_command_line(self) -> str:
        """The message with the command's options (``--out``, ``--resume``)."""
        return f"--out {self.folder}: {self.problem}; {self.command_remedy}"


def _existing_sweep(out_dir: Path, manifest: dict, resume: bool) -> bool:
    """Whether ``out_dir`` holds this sweep already (to resume); raises if it holds another, or
    this one without ``resume``. Writes nothing."""
    path = out_dir / MANIFEST
    if not path.exists():
        return False
    try:
        held = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        held = exc
    if not isinstance(held, dict) or set(held) != set(manifest):  # left as it is: it describes the files beside it
        raise SweepThere(
            out_dir,
            f"its {MANIFEST} is damaged (not a sweep's manifest), so the sweep there cannot be resumed and is "
            "left as it is",
            "move the folder away or give another out= to run the sweep again",
            "move the folder away or choose another --out to run the sweep again",
        )
    if not resume:
        raise SweepThere(
            out_dir,
            "holds a sweep already",
            "pass resume=True to finish it, or give another out=",
            "add --resume to finish it or choose another directory",
        )
    if held != json.loads(json.dumps(manifest)):
        raise SweepThere(
            out_dir,
            "holds a different sweep (scenario, variants or kept series differ)",
            "resume it with the same arguments, or give another out=",
            "resume it with the same arguments or choose another directory",
        )
    return True


def _start_sweep(out_dir: Path, manifest: dict) -> None:
    """Create the sweep directory, its manifest first (what makes the folder a sweep's: a manifest
    that cannot be written leaves no folders of the sweep behind), then its subfolders."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out_dir / MANIFEST, json.dumps(manifest, indent=1))
        for folder in (RECORDS, BATCHES, SERIES):
            (out_dir / folder).mkdir(exist_ok=True)
    except OSError as exc:
        raise ScenarioError(
            f"--out {out_dir}: cannot write the sweep there ({exc.strerror or exc}); "
            "free space (or raise the file size limit) or choose a folder you can write"
        ) from None


def _remove_partial_writes(out_dir: Path) -> None:
    """Delete the temporary files of writes a killed process cut short (atomic writes leave no more)."""
    for folder in (RECORDS, BATCHES, SERIES):
        for partial in (out_dir / folder).glob(".*.tmp*"):
            partial.unlink()


def _complete_batches(out_dir: Path) -> dict[str, pd.DataFrame]:
    """Batch name → its table, for the complete batches in ``out_dir``; the files of incomplete
    ones (a sketch or series without their table, a damaged file) are removed to be run again."""
    folder = out_dir / BATCHES
    tables = {}
    for path in folder.glob("*.parquet"):
        if path.name.endswith(".envelope.parquet"):
            continue
        try:
            table = pq.read_table(path).to_pandas()
            if (table["status"] == "ok").any():
                pq.read_metadata(folder / f"{path.stem}.envelope.parquet")
            tables[path.stem] = table
        except (OSError, KeyError, pa.ArrowException):
            path.unlink(missing_ok=True)  # damaged: its variants run again
    for sketch_path in folder.glob("*.envelope.parquet"):
        if sketch_path.name.removesuffix(".envelope.parquet") not in tables:
            sketch_path.unlink()
    done = {int(v) for table in tables.values() for v in table["variant"]}
    for series in (out_dir / SERIES).glob("*.parquet"):
        if int(series.stem) not in done or not _readable(series):
            series.unlink()  # written by a batch that did not complete, or damaged
    return tables


def _readable(path: Path) -> bool:
    try:
        pq.read_metadata(path)
        return True
    except (OSError, pa.ArrowException):
        return False


def _complete_variants(out_dir: Path) -> set[int]:
    """The ids of the variants whose records in ``out_dir`` are complete."""
    return {variant for variant in map(_complete_variant, (out_dir / RECORDS).glob("*.json")) if variant is not None}


def _complete_variant(record: Path) -> int | None:
    """The id of the variant ``record`` describes if it is complete and valid, else None."""
    try:
        content = json.loads(record.read_text(encoding="utf-8"))
        if not isinstance(content, dict):
            return None  # overwritten: run the variant again
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
            raise ScenarioError(
                f"--scheduler {scheduler}: not a scheduler address; write SCHEME://HOST:PORT, e.g. "
                "tcp://127.0.0.1:8786 (the address `dask scheduler` prints)"
            )


def keep_set(variants: Variants, keep_series: int, keep_variants: Collection[int] = ()) -> frozenset[int]:
    """The ids of the variants whose time series a batched sweep keeps: the first ``keep_series``
    and ``keep_variants``; raises naming a negative count or an id not in the sweep."""
    if keep_series < 0:
        raise ScenarioError(
            f"--keep-series {keep_series}: give 0 or more (the number of variants whose time series "
            "are kept, the first ones)"
        )
    unknown = sorted(set(keep_variants) - set(map(int, variants.ids)))
    if unknown:
        raise ScenarioError(
            f"--keep-variant {unknown[0]}: no such variant; the ids run from "
            f"{int(variants.ids.min())} to {int(variants.ids.max())}"
        )
    return frozenset(map(int, np.sort(variants.ids)[:keep_series])) | frozenset(map(int, keep_variants))


def batched(scenario, variants: Variants) -> bool:
    """Whether ``variants`` of ``scenario`` run in compiled batches."""
    return KINDS[scenario.kind].batch and batch_module(scenario.kind).batch_support(scenario, variants.paths) is None


def run_sweep(
    scenario,
    variants: Variants,
    out_dir: str | os.PathLike,
    workers: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    figures: list[str] | None = None,
    keep: Collection[int] = (),
    report: bool = True,
    overwrite: bool = False,
) -> SweepResult:
    """Run ``variants`` of ``scenario`` on Dask into ``out_dir``; see the module docstring.

    ``progress(done, total)`` is called as variants complete (skipped ones count as done).
    ``figures``: the key figures the report plots (default: the first few); ``keep``: ids of
    the variants whose time series a batched sweep keeps (other kinds keep every variant's);
    ``report``: write ``report.html`` (a sensitivity analysis writes its own); ``overwrite``:
    write into a folder that holds other files than a sweep's (they stay), instead of refusing.
    """
    if not len(variants):
        raise ScenarioError("no variants to run; give --grid PATH=VALUES or --samples N with --vary")
    check_engine(workers, scheduler)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ScenarioError(f"{out} is a file, not a folder; choose a folder for the sweep")
    if not (out / MANIFEST).exists():
        refuse_foreign(out, (), overwrite, "a sweep", "the sweep's files are written beside them")
    in_batches = batched(scenario, variants)
    manifest = _manifest(scenario, variants, keep, in_batches)
    started = _existing_sweep(out, manifest, resume)
    if started:
        _remove_partial_writes(out)
    done = _done(out, in_batches) if started else set()
    pending = variants[~np.isin(variants.ids, np.fromiter(done, dtype=np.int64, count=len(done)))]
    tell = progress or (lambda finished, total: None)
    tell(len(variants) - len(pending), len(variants))
    start = time.perf_counter()
    startup = phase = 0.0
    if len(pending):
        base = scenario.model_dump()  # a few kB with each task (scattered data dies with a worker)
        folder = os.fspath(out.resolve())
        tally = Tally()

        def count(result: Tally) -> None:
            tally.add(result)
            tell(len(variants) - len(pending) + tally.done, len(variants))

        if scheduler is None:  # local workers are forked from here: load the kind (and its kernels) once
            _load_kind(scenario.kind, in_batches, base)
        try:
            if scheduler is None and fork_allowed():
                slots = workers or os.cpu_count() or 1
                if not started:
                    _start_sweep(out, manifest)
                startup = time.perf_counter() - start
                phase_start = time.perf_counter()
                run_forked(
                    _tasks(pending, slots, in_batches, base, folder, keep),
                    slots,
                    count,
                    meanwhile=_load_collecting_libraries,
                )
            else:
                client, cluster = dask_client(workers, scheduler)  # a cluster that cannot be had leaves no sweep
                try:
                    if not started:
                        _start_sweep(out, manifest)
                    client.run(_load_kind, scenario.kind, in_batches, base)
                    startup = time.perf_counter() - start
                    phase_start = time.perf_counter()
                    run_on_dask(
                        client, _tasks(pending, sum(client.nthreads().values()), in_batches, base, folder, keep), count
                    )
                finally:
                    client.close()
                    if cluster is not None:
                        cluster.close()
        except WorkerLost as lost:  # the variants of its unfinished tasks
            tally.stopped(f"{LOST_WORKER}, {lost}", len(pending) - tally.done)
        if tally.outside:
            raise ScenarioError(incomplete_message(tally, len(variants), out))
        phase = time.perf_counter() - phase_start
    try:
        index = collect_index(out, variants, in_batches)
        envelopes = collect_envelopes(out) if in_batches else None
        if report:
            from .sweep_report import figure_keys, write_sweep_report

            parameters = variants.varied()
            keys = figure_keys(index, parameters, figures)
            local_workers = (workers or os.cpu_count() or 1) if scheduler is None else 1  # asked for: they draw too
            write_sweep_report(
                out,
                scenario,
                index,
                parameters,
                keys,
                variants.sampled,
                time.perf_counter() - start,
                scenario_to_toml(scenario),
                envelopes,
                processes=min(local_workers, 2),
            )
    except OSError as error:
        raise ScenarioError(
            f"--out {out}: cannot write the sweep's index and report: {explained(reason(error))}; "
            "every variant is finished and kept: run the same command with --resume to write them"
        ) from None
    return SweepResult(
        index,
        len(pending),
        len(variants) - len(pending),
        time.perf_counter() - start,
        startup,
        phase,
        in_batches,
        envelopes,
    )


def _load_collecting_libraries() -> None:
    """Import what collecting the index and drawing the report need (pandas, matplotlib): done by
    the command while its forked workers run the variants, which need neither."""
    import pandas  # noqa: F401

    from . import sweep_report  # noqa: F401


def _tasks(
    pending: Variants, slots: int, in_batches: bool, base: dict, folder: str, keep: Collection[int]
) -> list[Task]:
    """The sweep's tasks for ``slots`` worker threads: batches of ``pending`` (see ``batch_size``)."""
    size = batch_size(len(pending), slots, in_batches)
    parts = [pending[i : i + size] for i in range(0, len(pending), size)]
    if in_batches:
        return [(run_compiled_batch, (base, folder, part, frozenset(keep))) for part in parts]
    return [(run_batch, (base, folder, part)) for part in parts]


def _done(out: Path, in_batches: bool) -> set[int]:
    if in_batches:
        return {int(v) for table in _complete_batches(out).values() for v in table["variant"]}
    return _complete_variants(out)


def _load_kind(kind: str, in_batches: bool, base: dict | None = None) -> None:
    """Import the module of the sweep's scenario kind in a worker before its first variant; for
    a batched sweep, run one variant of ``base`` too, so the compiled kernels are loaded (all
    workers at once) before the clock of the variants starts."""
    if in_batches:
        _base_batch(parse_scenario(base, "the swept scenario"))
        return
    from .runner import kind_module

    kind_module(kind)


def _base_batch(scenario):
    """The batch output of ``scenario`` itself (a batched kind) as its only variant."""
    return batch_module(scenario.kind).run_batch(scenario, Variants.of([], np.empty((1, 0))), (), ENVELOPE_POINTS)


def key_figures(scenario) -> list[str]:
    """The keys of the key figures a sweep of ``scenario`` records: of a run of the scenario itself
    (for a batched kind, a batch of it, which loads the kernels a sweep then uses)."""
    if KINDS[scenario.kind].batch and batch_module(scenario.kind).batch_support(scenario, ()) is None:
        return list(_base_batch(scenario).figures)
    from .runner import kind_module

    return [s.key for s in kind_module(scenario.kind).run(scenario).summary]


def collect_index(out_dir: str | os.PathLike, variants: Variants, in_batches: bool) -> pd.DataFrame:
    """Build and write ``index.parquet`` from the batch tables or the variant records (a variant
    in neither: status ``missing``)."""
    import pandas as pd

    out = Path(out_dir)
    frame = pd.DataFrame(
        {
            "variant": variants.ids.astype(np.int64),
            **{path: variants.values[:, i] for i, path in enumerate(variants.paths)},
        }
    )
    units = {**RECORD_UNITS, **{path: "SI" for path in variants.paths}}
    if in_batches:
        tables = [
            pq.read_table(path)
            for path in sorted((out / BATCHES).glob("*.parquet"))
            if not path.name.endswith(".envelope.parquet")
        ]
        for table in tables:
            units.update({f.name: (f.metadata or {}).get(b"unit", b"").decode() for f in table.schema})
        results = (
            pd.concat([t.to_pandas() for t in tables], ignore_index=True)
            if tables
            else pd.DataFrame(columns=list(RECORD_UNITS))
        )
    else:
        records = {int(v): _record(out, int(v)) for v in variants.ids}
        results = pd.DataFrame([_record_row(v, record) for v, record in records.items()])
        units.update({key: unit for record in records.values() for key, unit in record.get("units", {}).items()})
    results = results.drop_duplicates("variant")  # one row per variant, whatever a retried task wrote
    index = frame.merge(results, on="variant", how="left")
    index["status"] = index["status"].fillna("missing")
    index["error"] = index["error"].fillna("")
    write_table(index, out / INDEX, {c: units.get(c, "") for c in index.columns})
    return index


def _record(out: Path, variant_id: int) -> dict:
    path = out / RECORDS / f"{variant_id:05d}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _record_row(variant_id: int, record: dict) -> dict:
    return {
        "variant": variant_id,
        "status": record.get("status", "missing"),
        "error": record.get("error", ""),
        "wall_time_s": record.get("wall_time_s"),
        **record.get("summary", {}),
    }


def collect_envelopes(out_dir: str | os.PathLike) -> pd.DataFrame | None:
    """Merge the batches' sketches into ``envelopes.parquet`` (t, then ``{signal}_q05``, ``_q50``,
    ``_q95`` per main signal), weighting each batch by its variants that ran; None if none ran."""
    out = Path(out_dir)
    sketches, counts, units = [], [], {}
    for path in sorted((out / BATCHES).glob("*.envelope.parquet")):
        table = pq.read_table(path)
        frame = table.to_pandas()
        batch = pq.read_table(out / BATCHES / path.name.replace(".envelope", ""), columns=["status"])
        counts.append(int((batch["status"].to_numpy() == "ok").sum()))
        signals = [c for c in frame.columns if c not in ("rank", "t")]
        units = {f.name: (f.metadata or {}).get(b"unit", b"").decode() for f in table.schema}
        times = frame["t"].to_numpy()[: len(frame) // RANKS.size]
        sketches.append(frame[signals].to_numpy().reshape(RANKS.size, times.size * len(signals)))
    if not sketches:
        return None
    levels = mixture_quantiles(np.array(sketches), np.array(counts), RANKS[list(LEVELS.values())])
    data = {"t": times}
    for s, signal in enumerate(signals):
        for (suffix, _), row in zip(LEVELS.items(), levels):
            data[f"{signal}_{suffix}"] = row.reshape(times.size, len(signals))[:, s]
    import pandas as pd

    envelopes = pd.DataFrame(data)
    envelopes.attrs["units"] = {c: units.get(c.rsplit("_q", 1)[0], "s") for c in envelopes.columns}
    write_table(envelopes, out / ENVELOPES, envelopes.attrs["units"])
    return envelopes

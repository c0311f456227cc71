"""Where a sweep's tasks run: worker processes forked from this one, or a Dask cluster.

A task is ``(function, args)`` returning the number of variants it finished (the batch runners
of :mod:`.sweep`). Both engines call ``tell(n)`` in this process as tasks finish.

* :func:`run_forked` (local workers on Linux, from a process with one thread): ``workers``
  children forked from this process, each taking every ``workers``-th task. A fork starts in
  milliseconds and inherits everything loaded so far; no scheduler, no task messages. A child
  lost on the way (killed, out of memory) stops the sweep with a message to resume it: the
  batches it and the others finished are on disk.
* :func:`run_on_dask`: ``dask.distributed``, a ``LocalCluster`` of worker processes bound to
  127.0.0.1 where forking is not allowed, or an existing cluster given by its scheduler address
  (``dask scheduler`` then ``dask worker tcp://HOST:8786`` on each machine).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from ..errors import ScenarioError
from ..io.forked import ChildLost, fork_call, results

Task = tuple[Callable[..., int], tuple]


def run_forked(tasks: Sequence[Task], workers: int, tell: Callable[[int], None],
               meanwhile: Callable[[], None] | None = None) -> None:
    """Run ``tasks`` on ``workers`` forked children (worker ``k`` takes tasks ``k, k + workers, …``);
    fork after loading what the tasks need, so that every child inherits it. ``meanwhile`` is
    called here once the children run (e.g. importing what comes after them); their reports wait
    in the pipes."""
    workers = max(1, min(workers, len(tasks)))
    calls = []
    try:
        for k in range(workers):
            calls.append(fork_call(_work, tasks[k::workers]))
        if meanwhile is not None:
            meanwhile()
        results(calls, lambda _worker, finished: tell(finished))
    except ChildLost as lost:
        raise ScenarioError(f"a sweep worker process ended before its tasks were done ({lost}; out of memory?); "
                            "the variants finished so far are kept: run the same command with --resume to run "
                            "the rest") from None
    finally:
        for call in calls:
            call.cancel()


def _work(tasks: Sequence[Task], report: Callable[[int], None]) -> int:
    """A forked worker's life: each task in turn, reporting the variants it finished."""
    done = 0
    for function, args in tasks:
        finished = function(*args)
        report(finished)
        done += finished
    return done


def dask_client(workers: int | None, scheduler: str | None):
    """(client, local cluster or None): the cluster at ``scheduler``, or a new local one of
    ``workers`` single-thread worker processes (default: one per core)."""
    import dask
    from dask.distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout="10s"), None
        except (OSError, ValueError) as error:
            raise ScenarioError(f"--scheduler {scheduler}: cannot connect ({error}); start one with "
                                "`dask scheduler` and workers with `dask worker ADDRESS`") from None
    n = workers or os.cpu_count() or 1
    method = "fork" if sys.platform.startswith("linux") else dask.config.get("distributed.worker.multiprocessing-method")
    with dask.config.set({"distributed.worker.multiprocessing-method": method}):
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None)
    return Client(cluster), cluster


def run_on_dask(client, tasks: Sequence[Task], tell: Callable[[int], None]) -> None:
    """Submit ``tasks`` to ``client``'s cluster and ``tell`` each one's count as it finishes."""
    from dask.distributed import as_completed

    futures = [client.submit(function, *args, pure=False) for function, args in tasks]
    for future in as_completed(futures):
        tell(future.result())

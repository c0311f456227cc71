"""Where a sweep's tasks run: worker processes forked from this one, or a Dask cluster.

A task is ``(function, args)`` returning what its variants came to (the batch runners of
:mod:`.sweep` return a ``Tally``). Both engines call ``tell(result)`` in this process as tasks
finish.

* :func:`run_forked` (local workers on Linux, from a process with one thread): ``workers``
  children forked from this process, each taking every ``workers``-th task. A fork starts in
  milliseconds and inherits everything loaded so far; no scheduler, no task messages.
* :func:`run_on_dask`: ``dask.distributed``, a ``LocalCluster`` of worker processes bound to
  127.0.0.1 where forking is not allowed (spawned, never forked from a process with threads),
  or an existing cluster given by its scheduler address
  (``dask scheduler`` then ``dask worker tcp://HOST:8786`` on each machine).

A worker lost on the way (killed, out of memory) raises :class:`WorkerLost` once the other
workers have finished their tasks: what they finished is on disk.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from ..errors import ScenarioError, needs_extras
from ..io.forked import ChildLost, fork_call, results

Task = tuple[Callable[..., Any], tuple]
CONNECT_TIMEOUT = "5s"
"""How long connecting to a ``--scheduler`` may take before the sweep gives up."""


class WorkerLost(RuntimeError):
    """A worker ended (killed, out of memory) before its tasks were done; the others finished theirs."""


def run_forked(
    tasks: Sequence[Task], workers: int, tell: Callable[[Any], None], meanwhile: Callable[[], None] | None = None
) -> None:
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
        results(calls, lambda _worker, result: tell(result))
    except ChildLost as lost:
        raise WorkerLost(lost.how) from None
    finally:
        for call in calls:
            call.cancel()


def _work(tasks: Sequence[Task], report: Callable[[Any], None]) -> None:
    """A forked worker's life: each task in turn, reporting its result."""
    for function, args in tasks:
        report(function(*args))


def dask_client(workers: int | None, scheduler: str | None):
    """(client, local cluster or None): the cluster at ``scheduler``, or a new local one of
    ``workers`` single-thread worker processes (default: one per core)."""
    with needs_extras("a sweep on Dask (--scheduler, or where worker processes cannot be forked)"):
        from dask.distributed import Client, LocalCluster

    if scheduler:
        _check_scheduler(scheduler)
        try:
            return Client(scheduler, timeout=CONNECT_TIMEOUT), None
        except (OSError, ValueError) as error:
            raise ScenarioError(
                f"--scheduler {scheduler}: cannot connect ({error}); start one with "
                "`dask scheduler` and workers with `dask worker ADDRESS`"
            ) from None
    n = workers or os.cpu_count() or 1
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None)
    return Client(cluster), cluster


def _check_scheduler(address: str) -> None:
    """Refuse ``address`` unless a Dask scheduler answers there within ``CONNECT_TIMEOUT``: asked
    by one message on a connection of its own (in a thread of its own, which ends with it), so
    that a failure leaves no client behind and a server that is not Dask's cannot hang the sweep
    or raise from the bytes it sends."""
    from distributed.security import Security

    security = Security().get_connection_args("client")
    if urlsplit(address).scheme in ("tls", "wss") and security["ssl_context"] is None:
        raise ScenarioError(
            f"--scheduler {address}: a TLS scheduler needs the cluster's certificates; set "
            "distributed.comm.tls.ca-file, .client.cert and .client.key in Dask's configuration "
            "(~/.config/dask/), or give a tcp:// address"
        )
    try:
        with ThreadPoolExecutor(1) as thread:
            answer = thread.submit(asyncio.run, _identity(address, security)).result()
    except OSError as error:  # refused, unreachable, or no answer in time
        what = str(error) or f"no answer within {CONNECT_TIMEOUT}"
        raise ScenarioError(
            f"--scheduler {address}: cannot connect ({what}); start one with `dask scheduler` and "
            "workers with `dask worker ADDRESS`"
        ) from None
    except Exception:  # noqa: BLE001 (whatever the bytes of another server make of Dask's decoder)
        answer = None
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        raise ScenarioError(
            f"--scheduler {address}: what answers there is not a Dask scheduler; give the address "
            "`dask scheduler` prints (tcp://HOST:8786 by default)"
        )


async def _identity(address: str, security: dict):
    """The answer of the Dask server at ``address`` to ``identity``, within ``CONNECT_TIMEOUT``;
    ``security``: the connection arguments of Dask's configured ``Security``."""
    from dask.utils import parse_timedelta
    from distributed.comm import connect

    async def ask():
        comm = await connect(address, timeout=CONNECT_TIMEOUT, **security)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    return await asyncio.wait_for(ask(), parse_timedelta(CONNECT_TIMEOUT))


def run_on_dask(client, tasks: Sequence[Task], tell: Callable[[Any], None]) -> None:
    """Submit ``tasks`` to ``client``'s cluster and ``tell`` each one's result as it finishes."""
    from dask.distributed import KilledWorker, as_completed

    futures = [client.submit(function, *args, pure=False) for function, args in tasks]
    lost = None
    for future in as_completed(futures):
        try:
            result = future.result()
        except (KilledWorker, OSError) as error:  # OSError: the connection to a worker or the scheduler closed
            lost = lost or error
            continue
        tell(result)
    if lost is not None:
        raise WorkerLost(type(lost).__name__)  # its message runs over several lines

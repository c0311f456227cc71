"""Run functions in forked child processes while this one goes on, and take back their results:
the local workers of a sweep (:mod:`~actuatorlab.scenarios.sweep_engines`), which the caller
asks for.

:func:`fork_call` starts ``function`` in a child forked from this process (it inherits
everything imported so far, compiled kernels included, and its arguments need no pickling), and
:meth:`ForkedCall.result` returns what it returned, pickled back through a pipe. What the child
reports on the way (``report(value)``, e.g. a count of finished tasks) reaches the parent's
callback while it waits; :func:`results` waits for several children at once.

Forking is used only where it is safe: on Linux, from a process with one thread (a fork copies only
the calling thread, so a lock another thread held would stay locked in the child), and when
``ACTUATORLAB_NO_FORK`` is not set; :func:`fork_allowed` says so, and callers do the work in-process
(or on Dask) otherwise. The child never returns into the caller's code: it leaves with ``os._exit``
(no ``atexit`` handlers, no second flush of the parent's buffers), and it ignores Ctrl-C: the
parent, interrupted, stops its children as it leaves their ``with`` block. An exception in the child
is raised again in the parent; a child that dies without a word (killed, out of memory) raises
:class:`ChildLost`, so the caller can do the work itself or say how to resume.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, Pipe, wait
from typing import Any

from ..errors import ParameterError

_RESULT, _ERROR, _REPORT = "result", "error", "report"


class ChildLost(RuntimeError):
    """A forked child ended without sending its result (killed, crashed, out of memory);
    ``how``: ``"killed by SIGKILL"`` or ``"it exited"``."""

    def __init__(self, pid: int, how: str):
        super().__init__(f"the forked child {pid} ended without a result ({how})")
        self.how = how


def fork_allowed() -> bool:
    """True where :func:`fork_call` may fork: Linux, one thread, ``ACTUATORLAB_NO_FORK`` unset."""
    return (
        sys.platform.startswith("linux") and threading.active_count() == 1 and not os.environ.get("ACTUATORLAB_NO_FORK")
    )


def check_processes(processes: int) -> None:
    """``processes`` asked of a run or its files: 1 (this process) or 2 (a forked child too)."""
    if processes not in (1, 2):
        raise ParameterError(f"processes = {processes!r}: give 1 (this process) or 2 (a forked child too)")


class ForkedCall:
    """A function running in a forked child; :meth:`result` waits for it (see :func:`fork_call`)."""

    def __init__(self, pid: int, connection: Connection):
        self.pid = pid
        self._connection = connection
        self._outcome: tuple[str, Any] | None = None
        self._reaped = False

    def result(self, report: Callable[[Any], None] | None = None) -> Any:
        """The child's return value (its exception is raised here); ``report`` receives what the
        child reported, as it arrives. Raises :class:`ChildLost` if the child ended without a
        result."""
        while self._outcome is None:
            self._receive(report)
        tag, value = self._outcome
        if tag == _ERROR:
            raise value
        return value

    def _receive(self, report: Callable[[Any], None] | None) -> None:
        """Take the child's next message (blocking): a report, or its outcome (then reap it)."""
        try:
            tag, value = self._connection.recv()
        except (EOFError, OSError):
            status = self._finish()
            how = (
                f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
                if status is not None and os.WIFSIGNALED(status)
                else "it exited"
            )
            self._outcome = (_ERROR, ChildLost(self.pid, how))
            return
        if tag == _REPORT:
            if report is not None:
                report(value)
            return
        self._outcome = (tag, value)
        self._finish()

    def cancel(self) -> None:
        """Stop the child (if it still runs) and reap it."""
        if not self._reaped:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._finish()

    def _finish(self) -> int | None:
        """Close the pipe and reap the child; its wait status (None if reaped before)."""
        self._connection.close()
        if self._reaped:
            return None
        self._reaped = True
        return os.waitpid(self.pid, 0)[1]

    def __enter__(self) -> ForkedCall:
        return self

    def __exit__(self, *exc) -> None:
        self.cancel()


def fork_call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> ForkedCall:
    """Start ``function(*args, report=..., **kwargs)`` in a forked child and return at once.

    ``report(value)`` sends a picklable value to the parent. Use as a context manager, so that
    the child is stopped if the parent leaves early (an error, Ctrl-C)::

        with fork_call(simulate, scenario) as pending:
            ...  # the parent's own work
            result = pending.result(progress)
    """
    reader, writer = Pipe(duplex=False)
    pid = _fork()
    if pid:
        writer.close()
        return ForkedCall(pid, reader)
    reader.close()
    _child(writer, function, args, kwargs)  # never returns


def results(calls: Sequence[ForkedCall], report: Callable[[int, Any], None] | None = None) -> list[Any]:
    """The results of several forked calls, in order, taking their messages as they come:
    ``report(i, value)`` for what child ``i`` reports. The first exception or lost child is
    raised once every child has ended (the others are not cut short)."""
    pending = {call._connection: i for i, call in enumerate(calls)}
    while pending:
        for connection in wait(list(pending)):
            i = pending[connection]
            calls[i]._receive(None if report is None else (lambda value, i=i: report(i, value)))
            if calls[i]._outcome is not None:
                del pending[connection]
    return [call.result() for call in calls]


def _fork() -> int:
    """``os.fork()`` with Ctrl-C held off until both sides are ready for it: the child ignores it
    from its first instruction (Ctrl-C is the parent's to handle: it stops its children), and a
    parent interrupted right at the fork stops the new child before KeyboardInterrupt leaves here,
    so that no child runs on that nobody stops."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C that came meanwhile is raised here
    except KeyboardInterrupt:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    return pid


def _child(writer: Connection, function, args, kwargs) -> None:
    """The child's whole life: call, send the outcome, leave without running the parent's code."""
    status = 1
    try:
        try:
            outcome = (_RESULT, function(*args, report=lambda value: writer.send((_REPORT, value)), **kwargs))
            writer.send(outcome)
        except Exception as exc:  # noqa: BLE001 — every failure goes back to the parent
            writer.send((_ERROR, _picklable(exc)))
        writer.close()
        status = 0
    finally:
        os._exit(status)


def _picklable(exc: Exception) -> Exception:
    """``exc`` itself if it pickles, else a RuntimeError with its type and message."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 — any pickling failure falls back to the message
        return RuntimeError(f"{type(exc).__name__}: {exc}")

"""Run a function in a forked child process while this one goes on, and take back its result.

A run's work splits into two halves that need different libraries: the simulation needs numba
(its import and the first dispatch of a cached kernel, which loads numba's target registries,
take about 0.45 s), the files need pandas, pyarrow and matplotlib (about 0.5 s to import) and
the figures. On a machine with two cores the halves can overlap: :func:`fork_call` starts
``function`` in a child forked from this process (it inherits everything imported so far, and
its arguments need no pickling), and :meth:`ForkedCall.result` returns what it returned, pickled
back through a pipe. Progress reported by the child (``report(fraction)``) reaches the parent's
callback while the parent waits.

Forking is used only where it is safe and useful: on Linux, from a process with one thread (a
fork copies only the calling thread, so a lock held by another one would stay locked in the
child), and when ``ACTUATORLAB_NO_FORK`` is not set; :func:`fork_allowed` says so, and callers do
the work in-process otherwise. The child never returns into the caller's code: it leaves with
``os._exit`` (no ``atexit`` handlers, no second flush of the parent's buffers). An exception in
the child is raised again in the parent; a child that dies without a word (killed, out of
memory) raises :class:`ChildLost`, so the caller can do the work itself and lose nothing.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

_RESULT, _ERROR, _PROGRESS = "result", "error", "progress"


class ChildLost(RuntimeError):
    """The forked child ended without sending its result (killed, crashed, out of memory)."""


def fork_allowed() -> bool:
    """True where :func:`fork_call` may fork: Linux, one thread, ``ACTUATORLAB_NO_FORK`` unset."""
    return (sys.platform.startswith("linux") and threading.active_count() == 1
            and not os.environ.get("ACTUATORLAB_NO_FORK"))


class ForkedCall:
    """A function running in a forked child; :meth:`result` waits for it (see :func:`fork_call`)."""

    def __init__(self, pid: int, reader: int):
        self._pid, self._reader = pid, reader  # the reader is None once result() owns it
        self._done = False

    def result(self, progress: Callable[[float], None] | None = None) -> Any:
        """The child's return value (its exception is raised here); ``progress`` receives the
        fractions the child reported, as they arrive. Raises :class:`ChildLost` if the child
        ended without a result."""
        reader, self._reader = self._reader, None
        try:
            with os.fdopen(reader, "rb", closefd=True) as pipe:
                while True:
                    try:
                        tag, value = pickle.load(pipe)
                    except (EOFError, pickle.UnpicklingError):
                        raise ChildLost("the forked child ended without a result") from None
                    if tag == _PROGRESS:
                        if progress is not None:
                            progress(value)
                        continue
                    if tag == _ERROR:
                        raise value
                    return value
        finally:
            self._reap()

    def cancel(self) -> None:
        """Stop the child (if it still runs) and reap it."""
        if not self._done:
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if self._reader is not None:
                os.close(self._reader)
                self._reader = None
            self._reap()

    def _reap(self) -> None:
        if not self._done:
            self._done = True
            os.waitpid(self._pid, 0)

    def __enter__(self) -> ForkedCall:
        return self

    def __exit__(self, *exc) -> None:
        self.cancel()


def fork_call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> ForkedCall:
    """Start ``function(*args, report=..., **kwargs)`` in a forked child and return at once.

    ``report(fraction)`` sends a progress fraction to the parent. Use as a context manager, so
    that the child is stopped if the parent leaves early (an error, Ctrl-C)::

        with fork_call(simulate, scenario) as pending:
            ...  # the parent's own work
            result = pending.result(progress)
    """
    reader, writer = os.pipe()
    pid = os.fork()
    if pid:
        os.close(writer)
        return ForkedCall(pid, reader)
    os.close(reader)
    _child(writer, function, args, kwargs)  # never returns


def _child(writer: int, function, args, kwargs) -> None:
    """The child's whole life: call, send the outcome, leave without running the parent's code."""
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the child quietly; the parent reports it
        with os.fdopen(writer, "wb", closefd=True) as pipe:
            def report(fraction: float) -> None:
                pickle.dump((_PROGRESS, float(fraction)), pipe)
                pipe.flush()

            try:
                message = pickle.dumps((_RESULT, function(*args, report=report, **kwargs)),
                                       protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # noqa: BLE001 — every failure goes back to the parent
                message = pickle.dumps((_ERROR, _picklable(exc)))
            pipe.write(message)
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

"""Loading numba in a process, and saying when it compiles.

numba is imported on first use, not with this module: a process that only presents results
never loads it. :func:`load_numba` does what the first kernel of a process otherwise does on its
first call (import numba, 0.2 s; load its target registries on the first dispatch of a cached
kernel, 0.3 s), so that a process can do it ahead, before it knows which kernels it will run.
:func:`reporting_compiles` calls back when numba starts compiling a kernel its on-disk cache does
not hold (the first run after an install or an upgrade takes seconds, and a user should be told).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

COMPILING = "compiling kernels"
"""What a simulation reports (through its ``report`` or a run's ``progress`` stage) when numba
starts compiling, once per process."""


def load_numba() -> None:
    """Import numba and dispatch a small cached kernel: its first dispatch in a process loads
    numba's target registries, which every later kernel shares."""
    from .nonsmooth import s_scalar

    s_scalar(1.0)


@contextlib.contextmanager
def reporting_compiles(on_compile: Callable[[], None] | None) -> Iterator[None]:
    """Within the block, call ``on_compile()`` once when numba starts compiling a kernel (a cache
    miss); None: nothing is installed and numba is not imported."""
    if on_compile is None:
        yield
        return
    from numba.core import event

    class FirstCompile(event.Listener):
        said = False

        def on_start(self, _event) -> None:
            if not self.said:
                self.said = True
                on_compile()

        def on_end(self, _event) -> None:
            pass

    with event.install_listener("numba:run_pass", FirstCompile()):
        yield


def call_reporting_compiles(call: Callable[..., Any], report: Callable[[Any], None]) -> Any:
    """``call(report)``, with :data:`COMPILING` reported through ``report`` if numba compiles on
    the way (the other values reported are the call's progress fractions): a forked child's
    work, whose parent tells the user."""
    with reporting_compiles(lambda: report(COMPILING)):
        return call(report)

"""Saying when numba compiles.

numba is imported on first use, not with this module: a process that only presents results
never loads it. :func:`reporting_compiles` calls back when numba starts compiling a kernel its on-disk cache does
not hold (the first run after an install or an upgrade takes seconds, and a user should be told).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

COMPILING = "compiling kernels"
"""The stage a run's ``progress`` reports when numba starts compiling, once per process."""


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

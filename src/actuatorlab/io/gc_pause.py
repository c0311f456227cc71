"""Loading libraries without the cyclic garbage collector walking them.

A command imports numba, pydantic, matplotlib and pyarrow: about a million objects that live as
long as the process. While they are created, the collector's full collections walk all of them,
several times (0.05–0.1 s of a 0.9 s run in each process); none of it is garbage.
:func:`loading_libraries` pauses the collector for such a block and then moves what exists into
its permanent generation (:func:`gc.freeze`), so that later collections walk only newer objects
(a forked child inherits that, and its collections do not touch the parent's pages either).

Only in a process the command line owns (:func:`own_process`, called by its entry point): in a
user's Python session the freeze would also keep whatever unreachable cycles the session held at
that moment, so there :func:`loading_libraries` does nothing.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


_owned = False


def own_process() -> None:
    """Declare this process the command's own: :func:`loading_libraries` takes effect."""
    global _owned
    _owned = True


@contextlib.contextmanager
def loading_libraries() -> Iterator[None]:
    """In an owned process, pause automatic collection within the block (imports: objects that
    stay), then freeze every object that exists out of later collections and resume (if it was
    on); elsewhere, nothing."""
    if not _owned:
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()

"""A simulation child started before the scenario is read: the ``run`` command's head start.

Reading the command line and the scenario takes about 0.2 s (typer, pydantic, the schema), and
loading numba another 0.5 s; neither needs the other. ``actuatorlab run`` therefore forks, as its
first step, a child that loads numba (:func:`~actuatorlab.numerics.kernel_loading.load_numba`) and
waits; :func:`runner.simulate <actuatorlab.scenarios.runner.simulate>` takes it
(:func:`take`) and sends it the prepared simulation call of a kind it runs apart. A command that
does not use it (another kind, a bad scenario, ``--help``) stops it (:func:`discard`). This module
imports nothing heavy, so that the child forks before the command's libraries load.
"""

from __future__ import annotations

from ..io.forked import WaitingChild, fork_allowed, fork_waiting
from ..io.gc_pause import loading_libraries
from ..numerics.kernel_loading import load_numba

_waiting: WaitingChild | None = None


def start() -> None:
    """Fork the child that loads numba and waits for a simulation call (where forking is allowed)."""
    global _waiting
    if _waiting is None and fork_allowed():
        _waiting = fork_waiting(_load_numba)


def _load_numba() -> None:
    """The child's preparation; a failure here is left to the call (it loads numba itself and
    meets the same cause with its own error), as this is only a head start."""
    with loading_libraries():
        try:
            load_numba()
        except Exception:  # noqa: BLE001 — only a head start: the simulation call reports what is wrong
            pass


def take() -> WaitingChild | None:
    """The waiting child, handed over once (None if none was started)."""
    global _waiting
    child, _waiting = _waiting, None
    return child


def discard() -> None:
    """Stop the waiting child if nobody took it."""
    child = take()
    if child is not None:
        child.cancel()

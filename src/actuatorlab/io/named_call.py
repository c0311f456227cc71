"""A call of a function named by its module and name, with its arguments: picklable, and built
without importing the function's module.

A simulation's inputs are prepared where the scenario was read (the schema, pydantic), and the
simulation runs in a forked child that has loaded numba but not the schema: the call crosses the
pipe as plain data (parameter dataclasses, arrays) and imports the simulation module only where
it runs.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class NamedCall:
    """``module.function(*args, progress=progress, **kwargs)``, made by calling this object."""

    module: str
    function: str
    args: tuple = ()
    kwargs: dict[str, Any] = field(default_factory=dict)

    def __call__(self, progress=None) -> Any:
        function = getattr(importlib.import_module(self.module), self.function)
        return function(*self.args, progress=progress, **self.kwargs)

"""A module imported on its first attribute access: a module's annotations may name pandas or
matplotlib (so that ``typing.get_type_hints`` resolves them) without importing them when the
module itself is imported (``actuatorlab show`` and a quiet run do not load them)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any


class DeferredModule:
    """Stands for the module that ``load()`` imports (``lambda: importlib.import_module("pandas")``:
    the name stays literal where it is written, for the layer check) until an attribute is read."""

    def __init__(self, load: Callable[[], ModuleType]):
        self._load = load

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._load(), attribute)

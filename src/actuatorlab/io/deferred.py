"""A module imported on its first attribute access: a module's annotations may name pandas or
matplotlib (so that ``typing.get_type_hints`` resolves them) without importing them when the
module itself is imported (``actuatorlab show`` and a quiet run do not load them)."""

from __future__ import annotations

import importlib
from typing import Any


class DeferredModule:
    """Stands for the module ``name`` until an attribute is read, which imports it."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(importlib.import_module(self._name), attribute)

    def __repr__(self) -> str:
        return f"<deferred module {self._name!r}>"

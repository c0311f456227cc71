"""Named positions of a packed float64 vector (a kernel's parameters, state or scratch) or of a
table's columns, declared once.

A layout is written once, next to the class or kernel that owns it, as the ordered tuple of its
entry names. The packing function fills the vector by name (``pack``), so its order cannot drift
from the layout's; a parameter class's layout names, for each entry, the attribute it is read
from (``"aa:head_area"``), so the class packs itself (``pack_of``) without a second list. The
module-level integer constants that compiled kernels index with (numba folds them into the
machine code) are unpacked from ``indices`` under the names ``prefix + NAME``, which
``tests/test_layouts.py`` checks against the layout; the FMU's C enums are written from the
same layouts (``fmu/header.layout_header``).
"""

from __future__ import annotations

import dataclasses
import functools
from enum import IntEnum

import numpy as np


class Layout:
    """The entries ``names`` of a vector, in order; ``prefix`` names their module constants
    (``Layout("I_", "ah", "ar")``: ``I_AH = 0``, ``I_AR = 1``). An entry written ``"name:attribute"``
    is read from that attribute (a field or a property) of the instance :meth:`pack_of` packs
    (``Layout("C_", "aa:head_area", …)``)."""

    __slots__ = ("prefix", "names", "_index", "fields")

    def __init__(self, prefix: str, *entries: str) -> None:
        names = tuple(entry.partition(":")[0] for entry in entries)
        if len(set(names)) != len(names):
            raise ValueError(f"layout {prefix}*: an entry is named twice in {names}")
        self.prefix = prefix
        self.names = names
        self._index = {name: i for i, name in enumerate(names)}
        self.fields = {name: source for name, _, source in (e.partition(":") for e in entries) if source}

    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        return f"Layout({self.prefix!r}, {', '.join(map(repr, self.names))})"

    @property
    def indices(self) -> range:
        """The positions 0 … n−1, to unpack into the module constants in ``names`` order."""
        return range(len(self.names))

    def index(self, name: str) -> int:
        """The position of the entry ``name``."""
        return self._index[name]

    def constants(self) -> dict[str, int]:
        """``{prefix + NAME: position}``: the module constants this layout defines."""
        return {self.prefix + name.upper(): i for i, name in enumerate(self.names)}

    def pack(self, **values: float) -> np.ndarray:
        """The float64 vector with each entry from ``values`` by name; every entry exactly once."""
        if values.keys() != self._index.keys():
            missing = [n for n in self.names if n not in values]
            unknown = [n for n in values if n not in self._index]
            raise ValueError(f"layout {self.prefix}*: missing {missing}, unknown {unknown}")
        return np.array([values[name] for name in self.names], dtype=np.float64)

    def pack_of(self, instance, **computed: float) -> np.ndarray:
        """:meth:`pack` with each entry read from its attribute of ``instance`` (``"name:attribute"``)
        and the others (``computed``) as given."""
        return self.pack(**{name: getattr(instance, source) for name, source in self.fields.items()}, **computed)

    def enum(self, name: str) -> type[IntEnum]:
        """An ``IntEnum`` called ``name`` with a member ``NAME = position`` per entry (numba folds
        its members into constants, like the module constants)."""
        return IntEnum(name, [(entry.upper(), i) for i, entry in enumerate(self.names)])


@functools.cache
def fields_layout(cls, prefix: str = "") -> Layout:
    """The layout of the float fields of dataclass ``cls`` (those set at construction), in
    declaration order: a parameter class whose packed vector is its own fields."""
    return Layout(prefix, *(f.name for f in dataclasses.fields(cls) if f.init and f.type in ("float", float)))


def pack_fields(instance) -> np.ndarray:
    """The float fields of a dataclass ``instance`` as a float64 vector (order of :func:`fields_layout`)."""
    layout = fields_layout(type(instance))
    return layout.pack(**{name: getattr(instance, name) for name in layout.names})


__all__ = ["Layout", "fields_layout", "pack_fields"]

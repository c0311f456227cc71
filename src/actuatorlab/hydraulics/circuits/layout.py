"""Packed float layouts generated from the fields of frozen dataclasses.

A parameter class lists its quantities once, as fields; ``field_layout`` numbers its float fields
in declaration order and ``pack`` writes them into a float64 array in that order. The branch
table of the compiled network kernels (``Branch``, :mod:`.branch`) gets its column indices the
same way, as an ``IntEnum`` that numba folds into constants.
"""

from __future__ import annotations

import dataclasses
from enum import IntEnum

import numpy as np


def float_fields(cls) -> tuple[str, ...]:
    """The names of the float fields of dataclass ``cls`` (those set at construction), in order."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.init and f.type in ("float", float))


def field_layout(cls) -> dict[str, int]:
    """{field name: index} of the float fields of ``cls`` in its packed array."""
    return {name: i for i, name in enumerate(float_fields(cls))}


def layout_enum(cls, name: str) -> type[IntEnum]:
    """An ``IntEnum`` named ``name`` whose members are the float fields of ``cls`` (upper case)
    numbered in declaration order: the column indices compiled kernels use."""
    return IntEnum(name, [(field.upper(), i) for i, field in enumerate(float_fields(cls))])


def pack(instance) -> np.ndarray:
    """The float fields of a dataclass ``instance`` as a float64 array (order of ``field_layout``)."""
    return np.array([getattr(instance, name) for name in float_fields(type(instance))], dtype=np.float64)

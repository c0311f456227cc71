"""Checks shared by the parameter classes: each failure names the field, value, unit and range."""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from .errors import ParameterError


def positive(name: str, value: float, unit: str) -> float:
    """Return ``value`` as float if it is finite and > 0, else raise naming ``name``."""
    value = float(value)
    if not math.isfinite(value) or value <= 0.0:
        raise ParameterError(f"{name} = {value!r} {unit}: must be a finite number > 0")
    return value


def non_negative(name: str, value: float, unit: str) -> float:
    """Return ``value`` as float if it is finite and >= 0, else raise naming ``name``."""
    value = float(value)
    if not math.isfinite(value) or value < 0.0:
        raise ParameterError(f"{name} = {value!r} {unit}: must be a finite number >= 0")
    return value


def finite(name: str, value: float, unit: str) -> float:
    """Return ``value`` as float if it is finite, else raise naming ``name``."""
    value = float(value)
    if not math.isfinite(value):
        raise ParameterError(f"{name} = {value!r} {unit}: must be a finite number")
    return value


def count(name: str, value, unit: str) -> int:
    """Return ``value`` as int if it is a whole number >= 1, else raise naming ``name``."""
    try:
        whole = int(value) == value and value >= 1
    except (TypeError, ValueError, OverflowError):  # a string, NaN or infinity
        whole = False
    if not whole:
        raise ParameterError(f"{name} = {value!r} {unit}: must be an integer >= 1")
    return int(value)


def positive_or_inf(name: str, value: float, unit: str) -> float:
    """Return ``value`` as float if it is > 0, ``inf`` (rigid) included, else raise naming ``name``."""
    value = float(value)
    if not (value > 0.0):
        raise ParameterError(f"{name} = {value!r} {unit}: a stiffness must be > 0 (inf = rigid)")
    return value


def efficiency(name: str, value: float, unit: str = "-", *, allow_zero: bool = False) -> float:
    """Return ``value`` as float if it is an efficiency in (0, 1] ([0, 1] with ``allow_zero``: a
    back-driving efficiency, 0 = self-locking), else raise naming ``name``."""
    value = float(value)
    lo_ok = value >= 0.0 if allow_zero else value > 0.0
    if not (math.isfinite(value) and lo_ok and value <= 1.0):
        rng = "[0, 1]" if allow_zero else "(0, 1]"
        raise ParameterError(f"{name} = {value!r}: an efficiency must lie in {rng}")
    return value


back_efficiency = functools.partial(efficiency, allow_zero=True)
"""The check of a back-driving efficiency in [0, 1] (0 = self-locking)."""


def unit_interval(name: str, value) -> np.ndarray:
    """Return ``value`` as a float array whose every entry lies in [0, 1], else raise."""
    arr = np.asarray(value, dtype=np.float64)
    bad = ~((arr >= 0.0) & (arr <= 1.0))
    if np.any(bad):
        first = float(arr[bad].flat[0]) if arr.ndim else float(arr)
        raise ParameterError(f"{name} = {first!r}: a valve opening must lie in [0, 1]")
    return arr


def first_outside(values, lower, upper) -> int | None:
    """The index of the first entry of ``values`` outside [``lower``, ``upper``] (per entry, same
    units), or None when all lie inside."""
    values = np.asarray(values)
    outside = (values < lower) | (values > upper)
    return int(np.argmax(outside)) if np.any(outside) else None


MAX_STROKE_RATIO = 6.0
"""Largest stroke per retracted length [-]: a single-stage cylinder's body holds its rod, so its stroke
stays below its retracted pin-to-pin length; a telescopic cylinder of n stages reaches about n times it,
and six stages is the most catalogues list."""


def stroke_fits(stroke: float, retracted_length: float, where: str) -> None:
    """Refuse a stroke [m] that no cylinder of ``retracted_length`` [m] (pin to pin, rod in) can
    have: more than :data:`MAX_STROKE_RATIO` times it (e.g. a 50 m stroke on a 1 cm cylinder)."""
    if stroke > MAX_STROKE_RATIO * retracted_length:
        raise ParameterError(
            f"{where}: stroke = {stroke:g} m on retracted_length = {retracted_length:g} m: no cylinder fits "
            f"(a stroke is at most {MAX_STROKE_RATIO:g} times the retracted pin-to-pin length, for a "
            f"{MAX_STROKE_RATIO:g}-stage telescopic cylinder); check the two values and their units"
        )


def check_fields(instance, check, fields: tuple[tuple[str, str], ...], prefix: str = "") -> None:
    """Apply ``check`` (``positive``, ``non_negative`` or ``finite``) to each ``(field, unit)`` of a
    frozen dataclass ``instance`` and store the float it returns; a failure names ``prefix + field``.

    The one loop every parameter class's ``__post_init__`` uses::

        check_fields(self, positive, (("mass", "kg"), ("inertia", "kg m^2")))
    """
    for name, unit in fields:
        object.__setattr__(instance, name, check(f"{prefix}{name}", getattr(instance, name), unit))


def quantity(default=dataclasses.MISSING, unit: str = "-", check=positive):
    """A parameter field declared with its unit and its check: ``check(name, value, unit)``
    (``positive``, ``non_negative``, ``finite``, ``count``, ``positive_or_inf``, …) returns the value
    stored; no ``default`` makes the field required. :func:`check_quantities` applies them::

        inertia: float = quantity(unit="kg m^2")
        damping: float = quantity(0.0, "N m s/rad", non_negative)
    """
    return dataclasses.field(default=default, metadata={"unit": unit, "check": check})


def check_quantities(instance, prefix: str = "") -> None:
    """Apply each :func:`quantity` field's check of a frozen dataclass ``instance`` in field order
    and store what it returns; a failure names ``prefix + field``, its value and unit. The one
    check a parameter class's ``__post_init__`` calls for its declared fields."""
    for f in dataclasses.fields(instance):
        if "check" in f.metadata:
            value = f.metadata["check"](f"{prefix}{f.name}", getattr(instance, f.name), f.metadata["unit"])
            object.__setattr__(instance, f.name, value)

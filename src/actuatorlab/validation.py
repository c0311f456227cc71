"""Checks shared by the parameter classes: each failure names the field, value, unit and range."""

from __future__ import annotations

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

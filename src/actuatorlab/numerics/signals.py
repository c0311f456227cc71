"""Input signals of time: constant, steps, piecewise-linear tables, sines and their sums, and
the excitation shapes of the experiments (step, pulse, chirp, cosine-ramped pulse).

A signal is sampled once on the whole time grid (``signal.sample(t)``, vectorised), so the
compiled time loops read plain arrays and never call back into Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ..validation import finite


class Signal:
    """Base class: a scalar function of time t [s], evaluated on arrays."""

    def sample(self, t: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


def _times(name: str, times, values) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(times, dtype=np.float64)
    y = np.asarray(values, dtype=np.float64)
    if t.ndim != 1 or t.size == 0 or t.shape != y.shape:
        raise ParameterError(f"{name}: times and values must be non-empty lists of equal length")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(y))):
        raise ParameterError(f"{name}: times and values must be finite numbers")
    if np.any(np.diff(t) <= 0.0):
        raise ParameterError(f"{name}: times must increase strictly, got {t.tolist()}")
    return t, y


@dataclass(frozen=True)
class Constant(Signal):
    """y(t) = value."""

    value: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", finite("constant.value", self.value, ""))

    def sample(self, t: np.ndarray) -> np.ndarray:
        return np.full(np.shape(t), self.value)


@dataclass(frozen=True)
class Steps(Signal):
    """y(t) = initial before times[0], then values[i] from times[i] on (right-continuous)."""

    times: tuple[float, ...]
    values: tuple[float, ...]
    initial: float = 0.0

    def __post_init__(self) -> None:
        t, y = _times("steps", self.times, self.values)
        object.__setattr__(self, "times", tuple(t))
        object.__setattr__(self, "values", tuple(y))
        object.__setattr__(self, "initial", finite("steps.initial", self.initial, ""))

    def sample(self, t: np.ndarray) -> np.ndarray:
        levels = np.concatenate(([self.initial], self.values))
        return levels[np.searchsorted(np.asarray(self.times), t, side="right")]


@dataclass(frozen=True)
class PiecewiseLinear(Signal):
    """Linear interpolation in a (times, values) table, held constant outside it."""

    times: tuple[float, ...]
    values: tuple[float, ...]

    def __post_init__(self) -> None:
        t, y = _times("piecewise-linear", self.times, self.values)
        object.__setattr__(self, "times", tuple(t))
        object.__setattr__(self, "values", tuple(y))

    def sample(self, t: np.ndarray) -> np.ndarray:
        return np.interp(t, self.times, self.values)


@dataclass(frozen=True)
class Sine(Signal):
    """y(t) = offset + amplitude·sin(2π·frequency·(t − start) + phase) for start ≤ t < stop, else offset."""

    amplitude: float
    frequency: float
    phase: float = 0.0
    offset: float = 0.0
    start: float = 0.0
    stop: float = math.inf

    def __post_init__(self) -> None:
        for name in ("amplitude", "frequency", "phase", "offset", "start"):
            object.__setattr__(self, name, finite(f"sine.{name}", getattr(self, name), ""))
        if self.frequency < 0.0:
            raise ParameterError(f"sine.frequency = {self.frequency} Hz: must be >= 0")
        if not self.stop > self.start:
            raise ParameterError(f"sine.stop = {self.stop} s: must be later than start = {self.start} s")

    def sample(self, t: np.ndarray) -> np.ndarray:
        t = np.asarray(t, dtype=np.float64)
        wave = self.amplitude * np.sin(2.0 * math.pi * self.frequency * (t - self.start) + self.phase)
        active = (t >= self.start) & (t < self.stop)
        return self.offset + np.where(active, wave, 0.0)


MAX_SUM_DEPTH = 32
"""Most levels of sums in one signal (a sum of sums is two): deeper ones recurse too far to
sample, read or write, and are refused."""


def sum_depth(signal: Signal) -> int:
    """Levels of :class:`Sum` in ``signal`` (0 for any other signal)."""
    return signal.depth if isinstance(signal, Sum) else 0


@dataclass(frozen=True)
class Sum(Signal):
    """y(t) = Σ terms_i(t), at most :data:`MAX_SUM_DEPTH` levels of sums deep."""

    terms: tuple[Signal, ...]
    depth: int = field(init=False, repr=False, compare=False)
    """Levels of sums: 1 for a sum of other signals."""

    def __post_init__(self) -> None:
        if not self.terms:
            raise ParameterError("sum: give at least one term")
        object.__setattr__(self, "depth", 1 + max(map(sum_depth, self.terms)))
        if self.depth > MAX_SUM_DEPTH:
            raise ParameterError(
                f"sum: nests {self.depth} levels of sums, more than {MAX_SUM_DEPTH}; a sum of sums "
                "is one sum of all their terms"
            )

    def sample(self, t: np.ndarray) -> np.ndarray:
        total = np.zeros(np.shape(t))
        for term in self.terms:
            total = total + term.sample(t)
        return total


def time_grid(step: float, duration: float) -> np.ndarray:
    """t_k = k·h for k = 0 … round(duration/h), in seconds."""
    n = int(round(duration / step))
    return np.arange(n + 1) * step


def step_signal(t: np.ndarray, amplitude: float, start: float = 0.0) -> np.ndarray:
    """amplitude for t ≥ start, else 0."""
    return np.where(np.asarray(t) >= start, float(amplitude), 0.0)


def pulse_signal(t: np.ndarray, amplitude: float, start: float, width: float) -> np.ndarray:
    """amplitude on [start, start + width), else 0; width [s] > 0."""
    if not width > 0.0:
        raise ParameterError(f"pulse width = {width!r} s: must be > 0")
    t = np.asarray(t)
    return np.where((t >= start) & (t < start + width), float(amplitude), 0.0)


def chirp_signal(
    t: np.ndarray, amplitude: float, f0: float = 0.1, f1: float = 10.0, offset: float = 0.0, method: str = "logarithmic"
) -> np.ndarray:
    """offset + amplitude·sin sweep from f0 to f1 [Hz] over the span of ``t`` (paper: 0.1–10 Hz),
    starting at phase 0 so the signal starts at ``offset``."""
    from scipy.signal import chirp  # scipy.signal loads in 0.2 s; only the IEHA experiments need it

    t = np.asarray(t, dtype=float)
    if not (0.0 < f0 < f1):
        raise ParameterError(f"chirp frequencies f0 = {f0!r}, f1 = {f1!r} Hz: need 0 < f0 < f1")
    span = float(t[-1] - t[0])
    return offset + amplitude * chirp(t - t[0], f0, span, f1, method=method, phi=-90.0)


def smooth_pulse(t, start: float, stop: float, level: float, ramp: float = 0.4):
    """level between ``start`` and ``stop`` [s] with cosine ramps of ``ramp`` [s] at both ends, 0 elsewhere."""
    t = np.asarray(t, dtype=np.float64)
    up = np.clip((t - start) / ramp, 0.0, 1.0)
    down = np.clip((stop - t) / ramp, 0.0, 1.0)
    shape = 0.5 - 0.5 * np.cos(math.pi * np.minimum(up, down))
    return level * shape

"""Signal tables of the scenario files: inputs written as functions of time.

A signal is a number or quantity string (a constant) or a table with ``type`` = ``"constant"``,
``"steps"``, ``"piecewise-linear"``, ``"sine"`` or ``"sum"``; the dimension of its values is the
dimension of the input it drives. ``build()`` gives the signal classes of
:mod:`actuatorlab.numerics.signals`.
"""

import functools
import math
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, Union

import numpy as np
from pydantic import (
    BeforeValidator,
    Discriminator,
    Tag,
)

from ..errors import ParameterError, ScenarioError
from ..numerics.signals import MAX_SUM_DEPTH, Constant, PiecewiseLinear, Signal, Sine, Steps, Sum
from .spec_base import Angle, Frequency, Spec, Time, quantity

SIGNAL_TYPES = ("constant", "steps", "piecewise-linear", "sine", "sum")
"""Values of ``type`` in a signal table."""


# ---------------------------------------------------------------------------------------------
# Signals


class SignalSpec(Spec):
    """Base of the signal tables; ``dimension`` is the dimension of the values."""

    dimension: ClassVar[str] = "dimensionless"

    def build(self, dimension: str | None = None, where: str = "signal") -> Signal:
        """The :class:`~actuatorlab.numerics.signals.Signal`; bad parameters raise
        ScenarioError naming ``where``. ``dimension``, if given, must be the spec's own."""
        if dimension is not None and dimension != self.dimension:
            raise ValueError(f"{where}: this signal holds {self.dimension} values, not {dimension}")
        try:
            return self._build(where)
        except ParameterError as error:
            raise ScenarioError(f"{where}: {error}") from None

    def _build(self, where: str) -> Signal:  # pragma: no cover - abstract
        raise NotImplementedError


class _Constant(SignalSpec):
    def _build(self, where):
        return Constant(self.value)


class _Steps(SignalSpec):
    def _build(self, where):
        return Steps(tuple(self.times), tuple(self.values), self.initial)


class _PiecewiseLinear(SignalSpec):
    def _build(self, where):
        return PiecewiseLinear(tuple(self.times), tuple(self.values))


class _Sine(SignalSpec):
    def _build(self, where):
        return Sine(self.amplitude, self.frequency, self.phase, self.offset, self.start, self.stop)


class _Sum(SignalSpec):
    def _build(self, where):
        if not self.terms:
            raise ScenarioError(f"{where}.terms: empty; give at least one signal table in terms")
        return Sum(tuple(term.build(where=f"{where}.terms[{i}]") for i, term in enumerate(self.terms)))


def _sum_levels(table: Mapping) -> int:
    """Levels of ``sum`` tables in a signal table as read, counted level by level (no recursion)
    up to one past :data:`~actuatorlab.numerics.signals.MAX_SUM_DEPTH`."""
    levels, tables = 0, [table]
    while tables and levels <= MAX_SUM_DEPTH:
        sums = [t for t in tables if isinstance(t, Mapping) and t.get("type") == "sum"]
        levels += bool(sums)
        tables = [term for t in sums if isinstance(t.get("terms"), list) for term in t["terms"]]
    return levels


def _signal_input(value):
    """A number or quantity string means a constant; a table must name its ``type``; sums nest
    at most :data:`~actuatorlab.numerics.signals.MAX_SUM_DEPTH` levels, checked before they are read."""
    if isinstance(value, SignalSpec):
        return value
    if isinstance(value, Mapping):
        kind = value.get("type")
        names = ", ".join(f'"{name}"' for name in SIGNAL_TYPES)
        if kind is None:
            raise ScenarioError(f"a signal table needs a type; add type = one of {names}")
        if kind not in SIGNAL_TYPES:
            raise ScenarioError(f'type = "{kind}" is not a signal type; use one of {names}')
        if kind == "sum" and _sum_levels(value) > MAX_SUM_DEPTH:
            raise ScenarioError(
                f"sums nest more than {MAX_SUM_DEPTH} levels deep; write them flatter (a sum of "
                "sums is one sum of all their terms)"
            )
        return value
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        return {"type": "constant", "value": value}
    raise ScenarioError(f"expected a number, a quantity string or a signal table, received {value!r}")


@functools.cache
def signal_spec(dimension: str) -> Any:
    """Field type of a signal whose values have ``dimension`` (times are always times).

    Accepts a number or quantity string (a constant) or a table::

        {type = "constant", value}
        {type = "steps", times, values, initial = 0}
        {type = "piecewise-linear", times, values}
        {type = "sine", amplitude, frequency, phase = 0 rad, offset = 0, start = 0 s, stop = inf}
        {type = "sum", terms = [signal, ...]}
    """
    Value = quantity(dimension)

    class ConstantSignal(_Constant):
        """y(t) = value."""

        type: Literal["constant"] = "constant"
        value: Value

    class StepsSignal(_Steps):
        """y = initial before times[0], values[i] from times[i] on."""

        type: Literal["steps"] = "steps"
        times: list[Time]
        values: list[Value]
        initial: Value = 0.0

    class PiecewiseLinearSignal(_PiecewiseLinear):
        """Linear interpolation in (times, values), held outside."""

        type: Literal["piecewise-linear"] = "piecewise-linear"
        times: list[Time]
        values: list[Value]

    class SineSignal(_Sine):
        """offset + amplitude·sin(2π·frequency·(t − start) + phase) on [start, stop), else offset."""

        type: Literal["sine"] = "sine"
        amplitude: Value
        frequency: Frequency
        phase: Angle = 0.0
        offset: Value = 0.0
        start: Time = 0.0
        stop: Time = math.inf

    class SumSignal(_Sum):
        """The sum of the signals in ``terms``."""

        type: Literal["sum"] = "sum"
        terms: "list[SignalField]"

    classes = (ConstantSignal, StepsSignal, PiecewiseLinearSignal, SineSignal, SumSignal)
    for cls in classes:
        cls.dimension = dimension
        cls.__qualname__ = f"{cls.__name__}[{dimension}]"
    SignalField = Annotated[
        Union[tuple(Annotated[cls, Tag(kind)] for cls, kind in zip(classes, SIGNAL_TYPES))],
        Discriminator("type"),
        BeforeValidator(_signal_input),
    ]
    SumSignal.model_rebuild(_types_namespace={"SignalField": SignalField})
    return SignalField


DimensionlessSignal = signal_spec("dimensionless")
ForceSignal = signal_spec("force")


def check_range(where: str, signal: Signal, t, lo: float, hi: float, what: str = "the value") -> None:
    """Raise ScenarioError if ``signal`` sampled on the times ``t`` [s] leaves [lo, hi].

    The message names the first offending sample: ``inputs.valve_command reaches 1.5 at
    t = 3 s; a valve command must lie in [-1, 1]``.
    """
    check_samples(where, t, signal.sample(np.asarray(t, dtype=np.float64)), lo, hi, what)


def check_samples(where: str, t, y, lo: float, hi: float, what: str = "the value") -> None:
    """Raise ScenarioError if the samples ``y`` at the times ``t`` [s] leave [lo, hi] (as
    :func:`check_range`)."""
    t = np.asarray(t, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    bad = np.flatnonzero(~((y >= lo) & (y <= hi)))
    if bad.size:
        i = bad[0]
        raise ScenarioError(f"{where} reaches {y[i]:g} at t = {t[i]:g} s; {what} must lie in [{lo:g}, {hi:g}]")

"""Scenarios in Python: load one, change fields with units, show it, run it in memory.

A ``Scenario`` is immutable: ``set`` returns a new, validated scenario, so a study can branch
from one base without copying files. Values are written as in scenario files (``"300 L/min"``,
``"30 deg"``; a bare number is SI) and checked exactly as ``actuatorlab run`` checks a file.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from html import escape
from typing import TYPE_CHECKING, Any

from ..errors import ScenarioError
from ..io.atomic import atomic_write_text
from ..io.deferred import DeferredModule
from ..scenarios.loading import load_scenario, parse_scenario, scenario_to_toml
from ..scenarios.output import StageProgress

if TYPE_CHECKING:
    from . import results
else:  # named by the annotations, imported when they are resolved or a run returns (pyarrow)
    results = DeferredModule(lambda: importlib.import_module("actuatorlab.api.results"))


class Scenario:
    """A validated scenario (a built-in one or a file), quantities in SI.

    Made by :func:`actuatorlab.load` (or :meth:`set` on another scenario), not constructed
    directly. Immutable: :meth:`set` returns a new, validated scenario. Scenarios pickle (as
    their fields, validated again on loading), so a study can cache them or send them to
    worker processes.

    Attributes
    ----------
    name : str
        The scenario's ``name``.
    kind : str
        The scenario kind (``arm``, ``crane-vdc``, ``machine``, …).
    spec : pydantic.BaseModel
        The validated schema object, quantities in SI.

    See Also
    --------
    actuatorlab.load : A built-in scenario or a TOML file as a ``Scenario``.
    actuatorlab.sweep, actuatorlab.sensitivity : Many variants of a scenario.

    Examples
    --------
    >>> import actuatorlab
    >>> arm = actuatorlab.load("arm-relief")
    >>> faster = arm.set("circuit.pump_flow", "300 L/min").set(inputs__bleed=0.2)
    >>> round(faster.get("circuit.pump_flow") * 60000, 6), faster.get("inputs.bleed")
    (300.0, 0.2)
    >>> arm.get("circuit.pump_flow") * 60000  # the base is unchanged
    500.0
    """

    def __init__(self, spec, source: str = "scenario"):
        self._spec = spec
        self._source = source

    def __reduce__(self):
        """Pickled as its fields (plain values, as ``set`` rebuilds it), validated again on loading:
        the schema's signal classes are made at run time and cannot be pickled themselves."""
        return _from_fields, (self._spec.model_dump(), self._source)

    @property
    def name(self) -> str:
        """The scenario's ``name``."""
        return self._spec.name

    @property
    def kind(self) -> str:
        """The scenario kind (``arm``, ``crane-vdc``, …)."""
        return self._spec.kind

    @property
    def spec(self):
        """The validated schema object (pydantic model, SI), for reading nested fields."""
        return self._spec

    def get(self, path: str, unit: str | None = None) -> Any:
        """The value of one field, in SI or in the unit asked for.

        Parameters
        ----------
        path : str
            The field's path as in a scenario file: ``"circuit.pump_flow"``, ``"arms[1].mass"``,
            ``"inputs.bleed"``.
        unit : str, optional
            A pint unit string of the field's dimension (``"L/min"``, ``"bar"``, ``"deg"``);
            None (default): SI.

        Returns
        -------
        float or str or bool or list or dict
            The value (a quantity in SI or in ``unit``); a constant input signal reads as its
            value, other signals as their table.

        Raises
        ------
        ScenarioError
            ``path`` names no field (the message lists the fields there), or ``unit`` is given
            for a field that is not a quantity or is not a unit of the field's dimension.

        Examples
        --------
        >>> import actuatorlab
        >>> arm = actuatorlab.load("arm-relief")
        >>> arm.get("arm.mass"), arm.get("circuit.pump_flow", "L/min")
        (2000.0, 500.0)
        """
        from ..scenarios.variants import get_path

        value = get_path(self._spec.model_dump(), path)
        if isinstance(value, Mapping) and value.get("type") == "constant":
            value = value["value"]
        if unit is None:
            return value
        from ..scenarios.units import DIMENSIONS, from_si

        dimension = get_path(self._spec.model_dump(context={"dimensions": True}), path)
        if isinstance(dimension, Mapping) and dimension.get("type") == "constant":
            dimension = dimension["value"]
        if not (isinstance(dimension, str) and dimension in DIMENSIONS and isinstance(value, float)):
            raise ScenarioError(f"get({path!r}, unit={unit!r}): {path} is not a quantity; read it without a unit")
        return from_si(value, unit, dimension, f"get({path!r}, unit={unit!r})")

    def set(self, path: str | Mapping[str, Any] | None = None, value: Any = None, **fields: Any) -> "Scenario":
        """A new scenario with fields changed, validated as a file would be.

        ``set("circuit.pump_flow", "300 L/min")``, ``set({"inputs.bleed": 0.2, "arm.mass": "2.5 t"})``
        or ``set(inputs__bleed=0.2)`` (``__`` for the dots). This scenario is unchanged.

        Parameters
        ----------
        path : str or Mapping[str, Any], optional
            The field's path (``"circuit.pump_flow"``), or a mapping of several paths to their
            values.
        value : Any, optional
            The new value of ``path``, written as in a scenario file (a quantity string with
            its unit such as ``"300 L/min"``, or a number in SI), or as a pint ``Quantity``
            (``ureg.Quantity(300, "L/min")``).
        **fields : Any
            More fields by keyword, ``__`` standing for the dots (``inputs__bleed=0.2``).

        Returns
        -------
        Scenario
            The changed scenario, validated.

        Raises
        ------
        ScenarioError
            A path names no field, a value is refused by the field (the message names the field
            path, the value and what to change), or no field is given.

        Examples
        --------
        >>> import actuatorlab
        >>> actuatorlab.load("arm-relief").set("arm.mass", "-5 kg")
        Traceback (most recent call last):
        ...
        actuatorlab.errors.ScenarioError: arm-relief with arm.mass = -5 kg: arm.mass = -5.0 kg:
        must be a finite number > 0
        """
        from ..scenarios.variants import set_path

        changes: dict[str, Any] = {}
        if isinstance(path, Mapping):
            changes.update(path)
        elif path is not None:
            changes[path] = value
        elif value is not None:
            raise ScenarioError("set: give the field path with its value, e.g. set('circuit.pump_flow', '300 L/min')")
        changes.update({key.replace("__", "."): v for key, v in fields.items()})
        if not changes:
            raise ScenarioError(
                "set: no field given; e.g. set('circuit.pump_flow', '300 L/min') or set(inputs__bleed=0.2)"
            )
        changes = {field_path: _as_written(new) for field_path, new in changes.items()}
        data = self._spec.model_dump()
        for field_path, new in changes.items():
            data = set_path(data, field_path, new)
        label = f"{self.name} with " + ", ".join(f"{p} = {v}" for p, v in changes.items())
        return Scenario(parse_scenario(data, label), self._source)

    def show(self) -> str:
        """The resolved scenario as TOML, as ``actuatorlab show`` prints it.

        Returns
        -------
        str
            The scenario file's text, every default filled in, quantities with units.
        """
        return scenario_to_toml(self._spec)

    def to_toml(self, path: str | os.PathLike[str]) -> None:
        """Write the scenario as a file that ``actuatorlab run`` and :func:`actuatorlab.load` read back.

        Parameters
        ----------
        path : str or os.PathLike
            The file to write (atomically: it is whole or unchanged) with the text of :meth:`show`.

        Raises
        ------
        OSError
            The file cannot be written (a missing folder, no permission, a full disk).
        """
        atomic_write_text(path, self.show())

    def run(self, progress: StageProgress | None = None, *, processes: int = 1) -> results.RunResult:
        """Simulate in memory (no files) and return the result.

        Parameters
        ----------
        progress : callable, optional
            ``progress(stage, fraction)``, called with the stage ``"simulate"`` and the fraction
            done and, when numba compiles kernels its cache does not hold (the first run after an
            install: seconds), with ``"compiling kernels"`` at fraction 0. None (default): that
            compiling is said in one line on stderr, as the command line does.
        processes : {1, 2}, default 1
            1: in this process. 2: the ``arm`` kind simulates in a forked child (Linux, a process
            with one thread) while this one loads the output's libraries, as ``actuatorlab run``
            does; the result is the same.

        Returns
        -------
        RunResult
            The run's table, key figures, notes and figures, and this scenario.

        Raises
        ------
        SimulationError
            The run cannot go on (for example an unstable time step); the message names the
            time, the state and a remedy.
        ParameterError
            ``processes`` is neither 1 nor 2, or a model parameter is outside its range.
        MissingExtra
            The kind needs an optional dependency that is not installed (the message names the
            extra to install, e.g. ``pip install 'actuatorlab[mujoco]'``).

        Examples
        --------
        >>> import actuatorlab
        >>> result = actuatorlab.load("arm-relief").run()
        >>> result.table.attrs["units"]["theta"], round(result.summary["relief_open_time_s"].value, 3)
        ('rad', 7.412)
        """
        from ..io.forked import check_processes
        from ..numerics.kernel_loading import COMPILING
        from ..scenarios.runner import simulate

        check_processes(processes)
        report = progress or _say_compiling
        output = simulate(
            self._spec,
            lambda fraction: report("simulate", fraction),
            on_compile=lambda: report(COMPILING, 0.0),
            processes=processes,
        )
        from .results import RunResult

        spec = self._spec
        return RunResult(output, self.name, spec.description, self.show(), spec.outputs.csv, spec.outputs.plots, self)

    def __str__(self) -> str:
        return self.show()

    def __repr__(self) -> str:
        return f"<Scenario {self.name!r} (kind {self.kind!r})>"

    def _repr_html_(self) -> str:
        return f"<b>{escape(self.name)}</b> ({escape(self.kind)})<pre>{escape(self.show())}</pre>"


def load(source: str | os.PathLike[str]) -> Scenario:
    """A built-in scenario or a scenario file, validated.

    Parameters
    ----------
    source : str or os.PathLike
        The name of a built-in scenario (``actuatorlab scenarios`` lists them), or the path of a
        TOML scenario file.

    Returns
    -------
    Scenario
        The validated scenario, quantities in SI.

    Raises
    ------
    ScenarioError
        No built-in scenario or file has that name, or the file is not a valid scenario (the
        message names the field, its value and what to change).

    See Also
    --------
    Scenario.set : Change fields of the loaded scenario.

    Examples
    --------
    >>> import actuatorlab
    >>> actuatorlab.load("arm-relief")
    <Scenario 'arm-relief' (kind 'arm')>
    >>> actuatorlab.load("no-such-scenario")
    Traceback (most recent call last):
    ...
    actuatorlab.errors.ScenarioError: no built-in scenario or file named 'no-such-scenario'; ...
    """
    return Scenario(load_scenario(source), os.fspath(source))


def _from_fields(data: Mapping[str, Any], source: str) -> Scenario:
    """A scenario from the fields of ``Scenario.__reduce__``."""
    return Scenario(parse_scenario(data, source), source)


def _as_written(value: Any) -> Any:
    """A pint ``Quantity`` as the quantity string a file would hold ("300.0 liter / minute");
    anything else as it is (checked without importing pint)."""
    if hasattr(value, "magnitude") and hasattr(value, "units") and hasattr(value, "dimensionality"):
        return f"{value.magnitude!r} {value.units}"
    return value


def _say_compiling(stage: str, fraction: float) -> None:
    """The default progress of ``Scenario.run``: one line on stderr when kernels compile."""
    from ..numerics.kernel_loading import COMPILING

    if stage == COMPILING:
        print("compiling kernels, once per machine (later runs load them from the cache) …", file=sys.stderr)

"""Variants of a scenario for sweeps: field paths, grids and random samples, validated up front.

A PATH names a scenario field with dots and list indices, as in the TOML file:
``inputs.bleed``, ``circuit.pump_flow``, ``pressure_dynamics.bulk_modulus``,
``arms[1].initial_angle``. Values are written as in scenario files (``"300 L/min"``, ``0.2``,
``"30 deg"``; a bare number is SI).

- grid: ``PATH=V1,V2,...`` (one axis; several axes make the Cartesian product);
- samples: ``PATH=uniform(LOW, HIGH)``, ``PATH=normal(MEAN, STD)``,
  ``PATH=loguniform(LOW, HIGH)`` with a seed (distribution parameters with units too).

Paths, grid values and distribution parameters are checked before anything runs, each once
(a bad one is reported at once, naming it); the variants themselves are checked where they run
(``set_values`` validates only the tables a variant changes). A combination or a Monte Carlo
draw that the schema or the physics rejects (a normal draw below a field's range) is not the
user's typo but part of the sample: the sweep records it as failed with its values and the reason.
"""

from __future__ import annotations

import copy
import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel, ValidationError

from ..errors import ScenarioError
from .loading import describe_validation_error

DISTRIBUTIONS = ("uniform", "normal", "loguniform")
_DISTRIBUTION = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$")
_INDEX = re.compile(r"^(\w+)\[(\d+)\]$")


@dataclass(frozen=True)
class Variant:
    """One variant: its id, the overrides (PATH → value as written), and the SI value of each."""

    id: int
    overrides: dict[str, Any]
    values: dict[str, float]


def _steps(path: str) -> list[str | int]:
    steps: list[str | int] = []
    for part in path.split("."):
        match = _INDEX.match(part)
        if match:
            steps += [match.group(1), int(match.group(2))]
        elif re.fullmatch(r"\w+", part):
            steps.append(part)
        else:
            raise ScenarioError(
                f"field path {path!r}: {part!r} is not a field name; write e.g. inputs.bleed or arms[0].mass"
            )
    return steps


def _locate(data: dict, path: str) -> tuple[Any, str | int]:
    """The container holding ``path``'s last step, and that step; raises naming the valid keys."""
    steps = _steps(path)
    node: Any = data
    for depth, step in enumerate(steps):
        where = ".".join(str(s) for s in steps[:depth]) or "the scenario"
        if isinstance(step, int):
            if not isinstance(node, list) or not 0 <= step < len(node):
                size = len(node) if isinstance(node, list) else 0
                raise ScenarioError(f"field path {path!r}: index [{step}] is out of range at {where} ({size} entries)")
        elif not isinstance(node, Mapping) or step not in node:
            keys = ", ".join(sorted(node)) if isinstance(node, Mapping) else "none (not a table)"
            raise ScenarioError(f"field path {path!r}: no field {step!r} at {where}; fields there: {keys}")
        if depth == len(steps) - 1:
            return node, step
        node = node[step]
    raise ScenarioError(f"field path {path!r} is empty")


def set_path(data: dict, path: str, value) -> dict:
    """A copy of scenario ``data`` with the field at ``path`` (``circuit.pump_flow``,
    ``arms[1].mass``) set to ``value`` as written in a file (``"300 L/min"`` or a number in SI);
    an unknown path raises ``ScenarioError`` listing the fields there. Validate the result with
    ``parse_scenario``."""
    out = copy.deepcopy(data)
    node, step = _locate(out, path)
    node[step] = value
    return out


def get_path(data: dict, path: str):
    """The value of the field at ``path`` in scenario ``data`` (see :func:`set_path`)."""
    node, step = _locate(data, path)
    return node[step]


def _number(read, path: str, source: str) -> float:
    """The SI number a validated field holds; a constant signal counts as its value."""
    if isinstance(read, Mapping) and read.get("type") == "constant":
        read = read["value"]
    if not isinstance(read, (int, float)) or isinstance(read, bool):
        raise ScenarioError(
            f"{source}: {path} is not a number field (it holds {type(read).__name__}); sweep a number "
            "or a constant signal"
        )
    return float(read)


def set_values(scenario, paths: Sequence[str], values: Sequence) -> Any:
    """A copy of the validated ``scenario`` with the field at each of ``paths`` set to its value
    (SI number or as written, ``"300 L/min"``). Only the tables on the paths are validated again,
    each once (their unit conversions and validators run; the tables beside them are shared, not
    copied), so a variant costs microseconds; build the physics models of the changed tables to
    check them as ``parse_scenario`` does. A value a table rejects raises ``ScenarioError``."""
    tree: dict = {}
    for path, value in zip(paths, values):
        steps = _steps(path)
        node = tree
        for step in steps[:-1]:
            node = node.setdefault(step, {})
            if not isinstance(node, dict):
                raise ScenarioError(f"field path {path!r}: set twice in one variant")
        node[steps[-1]] = _Value(value)
    return _set_on(scenario, tree, "")


@dataclass(frozen=True)
class _Value:
    """A value to set (a leaf of ``set_values``'s tree of steps)."""

    value: Any


def _set_on(node, tree: dict, where: str):
    """``node`` (a validated table, a mapping or a list of them) with the values of ``tree`` (step
    → subtree or ``_Value``) set beneath it; ``where`` names ``node``'s path in messages. A mapping
    comes back as a plain dict that the enclosing table's validation checks."""

    def changed(child, sub, step):
        here = f"{where}[{step}]" if isinstance(step, int) else f"{where}.{step}".lstrip(".")
        return sub.value if isinstance(sub, _Value) else _set_on(child, sub, here)

    if isinstance(node, BaseModel):
        fields = {name: getattr(node, name) for name in type(node).model_fields}
        for step, sub in tree.items():
            if not isinstance(step, str) or step not in fields:
                raise ScenarioError(f"{where or 'the scenario'}: no field {step!r}; fields there: {', '.join(fields)}")
            fields[step] = changed(fields[step], sub, step)
        try:
            return type(node).model_validate(fields)
        except ValidationError as error:
            problem = describe_validation_error(error, type(node))
            raise ScenarioError(f"{where}.{problem}" if where else problem) from None
    if hasattr(node, "as_tables"):  # a value written as tables (a netlist): edited as them, its field validates
        node = node.as_tables()
    if isinstance(node, Mapping):
        entries = dict(node)
        for step, sub in tree.items():
            if step not in entries:
                raise ScenarioError(f"{where}: no entry {step!r}; entries there: {', '.join(map(str, entries))}")
            entries[step] = changed(entries[step], sub, step)
        return entries
    if isinstance(node, (list, tuple)):
        items = list(node)
        for step, sub in tree.items():
            if not isinstance(step, int) or not 0 <= step < len(items):
                raise ScenarioError(f"{where}: no entry [{step}] ({len(items)} entries)")
            items[step] = changed(items[step], sub, step)
        return type(node)(items)
    if node is None:
        raise ScenarioError(
            f"{where}: not given in this scenario (its default applies); write the table in the file "
            "(all its values) to set one beneath it"
        )
    raise ScenarioError(f"{where}: not a table or a list; a value cannot be set beneath it")


def read_value(scenario, path: str, source: str) -> float:
    """The SI number at ``path`` of a validated ``scenario`` (a constant signal: its value)."""
    node: Any = scenario
    for step in _steps(path):
        if hasattr(node, "as_tables"):
            node = node.as_tables()
        node = node[step] if isinstance(step, int) or isinstance(node, Mapping) else getattr(node, step)
    if isinstance(node, BaseModel):
        node = node.model_dump()
    return _number(node, path, source)


def checked_value(scenario, path: str, value, source: str) -> float:
    """``value`` (as written) set at ``path`` of ``scenario``, checked as a run checks it (schema,
    physics models, input ranges), and read back in SI."""
    changed = set_values(scenario, [path], [value])
    try:
        changed.check()
        if hasattr(changed, "check_inputs"):  # input ranges over time (valve commands, openings)
            changed.check_inputs(changed.simulation.times())
    except ScenarioError as error:
        raise ScenarioError(f"{source}: {error}") from None
    return read_value(changed, path, source)


@dataclass(frozen=True, eq=False)
class Variants:
    """Variants of a scenario: the varied field ``paths`` and their SI ``values`` (one row per
    variant, one column per path), with their ``ids``; ``sampled``: Monte Carlo or design draws
    (the report draws histograms) rather than a grid."""

    paths: tuple[str, ...]
    values: np.ndarray
    ids: np.ndarray
    sampled: bool = False

    @classmethod
    def of(cls, paths: Sequence[str], values, sampled: bool = False) -> Variants:
        """Variants 0 … n−1 with ``values`` (n, len(paths)) [SI]."""
        values = np.asarray(values, dtype=np.float64).reshape(len(values), len(paths))
        return cls(tuple(paths), values, np.arange(len(values)), sampled)

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, which) -> Variants:
        """The variants at ``which`` (a slice, an index array or a boolean mask), ids kept."""
        return Variants(self.paths, self.values[which], self.ids[which], self.sampled)

    def row(self, i: int) -> dict[str, float]:
        """PATH → SI value of the i-th variant here (not variant id i)."""
        return dict(zip(self.paths, map(float, self.values[i])))

    def varied(self) -> list[str]:
        """The paths whose values differ between variants (all paths if none do)."""
        return [p for p, column in zip(self.paths, self.values.T) if np.unique(column).size > 1] or list(self.paths)


def _split(text: str, what: str) -> tuple[str, str]:
    if "=" not in text:
        raise ScenarioError(f"{what} {text!r}: write PATH=VALUES, e.g. inputs.bleed=0.1,0.2,0.3")
    path, values = text.split("=", 1)
    return path.strip(), values.strip()


def _value(text: str):
    """A number if the text is one, else the text (a quantity with a unit)."""
    try:
        return float(text)
    except ValueError:
        return text.strip().strip('"')


def grid_variants(scenario, specs: Sequence[str]) -> Variants:
    """The Cartesian product of the ``--grid`` axes (``PATH=V1,V2,...``). Each axis value is
    checked once, on its own, as a run would check it (a bad value names its axis); a combination
    the physics rejects (a rod area above the head area) runs as a failed variant with the reason."""
    base = scenario.model_dump()
    paths, axes = [], []
    for spec in specs:
        path, values = _split(spec, "--grid")
        _locate(base, path)
        items = [_value(v) for v in values.split(",") if v.strip()]
        if not items:
            raise ScenarioError(f"--grid {spec!r}: no values; write e.g. {path}=0.1,0.2,0.3")
        paths.append(path)
        axes.append([checked_value(scenario, path, item, f"--grid {path}={item}") for item in items])
    return Variants.of(paths, list(itertools.product(*axes)))


def check_seed(seed: int) -> None:
    """Refuse a seed numpy's generators cannot take (a negative one)."""
    if seed < 0:
        raise ScenarioError(f"--seed {seed}: give a seed >= 0")


def sample_variants(scenario, specs: Sequence[str], samples: int, seed: int = 0) -> Variants:
    """``samples`` variants with each ``--vary`` PATH drawn from its distribution (SI values).

    The distribution's parameters are checked once; a draw the schema or the physics rejects (a
    normal draw below a field's range) is part of the sample: it runs as a failed variant with
    its values and the reason."""
    if samples < 1:
        raise ScenarioError(f"--samples {samples}: give at least 1")
    check_seed(seed)
    rng = np.random.default_rng(seed)
    paths, columns = [], []
    for path, name, (a, b), spec in parse_distributions(scenario, specs):
        paths.append(path)
        columns.append(_draw(name, a, b, samples, rng, spec))
    return Variants.of(paths, np.column_stack(columns), sampled=True)


def parse_distributions(scenario, specs: Sequence[str]) -> list[tuple[str, str, tuple[float, float], str]]:
    """(PATH, distribution name, its two parameters in SI, spec) per ``--vary PATH=DIST`` spec;
    the parameters are checked as values of the field."""
    if not specs:
        raise ScenarioError('give at least one --vary PATH=DISTRIBUTION, e.g. --vary "inputs.bleed=uniform(0.1, 0.5)"')
    base = scenario.model_dump()
    out = []
    for spec in specs:
        path, text = _split(spec, "--vary")
        _locate(base, path)
        match = _DISTRIBUTION.match(text)
        if not match or match.group(1) not in DISTRIBUTIONS:
            raise ScenarioError(
                f"--vary {spec!r}: write PATH=uniform(LOW, HIGH), normal(MEAN, STD) or "
                "loguniform(LOW, HIGH), parameters with units if the field has one"
            )
        name = match.group(1)
        params = [_value(p) for p in match.group(2).split(",")]
        if len(params) != 2:
            raise ScenarioError(f"--vary {spec!r}: {name} takes two parameters")
        source = f"--vary {spec!r}"
        if name == "normal":  # the standard deviation is a difference: its sign and unit, not its range
            a = checked_value(scenario, path, params[0], source)
            b = _si_difference(scenario, path, params[1], source)
        else:
            a, b = (checked_value(scenario, path, p, source) for p in params)
        _check_parameters(name, a, b, spec)
        out.append((path, name, (a, b), spec))
    return out


def _si_difference(scenario, path: str, value, source: str) -> float:
    """``value`` (as written) in the SI unit of the field at ``path``, without the field's range checks."""
    return read_value(set_values(scenario, [path], [value]), path, source)


def _check_parameters(name: str, a: float, b: float, spec: str) -> None:
    if name == "normal":
        if not b > 0.0:
            raise ScenarioError(f"--vary {spec!r}: the standard deviation must be > 0")
        return
    if not a < b:
        raise ScenarioError(f"--vary {spec!r}: need LOW < HIGH")
    if name == "loguniform" and not a > 0.0:
        raise ScenarioError(f"--vary {spec!r}: loguniform needs LOW > 0")


def _draw(name: str, a: float, b: float, n: int, rng, spec: str) -> np.ndarray:
    if name == "normal":
        return rng.normal(a, b, n)
    if name == "uniform":
        return rng.uniform(a, b, n)
    return np.exp(rng.uniform(math.log(a), math.log(b), n))


def with_values(base: dict, values: Mapping[str, float]) -> dict:
    """The scenario data ``base`` (SI, plain: ``model_dump()``) with ``values`` (PATH → SI) set,
    ready for ``parse_scenario``; ``base`` is not changed."""
    data = copy.deepcopy(base)
    for path, value in values.items():
        node, step = _locate(data, path)
        node[step] = value
    return data

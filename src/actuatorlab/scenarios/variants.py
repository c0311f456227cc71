"""Variants of a scenario for sweeps: field paths, grids and random samples, validated up front.

A PATH names a scenario field with dots and list indices, as in the TOML file:
``inputs.bleed``, ``circuit.pump_flow``, ``pressure_dynamics.bulk_modulus``,
``arms[1].initial_angle``. Values are written as in scenario files (``"300 L/min"``, ``0.2``,
``"30 deg"``; a bare number is SI).

- grid: ``PATH=V1,V2,...`` (one axis; several axes make the Cartesian product);
- samples: ``PATH=uniform(LOW, HIGH)``, ``PATH=normal(MEAN, STD)``,
  ``PATH=loguniform(LOW, HIGH)`` with a seed (distribution parameters with units too).

Every variant is validated with the scenario schema before anything runs, so a bad path or
grid value is reported at once, naming the variant. A Monte Carlo draw that the schema rejects
(a normal draw below a field's range) is not the user's typo but part of the sample: it is kept,
and the sweep records it as failed with its values and the reason.
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

from ..errors import ScenarioError
from .loading import parse_scenario

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
            raise ScenarioError(f"field path {path!r}: {part!r} is not a field name; write e.g. inputs.bleed or arms[0].mass")
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
        raise ScenarioError(f"{source}: {path} is not a number field (it holds {type(read).__name__}); sweep a number "
                            "or a constant signal")
    return float(read)


def _si_value(base: dict, path: str, value, source: str) -> float:
    """``value`` (as written) converted to SI by validating it in place, then read back."""
    scenario = parse_scenario(set_path(base, path, value), source)
    return _number(get_path(scenario.model_dump(), path), path, source)


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


def grid_axes(scenario, specs: Sequence[str]) -> list[tuple[str, list]]:
    """(PATH, values as written) per ``--grid`` spec."""
    base = scenario.model_dump()
    axes = []
    for spec in specs:
        path, values = _split(spec, "--grid")
        _locate(base, path)
        items = [_value(v) for v in values.split(",") if v.strip()]
        if not items:
            raise ScenarioError(f"--grid {spec!r}: no values; write e.g. {path}=0.1,0.2,0.3")
        axes.append((path, items))
    return axes


def grid_variants(scenario, specs: Sequence[str]) -> list[Variant]:
    """The Cartesian product of the ``--grid`` axes, each variant validated."""
    axes = grid_axes(scenario, specs)
    base = scenario.model_dump()
    variants = []
    for i, combo in enumerate(itertools.product(*(values for _, values in axes))):
        overrides = {path: value for (path, _), value in zip(axes, combo)}
        variants.append(_validated(base, i, overrides))
    return variants


def sample_variants(scenario, specs: Sequence[str], samples: int, seed: int = 0) -> list[Variant]:
    """``samples`` variants with each ``--vary`` PATH drawn from its distribution (SI values)."""
    if samples < 1:
        raise ScenarioError(f"--samples {samples}: give at least 1")
    base = scenario.model_dump()
    rng = np.random.default_rng(seed)
    draws = {}
    for spec in specs:
        path, text = _split(spec, "--vary")
        _locate(base, path)
        match = _DISTRIBUTION.match(text)
        if not match or match.group(1) not in DISTRIBUTIONS:
            raise ScenarioError(f"--vary {spec!r}: write PATH=uniform(LOW, HIGH), normal(MEAN, STD) or "
                                "loguniform(LOW, HIGH), parameters with units if the field has one")
        name = match.group(1)
        params = [_value(p) for p in match.group(2).split(",")]
        if len(params) != 2:
            raise ScenarioError(f"--vary {spec!r}: {name} takes two parameters")
        a, b = (_si_value(base, path, p, f"--vary {spec!r}") for p in params)
        draws[path] = _draw(name, a, b, samples, rng, spec)
    return [_drawn(base, i, {path: float(values[i]) for path, values in draws.items()}) for i in range(samples)]


def _drawn(base: dict, variant_id: int, overrides: dict[str, float]) -> Variant:
    """A sampled variant; one whose draw the schema rejects (a normal draw below a field's range)
    is kept with its SI values, so the sweep records it as failed with the reason and goes on."""
    try:
        return _validated(base, variant_id, overrides)
    except ScenarioError:
        return Variant(variant_id, overrides, dict(overrides))


def _draw(name: str, a: float, b: float, n: int, rng, spec: str) -> np.ndarray:
    if name == "normal":
        if not b > 0.0:
            raise ScenarioError(f"--vary {spec!r}: the standard deviation must be > 0")
        return rng.normal(a, b, n)
    if not a < b:
        raise ScenarioError(f"--vary {spec!r}: need LOW < HIGH")
    if name == "uniform":
        return rng.uniform(a, b, n)
    if not a > 0.0:
        raise ScenarioError(f"--vary {spec!r}: loguniform needs LOW > 0")
    return np.exp(rng.uniform(math.log(a), math.log(b), n))


def _validated(base: dict, variant_id: int, overrides: dict[str, Any]) -> Variant:
    data = base
    for path, value in overrides.items():
        data = set_path(data, path, value)
    source = f"variant {variant_id} ({_describe(overrides)})"
    scenario = parse_scenario(data, source)
    if hasattr(scenario, "check_inputs"):  # input ranges over time (valve commands, openings)
        try:
            scenario.check_inputs(scenario.simulation.times())
        except ScenarioError as error:
            raise ScenarioError(f"{source}: {error}") from None
    dumped = scenario.model_dump()
    return Variant(variant_id, overrides, {path: _number(get_path(dumped, path), path, source) for path in overrides})


def _describe(overrides: Mapping[str, Any]) -> str:
    return ", ".join(f"{path} = {value}" for path, value in overrides.items())


def with_values(base: dict, variant: Variant) -> dict:
    """The scenario data ``base`` (SI, plain: ``model_dump()``) with ``variant``'s values set,
    ready for ``parse_scenario``; ``base`` is not changed."""
    data = copy.deepcopy(base)
    for path, value in variant.values.items():
        node, step = _locate(data, path)
        node[step] = value
    return data

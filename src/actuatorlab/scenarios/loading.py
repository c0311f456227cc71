"""Load scenarios from built-in names or TOML files, and write them back as TOML.

Every problem a user can cause comes out as one :class:`~actuatorlab.errors.ScenarioError`
of one or two lines: ``FILE: FIELD.PATH: problem; remedy``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, get_args, get_origin

import tomli_w
from pydantic import BaseModel, ValidationError

from ..errors import ScenarioError
from .sources import read_source, source_folder
from .kinds import KINDS
from .schema import LOC_TAGS, Scenario, scenario_class
from .spec_base import FieldError, QuantityMarker
from .toml_text import parse
from .units import DIMENSIONS

scenario_folder: ContextVar[Path | None] = ContextVar("scenario_folder", default=None)
"""The folder of the scenario file being parsed (files named in it are relative to it)."""


def load_scenario(source: str | os.PathLike) -> Scenario:
    """Load and validate a scenario.

    Parameters
    ----------
    source : str or path-like
        A built-in name (see ``scenarios.sources.builtin_scenarios``) or the path of a TOML scenario file.

    Returns
    -------
    ArmScenario or GammaMapScenario
        The validated scenario, all quantities in SI.

    Raises
    ------
    ScenarioError
        Unknown name or missing file, TOML syntax error, schema violation or a value the
        physics models reject, with the field path and what to change.
    """
    text, label = read_source(source)
    folder = source_folder(source)
    data = parse(text, label)
    token = scenario_folder.set(folder)
    try:
        return parse_scenario(data, label)
    finally:
        scenario_folder.reset(token)


def parse_scenario(data: Mapping[str, Any], source: str = "scenario") -> Scenario:
    """Validate already-parsed TOML data as a scenario; ``source`` labels error messages.

    Picks the model by ``kind``, validates it, then builds every physics model once so that
    values the dataclasses reject also raise :class:`~actuatorlab.errors.ScenarioError` naming the field.
    """
    kinds = ", ".join(f'"{kind}"' for kind in KINDS)
    if "kind" not in data:
        raise ScenarioError(f"{source}: kind: missing; add kind = one of {kinds} at the top of the file")
    kind = data["kind"]
    if not isinstance(kind, str) or kind not in KINDS:
        raise ScenarioError(f"{source}: kind = {_show(kind)} is not a scenario kind; valid kinds are {kinds}")
    cls = scenario_class(kind)
    try:
        scenario = cls.model_validate(data)
    except ValidationError as error:
        raise ScenarioError(f"{source}: {describe_validation_error(error, cls)}") from None
    try:
        scenario.check()
    except ScenarioError as error:
        raise ScenarioError(f"{source}: {error}") from None
    return scenario


# ---------------------------------------------------------------------------------------------
# Validation errors → one line


def _show(value) -> str:
    """A received value as it would look in TOML: strings in double quotes."""
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    return repr(value)


def _path(loc: tuple) -> str:
    """Dotted TOML path of a pydantic error location: ``('panels', 1, 'u_c')`` → ``panels[1].u_c``."""
    out = ""
    for item in loc:
        if isinstance(item, int):
            out += f"[{item}]"
        elif item not in LOC_TAGS:
            out += f".{item}" if out else str(item)
    return out


def _models_in(annotation) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in get_args(annotation) for model in _models_in(arg)]


def _field_at(root: type[BaseModel], loc: tuple):
    """The pydantic FieldInfo a location points to, or None when it cannot be resolved."""
    candidates, info = [root], None
    for item in loc:
        if isinstance(item, int):
            continue
        if item in LOC_TAGS:
            tagged = [c for c in candidates if getattr(c.model_fields.get("type"), "default", None) == item]
            candidates = tagged or candidates
            continue
        owner = next((c for c in candidates if item in c.model_fields), None)
        if owner is None:
            return None
        info = owner.model_fields[item]
        candidates = _models_in(info.annotation)
    return info


def _example(info) -> str:
    """A value to suggest for a missing field: a quantity of its dimension, or "..."."""
    markers = list(info.metadata) + [m for arg in get_args(info.annotation) for m in getattr(arg, "__metadata__", ())]
    example = "..."
    for marker in markers:
        if isinstance(marker, QuantityMarker):
            example = DIMENSIONS[marker.dimension].example
            break
    else:
        if info.annotation is str:
            example = '"..."'
    return f"[{example}, ...]" if get_origin(info.annotation) in (list, tuple) else example


def _missing(root: type[BaseModel], loc: tuple) -> str:
    path, parent = _path(loc), _path(loc[:-1])
    info = _field_at(root, loc)
    if info is not None and isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
        return f"required but missing; add a [{path}] table"
    if info is not None and get_args(info.annotation) and _models_in(info.annotation):
        return f"required but missing; add at least one [[{path}]] table"
    example = _example(info) if info is not None else "..."
    where = f"[{parent}]" if parent else "the top of the file"
    return f"required but missing; add {loc[-1]} = {example} to {where}"


def _problem(root: type[BaseModel], error: dict) -> tuple[str, str]:
    """(path, problem and remedy) of one pydantic error."""
    loc, kind = tuple(error["loc"]), error["type"]
    path = _path(loc)
    cause = (error.get("ctx") or {}).get("error")
    if kind == "value_error" and isinstance(cause, FieldError):
        return (f"{path}.{cause.field}" if path else cause.field), str(cause)
    if kind in ("value_error", "assertion_error") and cause is not None:
        return path, str(cause)
    if kind == "missing":
        return path, _missing(root, loc)
    received = error.get("input")
    if kind == "literal_error":
        expected = str(error["ctx"]["expected"]).replace("'", '"')
        return path, f"{_show(received)} is not allowed; use one of {expected}"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return path, f"expected a table, received {_show(received)}"
    text = error["msg"]
    return path, f"{text[:1].lower()}{text[1:]}; received {_show(received)}"


def describe_validation_error(error: ValidationError, root: type[BaseModel]) -> str:
    """``FIELD.PATH: problem; remedy`` for the first problem, plus ``(and N more problems)``."""
    problems = error.errors()
    path, text = _problem(root, problems[0])
    message = f"{path}: {text}" if path else text
    if len(problems) > 1:
        more = len(problems) - 1
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    return message


# ---------------------------------------------------------------------------------------------
# Writing


def _plain(value):
    """Dump tree → TOML-ready: tuples to lists, a constant signal table to its bare value."""
    if isinstance(value, Mapping):
        if value.get("type") == "constant" and set(value) == {"type", "value"}:
            return _plain(value["value"])
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def scenario_to_toml(scenario: Scenario) -> str:
    """The resolved scenario as TOML: every default filled in, quantities in display units.

    Loading the text again (:func:`load_scenario`) gives an equal scenario.
    """
    data = scenario.model_dump(context={"display": True}, exclude_none=True)
    data = {"kind": data.pop("kind"), **data}  # the kind first, as a reader looks for it
    header = f"# Scenario {scenario.name!r} with every default filled in.\n"
    return header + tomli_w.dumps(_plain(data))

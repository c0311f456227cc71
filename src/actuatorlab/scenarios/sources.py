"""Where scenario files come from: the built-in ones shipped in the package, or a path.

Kept apart from the schema so that listing the built-in scenarios (``actuatorlab scenarios``)
reads a few TOML files and imports neither pydantic nor the physics.
"""

from __future__ import annotations

import os
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import ScenarioError
from .toml_text import decode

BUILTIN_DIR = "builtin"
"""Folder of the built-in scenarios inside the ``actuatorlab.scenarios`` package."""


def _builtin_files() -> dict[str, Any]:
    folder = resources.files("actuatorlab.scenarios") / BUILTIN_DIR
    return {
        entry.name[: -len(".toml")]: entry
        for entry in folder.iterdir()
        if entry.name.endswith(".toml") and entry.is_file()
    }


def builtin_scenarios() -> dict[str, str]:
    """Built-in scenario names (sorted) mapped to their one-line descriptions."""
    out = {}
    for name, entry in sorted(_builtin_files().items()):
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
        out[name] = str(data.get("description", ""))
    return out


def read_source(source: str | os.PathLike) -> tuple[str, str]:
    """(text, label for messages) of a built-in name or a file path."""
    builtins = _builtin_files()
    if isinstance(source, str) and source in builtins:
        return builtins[source].read_text(encoding="utf-8"), f"{source} (built-in)"
    path = Path(source).expanduser()
    label = os.fspath(source)
    if path.is_dir():
        raise ScenarioError(f"{label} is a folder; give a scenario file such as {path / 'scenario.toml'}")
    if not path.exists():
        raise ScenarioError(
            f"no built-in scenario or file named {label!r}; built-in scenarios are "
            f"{', '.join(sorted(builtins))}, or give the path of a .toml file"
        )
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ScenarioError(f"{label}: cannot be read ({error}); check the file and its permissions") from None
    return decode(data, label), label


def source_folder(source: str | os.PathLike) -> Path:
    """The folder of a built-in scenario or a scenario file: files it names are relative to it."""
    builtins = _builtin_files()
    if isinstance(source, str) and source in builtins:
        return Path(str(builtins[source])).parent
    return Path(source).expanduser().absolute().parent

"""The EMLAs of Bahari et al. Table I from ``data/actuators.toml`` (values and their sources are
commented in the file; most are documented assumptions, the paper gives no plant data)."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

from ..errors import ParameterError
from .emla import EMLA
from .losses import Inverter
from .pmsm import PMSM
from .screw import Gearbox, Screw

DATA_FILE = Path(__file__).with_name("data") / "actuators.toml"
JOINTS = ("lift", "tilt", "extension")
_PARTS = {"motor": PMSM, "screw": Screw, "gearbox": Gearbox, "inverter": Inverter}
_INFO = ("linear_unit", "motor_model")


def _build(cls, table: dict, where: str):
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(table) - names)
    if unknown:
        raise ParameterError(f"{where}: unknown key(s) {unknown}; valid keys: {sorted(names - {'name'})}")
    try:
        return cls(**{"name": where, **table})
    except TypeError as exc:  # a required field missing
        raise ParameterError(f"{where}: {exc}") from None


def emla_from_table(name: str, table: dict) -> EMLA:
    """Build one :class:`~actuatorlab.electromech.emla.EMLA` from a TOML table with sub-tables
    motor, screw[, gearbox, inverter]."""
    table = dict(table)
    for key in _INFO:
        table.pop(key, None)
    parts = {}
    for key, cls in _PARTS.items():
        sub = table.pop(key, None)
        if sub is None:
            if key in ("motor", "screw"):
                raise ParameterError(f"{name}: missing [{name}.{key}] table")
            continue
        parts[key] = _build(cls, sub, f"{name}.{key}")
    return _build(EMLA, {**table, **parts}, name)


def load_actuators(path: str | Path | None = None) -> dict[str, EMLA]:
    """Joint name → :class:`~actuatorlab.electromech.emla.EMLA` for ``"lift"``, ``"tilt"`` and
    ``"extension"`` (the paper's telescope), Table I. ``path`` defaults to the package's
    ``data/actuators.toml``."""
    path = Path(path) if path is not None else DATA_FILE
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ParameterError(f"actuator file {path} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError(f"actuator file {path}: {exc}") from None
    return {name: emla_from_table(name, table) for name, table in data.items()}

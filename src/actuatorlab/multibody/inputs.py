"""The inputs of a MuJoCo run with cylinders: the MJCF model, and signals sampled on the step grid.

A signal (``Signal`` of :mod:`.cylinders`) is a constant, an array with one sample per step
t_k = k·h [s], or a callable of t. Valve commands u_c ∈ [−1, 1] (> 0 extends), bleed openings
u_b ∈ [0, 1] and regeneration openings u_a ∈ [0, 1] become the opening arrays of the kernel
(normalised openings for quasistatic cylinders, raw openings for pressure cylinders); site
loads are forces [N] in the world frame.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import mujoco
import numpy as np

from ..errors import ParameterError
from ..hydraulics.pressure_dynamics import N_OPENINGS, openings_from_command
from ..hydraulics.quasistatic.circuit import Openings, normalised_openings
from .cylinders import Cylinder, PressureCylinder, Signal, SiteLoad


def load_model(source) -> mujoco.MjModel:
    """An ``MjModel`` from a model, an MJCF file path, or an MJCF XML string."""
    if isinstance(source, mujoco.MjModel):
        return source
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not source.lstrip().startswith("<")):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise ParameterError(f"MJCF model {path!r}: no such file; give a path to an MJCF file or the XML text")
        try:
            return mujoco.MjModel.from_xml_path(path)
        except ValueError as err:
            raise ParameterError(f"MJCF model {path!r} cannot be loaded: {err}") from None
    if isinstance(source, str):
        try:
            return mujoco.MjModel.from_xml_string(source)
        except ValueError as err:
            raise ParameterError(f"MJCF model (XML string) cannot be loaded: {err}") from None
    raise ParameterError(f"model = {type(source).__name__}: give an MjModel, an MJCF path or an MJCF XML string")


def sample_signal(name: str, signal, t: np.ndarray, width: int | None = None) -> np.ndarray:
    """Sample an input on the grid ``t``: shape (n,) or (n, width)."""
    n = t.size
    shape = (n,) if width is None else (n, width)
    if callable(signal):
        try:
            values = np.asarray(signal(t), dtype=np.float64)
            if values.shape != shape:
                values = np.broadcast_to(values, shape).copy() if values.size in (1, width or 1) else None
        except Exception:  # noqa: BLE001 — a scalar-only callable; sample it point by point
            values = None
        if values is None:
            values = np.array([np.asarray(signal(float(tk)), dtype=np.float64) for tk in t]).reshape(shape)
    else:
        values = np.asarray(signal, dtype=np.float64)
        if values.ndim == (0 if width is None else 1):
            values = np.broadcast_to(values, shape).copy()
        if values.shape != shape:
            raise ParameterError(
                f"{name}: array of shape {values.shape}; give one sample per step, shape {shape} "
                f"(or a constant, or a callable of t)"
            )
    if not np.all(np.isfinite(values)):
        raise ParameterError(f"{name}: every sample must be a finite number")
    return values


def initial_load(load: SiteLoad) -> np.ndarray:
    """The force [N] of ``load`` at t = 0."""
    if callable(load.force):
        return sample_signal(f"load at {load.site!r}", load.force, np.zeros(1), 3)[0]
    values = np.asarray(load.force, dtype=np.float64)
    values = values[0] if values.ndim == 2 else values
    if values.shape != (3,) or not np.all(np.isfinite(values)):
        raise ParameterError(f"load at {load.site!r}: give a finite 3-vector [N], an array (n_steps, 3) or a callable")
    return values


def sample_openings(actuators: Sequence[Cylinder], pump_groups: Sequence[np.ndarray], t: np.ndarray,
                    valve_commands: Mapping[str, Signal], bleed: Mapping[str, Signal] | Signal,
                    regeneration: Mapping[str, Signal] | None) -> tuple[np.ndarray, ...]:
    """(u_c, u_b (n_steps, n), normalised openings (n_steps, n, 5), raw openings (n_steps, n, 6))
    of ``actuators`` on the grid ``t`` [s]; missing names are held closed (u_c = 0), ``bleed`` is
    one signal for all or one per name and must be equal within each of ``pump_groups`` (edge
    arrays of consecutive [start, stop) groups); ``regeneration`` u_a applies to pressure
    cylinders only (default 0)."""
    n = t.size
    names = {a.name for a in actuators}
    unknown = sorted(set(valve_commands) - names)
    if unknown:
        raise ParameterError(f"valve_commands: unknown actuators {unknown}; the actuators are {sorted(names)}")
    n_act = len(actuators)
    u_c = np.zeros((n, n_act))
    u_b = np.zeros((n, n_act))
    u_a = np.zeros((n, n_act))
    for i, a in enumerate(actuators):
        u_c[:, i] = sample_signal(f"valve_commands[{a.name!r}]", valve_commands.get(a.name, 0.0), t)
        if isinstance(bleed, Mapping):
            extra = sorted(set(bleed) - names)
            if extra:
                raise ParameterError(f"bleed: unknown actuators {extra}; the actuators are {sorted(names)}")
            u_b[:, i] = sample_signal(f"bleed[{a.name!r}]", bleed.get(a.name, 0.0), t)
        else:
            u_b[:, i] = sample_signal("bleed", bleed, t)
        if regeneration and a.name in regeneration:
            if not isinstance(a, PressureCylinder):
                raise ParameterError(f"regeneration[{a.name!r}]: only PressureCylinder actuators take u_a here")
            u_a[:, i] = sample_signal(f"regeneration[{a.name!r}]", regeneration[a.name], t)
    for edges in pump_groups:
        for g in range(edges.size - 1):
            s, e = edges[g], edges[g + 1]
            if np.any(u_b[:, s:e] != u_b[:, s:s + 1]):
                raise ParameterError(
                    f"bleed: the cylinders {[a.name for a in actuators[s:e]]} share one pump and its "
                    "bleed valve; give them the same u_b"
                )
    uhs = np.zeros((n, n_act, 5))
    raw = np.zeros((n, n_act, N_OPENINGS))
    for i, a in enumerate(actuators):
        try:
            openings = Openings.from_command(u_c[:, i], u_b[:, i])
        except ParameterError as err:
            raise ParameterError(f"actuator {a.name!r}: {err}") from None
        if isinstance(a, PressureCylinder):
            raw[:, i] = openings_from_command(u_c[:, i], u_b[:, i], u_a[:, i])
        else:
            uhs[:, i] = normalised_openings(a.circuit, openings)
    return u_c, u_b, uhs, raw

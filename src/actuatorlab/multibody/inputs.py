"""The inputs of a MuJoCo run with cylinders: the MJCF model, and signals sampled on the step grid.

A signal (``Signal`` of :mod:`.cylinders`) is a constant, an array with one sample per step
t_k = k·h [s], or a callable of t. Valve commands u_c ∈ [−1, 1] (> 0 extends), bleed openings
u_b ∈ [0, 1] (or an open-centre bleed that follows the commands) and regeneration openings
u_a ∈ [0, 1] become the tables of the compiled loop (:mod:`.loop`), which forms the openings
of (67) at each step; site loads are forces [N] and moments [N m] in the world frame.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import mujoco
import numpy as np

from ..errors import ParameterError
from ..hydraulics.quasistatic.circuit import Openings, ValveCircuit, normalised_openings
from .loop import B_AUTO, B_GROUP, B_MIN, B_SPAN, N_BLEED
from .cylinders import Cylinder, PressureCylinder, Signal, SiteLoad
from .open_centre import OpenCentreBleed


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


def _initial(name: str, signal) -> np.ndarray:
    """The 3-vector of ``signal`` at t = 0."""
    if callable(signal):
        return sample_signal(name, signal, np.zeros(1), 3)[0]
    values = np.asarray(signal, dtype=np.float64)
    values = values[0] if values.ndim == 2 else values
    if values.shape != (3,) or not np.all(np.isfinite(values)):
        raise ParameterError(f"{name}: give a finite 3-vector, an array (n_steps, 3) or a callable")
    return values


def initial_load(load: SiteLoad) -> tuple[np.ndarray, np.ndarray]:
    """(force [N], moment [N m]) of ``load`` at t = 0."""
    moment = np.zeros(3) if load.moment is None else _initial(f"moment at {load.site!r}", load.moment)
    return _initial(f"load at {load.site!r}", load.force), moment


def valve_scale(circuit: ValveCircuit) -> np.ndarray:
    """(5,) factors u → û of the four main valves and the bleed, (40)–(43): û = u·scale."""
    return normalised_openings(circuit, Openings(1.0, 1.0, 0.0, 0.0, 1.0)) + normalised_openings(
        circuit, Openings(0.0, 0.0, 1.0, 1.0, 0.0)
    )


def sample_inputs(
    actuators: Sequence[Cylinder],
    groups: np.ndarray,
    t: np.ndarray,
    valve_commands: Mapping[str, Signal],
    bleed,
    regeneration: Mapping[str, Signal] | None,
) -> tuple[np.ndarray, ...]:
    """(u_c, u_b (n_steps, n), the bleed table (n, N_BLEED) of :mod:`.loop`, u_a (n_steps, n)) of
    ``actuators`` on the grid ``t`` [s]; ``groups`` (n,): the pump group of each cylinder.

    Missing names are held closed (u_c = 0) and every u_c must lie in [−1, 1]; ``bleed`` is one
    signal or ``OpenCentreBleed`` for all, or one per name, equal within each pump group;
    ``regeneration`` u_a applies to pressure cylinders only (default 0)."""
    n = t.size
    names = {a.name for a in actuators}
    unknown = sorted(set(valve_commands) - names)
    if unknown:
        raise ParameterError(f"valve_commands: unknown actuators {unknown}; the actuators are {sorted(names)}")
    if isinstance(bleed, Mapping):
        extra = sorted(set(bleed) - names)
        if extra:
            raise ParameterError(f"bleed: unknown actuators {extra}; the actuators are {sorted(names)}")
    n_act = len(actuators)
    u_c = np.zeros((n, n_act))
    u_b = np.zeros((n, n_act))
    u_a = np.zeros((n, n_act))
    table = np.zeros((n_act, N_BLEED))
    table[:, B_GROUP] = groups
    for i, a in enumerate(actuators):
        u_c[:, i] = sample_signal(f"valve_commands[{a.name!r}]", valve_commands.get(a.name, 0.0), t)
        bad = np.flatnonzero(~((u_c[:, i] >= -1.0) & (u_c[:, i] <= 1.0)))
        if bad.size:
            raise ParameterError(
                f"actuator {a.name!r}: u_c = {u_c[bad[0], i]!r} at t = {t[bad[0]]:g} s: the valve "
                "command must lie in [-1, 1]"
            )
        spec = bleed.get(a.name, 0.0) if isinstance(bleed, Mapping) else bleed
        if isinstance(spec, OpenCentreBleed):
            table[i, [B_AUTO, B_SPAN, B_MIN]] = 1.0, spec.span, spec.minimum
        else:
            u_b[:, i] = sample_signal(f"bleed[{a.name!r}]", spec, t)
            if np.any(~((u_b[:, i] >= 0.0) & (u_b[:, i] <= 1.0))):
                raise ParameterError(f"bleed[{a.name!r}]: the bleed opening u_b must lie in [0, 1]")
        if regeneration and a.name in regeneration:
            if not isinstance(a, PressureCylinder):
                raise ParameterError(f"regeneration[{a.name!r}]: only PressureCylinder actuators take u_a here")
            u_a[:, i] = sample_signal(f"regeneration[{a.name!r}]", regeneration[a.name], t)
            if np.any(~((u_a[:, i] >= 0.0) & (u_a[:, i] <= 1.0))):
                raise ParameterError(f"regeneration[{a.name!r}]: the opening u_a must lie in [0, 1]")
    for g in np.unique(groups):
        members = np.flatnonzero(groups == g)
        first = members[0]
        if np.any(table[members, :B_GROUP] != table[first, :B_GROUP]) or np.any(u_b[:, members] != u_b[:, [first]]):
            raise ParameterError(
                f"bleed: the cylinders {[actuators[i].name for i in members]} share one pump and its "
                "bleed valve; give them the same u_b"
            )
    return u_c, u_b, table, u_a

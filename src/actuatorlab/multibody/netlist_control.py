"""Closed loops of a netlist machine: each actuator's PI loop drives spool positions of the netlist.

A loop (``ClosedLoop`` of ``multibody.closed_loop``: a stroke or joint target and a sampled PI
controller) of a cylinder or motor of :class:`.netlist_machine.NetlistMujocoSystem` turns its
error into a command u_c ∈ [−limit, limit] that becomes the position of every spool it
``drives`` (the network inputs ``"spool.position"``: a section's meter-in and directional
lands, say), each through its spool's first-order lag τ ẋ = u_c − x (exact for the command held
over a step, as :func:`actuatorlab.hydraulics.circuits.spools.spool_positions`). The compiled
loop (``netlist_loop``) samples the controllers; this module checks and packs them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import ParameterError
from ..hydraulics.circuits import SpoolValve
from .closed_loop import ClosedLoop, control_tables


def driven_columns(network, controllers: Mapping[str, ClosedLoop], drives: Mapping[str, Sequence[str]], inputs):
    """{spool input key: the actuator whose loop drives it} for ``controllers`` and ``drives`` by
    actuator name, checked: every loop drives at least one spool position of the network, and no
    spool is driven twice or also given in ``inputs``."""
    spools = {f"{name}.position" for name, (c, _) in network.parts.items() if isinstance(c, SpoolValve)}
    unknown = sorted(set(drives) - set(controllers))
    if unknown:
        raise ParameterError(f"drives: {unknown[0]!r} has no closed loop; give it a controller or drop it")
    owner: dict[str, str] = {}
    for name in controllers:
        keys = list(drives.get(name, ()))
        if not keys:
            raise ParameterError(
                f"actuator {name!r}: its closed loop drives no spool; name the spool positions it drives "
                f"(one of {', '.join(sorted(spools)) or 'none: the netlist has no SpoolValve'})"
            )
        for key in keys:
            if key not in spools:
                raise ParameterError(
                    f"actuator {name!r}: {key!r} is not a spool position of the netlist; its spools are "
                    f"{', '.join(sorted(spools)) or 'none'}"
                )
            if key in owner or key in inputs:
                other = f"actuator {owner[key]!r}'s loop" if key in owner else "the inputs"
                raise ParameterError(f"actuator {name!r}: {key!r} is driven by {other} too; give each spool one driver")
            owner[key] = name
    return owner


def control_arrays(system, controllers: Mapping[str, ClosedLoop], drives: Mapping[str, Sequence[str]], t, inputs):
    """The ``control`` tuple of ``run_netlist_loop`` without its commands: (ctrl, targets,
    rates, driven, decays) on the step grid ``t`` [s]."""
    network = system.network
    owner = driven_columns(network, controllers, drives, inputs)
    for name, loop in controllers.items():
        if name in system.motors and loop.joint is None:
            raise ParameterError(f"actuator {name!r}: a motor has no stroke; give its loop a joint angle target")
    ctrl, targets, rates = control_tables(system, controllers, t)
    names = [a.name for a in system.actuators]
    width = max([len(list(drives.get(n, ()))) for n in names] + [1])
    driven = np.full((len(names), width), -1, dtype=np.int64)
    decays = np.zeros(len(network.inputs))
    for key, name in owner.items():
        row = names.index(name)
        slot = int(np.sum(driven[row] >= 0))
        column = network.inputs.index(key)
        driven[row, slot] = column
        tau = network.parts[key.rsplit(".", 1)[0]][0].time_constant
        decays[column] = math.exp(-system.timestep / tau) if tau > 0.0 else 0.0
    return ctrl, targets, rates, driven, decays

"""The conventional sequential identification (Sakai & Maeshima, Sec. III, Fig. 3), for comparison.

Each experiment's fluid equations are solved on their own, so the common bulk modulus b gets
one estimate per experiment, and the paper's ad-hoc rules pick one: **E1** identifies b in the
first experiment and treats it as known afterwards; **E2** identifies it in every experiment
and averages (flow gains identified in several experiments are averaged too). Neither equals
the coupled solution of :func:`~.robot_least_squares.identify`, whose answer is unique.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..mechanics.robot_dynamics import HydraulicRobot
from .robot_least_squares import Experiment, IdentificationOptions, experiment_rows


@dataclass(frozen=True)
class SequentialFluid:
    """b [Pa] per experiment; E1 and E2 results: b and flow gains by name (C++1, …)."""

    per_experiment_b: dict[str, float]
    e1: dict[str, float]
    e2: dict[str, float]


def sequential_fluid(
    robot: HydraulicRobot, experiments: Sequence[Experiment], options: IdentificationOptions | None = None
) -> SequentialFluid:
    """Solve each experiment's fluid rows separately and combine by E1 and E2 (module docstring)."""
    options = options or IdentificationOptions()
    per_b: dict[str, float] = {}
    e1: dict[str, float] = {}
    gains2: dict[str, list[float]] = {}
    for index, experiment in enumerate(experiments):
        rows = experiment_rows(robot, experiment, options)
        used = np.flatnonzero(np.linalg.norm(rows.x2, axis=0) > 0)
        names = [rows.names2[i] for i in used]
        solution, *_ = np.linalg.lstsq(rows.x2[:, used], rows.y2, rcond=None)
        per_b[experiment.name] = 1.0 / solution[0]
        for name, value in zip(names[1:], solution[1:]):
            gains2.setdefault(name, []).append(float(value))
        if index == 0:
            e1["b"] = 1.0 / solution[0]
            e1.update(zip(names[1:], solution[1:].tolist()))
            continue
        # E1: b known from the first experiment, moved to the right-hand side
        fixed, *_ = np.linalg.lstsq(rows.x2[:, used[1:]], rows.y2 - rows.x2[:, 0] / e1["b"], rcond=None)
        for name, value in zip(names[1:], fixed):
            e1.setdefault(name, float(value))
    e2 = {"b": float(np.mean(list(per_b.values())))}
    e2.update({name: float(np.mean(values)) for name, values in gains2.items()})
    return SequentialFluid(per_b, e1, e2)

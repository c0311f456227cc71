"""Cross-validation of an identified hydraulic robot on held-out logs (Sakai & Maeshima, Sec. V).

The model starts from the logged state at the first sample, with q̇(0) from a first difference
of the logged angle (the paper replaces ṡ(0) the same way), and is driven by the logged spool
input; its piston displacement and pressures are compared with the log by the FIT ratio.
Pressures are clipped into [0, p_s] (policy "clip") so a poor model still yields a figure.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..identification.fit import fit_ratio
from ..identification.robot_least_squares import Experiment
from ..mechanics.robot_dynamics import HydraulicRobot, RobotParameters, cylinder_states
from .robot_simulation import RobotRun, simulate_robot


@dataclass(frozen=True)
class Validation:
    """FIT [%] of s, p+ and p− for each driven joint (0-based keys), the logged displacement
    and the simulated run."""

    experiment: str
    fit: dict[int, dict[str, float]]
    measured_s: np.ndarray
    run: RobotRun


def validate(
    robot: HydraulicRobot, params: RobotParameters, experiment: Experiment, lock_tolerance: float = 1e-3
) -> Validation:
    """Re-simulate ``experiment`` with ``params`` and score it (module docstring)."""
    driven = experiment.driven(lock_tolerance)
    q = experiment.q
    qd0 = (q[1] - q[0]) / experiment.dt
    run = simulate_robot(
        robot,
        params,
        experiment.t,
        experiment.u,
        q[0],
        experiment.p_plus[0],
        experiment.p_minus[0],
        qd0=qd0,
        driven=driven,
        policy="clip",
    )
    measured_s = cylinder_states(robot.cylinder_array(), q)[0]
    fit = {}
    for i in np.flatnonzero(driven):
        fit[int(i)] = {
            "s": float(fit_ratio(measured_s[:, i], run.s[:, i])),
            "p_plus": float(fit_ratio(experiment.p_plus[:, i], run.p_plus[:, i])),
            "p_minus": float(fit_ratio(experiment.p_minus[:, i], run.p_minus[:, i])),
        }
    return Validation(experiment.name, fit, measured_s, run)

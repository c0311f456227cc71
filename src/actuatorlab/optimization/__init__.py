"""Trajectory and weight optimisation of EMLA-driven manipulators (Bahari et al. 2024, see the bibliography).

- ``trajectory_task``: the follower's task, settings, solution and samples as data; the clamped
  B-spline trajectories q = B(t)c (41) are ``numerics.bspline``.
- ``follower``: the inner (follower) NLP (43), (53)–(57) in CasADi, solved by IPOPT.
- ``trajectory_efficiency``: η_EMLA, η_Act (68), F (64) and the energy efficiencies of a trajectory.
- ``leader``: the outer (leader) weight optimisation (64), (67), (68), Algorithm 1, and
  ``run_bilevel``, the entry point that also evaluates the fixed-weight baselines.
"""

from ..numerics.bspline import ClampedBSpline
from .follower import Follower
from .trajectory_task import FollowerSettings, FollowerSolution, TrajectorySamples, TrajectoryTask
from .leader import (
    BASELINES,
    CRITERIA_OUTER,
    BilevelResult,
    Evaluation,
    LeaderProgress,
    LeaderSettings,
    run_bilevel,
)
from .trajectory_efficiency import summarise_efficiency

__all__ = [
    "BASELINES",
    "CRITERIA_OUTER",
    "BilevelResult",
    "ClampedBSpline",
    "Evaluation",
    "Follower",
    "FollowerSettings",
    "FollowerSolution",
    "LeaderProgress",
    "LeaderSettings",
    "TrajectorySamples",
    "TrajectoryTask",
    "run_bilevel",
    "summarise_efficiency",
]

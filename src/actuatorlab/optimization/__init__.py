"""Trajectory and weight optimisation of EMLA-driven manipulators (Bahari et al., spec 004).

- ``bspline``: clamped B-spline joint trajectories q = B(t)c (41) with exact derivatives.
- ``follower``: the inner (follower) NLP (43), (53)–(57) in CasADi, solved by IPOPT.
- ``leader``: the outer (leader) weight optimisation (64), (67), (68), Algorithm 1, and
  ``run_bilevel``, the entry point that also evaluates the fixed-weight baselines.
"""

from ..numerics.bspline import ClampedBSpline
from .follower import (
    Follower,
    FollowerSettings,
    FollowerSolution,
    TrajectorySamples,
    TrajectoryTask,
)
from .leader import (
    BASELINES,
    CRITERIA_OUTER,
    BilevelResult,
    Evaluation,
    LeaderProgress,
    LeaderSettings,
    run_bilevel,
    summarise_efficiency,
)

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

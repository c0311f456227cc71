"""Output-error search baselines (PSO and GA, pymoo) for one driven joint of the hydraulic robot.

The paper compares its least squares with particle-swarm and genetic searches that alternate
simulation and tuning, fail whenever a trial's state "does not exist" (a pressure leaves
[0, p_s]), and gives no settings. The settings here: the unknowns of the joint that a
locked-joint log drives, i.e. [M_i, Fv_i, W_i, b, C++i, C+−i, C−+i, C−−i], searched within
``bounds`` (defaults: broad physical ranges, not the truth); cost = mean squared output error
of s/L, p+/p_s and p−/p_s over the log; a trial whose simulation fails (pressure outside
[0, p_s] under policy "raise", or a piston out of its stroke) costs ``FAILED_COST`` and is
counted. The remaining mechanical parameters do not act in a locked-joint log of the last
joint and keep the values of ``base``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError, SimulationError, needs_extras
from ..identification.robot_least_squares import Experiment
from ..mechanics.robot_dynamics import HydraulicRobot, RobotParameters, cylinder_states, mechanical_names
from .robot_simulation import simulate_robot

FAILED_COST = 1e3
ALGORITHMS = ("pso", "ga")
DEFAULT_BOUNDS = {"M": (0.1, 10.0), "Fv": (0.0, 50.0), "W": (0.1, 20.0), "b": (1e7, 2e9), "C": (1e-8, 2e-6)}
"""Search ranges by parameter family [SI; flow gains in m³/(s·[u]·√Pa)]."""


@dataclass(frozen=True)
class SearchResult:
    """Best parameters found, their cost, and how many trials were run and failed."""

    algorithm: str
    names: list[str]
    best: dict[str, float]
    cost: float
    trials: int
    failed_trials: int
    parameters: RobotParameters


def _trial_parameters(base: RobotParameters, joint: int, x: np.ndarray) -> RobotParameters:
    n = base.joints
    names = mechanical_names(n)
    mech = base.mechanical.copy()
    for value, prefix in zip(x[:3], ("M", "Fv", "W")):
        mech[names.index(f"{prefix}{joint + 1}")] = value
    gains = base.flow_gains.copy()
    gains[joint] = x[4:8]
    return RobotParameters(mech, float(x[3]), gains)


def output_error_search(
    robot: HydraulicRobot,
    experiment: Experiment,
    base: RobotParameters,
    algorithm: str = "pso",
    population: int = 20,
    generations: int = 10,
    seed: int = 1,
) -> SearchResult:
    """Search the driven joint's parameters of ``experiment`` by ``algorithm`` (module docstring)."""
    with needs_extras("the output-error search baselines (GA, PSO)"):
        from pymoo.algorithms.soo.nonconvex.ga import GA
        from pymoo.algorithms.soo.nonconvex.pso import PSO
        from pymoo.core.problem import ElementwiseProblem
        from pymoo.optimize import minimize

    if algorithm not in ALGORITHMS:
        raise ParameterError(f"algorithm = {algorithm!r}: choose one of {', '.join(ALGORITHMS)}")
    driven = np.flatnonzero(experiment.driven(1e-3))
    if len(driven) != 1:
        raise ParameterError(f"{experiment.name}: the search baselines need a log with exactly one driven joint")
    joint = int(driven[0])
    names = [f"M{joint + 1}", f"Fv{joint + 1}", f"W{joint + 1}", "b"] + [
        f"{c}{joint + 1}" for c in ("C++", "C+-", "C-+", "C--")
    ]
    bounds = np.array(
        [DEFAULT_BOUNDS["M"], DEFAULT_BOUNDS["Fv"], DEFAULT_BOUNDS["W"], DEFAULT_BOUNDS["b"]]
        + [DEFAULT_BOUNDS["C"]] * 4
    )
    cyl = robot.cylinder_array()
    measured = np.column_stack(
        [
            cylinder_states(cyl, experiment.q)[0][:, joint] / cyl[joint, 4],
            experiment.p_plus[:, joint] / robot.supply_pressure,
            experiment.p_minus[:, joint] / robot.supply_pressure,
        ]
    )
    mask = np.zeros(robot.joints, dtype=bool)
    mask[joint] = True
    qd0 = (experiment.q[1] - experiment.q[0]) / experiment.dt
    counts = {"trials": 0, "failed": 0}

    def cost(x: np.ndarray) -> float:
        counts["trials"] += 1
        try:
            run = simulate_robot(
                robot,
                _trial_parameters(base, joint, x),
                experiment.t,
                experiment.u,
                experiment.q[0],
                experiment.p_plus[0],
                experiment.p_minus[0],
                qd0=qd0,
                driven=mask,
            )
        except (SimulationError, ParameterError):
            counts["failed"] += 1
            return FAILED_COST
        simulated = np.column_stack(
            [
                run.s[:, joint] / cyl[joint, 4],
                run.p_plus[:, joint] / robot.supply_pressure,
                run.p_minus[:, joint] / robot.supply_pressure,
            ]
        )
        return float(np.mean((simulated - measured) ** 2))

    class Problem(ElementwiseProblem):
        def __init__(self):
            super().__init__(n_var=8, n_obj=1, xl=bounds[:, 0], xu=bounds[:, 1])

        def _evaluate(self, x, out, *args, **kwargs):
            out["F"] = cost(x)

    method = PSO(pop_size=population) if algorithm == "pso" else GA(pop_size=population, eliminate_duplicates=True)
    result = minimize(Problem(), method, ("n_gen", generations), seed=seed, verbose=False)
    best = np.atleast_1d(result.X).astype(float)
    return SearchResult(
        algorithm,
        names,
        dict(zip(names, best.tolist())),
        float(np.atleast_1d(result.F)[0]),
        counts["trials"],
        counts["failed"],
        _trial_parameters(base, joint, best),
    )

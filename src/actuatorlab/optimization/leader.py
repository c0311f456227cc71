"""Leader (outer) problem of Bahari et al. and the bilevel driver, Algorithm 1.

.. math::
    \\max_{w_L ≤ w ≤ w_U} F(w) = \\tfrac12 Δ_t \\sum_{k=0}^{M} η_{Act}(v_x, f_x)^2 \\;(64),\\qquad
    η_{Act} = \\frac{\\sum_i |p_i|}{\\sum_i |p_i| / η_{EMLA,i}(f_{xi}, v_{xi})} \\;(68),

with c*(w), t_M*(w) from the follower (43)–(57) and p_i = f_xi v_xi [W].

Readings taken (where the paper is silent):

- (68) is a power-weighted harmonic mean of the EMLA efficiencies; the paper leaves p_i ≤ 0
  undefined (item 10). η_EMLA,i comes from ``electromech.actuator_efficiency`` and η_Act
  from ``electromech.actuation_efficiency`` (the one implementation of (68)): only motoring
  actuators (p_i > 0) enter, and η_Act = 0 at a sample where none is motoring (e.g. the rest
  states at t_0 and t_M, the limit of (13) as v → 0 with positive losses).
- F is (64) as printed, summed over the M + 1 collocation points with Δ_t = t_M/M. With a
  free t_M it grows with t_M (item 9): maximising it rewards slow motions over efficient
  ones (on the default task the F-optimal weights give a *lower* energy efficiency than the
  effort baseline). The default leader criterion is therefore the total energy efficiency
  Σp / Σ(p/η) over actuators and time (``LeaderSettings.criterion = "energy"``): (68)'s
  power-weighted harmonic mean carried over time, which is what the efficiency of a motion
  means and what the report compares; "integral" maximises (64) as printed and "time_mean"
  F / t_M, the time mean of ½ η_Act². F and F / t_M are reported either way.
- The reported per-actuator and total efficiencies (item 11) are energy ratios over the
  motoring collocation points, Σp / Σ(p/η): (68) applied over time (and over actuators for
  the total).
- Outer optimiser (item "OuterOptimizer", not given): a deterministic pattern search in the
  weight box. The first batch holds the three fixed-weight baselines (effort only (1, 0),
  power only (0, 1), equal (0.5, 0.5)) and evenly spread directions; later batches step
  ± along each weight from the best point, halving the step when nothing improves. Because
  the baselines are candidates, criterion(w*) ≥ criterion(baseline) holds by construction
  for the chosen criterion (default: the total energy efficiency). The per-actuator
  efficiencies are reported, not guaranteed. The follower's
  objective is homogeneous in w, so weights of the same direction share one cache entry.
- Candidates of a batch are solved in parallel (``concurrent.futures.ProcessPoolExecutor``);
  each is warm-started from the best solution known when the batch is formed.
- Every evaluation is appended to a JSON cache (``cache_path``) written atomically, so a long
  run resumes where it stopped; the cache records a key of the problem and refuses another.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..electromech import actuation_efficiency
from ..errors import ParameterError, SimulationError
from ..io.atomic import atomic_write_text
from ..machines.lab_crane import emla_lab_crane
from ..mechanics.emla_crane import ACTUATOR_NAMES, EmlaCrane
from .follower import Follower
from .trajectory_efficiency import actuator_efficiencies, summarise_efficiency
from .trajectory_task import FollowerSettings, FollowerSolution, TrajectorySamples, TrajectoryTask

BASELINES = {"effort": (1.0, 0.0), "power": (0.0, 1.0), "equal": (0.5, 0.5)}
"""Fixed-weight baselines (w_effort, w_power) compared with the leader's optimum."""

CACHE_FORMAT = "actuatorlab.bilevel-cache/1"

CRITERIA_OUTER = ("integral", "time_mean", "energy")
"""What the leader maximises: F (64) as printed, F / t_M, or the total energy efficiency."""


# ---------------------------------------------------------------------------------------------
# leader
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LeaderSettings:
    """Outer search: weight box [w_L, w_U] (must hold the baselines), ``n_directions`` extra
    initial candidates, at most ``max_evaluations`` follower solves (baselines included),
    pattern step (initial, smallest), ``workers`` processes (≤ 1: in this process),
    ``criterion`` the leader maximises (``CRITERIA_OUTER``): "integral" F of (64) as printed,
    "time_mean" F / t_M, "energy" (default) the total energy efficiency Σp / Σ(p/η)."""

    weight_lower: tuple = (0.0, 0.0)
    weight_upper: tuple = (1.0, 1.0)
    n_directions: int = 3
    max_evaluations: int = 24
    initial_step: float = 0.25
    min_step: float = 0.03
    workers: int = 2
    criterion: str = "energy"

    def __post_init__(self) -> None:
        lo = np.asarray(self.weight_lower, dtype=float)
        hi = np.asarray(self.weight_upper, dtype=float)
        if lo.shape != (2,) or hi.shape != (2,) or not np.all(np.isfinite(lo)) or not np.all(np.isfinite(hi)):
            raise ParameterError("weight_lower and weight_upper must be two finite numbers each")
        if np.any(lo < 0.0) or np.any(lo > hi):
            raise ParameterError(
                f"weight box [{lo.tolist()}, {hi.tolist()}]: need 0 ≤ w_L ≤ w_U (non-negative weights)"
            )
        for name, w in BASELINES.items():
            if np.any(np.asarray(w) < lo) or np.any(np.asarray(w) > hi):
                raise ParameterError(
                    f"the weight box [{lo.tolist()}, {hi.tolist()}] excludes the {name} baseline {w}; "
                    "widen it (the baselines are candidates so the optimum is at least as good)"
                )
        object.__setattr__(self, "weight_lower", tuple(lo.tolist()))
        object.__setattr__(self, "weight_upper", tuple(hi.tolist()))
        if not (isinstance(self.max_evaluations, int) and self.max_evaluations >= len(BASELINES)):
            raise ParameterError(
                f"max_evaluations = {self.max_evaluations!r}: give an integer ≥ {len(BASELINES)} (the baselines)"
            )
        if not (isinstance(self.n_directions, int) and self.n_directions >= 0):
            raise ParameterError(f"n_directions = {self.n_directions!r}: give an integer ≥ 0")
        if not (0.0 < self.min_step <= self.initial_step):
            raise ParameterError(f"steps: need 0 < min_step ({self.min_step!r}) ≤ initial_step ({self.initial_step!r})")
        if not isinstance(self.workers, int):
            raise ParameterError(f"workers = {self.workers!r}: give an integer")
        if self.criterion not in CRITERIA_OUTER:
            raise ParameterError(f"criterion = {self.criterion!r} is unknown; choose one of {CRITERIA_OUTER}")


@dataclass(frozen=True)
class Evaluation:
    """One leader candidate: weights, F (64), F/t_M, follower solution and efficiencies."""

    weights: tuple
    objective: float
    objective_per_time: float
    success: bool
    status: str
    duration: float
    control_points: np.ndarray
    efficiency_per_actuator: dict
    efficiency_total: float
    solve_time: float
    iterations: int

    @property
    def efficiency_rms(self) -> float:
        """√(2 F / t_M): the RMS of η_Act over time, the "time_mean" criterion as an efficiency."""
        return math.sqrt(max(2.0 * self.objective_per_time, 0.0))

    def score(self, criterion: str) -> float:
        """The leader's criterion (``CRITERIA_OUTER``; −inf for a failed solve)."""
        if not self.success:
            return -math.inf
        if criterion == "integral":
            return self.objective
        if criterion == "time_mean":
            return self.objective_per_time
        return self.efficiency_total

    def to_json(self) -> dict:
        """The evaluation as a JSON-ready dict (the leader's cache file)."""
        d = asdict(self)
        d["control_points"] = np.asarray(self.control_points).tolist()
        return d

    @classmethod
    def from_json(cls, d: dict) -> Evaluation:
        """An evaluation back from :meth:`to_json`."""
        d = dict(d)
        d["weights"] = tuple(d["weights"])
        d["control_points"] = np.asarray(d["control_points"], dtype=float)
        return cls(**d)


@dataclass(frozen=True)
class LeaderProgress:
    """Passed to the progress callback after every evaluation."""

    done: int
    budget: int
    evaluation: Evaluation
    best: Evaluation
    cached: bool


@dataclass(frozen=True)
class BilevelResult:
    """Outcome of ``run_bilevel``.

    ``weights`` w* and ``optimum`` (an ``Evaluation``); ``samples`` of the optimal trajectory
    (t [s], q, q̇, q̈, actuator position [m], velocity [m/s], force [N]) with ``eta`` (n, 3)
    and ``eta_act`` (n,) at those samples; ``efficiency_per_actuator`` and
    ``efficiency_total`` of the optimum; ``baselines`` name → ``Evaluation``; every evaluation;
    wall time [s]; number of follower solves run now and taken from the cache.
    """

    weights: tuple
    optimum: Evaluation
    samples: TrajectorySamples
    eta: np.ndarray
    eta_act: np.ndarray
    baselines: dict
    evaluations: tuple
    elapsed: float
    n_solved: int
    n_cached: int
    criterion: str

    @property
    def efficiency_per_actuator(self) -> dict:
        """The optimum's trajectory efficiency per actuator (68), by joint name."""
        return self.optimum.efficiency_per_actuator

    @property
    def efficiency_total(self) -> float:
        """The optimum's total trajectory efficiency, the leader's criterion (64)."""
        return self.optimum.efficiency_total

    def comparison(self) -> list[dict]:
        """Rows for the optimum and the baselines: name, weights, F (64), F/t_M [1/s], η_rms
        (RMS of η_Act over time), t_M [s], per-actuator and total energy efficiency."""
        rows = []
        for name, ev in [("optimum", self.optimum), *self.baselines.items()]:
            rows.append(
                {
                    "name": name,
                    "w_effort": ev.weights[0],
                    "w_power": ev.weights[1],
                    "F": ev.objective,
                    "F_per_time": ev.objective_per_time,
                    "eta_rms": ev.efficiency_rms,
                    "duration": ev.duration,
                    **{f"eta_{n}": ev.efficiency_per_actuator[n] for n in ACTUATOR_NAMES},
                    "eta_total": ev.efficiency_total,
                }
            )
        return rows

    def to_frame(self):
        """The optimal trajectory as a pandas DataFrame: t [s], then q/qd/qdd per coordinate and
        x [m], v [m/s], f [N], eta per actuator, eta_act; units in ``DataFrame.attrs['units']``."""
        import pandas as pd

        s = self.samples
        cols = {"t": s.t}
        units = {"t": "s"}
        for i, (c, u) in enumerate(zip(("q1", "q2", "xt2"), ("rad", "rad", "m"))):
            cols[c], cols[f"{c}_d"], cols[f"{c}_dd"] = s.q[:, i], s.qd[:, i], s.qdd[:, i]
            units.update({c: u, f"{c}_d": f"{u}/s", f"{c}_dd": f"{u}/s^2"})
        for i, n in enumerate(ACTUATOR_NAMES):
            cols[f"x_{n}"], cols[f"v_{n}"], cols[f"f_{n}"] = s.position[:, i], s.velocity[:, i], s.force[:, i]
            cols[f"eta_{n}"] = self.eta[:, i]
            units.update({f"x_{n}": "m", f"v_{n}": "m/s", f"f_{n}": "N", f"eta_{n}": "1"})
        cols["eta_act"] = self.eta_act
        units["eta_act"] = "1"
        frame = pd.DataFrame(cols)
        frame.attrs["units"] = units
        return frame


# -- worker side --------------------------------------------------------------------------------
_WORKER: dict = {}


def _init_worker(crane: EmlaCrane, task: TrajectoryTask, settings: FollowerSettings) -> None:
    _WORKER["follower"] = Follower(crane, task, settings)


def _evaluate(follower: Follower, weights, warm_start) -> Evaluation:
    sol = follower.solve(weights, warm_start)
    summary = summarise_efficiency(follower.crane, follower.trajectory(sol), sol.duration)
    return Evaluation(
        weights=tuple(float(w) for w in weights),
        objective=summary.objective,
        objective_per_time=summary.objective_per_time,
        success=sol.success,
        status=sol.status,
        duration=sol.duration,
        control_points=sol.control_points,
        efficiency_per_actuator=summary.per_actuator,
        efficiency_total=summary.total,
        solve_time=sol.solve_time,
        iterations=sol.iterations,
    )


def _evaluate_in_worker(weights, warm_start) -> Evaluation:
    return _evaluate(_WORKER["follower"], weights, warm_start)


# -- driver -------------------------------------------------------------------------------------
def _direction_key(w) -> tuple:
    w = np.asarray(w, dtype=float)
    return tuple(np.round(w / w.sum(), 9).tolist())


def _problem_key(crane: EmlaCrane, task: TrajectoryTask, settings: FollowerSettings) -> str:
    text = json.dumps(
        {
            "task": asdict(task),
            "follower": asdict(settings),
            "actuators": [repr(a) for a in crane.actuators],
            "manipulator": crane.manipulator.name,
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class _Cache:
    def __init__(self, path, key: str):
        self.path = Path(path) if path is not None else None
        self.key = key
        self.entries: dict[tuple, Evaluation] = {}
        if self.path is not None and self.path.exists():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise ParameterError(
                    f"cache {self.path} is unreadable ({exc}); delete it or give another cache_path"
                ) from exc
            if data.get("format") != CACHE_FORMAT or data.get("problem") != key:
                raise ParameterError(
                    f"cache {self.path} belongs to another problem (key {data.get('problem')!r}, "
                    f"this one {key!r}); delete it or give another cache_path"
                )
            for d in data.get("evaluations", []):
                ev = Evaluation.from_json(d)
                self.entries[_direction_key(ev.weights)] = ev

    def get(self, w) -> Evaluation | None:
        return self.entries.get(_direction_key(w))

    def add(self, ev: Evaluation) -> None:
        self.entries[_direction_key(ev.weights)] = ev
        if self.path is not None:
            data = {
                "format": CACHE_FORMAT,
                "problem": self.key,
                "evaluations": [e.to_json() for e in self.entries.values()],
            }
            atomic_write_text(self.path, json.dumps(data, indent=1))


def _initial_candidates(settings: LeaderSettings) -> list[tuple]:
    lo, hi = np.array(settings.weight_lower), np.array(settings.weight_upper)
    cands = [tuple(w) for w in BASELINES.values()]
    for theta in np.linspace(0.0, 0.5 * math.pi, settings.n_directions + 2)[1:-1]:
        d = np.array([math.cos(theta), math.sin(theta)])
        w = np.clip(d / d.max() * hi.max(), lo, hi)  # on the box's upper faces
        cands.append(tuple(float(v) for v in w))
    return cands


def run_bilevel(
    crane: EmlaCrane | None = None,
    task: TrajectoryTask | None = None,
    follower_settings: FollowerSettings | None = None,
    settings: LeaderSettings | None = None,
    cache_path: str | Path | None = None,
    progress: Callable[[LeaderProgress], None] | None = None,
    n_samples: int | None = None,
) -> BilevelResult:
    """Algorithm 1: maximise F(w) (64) over the weight box, each F from a follower solve.

    crane: default ``emla_lab_crane()`` (Table I EMLAs); task: default ``TrajectoryTask()``;
    ``cache_path``: JSON file of evaluated candidates to resume from and append to;
    ``progress``: called with a ``LeaderProgress`` after each evaluation; ``n_samples``:
    samples of the returned optimal trajectory (default: the M + 1 collocation points).
    Raises ``ParameterError`` for an infeasible task or a bad setting, ``SimulationError`` if
    no follower solve succeeds. With ``workers > 1``
    candidates are solved in "spawn" processes: a calling script needs the usual
    ``if __name__ == "__main__":`` guard.
    """
    t_start = time.perf_counter()
    crane = emla_lab_crane() if crane is None else crane
    task = TrajectoryTask() if task is None else task
    follower_settings = FollowerSettings() if follower_settings is None else follower_settings
    settings = LeaderSettings() if settings is None else settings
    local = Follower(crane, task, follower_settings)  # validates the task before any work
    cache = _Cache(cache_path, _problem_key(crane, task, follower_settings))
    lo, hi = np.array(settings.weight_lower), np.array(settings.weight_upper)
    tn = settings.criterion

    evaluations: list[Evaluation] = []
    seen: set[tuple] = set()
    n_solved = n_cached = 0
    best: Evaluation | None = None

    pool = None
    if settings.workers > 1:
        import multiprocessing as mp

        pool = ProcessPoolExecutor(
            max_workers=settings.workers,
            mp_context=mp.get_context("spawn"),
            initializer=_init_worker,
            initargs=(crane, task, follower_settings),
        )

    def record(ev: Evaluation, cached: bool) -> None:
        nonlocal best
        evaluations.append(ev)
        if best is None or ev.score(tn) > best.score(tn):
            best = ev
        if progress is not None:
            progress(LeaderProgress(len(evaluations), settings.max_evaluations, ev, best, cached))

    def run_batch(cands: list[tuple]) -> None:
        nonlocal n_solved, n_cached
        todo = []
        for w in cands:
            key = _direction_key(w)
            if key in seen or len(evaluations) + len(todo) >= settings.max_evaluations:
                continue
            seen.add(key)
            hit = cache.get(w)
            if hit is not None:
                n_cached += 1
                record(hit, True)
            else:
                todo.append(w)
        if not todo:
            return
        warm = None
        if best is not None and best.success:
            warm = np.concatenate((np.ravel(best.control_points, order="F"), [best.duration]))
        if pool is None:
            results = (_evaluate(local, w, warm) for w in todo)
        else:
            results = pool.map(_evaluate_in_worker, todo, [warm] * len(todo))
        for ev in results:
            n_solved += 1
            cache.add(ev)
            record(ev, False)

    try:
        run_batch(_initial_candidates(settings))
        step = settings.initial_step
        while len(evaluations) < settings.max_evaluations and step >= settings.min_step:
            centre = np.array(best.weights)
            cands = []
            for i in range(2):
                for sign in (1.0, -1.0):
                    w = centre.copy()
                    w[i] = np.clip(w[i] + sign * step, lo[i], hi[i])
                    if w.sum() > 0.0 and _direction_key(w) not in seen:
                        cands.append(tuple(float(v) for v in w))
            before = best
            run_batch(cands)
            if best is before:
                step *= 0.5
    finally:
        if pool is not None:
            pool.shutdown()

    if not best.success:
        raise SimulationError(
            f"no follower solve succeeded in {len(evaluations)} candidates (last status "
            f"{evaluations[-1].status!r}); widen the task's bounds (duration, rates, forces) or "
            "raise FollowerSettings.max_iter"
        )
    baselines = {}
    for name, w in BASELINES.items():
        key = _direction_key(w)
        baselines[name] = next(e for e in evaluations if _direction_key(e.weights) == key)
    sol = FollowerSolution(
        best.weights,
        best.control_points,
        best.duration,
        (math.nan, math.nan),
        math.nan,
        best.success,
        best.status,
        best.iterations,
        best.solve_time,
    )
    samples = local.trajectory(sol, n_samples)
    eta = actuator_efficiencies(crane, samples.force, samples.velocity)
    return BilevelResult(
        weights=best.weights,
        optimum=best,
        samples=samples,
        eta=eta,
        eta_act=actuation_efficiency(eta, samples.force, samples.velocity),
        baselines=baselines,
        evaluations=tuple(evaluations),
        elapsed=time.perf_counter() - t_start,
        n_solved=n_solved,
        n_cached=n_cached,
        criterion=tn,
    )

"""Coupled least-squares identification of every mechanical and fluid parameter of an N-DOF
hydraulic robot (Sakai & Maeshima, Sec. III, eqs. (2)–(3)).

Each experiment (a log with some joints locked and the others driven by their spools) gives,
per sample and per driven joint i, one mechanical row τ_i = Y_i(q, q̇, q̈)·a1 (the rigid-body
equation multiplied through by M(q)) and two fluid rows (the pressure equations multiplied by
V±/b):

    head: (−ṗ+ V+)·(1/b) + h++ u·C++ + h+− u·C+− = +A+ ṡ
    rod:  (−ṗ− V−)·(1/b) − h−+ u·C−+ − h−− u·C−− = −A− ṡ

Rows of all experiments are stacked into X1N a1 = Y1N and X2N a2 = Y2N, so a parameter shared
by several experiments (b in all of them) is one column, and each is solved once by the normal
equations (3) (on column-normalised matrices; the condition numbers reported are of X1N and X2N
as stacked, in SI units, as the paper's). Derivatives come from
differences of the logged q and p± (or from exact columns of a synthetic log); one moving
average filters every regressor column and right-hand side alike, which keeps the relation
exact while averaging the noise; the filter's and differences' edges are trimmed.

A joint counts as locked in an experiment when its angle varies by less than
``lock_tolerance`` (standard deviation); its locked angle is the mean. Orifice square roots use
the measured pressures clipped into [0, p_s].

Gravity ``"unknown"`` (a robot on uneven ground): each W_i column is replaced by the
pair sin φ_i, cos φ_i with g = 1, whose parameters are g W_i cos α and g W_i sin α; the result
reports g·W_i and the tilt α. W_i and g cannot be told apart from torques alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..mechanics.robot_dynamics import (
    C_AM,
    C_AP,
    HydraulicRobot,
    RobotParameters,
    chamber_volumes,
    cylinder_state,
    cylinder_states,
    fluid_names,
    mechanical_names,
    mechanical_regressor,
    orifice_terms,
)
from ..numerics.filters import edge_samples, first_difference, moving_average, second_difference
from ..validation import check_fields, non_negative

DERIVATIVES = ("central", "backward", "exact")
GRAVITY = ("known", "unknown")
MIN_SAMPLES = 200
RANK_TOLERANCE = 1e-6
"""Relative singular value (of the column-normalised matrix) below which a direction counts as lost."""


@dataclass(frozen=True)
class Experiment:
    """One log: t [s] (n), and per joint (n, N): q [rad], p_plus, p_minus [Pa], u [spool unit].

    ``exact`` optionally holds the exact rates (qd, qdd, dp_plus, dp_minus) of a synthetic log.
    ``repetition`` groups logs into repeated identifications (relative standard deviation).
    """

    name: str
    t: np.ndarray
    q: np.ndarray
    p_plus: np.ndarray
    p_minus: np.ndarray
    u: np.ndarray
    repetition: int = 0
    exact: dict[str, np.ndarray] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        t = np.asarray(self.t, dtype=float)
        n = len(t)
        if n < MIN_SAMPLES:
            raise ParameterError(
                f"{self.name}: {n} samples are too few; log at least {MIN_SAMPLES} "
                "(the paper uses 4 000 per step at 1 ms)"
            )
        if not np.all(np.diff(t) > 0):
            k = int(np.argmax(np.diff(t) <= 0))
            raise ParameterError(
                f"{self.name}: time is not increasing at sample {k + 1} (t = {t[k + 1]:.6g} s after "
                f"{t[k]:.6g} s); sort the log or remove repeated rows"
            )
        dt = np.diff(t)
        if np.ptp(dt) > 1e-3 * dt.mean():
            raise ParameterError(
                f"{self.name}: samples are not uniformly spaced (steps {dt.min():.6g}–{dt.max():.6g} s); "
                "resample the log to a fixed period"
            )
        for name in ("q", "p_plus", "p_minus", "u"):
            value = np.asarray(getattr(self, name), dtype=float)
            if value.ndim == 1:
                value = value[:, None]
            if value.shape[0] != n:
                raise ParameterError(f"{self.name}: {name} has {value.shape[0]} samples, t has {n}")
            if not np.all(np.isfinite(value)):
                k, j = np.argwhere(~np.isfinite(value))[0]
                raise ParameterError(
                    f"{self.name}: {name}{j + 1} is not a number at t = {t[k]:.4f} s; remove or interpolate the gap"
                )
            object.__setattr__(self, name, value)
        object.__setattr__(self, "t", t)

    @property
    def dt(self) -> float:
        """The mean sample interval [s]."""
        return float((self.t[-1] - self.t[0]) / (len(self.t) - 1))

    def driven(self, lock_tolerance: float) -> np.ndarray:
        """Joints whose angle moves (std above ``lock_tolerance`` [rad])."""
        return self.q.std(axis=0) > lock_tolerance


@dataclass(frozen=True)
class IdentificationOptions:
    """``derivatives``: "central", "backward" (differences) or "exact" (synthetic logs only);
    ``taps``: moving-average length (0: none); ``zero_phase``: forward–backward averaging;
    ``gravity``: "known" or "unknown"; ``lock_tolerance`` [rad]."""

    derivatives: str = "central"
    taps: int = 20
    zero_phase: bool = True
    gravity: str = "known"
    lock_tolerance: float = 1e-3

    def __post_init__(self) -> None:
        if self.derivatives not in DERIVATIVES:
            raise ParameterError(f"derivatives = {self.derivatives!r}: choose one of {', '.join(DERIVATIVES)}")
        if self.gravity not in GRAVITY:
            raise ParameterError(f"gravity = {self.gravity!r}: choose one of {', '.join(GRAVITY)}")
        if int(self.taps) != self.taps or self.taps < 0:
            raise ParameterError(f"taps = {self.taps!r} samples: give 0 (no averaging) or a positive integer length")
        object.__setattr__(self, "taps", int(self.taps))
        check_fields(self, non_negative, (("lock_tolerance", "rad"),))


@dataclass(frozen=True)
class Rows:
    """The stacked system of one or several experiments: X1 a1 = y1 (mechanical), X2 a2 = y2 (fluid)."""

    x1: np.ndarray
    y1: np.ndarray
    x2: np.ndarray
    y2: np.ndarray
    names1: list[str]
    names2: list[str]


@nb.njit(cache=True)
def _mechanical_rows(q, qd, qdd, gravity, tilt, p):
    n_samples, n = q.shape
    out = np.empty((n_samples, n, p))
    y = np.empty((n, p))
    for k in range(n_samples):
        mechanical_regressor(q[k], qd[k], qdd[k], gravity, tilt, y)
        out[k] = y
    return out


@nb.njit(cache=True)
def _fluid_rows(cyl, supply, q, qd, p_plus, p_minus, dp_plus, dp_minus, u, x, y):
    """Head and rod rows of ``joint`` into x (n, 2, 5) [1/b, C++, C+−, C−+, C−−] and y (n, 2)."""
    for k in range(q.shape[0]):
        s, arm = cylinder_state(cyl, q[k])
        sd = arm * qd[k]
        v_plus, v_minus = chamber_volumes(cyl, s)
        hpp, hpm, hmp, hmm = orifice_terms(u[k], p_plus[k], p_minus[k], supply)
        x[k, 0, 0] = -dp_plus[k] * v_plus
        x[k, 0, 1] = hpp * u[k]
        x[k, 0, 2] = hpm * u[k]
        x[k, 0, 3] = 0.0
        x[k, 0, 4] = 0.0
        x[k, 1, 0] = -dp_minus[k] * v_minus
        x[k, 1, 1] = 0.0
        x[k, 1, 2] = 0.0
        x[k, 1, 3] = -hmp * u[k]
        x[k, 1, 4] = -hmm * u[k]
        y[k, 0] = cyl[C_AP] * sd
        y[k, 1] = -cyl[C_AM] * sd


def _rates(experiment: Experiment, options: IdentificationOptions):
    if options.derivatives == "exact":
        if experiment.exact is None:
            raise ParameterError(
                f"{experiment.name}: derivatives = 'exact' needs a synthetic log with exact rates; "
                "use 'central' for measured data"
            )
        e = experiment.exact
        return e["qd"], e["qdd"], e["dp_plus"], e["dp_minus"]
    dt, scheme = experiment.dt, options.derivatives
    return (
        first_difference(experiment.q, dt, scheme),
        second_difference(experiment.q, dt, scheme),
        first_difference(experiment.p_plus, dt, scheme),
        first_difference(experiment.p_minus, dt, scheme),
    )


def experiment_rows(
    robot: HydraulicRobot, experiment: Experiment, options: IdentificationOptions, pressure_offset: bool = False
) -> Rows:
    """The rows of one experiment, filtered and trimmed (module docstring). ``pressure_offset``
    adds a last mechanical column ``offset`` [Pa]: a constant added to every logged pressure adds
    arm·offset·(A+ − A−) to the torque (``identification.pressure_offset``)."""
    n = robot.joints
    if experiment.q.shape[1] != n:
        raise ParameterError(f"{experiment.name}: the log has {experiment.q.shape[1]} joints, the robot {n}")
    driven = experiment.driven(options.lock_tolerance)
    if not driven.any():
        raise ParameterError(
            f"{experiment.name}: no joint moves (every angle varies by less than "
            f"{options.lock_tolerance:g} rad); drive at least one spool"
        )
    qd, qdd, dpp, dpm = _rates(experiment, options)
    q = experiment.q.copy()
    q[:, ~driven] = experiment.q[:, ~driven].mean(axis=0)
    qd, qdd = qd.copy(), qdd.copy()
    qd[:, ~driven] = 0.0
    qdd[:, ~driven] = 0.0
    names1 = mechanical_names(n)
    p = len(names1)
    if options.gravity == "known":
        mech = _mechanical_rows(q, qd, qdd, robot.gravity, robot.gravity_tilt, p)
    else:
        sines = _mechanical_rows(q, qd, qdd, 1.0, 0.0, p)
        cosines = _mechanical_rows(q, qd, qdd, 1.0, math.pi / 2, p)
        mech = np.concatenate([sines, cosines[:, :, p - n :]], axis=2)
        names1 = names1[: p - n] + [f"gW{i + 1}cos" for i in range(n)] + [f"gW{i + 1}sin" for i in range(n)]
    cyl = robot.cylinder_array()
    arms = cylinder_states(cyl, q)[1]
    torque = arms * (experiment.p_plus * cyl[:, C_AP] - experiment.p_minus * cyl[:, C_AM])
    if pressure_offset:
        mech = np.concatenate([mech, (arms * (cyl[:, C_AP] - cyl[:, C_AM]))[:, :, None]], axis=2)
        names1 = names1 + ["offset"]
    joints = np.flatnonzero(driven)
    x1 = mech[:, joints, :]
    y1 = torque[:, joints]
    block_x = np.empty((len(q), len(joints), 2, 5))
    block_y = np.empty((len(q), len(joints), 2))
    for c, i in enumerate(joints):
        _fluid_rows(
            cyl[i],
            robot.supply_pressure,
            q[:, i],
            qd[:, i],
            experiment.p_plus[:, i],
            experiment.p_minus[:, i],
            dpp[:, i],
            dpm[:, i],
            experiment.u[:, i],
            block_x[:, c],
            block_y[:, c],
        )
    if options.derivatives != "exact":  # filtered before the zero columns of the other valves are added
        x1, y1, block_x, y2 = (moving_average(a, options.taps, options.zero_phase) for a in (x1, y1, block_x, block_y))
    else:
        y2 = block_y
    edge = edge_samples(options.taps) if options.derivatives != "exact" else 0
    keep = slice(edge, len(q) - edge)
    x2 = np.zeros((len(q) - 2 * edge, len(joints), 2, 1 + 4 * n))
    for c, i in enumerate(joints):
        x2[:, c, :, 0] = block_x[keep, c, :, 0]
        x2[:, c, :, 1 + 4 * i : 5 + 4 * i] = block_x[keep, c, :, 1:]
    return Rows(
        x1[keep].reshape(-1, x1.shape[-1]),
        y1[keep].ravel(),
        x2.reshape(-1, x2.shape[-1]),
        y2[keep].ravel(),
        names1,
        fluid_names(n),
    )


def stack_rows(
    robot: HydraulicRobot,
    experiments: Sequence[Experiment],
    options: IdentificationOptions,
    pressure_offset: bool = False,
) -> Rows:
    """X1N, Y1N, X2N, Y2N (2): the rows of every experiment, shared parameters in one column
    (``pressure_offset``: :func:`experiment_rows`)."""
    if not experiments:
        raise ParameterError("no experiments: give at least one log")
    parts = [experiment_rows(robot, e, options, pressure_offset) for e in experiments]
    return Rows(
        np.concatenate([r.x1 for r in parts]),
        np.concatenate([r.y1 for r in parts]),
        np.concatenate([r.x2 for r in parts]),
        np.concatenate([r.y2 for r in parts]),
        parts[0].names1,
        parts[0].names2,
    )


@dataclass(frozen=True)
class LeastSquares:
    """Solution of one stacked system: estimates, their standard errors, the condition number of X
    (as stacked, SI), the residual RMS and the row count."""

    names: list[str]
    estimate: np.ndarray
    standard_error: np.ndarray
    condition: float
    residual_rms: float
    rows: int


def solve_least_squares(
    x: np.ndarray, y: np.ndarray, names: list[str], block: str, experiments: Sequence[Experiment] = ()
) -> LeastSquares:
    """â = (XᵀX)⁻¹Xᵀy (3), after checking every parameter is identifiable (clear error if not).

    Solved through the Gram matrix of the column-normalised X (its condition number is the
    square of X's, O(10³) for these experiments, far from losing digits); the singular values
    of X are the square roots of the Gram matrix's eigenvalues.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scale = np.linalg.norm(x, axis=0)
    if not (np.isfinite(scale).all() and np.isfinite(y).all()):
        which = f" of {', '.join(e.name for e in experiments)}" if experiments else ""
        raise ParameterError(
            f"the {block} regressors{which} overflow (values too large to square): check the "
            "columns' units (SI: rad, Pa) and remove outlying rows"
        )
    zero = scale <= 1e-12 * scale.max()
    if zero.any():
        lost = [names[i] for i in np.flatnonzero(zero)]
        raise ParameterError(
            f"{block} data cannot identify {', '.join(lost)}: their regressor columns are zero. "
            + _remedy_for_zero(lost)
        )
    gram, moment = _normal_equations(x, y, 1.0 / scale)
    eigenvalues, vectors = np.linalg.eigh(gram)
    if eigenvalues[0] < RANK_TOLERANCE**2 * eigenvalues[-1]:
        _raise_collinear(np.abs(vectors[:, 0]), names, block, experiments)
    estimate = np.linalg.solve(gram, moment) / scale
    residual = y - _product(x, estimate)
    sigma2 = float(residual @ residual) / max(len(y) - len(names), 1)
    covariance = sigma2 * np.linalg.inv(gram) / np.outer(scale, scale)
    raw = np.linalg.eigvalsh(gram * np.outer(scale, scale))
    return LeastSquares(
        list(names),
        estimate,
        np.sqrt(np.clip(np.diag(covariance), 0.0, None)),
        float(np.sqrt(raw[-1] / raw[0])),
        float(np.sqrt(np.mean(residual**2))),
        len(y),
    )


@nb.njit(cache=True)
def _normal_equations(x, y, inverse_scale):
    """(X̃ᵀX̃, X̃ᵀy) of the column-scaled X̃ = X·diag(inverse_scale), by loops: a multi-threaded
    BLAS call on a busy machine is several times slower for these tall, narrow matrices, and the
    bootstrap calls this hundreds of times."""
    p = x.shape[1]
    gram = np.zeros((p, p))
    moment = np.zeros(p)
    for k in range(x.shape[0]):
        for i in range(p):
            xi = x[k, i] * inverse_scale[i]
            moment[i] += xi * y[k]
            for j in range(i + 1):
                gram[i, j] += xi * x[k, j] * inverse_scale[j]
    for i in range(p):
        for j in range(i):
            gram[j, i] = gram[i, j]
    return gram, moment


@nb.njit(cache=True)
def _product(x, a):
    """X a by loops (as :func:`_normal_equations`)."""
    out = np.zeros(x.shape[0])
    for k in range(x.shape[0]):
        for i in range(x.shape[1]):
            out[k] += x[k, i] * a[i]
    return out


def _raise_collinear(direction: np.ndarray, names: list[str], block: str, experiments) -> None:
    lost = [names[i] for i in np.flatnonzero(direction > 0.1 * direction.max())]
    if {"M1", "R12"} <= set(lost):
        angles = sorted(
            {
                round(math.degrees(float(e.q[:, 1].mean())), 3)
                for e in experiments
                if e.q.shape[1] > 1 and e.q[:, 1].std() <= 1e-3 and e.q[:, 0].std() > 1e-3
            }
        )
        raise ParameterError(
            f"{block} data cannot separate M1 from R12: every experiment that drives joint 1 locks joint 2 at "
            f"the same angle ({', '.join(f'{a:g}°' for a in angles) or 'one angle'}); add a step with joint 2 "
            "locked at another angle (the paper's q2min and q2max)"
        )
    raise ParameterError(
        f"{block} data cannot separate {', '.join(lost)}: their regressor columns are collinear; "
        "add experiments that move these joints differently (other locked angles or amplitudes)"
    )


def _remedy_for_zero(lost: list[str]) -> str:
    hints = []
    for name in lost:
        joint = name[-1]
        if name.startswith(("C+-", "C--")):
            hints.append(
                f"spool {joint} never goes negative (or joint {joint} is never driven): drive it both ways, "
                "for example with a sine"
            )
        elif name.startswith(("C++", "C-+")):
            hints.append(f"spool {joint} never goes positive (or joint {joint} is never driven): drive it both ways")
        else:
            hints.append(f"{name}: add an experiment that drives the joints it acts on")
    return "; ".join(dict.fromkeys(hints))


@dataclass(frozen=True)
class Identification:
    """Identified parameters with the two least-squares solutions behind them.

    ``parameters`` is None with gravity "unknown" (W_i is then replaced by g·W_i and the tilt,
    see ``gravity_loads`` and ``tilt``).
    """

    mechanical: LeastSquares
    fluid: LeastSquares
    parameters: RobotParameters | None
    gravity_loads: np.ndarray | None = None
    tilt: float | None = None

    @property
    def bulk_modulus(self) -> float:
        """The identified bulk modulus b [Pa] (the inverse of the first fluid parameter 1/b)."""
        return 1.0 / float(self.fluid.estimate[0])

    def values(self) -> dict[str, float]:
        """Every identified value by name (b in Pa); standard errors under ``<name>_se``."""
        out: dict[str, float] = {}
        for ls in (self.mechanical, self.fluid):
            for name, value, se in zip(ls.names, ls.estimate, ls.standard_error):
                if name == "1/b":
                    out["b"], out["b_se"] = 1.0 / value, se / value**2
                else:
                    out[name], out[f"{name}_se"] = float(value), float(se)
        if self.gravity_loads is not None:
            out.update({f"gW{i + 1}": float(v) for i, v in enumerate(self.gravity_loads)})
            out["tilt"] = float(self.tilt)
        return out


def identify(
    robot: HydraulicRobot, experiments: Sequence[Experiment], options: IdentificationOptions | None = None
) -> Identification:
    """Stack every experiment and solve X1N a1 = Y1N and X2N a2 = Y2N once each (3)."""
    options = options or IdentificationOptions()
    rows = stack_rows(robot, experiments, options)
    mechanical = solve_least_squares(rows.x1, rows.y1, rows.names1, "mechanical", experiments)
    fluid = solve_least_squares(rows.x2, rows.y2, rows.names2, "fluid", experiments)
    if fluid.estimate[0] <= 0.0:
        raise ParameterError(
            f"the fluid data give 1/b = {fluid.estimate[0]:.3g} 1/Pa (not positive): the pressure "
            "rates carry no information; check the pressure columns' units (Pa) and the spool excitation"
        )
    if options.gravity == "known":
        params = RobotParameters.from_vectors(mechanical.estimate, fluid.estimate)
        return Identification(mechanical, fluid, params)
    n = robot.joints
    cos_part, sin_part = mechanical.estimate[-2 * n : -n], mechanical.estimate[-n:]
    loads = np.hypot(cos_part, sin_part)
    tilt = float(np.arctan2(sin_part @ loads, cos_part @ loads))
    return Identification(mechanical, fluid, None, loads, tilt)


@dataclass(frozen=True)
class Repeated:
    """Identifications repeated over groups of experiments: per parameter min, mean, max and the
    relative standard deviation RSD = 100·std/mean [%] (Table III)."""

    runs: list[Identification]
    table: dict[str, dict[str, float]]


def identify_repeated(
    robot: HydraulicRobot, experiments: Sequence[Experiment], options: IdentificationOptions | None = None
) -> Repeated:
    """One identification per ``repetition`` group of ``experiments``, and their statistics."""
    groups = sorted({e.repetition for e in experiments})
    runs = [identify(robot, [e for e in experiments if e.repetition == g], options) for g in groups]
    names = [k for k in runs[0].values() if not k.endswith("_se")]
    table = {}
    for name in names:
        values = np.array([r.values()[name] for r in runs])
        mean = float(values.mean())
        table[name] = {
            "min": float(values.min()),
            "mean": mean,
            "max": float(values.max()),
            "rsd_percent": float(100.0 * values.std(ddof=1) / abs(mean)) if len(values) > 1 else 0.0,
        }
    return Repeated(runs, table)

"""``actuatorlab calibrate``: numeric fields of any simulating scenario fitted so that its
simulated channels match logged ones (output error; Ljung, *System Identification*, 2nd ed.,
1999, ch. 7; MATLAB's ``greyest`` / Simulink Design Optimization's parameter estimation).

Free fields (``--free PATH[=LOW..HIGH]``, bounds as written in a scenario file, with units) start
at the scenario's values. A field whose bounds are both positive and a decade or more apart, or
a positive field without bounds, is fitted through its logarithm (it stays positive, and a step
is relative). Matched channels (``--match CHANNEL[=COLUMN]``) are columns of the run's table
(``actuatorlab run``'s results) compared at the log's sample times, the log read through the
``[log]`` layout (columns, units, time, windows). Each log is one experiment; ``--input
PATH=COLUMN`` drives the scenario's input signal at PATH from the log's column (a piecewise-
linear signal through its samples), so logs of different experiments each get their own run.

The residual of channel c of log l is (simulated − logged)/σ_lc, σ_lc the channel's white
noise level estimated from its third differences (``uncertainty.noise_levels``): channels of
different units and qualities weigh by how well they were measured (``--weight CHANNEL=W``
multiplies). ``scipy.optimize.least_squares`` (trust region, bounds) minimises it; its Jacobian
by forward differences in the fitted variables, the p perturbed scenarios of one iteration run
as one batch through the sweep engine's compiled path where the kind has one (the arm kinds),
else one after another. Intervals: the sandwich covariance of the weighted residual with an
autoregressive model of it (``uncertainty.output_error_covariance``), 95 % as ± 1.96 standard
errors in the fitted variable (so asymmetric in SI for a logarithmic field); correlations above
``CORRELATED`` are diagnosed as parameters the data cannot separate, a rank-deficient Jacobian
is refused naming them.
"""

from __future__ import annotations

import difflib
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ActuatorlabError, ScenarioError
from ..identification.fit import fit_ratio
from ..identification.uncertainty import Z95, noise_levels, output_error_covariance
from .log_layout import MappedLog
from .variants import Variants, checked_value, get_path, read_value, set_values

CORRELATED = 0.95
"""|correlation| between two fitted fields above which the data are said not to separate them."""
RANK_TOLERANCE = 1e-6
"""Smallest singular value of the column-scaled Jacobian, relative to the largest, that counts as
determined: forward differences of step ``STEP`` are accurate to about STEP², so two fields whose
columns agree to 1e-8 (a discharge coefficient and a valve area, only ever acting as a product)
are one direction, measured 8e-9 on arm-relief."""
STEP = 1e-4
"""Forward-difference step in the fitted variables (relative for a logarithmic field)."""


@dataclass(frozen=True)
class FreeField:
    """A field to fit: its path, start [SI], bounds [SI] (±inf: none) and whether it is fitted
    through its logarithm."""

    path: str
    start: float
    low: float
    high: float
    logarithmic: bool

    def to_free(self, value):
        """SI value → fitted variable."""
        return np.log(value) if self.logarithmic else value

    def from_free(self, q):
        """Fitted variable → SI value."""
        return np.exp(q) if self.logarithmic else q


@dataclass(frozen=True)
class Match:
    """A simulated channel (a column of the run's table) and the log quantity it is compared with."""

    channel: str
    column: str
    weight: float = 1.0


def parse_free(spec, texts: Sequence[str]) -> list[FreeField]:
    """``PATH`` or ``PATH=LOW..HIGH`` (values as written in a scenario file) → :class:`FreeField`,
    each checked against ``spec`` (a number field; bounds valid values of it, around its value)."""
    if not texts:
        raise ScenarioError("give at least one --free PATH[=LOW..HIGH], e.g. --free circuit.discharge_coefficient")
    fields, dump = [], spec.model_dump()
    for text in texts:
        path, _, bounds = text.partition("=")
        path = path.strip()
        source = f"--free {text!r}"
        get_path(dump, path)  # an unknown path: one line listing the fields there
        start = read_value(spec, path, source)
        low, high = -math.inf, math.inf
        if bounds:
            parts = bounds.split("..")
            if len(parts) != 2:
                raise ScenarioError(f"{source}: write PATH=LOW..HIGH, e.g. arm.mass=1500 kg..2500 kg")
            low, high = (checked_value(spec, path, _written(p), source) for p in parts)
            if not low < high:
                raise ScenarioError(f"{source}: need LOW < HIGH")
            if not low <= start <= high:
                raise ScenarioError(
                    f"{source}: the scenario's value {start:g} (SI) lies outside the bounds; widen them, or give "
                    f"{path} a start inside them in the scenario"
                )
        logarithmic = (low > 0.0 and high >= 10.0 * low) or (math.isinf(low) and math.isinf(high) and start > 0.0)
        fields.append(FreeField(path, start, low, high, logarithmic))
    paths = [f.path for f in fields]
    if len(set(paths)) != len(paths):
        raise ScenarioError(
            f"--free names a field twice: {', '.join(sorted({p for p in paths if paths.count(p) > 1}))}"
        )
    return fields


def _written(text: str):
    """A number if the text is one, else the text (a quantity with its unit)."""
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        return text


def parse_match(texts: Sequence[str], weights: Mapping[str, float | str] | None = None) -> list[Match]:
    """``CHANNEL`` or ``CHANNEL=COLUMN`` → :class:`Match`; ``weights`` (channel → factor) multiply."""
    if not texts:
        raise ScenarioError("give at least one --match CHANNEL[=COLUMN], e.g. --match theta=ANGLE")
    factor = {}
    for channel, value in (weights or {}).items():
        try:
            factor[channel] = float(value)
        except ValueError:
            raise ScenarioError(f"--weight {channel}={value}: write CHANNEL=W with W a number > 0") from None
        if not (math.isfinite(factor[channel]) and factor[channel] > 0.0):
            raise ScenarioError(f"--weight {channel}={value}: W must be a finite number > 0")
    matches = []
    for text in texts:
        channel, _, column = text.partition("=")
        matches.append(Match(channel.strip(), column.strip() or channel.strip(), factor.pop(channel.strip(), 1.0)))
    if factor:
        raise ScenarioError(f"--weight names {', '.join(factor)}, which no --match compares")
    return matches


def parse_pairs(texts: Sequence[str], option: str, form: str) -> dict[str, str]:
    """``KEY=VALUE`` options → {KEY: VALUE}; a text without ``=`` or a key given twice is refused."""
    pairs: dict[str, str] = {}
    for text in texts:
        key, sep, value = text.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ScenarioError(f"{option} {text!r}: write {form}")
        if key.strip() in pairs:
            raise ScenarioError(f"{option} names {key.strip()} twice")
        pairs[key.strip()] = value.strip()
    return pairs


@dataclass
class Experiment:
    """One log: its scenario (inputs driven from the log where mapped), sample times [s],
    measured channels [SI] and their weights 1/σ."""

    name: str
    spec: object
    t: np.ndarray
    measured: dict[str, np.ndarray]
    weights: dict[str, float]


def experiment(spec, log: MappedLog, matches: list[Match], inputs: dict[str, str]) -> Experiment:
    """The :class:`Experiment` of ``log`` for ``spec``: inputs set from the log, the log checked
    to cover the scenario's duration (rows after it are not compared), each channel's weight
    from its noise level. The log's time is taken from its first row (the scenario's t = 0)."""
    path = duration_path(spec)
    duration = read_value(spec, path, "the scenario") if path else math.inf  # else checked against the run
    span = float(log.t[-1] - log.t[0])
    if path and span < duration * (1.0 - 1e-9) - log.period:
        raise ScenarioError(
            f"{log.source}: covers {span:g} s ({log.t[0]:g}–{log.t[-1]:g} s), the scenario runs {duration:g} s: "
            f'set its {path} = "{span:g} s" or give the whole log'
        )
    keep = log.t - log.t[0] <= duration + 1e-9
    t = log.t[keep] - log.t[0]
    if inputs:
        signals = [
            {"type": "piecewise-linear", "times": t.tolist(), "values": log.values[c][keep].tolist()}
            for c in inputs.values()
        ]
        spec = set_values(spec, list(inputs), signals)
    measured = {m.channel: log.values[m.channel][keep] for m in matches}
    weights = {}
    for m in matches:
        sigma = float(noise_levels(measured[m.channel]))
        spread = float(np.std(measured[m.channel]))
        if spread == 0.0:
            raise ScenarioError(f"{log.source}: {m.column} does not move; match a channel the experiment excites")
        weights[m.channel] = m.weight / max(sigma, 1e-3 * spread)
    return Experiment(log.source, spec, t, measured, weights)


def duration_path(spec) -> str | None:
    """The field holding the simulated time of ``spec``'s kind (``simulation.duration`` or
    ``duration``), None if the kind has none."""
    if hasattr(getattr(spec, "simulation", None), "duration"):
        return "simulation.duration"
    return "duration" if hasattr(spec, "duration") else None


class Simulator:
    """Runs variants of each experiment's scenario with the free fields set and samples the
    matched channels at the log's times; batched through the kind's compiled sweep path where
    it has one for these fields. Counts the simulations."""

    def __init__(
        self,
        fields: list[FreeField],
        matches: list[Match],
        experiments: list[Experiment],
        tell: Callable[[int], None] | None = None,
    ):
        from .kinds import KINDS

        self.fields, self.matches, self.experiments, self.tell = fields, matches, experiments, tell
        self.paths = [f.path for f in fields]
        self.simulations = 0
        self.units: dict[str, str] = {}
        kind = experiments[0].spec.kind
        self._batch = None
        if KINDS[kind].batch:
            from .sweep import batch_module

            module = batch_module(kind)
            if all(module.batch_support(e.spec, self.paths) is None for e in experiments):
                self._batch = module.run_batch
        self.batched = self._batch is not None

    def channels(self, values: np.ndarray) -> list[list[dict[str, np.ndarray] | str]]:
        """Per row of ``values`` (variants × fields, SI), per experiment: channel → samples at the
        log's times, or the error that stopped the run."""
        values = np.atleast_2d(values)
        out = [[None] * len(self.experiments) for _ in range(len(values))]
        for j, exp in enumerate(self.experiments):
            tables = self._run(exp.spec, values)
            for i, table in enumerate(tables):
                out[i][j] = table if isinstance(table, str) else self._sample(table, exp)
        self.simulations += len(values) * len(self.experiments)
        if self.tell is not None:
            self.tell(self.simulations)
        return out

    def _run(self, spec, values: np.ndarray) -> list:
        if self._batch is not None:
            variants = Variants.of(self.paths, values)
            batch = self._batch(spec, variants, frozenset(range(len(values))), 2)
            outputs = [batch.series[i] if not batch.errors[i] else batch.errors[i] for i in range(len(values))]
        else:
            from .runner import simulate

            outputs = []
            for row in values:
                try:
                    outputs.append(simulate(set_values(spec, self.paths, row)))
                except ActuatorlabError as error:  # a trial point the model refuses, as a batch records it
                    outputs.append(f"{type(error).__name__}: {error}")
        for output in outputs:
            if not isinstance(output, str):
                self.units.update(output.units)
        return [output if isinstance(output, str) else output.table for output in outputs]

    def _sample(self, table, exp: Experiment) -> dict[str, np.ndarray]:
        t = np.asarray(table["t"], float)
        if exp.t[-1] > t[-1] * (1.0 + 1e-9) + 1e-12:  # a kind whose length is its motion's, not a field
            raise ScenarioError(
                f"{exp.name}: runs to {exp.t[-1]:g} s, the scenario's run to {t[-1]:g} s; give the log's first "
                f"{t[-1]:g} s (--window 0:{t[-1]:g})"
            )
        sampled = {}
        for m in self.matches:
            if m.channel not in table:
                names = [c for c in table if c != "t"]
                close = difflib.get_close_matches(m.channel, names, n=3)
                hint = f"did you mean {', '.join(close)}?" if close else f"its channels are {', '.join(names)}"
                raise ScenarioError(f"--match {m.channel}: the run has no channel {m.channel!r}; {hint}")
            sampled[m.channel] = np.interp(exp.t, t, np.asarray(table[m.channel], float))
        return sampled


@dataclass
class Calibration:
    """The fit: per field its value, standard error and 95 % interval [SI]; the correlation
    matrix; the NRMSE fit [%] per experiment and channel at the start and at the end (and on
    the validation logs); simulated channels and their units; simulations run; wall time [s];
    diagnosis lines; whether the runs were batched."""

    fields: list[FreeField]
    values: np.ndarray
    std_errors: np.ndarray
    low: np.ndarray
    high: np.ndarray
    correlation: np.ndarray
    fit_start: dict[str, dict[str, float]]
    fit: dict[str, dict[str, float]]
    validation_fit: dict[str, dict[str, float]]
    start_channels: list[dict[str, np.ndarray]]
    channels: list[dict[str, np.ndarray]]
    validation_channels: list[dict[str, np.ndarray]]
    units: dict[str, str]
    simulations: int
    seconds: float
    diagnosis: list[str]
    batched: bool


def calibrate(
    fields: list[FreeField],
    matches: list[Match],
    experiments: list[Experiment],
    validation: Sequence[Experiment] = (),
    progress: Callable[[int], None] | None = None,
) -> Calibration:
    """Fit ``fields`` so that the ``matches`` of every experiment agree with its log (module
    docstring); ``validation`` experiments are only simulated with the result; ``progress(runs)``
    after each batch of runs with their count so far."""
    from scipy.optimize import least_squares

    start_time = time.perf_counter()
    simulator = Simulator(fields, matches, experiments, progress)
    q0 = np.array([f.to_free(f.start) for f in fields])
    low = np.array([f.to_free(f.low) if np.isfinite(f.low) else -np.inf for f in fields])
    high = np.array([f.to_free(f.high) if np.isfinite(f.high) else np.inf for f in fields])
    size = sum(e.t.size for e in experiments) * len(matches)
    cache: dict[bytes, tuple] = {}

    def values_of(q: np.ndarray) -> np.ndarray:
        return np.array([f.from_free(x) for f, x in zip(fields, q)])

    def evaluate(rows: np.ndarray) -> list[tuple]:
        """Per row of fitted variables: (weighted residual, or None if a run failed; the channels)."""
        out = []
        for per_experiment in simulator.channels(np.array([values_of(q) for q in rows])):
            if any(isinstance(c, str) for c in per_experiment):
                out.append((None, per_experiment))
                continue
            residual = [
                (c[m.channel] - e.measured[m.channel]) * e.weights[m.channel]
                for e, c in zip(experiments, per_experiment)
                for m in matches
            ]
            out.append((np.concatenate(residual), per_experiment))
        return out

    def at(q: np.ndarray) -> tuple:
        """(residual, channels) at q, each point run once."""
        key = q.tobytes()
        if key not in cache:
            cache[key] = evaluate(q[None, :])[0]
        return cache[key]

    def fun(q: np.ndarray) -> np.ndarray:
        residual = at(q)[0]
        return residual if residual is not None else np.full(size, 1e150)

    def jac(q: np.ndarray) -> np.ndarray:
        base = fun(q)
        steps = STEP * np.where(np.array([f.logarithmic for f in fields]), 1.0, np.maximum(np.abs(q), 1e-12))
        steps = np.where(q + steps > high, -steps, steps)
        columns = [residual for residual, _ in evaluate(q[None, :] + np.diag(steps))]
        bad = [f.path for f, c in zip(fields, columns) if c is None]
        if bad:
            raise ScenarioError(
                f"a run near the fit's current values failed when {', '.join(bad)} moved; narrow their bounds"
            )
        return np.column_stack([(c - base) / h for c, h in zip(columns, steps)])

    if at(q0)[0] is None:
        raise ScenarioError(
            "the scenario does not run at its own values of the free fields; check it with actuatorlab run"
        )
    solution = least_squares(
        fun, q0, jac=jac, bounds=(low, high), x_scale="jac", method="trf", xtol=1e-10, ftol=1e-10, max_nfev=100
    )
    q = solution.x
    jacobian = solution.jac  # the last Jacobian, at the solution (linear loss: not modified)
    _refuse_undetermined(jacobian, fields)
    cov, _ = output_error_covariance(jacobian, -fun(q))
    std_q = np.sqrt(np.maximum(np.diag(cov), 0.0))
    values = values_of(q)
    chain = np.array([v if f.logarithmic else 1.0 for f, v in zip(fields, values)])
    scale = np.where(std_q > 0, std_q, 1.0)
    correlation = cov / np.outer(scale, scale)
    final, start = at(q)[1], at(q0)[1]
    checked = Simulator(fields, matches, list(validation)).channels(values[None, :])[0] if validation else []
    return Calibration(
        fields,
        values,
        std_q * chain,
        values_of(q - Z95 * std_q),
        values_of(q + Z95 * std_q),
        correlation,
        _fits(experiments, start, matches),
        _fits(experiments, final, matches),
        _fits(list(validation), checked, matches),
        start,
        final,
        checked,
        {m.channel: simulator.units.get(m.channel, "") for m in matches},
        simulator.simulations,
        time.perf_counter() - start_time,
        _diagnosis(fields, correlation),
        simulator.batched,
    )


def _fits(experiments, channels, matches) -> dict[str, dict[str, float]]:
    return {
        e.name: {m.channel: float(fit_ratio(e.measured[m.channel], c[m.channel])) for m in matches}
        for e, c in zip(experiments, channels)
    }


def _refuse_undetermined(jacobian: np.ndarray, fields: list[FreeField]) -> None:
    norms = np.linalg.norm(jacobian, axis=0)
    dead = [f.path for f, n in zip(fields, norms) if n == 0.0]
    if dead:
        raise ScenarioError(
            f"the logs do not depend on {', '.join(dead)}: drop it from --free, or match a channel it moves"
        )
    _, singular, vt = np.linalg.svd(jacobian / norms, full_matrices=False)
    if singular[-1] < RANK_TOLERANCE * singular[0]:
        weights = np.abs(vt[-1])
        pair = [fields[i].path for i in np.argsort(weights)[::-1][:2]]
        raise ScenarioError(
            f"the logs cannot separate {pair[0]} and {pair[1]} (they change the matched channels alike): "
            "fix one of them (drop its --free), or log a motion that moves them differently"
        )


def _diagnosis(fields: list[FreeField], correlation: np.ndarray) -> list[str]:
    lines = []
    for i in range(len(fields)):
        for j in range(i + 1, len(fields)):
            if abs(correlation[i, j]) > CORRELATED:
                lines.append(
                    f"{fields[i].path} and {fields[j].path} are correlated {correlation[i, j]:+.3f}: the logs barely "
                    "separate them (their intervals are wide together); fix one, or log a motion that moves them "
                    "differently (another load, speed or pressure level)"
                )
    return lines

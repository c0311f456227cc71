"""Parametric bootstrap of the coupled least squares of Sakai & Maeshima's robot: bias and
standard errors that hold on noisy logs (the statistics in
:mod:`actuatorlab.identification.uncertainty`).

1. The noise of every logged channel (q, p+, p− and u of each joint, per experiment) is
   estimated from the log itself (:func:`~actuatorlab.identification.uncertainty.noise_levels`).
2. Each experiment is re-simulated once with the identified parameters (:func:`replay`): from
   the logged state at its first sample (a cubic fitted to the first ``INITIAL_SAMPLES``),
   driven by the logged spool input cleared of its measurement noise
   (:func:`~actuatorlab.identification.uncertainty.denoised` at the estimated level), locked
   joints held where they were logged. The replay must resemble the real experiment, not only
   fit it: a replay started with q̇(0) from a smoothed signal's edge carried an oil-column
   transient that made M2's spread 20 % too small; a replay driven by the input through the
   identification's 20-tap moving average kept σ_u/√20 of the spool's sensor noise in the
   drive, pressure motion the real valve never made, and b's spread came out 15 % too large
   (its intervals covered 98.5 %) while a noise-free drive gives the Monte Carlo spread.
   The noise model is measurement noise, which does not enter the motion, so one compiled
   simulation per experiment serves every replicate.
3. Each replicate adds fresh Gaussian noise at those levels to every channel of the replays and
   identifies again with the same options; replicates run on ``workers`` threads (numpy, SciPy
   and the compiled row kernels share the cores), each from its own seed so the result does not
   depend on the threads' order. Those seeds are spawned from one seed, by default derived from
   the logs (:func:`seed_from_logs`): a run is reproducible on its data, and runs on other data
   draw independent noise.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError, SimulationError
from ..identification.robot_least_squares import Experiment, Identification, IdentificationOptions, identify
from ..identification.uncertainty import (
    Z95,
    BootstrapSummary,
    denoised,
    noise_levels,
    single_threaded_blas,
    summarize,
)
from ..mechanics.robot_dynamics import HydraulicRobot, RobotParameters
from .robot_simulation import simulate_robot

CHANNELS = ("q", "p_plus", "p_minus", "u")
INITIAL_SAMPLES = 41
"""The replay's initial state (q, q̇, p±) is a cubic fitted to this many first samples: it averages
the noise, where a smoothed signal's edge (even-padded) would set q̇(0) near zero and start a
transient of the oil column that adds excitation the real experiment did not have."""


@dataclass(frozen=True)
class RobotBootstrap:
    """The bootstrap's summary (per parameter of :meth:`Identification.values`, b in Pa), the
    noise levels used (per experiment: channel → std per joint, SI / spool unit), the
    replicate count, the seed of the draws (given or :func:`seed_from_logs`), threads and wall
    time [s]."""

    summary: BootstrapSummary
    noise: list[dict[str, np.ndarray]]
    replicates: int
    seed: int
    workers: int
    seconds: float


def seed_from_logs(experiments: Sequence[Experiment]) -> int:
    """The bootstrap's default seed: a 63-bit integer (it fits a TOML integer) from the BLAKE2b
    hash of t [s], q [rad], p+, p− [Pa] and u [spool unit] of each experiment in order (shapes
    and values as little-endian float64, whatever the memory layout). The same logs give the
    same draws; other logs (another noise realisation) independent ones, where one seed for all
    would reuse the same draws on every data set and let the intervals' errors repeat instead of
    averaging out."""
    digest = hashlib.blake2b(digest_size=8)
    for experiment in experiments:
        for name in ("t", *CHANNELS):
            values = np.ascontiguousarray(getattr(experiment, name), dtype="<f8")
            digest.update(np.array(values.shape, dtype="<i8").tobytes())
            digest.update(values.tobytes())
    return int.from_bytes(digest.digest(), "little") >> 1


def channel_noise(experiment: Experiment) -> dict[str, np.ndarray]:
    """Measurement-noise std of each channel of ``experiment`` (per joint)."""
    return {name: noise_levels(getattr(experiment, name)) for name in CHANNELS}


def replay(
    robot: HydraulicRobot, params: RobotParameters, experiment: Experiment, options: IdentificationOptions
) -> Experiment:
    """``experiment`` re-simulated noise-free with ``params`` (module docstring, step 2)."""
    driven = experiment.driven(options.lock_tolerance)
    start = experiment.t[:INITIAL_SAMPLES] - experiment.t[0]
    q, p_plus, p_minus = (
        np.polyfit(start, getattr(experiment, name)[:INITIAL_SAMPLES], 3) for name in ("q", "p_plus", "p_minus")
    )
    q0 = np.where(driven, q[-1], experiment.q.mean(axis=0))
    qd0 = np.where(driven, q[-2], 0.0)
    try:
        drive = denoised(experiment.u, noise_levels(experiment.u))
        run = simulate_robot(
            robot, params, experiment.t, drive, q0, p_plus[-1], p_minus[-1], qd0=qd0, driven=driven, policy="clip"
        )
    except SimulationError as error:
        raise ParameterError(
            f"{experiment.name}: the identified model cannot replay this log for the bootstrap "
            f"({error}); the intervals need a model that follows the experiment"
        ) from None
    return Experiment(experiment.name, experiment.t, run.q, run.p_plus, run.p_minus, run.u, experiment.repetition)


def add_noise(experiment: Experiment, noise: dict[str, np.ndarray], rng: np.random.Generator) -> Experiment:
    """``experiment`` with Gaussian noise of std ``noise[channel]`` (per joint) on every channel."""
    noisy = {
        name: getattr(experiment, name) + rng.standard_normal(experiment.q.shape) * noise[name] for name in CHANNELS
    }
    return Experiment(
        experiment.name, experiment.t, noisy["q"], noisy["p_plus"], noisy["p_minus"], noisy["u"], experiment.repetition
    )


def identification_vector(identification: Identification, names: Sequence[str]) -> np.ndarray:
    """The identified values of ``names`` (b in Pa) as an array."""
    values = identification.values()
    return np.array([values[name] for name in names])


def bootstrap_identification(
    robot: HydraulicRobot,
    experiments: Sequence[Experiment],
    options: IdentificationOptions,
    fit: Identification,
    replicates: int = 200,
    seed: int | None = None,
    workers: int = 2,
) -> RobotBootstrap:
    """Bias, standard errors and 95 % intervals of ``fit`` (the identification of
    ``experiments``) by ``replicates`` re-identifications of replayed, re-noised logs; ``seed``
    of their noise (≥ 0; None: :func:`seed_from_logs` of ``experiments``)."""
    if fit.parameters is None:
        raise ParameterError(
            "the bootstrap re-simulates the identified robot, which gravity = 'unknown' does not "
            "give (W_i and g are not separated); identify with gravity = 'known'"
        )
    if replicates < 2:
        raise ParameterError(f"bootstrap = {replicates} replicates: give at least 2 (200 for 95 % intervals) or 0")
    seed = seed_from_logs(experiments) if seed is None else seed
    start = time.perf_counter()
    names = [name for name in fit.values() if not name.endswith("_se")]
    noise = [channel_noise(e) for e in experiments]
    clean = [replay(robot, fit.parameters, e, options) for e in experiments]
    seeds = np.random.SeedSequence(seed).spawn(replicates)

    def one(index: int) -> np.ndarray:
        rng = np.random.default_rng(seeds[index])
        data = [add_noise(e, levels, rng) for e, levels in zip(clean, noise)]
        return identification_vector(identify(robot, data, options), names)

    with single_threaded_blas(), ThreadPoolExecutor(max(1, workers)) as pool:
        draws = np.array(list(pool.map(one, range(replicates))))
    summary = summarize(names, identification_vector(fit, names), draws)
    return RobotBootstrap(summary, noise, replicates, seed, max(1, workers), time.perf_counter() - start)


@dataclass(frozen=True)
class Coverage:
    """How often the 95 % intervals contain the truth, per parameter, over independent noisy
    realisations: the bootstrap's and the least-squares formula's; the fraction of realisations
    whose estimate was bias-corrected; the bootstrap wall time of each realisation [s]."""

    names: list[str]
    bootstrap: np.ndarray
    formula: np.ndarray
    corrected: np.ndarray
    realisations: int
    replicates: int
    seconds: np.ndarray


def coverage(
    robot: HydraulicRobot,
    truth: RobotParameters,
    experiments: Sequence[Experiment],
    noise: dict[str, np.ndarray],
    realisations: int,
    replicates: int,
    options: IdentificationOptions | None = None,
    seed: int = 0,
    workers: int = 2,
) -> Coverage:
    """Coverage of the bootstrap's intervals: ``realisations`` times, add noise of std
    ``noise[channel]`` (per joint, drawn from ``seed``) to the noise-free ``experiments`` of
    ``truth``, identify, run a bootstrap of ``replicates`` (seeded by its realisation's logs, as
    the command's) and check whether each interval contains the truth."""
    options = options or IdentificationOptions()
    reference = truth.as_dict()
    hits = formula = corrected = 0
    seconds = []
    names: list[str] = []
    for r in range(realisations):
        rng = np.random.default_rng([seed, r])
        data = [add_noise(e, noise, rng) for e in experiments]
        fit = identify(robot, data, options)
        result = bootstrap_identification(robot, data, options, fit, replicates, workers=workers)
        names = result.summary.names
        values = fit.values()
        exact = np.array([reference[n] for n in names])
        ls_se = np.array([values[f"{n}_se"] for n in names])
        hits = hits + result.summary.covers(exact)
        formula = formula + (np.abs(result.summary.estimate - exact) <= Z95 * ls_se)
        corrected = corrected + result.summary.corrected
        seconds.append(result.seconds)
    return Coverage(
        names,
        hits / realisations,
        formula / realisations,
        corrected / realisations,
        realisations,
        replicates,
        np.array(seconds),
    )

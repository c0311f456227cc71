"""Many runs of the quasistatic arm loops of :mod:`actuatorlab.simulation.arm` in one compiled
call: a sweep's batch.

Each run goes through the same loop and the same calls as ``simulate_arms`` makes, so its
records are equal bit for bit to a single run's; only the calls around it differ: one compiled
call walks every run of the batch in chunks of ``CHUNK_STEPS`` samples, runs that share their
inputs and circuits share their kernel openings, and a run whose relaxation is unstable does not
start (its error is kept).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import ParameterError, SimulationError
from ..hydraulics.quasistatic.circuit import ValveCircuit
from ..hydraulics.quasistatic.network import PumpNetwork
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..mechanics.single_arm import SingleArm
from ..numerics.status import STATUS_OK
from .arm import (
    CHUNK_STEPS,
    ROW_LENGTH,
    ROW_THETA,
    ArmDrive,
    arm_results,
    check_run,
    initial_state,
    own_pump_loop,
    refuse_shared_regeneration,
    refuse_unstable,
    shared_pump_loop,
)
from .result import SimulationResult
from .travel import outside


@dataclass(frozen=True)
class ArmRun:
    """One run of a batch (quantities as in ``simulate_arms``): N arms with their circuits (on one
    pump in a shared batch), the relaxation, the sampled inputs, the initial state and the travel
    bounds. Runs that share their ``drive`` and circuit objects share their kernel openings."""

    arms: tuple[SingleArm, ...]
    circuits: tuple[ValveCircuit, ...]
    relaxation: Relaxation
    drive: ArmDrive
    initial_angles: tuple[float, ...]
    initial_rates: tuple[float, ...]
    length_range: tuple[float, float] | None = None
    angle_ranges: tuple[tuple[float, float] | None, ...] | None = None


@nb.njit(cache=True, error_model="numpy")
def _own_pump_batch(
    cps, aps, uhs, ua_hats, forces, inputs, stiffness, damping, h, states, runs, chunk_steps, out, status, k_end
):
    """``own_pump_loop`` for every run b with ``runs[b]``, from sample 0 to the end in calls of
    ``chunk_steps`` samples as ``simulate_arms`` makes them. ``cps``, ``aps`` (B, 1, ·);
    ``uhs`` (U, n, 5), ``ua_hats`` and ``forces`` (U, n): the inputs of run b are row
    ``inputs[b]``; ``states`` (B, 1, 7); fills ``out`` (B, 7, 1, n), ``status`` and ``k_end`` (B,)."""
    n = out.shape[3]
    for b in range(cps.shape[0]):
        if not runs[b]:
            continue
        u = inputs[b]
        for k0 in range(0, n, chunk_steps):
            s, k, _ = own_pump_loop(
                cps[b, 0],
                aps[b, 0],
                uhs[u],
                ua_hats[u],
                forces[u],
                stiffness[b],
                damping[b],
                h,
                states[b],
                k0,
                min(k0 + chunk_steps, n),
                out[b],
            )
            status[b], k_end[b] = s, k
            if s != STATUS_OK:
                break


@nb.njit(cache=True, error_model="numpy")
def _shared_pump_batch(
    cps,
    aps,
    uhs,
    forces,
    inputs,
    stiffness,
    damping,
    h,
    states,
    pump_states,
    runs,
    chunk_steps,
    out,
    status,
    k_end,
    j_end,
):
    """``shared_pump_loop`` for every run b with ``runs[b]`` as ``_own_pump_batch`` does:
    ``cps``, ``aps`` (B, N, ·); ``uhs`` (U, n, N, 5), ``forces`` (U, n, N); ``stiffness``,
    ``damping`` (B, N); ``states`` (B, N, 7), ``pump_states`` (B, 2); fills ``out`` (B, 7, N, n),
    ``status``, ``k_end`` and ``j_end`` (B,)."""
    n = out.shape[3]
    for b in range(cps.shape[0]):
        if not runs[b]:
            continue
        u = inputs[b]
        for k0 in range(0, n, chunk_steps):
            s, k, j = shared_pump_loop(
                cps[b],
                aps[b],
                uhs[u],
                forces[u],
                stiffness[b],
                damping[b],
                h,
                states[b],
                pump_states[b],
                k0,
                min(k0 + chunk_steps, n),
                out[b],
            )
            status[b], k_end[b], j_end[b] = s, k, j
            if s != STATUS_OK:
                break


class ArmBatch:
    """The records of a batch of runs on one time grid ``t`` [s] (``simulate_arm_batch``).

    ``out`` (B, 7, N, n): rows ROW_THETA … ROW_PUMP of every run; ``status``, ``k_end``,
    ``j_end`` (B,): how each loop ended; ``errors``: the exception that kept a run from starting
    (an unstable relaxation), else None; ``loop_time_s``: the compiled call's wall time.
    """

    def __init__(self, t, runs, out, status, k_end, j_end, errors, openings, inputs, cps, shared, loop_time_s):
        self.t, self.runs, self.out = t, runs, out
        self.status, self.k_end, self.j_end, self.errors = status, k_end, j_end, errors
        self._openings, self._inputs, self._cps = openings, inputs, cps
        self.shared, self.loop_time_s = shared, loop_time_s

    def clean(self) -> np.ndarray:
        """(B,) bool: the runs that reached the last sample within their travel, those whose
        ``results`` do not raise."""
        started = np.array([e is None for e in self.errors])
        n_runs, n_arms = self.out.shape[0], self.out.shape[2]
        bounds = np.full((4, n_runs, n_arms, 1), np.inf)
        bounds[[0, 2]] = -np.inf
        for b, run in enumerate(self.runs):
            if run.length_range is not None:
                bounds[:2, b] = np.array(run.length_range)[:, None, None]
            for j, angle_range in enumerate(run.angle_ranges or ()):
                if angle_range is not None:
                    bounds[2:, b, j] = np.array(angle_range)[:, None]
        left = outside(self.out[:, ROW_LENGTH], bounds[0], bounds[1]).any(axis=(1, 2)) | outside(
            self.out[:, ROW_THETA], bounds[2], bounds[3]
        ).any(axis=(1, 2))
        return started & (self.status == STATUS_OK) & ~left

    def results(self, b: int) -> list[SimulationResult]:
        """The results of run ``b``, one per arm, as ``simulate_arms`` gives them (its
        ``SimulationError`` raised for a run that failed; loop time: the batch's share)."""
        if self.errors[b] is not None:
            raise self.errors[b]
        run = self.runs[b]
        check_run(self.t, self.out[b], self.status[b], self.k_end[b], self.j_end[b], run.length_range, run.angle_ranges)
        uhs, ua_hat = self._openings[self._inputs[b]]
        counters = {
            "steps": float(self.t.size),
            "compile_time_s": 0.0,
            "loop_time_s": self.loop_time_s / len(self.runs),
        }
        return arm_results(self.t, self.out[b], run.drive, self._cps[b], uhs, ua_hat, self.shared, counters)


def _kernel_array(model, arrays: dict[int, np.ndarray]) -> np.ndarray:
    """``model.kernel_array()``, laid out once per object of a batch (``arrays``: by ``id``)."""
    if id(model) not in arrays:
        arrays[id(model)] = model.kernel_array()
    return arrays[id(model)]


def _opening_fields(circuit: ValveCircuit) -> tuple:
    """The fields of ``circuit`` its kernel openings depend on: û (40)–(43) and û_a (101)."""
    return circuit.head_area, circuit.rod_area, tuple(circuit.coefficients), circuit.regeneration_coefficient


def simulate_arm_batch(
    runs: list[ArmRun],
    t: np.ndarray,
    shared_pump: bool,
    chunk_steps: int = CHUNK_STEPS,
    records: np.ndarray | None = None,
) -> ArmBatch:
    """Simulate ``runs`` on the uniform grid ``t`` [s] in one compiled call: each run by the same
    loop and the same calls as ``simulate_arms`` (so its records are equal bit for bit), all its
    arms on one pump if ``shared_pump`` (Sec. 6), else one arm on its own pump. A run whose
    relaxation is unstable does not start; its error is kept (``ArmBatch.errors``).
    ``records``: an array of at least (len(runs), 7, N, n) to hold the records (reused from
    batch to batch, it spares the memory system a fresh 0.5 MB per run)."""
    h = float(t[1] - t[0])
    n, n_runs, n_arms = t.size, len(runs), len(runs[0].arms)
    errors: list[Exception | None] = []
    openings, drives, inputs, keys = [], [], np.zeros(n_runs, dtype=np.int64), {}
    for b, run in enumerate(runs):
        try:
            for j, arm in enumerate(run.arms):
                refuse_unstable(arm, run.relaxation, h, f"arm {j + 1}: " if n_arms > 1 else "")
            refuse_shared_regeneration(run.drive, shared_pump)
            if shared_pump:
                PumpNetwork(run.circuits)
            errors.append(None)
        except (SimulationError, ParameterError) as error:
            errors.append(error)
        key = (id(run.drive), *map(_opening_fields, run.circuits))
        if key not in keys:
            keys[key] = len(openings)
            openings.append(run.drive.kernel_openings(run.circuits, shared_pump))
            drives.append(run.drive)
        inputs[b] = keys[key]
    arrays: dict[int, np.ndarray] = {}
    cps = np.array([[_kernel_array(c, arrays) for c in run.circuits] for run in runs])
    aps = np.array([[_kernel_array(a, arrays) for a in run.arms] for run in runs])
    states = np.array([initial_state(run.arms, run.initial_angles, run.initial_rates) for run in runs])
    stiffness = np.array([[run.relaxation.stiffness] * n_arms for run in runs])
    damping = np.array([[run.relaxation.damping] * n_arms for run in runs])
    started = np.array([e is None for e in errors])
    shape = (n_runs, 7, n_arms, n)  # a run fills its samples up to where it stops
    fits = records is not None and records.shape[0] >= n_runs and records.shape[1:] == shape[1:]
    out = records[:n_runs] if fits else np.empty(shape)
    status = np.full(n_runs, STATUS_OK, dtype=np.int64)
    k_end = np.full(n_runs, n, dtype=np.int64)
    j_end = np.zeros(n_runs, dtype=np.int64)
    t0 = time.perf_counter()
    if shared_pump:
        uhs = np.array([uh for uh, _ in openings])
        forces = np.array([d.forces for d in drives])
        pump_states = np.array([[run.circuits[0].pump_relief_pressure, 0.0] for run in runs])
        _shared_pump_batch(
            cps,
            aps,
            uhs,
            forces,
            inputs,
            stiffness,
            damping,
            h,
            states,
            pump_states,
            started,
            chunk_steps,
            out,
            status,
            k_end,
            j_end,
        )
    else:
        uhs = np.array([uh[:, 0] for uh, _ in openings])
        ua_hats = np.array([ua for _, ua in openings])
        forces = np.array([d.forces[:, 0] for d in drives])
        _own_pump_batch(
            cps,
            aps,
            uhs,
            ua_hats,
            forces,
            inputs,
            stiffness[:, 0],
            damping[:, 0],
            h,
            states,
            started,
            chunk_steps,
            out,
            status,
            k_end,
        )
    loop_time = time.perf_counter() - t0
    return ArmBatch(t, runs, out, status, k_end, j_end, errors, openings, inputs, cps, shared_pump, loop_time)

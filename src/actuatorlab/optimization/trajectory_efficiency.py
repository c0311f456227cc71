"""How efficient a trajectory of the EMLA crane is (Bahari et al. (13), (64), (68)).

η_EMLA,i(f_xi, v_xi) of each actuator per sample, η_Act (68) the power-weighted harmonic mean
over the motoring actuators per sample, F (64) = ½ Δ_t Σ_k η_Act² [s] and F / t_M, and the
energy-ratio efficiencies Σp / Σ(p/η) per actuator and in total (a reading taken: the paper
reports them without saying how it aggregates over the trajectory).
Forces [N], velocities [m/s], times [s].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..electromech import actuation_efficiency, actuator_efficiency
from ..mechanics.emla_crane import ACTUATOR_NAMES, EmlaCrane
from .trajectory_task import TrajectorySamples


def actuator_efficiencies(crane: EmlaCrane, force, velocity) -> np.ndarray:
    """η_EMLA,i(f_xi, v_xi) (13) of each actuator: force [N], velocity [m/s] (n, 3) → (n, 3).
    Limits are not checked here (the follower enforces them; dense samples may graze them)."""
    force, velocity = np.asarray(force, dtype=float), np.asarray(velocity, dtype=float)
    return np.stack(
        [actuator_efficiency(a, force[:, i], velocity[:, i], check=False) for i, a in enumerate(crane.actuators)],
        axis=1,
    )


@dataclass(frozen=True)
class EfficiencySummary:
    """Efficiency of one trajectory: η per sample (n, 3), η_Act per sample (n,), energy-ratio
    efficiency per actuator (name → value) and in total, F (64), F / t_M [1/s]."""

    eta: np.ndarray
    eta_act: np.ndarray
    per_actuator: dict
    total: float
    objective: float
    objective_per_time: float


def summarise_efficiency(crane: EmlaCrane, samples: TrajectorySamples, duration: float) -> EfficiencySummary:
    """η_EMLA, η_Act (68), F (64) and the energy-ratio efficiencies of collocation samples."""
    f, v = samples.force, samples.velocity
    eta = actuator_efficiencies(crane, f, v)
    eta_act = actuation_efficiency(eta, f, v)  # (68) over the actuators, per sample
    # the same harmonic mean over time (per actuator) and over time and actuators (total)
    # NaN for an actuator that never motors (it has no motoring energy to rate)
    per = {
        n: float(actuation_efficiency(eta[:, i], f[:, i], v[:, i])) if np.any(f[:, i] * v[:, i] > 0) else math.nan
        for i, n in enumerate(ACTUATOR_NAMES)
    }
    total = float(actuation_efficiency(eta.ravel(), f.ravel(), v.ravel()))
    dt = duration / (len(samples.t) - 1)
    f = 0.5 * dt * float(np.sum(eta_act**2))
    return EfficiencySummary(eta, eta_act, per, total, f, f / duration)

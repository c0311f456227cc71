"""Key figures of the arm kinds, computed along the last axis of their records so that one
function serves a single run (arrays of shape (n,)) and a batch of variants ((B, n), one row
per variant) alike, with the same arithmetic (a batched variant's figures equal its run's bit
for bit). Light imports: a sweep's worker loads this, not the plotting of the kinds."""

from __future__ import annotations

import numpy as np

from ..output import SummaryFigure

RELIEF_TOLERANCE = 1e-9
"""Relative closeness of f to ±F_*M that counts as a relief valve being open."""

ARM_FIGURES = {
    "relief_open_time_s": ("s", "time a chamber relief opens", "first f ≤ −F_rM or f ≥ F_hM; none if never"),
    "max_abs_force_N": ("N", "max |f|", ""),
    "rod_relief_force_N": ("N", "F_rM = A_r P_rM", ""),
    "final_angle_rad": ("rad", "θ at the end", ""),
    "max_angle_rad": ("rad", "largest θ", ""),
    "max_stretch_m": ("m", "max |p − ℓ|", "stretch of the virtual spring–damper"),
}
"""Key figure → (unit, label, note) of the arm kind (``max_stretch_m``: quasistatic model only)."""
TIMING_FIGURES = {
    "loop_time_s": ("s", "time-integration wall time", ""),
    "real_time_factor": ("1", "simulated time / time-integration wall time", ""),
}


def relief_open_time(t: np.ndarray, force: np.ndarray, head_relief, rod_relief) -> np.ndarray:
    """First time [s] the force reaches a chamber relief force (f ≤ −F_rM or f ≥ F_hM), NaN if
    never; ``force`` (..., n), the relief forces [N] broadcast against its leading axes."""
    head = np.asarray(head_relief, dtype=np.float64)[..., None]
    rod = np.asarray(rod_relief, dtype=np.float64)[..., None]
    opened = (force <= -rod * (1 - RELIEF_TOLERANCE)) | (force >= head * (1 - RELIEF_TOLERANCE))
    return np.where(opened.any(axis=-1), t[np.argmax(opened, axis=-1)], np.nan)


def arm_figure_values(t, theta, force, head_relief, rod_relief, stretch=None) -> dict[str, np.ndarray]:
    """The ``ARM_FIGURES`` of records ``theta`` [rad], ``force`` [N] and ``stretch`` p − ℓ [m]
    (None: the pressure-dynamics model, no figure) of shape (..., n) on times ``t`` [s]."""
    values = {
        "relief_open_time_s": relief_open_time(t, force, head_relief, rod_relief),
        "max_abs_force_N": np.max(np.abs(force), axis=-1),
        "rod_relief_force_N": np.broadcast_to(np.asarray(rod_relief, dtype=np.float64), force.shape[:-1]),
        "final_angle_rad": theta[..., -1],
        "max_angle_rad": np.max(theta, axis=-1),
    }
    if stretch is not None:
        values["max_stretch_m"] = np.max(np.abs(stretch), axis=-1)
    return values


def arms_figure_values(theta, theta_rate, pump_pressure) -> dict[str, np.ndarray]:
    """Key figures of N arms on one pump: θ at the end and max |θ̇| per arm (records (..., N, n)),
    the lowest pump pressure [Pa] (record (..., n)). Keys as ``arms_figure_info`` gives them."""
    values = {}
    for j in range(theta.shape[-2]):
        values[f"final_angle_{j + 1}_rad"] = theta[..., j, -1]
        values[f"max_rate_{j + 1}_rad_s"] = np.max(np.abs(theta_rate[..., j, :]), axis=-1)
    values["min_pump_pressure_Pa"] = np.nanmin(pump_pressure, axis=-1)
    return values


def arms_figure_info(n_arms: int) -> dict[str, tuple[str, str, str]]:
    """Key figure → (unit, label, note) of ``arms_figure_values`` for ``n_arms`` arms."""
    info = {}
    for j in range(1, n_arms + 1):
        info[f"final_angle_{j}_rad"] = ("rad", f"arm {j}: θ at the end", "")
        info[f"max_rate_{j}_rad_s"] = ("rad/s", f"arm {j}: max |θ̇|", "")
    info["min_pump_pressure_Pa"] = ("Pa", "lowest pump pressure", "")
    return info


def timing_values(duration: float, loop_time: float) -> dict[str, float | None]:
    """``loop_time_s`` and ``real_time_factor`` of a run of ``duration`` [s] simulated in ``loop_time`` [s]."""
    return {"loop_time_s": loop_time, "real_time_factor": duration / loop_time if loop_time > 0 else None}


def summary_figures(values: dict, info: dict[str, tuple[str, str, str]]) -> list[SummaryFigure]:
    """One run's ``SummaryFigure`` list from scalar ``values`` (NaN or None: no value)."""
    return [SummaryFigure(key, _scalar(values[key]), *info[key]) for key in values]


def _scalar(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if np.isnan(value) else value

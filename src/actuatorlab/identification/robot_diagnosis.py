"""When the logs cannot carry the answer: one line per poorly determined parameter of the
robot's coupled least squares (its interval, how collinear its column is, the condition number,
and the joint or excitation that would fix it), and a warning for a single causal filter pass on
noisy data (on the identify-2dof sensor noise it leaves M1 52 %, M2 46 % and R12 55 % low; the
bootstrap sees a bias of −49 % in M1 but, the bias depending on the parameters themselves,
its correction still leaves M1 28 % low: tests/test_identification_uncertainty.py).

A parameter is diagnosed when its 95 % half-width exceeds ``POORLY_DETERMINED`` of its value or
its variance inflation factor (``identification.uncertainty.collinearity``) exceeds
``VIF_LIMIT``: then the data see it mostly through a combination with another column.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .robot_least_squares import Experiment, Identification, IdentificationOptions, Rows
from .uncertainty import POORLY_DETERMINED, Z95, BootstrapSummary, collinearity

VIF_LIMIT = 100.0
"""Variance inflation factor above which a parameter counts as poorly determined: its column is
within ~6° of the span of the others."""
NOISY_ANGLE = 1e-7
"""Angle noise [rad] above which a log counts as noisy for the filter warning (an encoder of 2²²
counts per turn already has 4e-7 rad of quantisation noise)."""


def _remedy(name: str, partner: str, locked: dict[int, list[float]]) -> str:
    """The joint or excitation that would determine ``name`` (collinear with ``partner``)."""
    joint = name[-1]
    if {name, partner} == {"M1", "R12"} or name.startswith("R"):
        k = int(name[-1]) if name.startswith("R") else 2
        angles = ", ".join(f"{a:.4g}°" for a in locked.get(k - 1, [])) or "one angle"
        return f"lock joint {k} at angles further apart while driving the joints before it (now {angles})"
    if name.startswith("M"):
        return f"drive joint {joint} faster or further (M{joint} is seen through its acceleration)"
    if name.startswith("Fv"):
        return f"drive joint {joint} over a wider range of speeds"
    if name.startswith("W"):
        return f"drive or lock joint {joint} over a wider range of angles (its gravity torque goes as sin)"
    if name == "1/b":
        return "excite faster or with larger spool amplitudes (1/b is seen through the pressure rates)"
    direction = "positive" if name.startswith(("C++", "C-+")) else "negative"
    return f"drive spool {joint} further {direction} (larger amplitude), with joint {joint} moving"


def locked_angles(experiments: Sequence[Experiment], tolerance: float) -> dict[int, list[float]]:
    """Joint (0-based) → the distinct angles [deg] it is locked at over ``experiments``."""
    out: dict[int, set[float]] = {}
    for e in experiments:
        for j in np.flatnonzero(~e.driven(tolerance)):
            out.setdefault(int(j), set()).add(round(math.degrees(float(e.q[:, j].mean())), 3))
    return {j: sorted(v) for j, v in out.items()}


def diagnose(
    rows: Rows,
    fit: Identification,
    experiments: Sequence[Experiment],
    options: IdentificationOptions,
    summary: BootstrapSummary | None = None,
    angle_noise: float = 0.0,
) -> list[str]:
    """The diagnosis lines (module docstring); intervals from ``summary`` (bootstrap) if given,
    else from the least-squares standard errors; ``angle_noise`` [rad] the largest estimated on a
    driven joint."""
    lines = []
    if options.derivatives != "exact" and options.taps > 1 and not options.zero_phase and angle_noise > NOISY_ANGLE:
        bias = ""
        if summary is not None and "M1" in summary.names:
            i = summary.names.index("M1")
            bias = f" (the bootstrap finds M1 {100 * summary.bias[i] / summary.estimate[i]:+.3g} %)"
        lines.append(
            f"warning: a single causal {options.taps}-tap moving-average pass on noisy angles "
            f"({angle_noise:.2g} rad) passes differentiated noise into the regressors and biases the inertias "
            f"by tens of percent{bias}, more than a bias correction can repair; set zero_phase = true"
        )
    locked = locked_angles(experiments, options.lock_tolerance)
    for ls, x, block in ((fit.mechanical, rows.x1, "X1N"), (fit.fluid, rows.x2, "X2N")):
        vif, partner = collinearity(x)
        for i, name in enumerate(ls.names):
            value, half = _interval(name, ls.estimate[i], ls.standard_error[i], summary)
            relative = half / abs(value) if value else math.inf
            if relative > POORLY_DETERMINED or vif[i] > VIF_LIMIT:
                shown = "b" if name == "1/b" else name
                lines.append(
                    f"{shown}: ±{100 * relative:.3g} % (95 %), VIF {vif[i]:.3g}, most collinear with "
                    f"{ls.names[partner[i]]}, cond({block}) {ls.condition:.3g}: "
                    f"{_remedy(name, ls.names[partner[i]], locked)}"
                )
    return lines


def _interval(name: str, estimate: float, standard_error: float, summary: BootstrapSummary | None):
    """(value, 95 % half-width) of a least-squares parameter (1/b as b), from the bootstrap if any."""
    key = "b" if name == "1/b" else name
    if summary is not None and key in summary.names:
        i = summary.names.index(key)
        return summary.reported[i], Z95 * summary.sd[i]
    if name == "1/b":
        return 1.0 / estimate, Z95 * standard_error / estimate**2
    return estimate, Z95 * standard_error

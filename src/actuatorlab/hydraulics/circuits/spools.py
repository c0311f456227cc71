"""Proportional 4/3 directional spool valve: closed, open or float centre, per-edge overlap.

Ports P (pump), T (tank), A, B; input ``position`` x ∈ [−1, 1], the spool stroke as a fraction
of full stroke (x > 0 connects P→A and B→T). Each metering edge is a sharp-edged orifice of full
area a whose opening is clamp((±x − e)/(1 − e), 0, 1), e its overlap (fraction of stroke;
e < 0: underlap, open by −e/(1 − e) at x = 0): P→A and B→T with +x, P→B and A→T with −x.
Centre: ``closed`` (P, T, A, B blocked in neutral); ``open`` (a bypass P→T of area
``neutral_area`` open at x = 0 and closed at |x| ≥ ``neutral_width``: the open-centre
neutral flow); ``float`` (A→T and B→T passages of the same shape: the load floats). The spool
position is an input; its first-order dynamics τ ẋ = u − x is ``spool_positions`` below.
Source: Merritt, *Hydraulic Control Systems*, §3.4–3.6; Manring & Fales, ch. 5.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError
from ...validation import finite, non_negative, quantity
from .branch import Branch, Opening
from .component import SharpEdged

CENTRES = ("closed", "open", "float")
EDGES = (
    ("P", "A", 1.0, "overlap_pa"),
    ("B", "T", 1.0, "overlap_bt"),
    ("P", "B", -1.0, "overlap_pb"),
    ("A", "T", -1.0, "overlap_at"),
)
"""(from, to, direction of x that opens it, overlap field) of each metering edge."""


STROKE_FRACTION = "(fraction of the stroke)"
"""Unit of an edge overlap and of the neutral width: a fraction of the spool's stroke."""


def overlap(name: str, value: float, unit: str) -> float:
    """The check of an edge overlap: a finite fraction of the stroke in (-1, 1)."""
    value = finite(name, value, unit)
    if not -1.0 < value < 1.0:
        raise ParameterError(f"{name} = {value!r}: an edge overlap is a fraction of the stroke in (-1, 1)")
    return value


@dataclass(frozen=True)
class SpoolValve(SharpEdged):
    """4/3 proportional spool valve (see the module docstring for the law).

    area a [m²] of each fully open metering edge; discharge_coefficient C_d [-]; oil_density ρ
    [kg/m³]; transition ε [Pa]; overlap_pa, overlap_bt, overlap_pb, overlap_at [-] in (−1, 1);
    centre ``closed`` | ``open`` | ``float``; neutral_area [m²] and neutral_width [-] in (0, 1]
    of the neutral passages; leakage g [m³/(s Pa)] across each metering edge; time_constant τ
    [s] of the spool (0: the position follows the command).
    """

    overlap_pa: float = quantity(0.0, STROKE_FRACTION, overlap)
    overlap_bt: float = quantity(0.0, STROKE_FRACTION, overlap)
    overlap_pb: float = quantity(0.0, STROKE_FRACTION, overlap)
    overlap_at: float = quantity(0.0, STROKE_FRACTION, overlap)
    centre: str = "closed"
    neutral_area: float = quantity(1e-4, "m^2")
    neutral_width: float = quantity(0.3, STROKE_FRACTION)
    leakage: float = quantity(0.0, "m^3/(s Pa)", non_negative)
    time_constant: float = quantity(0.0, "s", non_negative)
    PORTS = ("P", "T", "A", "B")
    INPUTS = ("position",)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.neutral_width > 1.0:
            raise ParameterError(f"neutral_width = {self.neutral_width!r}: a fraction of the stroke in (0, 1]")
        if self.centre not in CENTRES:
            raise ParameterError(f"centre = {self.centre!r}: choose one of {', '.join(CENTRES)}")

    @property
    def LIMITS(self) -> tuple[str, ...]:  # noqa: N802 (the class attribute's name)
        """``P`` of an open centre (its neutral passage lets the pump's flow out), else none."""
        return ("P",) if self.centre == "open" else ()

    def branches(self, nodes, inputs):
        x = inputs["position"]

        def passage(a: str, b: str, area: float, opening: Opening, overlap: float, **law) -> Branch:
            return Branch(
                nodes[a],
                nodes[b],
                self.gain(area),
                transition=self.transition,
                opening=opening,
                opening_input=x,
                overlap=overlap,
                **law,
            )

        neutral = {"closed": (), "open": (("P", "T"),), "float": (("A", "T"), ("B", "T"))}[self.centre]
        return [
            passage(a, b, self.area, Opening.EDGE, getattr(self, name), sign=sign, leakage=self.leakage)
            for a, b, sign, name in EDGES
        ] + [passage(a, b, self.neutral_area, Opening.NEUTRAL, self.neutral_width) for a, b in neutral]


def spool_positions(command: np.ndarray, step: float, time_constant: float) -> np.ndarray:
    """Spool positions on a grid of constant ``step`` [s] following the samples of ``command``
    by τ ẋ = u − x from x₀ = u₀, the command held over each step (exact for a piecewise-constant
    command): x_k = u_k + (x_{k−1} − u_k) e^{−h/τ}. τ = 0: the command itself."""
    from scipy.signal import lfilter  # scipy.signal takes a while to import: only when a spool lags

    command = np.asarray(command, dtype=np.float64)
    if time_constant <= 0.0 or command.size == 0:
        return command.copy()
    decay = math.exp(-step / time_constant)
    positions, _ = lfilter([1.0 - decay], [1.0, -decay], command, zi=[decay * command[0]])
    return positions

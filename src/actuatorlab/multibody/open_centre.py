"""The open-centre bleed law of a machine's valve block, apart from the compiled loop so that a
scenario's ``[[circuits]]`` table takes its defaults without loading MuJoCo or numba."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ParameterError
from ..validation import positive


@dataclass(frozen=True)
class OpenCentreBleed:
    """The bleed of an open-centre valve block: u_b = clip(1 − Σ|u_c|/``span``, ``minimum``, 1)
    over the cylinders of one pump, from the commands of the step (closed loops included):
    open when every valve is centred, closing as the valves open. ``span`` > 0 [-],
    ``minimum`` ∈ [0, 1] [-]."""

    span: float = 1.0
    minimum: float = 0.0

    def __post_init__(self) -> None:
        positive("bleed.span", self.span, "")
        if not 0.0 <= float(self.minimum) <= 1.0:
            raise ParameterError(f"bleed.minimum = {self.minimum!r}: a valve opening must lie in [0, 1]")

"""A scenario kind for tests only: the Ishigami function, a sensitivity benchmark with known indices.

y = sin x1 + a sin² x2 + b x3⁴ sin x1 (Ishigami & Homma 1990), x_i uniform on [−π, π]. With
V = a²/8 + bπ⁴/5 + b²π⁸/18 + 1/2 the variance of y, the first-order and total indices are
S1 = V1/V, S2 = V2/V, S3 = 0, ST1 = (V1 + V13)/V, ST2 = S2, ST3 = V13/V, where
V1 = (1 + bπ⁴/5)²/2, V2 = a²/8 and V13 = b²π⁸(1/18 − 1/50) (Saltelli et al. 2008, Sec. 4.9;
Sobol' & Levitan 1999). ``register`` makes it a kind the sweep engine can run.
"""

import math
import sys
from typing import Literal

import pandas as pd
from pydantic import StrictStr

from actuatorlab.scenarios.kinds import KINDS, Kind
from actuatorlab.scenarios.output import ScenarioOutput, SummaryFigure
from actuatorlab.scenarios.spec_base import Spec


class IshigamiScenario(Spec):
    """The point (x1, x2, x3) and the constants a, b of the Ishigami function."""

    kind: Literal["ishigami"] = "ishigami"
    name: StrictStr = "ishigami"
    description: StrictStr = "the Ishigami function"
    x1: float = 0.0
    x2: float = 0.0
    x3: float = 0.0
    a: float = 7.0
    b: float = 0.1

    def check(self) -> None:
        """Nothing to build."""


def run(scenario: IshigamiScenario, progress=None) -> ScenarioOutput:
    """y at the scenario's point, as the one key figure ``y``."""
    y = (
        math.sin(scenario.x1)
        + scenario.a * math.sin(scenario.x2) ** 2
        + scenario.b * scenario.x3**4 * math.sin(scenario.x1)
    )
    return ScenarioOutput(
        table=pd.DataFrame({"t": [0.0], "y": [y]}),
        units={"t": "s", "y": "1"},
        labels={},
        summary=[SummaryFigure("y", y, "1", "Ishigami function")],
    )


def analytic_indices(a: float, b: float) -> tuple[list[float], list[float]]:
    """(S1, ST) of x1, x2, x3 from the closed forms above."""
    v1 = 0.5 * (1.0 + b * math.pi**4 / 5.0) ** 2
    v2 = a * a / 8.0
    v13 = b * b * math.pi**8 * (1.0 / 18.0 - 1.0 / 50.0)
    v = v1 + v2 + v13
    return [v1 / v, v2 / v, 0.0], [(v1 + v13) / v, v2 / v, v13 / v]


def register(monkeypatch) -> None:
    """Make ``ishigami`` a scenario kind (forked local workers inherit it)."""
    monkeypatch.setitem(sys.modules, "actuatorlab.scenarios.ishigami_kind", sys.modules[__name__])
    monkeypatch.setitem(sys.modules, "actuatorlab.scenarios.kinds.ishigami_kind", sys.modules[__name__])
    monkeypatch.setitem(KINDS, "ishigami", Kind("ishigami_kind:IshigamiScenario", "ishigami_kind"))

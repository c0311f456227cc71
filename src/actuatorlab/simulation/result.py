"""The result of a time simulation: named channels on a time grid, with units and counters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


GAUGE_PRESSURE = "Pa (gauge)"
"""Unit of a circuit pressure measured from tank (atmospheric) pressure: a chamber may dip below
0 (down to −101.3 kPa, vacuum) without being non-physical."""


@dataclass
class Channel:
    """One recorded signal: ``values`` (a :class:`numpy.ndarray` of shape ``(n_samples,)``) in
    ``unit``; ``label`` for plots."""

    values: np.ndarray
    unit: str
    label: str


@dataclass
class SimulationResult:
    """Samples ``t`` [s] (a :class:`numpy.ndarray`) and named channels of a completed run (a failed
    run raises instead).

    ``counters`` hold run statistics (steps, wall times of compilation and of the time loop);
    ``initial`` values of the state before the first sample where a run has them (SI units, named
    as channels: a machine's chamber pressures, whose first step an energy ledger needs).
    """

    t: np.ndarray
    channels: dict[str, Channel]
    counters: dict[str, float] = field(default_factory=dict)
    initial: dict[str, float] = field(default_factory=dict)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.channels[name].values

    def units(self) -> dict[str, str]:
        """Column name → unit, including ``t`` in seconds."""
        return {"t": "s", **{k: c.unit for k, c in self.channels.items()}}

    def columns(self) -> dict[str, np.ndarray]:
        """Column ``t`` then one column per channel (SI units): the table without pandas."""
        return {"t": self.t, **{k: c.values for k, c in self.channels.items()}}

    def to_dataframe(self) -> pd.DataFrame:
        """One row per sample: column ``t`` then one column per channel (SI units)."""
        import pandas as pd  # only where a table is built: a simulation does not load pandas

        return pd.DataFrame(self.columns())

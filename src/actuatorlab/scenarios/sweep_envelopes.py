"""Quantile envelopes of a sweep's main signals, computed batch by batch without keeping the series.

Each batch reduces the samples of its variants (one row per variant, at the envelope times) to a
sketch: their exact quantiles at the ranks ``RANKS`` (0, 1, …, 100 %), per signal and time. The
sweep's envelope at a level q is the q-quantile of the mixture of the batches' distributions,
each the piecewise-linear interpolation of its sketch, weighted by its number of variants
(``mixture_quantiles``). With one batch it is the batch's exact quantile (``numpy.quantile``,
linear); with several, its rank in the pooled sample is within half a sketch step (0.5 %) plus
one variant of the smallest batch (1/(n_b − 1), the step of a batch's own interpolation) of q.
"""

from __future__ import annotations

import numpy as np

RANKS = np.linspace(0.0, 1.0, 101)
"""Ranks of a batch's sketch (fractions of its variants at or below each sketch value)."""
LEVELS = {"q05": 5, "q50": 50, "q95": 95}
"""Envelope column suffix → index in RANKS (5, 50 and 95 %)."""


def sketch(samples: np.ndarray) -> np.ndarray:
    """The quantiles at RANKS of ``samples`` (variants, …) over the variants: (len(RANKS), …)."""
    return np.quantile(samples, RANKS, axis=0)


def mixture_quantiles(sketches: np.ndarray, counts: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Quantiles at ``levels`` (L,) of the batches' mixture: ``sketches`` (batches, len(RANKS),
    cells) of batches of ``counts`` variants; returns (L, cells).

    The mixture CDF F = Σ_b w_b F_b is piecewise linear between the sketch values of all
    batches: it is evaluated there, and each quantile interpolated in the segment where F
    reaches its level (a sketch value where F equals the level exactly).
    """
    weights = np.asarray(counts, dtype=np.float64) / float(np.sum(counts))
    out = np.empty((len(levels), sketches.shape[2]))
    for c in range(sketches.shape[2]):
        x = np.sort(sketches[:, :, c].reshape(-1))
        cdf = np.zeros_like(x)
        for b, weight in enumerate(weights):
            cdf += weight * np.interp(x, sketches[b, :, c], RANKS, left=0.0, right=1.0)
        i = np.minimum(np.searchsorted(cdf, levels), x.size - 1)
        below = np.maximum(i - 1, 0)
        rise = cdf[i] - cdf[below]
        step = np.divide(levels - cdf[below], rise, out=np.ones_like(rise), where=rise > 0)
        out[:, c] = np.where(cdf[i] == levels, x[i], x[below] + step * (x[i] - x[below]))
    return out

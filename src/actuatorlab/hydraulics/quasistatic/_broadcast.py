"""Broadcast openings and per-point arguments into the flat arrays the compiled loops take."""

from __future__ import annotations

import numpy as np

from .circuit import Openings, ValveCircuit, normalised_openings


def flatten(circuit: ValveCircuit, openings: Openings, *args):
    """Return (cp, û of shape (n, 5), each arg as a float64 array of shape (n,), common shape)."""
    uh = normalised_openings(circuit, openings)
    arrays = [np.asarray(a, dtype=np.float64) for a in args]
    shape = np.broadcast_shapes(uh.shape[:-1], *(a.shape for a in arrays))
    n = int(np.prod(shape, dtype=np.int64))
    uh_flat = np.broadcast_to(uh, shape + (5,)).reshape(n, 5)
    flat = [np.broadcast_to(a, shape).reshape(n) for a in arrays]
    return circuit.kernel_array(), uh_flat, flat, shape

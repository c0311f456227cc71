"""Bode plot and step response of fitted transfer functions with their 95 % bands
(:mod:`actuatorlab.identification.bands`)."""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

from .plots import STYLE, _figure


@mpl.rc_context(STYLE)
def bode_figure(bands: dict) -> Figure:
    """Magnitude (top) and phase (bottom) against frequency [Hz] of each input's fitted model
    (``bands``: input name → ResponseBands), the band its 95 % interval."""
    fig = _figure((6.4, 4.6))
    magnitude, phase = fig.subplots(2, 1, sharex=True)
    for k, (name, band) in enumerate(bands.items()):
        hz = band.omega / (2.0 * np.pi)
        magnitude.fill_between(hz, band.magnitude[1], band.magnitude[2], color=f"C{k}", alpha=0.25, linewidth=0)
        magnitude.loglog(hz, band.magnitude[0], color=f"C{k}", label=f"{name} (95 % band shaded)")
        phase.fill_between(hz, band.phase[1], band.phase[2], color=f"C{k}", alpha=0.25, linewidth=0)
        phase.semilogx(hz, band.phase[0], color=f"C{k}")
    magnitude.set_ylabel("|G| [output/input]")
    phase.set_ylabel("phase [deg]")
    phase.set_xlabel("frequency [Hz]")
    for ax in (magnitude, phase):
        ax.grid(True, which="both")
    magnitude.legend(loc="best")
    return fig


@mpl.rc_context(STYLE)
def step_figure(bands: dict) -> Figure:
    """Unit-step response of each input's fitted model from rest, the band its 95 % interval."""
    fig = _figure((6.4, 3.2))
    ax = fig.subplots()
    for k, (name, band) in enumerate(bands.items()):
        ax.fill_between(band.t, band.step[1], band.step[2], color=f"C{k}", alpha=0.25, linewidth=0)
        ax.plot(band.t, band.step[0], color=f"C{k}", label=f"{name} (95 % band shaded)")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("response to a unit step")
    ax.grid(True)
    ax.legend(loc="best")
    return fig

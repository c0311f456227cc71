"""Status codes of every compiled time loop and root search.

Steps report, drivers raise: inside a compiled loop nothing raises; a step returns one of these
codes and the Python driver turns a failure into one ``SimulationError`` naming the time, the
state and the remedy. Compiled code compares against the plain ``int`` constants below (numba
folds them); drivers read the member's ``description`` for their message.

Every loop uses this one numbering, so a code means the same thing wherever it is printed.
The kernels a step calls report finer outcomes of their own, which the loop maps to these:
``numerics.roots`` (``ROOT_OK``, ``ROOT_NO_BRACKET``, ``ROOT_MAX_ITER``) and Λ_reg's alternation
in ``hydraulics.quasistatic.regeneration`` (``REG_*``), whose public functions also raise on them.
"""

from __future__ import annotations

from enum import IntEnum


class LoopStatus(IntEnum):
    """Outcome of a compiled step or loop; ``description`` is the generic cause in words."""

    OK = 0
    NOT_FINITE = 1
    STRETCH = 2
    CHATTER = 3
    ROOT = 4
    CLOSED_BLEED = 5
    STROKE = 6
    NEWTON = 7
    DIVERGED = 8
    PRESSURE = 9
    LEFT_WORKSPACE = 10

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    LoopStatus.OK: "no failure",
    LoopStatus.NOT_FINITE: "a non-finite state",
    LoopStatus.STRETCH: "a relaxed stretch |p − ℓ| beyond its limit",
    LoopStatus.CHATTER: "a force chattering from step to step",
    LoopStatus.ROOT: "a root search that did not converge",
    LoopStatus.CLOSED_BLEED: "regeneration while extending with the bleed closed (outside the model)",
    LoopStatus.STROKE: "a cylinder length outside its stroke",
    LoopStatus.NEWTON: "an implicit (Newton) step that did not converge",
    LoopStatus.DIVERGED: "a state that diverged",
    LoopStatus.PRESSURE: "a chamber pressure outside [0, supply pressure]",
    LoopStatus.LEFT_WORKSPACE: "a reference that left the workspace",
}

STATUS_OK = int(LoopStatus.OK)
STATUS_NOT_FINITE = int(LoopStatus.NOT_FINITE)
STATUS_STRETCH = int(LoopStatus.STRETCH)
STATUS_CHATTER = int(LoopStatus.CHATTER)
STATUS_ROOT = int(LoopStatus.ROOT)
STATUS_CLOSED_BLEED = int(LoopStatus.CLOSED_BLEED)
STATUS_STROKE = int(LoopStatus.STROKE)
STATUS_NEWTON = int(LoopStatus.NEWTON)
STATUS_DIVERGED = int(LoopStatus.DIVERGED)
STATUS_PRESSURE = int(LoopStatus.PRESSURE)
STATUS_LEFT_WORKSPACE = int(LoopStatus.LEFT_WORKSPACE)

MAX_STRETCH = 0.5
"""|p − ℓ| [m] of a relaxed quasistatic element beyond which it is taken to have diverged
(``STATUS_STRETCH``; the arm loops and the machine kernels)."""
CHATTER_STEPS = 20
CHATTER_FRACTION = 0.01
"""The test behind ``STATUS_CHATTER`` (the arm loops of ``simulation`` and the machine kernels of
``multibody``): a force whose step-to-step change alternates in sign for CHATTER_STEPS steps in a
row, each change larger than CHATTER_FRACTION·(F_hM + F_rM), is a numerical oscillation: past the
stability bound the relief valves keep it finite, so it never shows up as a non-finite state."""

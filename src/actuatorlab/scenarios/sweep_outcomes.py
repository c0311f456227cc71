"""Why a sweep's variants did not finish: their scenario, or something outside it.

A variant that raises because of its scenario (a ``SimulationError``, a validation error, any
other error of the model) is finished: it is recorded as ``failed`` with its error, and
``--resume`` keeps it. A variant stopped by something outside the scenario is not finished:
the disk full or a file-size limit reached (``OSError``), memory exhausted (``MemoryError``),
its worker process lost. Nothing marks it complete (a variant's record says ``interrupted``
where it can be written), ``--resume`` runs it again, and the sweep ends with an error that
counts such variants per reason (:func:`incomplete_message`).

Each task of a sweep returns a :class:`Tally` of its variants: those it finished and, per
outside reason, those it could not.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field

OUTSIDE = (OSError, MemoryError)
"""Errors that come from the machine, not the scenario: the variant is run again by ``--resume``."""
INTERRUPTED = "interrupted"
"""Status of a variant's record when something outside the scenario stopped it."""
LOST_WORKER = "a lost worker process"
HINTS = {
    errno.ENOSPC: "the disk is full: free space",
    errno.EDQUOT: "the disk quota is used up: free space",
    errno.EFBIG: "a file-size limit is reached (ulimit -f): raise it or free space",
    errno.ENOMEM: "out of memory: use fewer --workers",
}


@dataclass
class Tally:
    """Variants of a task (or a sweep): ``finished`` (ok or failed by their scenario) and
    ``outside``, reason → variants that something outside the scenario stopped."""

    finished: int = 0
    outside: dict[str, int] = field(default_factory=dict)

    @property
    def done(self) -> int:
        """Variants this tally accounts for, finished or not."""
        return self.finished + sum(self.outside.values())

    def add(self, other: Tally) -> None:
        """Add ``other``'s counts to this tally."""
        self.finished += other.finished
        for why, count in other.outside.items():
            self.stopped(why, count)

    def stopped(self, why: str, count: int) -> None:
        """Count ``count`` variants stopped by the outside reason ``why``."""
        if count > 0:
            self.outside[why] = self.outside.get(why, 0) + count


def reason(error: BaseException) -> str:
    """One line naming an outside error without the file it hit, so that the variants it stopped
    count together: ``OSError: [Errno 28] No space left on device``."""
    if isinstance(error, OSError) and error.errno:
        return f"{type(error).__name__}: [Errno {error.errno}] {os.strerror(error.errno)}"
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def explained(why: str) -> str:
    """The outside reason ``why`` (see :func:`reason`) with what to do about it, where that is known."""
    if why.startswith(("MemoryError", LOST_WORKER)):
        return f"{why} (out of memory? use fewer --workers)"
    return next((f"{why} ({text})" for number, text in HINTS.items() if f"[Errno {number}]" in why), why)


def incomplete_message(tally: Tally, total: int, out_dir: os.PathLike | str) -> str:
    """The one line a sweep ends with when something outside its scenario stopped variants."""
    reasons = ", ".join(
        f"{count} by {explained(why)}" for why, count in sorted(tally.outside.items(), key=lambda item: -item[1])
    )
    stopped = sum(tally.outside.values())
    return (
        f"{stopped} of {total} variants did not finish for reasons outside the scenario: {reasons}; the finished "
        f"variants are kept in {out_dir}/: run the same command with --resume to run the {stopped} again"
    )

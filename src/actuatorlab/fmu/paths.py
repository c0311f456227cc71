"""Why an FMU cannot be written where asked, in words: the part of ``--out``'s folder that is
not a folder, and the reason and remedy of a failed write (a full disk, the file size limit, a
file system that takes no files)."""

from __future__ import annotations

import errno
import stat
from pathlib import Path

KINDS = (
    (stat.S_ISREG, "a file"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
)
FREE = "free space there or {elsewhere}"
REASONS = {
    errno.ENOSPC: ("the disk is full", FREE),
    errno.EDQUOT: ("the disk quota is used up", FREE),
    errno.EFBIG: ("the file size limit is reached", "raise it (ulimit -f)"),
    errno.EROFS: ("the file system is read-only", "{elsewhere}"),
    errno.EACCES: ("permission denied", "{elsewhere}"),
    errno.EPERM: ("permission denied", "{elsewhere}"),
    errno.ENOENT: ("it takes no new files", "{elsewhere}"),
    errno.ENAMETOOLONG: ("the file name is too long", "choose a shorter name"),
}
"""errno → (reason, remedy) of a write that failed in a folder that exists; ``{elsewhere}`` is
how to write somewhere else."""


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot hold a new file and what to do: the first part of its path that is
    missing or is not a folder (``/dev/null`` is a character device); None if it is a folder."""
    for part in (*reversed(folder.parents), folder):
        try:
            mode = part.stat().st_mode
        except FileNotFoundError:
            return f"the folder {part} does not exist; create it or choose another path"
        except OSError as exc:
            return f"{part} cannot be looked into ({exc.strerror or exc}); choose another path"
        if not stat.S_ISDIR(mode):
            kind = next((name for test, name in KINDS if test(mode)), "not a folder")
            return f"{part} is {kind}, not a folder; choose a path in a folder"
    return None


def write_failure(exc: OSError, elsewhere: str) -> tuple[str, str]:
    """(reason, remedy) of the failed write ``exc``, e.g. ("the disk is full", "free space there
    or " + ``elsewhere``); ``elsewhere`` says how to write somewhere else ("set TMPDIR to …")."""
    reason, remedy = REASONS.get(exc.errno, (exc.strerror or str(exc), "{elsewhere}"))
    return reason, remedy.format(elsewhere=elsewhere)

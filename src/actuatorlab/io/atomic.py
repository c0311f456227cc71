"""Atomic file writes: write a temporary file next to the target, fsync it, rename it.

A reader sees either the old file or the complete new one, never half a file: the data go to
a temporary file in the target's directory, are flushed to disk with ``fsync``, and the
temporary file is renamed onto the target with :func:`os.replace` (atomic on POSIX and
Windows when both paths are on one file system). If the writer raises, the temporary file
is removed and the target is left as it was.

``durable=False`` skips the two ``fsync`` calls: the write stays atomic for every reader and
against a killed process (the page cache outlives it), but an operating-system crash or power
loss may lose it or leave it empty. Use it only where a reader checks what it finds (the
variants of a sweep, whose resume validates each file): concurrent ``fsync`` calls from
parallel workers queue on the file system's journal.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

# New files get the permissions ``open()`` would give them (0o666 minus the umask), not the
# 0o600 of ``mkstemp``. The umask can only be read by setting it, so read it once, at import.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], durable: bool = True) -> Iterator[Path]:
    """Yield a temporary path in ``path``'s directory; rename it onto ``path`` on success.

    For writers that open the file themselves (``Figure.savefig``, ``pyarrow.parquet``). The
    temporary name keeps the target's suffix, so writers that choose a format by extension
    work. On a normal exit the file is fsynced and renamed onto ``path``; on an exception it
    is removed and the exception propagates, leaving any existing ``path`` untouched.

    Parameters
    ----------
    path
        Target file. Its directory must exist.
    durable
        fsync the file before the rename and the directory after it (see the module docstring).

    Yields
    ------
    pathlib.Path
        An existing, empty temporary file that the writer may overwrite.

    Examples
    --------
    >>> with atomic_path(out_dir / "plot.png") as tmp:  # doctest: +SKIP
    ...     fig.savefig(tmp, format="png")
    """
    target = Path(path)
    fd, name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.stem}-", suffix=f".tmp{target.suffix}"
    )
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if durable:
            _fsync_file(tmp)
        mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_UMASK
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        _fsync_directory(target.parent)


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a new temporary directory beside ``path``; put it in place of ``path`` on success.

    A run's files are written into the temporary directory; on a normal exit it replaces
    ``path`` (an older directory there is moved aside first and removed after the swap, so no
    stale file of an earlier run stays mixed in); on any exception, Ctrl-C included, the
    temporary directory is removed and ``path`` is left as it was (absent, or the old result).

    Raises
    ------
    OSError
        If ``path``'s parent cannot be created or written, before anything is yielded.

    Examples
    --------
    >>> with atomic_directory(tmp / "run") as work:  # doctest: +SKIP
    ...     (work / "summary.json").write_text("{}")
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-", suffix=".tmp"))
    try:
        yield work
        os.chmod(work, 0o777 & ~_UMASK)
        _fsync_directory(work)
        if target.exists():
            old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-", suffix=".old"))
            os.replace(target, old / target.name)
            os.replace(work, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    _fsync_directory(target.parent)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`)."""
    with atomic_path(path, durable) as tmp:
        tmp.write_bytes(data)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8", durable: bool = True) -> None:
    """Write ``text`` to ``path`` atomically, encoded with ``encoding``, newlines unchanged."""
    atomic_write_bytes(path, text.encode(encoding), durable)


def _fsync_file(path: Path) -> None:
    """Flush ``path``'s data to the storage device."""
    fd = os.open(path, os.O_RDWR)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX only; Windows cannot open directories)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

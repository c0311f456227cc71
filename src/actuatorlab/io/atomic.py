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
import errno
import os
import re
import shutil
import tempfile
from collections.abc import Collection, Iterator
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
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=f".tmp{target.suffix}")
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
def atomic_directory(
    path: str | os.PathLike[str], merge: bool = False, earlier: Collection[str] = ()
) -> Iterator[Path]:
    """Yield a new temporary directory; put its files in ``path`` on success.

    By default the temporary directory is made beside ``path`` and replaces it whole (an older
    directory there is moved aside first and removed after the swap, so no stale file of an
    earlier result stays mixed in). With ``merge`` (and always for a ``path`` that holds the
    working folder, such as ``"."``), it is made inside ``path`` and its files are moved in one
    by one, each rename atomic, hidden top-level files (markers) last; the files of ``earlier``
    (paths relative to ``path``, which an earlier result of the same writer left) that were not
    written again are removed, and every other entry of ``path`` stays. On any exception before
    the files move, Ctrl-C included, the temporary directory is removed and ``path`` is left as
    it was (absent, or the old result).

    The temporary directories carry this process's id (``.NAME-PID-XXXXXXXX.tmp``, ``.old``):
    those of writers that were killed, whose process is gone, are removed by the next write
    into the same folder (:func:`remove_leftovers`).

    Raises
    ------
    OSError
        If ``path``'s parent cannot be created or written, before anything is yielded; if a
        merge finds a folder where a file goes (or a file where a folder goes), before any
        file moves; if ``path`` cannot be moved aside (it is then left as it was).

    Examples
    --------
    >>> with atomic_directory(tmp / "run") as work:  # doctest: +SKIP
    ...     (work / "summary.json").write_text("{}")
    """
    target = Path(os.path.abspath(path))  # "." and "x/.." by their own names
    merge = merge or target.exists() and _holds_working_folder(target)  # not moved aside from under this process
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(target.parent)
    if merge:
        target.mkdir(exist_ok=True)
        remove_leftovers(target)
    work = _temporary_directory(target if merge else target.parent, target.name, ".tmp")
    try:
        yield work
        _fsync_directory(work)
        if merge:
            _merge(work, target, earlier)
            _fsync_directory(target)
        else:
            os.chmod(work, 0o777 & ~_UMASK)
            _swap(work, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _fsync_directory(target.parent)


def _holds_working_folder(folder: Path) -> bool:
    try:
        return Path.cwd().resolve().is_relative_to(folder.resolve())
    except OSError:
        return False


_LEFTOVER = re.compile(r"\..*-(\d+)-[a-z0-9_]{8}\.(?:tmp|old)")
"""Name of a temporary directory of :func:`atomic_directory`; group 1 is its writer's process id."""


def is_leftover(name: str) -> bool:
    """Whether ``name`` is that of a temporary directory of :func:`atomic_directory`."""
    return _LEFTOVER.fullmatch(name) is not None


def remove_leftovers(folder: Path) -> None:
    """Remove the temporary directories of :func:`atomic_directory` in ``folder`` whose writer
    process is gone (killed during its write); those of live processes stay."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        match = _LEFTOVER.fullmatch(entry.name)
        if match and entry.is_dir(follow_symlinks=False) and not _alive(int(match[1])):
            shutil.rmtree(entry.path, ignore_errors=True)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (anywhere but POSIX: assumed, so nothing is removed)."""
    if os.name != "posix" or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def _temporary_directory(folder: Path, name: str, suffix: str) -> Path:
    return Path(tempfile.mkdtemp(dir=folder, prefix=f".{name}-{os.getpid()}-", suffix=suffix))


def _swap(work: Path, target: Path) -> None:
    """Put ``work`` in place of ``target``; on a failure ``target`` is left (or put back) as it was."""
    if not target.exists():
        os.replace(work, target)
        return
    old = _temporary_directory(target.parent, target.name, ".old")
    try:
        os.replace(target, old / target.name)
    except BaseException:
        old.rmdir()
        raise
    try:
        os.replace(work, target)
    except BaseException:
        os.replace(old / target.name, target)
        old.rmdir()
        raise
    shutil.rmtree(old, ignore_errors=True)


def _merge(work: Path, target: Path, earlier: Collection[str]) -> None:
    """Move the files of ``work`` into ``target`` (hidden top-level ones last), then remove the
    files of ``earlier`` that were not written again."""
    files = sorted(
        (p.relative_to(work) for p in work.rglob("*") if not p.is_dir()),
        key=lambda rel: (len(rel.parts) == 1 and rel.name.startswith("."), rel.parts),
    )
    for rel in files:
        for ancestor in [*reversed(rel.parents[:-1]), rel]:
            there = target / ancestor
            if there.exists() and there.is_dir() != (ancestor != rel):
                raise FileExistsError(errno.EEXIST, "an entry of another kind is in the way", os.fspath(there))
    for rel in files:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        os.replace(work / rel, target / rel)
    written = {rel.as_posix() for rel in files}
    for name in sorted(set(earlier) - written):
        stale = target / name
        if stale.is_file() or stale.is_symlink():
            stale.unlink()
            for folder in stale.relative_to(target).parents[:-1]:
                with contextlib.suppress(OSError):  # not empty: it holds other files
                    (target / folder).rmdir()


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

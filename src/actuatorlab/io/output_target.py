"""Where a command may write: its own earlier output, a new or empty path, or, when the user says
so (``overwrite``), a folder or file of theirs; never over the user's files unasked.

A run's folder is recognised by its own files: a manifest (:data:`RUN_MANIFEST`, written last)
listing the files the run wrote. A folder holding only that run's files (or nothing) is the
run's to replace whole; one holding anything else is refused, naming what it holds, unless
``overwrite``: then the new run's files are written beside the other entries, replacing only
same-named files and the earlier run's own. Sweeps recognise their folders by their state file
and the FMU export its archives by their ``modelDescription.xml`` (in their own modules).

:class:`OutputTaken` words its remedy for Python (``overwrite=True``); the command line prints
:meth:`OutputTaken.for_command_line` (``--overwrite``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection
from pathlib import Path, PurePosixPath

from ..errors import ScenarioError
from .atomic import atomic_directory, atomic_write_text, is_leftover

RUN_MANIFEST = ".actuatorlab-run.json"
"""In a run's folder: ``{"files": [...], ...}``, the files the run wrote (relative, ``/``-separated),
and what ``actuatorlab.open`` reads back beside them (:func:`write_run_folder`)."""
SHOWN = 4
"""Entries a refusal names before "and N more"."""


class OutputTaken(ScenarioError):
    """An output path holds what the command did not write; ``overwrite`` would write anyway."""

    def __init__(self, target: Path, problem: str, then: str):
        self.target, self.problem, self.then = target, problem, then
        super().__init__(f"{target}: {problem}; choose another path, or pass overwrite=True ({then})")

    def for_command_line(self) -> str:
        """The message with the command's options (``--out``, ``--overwrite``)."""
        return f"--out {self.target}: {self.problem}; choose another --out, or add --overwrite ({self.then})"


def run_files(folder: Path) -> list[str] | None:
    """The files the run whose manifest is in ``folder`` wrote (none if it is damaged; names that
    would leave the folder are dropped), those of a run written before manifests (recognised by
    its files), or None for a folder that holds no run."""
    try:
        text = (folder / RUN_MANIFEST).read_text(encoding="utf-8")
    except OSError:
        return _unlisted_run_files(folder)
    try:
        files = json.loads(text)["files"]
    except (ValueError, KeyError, TypeError):
        return []
    return [f for f in files if isinstance(f, str) and _inside(f)] if isinstance(files, list) else []


UNLISTED_RUN_FILES = ("report.html", "scenario.toml", "summary.json")
"""What every run folder holds; a folder written before runs listed their files is recognised by them."""


def _unlisted_run_files(folder: Path) -> list[str] | None:
    """The files of a run written before runs kept a manifest: the folder holds the report, the
    scenario and the summary, and its other files are the results tables and the figures the
    report names (``NAME.png``); None for any other folder."""
    try:
        report = (folder / "report.html").read_text(encoding="utf-8", errors="replace")
        names = {e.name for e in os.scandir(folder) if e.is_file()}
    except OSError:
        return None
    if not set(UNLISTED_RUN_FILES) <= names:
        return None
    return sorted(
        n
        for n in names
        if n in UNLISTED_RUN_FILES or n in ("results.parquet", "results.csv") or n.endswith(".png") and n in report
    )


def _inside(name: str) -> bool:
    path = PurePosixPath(name)
    return bool(name) and "\\" not in name and not path.is_absolute() and not {"..", "."} & set(path.parts)


def foreign_entries(folder: Path, own: Collection[str]) -> list[str]:
    """The entries of ``folder`` not among ``own`` (relative paths; their first parts count) nor
    temporary folders of a write; folders end in ``/``; none for a missing folder."""
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    tops = {PurePosixPath(name).parts[0] for name in own}
    return sorted(
        e.name + ("/" if e.is_dir() else "") for e in entries if e.name not in tops and not is_leftover(e.name)
    )


def refuse_foreign(folder: Path, own: Collection[str], overwrite: bool, what: str, then: str) -> None:
    """Raise :class:`OutputTaken` naming the foreign entries of ``folder`` (see
    :func:`foreign_entries`), if any, unless ``overwrite``. ``what`` names the writer ("an
    actuatorlab run"), ``then`` what ``overwrite`` does."""
    foreign = foreign_entries(folder, own)
    if foreign and not overwrite:
        more = f" and {len(foreign) - SHOWN} more" if len(foreign) > SHOWN else ""
        raise OutputTaken(folder, f"holds {', '.join(foreign[:SHOWN])}{more}, which {what} did not write", then)


def check_run_folder(folder: str | os.PathLike[str], overwrite: bool = False) -> Path:
    """``folder`` as a Path if a run may write there: raises ScenarioError for a file, and
    :class:`OutputTaken` for a folder holding entries that are not an earlier run's, unless ``overwrite``."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ScenarioError(f"{folder} is a file, not a folder; choose a folder for the results")
    refuse_foreign(
        folder,
        [*(run_files(folder) or []), RUN_MANIFEST],
        overwrite,
        "an actuatorlab run",
        "the run's files are written beside them, replacing only files of the same name",
    )
    return folder


def write_run_folder(
    folder: Path, write: Callable[[Path], list[str]], overwrite: bool = False, about: dict | None = None
) -> list[str]:
    """Call ``write(work)`` to write a run's files into a new folder and put them in ``folder``
    (checked by :func:`check_run_folder`): replacing an earlier run there whole, or, beside
    other entries, file by file (the earlier run's files that are not written again are
    removed); the manifest goes last, with ``about`` (what reading the run back needs beside
    its files: title, key figures' units and labels, notes). Returns what ``write`` returned,
    its files."""
    folder = check_run_folder(folder, overwrite)
    earlier = run_files(folder)
    whole = earlier is not None and not foreign_entries(folder, [*earlier, RUN_MANIFEST])
    with atomic_directory(folder, merge=folder.exists() and not whole, earlier=earlier or ()) as work:
        files = write(work)
        atomic_write_text(work / RUN_MANIFEST, json.dumps({"files": files, **(about or {})}, indent=1))
        return files

"""Suite-wide options: run the suite as disjoint parts, and record what each test file costs.

``--part K/N`` keeps only the test files of part K of N (1-based); each file goes whole to one
part, the files packed greedily, heaviest first, into the part with the least recorded time so
far, by their seconds in ``file_seconds.json`` (a file not listed there weighs the median of
those listed). ``run_parts.py`` runs the N parts side by side. ``--record-seconds PATH`` writes
each file's total (setup, call and teardown of its tests) [s] to PATH, to refresh that table.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

SECONDS = Path(__file__).with_name("file_seconds.json")


def pytest_addoption(parser) -> None:
    parser.addoption("--part", default=None, metavar="K/N", help="run only part K of N of the test files")
    parser.addoption("--record-seconds", default=None, metavar="PATH", help="write each test file's seconds to PATH")


def _part(spec: str) -> tuple[int, int]:
    """(K, N) of ``--part K/N``, checked."""
    try:
        k, n = (int(x) for x in spec.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--part {spec}: write K/N with whole numbers, e.g. --part 1/2") from None
    if not 1 <= k <= n:
        raise pytest.UsageError(f"--part {spec}: K must lie in 1..N")
    return k, n


def part_of_files(files: list[str], seconds: dict[str, float], n: int) -> dict[str, int]:
    """Each file's part (1..n): heaviest first into the part with the least time so far."""
    default = statistics.median(seconds.values()) if seconds else 1.0
    loads = [0.0] * n
    part = {}
    for name in sorted(files, key=lambda f: (-seconds.get(f, default), f)):
        lightest = loads.index(min(loads))
        part[name] = lightest + 1
        loads[lightest] += seconds.get(name, default)
    return part


def pytest_collection_modifyitems(config, items) -> None:
    spec = config.getoption("part")
    if not spec:
        return
    k, n = _part(spec)
    seconds = json.loads(SECONDS.read_text()) if SECONDS.exists() else {}
    part = part_of_files(sorted({item.path.name for item in items}), seconds, n)
    kept = [item for item in items if part[item.path.name] == k]
    config.hook.pytest_deselected(items=[item for item in items if part[item.path.name] != k])
    items[:] = kept


_spent: dict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report) -> None:
    _spent[Path(report.fspath).name] += report.duration


def pytest_sessionfinish(session) -> None:
    path = session.config.getoption("record_seconds")
    if path:
        Path(path).write_text(json.dumps({k: round(v, 1) for k, v in sorted(_spent.items())}, indent=1) + "\n")

"""The suite's parts (``--part K/N`` of conftest.py, run side by side by run_parts.py)."""

import subprocess
import sys
from pathlib import Path

from conftest import part_of_files


def test_parts_cover_every_file_once_and_balance_the_recorded_seconds():
    seconds = {"a.py": 100.0, "b.py": 90.0, "c.py": 50.0, "d.py": 40.0, "e.py": 10.0}
    part = part_of_files([*seconds, "new.py"], seconds, 2)
    assert set(part) == {*seconds, "new.py"} and set(part.values()) == {1, 2}
    loads = [sum(seconds.get(f, 50.0) for f, k in part.items() if k == n) for n in (1, 2)]
    assert part["a.py"] != part["b.py"]  # the two heaviest apart
    assert abs(loads[0] - loads[1]) <= max(seconds.values())  # greedy packing's bound: 160 against 180 here


def test_the_parts_together_run_exactly_the_suites_tests():
    def collected(*args):
        lines = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", *args],
            cwd=Path(__file__).parent.parent,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        return {line for line in lines if "::" in line}

    whole = collected("tests/test_suite_parts.py", "tests/test_layers.py", "tests/test_rotation.py")
    first = collected("--part=1/2", "tests/test_suite_parts.py", "tests/test_layers.py", "tests/test_rotation.py")
    second = collected("--part=2/2", "tests/test_suite_parts.py", "tests/test_layers.py", "tests/test_rotation.py")
    assert first and second and not first & second and first | second == whole

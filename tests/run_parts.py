"""Run the test suite as N parts side by side (``--part K/N`` of ``conftest.py``), one process each.

The suite is one process; on a machine with two cores the second sits idle (most tests are
single-threaded numba, MuJoCo and NumPy). ``make test`` runs ``python tests/run_parts.py``: two
parts by default (``--parts N``), other arguments go to every pytest. Each part's output is
written to a log and printed whole when it ends; the exit status is the first failing part's
(a part with no test left after ``-k`` counts as passed).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NO_TESTS_COLLECTED = 5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", type=int, default=2, help="number of parts run side by side (default 2)")
    args, pytest_args = parser.parse_known_args(argv)
    if args.parts < 1:
        parser.error("--parts must be at least 1")
    root = Path(__file__).resolve().parent.parent
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="actuatorlab-tests-") as folder:
        logs = [Path(folder) / f"part{k}.log" for k in range(1, args.parts + 1)]
        runs = []
        for k, log in enumerate(logs, start=1):
            command = [sys.executable, "-m", "pytest", f"--part={k}/{args.parts}", *pytest_args]
            with log.open("wb") as out:
                runs.append(subprocess.Popen(command, cwd=root, stdout=out, stderr=subprocess.STDOUT))
        try:
            codes = [run.wait() for run in runs]
        except KeyboardInterrupt:
            for run in runs:
                run.terminate()
            raise
        for k, (log, code) in enumerate(zip(logs, codes), start=1):
            print(f"=== part {k}/{args.parts} (exit {code}) ===", flush=True)
            sys.stdout.buffer.write(log.read_bytes())
            sys.stdout.flush()
    failed = [code for code in codes if code not in (0, NO_TESTS_COLLECTED)]
    if all(code == NO_TESTS_COLLECTED for code in codes):
        failed = [NO_TESTS_COLLECTED]
    print(f"=== {args.parts} parts in {time.perf_counter() - started:.0f} s: {'failed' if failed else 'passed'} ===")
    return failed[0] if failed else 0


if __name__ == "__main__":
    sys.exit(main())

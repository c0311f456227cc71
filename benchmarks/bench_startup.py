"""Start-up of the command (issue 19 §1): whole-process wall time, warm numba cache, of
``actuatorlab run arm-relief --quiet`` (report and 3 figures included; target ≤ 1 s),
``show arm-relief``, ``--help`` and ``scenarios`` (targets ≤ 0.3 s).

Each command runs ``repeats`` times after one warm-up (which fills the kernel cache); the median
and the range are reported with the load average. With ``--base SRC`` the same commands also run
with ``PYTHONPATH=SRC`` (another checkout's ``src``), alternating with this one, and the ratios
this / base are printed: on a shared machine the ratio is the figure to read.

Run: .venv/bin/python benchmarks/bench_startup.py [--base ../other/src] [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = Path(sys.executable).with_name("actuatorlab")
COMMANDS = {  # name → (arguments, target [s])
    "run arm-relief --quiet": (["run", "arm-relief", "--quiet", "--out", "{out}"], 1.0),
    "show arm-relief": (["show", "arm-relief"], 0.3),
    "--help": (["--help"], 0.3),
    "scenarios": (["scenarios"], 0.3),
}


def _wall(args: list[str], src: str | None) -> float:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    start = time.perf_counter()
    subprocess.run([str(CLI), *args], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(base: str | None = None, repeats: int = 7) -> dict[str, float]:
    trees = {"this": None, **({"base": base} if base else {})}
    figures = {}
    with tempfile.TemporaryDirectory() as out:
        for name, (args, target) in COMMANDS.items():
            args = [a.format(out=os.path.join(out, "run")) for a in args]
            times = {tree: [] for tree in trees}
            for src in trees.values():
                _wall(args, src)  # warm-up: the kernel cache of that tree
            for _ in range(repeats):
                for tree, src in trees.items():  # alternated, so that the machine's load hits both alike
                    times[tree].append(_wall(args, src))
            median = statistics.median(times["this"])
            line = (
                f"{name}: {median:.2f} s (median of {repeats}, {min(times['this']):.2f}–{max(times['this']):.2f}; "
                f"target <= {target:g} s: {'met' if median <= target else 'NOT met'})"
            )
            if base:
                before = statistics.median(times["base"])
                line += f"; base {before:.2f} s, ratio {median / before:.2f}"
                figures[f"{name} base"] = before
            print(line, flush=True)
            figures[name] = median
    print(f"load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", help="another checkout's src folder, timed alternately for ratios")
    parser.add_argument("--repeats", type=int, default=7)
    options = parser.parse_args()
    main(options.base, options.repeats)

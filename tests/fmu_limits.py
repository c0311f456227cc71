"""``actuatorlab export fmu`` in a child process under a file size limit (``ulimit -f``), the
check both FMU export tests make of it (issue 28)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import actuatorlab

SOURCE = Path(actuatorlab.__file__).parents[1]
"""The folder this actuatorlab is imported from, put on the child's path."""


def export_limited(limit: int, out: Path, tmpdir: Path, cc: str | None = None, soft_only: bool = False):
    """Run ``export fmu arm-relief --out out`` with files limited to ``limit`` bytes (SIGXFSZ
    ignored, so a write beyond it fails with EFBIG), temporary files in ``tmpdir``, ``$CC`` =
    ``cc`` if given; ``soft_only`` leaves the hard limit off, so the compiler may lift the soft one."""

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY if soft_only else limit))

    env = {**os.environ, "PYTHONPATH": str(SOURCE), "TMPDIR": str(tmpdir)}
    if cc is not None:
        env["CC"] = cc
    return subprocess.run([sys.executable, "-c", "from actuatorlab.cli import main; main()", "export", "fmu",
                           "arm-relief", "--out", str(out)], preexec_fn=limited, env=env, capture_output=True,
                          text=True, timeout=600)


def assert_one_line_refusal(done, *folders: Path) -> str:
    """``done`` exited 2 with one line on stderr starting "error:" and nothing on stdout, and
    ``folders`` are empty (no partial FMU, no build folder left); returns the line."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    assert done.stdout == ""
    for folder in folders:
        assert list(folder.iterdir()) == [], f"left in {folder}: {list(folder.iterdir())}"
    return lines[0]

"""Run ``actuatorlab`` in a process whose files cannot grow past a size, as on a full disk (issue 28)."""

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def run_with_file_limit(limit: int, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """``actuatorlab *args`` with RLIMIT_FSIZE at ``limit`` bytes and SIGXFSZ ignored, so that a
    write past it fails with EFBIG (OSError 27) in the command and in its worker processes. The
    child writes no bytecode: CPython writes a .pyc with one raw write, so under the limit it
    would put a truncated cache file into the source tree for every later import to trip on."""

    def limit_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [str(BIN / "actuatorlab"), *args],
        preexec_fn=limit_files,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def one_error_line(stderr: str) -> str:
    """The command's only output line on stderr, which must be an error without a traceback."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "Traceback" not in stderr, stderr
    return lines[0]

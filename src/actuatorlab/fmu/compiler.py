"""Compile the C sources of an FMU with the system C compiler (``cc``, or ``$CC``)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

from .errors import ExportError

C_DIR = Path(__file__).with_name("c")
"""The C sources shipped as package data."""
FLAGS = ("-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared", "-fvisibility=hidden")
"""The sources compile without a warning under these flags; only the FMI functions are exported
(``-fvisibility=hidden``), so several FMUs load side by side in one process."""
COMMON_SOURCES = ("instance.c", "quasistatic.c")
HEADERS = ("instance.h", "quasistatic.h", "layouts.h", "fmi3_types.h", "fmi2_types.h")
MODEL_FILES = {
    "quasistatic": ("model_quasistatic.c",),
    "pressure-dynamics": ("model_pressure.c", "pressure.c", "pressure.h"),
}
"""The files each model adds to the common ones."""


def compiler() -> list[str]:
    """The C compiler command: ``$CC`` if set, else ``cc``; raises ExportError naming what to
    install when there is none."""
    command = shlex.split(os.environ.get("CC", "") or "cc")
    if not command or shutil.which(command[0]) is None:
        raise ExportError(
            f"no C compiler found ({command[0] if command else 'CC is empty'!r} is not on PATH): "
            "install one (Debian/Ubuntu: apt-get install gcc; Fedora: dnf install gcc; macOS: "
            "xcode-select --install) or set CC to its path"
        )
    return command


def compile_shared(sources: list[Path], include: list[Path], output: Path, export_all: bool = False) -> None:
    """Build the shared library ``output`` from ``sources``; raises ExportError with the
    compiler's first error line if it fails, or if it leaves no ``output``. ``export_all``
    exports every function (the twin tests call the kernels one by one), not only the FMI ones."""
    flags = [f for f in FLAGS if not (export_all and f.startswith("-fvisibility"))]
    command = [*compiler(), *flags, *(f"-I{d}" for d in include), "-o", str(output), *map(str, sources), "-lm"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ExportError(f"the C compiler {command[0]!r} could not run: {exc}") from None
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        first = next((line for line in lines if "error" in line), lines[0] if lines else "no message")
        raise ExportError(
            f"the C compiler {command[0]!r} failed on the FMU sources: {first}; check that the "
            "temporary folder has room (TMPDIR; disk space, ulimit -f) or set CC to gcc or clang"
        )
    if not output.is_file() or output.stat().st_size == 0:
        raise ExportError(
            f"the C compiler {command[0]!r} reported success but wrote no library {output.name}: "
            "set CC to a working C compiler (e.g. CC=gcc), or unset it to use cc"
        )

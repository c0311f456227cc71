"""Ctrl-C at any moment of ``actuatorlab run`` once its simulation child is forked (the command
asks for two processes), as a terminal sends it (SIGINT to the process group): exit 130 and one
``interrupted:`` line, never a traceback, nothing written, the child stopped (issue 28: a Ctrl-C
while typer was still reading the command line ended in a traceback, and one a little later in a
silent 130). A Ctrl-C while Python imports the command's module itself still ends as Python's own."""

import os
import signal
import subprocess
import sys
import time

import pytest

import actuatorlab

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the command forks its simulation on Linux only"
)


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listing:
            return [int(p) for p in listing.read().split()]
    except OSError:
        return []


@pytest.mark.parametrize("delay", [0.0, 0.1, 0.3, 0.8])
def test_ctrl_c_at_any_moment_of_a_run_is_one_line(tmp_path, delay):
    slow = tmp_path / "slow.toml"  # an arm held still for 10 min, LSODA: it simulates for seconds
    slow.write_text(
        actuatorlab.load("arm-relief")
        .set(
            {
                "model": "pressure-dynamics",
                "simulation.duration": "600 s",
                "inputs.valve_command": 0.0,
                "inputs.external_force": "-20 kN",
            }
        )
        .show()
    )
    command = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from actuatorlab.cli import main; main()",
            "run",
            str(slow),
            "--quiet",
            "--out",
            str(tmp_path / "out"),
        ],
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "ACTUATORLAB_NO_FORK"},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _children(command.pid):
        time.sleep(0.01)
    child = _children(command.pid)
    assert child, "the run did not fork"
    time.sleep(delay)  # 0.8 s: the child simulates, the parent waits for it
    os.killpg(command.pid, signal.SIGINT)
    _, stderr = command.communicate(timeout=120)
    assert command.returncode == 130, stderr
    assert "Traceback" not in stderr and stderr.startswith("interrupted: nothing was written"), stderr
    assert not (tmp_path / "out").exists()
    deadline = time.monotonic() + 10  # stopped by the parent, or ending as its parent's pipe closes
    while time.monotonic() < deadline and os.path.exists(f"/proc/{child[0]}"):
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{child[0]}"), "the forked child was left running"

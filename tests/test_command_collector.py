"""The garbage collector in the command and in a user's session (issue 29): the ``actuatorlab``
command runs with it off and freezes what exists when it ends; the library leaves a script's or
notebook's collector as it found it."""

from __future__ import annotations

import subprocess
import sys

COMMAND = """
import gc, sys
from actuatorlab import cli
from actuatorlab.scenarios import sources
seen = []
listing = sources.builtin_scenarios
sources.builtin_scenarios = lambda: seen.append(gc.isenabled()) or listing()
sys.argv = ["actuatorlab", "scenarios"]
try:
    cli.main()
except SystemExit as exc:
    pass
print("during", seen, "after", gc.isenabled(), gc.get_freeze_count() > 1000)
"""

SESSION = """
import gc, tempfile
import actuatorlab
actuatorlab.load("arm-relief").set("simulation.duration", "1 s").run().save(tempfile.mkdtemp() + "/run")
print("after", gc.isenabled(), gc.get_freeze_count())
"""


def test_the_command_runs_without_the_collector_and_freezes_what_it_loaded():
    out = subprocess.run([sys.executable, "-c", COMMAND], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.split("\n")[-2] == "during [False] after False True", out.stderr


def test_a_run_in_a_session_leaves_its_collector_alone():
    out = subprocess.run([sys.executable, "-c", SESSION], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.split("\n")[-2] == "after True 0", out.stderr

"""The collector paused while libraries load, and what loaded frozen out of it (``io/gc_pause.py``):
in the command's own process only."""

from __future__ import annotations

import subprocess
import sys


def test_loading_libraries_freezes_only_in_the_commands_own_process():
    code = """
import gc
from actuatorlab.io.gc_pause import loading_libraries, own_process
with loading_libraries():
    inside = gc.isenabled()
print(inside, gc.isenabled(), gc.get_freeze_count())  # a user's session: untouched
own_process()
with loading_libraries():
    import json
    inside = gc.isenabled()
print(inside, gc.isenabled(), gc.get_freeze_count() > 1000)
gc.disable()
with loading_libraries():
    pass
print(gc.isenabled())  # a collector that was off stays off
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:3] == ["True True 0", "False True True", "False"]

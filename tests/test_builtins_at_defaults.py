"""Every built-in scenario runs as shipped: ``actuatorlab run NAME`` at its own defaults
(issue 28: ieha-identify and ieha-mpc failed there while their shortened tests passed).

Each scenario runs in its own process, as a user runs it, ``os.cpu_count()`` at a time: the
runs are started once for the module and each test waits for its own."""

import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from actuatorlab.scenarios.sources import builtin_scenarios

NAMES = sorted(builtin_scenarios())


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    """name → future of (return code, output, folder) of ``actuatorlab run name --quiet``, for
    the names this session selected (``-k``)."""
    selected = [
        item.callspec.params["name"]
        for item in request.session.items
        if getattr(item, "originalname", "") == "test_builtin_runs_at_its_defaults"
    ]
    root = tmp_path_factory.mktemp("builtins")
    code = "import sys; from actuatorlab.cli import main; sys.argv[0] = 'actuatorlab'; main()"

    def run(name):
        folder = root / name
        done = subprocess.run(
            [sys.executable, "-c", code, "run", name, "--out", str(folder), "--quiet"],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        return done.returncode, done.stdout + done.stderr, folder

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        yield {name: pool.submit(run, name) for name in selected}


@pytest.mark.parametrize("name", NAMES)
def test_builtin_runs_at_its_defaults(runs, name):
    code, output, folder = runs[name].result()
    assert code == 0, output
    summary = json.loads((folder / "summary.json").read_text())
    assert summary and all(math.isfinite(v) for v in summary.values() if isinstance(v, float)), summary

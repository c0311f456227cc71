"""Work split over a forked child (``io/forked.py``): results, errors, lost children, progress;
the report's figures drawn by two processes, and an arm run simulated in a child, give the
same files as in one process."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

import actuatorlab
from actuatorlab.errors import SimulationError
from actuatorlab.io.forked import ChildLost, fork_allowed, fork_call, results
from actuatorlab.report import plots
from actuatorlab.scenarios import runner

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forking is used on Linux only")


@pytest.fixture
def forking(monkeypatch):
    """Fork where the library would in a fresh process: an earlier test in this one may have left
    threads (a Dask client's event loop), which turns forking off (tested on its own below)."""
    monkeypatch.delenv("ACTUATORLAB_NO_FORK", raising=False)
    monkeypatch.setattr(runner, "_APART_ONCE", set())  # as in a process that has not run an arm yet
    for module in (runner, plots):
        monkeypatch.setattr(module, "fork_allowed", lambda: "ACTUATORLAB_NO_FORK" not in os.environ)


def _twice(x, report):
    report(0.25)
    report(0.75)
    return {"x": np.arange(x) * 2}


def _fails(report):
    raise ValueError("the child's own message")


def _dies(report):
    os.kill(os.getpid(), signal.SIGKILL)


def test_the_childs_result_and_progress_come_back():
    seen = []
    with fork_call(_twice, 100_000) as child:
        value = child.result(seen.append)
    np.testing.assert_array_equal(value["x"], np.arange(100_000) * 2)
    assert seen == [0.25, 0.75]


def test_the_childs_exception_is_raised_in_the_parent():
    with fork_call(_fails) as child, pytest.raises(ValueError, match="the child's own message"):
        child.result()


def test_a_child_killed_on_the_way_is_reported_as_lost():
    with fork_call(_dies) as child, pytest.raises(ChildLost, match="killed by SIGKILL"):
        child.result()


def test_ctrl_c_stops_a_forked_run_without_a_traceback_or_a_child_left(tmp_path):
    """SIGINT to the command's process group, as a terminal sends it: the parent stops its child
    (which ignores Ctrl-C), nothing is written, no traceback."""
    import subprocess

    slow = tmp_path / "slow.toml"  # an arm held still for 10 min, LSODA: the child simulates for seconds
    text = actuatorlab.load("arm-relief").set({"model": "pressure-dynamics", "simulation.duration": "600 s",
                                               "inputs.valve_command": 0.0, "inputs.external_force": "-20 kN"}).show()
    slow.write_text(text)
    command = subprocess.Popen([sys.executable, "-c", "from actuatorlab.cli import main; main()", "run", str(slow),
                                "--quiet", "--out", str(tmp_path / "out")], start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={k: v for k, v in os.environ.items() if k != "ACTUATORLAB_NO_FORK"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _children(command.pid):
        time.sleep(0.05)
    assert _children(command.pid), "the run did not fork"
    child = _children(command.pid)[0]
    time.sleep(0.5)  # the child is simulating, the parent loading the output's libraries or waiting
    os.killpg(command.pid, signal.SIGINT)
    _, stderr = command.communicate(timeout=60)
    assert "Traceback" not in stderr and command.returncode == 130
    assert "interrupted: nothing was written" in stderr
    assert not (tmp_path / "out").exists()
    assert not os.path.exists(f"/proc/{child}")


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listing:
            return [int(p) for p in listing.read().split()]
    except OSError:
        return []


def test_several_children_report_as_they_go_and_a_lost_one_is_raised_after_the_others_end():
    seen = []
    calls = [fork_call(_twice, n) for n in (3, 5)]
    values = results(calls, lambda i, value: seen.append((i, value)))
    assert [v["x"].tolist() for v in values] == [[0, 2, 4], [0, 2, 4, 6, 8]]
    assert sorted(seen) == [(0, 0.25), (0, 0.75), (1, 0.25), (1, 0.75)]
    calls = [fork_call(_dies), fork_call(_twice, 2)]
    with pytest.raises(ChildLost):
        results(calls)
    assert calls[1].result()["x"].tolist() == [0, 2]  # the other child ran to its end


def test_leaving_early_stops_and_reaps_the_child():
    with fork_call(lambda report: signal.pause()) as child:
        pid = child.pid
    with pytest.raises(ChildProcessError):  # reaped: no zombie left to wait for
        os.waitpid(pid, os.WNOHANG)


def test_no_fork_from_a_process_with_threads(monkeypatch):
    monkeypatch.delenv("ACTUATORLAB_NO_FORK", raising=False)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not fork_allowed()
    finally:
        stop.set()
        thread.join()
    monkeypatch.setenv("ACTUATORLAB_NO_FORK", "1")
    assert not fork_allowed()


def test_figures_drawn_by_two_processes_are_the_ones_drawn_by_one(tmp_path, monkeypatch, forking):
    """Every figure is written once, in the specs' order, the same bytes as drawn in one process;
    a figure that fails in the child is named in the notes, the others still drawn."""
    specs = actuatorlab.load("arm-relief").set("simulation.duration", "2 s").run()._output.figures
    broken = type(specs[0])("broken.png", "fails", lambda: 1 / 0)
    specs = [specs[0], broken, *specs[1:]]
    (tmp_path / "two").mkdir()
    (tmp_path / "one").mkdir()
    files, notes = plots.draw_figures(specs, tmp_path / "two")
    monkeypatch.setenv("ACTUATORLAB_NO_FORK", "1")
    files_one, notes_one = plots.draw_figures(specs, tmp_path / "one")
    assert files == files_one == [s.file for s in specs if s.file != "broken.png"]
    assert notes == notes_one and "broken.png was not drawn: ZeroDivisionError" in notes[0]
    for name in files:
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()


def test_an_arm_simulated_in_a_child_equals_one_simulated_here(monkeypatch, forking):
    scenario = actuatorlab.load("arm-relief").set("simulation.duration", "3 s")
    calls = []
    original = runner.fork_call
    monkeypatch.setattr(runner, "fork_call", lambda *a, **k: calls.append(a) or original(*a, **k))
    apart = scenario.run()
    monkeypatch.setenv("ACTUATORLAB_NO_FORK", "1")
    here = scenario.run()
    assert len(calls) == 1  # the first run did fork, the second did not
    pd.testing.assert_frame_equal(apart.table, here.table)
    assert {k: f.value for k, f in apart.summary.items() if "time" not in k} == \
           {k: f.value for k, f in here.summary.items() if "time" not in k}


def test_only_a_kinds_first_run_in_a_process_is_simulated_apart(monkeypatch, forking):
    """A script that runs again loads the kernels itself once (a child's die with it)."""
    calls = []
    original = runner.fork_call
    monkeypatch.setattr(runner, "fork_call", lambda *a, **k: calls.append(a) or original(*a, **k))
    scenario = actuatorlab.load("arm-relief").set("simulation.duration", "1 s")
    first, second = scenario.run(), scenario.run()
    assert len(calls) == 1
    pd.testing.assert_frame_equal(first.table, second.table)


def test_a_simulation_error_in_the_child_reaches_the_user_as_in_one_process(monkeypatch, forking):
    scenario = actuatorlab.load("arm-relief").set("cylinder.stroke", "0.3 m")  # ℓ(0) = 1.5 m is beyond it
    with pytest.raises(SimulationError, match="left its travel") as apart:
        scenario.run()
    assert runner._APART_ONCE == {"arm"}
    monkeypatch.setenv("ACTUATORLAB_NO_FORK", "1")
    with pytest.raises(SimulationError) as here:
        scenario.run()
    assert str(apart.value) == str(here.value)


def test_a_run_whose_child_is_lost_is_simulated_here(monkeypatch, forking):
    parent, simulate = os.getpid(), runner._simulate_scenario

    def dies_in_the_child(scenario, report):
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return simulate(scenario, report)

    monkeypatch.setattr(runner, "_simulate_scenario", dies_in_the_child)
    result = actuatorlab.load("arm-relief").set("simulation.duration", "1 s").run()
    assert len(result.table) == 1001


def test_a_figure_with_work_started_is_drawn_where_it_was_started(tmp_path, monkeypatch, forking):
    """The machine picture's renderer is started once, by the process that then draws the picture;
    a start that fails leaves the figure to its build."""
    pids = {}
    specs = actuatorlab.load("arm-relief").set("simulation.duration", "1 s").run()._output.figures
    started = type(specs[0])("started.png", "", lambda: pids.setdefault("built", os.getpid()) and specs[0].build(),
                             start=lambda: pids.setdefault("started", os.getpid()))
    failing = type(specs[0])("failing.png", "", specs[1].build, start=lambda: 1 / 0)
    files, notes = plots.draw_figures([started, *specs, failing], tmp_path)
    assert pids == {"started": os.getpid(), "built": os.getpid()}
    assert files == ["started.png", *(s.file for s in specs), "failing.png"] and notes == []
    monkeypatch.setenv("ACTUATORLAB_NO_FORK", "1")  # in one process too: the files in the specs' order
    assert plots.draw_figures([started, *specs, failing], tmp_path)[0] == files

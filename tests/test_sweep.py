"""Sweeps on Dask: variants, records, resume, failures, a real scheduler with two workers."""

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from actuatorlab.cli import app
from actuatorlab.errors import ScenarioError
from actuatorlab.scenarios.loading import load_scenario
from actuatorlab.scenarios.sweep import BATCHES, RECORDS, SERIES, run_sweep
from actuatorlab.scenarios.variants import grid_variants, sample_variants
from file_limit import one_error_line, run_with_file_limit

runner = CliRunner()
BIN = Path(sys.executable).parent
SHORT = ["--grid", "simulation.duration=0.5 s"]  # keeps each arm-relief variant short


def _short(scenario, duration: float):
    """``scenario`` with a shorter ``simulation.duration`` [s]."""
    return scenario.model_copy(update={"simulation": scenario.simulation.model_copy(update={"duration": duration})})


def _sweep(*args):
    return runner.invoke(app, ["sweep", *args, "--quiet"])


def test_grid_is_a_product_with_si_values():
    variants = grid_variants(
        load_scenario("arm-relief"), ["inputs.bleed=0.1,0.2,0.3", "circuit.pump_flow=300 L/min,500 L/min"]
    )
    assert len(variants) == 6
    assert variants.row(5) == {"inputs.bleed": 0.3, "circuit.pump_flow": pytest.approx(500 / 60000)}


def test_samples_follow_their_distributions_and_seed():
    scenario = load_scenario("arm-relief")
    specs = ["relaxation.stiffness=loguniform(1e7 N/m, 5e7 N/m)", "circuit.pump_relief_pressure=normal(36 MPa, 1 MPa)"]
    a = sample_variants(scenario, specs, 200, seed=3)
    assert np.array_equal(a.values, sample_variants(scenario, specs, 200, seed=3).values)
    k, p = a.values.T
    assert k.min() >= 1e7 and k.max() <= 5e7
    assert abs(p.mean() - 36e6) < 0.3e6 and 0.8e6 < p.std() < 1.2e6


@pytest.mark.parametrize(
    "args, message",
    [
        (["--grid", "inputs.bleedx=0.1"], "no field 'bleedx' at inputs; fields there: bleed"),
        (["--grid", "inputs.bleed=0.2,1.5"], "--grid inputs.bleed=1.5: inputs.bleed reaches 1.5"),
        (["--samples", "5", "--vary", "arm.masss=uniform(1, 2)"], "no field 'masss' at arm; fields there: angle_range"),
        (
            ["--samples", "5", "--vary", "inputs.bleed=uniform(0.1, 0.5)", "--keep-series", "-1"],
            "--keep-series -1: give 0 or more",
        ),
        (
            ["--samples", "5", "--vary", "inputs.bleed=uniform(0.1, 0.5)", "--keep-variant", "5"],
            "--keep-variant 5: no such variant; the ids run from 0 to 4",
        ),
        (["--grid", "circuit.pump_flow=3 m"], '"3 m" is a length; expected a volume flow'),
        (["--samples", "5", "--vary", "inputs.bleed=gauss(0, 1)"], "write PATH=uniform(LOW, HIGH)"),
        (["--samples", "5"], "--samples N needs at least one --vary"),
        (["--samples", "0", "--vary", "inputs.bleed=uniform(0.1, 0.5)"], "--samples 0: give the number of Monte Carlo"),
        ([], "give either --grid"),
        (["--grid", "inputs.bleed=0.2", "--workers", "0"], "--workers 0: give at least 1 local worker"),
        (["--grid", "inputs.bleed=0.2", "--scheduler", "notaurl"], "--scheduler notaurl: not a scheduler address"),
        (["--grid", "inputs.bleed=0.2", "--scheduler", "tcp://127.0.0.1"], "write SCHEME://HOST:PORT"),
    ],
)
def test_bad_paths_and_values_are_rejected_before_anything_runs(tmp_path, args, message):
    result = _sweep("arm-relief", *args, "--out", str(tmp_path / "s"))
    assert result.exit_code == 2 and message in result.output, result.output
    assert not (tmp_path / "s").exists()


def test_local_sweep_records_a_failing_variant_and_resumes(tmp_path):
    out = tmp_path / "s"
    args = [
        "arm-relief",
        *SHORT,
        "--grid",
        "relaxation.stiffness=5e7,1e12",
        "--grid",
        "inputs.bleed=0.2,0.3,0.4",
        "--workers",
        "2",
        "--out",
        str(out),
    ]
    assert _sweep(*args).exit_code == 0
    index = pd.read_parquet(out / "index.parquet")
    assert list(index["variant"]) == [0, 1, 2, 3, 4, 5]
    failed = index[index["status"] == "failed"]
    assert list(failed["relaxation.stiffness"]) == [1e12, 1e12, 1e12]
    assert failed["error"].str.contains("SimulationError: relaxation.stiffness = 1e\\+12 N/m").all()
    assert (out / RECORDS / "00000.parquet").exists() and not (out / RECORDS / "00003.parquet").exists()
    assert len(list(out.glob("sweep_map_*.png"))) >= 1  # two varied parameters: heat maps
    assert (
        "sweep_map_0.png" in (out / "report.html").read_text() and "failed variant" in (out / "report.html").read_text()
    )
    # lose variant 1's record (as if interrupted before it) and damage variant 2's table (as a
    # power loss may), then resume: only those two run again
    (out / RECORDS / "00001.json").unlink()
    table = out / RECORDS / "00002.parquet"
    table.write_bytes(table.read_bytes()[:100])
    stamps = {i: (out / RECORDS / f"{i:05d}.json").stat().st_mtime_ns for i in (0, 2, 3)}
    assert _sweep(*args).exit_code == 2  # an existing sweep needs --resume
    assert _sweep(*args, "--resume").exit_code == 0
    assert (out / RECORDS / "00000.json").stat().st_mtime_ns == stamps[0]
    assert (out / RECORDS / "00003.json").stat().st_mtime_ns == stamps[3]  # a failed variant is complete
    assert (out / RECORDS / "00002.json").stat().st_mtime_ns != stamps[2]
    assert (out / RECORDS / "00001.json").exists()
    index = pd.read_parquet(out / "index.parquet")
    assert len(index) == 6 and list(index["status"]) == ["ok"] * 3 + ["failed"] * 3
    assert len(pd.read_parquet(table)) == len(pd.read_parquet(out / RECORDS / "00000.parquet"))


def test_report_draws_lines_for_one_parameter_and_histograms_for_samples(tmp_path):
    line = _sweep(
        "arm-relief",
        *SHORT,
        "--grid",
        "inputs.bleed=0.2,0.3,0.4",
        "--figure",
        "final_angle_rad",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "g"),
    )
    assert line.exit_code == 0, line.output
    assert (tmp_path / "g" / "sweep_lines.png").exists() and not list((tmp_path / "g").glob("sweep_map_*"))
    mc = _sweep(
        "arm-relief",
        "--samples",
        "4",
        "--vary",
        "inputs.bleed=uniform(0.2, 0.4)",
        "--seed",
        "1",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "m"),
    )
    assert mc.exit_code == 0, mc.output
    report = (tmp_path / "m" / "report.html").read_text()
    assert (tmp_path / "m" / "sweep_histograms.png").exists() and "sweep_histograms.png" in report
    assert (tmp_path / "m" / "sweep_envelopes.png").exists() and "sweep_envelopes.png" in report  # batched: envelopes


def test_unknown_report_figure_names_the_choices_and_keeps_the_variants(tmp_path):
    out = tmp_path / "s"
    result = _sweep(
        "arm-relief",
        *SHORT,
        "--grid",
        "inputs.bleed=0.2,0.3",
        "--figure",
        "nonsense",
        "--workers",
        "1",
        "--out",
        str(out),
    )
    assert result.exit_code == 2 and "--figure nonsense: not a key figure" in result.output, result.output
    assert "final_angle_rad" in result.output and len(list((out / RECORDS).glob("*.json"))) == 2
    redraw = _sweep(
        "arm-relief",
        *SHORT,
        "--grid",
        "inputs.bleed=0.2,0.3",
        "--figure",
        "final_angle_rad",
        "--workers",
        "1",
        "--out",
        str(out),
        "--resume",
    )
    assert redraw.exit_code == 0 and (out / "sweep_lines.png").exists(), redraw.output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def dask_cluster():
    """A real scheduler and two single-thread workers on 127.0.0.1, as a user starts them."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False")
    procs = [
        subprocess.Popen(
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--dashboard-address", ":0"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    ]
    time.sleep(2.0)
    for _ in range(2):
        procs.append(
            subprocess.Popen(
                [
                    str(BIN / "dask"),
                    "worker",
                    address,
                    "--nthreads",
                    "1",
                    "--host",
                    "127.0.0.1",
                    "--dashboard-address",
                    ":0",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
            )
        )
    from dask.distributed import Client

    with Client(address, timeout="30s") as client:
        client.wait_for_workers(2, timeout=60)
    yield address
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.wait(timeout=30)


def test_distributed_run_against_a_scheduler_and_two_workers(tmp_path, dask_cluster):
    scenario = load_scenario("arm-relief")
    variants = grid_variants(scenario, ["simulation.duration=0.5 s", "inputs.bleed=0.1,0.2,0.3,0.4"])
    result = run_sweep(scenario, variants, tmp_path / "s", scheduler=dask_cluster)
    assert result.ran == 4 and (result.index["status"] == "ok").all() and not result.batched
    records = [json.loads(p.read_text()) for p in sorted((tmp_path / "s" / RECORDS).glob("*.json"))]
    assert [r["variant"] for r in records] == [0, 1, 2, 3]


def test_batched_run_against_a_scheduler_and_two_workers_equals_a_local_one(tmp_path, dask_cluster):
    scenario = _short(load_scenario("arm-relief"), 2.0)
    variants = sample_variants(
        scenario, ["inputs.bleed=uniform(0.2, 0.4)", "arm.mass=uniform(1800 kg, 2200 kg)"], 40, seed=4
    )
    remote = run_sweep(scenario, variants, tmp_path / "remote", scheduler=dask_cluster, keep={3})
    local = run_sweep(scenario, variants, tmp_path / "local", workers=1, keep={3})
    assert remote.batched and remote.ran == 40 and (remote.index["status"] == "ok").all()
    assert len(list((tmp_path / "remote" / BATCHES).glob("*.envelope.parquet"))) >= 2  # several batches on two workers
    figures = [c for c in local.index.columns if c not in ("wall_time_s", "loop_time_s", "real_time_factor")]
    pd.testing.assert_frame_equal(remote.index[figures], local.index[figures])
    assert [p.name for p in (tmp_path / "remote" / SERIES).iterdir()] == ["0000003.parquet"]


def test_unreachable_scheduler_is_a_clear_error(tmp_path):
    result = _sweep(
        "arm-relief", *SHORT, "--scheduler", f"tcp://127.0.0.1:{_free_port()}", "--out", str(tmp_path / "s")
    )
    assert result.exit_code == 2 and "cannot connect" in result.output and "dask scheduler" in result.output
    assert not (tmp_path / "s").exists()  # issue 17: no sweep.json left to demand --resume next time


@pytest.fixture
def not_dask():
    """Address of a TCP server on 127.0.0.1 that is not Dask's: ``not_dask(answer)`` serves each
    connection ``answer()`` (bytes) and closes it; stopped with the test."""
    servers = []

    def start(answer) -> str:
        server = socket.create_server(("127.0.0.1", 0))
        server.settimeout(0.2)
        stop = threading.Event()

        def serve():
            while not stop.is_set():
                try:
                    connection, _ = server.accept()
                except TimeoutError:
                    continue
                with connection:
                    connection.sendall(answer())
            server.close()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        servers.append((stop, thread))
        return f"tcp://127.0.0.1:{server.getsockname()[1]}"

    yield start
    for stop, thread in servers:
        stop.set()
        thread.join(timeout=5)


@pytest.mark.parametrize(
    "answer",
    [
        lambda: os.urandom(256),
        lambda: (3 << 60).to_bytes(8, "little") + os.urandom(64),  # a frame length of 3 EiB: MemoryError in Dask
        lambda: b"",
    ],
    ids=["random-bytes", "3-EiB-frame", "closes"],
)
def test_a_scheduler_address_that_is_not_dask_is_one_line(tmp_path, not_dask, answer):
    """Issue 28: a port that is not Dask's ended in a MemoryError traceback."""
    address = not_dask(answer)
    threads, started = threading.active_count(), time.monotonic()
    result = _sweep("arm-relief", *SHORT, "--scheduler", address, "--out", str(tmp_path / "s"))
    assert result.exit_code == 2 and "Traceback" not in result.output, (result.output, result.exception)
    assert len(result.output.strip().splitlines()) == 1
    assert "not a Dask scheduler" in result.output or "cannot connect" in result.output, result.output
    assert time.monotonic() - started < 60 and not (tmp_path / "s").exists()
    assert threading.active_count() == threads  # no client left behind: later sweeps may still fork


def test_a_tls_scheduler_without_certificates_is_one_line(tmp_path):
    """Issue 28: tls:// ended in a TypeError traceback (no SSL context)."""
    address = f"tls://127.0.0.1:{_free_port()}"
    result = _sweep("arm-relief", *SHORT, "--scheduler", address, "--out", str(tmp_path / "s"))
    assert result.exit_code == 2 and "a TLS scheduler needs the cluster's certificates" in result.output, result.output
    assert "distributed.comm.tls.ca-file" in result.output and not (tmp_path / "s").exists()


def test_a_full_disk_interrupts_variants_that_resume_then_runs(tmp_path):
    """Issue 28: under a file-size limit (as on a full disk) each variant was recorded as failed
    with OSError, the sweep exited 0, and --resume never ran them again. Variants that fail by
    their scenario (stiffness 1e12: a SimulationError) stay failed and are not run again."""
    out = tmp_path / "s"
    args = [
        "sweep",
        "arm-relief",
        *SHORT,
        "--grid",
        "relaxation.stiffness=5e7,1e12",
        "--grid",
        "inputs.bleed=0.2,0.3",
        "--workers",
        "2",
        "--out",
        str(out),
        "--quiet",
    ]
    full = run_with_file_limit(20_000, *args)  # a variant's table (about 40 kB) cannot be written; its record can
    line = one_error_line(full.stderr)
    assert full.returncode == 2
    assert (
        "2 of 4 variants did not finish for reasons outside the scenario: 2 by OSError: [Errno 27] File too "
        "large (a file-size limit is reached"
    ) in line and "--resume" in line, line
    records = {i: json.loads((out / RECORDS / f"{i:05d}.json").read_text()) for i in range(4)}
    assert [records[i]["status"] for i in range(4)] == ["interrupted", "interrupted", "failed", "failed"]
    assert "SimulationError" in records[2]["error"] and not list(out.rglob("*.tmp*"))
    stamps = {i: (out / RECORDS / f"{i:05d}.json").stat().st_mtime_ns for i in (2, 3)}
    resumed = subprocess.run([str(BIN / "actuatorlab"), *args, "--resume"], capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert {i: (out / RECORDS / f"{i:05d}.json").stat().st_mtime_ns for i in (2, 3)} == stamps
    index = pd.read_parquet(out / "index.parquet")
    assert list(index["status"]) == ["ok", "ok", "failed", "failed"]


def test_an_index_that_cannot_be_written_keeps_the_variants_for_resume(tmp_path, monkeypatch):
    from actuatorlab.scenarios import sweep_report

    scenario = _short(load_scenario("arm-relief"), 0.5)
    variants = grid_variants(scenario, ["inputs.bleed=0.2,0.3"])
    write_report = sweep_report.write_sweep_report

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(sweep_report, "write_sweep_report", full_disk)
    with pytest.raises(
        ScenarioError,
        match=r"cannot write the sweep's index and report: OSError: \[Errno 28\] "
        r"No space left on device \(the disk is full: free space\); every variant",
    ):
        run_sweep(scenario, variants, tmp_path / "s", workers=1)
    monkeypatch.setattr(sweep_report, "write_sweep_report", write_report)
    result = run_sweep(scenario, variants, tmp_path / "s", workers=1, resume=True)
    assert result.ran == 0 and result.skipped == 2 and (tmp_path / "s" / "report.html").exists()


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],
        lambda data: b"",
        lambda data: b"\x89PNG\r\n\x1a\n\x00\xff",
        lambda data: b"[1, 2]",
        lambda data: b"{}",
    ],
    ids=["truncated", "empty", "garbage", "not-a-manifest", "no-manifest-keys"],
)
def test_a_damaged_manifest_is_refused_and_left_as_it_is(tmp_path, damage):
    """Issue 28: --resume after a truncated or garbage sweep.json ended in a JSONDecodeError
    traceback; it must be refused, naming what to do, and nothing there changed."""
    out = tmp_path / "s"
    args = [
        "arm-relief",
        "--samples",
        "3",
        "--vary",
        "inputs.bleed=uniform(0.2, 0.4)",
        "--workers",
        "1",
        "--out",
        str(out),
    ]
    assert _sweep(*args).exit_code == 0
    manifest = out / "sweep.json"
    manifest.write_bytes(damage(manifest.read_bytes()))
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    for resume in ([], ["--resume"]):
        result = _sweep(*args, *resume)
        assert result.exit_code == 2 and "Traceback" not in result.output, (result.output, result.exception)
        assert f"--out {out}: its sweep.json is damaged" in result.output and "choose another --out" in result.output
        assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_a_draw_outside_a_fields_range_is_a_failed_variant_not_an_aborted_sweep(tmp_path):
    """Issue 17: one negative normal() draw of a positive field aborted the whole sweep."""
    scenario = load_scenario("arm-relief")
    variants = sample_variants(scenario, ["arm.mass=normal(100 kg, 100 kg)"], 30, seed=1)[:12]
    masses = variants.values[:, 0]
    assert (masses <= 0.0).any()  # seed 1 draws some (about 16 % fall below zero)
    result = run_sweep(_short(scenario, 0.2), variants, tmp_path / "s", workers=1)
    index = result.index.set_index("variant")
    for i in np.flatnonzero(masses <= 0.0):
        assert index.loc[i, "status"] == "failed" and index.loc[i, "arm.mass"] == masses[i]
        assert "arm.mass" in index.loc[i, "error"] and "must be a finite number > 0" in index.loc[i, "error"]
    assert (index["status"] == "ok").sum() == (masses > 0.0).sum()


def test_killed_sweep_resumes_without_lost_or_duplicated_variants(tmp_path):
    out = tmp_path / "s"
    total = 60
    # 60 s simulated per variant: writing its 60 001-row table takes long enough to kill mid-sweep
    args = [
        str(BIN / "actuatorlab"),
        "sweep",
        "arm-relief",
        "--grid",
        "simulation.duration=60 s",
        "--grid",
        "inputs.bleed=" + ",".join(f"{b:.4f}" for b in np.linspace(0.1, 0.5, total)),
        "--workers",
        "2",
        "--out",
        str(out),
        "--quiet",
    ]
    proc = subprocess.Popen(args, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((out / RECORDS).glob("*.json"))) < 2:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)  # the command and its worker processes
    proc.wait()
    done_before = len(list((out / RECORDS).glob("*.json")))
    assert 2 <= done_before < total
    resumed = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    index = pd.read_parquet(out / "index.parquet")
    assert sorted(index["variant"]) == list(range(total)) and (index["status"] == "ok").all()
    assert len(list((out / RECORDS).glob("*.json"))) == total
    assert not list(out.rglob("*.tmp*"))


def test_run_sweep_needs_variants(tmp_path):
    with pytest.raises(ScenarioError, match="no variants"):
        run_sweep(load_scenario("arm-relief"), [], tmp_path)


@pytest.fixture
def engine(monkeypatch):
    """Choose the local engine: ``engine(True)`` forked workers, ``engine(False)`` a Dask LocalCluster."""
    from actuatorlab.scenarios import sweep

    monkeypatch.delenv("ACTUATORLAB_NO_FORK", raising=False)
    return lambda forked: monkeypatch.setattr(sweep, "fork_allowed", lambda: forked)


def test_forked_workers_and_a_dask_local_cluster_give_the_same_sweep(tmp_path, engine):
    scenario = _short(load_scenario("arm-relief"), 0.5)
    variants = sample_variants(
        scenario, ["arm.mass=uniform(1800 kg, 2200 kg)", "inputs.bleed=uniform(0.2, 0.4)"], 40, seed=3
    )
    engine(True)
    forked = run_sweep(scenario, variants, tmp_path / "forked", workers=2, keep={5})
    engine(False)
    dask = run_sweep(scenario, variants, tmp_path / "dask", workers=2, keep={5})
    assert forked.batched and dask.batched
    columns = [c for c in forked.index.columns if c not in ("wall_time_s", "loop_time_s", "real_time_factor")]
    pd.testing.assert_frame_equal(forked.index[columns], dask.index[columns])
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "forked" / SERIES / "0000005.parquet"),
        pd.read_parquet(tmp_path / "dask" / SERIES / "0000005.parquet"),
    )


def test_a_lost_forked_worker_stops_the_sweep_with_how_to_resume(tmp_path, engine, monkeypatch):
    from actuatorlab.scenarios import sweep

    scenario = _short(load_scenario("arm-relief"), 0.5)
    variants = sample_variants(scenario, ["arm.mass=uniform(1800 kg, 2200 kg)"], 400, seed=1)
    batch = sweep.run_compiled_batch

    def dies_on_the_last_batch(base, folder, part, keep):
        if 399 in part.ids:
            os.kill(os.getpid(), signal.SIGKILL)
        return batch(base, folder, part, keep)

    engine(True)
    monkeypatch.setattr(sweep, "run_compiled_batch", dies_on_the_last_batch)
    with pytest.raises(
        ScenarioError,
        match="variants did not finish .* by a lost worker process, killed by SIGKILL "
        r"\(out of memory\? use fewer --workers\).*--resume to run the \d+ again",
    ):
        run_sweep(scenario, variants, tmp_path / "s", workers=2)
    monkeypatch.setattr(sweep, "run_compiled_batch", batch)
    result = run_sweep(scenario, variants, tmp_path / "s", workers=2, resume=True)
    assert 0 < result.skipped < 400 and result.ran == 400 - result.skipped
    assert sorted(result.index["variant"]) == list(range(400)) and (result.index["status"] == "ok").all()


def test_ctrl_c_keeps_the_finished_variants_and_says_how_to_resume(tmp_path):
    """SIGINT to the command's process group, as a terminal sends it: one line on how to go on,
    exit 130, the workers stopped; --resume then finishes with every variant once."""
    args = [
        "sweep",
        "arm-relief",
        "--samples",
        "4000",
        "--vary",
        "arm.mass=uniform(1800 kg, 2200 kg)",
        "--workers",
        "2",
        "--out",
        str(tmp_path / "s"),
        "--quiet",
    ]
    env = {k: v for k, v in os.environ.items() if k != "ACTUATORLAB_NO_FORK"}
    command = subprocess.Popen(
        [str(BIN / "actuatorlab"), *args],
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (tmp_path / "s" / "sweep.json").exists():
        time.sleep(0.05)
    os.killpg(command.pid, signal.SIGINT)
    _, stderr = command.communicate(timeout=120)
    assert command.returncode == 130 and "Traceback" not in stderr
    assert "interrupted: the finished variants are kept" in stderr and "--resume" in stderr
    resumed = subprocess.run(
        [str(BIN / "actuatorlab"), *args, "--resume"], capture_output=True, text=True, env=env, timeout=600
    )
    assert resumed.returncode == 0, resumed.stderr
    index = pd.read_parquet(tmp_path / "s" / "index.parquet")
    assert sorted(index["variant"]) == list(range(4000))

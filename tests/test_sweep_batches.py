"""Batched sweeps: a batched variant equals its single run bit for bit; envelopes; exact resume."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from actuatorlab.io.results import as_dataframe, read_table
from actuatorlab.scenarios.kinds import arm as arm_kind
from actuatorlab.scenarios.kinds import arms_one_pump
from actuatorlab.scenarios.loading import load_scenario, parse_scenario, scenario_to_toml
from actuatorlab.scenarios import sweep
from actuatorlab.scenarios.sweep import BATCHES, ENVELOPE_POINTS, SERIES, run_sweep
from actuatorlab.scenarios.sweep_envelopes import LEVELS, RANKS, mixture_quantiles, sketch
from actuatorlab.scenarios.variants import Variants, sample_variants, with_values
from file_limit import one_error_line, run_with_file_limit

BIN = Path(sys.executable).parent
MACHINE = ("wall_time_s", "loop_time_s", "real_time_factor")


def _short(scenario, duration: float):
    return scenario.model_copy(update={"simulation": scenario.simulation.model_copy(update={"duration": duration})})


def _single(scenario, variants: Variants, i: int):
    """The output of ``actuatorlab run`` on variant i's scenario, as its TOML would be parsed."""
    data = with_values(scenario.model_dump(), variants.row(i))
    variant = parse_scenario(data, f"variant {i}")
    return {"arm": arm_kind, "arms-one-pump": arms_one_pump}[variant.kind].run(variant)


@pytest.mark.parametrize(
    "name, specs",
    [
        (
            "arm-relief",
            [
                "arm.mass=normal(1000 kg, 900 kg)",
                "circuit.pump_flow=uniform(300 L/min, 600 L/min)",
                "inputs.bleed=uniform(0.0, 0.4)",
                "relaxation.stiffness=loguniform(1e7 N/m, 1e12 N/m)",
            ],
        ),
        (
            "two-arms-one-pump",
            [
                "arms[0].mass=uniform(300 kg, 3000 kg)",
                "bleed=uniform(0.1, 0.5)",
                "relaxation.damping=uniform(1e6 N s/m, 4e6 N s/m)",
            ],
        ),
    ],
)
def test_batched_variants_equal_their_single_runs_bit_for_bit(tmp_path, name, specs):
    scenario = _short(load_scenario(name), 3.0)
    variants = sample_variants(scenario, specs, 24, seed=7)
    result = run_sweep(scenario, variants, tmp_path / "s", workers=1, keep={0, 5, 17})
    assert result.batched
    index = result.index.set_index("variant")
    statuses = []
    for i in range(len(variants)):
        try:
            single = _single(scenario, variants, i)
        except Exception as error:  # noqa: BLE001 — the single run refuses it: the batch records the same error
            assert index.loc[i, "status"] == "failed", i
            message = str(error).removeprefix(f"variant {i}: ")  # a refused file's name is not part of it
            assert index.loc[i, "error"] == f"{type(error).__name__}: {message}"
            statuses.append("failed")
            continue
        statuses.append("ok")
        assert index.loc[i, "status"] == "ok", index.loc[i, "error"]
        for figure in single.summary:
            if figure.key not in MACHINE:
                expected = np.nan if figure.value is None else figure.value
                assert np.array_equal(index.loc[i, figure.key], expected, equal_nan=True), (i, figure.key)
        if i in (0, 5, 17):
            table, units = read_table(tmp_path / "s" / SERIES / f"{i:07d}.parquet")
            pd.testing.assert_frame_equal(table, as_dataframe(single.table).reset_index(drop=True), check_exact=True)
            assert units == single.units
    if name == "arm-relief":  # the sample reaches the failures: a mass below 0, an unstable stiffness
        assert statuses.count("failed") >= 2 and statuses.count("ok") >= 12
    assert sorted(p.name for p in (tmp_path / "s" / SERIES).iterdir()) == [
        f"{i:07d}.parquet" for i in (0, 5, 17) if statuses[i] == "ok"
    ]


def test_envelopes_are_the_quantiles_of_the_variants_series(tmp_path, monkeypatch):
    scenario = _short(load_scenario("arm-relief"), 2.0)
    variants = sample_variants(
        scenario, ["inputs.bleed=uniform(0.1, 0.5)", "arm.mass=uniform(1500 kg, 2500 kg)"], 120, seed=2
    )
    one = run_sweep(scenario, variants, tmp_path / "one", workers=1)  # 120 // 4 = 30 per batch: four batches
    assert len(list((tmp_path / "one" / BATCHES).glob("*.envelope.parquet"))) == 4
    t = scenario.simulation.times()
    at = np.unique(np.linspace(0, t.size - 1, ENVELOPE_POINTS).round().astype(int))
    theta = np.array([_single(scenario, variants, i).table["theta"][at] for i in range(len(variants))])
    envelopes = one.envelopes
    assert np.array_equal(envelopes["t"].to_numpy(), t[at])
    tolerance = 0.005 + 1 / (30 - 1)  # half a sketch step, and one variant of a batch (the bound the module gives)
    for suffix, rank in LEVELS.items():  # the mixture of four batches' sketches against the pooled series
        reached = (theta <= envelopes[f"theta_{suffix}"].to_numpy()[None] + 1e-12).mean(axis=0)
        below = (theta < envelopes[f"theta_{suffix}"].to_numpy()[None] - 1e-12).mean(axis=0)
        assert np.all(reached >= RANKS[rank] - tolerance) and np.all(below <= RANKS[rank] + tolerance), suffix
    monkeypatch.setattr(sweep, "batch_size", lambda variants, slots, batched=False: variants)
    single = run_sweep(scenario, variants[:30], tmp_path / "single", workers=1)  # one batch: exact quantiles
    assert len(list((tmp_path / "single" / BATCHES).glob("*.envelope.parquet"))) == 1
    for suffix, rank in LEVELS.items():
        assert np.array_equal(
            single.envelopes[f"theta_{suffix}"].to_numpy(), np.quantile(theta[:30], RANKS[rank], axis=0)
        )
    assert pq.read_table(tmp_path / "one" / "envelopes.parquet").schema.field("theta_q50").metadata[b"unit"] == b"rad"


def test_a_single_sketch_gives_exact_quantiles_and_merged_sketches_stay_within_half_a_step():
    rng = np.random.default_rng(1)
    data = rng.lognormal(size=(2000, 50)) * rng.uniform(0.5, 2.0, 50)
    levels = RANKS[list(LEVELS.values())]
    exact = np.quantile(data, levels, axis=0)
    assert np.array_equal(mixture_quantiles(sketch(data)[None], [2000], levels), exact)
    parts = np.split(data, [150, 900, 1000])
    merged = mixture_quantiles(np.array([sketch(p) for p in parts]), [len(p) for p in parts], levels)
    ranks = (data[None] <= merged[:, None]).mean(axis=1)
    assert np.abs(ranks - levels[:, None]).max() <= 0.005 + 1 / (100 - 1)  # the smallest batch has 100


def _reference_and_columns(scenario, variants, out: Path):
    reference = run_sweep(scenario, variants, out, workers=1, report=False).index
    return reference, [c for c in reference.columns if c not in MACHINE]


def _exactly_once(out: Path, count: int) -> None:
    ids = np.concatenate(
        [
            pq.read_table(p, columns=["variant"])["variant"].to_numpy()
            for p in (out / BATCHES).glob("*.parquet")
            if not p.name.endswith(".envelope.parquet")
        ]
    )
    assert sorted(ids) == list(range(count))  # every variant in one batch file, once
    assert not list(out.rglob(".*.tmp*"))


KILL_BEFORE_RENAME = """
import os, signal, sys
from pathlib import Path
replace, doomed = os.replace, sys.argv[1]
def replace_or_die(source, target):  # the sweep is killed between a batch table's write and its rename
    if Path(target).name == doomed:
        os.killpg(0, signal.SIGKILL)
    replace(source, target)
os.replace = replace_or_die  # inherited by the forked local workers
sys.argv = ["actuatorlab", *sys.argv[2:]]
from actuatorlab.cli import main
main()
"""


def test_a_kill_between_a_batch_files_temporary_write_and_its_rename_resumes_exactly(tmp_path):
    scenario = _short(load_scenario("arm-relief"), 1.0)
    specs = [
        "inputs.bleed=uniform(0.1, 0.5)",
        "arm.mass=uniform(1500 kg, 2500 kg)",
        "circuit.pump_flow=uniform(300 L/min, 600 L/min)",
    ]
    variants = sample_variants(scenario, specs, 200, seed=5)
    reference, columns = _reference_and_columns(scenario, variants, tmp_path / "reference")
    toml = tmp_path / "short.toml"
    toml.write_text(scenario_to_toml(scenario))
    out = tmp_path / "s"
    args = [
        "sweep",
        str(toml),
        "--samples",
        "200",
        "--seed",
        "5",
        *[a for spec in specs for a in ("--vary", spec)],
        "--workers",
        "2",
        "--out",
        str(out),
        "--quiet",
    ]  # 200 // (4 * 2) = 25 variants per batch
    killed = subprocess.run(
        [sys.executable, "-c", KILL_BEFORE_RENAME, "0000100.parquet", *args],
        start_new_session=True,
        capture_output=True,
        timeout=300,
    )
    assert killed.returncode == -signal.SIGKILL
    assert list((out / BATCHES).glob(".0000100-*.tmp.parquet"))  # written, not renamed
    assert (out / BATCHES / "0000100.envelope.parquet").exists() and not (out / BATCHES / "0000100.parquet").exists()
    resumed = subprocess.run([str(BIN / "actuatorlab"), *args, "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    _exactly_once(out, 200)
    index = pd.read_parquet(out / "index.parquet")
    pd.testing.assert_frame_equal(index[columns], reference[columns], check_exact=True)


def test_a_sweep_killed_while_batches_are_written_resumes_with_every_variant_once(tmp_path):
    scenario = load_scenario("arm-relief")
    specs = [
        "inputs.bleed=uniform(0.1, 0.5)",
        "arm.mass=uniform(1500 kg, 2500 kg)",
        "relaxation.damping=uniform(2e6 N s/m, 3e6 N s/m)",
    ]
    total = 3000
    out = tmp_path / "s"
    args = [
        str(BIN / "actuatorlab"),
        "sweep",
        "arm-relief",
        "--samples",
        str(total),
        "--seed",
        "3",
        *[a for spec in specs for a in ("--vary", spec)],
        "--workers",
        "2",
        "--keep-series",
        "2",
        "--out",
        str(out),
        "--quiet",
    ]
    proc = subprocess.Popen(args, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and not [p for p in (out / BATCHES).glob("*.parquet") if p.name[0] != "."]:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)  # the command and its workers, as the first batch's first file lands
    proc.wait()
    complete = [p for p in (out / BATCHES).glob("*.parquet") if not p.name.endswith(".envelope.parquet")]
    assert len(complete) < 8  # killed in the middle: 8 batches of 375 on two workers
    resumed = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    _exactly_once(out, total)
    index = pd.read_parquet(out / "index.parquet")
    variants = sample_variants(scenario, specs, total, seed=3)
    reference, columns = _reference_and_columns(scenario, variants, tmp_path / "reference")
    pd.testing.assert_frame_equal(index[columns], reference[columns], check_exact=True)
    assert sorted(p.name for p in (out / SERIES).iterdir()) == ["0000000.parquet", "0000001.parquet"]


def test_a_batched_sweep_on_a_full_disk_is_one_line_and_resumes(tmp_path):
    """Issue 28: under a file-size limit (as on a full disk) a batch's write raised in its worker
    and the command ended in an OSError traceback."""
    out = tmp_path / "s"
    args = [
        "sweep",
        "arm-relief",
        "--samples",
        "16",
        "--vary",
        "arm.mass=uniform(1800 kg, 2200 kg)",
        "--workers",
        "2",
        "--out",
        str(out),
        "--quiet",
    ]
    full = run_with_file_limit(10_000, *args)  # a batch's sketch (about 15 kB) cannot be written
    line = one_error_line(full.stderr)
    assert full.returncode == 2
    assert "16 of 16 variants did not finish for reasons outside the scenario: 16 by OSError: [Errno 27]" in line, line
    assert "run the same command with --resume" in line and (out / "sweep.json").exists()
    assert not [p for p in (out / BATCHES).iterdir() if not p.name.endswith(".envelope.parquet")]  # none complete
    resumed = subprocess.run([str(BIN / "actuatorlab"), *args, "--resume"], capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    _exactly_once(out, 16)
    assert (pd.read_parquet(out / "index.parquet")["status"] == "ok").all()


OUT_OF_MEMORY_WITH_VARIANT_7 = """
import sys
from actuatorlab.scenarios.kinds import arm_batch
batch = arm_batch.run_batch
def out_of_memory_with_variant_7(scenario, part, keep, points):
    if 7 in part.ids:
        raise MemoryError
    return batch(scenario, part, keep, points)
arm_batch.run_batch = out_of_memory_with_variant_7  # inherited by the forked local workers
sys.argv = ["actuatorlab", *sys.argv[1:]]
from actuatorlab.cli import main
main()
"""


def test_a_batch_out_of_memory_is_run_again_by_resume_not_recorded_failed(tmp_path):
    """Issue 28: a MemoryError in a batch failed its variants for good; now the batch is left
    for --resume, the other batches finish, and the sweep says how many variants it stopped.
    The failing sweep runs in a process of its own: a patch made here would not reach workers
    that Dask spawns when this process has threads."""
    scenario = _short(load_scenario("arm-relief"), 0.5)
    toml = tmp_path / "short.toml"
    toml.write_text(scenario_to_toml(scenario))
    out = tmp_path / "s"
    args = [
        "sweep",
        str(toml),
        "--samples",
        "40",
        "--seed",
        "2",
        "--vary",
        "arm.mass=uniform(1800 kg, 2200 kg)",
        "--workers",
        "2",
        "--out",
        str(out),
        "--quiet",
    ]  # 8 batches of 5
    failed = subprocess.run(
        [sys.executable, "-c", OUT_OF_MEMORY_WITH_VARIANT_7, *args], capture_output=True, text=True, timeout=300
    )
    assert failed.returncode == 2
    assert one_error_line(failed.stderr).startswith(
        "error: 5 of 40 variants did not finish for reasons outside the scenario: "
        "5 by MemoryError (out of memory? use fewer --workers)"
    ), failed.stderr
    told = [a for a in args if a != "--quiet"]
    resumed = subprocess.run([str(BIN / "actuatorlab"), *told, "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "40 variants: 5 run, 35 already complete, 0 failed" in resumed.stdout, resumed.stdout
    _exactly_once(out, 40)
    assert (pd.read_parquet(out / "index.parquet")["status"] == "ok").all()

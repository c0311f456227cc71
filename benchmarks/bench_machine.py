"""Speed of the ``machine`` kind, and the constant-pressure cylinder against the Exudyn peer.

1. ``crane-pick-place`` (three quasistatic cylinders on one pump under closed-loop stroke control,
   h = 1 ms, 13 s; also with one pump per cylinder and on a constant-pressure supply) and
   ``excavator-dig`` (three cylinders on one pump, open loop, 12 s): the
   compiled loop's wall time (median of 5 after a warm-up) and real-time factor (target ≥ 100 ×),
   and MuJoCo's own ``mj_step`` on the same compiled model for the same number of steps
   (``mj_step(m, d, nstep)``, no Python per step; median of 5, interleaved with ours so that the
   shared machine's load hits both alike): the cost beyond it, loop / mj_step − 1 (target ≤ 25 %).
2. The whole command ``actuatorlab run crane-pick-place --quiet`` in a new process with a warm
   numba cache, report and figures included (median of 3; target ≤ 3 s).
3. The peers' one-arm mechanism (``../shared/peers``: 36 MPa supply, valve u = 0.5 from 3 to
   6 s) as a ``machine`` scenario with the constant-pressure pressure-dynamics cylinder at
   h = 1 ms, sample by sample on the peers' 10 ms grid against Exudyn 1.13.6
   (HydraulicActuatorSimple, generalized-α, ρ∞ = 0.5, h = 1 ms: the peer script itself) and both
   against SciPy's Radau at rtol 1e-10 on the same equations (the peers' reference). Exudyn is
   the optional ``bench`` extra (``pip install .[bench]``); without it the comparison is made
   against the Radau reference alone and says so.

Run: .venv/bin/python benchmarks/bench_machine.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mujoco
import numpy as np

from actuatorlab.scenarios.kinds import machine as machine_kind
from actuatorlab.scenarios.loading import load_scenario, parse_scenario

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from machine_models import write_peer_arm  # noqa: E402 (the peer arm's files, shared with the tests)

PEERS = next(
    (
        folder / "shared" / "peers"
        for folder in Path(__file__).resolve().parents
        if (folder / "shared" / "peers").is_dir()
    ),
    Path("shared/peers"),
)
"""The peers' folder: ``shared/peers`` beside the project (the nearest one up the tree)."""
REALTIME_TARGET, OVERHEAD_TARGET, COMMAND_TARGET = 100.0, 0.25, 3.0


def _mj_step_time(model: mujoco.MjModel, qpos: np.ndarray, n: int) -> float:
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    t0 = time.perf_counter()
    mujoco.mj_step(model, data, nstep=n)
    return time.perf_counter() - t0


def machine_speed(name: str, repeats: int = 5, label: str = "", **circuit) -> dict[str, float]:
    """Loop and mj_step times of built-in ``name``, its first circuit changed by ``circuit``."""
    data = load_scenario(name).model_dump()
    data["circuits"][0].update(circuit)
    system, kwargs, _, _ = machine_kind.build(parse_scenario(data))
    system.simulate(**kwargs)  # warm-up: the numba cache
    ours, theirs = [], []
    for _ in range(repeats):
        result = system.simulate(**kwargs)
        ours.append(result.counters["loop_time_s"])
        theirs.append(_mj_step_time(system.model, kwargs["qpos"], result.t.size))
    loop, step = statistics.median(ours), statistics.median(theirs)
    duration = result.t[-1] + system.timestep
    figures = {
        "loop_s": loop,
        "mj_step_s": step,
        "realtime_factor": duration / loop,
        "overhead": loop / step - 1.0,
        "us_per_step": loop / result.t.size * 1e6,
        "mj_step_us": step / result.t.size * 1e6,
    }
    print(
        f"{name}{label}: {len(system.actuators)} cylinders, h = {system.timestep * 1e3:g} ms, {duration:.1f} s: loop "
        f"{loop * 1e3:.1f} ms ({figures['us_per_step']:.2f} us/step) -> {figures['realtime_factor']:.0f} x real "
        f"time (target >= {REALTIME_TARGET:g}); MuJoCo's mj_step alone {step * 1e3:.1f} ms "
        f"({figures['mj_step_us']:.2f} us/step): cost beyond it {figures['overhead'] * 100:.0f} % "
        f"(target <= {OVERHEAD_TARGET * 100:.0f} %)"
    )
    return figures


def whole_command(repeats: int = 3) -> float:
    src = Path(__file__).resolve().parents[1] / "src"
    code = "import sys; from actuatorlab.cli import main; sys.argv[0] = 'actuatorlab'; main()"
    env = {**os.environ, "PYTHONPATH": str(src)}
    walls = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(repeats + 1):  # the first fills the cache
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-c", code, "run", "crane-pick-place", "--out", f"{folder}/out", "--quiet"],
                check=True,
                env=env,
            )
            walls.append(time.perf_counter() - t0)
    wall = statistics.median(walls[1:])
    print(
        f"actuatorlab run crane-pick-place --quiet (warm cache, report included): {wall:.2f} s "
        f"(median of {repeats}; target <= {COMMAND_TARGET:g} s)"
    )
    return wall


def _ours_on_the_peer_arm(P, folder: Path, h: float):
    system, kwargs, _, _ = machine_kind.build(load_scenario(write_peer_arm(folder, P, h)))
    system.simulate(**kwargs)
    runs = [system.simulate(**kwargs) for _ in range(3)]
    return runs[-1], statistics.median(r.counters["loop_time_s"] for r in runs)


def exudyn_comparison() -> dict[str, float]:
    if not (PEERS / "arm_params.py").exists():
        print(f"peers not found at {PEERS}; skipping the Exudyn comparison")
        return {}
    sys.path.insert(0, str(PEERS))
    import arm_params as P  # noqa: PLC0415 (the peers live outside the project)
    import scipy_pressure_arm as scipy_peer  # noqa: PLC0415

    grid = np.round(np.arange(0.0, P.T_END + 1e-9, 0.01), 10)
    reference = scipy_peer.simulate("Radau", rtol=1e-10, atol=np.array([1e-12, 1e-12, 1e-3, 1e-3]), dense_grid=grid)
    theta_ref, prod_ref = reference["y"][0], reference["y"][3]
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        for h in (1e-3, 1e-4):
            ours, loop = _ours_on_the_peer_arm(P, Path(folder), h)
            k = np.round(grid / h).astype(int)
            # a pressure channel at t_k holds the end of step k (the backward-Euler value whose force acts over
            # the step), one step ahead of the joint angle at t_k: p(t_k) is the sample before
            theta, prod = ours["qpos_0"][k], ours["cylinder.rod_pressure"][np.maximum(k - 1, 0)]
            out[f"ours_{h:g}_loop_s"] = loop
            out[f"ours_{h:g}_vs_ref_deg"] = float(np.degrees(np.max(np.abs(theta - theta_ref))))
            out[f"ours_{h:g}_vs_ref_MPa"] = float(np.max(np.abs(prod - prod_ref)) / 1e6)
            worst = grid[np.argmax(np.abs(prod - prod_ref))]
            print(
                f"peer arm, ours (constant-pressure pressure-dynamics cylinder in MuJoCo), h = {h:g} s: loop "
                f"{loop * 1e3:.1f} ms; vs Radau max |dtheta| {out[f'ours_{h:g}_vs_ref_deg']:.4f} deg, "
                f"max |dp_rod| {out[f'ours_{h:g}_vs_ref_MPa']:.3f} MPa (at t = {worst:.2f} s)"
            )
            if h == 1e-3:
                ours_1ms = (theta, prod)
    try:
        saved = sys.argv
        sys.argv = ["exudyn_arm.py"]
        import exudyn_arm  # noqa: PLC0415 (parses its arguments on import)
    except ImportError:
        print(
            "exudyn is not installed (pip install .[bench]): the comparison above is against the Radau "
            "reference of the peers' equations only"
        )
        return out
    finally:
        sys.argv = saved
    exudyn_arm.solve_once(1e-3, P.T_END, "supply", False)  # warm-up
    runs = [exudyn_arm.solve_once(1e-3, P.T_END, "supply", False) for _ in range(3)]
    ex = runs[-1]
    ex_theta, ex_prod = np.interp(grid, ex["t"], ex["theta"]), np.interp(grid, ex["t"], ex["p1"])
    out["exudyn_solve_s"] = statistics.median(r["solve_s"] for r in runs)
    out["exudyn_vs_ref_deg"] = float(np.degrees(np.max(np.abs(ex_theta - theta_ref))))
    out["exudyn_vs_ref_MPa"] = float(np.max(np.abs(ex_prod - prod_ref)) / 1e6)
    out["ours_vs_exudyn_deg"] = float(np.degrees(np.max(np.abs(ours_1ms[0] - ex_theta))))
    out["ours_vs_exudyn_MPa"] = float(np.max(np.abs(ours_1ms[1] - ex_prod)) / 1e6)
    out["ours_vs_exudyn_worst_s"] = float(grid[np.argmax(np.abs(ours_1ms[1] - ex_prod))])
    settled = grid < P.T_CLOSE  # before the valve closes, the ringing that the two integrators damp differently
    out["ours_vs_exudyn_before_close_deg"] = float(np.degrees(np.max(np.abs(ours_1ms[0] - ex_theta)[settled])))
    out["ours_vs_exudyn_before_close_MPa"] = float(np.max(np.abs(ours_1ms[1] - ex_prod)[settled]) / 1e6)
    print(
        f"peer arm, Exudyn 1.13.6 at h = 1 ms: solve {out['exudyn_solve_s'] * 1e3:.1f} ms; vs Radau max |dtheta| "
        f"{out['exudyn_vs_ref_deg']:.4f} deg, max |dp_rod| {out['exudyn_vs_ref_MPa']:.3f} MPa"
    )
    print(
        f"ours vs Exudyn sample by sample (10 ms grid), both at 1 ms: max |dtheta| {out['ours_vs_exudyn_deg']:.4f} "
        f"deg, max |dp_rod| {out['ours_vs_exudyn_MPa']:.3f} MPa at t = {out['ours_vs_exudyn_worst_s']:.2f} s "
        f"(before the valve closes at 6 s: "
        f"{out['ours_vs_exudyn_before_close_deg']:.4f} deg, {out['ours_vs_exudyn_before_close_MPa']:.3f} MPa)"
    )
    return out


def main() -> dict[str, float]:
    figures = {}
    for name in ("crane-pick-place", "excavator-dig"):
        figures.update({f"{name}.{key}": value for key, value in machine_speed(name).items()})
    # the same crane with one pump per cylinder, and on a 21 MPa constant-pressure supply
    for label, circuit in (
        (" (own pumps)", dict(shared=False)),
        (" (constant 21 MPa)", dict(supply="constant-pressure", supply_pressure=21e6, open_centre=False)),
    ):
        figures.update(
            {
                f"crane{label}.{key}": value
                for key, value in machine_speed("crane-pick-place", label=label, **circuit).items()
            }
        )
    figures["command_s"] = whole_command()
    figures.update(exudyn_comparison())
    return figures


if __name__ == "__main__":
    main()

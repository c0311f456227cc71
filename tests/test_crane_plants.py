"""The crane's closed loop on its two plants: the native forward dynamics and MuJoCo
(``simulate_crane(plant=...)``). Same hydraulics, controller and 1 kHz loop; only the
integration of the rigid multibody with its closed loops differs."""

import numpy as np
import pytest

from actuatorlab.control.vdc import lab_crane_gains
from actuatorlab.errors import ParameterError, SimulationError
from actuatorlab.machines.lab_crane import lab_crane, lab_crane_hydraulics, lab_crane_initial_pose
from actuatorlab.simulation.crane import PLANTS, diamond_run, simulate_crane
from actuatorlab.simulation.crane_reference import diamond_waypoints, joint_reference

CRANE = lab_crane()
HYD = lab_crane_hydraulics()
GAINS = lab_crane_gains()

# Plant agreement on the first segment (start → A in 2 s, then 2 s holding A). Both plants
# integrate the same equations at 0.5 ms; measured on this segment, the tip paths differ by
# 2.4 µm with MuJoCo's RK4 and 85 µm with the first-order implicitfast (whose error halves
# with the step); over the full two-loop diamond the maxima are the same, 2.4 µm and 0.11 mm.
# The bounds are ~4× those figures: loose enough for platform round-off, tight enough that a
# wrong force application (sign, dof, missing friction: millimetres to metres) or MuJoCo's
# default soft loops (centimetres of sag) fail, and below the 0.8 mm the controller itself
# leaves on this segment.
TOLERANCE = {"rk4": 1e-5, "implicitfast": 3e-4}


@pytest.fixture(scope="module")
def first_segment():
    q0 = lab_crane_initial_pose()
    start, _ = CRANE.tool_pose(q0)
    waypoints = diamond_waypoints(start[:2], loops=1)[:2]
    reference = joint_reference(CRANE, np.vstack([waypoints, waypoints[-1:]]), 2.0, 1e-3, q0)
    return reference, simulate_crane(reference, CRANE, HYD, GAINS, substeps=2)


@pytest.mark.parametrize("integrator", ["rk4", "implicitfast"])
def test_mujoco_plant_tracks_first_segment_like_native(first_segment, integrator):
    reference, native = first_segment
    run = simulate_crane(
        reference,
        CRANE,
        HYD,
        GAINS,
        substeps=2,
        plant="mujoco",
        mujoco_integrator=integrator,
    )
    assert native.counters["plant"] == "native"
    assert run.counters["plant"] == "mujoco"
    assert run.counters["mujoco_timestep"] == pytest.approx(5e-4)
    assert run.counters["loop_violation_max"] < 1e-5  # loops stay closed (m)
    assert set(vars(run)) == set(vars(native))
    diff = np.linalg.norm(run.tip - native.tip, axis=1)
    assert diff.max() < TOLERANCE[integrator]
    # the MuJoCo plant's own tracking, as the native test asks of the native plant
    err = np.linalg.norm(run.tip - run.tip_ref, axis=1)
    assert err.max() < 5e-3 and err[-1] < 1e-3
    assert run.counters["saturated_fraction"] == 0.0
    assert 10e5 < min(run.p_a.min(), run.p_b.min())
    assert max(run.p_a.max(), run.p_b.max()) < 185e5
    np.testing.assert_allclose(run.p_a, native.p_a, rtol=0, atol=1e4)  # < 0.1 bar
    # strokes read back from MuJoCo's slide joints match the closure of the angles
    np.testing.assert_allclose(run.x, native.x, atol=TOLERANCE[integrator])
    np.testing.assert_allclose(run.x[:, 2], run.q[:, 2], atol=1e-12)


def test_unknown_plant_raises_naming_the_choices():
    assert PLANTS == ("native", "mujoco")
    q0 = lab_crane_initial_pose()
    reference = joint_reference(CRANE, np.vstack([CRANE.tool_pose(q0)[0][:2]] * 2), 0.1, 1e-3, q0)
    for call in (
        lambda: simulate_crane(reference, plant="bullet"),
        lambda: diamond_run(loops=1, segment_time=0.1, plant="Mujoco"),
    ):
        with pytest.raises(ParameterError, match="'native', 'mujoco'"):
            call()
    with pytest.raises(ParameterError, match="rk4"):
        simulate_crane(reference, plant="mujoco", mujoco_integrator="verlet")


def test_the_closed_loop_reports_progress_during_the_run_and_chunks_change_nothing(monkeypatch):
    """Issue 17: the progress bar was silent through the whole crane-abcd simulation. The native
    loop now returns to Python PROGRESS_CHUNKS times, carrying its state: bit-identical results."""
    import actuatorlab.simulation.crane as crane_module

    seen = []
    chunked = crane_module.diamond_run(loops=1, segment_time=1.0, progress=seen.append)
    assert len(seen) == crane_module.PROGRESS_CHUNKS and seen[-1] == 1.0 and seen == sorted(seen)
    monkeypatch.setattr(crane_module, "PROGRESS_CHUNKS", 1)
    whole = crane_module.diamond_run(loops=1, segment_time=1.0)
    for name in ("q", "p_a", "p_b", "f_pr", "u", "tip"):
        assert np.array_equal(getattr(chunked, name), getattr(whole, name)), name


def test_both_plants_stop_with_one_error_when_a_cylinder_leaves_its_stroke():
    """One closed loop, two plants: a supply too weak to hold the load lets the crane sink until
    a cylinder reaches its stroke end, and both plants stop there with the same message."""
    q0 = lab_crane_initial_pose()
    reference = joint_reference(CRANE, np.vstack([CRANE.tool_pose(q0)[0][:2]] * 2), 4.0, 1e-3, q0)
    weak = lab_crane_hydraulics(supply_pressure=20e5, return_pressure=1e5)
    for plant in PLANTS:
        with pytest.raises(
            SimulationError, match=rf"t = 2\.6\d\d s: the closed loop left the workspace.*\({plant} plant\)"
        ):
            simulate_crane(reference, CRANE, weak, GAINS, initial_pressures=([19e5] * 3, [2e5] * 3), plant=plant)

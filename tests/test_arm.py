"""The single-DOF arm of Kikuuwe et al. Sec. 4.3 with the relaxed quasistatic actuator."""

import math
import re

import numpy as np
import pytest

from actuatorlab.errors import SimulationError
from actuatorlab.hydraulics.quasistatic import Relaxation, ValveCircuit
from actuatorlab.hydraulics.quasistatic.circuit import Openings, normalised_openings
from actuatorlab.mechanics.single_arm import SingleArm
from actuatorlab.numerics.status import STATUS_CHATTER, STATUS_OK
from actuatorlab.simulation.arm import own_pump_loop, check_stability, simulate_arm
from actuatorlab.numerics.signals import Sine, time_grid

ARM = SingleArm()
CIRCUIT = ValveCircuit.paper_example()
FRM = CIRCUIT.rod_relief_force
RELAXATION = Relaxation()


def _run(load, duration=3.0, u_c=0.0, relaxation=RELAXATION, h=1e-3, theta0=0.0):
    t = time_grid(h, duration)
    f_ey = load(t) if callable(load) else np.full(t.size, float(load))
    return simulate_arm(ARM, CIRCUIT, relaxation, t, np.full(t.size, u_c), np.full(t.size, 0.3), f_ey, theta0)


def test_geometry_lever_arm_matches_finite_difference():
    theta = np.linspace(-0.6, 0.9, 7)
    length, lever = ARM.cylinder_length(theta)
    d = 1e-7
    fd = (ARM.cylinder_length(theta + d)[0] - ARM.cylinder_length(theta - d)[0]) / (2 * d)
    np.testing.assert_allclose(lever, fd, rtol=1e-7)
    assert ARM.cylinder_length(0.0)[1] == pytest.approx(-0.6)  # extension lowers the arm


def test_holds_under_closed_valves_in_static_equilibrium():
    """Closed valves, load inside the relief limits: the rod does not move and the force
    balances gravity and load through the lever arm (static (79))."""
    r = _run(lambda t: -20e3 + Sine(8e3, 1.5).sample(t), duration=3.0)
    assert np.all(r["rod_velocity"] == 0.0)
    assert np.ptp(r["rod_position"]) == 0.0
    assert np.max(np.abs(np.degrees(r["theta"]))) < 0.5  # only the elastic stretch of K
    assert np.max(np.abs(r["force"])) < FRM
    # constant load: after the start transient the force equals the static requirement
    r = _run(-20e3, duration=4.0)
    theta = r["theta"][-1]
    _, lever = ARM.cylinder_length(theta)
    static = (
        -(-ARM.mass * ARM.gravity * ARM.com_distance * math.cos(theta) + ARM.load_distance * math.cos(theta) * -20e3)
        / lever
    )
    assert r["force"][-1] == pytest.approx(static, rel=1e-3)
    # the compiled torque (79) vanishes at that equilibrium
    assert abs(ARM.torque(theta, static, -20e3)) < 1e-9 * ARM.mass * ARM.gravity * ARM.com_distance


def test_moves_once_the_rod_relief_opens():
    """A load beyond the relief limit opens the rod relief: f = −F_rM and the rod extends."""
    # static force at θ = 0 is (M g L_g − L_f f_ey)/(−L_m); relief at f_ey below about −86 kN
    r = _run(lambda t: np.interp(t, [0.0, 1.0, 3.0], [-20e3, -20e3, -120e3]), duration=3.0)
    opened = r["force"] <= -FRM * (1 - 1e-9)
    assert opened.any()
    k = np.argmax(opened)
    assert np.all(r["rod_velocity"][:k] == 0.0)
    assert r["rod_velocity"][-1] > 0.0 and r["theta"][-1] < r["theta"][k] - 0.01
    assert np.min(r["force"]) >= -FRM * (1 + 1e-9)
    assert np.max(np.abs(r["stretch"])) < 0.03  # |p − ℓ| below a few cm (Sec. 4.3)


def test_carried_geometry_matches_the_angle():
    """The loop rotates (cos, sin)(θ − α) by h·θ̇ instead of evaluating it: the recorded ℓ must
    still be ‖r_m(θ) − r_b‖ of the recorded θ (reference: ``SingleArm.cylinder_length``)."""
    r = _run(-20e3, duration=2.0, u_c=-0.3)
    assert np.ptp(r["theta"]) > 0.1
    np.testing.assert_allclose(r["length"], ARM.cylinder_length(r["theta"])[0], rtol=0, atol=1e-13)


def test_retract_command_raises_the_arm():
    r = _run(-20e3, duration=2.0, u_c=-0.3)
    assert r["theta"][-1] > math.radians(10) and np.all(r["rod_velocity"][200:] < 0)


def test_stability_bound_separates_stable_from_divergent_steps():
    """h²K/m + 2hB/m < 4 (module docstring): 0.95× the bound settles, 1.05× chatters (the
    reliefs keep the force finite, so the kernel must detect the oscillation itself)."""
    h = 1e-3
    limit = check_stability(ARM, Relaxation(5e7, 2.5e6), h)
    assert limit.stable
    t = time_grid(h, 2.0)
    uh = np.ascontiguousarray(normalised_openings(CIRCUIT, Openings.from_command(np.zeros(t.size), 0.3)))
    # the lightest effective mass is reached where the lever arm is the full L_m: θ = 0
    f_ey = np.full(t.size, -20e3)
    for factor, expect_ok in ((0.95, True), (1.05, False)):
        stiffness = factor * check_stability(ARM, Relaxation(1.0, 2.5e6), h).max_stiffness
        l0 = ARM.cylinder_length(0.0)[0]
        state = np.array([[0.0, 0.0, l0, l0, 0.0, 0.0, 0.0]])
        out = np.empty((7, 1, t.size))
        status, _, _ = own_pump_loop(
            CIRCUIT.kernel_array(),
            ARM.kernel_array(),
            uh,
            np.zeros(t.size),
            f_ey,
            stiffness,
            2.5e6,
            h,
            state,
            0,
            t.size,
            out,
        )
        assert status == (STATUS_OK if expect_ok else STATUS_CHATTER)


def test_regeneration_with_the_bleed_closed_names_the_remedy_and_the_sample():
    """Outside the regeneration model (Sec. 5): a clear stop at the first extending sample, with
    that sample's recorded state (the arm starts at rest at θ = 0, so |θ| is small there)."""
    t = time_grid(1e-3, 1.0)
    with pytest.raises(SimulationError, match=r"bleed closed.*open the bleed a little") as failure:
        simulate_arm(
            ARM,
            CIRCUIT,
            Relaxation(),
            t,
            np.full(t.size, 0.5),
            np.zeros(t.size),
            np.full(t.size, -20e3),
            regeneration=np.full(t.size, 0.5),
        )
    theta_deg = float(re.search(r"θ = (\S+) deg", str(failure.value)).group(1))
    assert abs(theta_deg) < 2.0


def test_unstable_relaxation_is_refused_with_a_suggested_stiffness():
    with pytest.raises(SimulationError, match=r"relaxation.stiffness = .* set stiffness below .*for example"):
        _run(-20e3, duration=0.1, relaxation=Relaxation(1e12, 2.5e6))


def test_damping_alone_past_the_bound_is_told_to_lower_the_damping():
    """Issue 17: a damping that breaks h²K/m + 2hB/m < 4 by itself was told "set stiffness below
    0 N/m"; the advice is a damping below 2m/h (m = J_pivot/L_m²), which leaves room for K."""
    m = ARM.pivot_inertia / ARM.mount_distance**2
    with pytest.raises(
        SimulationError, match=r"set damping below .* N s/m \(for example .* which allows stiffness"
    ) as e:
        _run(-20e3, duration=0.1, relaxation=Relaxation(5e7, 3.0 * m / 1e-3))
    assert "below 0 N/m" not in str(e.value)
    limit = float(re.search(r"set damping below (\S+) N s/m", str(e.value)).group(1))
    assert limit == pytest.approx(2.0 * m / 1e-3, rel=1e-3)

"""The pressure-dynamics model of the four-valve circuit and its quasistatic limit."""

import numpy as np
import pytest

from actuatorlab.errors import ParameterError, SimulationError
from actuatorlab.hydraulics.pressure_dynamics import PressureDynamics, raw_openings
from actuatorlab.hydraulics.quasistatic import Openings, ValveCircuit, lam
from actuatorlab.mechanics.single_arm import SingleArm
from actuatorlab.simulation.ode import jacobian_at, largest_stable_step
from actuatorlab.simulation.pressure_arm import (
    arms_pressure_jac,
    arms_pressure_rhs,
    simulate_arms_pressure,
)
from actuatorlab.simulation.pressure_rod import (
    rod_pressure_jac,
    rod_pressure_rhs,
    simulate_rod_pressure,
)
from actuatorlab.numerics.signals import time_grid

CIRCUIT = ValveCircuit.paper_example()
ARM = SingleArm()
SHARP = dict(relief_flow_gain=2e-6, check_flow_gain=1e-5, laminar_pressure=1e4)
"""Relief and check valves 40× and 10× sharper, laminar band 5× narrower than the defaults."""


def _finite_difference(rhs, args, t, y):
    jac = np.empty((y.size, y.size))
    for j in range(y.size):
        d = np.zeros(y.size)
        d[j] = 1e-7 * max(abs(y[j]), 1.0)
        up, down = np.empty(y.size), np.empty(y.size)
        rhs(t, y + d, up, *args)
        rhs(t, y - d, down, *args)
        jac[:, j] = (up - down) / (2 * d[j])
    return jac


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_analytic_jacobians_match_central_differences(seed):
    rng = np.random.default_rng(seed)
    fluid = PressureDynamics()
    u = rng.uniform(0, 1, (4, 2, 6))
    f_ey = rng.normal(0, 1e4, (4, 2))
    stack = lambda x: np.array([x.kernel_array()] * 2)  # noqa: E731
    args = (stack(CIRCUIT), stack(fluid), stack(ARM), u, f_ey, 1e-3)
    y = np.concatenate(
        [rng.uniform([-0.3, -0.5, 0.5e6, 0.5e6], [0.5, 0.5, 30e6, 30e6], (2, 4)).ravel(), [rng.uniform(1e6, 35e6)]]
    )
    t = 1.7e-3
    fd = _finite_difference(arms_pressure_rhs, args, t, y)
    np.testing.assert_allclose(jacobian_at(arms_pressure_jac, args, t, y), fd, atol=1e-6 * np.abs(fd).max())
    args = (CIRCUIT.kernel_array(), fluid.kernel_array(), 300.0, 1e4, u[:, 0], f_ey[:, 0], 1e-3)
    y = np.concatenate([[0.4, 0.2], y[2:4], y[-1:]])
    fd = _finite_difference(rod_pressure_rhs, args, t, y)
    np.testing.assert_allclose(jacobian_at(rod_pressure_jac, args, t, y), fd, atol=1e-6 * np.abs(fd).max())


OPERATING_POINTS = [
    # (u_c, u_b, load F [N], branch of Γ (Table 1 of the paper) the steady state lies on)
    (0.5, 0.2, 2.0e5, "extend, pump-fed, meter-out"),
    (0.5, 0.2, -3.0e5, "extend, bleed-limited"),
    (0.5, 0.2, 7.0e5, "extend, pump relief"),
    (0.5, 0.2, -6.0e5, "extend, pulled: head cavitates"),
    (0.5, 0.2, 1.1e6, "extend command, head relief opens"),
    (-0.5, 0.2, -3.0e5, "retract, pump-fed"),
    (-0.5, 0.2, 2.0e5, "retract, loaded"),
    (-0.5, 0.2, -6.0e5, "retract command, rod relief opens"),
    (-0.5, 0.2, 8.0e5, "retract, pushed: rod cavitates"),
    (0.0, 0.3, -5.5e5, "valves closed, rod relief"),
]


@pytest.mark.parametrize("u_c, u_b, load, branch", OPERATING_POINTS)
def test_quasistatic_map_is_the_stiff_limit(u_c, u_b, load, branch):
    """Constant openings and load F + b·v on a 200 kg rod: the velocity after 0.3 s approaches
    the v with F + b v ∈ Γ(v) (Λ(b, F), Kikuuwe et al. (69)) as the bulk modulus grows. The
    remaining error at 1e10 Pa is that of the regularised valves (SHARP)."""
    damping = 2.0e5
    openings = Openings.from_command(u_c, u_b)
    expected = float(lam(CIRCUIT, openings, damping, load))
    t = time_grid(1e-3, 0.3)
    u = raw_openings(openings.u_ph, openings.u_tr, openings.u_pr, openings.u_th, openings.u_b).repeat(t.size, 0)
    errors = []
    for bulk in (1e7, 1e8, 1e10):
        fluid = PressureDynamics(bulk_modulus=bulk, stroke=1.0, **SHARP)
        r = simulate_rod_pressure(CIRCUIT, fluid, 200.0, t, u, np.full(t.size, load), damping, initial_position=0.5)
        errors.append(abs(r["velocity"][-1] - expected))
    assert errors[-1] <= 0.004 * abs(expected) + 1e-4, (branch, expected, errors)
    assert errors[-1] <= errors[0] + 1e-6, (branch, errors)


def _arm_run(duration=2.0, u_c=0.0, solver="LSODA", step=1e-3, fluid=None, load=-20e3):
    fluid = fluid or PressureDynamics()
    t = time_grid(step, duration)
    extend, retract = max(u_c, 0.0), max(-u_c, 0.0)
    u = raw_openings(extend, extend, retract, retract, 0.3).repeat(t.size, 0)[:, None, :]
    f_ey = np.full((t.size, 1), load)
    return simulate_arms_pressure([ARM], [CIRCUIT], [fluid], t, u, f_ey, [0.0], [0.0], solver=solver)[0]


def test_held_arm_does_not_move_at_start():
    """Initial pressures balance gravity and load (static (79)), so closed valves hold the arm."""
    r = _arm_run()
    assert np.max(np.abs(r["theta"])) < 1e-6
    assert r["head_pressure"][0] == pytest.approx(2.0e6)


def test_solvers_agree_and_pressures_stay_physical():
    """Raising the arm for 1 s: LSODA and Radau at rtol 1e-6 agree; the suction check valves
    keep every pressure above −0.1 MPa gauge (not below vacuum)."""
    a = _arm_run(1.0, u_c=-0.3, solver="LSODA")
    b = _arm_run(1.0, u_c=-0.3, solver="Radau")
    np.testing.assert_allclose(a["theta"], b["theta"], atol=1e-4)
    for name in ("head_pressure", "rod_pressure", "pump_pressure"):
        assert a[name].min() > -0.1e6


def test_oversized_rk4_step_names_the_largest_stable_step():
    with pytest.raises(SimulationError, match=r"largest stable step along the run .* is [0-9.e-]+ s") as info:
        _arm_run(0.5, u_c=-0.3, solver="RK4", step=1e-3)
    limit = float(info.value.args[0].split(" is ")[1].split(" s")[0])
    assert 0 < limit < 1e-3
    r = _arm_run(0.05, u_c=-0.3, solver="RK4", step=0.5 * limit)
    assert np.all(np.isfinite(r["theta"]))


def test_a_divergence_the_linearisation_allows_is_not_told_a_larger_step():
    """Issue 17: a run that diverged at h = 0.01 s was told "largest stable step 0.0255 s: set
    the step below it". When no linearisation along the run limits the step, a valve that opened
    within the step is the cause, and the advice is an adaptive solver, never a step above h."""
    with pytest.raises(SimulationError) as info:
        _arm_run(0.5, u_c=-0.3, solver="RK4", step=1e-2)
    message = info.value.args[0]
    if "set the step below" in message:
        assert float(message.split(" is ")[1].split(" s")[0]) < 1e-2
    else:
        assert "a valve that switched within the step" in message and "LSODA" in message


def test_largest_stable_step_of_a_decaying_mode():
    """RK4 on ẏ = λy is stable up to h|λ| = 2.785 (the real-axis end of its stability region)."""
    assert largest_stable_step(np.array([[-1000.0]])) == pytest.approx(2.785293563e-3, rel=1e-6)


def test_piston_leaving_the_stroke_is_an_error():
    with pytest.raises(SimulationError, match=r"the cylinder of the arm left its travel \[1.45, 1.49\] m at t = "):
        _arm_run(0.2, fluid=PressureDynamics(retracted_length=1.45, stroke=0.04))


def test_bad_fluid_parameters_are_rejected():
    with pytest.raises(ParameterError, match="pressure_dynamics.bulk_modulus"):
        PressureDynamics(bulk_modulus=0.0)

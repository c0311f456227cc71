"""EMLA models of Bahari et al. (spec 004): transforms (1)–(2), PMSM (3)–(4), transmission (5),
reflected parameters and series stiffness (15)–(16), losses (12), efficiency (13), the numerical
linearisation replacing (17)–(20), the Table I catalogue and input errors (spec 5 items 1–5)."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actuatorlab.electromech import (
    EMLA,
    PMSM,
    Gearbox,
    Inverter,
    Screw,
    actuation_efficiency,
    actuator_efficiency,
    actuator_power,
    efficiency_map,
    feasibility,
    linearise,
    load_actuators,
    operating_point_records,
    series_stiffness,
)
from actuatorlab.electromech.catalog import emla_from_table
from actuatorlab.electromech.efficiency import (
    LIMIT_VOLTAGE,
    N_OP,
    O_ID,
    O_IQ,
    O_PCO,
    O_PCU,
    O_PD,
    O_PIN,
    O_PMECH,
    O_POUT,
    O_PSC,
    O_PSW,
    O_TAU,
    O_VD,
    O_VQ,
    O_WM,
    operating_point,
)
from actuatorlab.electromech.emla import X_ID, X_IQ, X_TH, X_VL, X_W, X_XL
from actuatorlab.electromech.screw import force_to_torque, velocity_to_speed
from actuatorlab.electromech.transforms import (
    clarke,
    electrical_angle,
    inverse_clarke,
    inverse_park,
    park,
)
from actuatorlab.errors import ParameterError

ACTS = load_actuators()
RNG = np.random.default_rng(4)


def lossless() -> EMLA:
    """Every loss term zero: η must be 1 when motoring (spec 5 item 5)."""
    motor = PMSM(
        pole_pairs=4,
        resistance=0.0,
        inductance_d=5e-3,
        inductance_q=5e-3,
        flux_linkage=0.2,
        inertia=2e-3,
        max_current=50.0,
        max_speed=500.0,
    )
    screw = Screw(
        lead=0.01, stroke=0.5, max_force=50e3, max_speed=1.0, efficiency=1.0, back_efficiency=1.0, k_screw=3e8
    )
    inv = Inverter(v_ce0=0.0, r_ce=0.0, v_f0=0.0, r_f=0.0, switching_energy=0.0)
    return EMLA(motor, screw, inverter=inv, name="lossless")


# ---------------------------------------------------------------------------------------------
# transforms (1)–(2)
# ---------------------------------------------------------------------------------------------
def test_park_of_balanced_set_is_constant():
    """Spec 5 item 1: V_abc = V_m cos(θ_k + φ) → V_d = V_m cos φ, V_q = V_m sin φ, V_0 = 0
    (V_m = 300 V, φ = 0.3 as verified in the spec)."""
    th = np.linspace(0.0, 4 * np.pi, 37)
    vm, phi = 300.0, 0.3
    abc = np.stack(
        [vm * np.cos(th + phi), vm * np.cos(th - 2 * np.pi / 3 + phi), vm * np.cos(th + 2 * np.pi / 3 + phi)]
    )
    d, q, z = park(abc, th)
    np.testing.assert_allclose(d, vm * np.cos(phi), atol=1e-9)
    np.testing.assert_allclose(q, vm * np.sin(phi), atol=1e-9)
    np.testing.assert_allclose(z, 0.0, atol=1e-9)


def test_transform_round_trips_and_power():
    abc = RNG.normal(size=(3, 20))
    th = RNG.uniform(-10, 10, size=20)
    np.testing.assert_allclose(inverse_park(park(abc, th), th), abc, atol=1e-12)
    np.testing.assert_allclose(inverse_clarke(clarke(abc)), abc, atol=1e-12)
    # Park = rotation of Clarke by −θ_e
    al, be, _ = clarke(abc)
    d, q, _ = park(abc, th)
    np.testing.assert_allclose(d, al * np.cos(th) + be * np.sin(th), atol=1e-12)
    np.testing.assert_allclose(q, -al * np.sin(th) + be * np.cos(th), atol=1e-12)
    # amplitude-invariant: p = v_a i_a + v_b i_b + v_c i_c = 3/2 (v_d i_d + v_q i_q) + 3 v_0 i_0
    iabc = RNG.normal(size=(3, 20))
    vd, vq, v0 = park(abc, th)
    i_d, i_q, i0 = park(iabc, th)
    np.testing.assert_allclose((abc * iabc).sum(0), 1.5 * (vd * i_d + vq * i_q) + 3 * v0 * i0, atol=1e-12)


def test_electrical_angle_uses_pole_pairs():
    """Spec 6.2 item 5: the Park angle is p θ_m; with θ_m the dq values of a p-pole-pair machine
    would rotate."""
    theta_m = np.linspace(0, 1, 5)
    np.testing.assert_allclose(electrical_angle(theta_m, 4), 4 * theta_m)


# ---------------------------------------------------------------------------------------------
# PMSM (3)–(4), transmission (5), (15)–(16)
# ---------------------------------------------------------------------------------------------
def test_torque_equation():
    """Spec 5 item 2: τ = 1.5 p Ψ i_q at i_d = 0; the reluctance term vanishes for L_d = L_q."""
    m = ACTS["lift"].motor
    iq = np.linspace(-50, 50, 11)
    np.testing.assert_allclose(m.torque(0.0, iq), 1.5 * 4 * m.flux_linkage * iq, rtol=1e-14)
    np.testing.assert_allclose(m.torque(7.0, iq), m.torque(0.0, iq), rtol=1e-14)
    ipm = dataclasses.replace(m, inductance_d=4e-3, inductance_q=7e-3)
    np.testing.assert_allclose(ipm.torque(-5.0, 10.0), 1.5 * 4 * 10.0 * (m.flux_linkage + (4e-3 - 7e-3) * -5.0))


def test_pmsm_power_balance_in_steady_state():
    """(3)–(4): (3/2)(v_d i_d + v_q i_q) = (3/2) R |i|² + τ ω at constant currents (any L_d, L_q)."""
    m = dataclasses.replace(ACTS["tilt"].motor, inductance_d=4e-3, inductance_q=7e-3)
    i_d, i_q, w = RNG.normal(size=10), RNG.normal(scale=20, size=10), RNG.normal(scale=300, size=10)
    vd, vq = m.voltages(i_d, i_q, w)
    np.testing.assert_allclose(
        1.5 * (vd * i_d + vq * i_q),
        1.5 * m.resistance * (i_d**2 + i_q**2) + m.torque(i_d, i_q) * w,
        rtol=1e-12,
        atol=1e-9,
    )


@pytest.mark.parametrize("lead,ratio", [(0.005, 1.0), (0.01, 3.5), (0.0254, 0.7)])
def test_transmission_conserves_power(lead, ratio):
    """Spec 5 item 3: τ_m ω_m = f_x v_x for any ρ, n (5)."""
    for f, v in RNG.normal(scale=(1e4, 0.3), size=(20, 2)):
        tau, w = force_to_torque(f, lead, ratio), velocity_to_speed(v, lead, ratio)
        assert tau * w == pytest.approx(f * v, rel=1e-12)
        assert tau == pytest.approx(lead / (2 * math.pi * ratio) * f)


def test_reflected_parameters_and_series_stiffness():
    """Spec 5 item 4: f_eq = ρ/(2πn); J_eq → J_m + J_c when J_GB = M_BS = M_L = 0 (M_L → 0 here);
    k_L is the series combination, ≤ min of its parts."""
    a = ACTS["extension"]
    assert a.force_factor == pytest.approx(a.lead / (2 * math.pi * a.gear_ratio))
    s = a.screw
    ks = [s.k_bearing, s.k_screw, s.k_nut, s.k_tube]
    assert s.stiffness == pytest.approx(1.0 / sum(1.0 / k for k in ks))
    assert s.stiffness <= min(ks)
    assert series_stiffness(2.0, 2.0) == pytest.approx(1.0)
    assert series_stiffness(5.0, math.inf) == 5.0
    bare = EMLA(
        a.motor,
        dataclasses.replace(s, mass=0.0, inertia=0.0),
        Gearbox(ratio=2.0),
        coupling_inertia=1e-4,
        load_mass=1e-12,
    )
    assert bare.equivalent_inertia == pytest.approx(a.motor.inertia + 1e-4, rel=1e-9)
    # printed k_eq is a motor-side compliance; k_s is its load-side stiffness
    g = Gearbox(ratio=2.0, stiffness=4e3)
    b = EMLA(a.motor, s, g, coupling_stiffness=1e4)
    n, feq = 2.0, s.lead / (4 * math.pi)
    keq = 1 / 1e4 + n**2 / 4e3 + (2 * math.pi * n / s.lead) ** 2 / s.stiffness
    assert b.equivalent_compliance == pytest.approx(keq)
    assert b.stiffness == pytest.approx(1 / (feq**2 * keq))


def test_nonlinear_model_rests_at_its_equilibrium():
    """(3), (4), (14): holding a load f_L with i_q = f_eq f_L / k_t, v_q = R i_q, spring deflected
    by f_L/k_s gives ẋ = 0."""
    a = ACTS["lift"]
    f_l = 2e4
    iq = a.force_factor * f_l / a.motor.torque_constant
    x = np.zeros(6)
    x[X_TH] = 0.1 / a.force_factor
    x[X_IQ] = iq
    x[X_XL] = 0.1 - f_l / a.stiffness
    dx = a.derivatives(x, [a.motor.resistance * iq, 0.0], f_l)
    np.testing.assert_allclose(dx, 0.0, atol=1e-7)


# ---------------------------------------------------------------------------------------------
# linearisation (replaces the printed (17)–(20))
# ---------------------------------------------------------------------------------------------
def test_linearisation_matches_finite_differences_and_structure():
    a = dataclasses.replace(
        ACTS["tilt"], motor=dataclasses.replace(ACTS["tilt"].motor, inductance_d=5e-3, inductance_q=7e-3)
    )
    x0 = np.array([30.0, 150.0, 12.0, -2.0, 0.045, 0.24])
    u0 = np.array([200.0, -80.0])
    f0 = 5e3
    lin = linearise(a, x0, u0, f0)
    cen = linearise(a, x0, u0, f0, method="central")
    np.testing.assert_allclose(lin.A, cen.A, rtol=1e-6, atol=1e-6 * np.abs(lin.A).max())
    np.testing.assert_allclose(lin.B, cen.B, rtol=1e-6)
    # first-order agreement with the nonlinear model for a small perturbation
    dx = 1e-5 * np.maximum(np.abs(x0), 1.0) * RNG.normal(size=6)
    du = 1e-3 * RNG.normal(size=2)
    f_exact = a.derivatives(x0 + dx, u0 + du, f0 + 1.0)
    f_lin = lin.A @ (x0 + dx) + lin.B @ (u0 + du) + lin.E * (f0 + 1.0) + lin.r
    scale = np.abs(a.derivatives(x0, u0, f0) - f_exact).max()
    assert np.abs(f_exact - f_lin).max() < 1e-4 * scale
    # entries known in closed form from (3): ∂i̇_q/∂ω = −p(L_d i_d + Ψ)/L_q, B = diag(1/L_q, 1/L_d)
    m = a.motor
    assert lin.A[X_IQ, X_W] == pytest.approx(-4 * (m.inductance_d * -2.0 + m.flux_linkage) / m.inductance_q)
    assert lin.A[X_ID, X_IQ] == pytest.approx(4 * 150.0 * m.inductance_q / m.inductance_d)
    assert lin.B[X_IQ, 0] == pytest.approx(1 / m.inductance_q) and lin.B[X_ID, 1] == pytest.approx(1 / m.inductance_d)
    assert lin.A[X_W, X_TH] == pytest.approx(-(a.force_factor**2) * a.stiffness / a.motor_side_inertia)
    assert lin.E[X_VL] == pytest.approx(-1 / a.load_mass)
    # the affine form reproduces ẋ at the operating point
    np.testing.assert_allclose(lin.A @ x0 + lin.B @ u0 + lin.E * f0 + lin.r, a.derivatives(x0, u0, f0), atol=1e-6)


def test_linearise_rejects_bad_input():
    a = ACTS["lift"]
    with pytest.raises(ParameterError, match="method"):
        linearise(a, np.zeros(6), np.zeros(2), method="forward")
    with pytest.raises(ParameterError, match="shape"):
        linearise(a, np.zeros(4), np.zeros(2))
    rigid = EMLA(
        a.motor, dataclasses.replace(a.screw, k_bearing=math.inf, k_screw=math.inf, k_nut=math.inf, k_tube=math.inf)
    )
    with pytest.raises(ParameterError, match="stiffness"):
        linearise(rigid, np.zeros(6), np.zeros(2))


# ---------------------------------------------------------------------------------------------
# losses (12) and efficiency (13)
# ---------------------------------------------------------------------------------------------
def _random_points(a, n=400):
    f = RNG.uniform(-a.max_force, a.max_force, n)
    v = RNG.uniform(-a.max_velocity, a.max_velocity, n)
    f[:10] = 0.0
    v[10:20] = 0.0
    return f, v


@pytest.mark.parametrize("name", ["lift", "tilt", "extension"])
def test_efficiency_bounds_and_power_balance(name):
    """Spec 5 item 5: 0 ≤ η ≤ 1 everywhere (never NaN), P_in = f v + P_EE + P_EM (12) with every
    loss ≥ 0, and η = f v / P_in (13) when motoring."""
    a = ACTS[name]
    f, v = _random_points(a)
    eta = actuator_efficiency(a, f, v)
    assert eta.shape == f.shape and np.all(np.isfinite(eta)) and np.all((eta >= 0) & (eta <= 1))
    rec = operating_point_records(a, f, v)
    losses = rec[:, [O_PSW, O_PD, O_PCU, O_PCO, O_PMECH, O_PSC]]
    assert np.all(losses >= -1e-9 * np.abs(rec[:, [O_POUT]]).max())
    np.testing.assert_allclose(rec[:, O_PIN], f * v + losses.sum(1), rtol=1e-10, atol=1e-6)
    mot = f * v > 0
    np.testing.assert_allclose(eta[mot], (f * v)[mot] / rec[mot, O_PIN], rtol=1e-12)
    regen = f * v < 0
    np.testing.assert_allclose(eta[regen], np.clip(rec[regen, O_PIN] / (f * v)[regen], 0, 1), rtol=1e-12)
    assert np.all(eta[(f == 0) | (v == 0)] == 0.0)
    # electrical side agrees with the PMSM power balance: (3/2) v·i = P_cu + τ ω
    np.testing.assert_allclose(
        1.5 * (rec[:, O_VD] * rec[:, O_ID] + rec[:, O_VQ] * rec[:, O_IQ]),
        rec[:, O_PCU] + rec[:, O_TAU] * rec[:, O_WM],
        rtol=1e-10,
        atol=1e-6,
    )
    p_in, p_out = actuator_power(a, f, v)
    np.testing.assert_allclose(p_in, rec[:, O_PIN])
    np.testing.assert_allclose(p_out, f * v)


def test_efficiency_is_one_without_losses():
    """Spec 5 item 5: η = 1 with zero losses (motoring and regenerating)."""
    a = lossless()
    f = np.array([1e3, 2e4, -5e3, 3e3])
    v = np.array([0.1, 0.05, -0.2, -0.1])
    np.testing.assert_allclose(actuator_efficiency(a, f, v), 1.0, rtol=1e-12)


def test_efficiency_properties():
    """η properties: point symmetry η(−f, −v) = η(f, v) (every loss model is odd-symmetric);
    more resistance or a worse screw lowers η; at fixed power the efficiency is lower at low force
    and high speed than in the rated region (spec 5 item 13, qualitatively Fig. 7)."""
    a = ACTS["lift"]
    f, v = _random_points(a, 100)
    np.testing.assert_allclose(actuator_efficiency(a, -f, -v), actuator_efficiency(a, f, v), rtol=1e-12)
    worse = dataclasses.replace(a, motor=dataclasses.replace(a.motor, resistance=2 * a.motor.resistance))
    mot = f * v > 0
    assert np.all(actuator_efficiency(worse, f, v)[mot] < actuator_efficiency(a, f, v)[mot])
    screw = dataclasses.replace(a, screw=dataclasses.replace(a.screw, efficiency=0.7))
    assert np.all(actuator_efficiency(screw, f, v, check=False)[mot] < actuator_efficiency(a, f, v)[mot])
    low = actuator_efficiency(a, [500.0, 2e4], [0.01, 0.15])
    assert low[0] < 0.5 * low[1] and low[1] > 0.7


def test_efficiency_map_masks_infeasible_points_only():
    a = ACTS["tilt"]
    forces = np.linspace(-1.2 * a.max_force, 1.2 * a.max_force, 41)
    vel = np.linspace(-1.1 * a.max_velocity, 1.1 * a.max_velocity, 37)
    m = efficiency_map(a, forces, vel)
    assert m.efficiency.shape == m.feasible.shape == (41, 37)
    np.testing.assert_array_equal(np.isnan(m.efficiency), ~m.feasible)
    F, V = np.meshgrid(forces, vel, indexing="ij")
    np.testing.assert_array_equal(m.feasible, feasibility(a, F, V) == 0)
    np.testing.assert_allclose(m.efficiency[m.feasible], actuator_efficiency(a, F, V, check=False)[m.feasible])
    # the voltage limit cuts the high-speed, high-force corner inside the force/velocity box
    status = feasibility(a, 0.9 * a.max_force, 0.99 * a.max_velocity)
    assert status & LIMIT_VOLTAGE
    assert m.feasible[20, 18]  # f = 0, v = 0


def test_compiled_and_python_operating_point_agree():
    """STYLE 5: the kernel and its py_func twin give the same numbers."""
    e = ACTS["extension"].packed()
    for f, v in [(5e3, 0.2), (-3e3, 0.3), (0.0, 0.1), (2e3, 0.0)]:
        a, b = np.empty(N_OP), np.empty(N_OP)
        operating_point(e, f, v, a)
        operating_point.py_func(e, f, v, b)
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-12)


def test_actuation_efficiency_is_power_weighted_harmonic_mean():
    """Spec 5 item 6: equal η_i give η_Act = η_0; the example 500/250/200 W at 0.731/0.662/0.575
    gives ≈ 0.674 (value from the spec)."""
    eta = np.array([0.731, 0.662, 0.575])
    p = np.array([500.0, 250.0, 200.0])
    assert actuation_efficiency(eta, p, np.ones(3)) == pytest.approx(950 / (500 / 0.731 + 250 / 0.662 + 200 / 0.575))
    assert float(actuation_efficiency(eta, p, np.ones(3))) == pytest.approx(0.674, abs=5e-4)
    assert actuation_efficiency(np.full(3, 0.7), p, np.ones(3)) == pytest.approx(0.7)


# ---------------------------------------------------------------------------------------------
# catalogue and errors
# ---------------------------------------------------------------------------------------------
def test_table_i_catalogue():
    """Table I: rated powers 6.0 / 4.7 / 2.5 kW; strokes from spec 002 (0.59 m, 1.1 m)."""
    assert list(ACTS) == ["lift", "tilt", "extension"]
    assert [a.motor.rated_power for a in ACTS.values()] == [6000.0, 4700.0, 2500.0]
    assert [a.stroke for a in ACTS.values()] == [0.59, 0.59, 1.1]
    for a in ACTS.values():
        assert a.max_force > 0 and a.max_velocity > 0 and a.lead > 0
        # the rated point (A1–A4 of the data file) is feasible
        tau_n = a.motor.rated_power / a.motor.rated_speed
        f_n = 0.8 * tau_n / a.force_factor
        v_n = min(a.max_velocity, 0.9 * a.motor.rated_speed * a.force_factor)
        assert feasibility(a, f_n, v_n) == 0


def test_unknown_key_and_bad_values_raise():
    a = ACTS["lift"]
    table = {"motor": dataclasses.asdict(a.motor) | {"colour": "red"}, "screw": {"lead": 0.005}}
    with pytest.raises(ParameterError, match="colour"):
        emla_from_table("lift", table)
    with pytest.raises(ParameterError, match="resistance"):
        dataclasses.replace(a.motor, resistance=-1.0)
    with pytest.raises(ParameterError, match="efficiency"):
        dataclasses.replace(a.screw, efficiency=1.2)
    with pytest.raises(ParameterError, match="pole_pairs"):
        dataclasses.replace(a.motor, pole_pairs=0)
    with pytest.raises(ParameterError, match="max_force"):
        actuator_efficiency(a, [0.0, 1.01 * a.max_force], [0.1, 0.1])
    with pytest.raises(ParameterError, match="max_velocity"):
        actuator_power(a, 1e3, -1.2 * a.max_velocity)
    with pytest.raises(ParameterError, match="finite"):
        actuator_efficiency(a, np.nan, 0.1)
    with pytest.raises(ParameterError, match="broadcastable"):
        actuator_efficiency(a, np.ones(3), np.ones(4))
    with pytest.raises(ParameterError, match="1-D"):
        efficiency_map(a, np.ones((2, 2)), np.ones(3))
    # beyond the box but not checked: a number, never NaN
    assert np.isfinite(actuator_efficiency(a, 2 * a.max_force, 0.1, check=False))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(ACTS)), st.floats(-1.0, 1.0), st.floats(-1.0, 1.0), st.floats(0.0, 3.0))
def test_efficiency_law_holds_for_all_inputs(name, fr, vr, r_scale):
    """Property: for any point in the force/velocity box and any stator resistance, 0 ≤ η ≤ 1,
    P_in − P_out = Σ losses ≥ 0, and η never NaN (spec 5 item 5, spec 6.2 item 10)."""
    a = ACTS[name]
    a = dataclasses.replace(a, motor=dataclasses.replace(a.motor, resistance=r_scale * a.motor.resistance))
    f, v = fr * a.max_force, vr * a.max_velocity
    eta = float(actuator_efficiency(a, f, v))
    p_in, p_out = actuator_power(a, f, v)
    assert 0.0 <= eta <= 1.0
    assert float(p_in - p_out) >= -1e-9 * max(1.0, abs(float(p_out)))

"""Servo-valve-controlled cylinder (Petrović & Mattila eqs. 79–89), spec 6 item 8."""

import math

import numpy as np
import pytest

from actuatorlab.errors import ParameterError
from actuatorlab.hydraulics.servo_cylinder import (
    CraneHydraulics,
    Cylinder,
    Friction,
    ServoValve,
    chamber_rates,
    check_pressures,
    friction_force,
    motion_term,
    piston_force,
    saturate,
    signed_root,
    spool_rate,
    valve_flows,
    valve_inverse,
    voltage_term,
)

# lift cylinder of the lab crane, spec 3.2 [R]: bore 80 mm, rod 45 mm, stroke 0.59 m
PAPER = Cylinder.from_diameters(0.08, 0.045, 0.59)
DEAD = Cylinder.from_diameters(0.08, 0.045, 0.59, dead_volume_a=3e-3, dead_volume_b=3e-3, leakage=1e-12)
VALVE = ServoValve(6.3e-7, 5.9e-7, 6.1e-7, 6.6e-7, 185e5, 10e5, u_max=10.0)
RNG = np.random.default_rng(5)


def test_areas_from_diameters():
    assert PAPER.head_area == pytest.approx(5.026548e-3, rel=1e-6)  # spec 3.2 [V-computed]
    assert PAPER.rod_area == pytest.approx(3.436117e-3, rel=1e-6)


@pytest.mark.parametrize("cyl", [PAPER, DEAD], ids=["paper", "dead-volume+leakage"])
def test_force_rate_law_follows_from_chamber_equations(cyl):
    """(87): A_a ṗ_a − A_b ṗ_b = β[u_f − (k_a A_a + k_b A_b) ẋ − (k_a + k_b) Q_l] for any flows."""
    c = cyl.packed()
    for _ in range(10):
        x, xd = RNG.uniform(0.05, 0.5), RNG.normal(scale=0.1)
        pa, pb = RNG.uniform(20e5, 170e5, size=2)
        qa, qb = RNG.normal(scale=1e-4, size=2)
        dpa, dpb = chamber_rates(c, qa, qb, x, xd, pa, pb)
        lhs = cyl.head_area * dpa - cyl.rod_area * dpb
        rhs = cyl.bulk_modulus * (voltage_term(c, qa, qb, x) - motion_term(c, x, xd, pa, pb))
        assert lhs == pytest.approx(rhs, rel=1e-10)


def test_paper_chambers_are_eqs_80_81():
    c = PAPER.packed()
    x, xd, qa, qb, pa, pb = 0.2, 0.05, 2e-4, -1e-4, 100e5, 40e5
    dpa, dpb = chamber_rates(c, qa, qb, x, xd, pa, pb)
    beta, aa, ab, s = PAPER.bulk_modulus, PAPER.head_area, PAPER.rod_area, PAPER.stroke
    assert dpa == pytest.approx(beta / aa * (qa / x - aa * xd / x))  # (80)
    assert dpb == pytest.approx(beta / ab * (qb / (s - x) + ab * xd / (s - x)))  # (81)
    assert voltage_term(c, qa, qb, x) == pytest.approx(qa / x - qb / (s - x))  # (86)


@pytest.mark.parametrize("cyl", [PAPER, DEAD], ids=["paper", "dead-volume+leakage"])
def test_valve_inverse_round_trip_and_sign(cyl):
    """(89) inverts (82), (83), (86) exactly under Assumption 5; sign(u) = sign(u_f)."""
    c, v = cyl.packed(), VALVE.packed()
    for uf in (3e-4, -2e-4, 1e-6, -1e-7):
        x = RNG.uniform(0.05, 0.5)
        pa, pb = RNG.uniform(11e5, 184e5, size=2)
        u = valve_inverse(c, v, uf, x, pa, pb)
        assert math.copysign(1.0, u) == math.copysign(1.0, uf)
        qa, qb = valve_flows(v, u, pa, pb)
        assert voltage_term(c, qa, qb, x) == pytest.approx(uf, rel=1e-12)
        assert valve_inverse.py_func(c, v, uf, x, pa, pb) == pytest.approx(u, rel=1e-14)


def test_valve_flow_directions():
    """u > 0: supply into A, B to return; u < 0: the reverse (82)–(84)."""
    v = VALVE.packed()
    qa, qb = valve_flows(v, 5.0, 100e5, 50e5)
    assert qa == pytest.approx(6.3e-7 * math.sqrt(85e5) * 5.0) and qb == pytest.approx(-6.6e-7 * math.sqrt(40e5) * 5.0)
    qa, qb = valve_flows(v, -5.0, 100e5, 50e5)
    assert qa == pytest.approx(-5.9e-7 * math.sqrt(90e5) * 5.0) and qb == pytest.approx(6.1e-7 * math.sqrt(135e5) * 5.0)


def test_signed_root_is_continuous_and_exact_outside_the_band():
    assert signed_root(4e6, 1e4) == pytest.approx(2000.0)
    assert signed_root(-4e6, 1e4) == pytest.approx(-2000.0)
    assert signed_root(1e4, 1e4) == pytest.approx(signed_root(1e4 * (1 + 1e-12), 1e4))
    assert signed_root(0.0, 1e4) == 0.0


def test_friction_is_increasing_and_odd():
    fr = Friction(3000.0, 4000.0, 5e-3)
    v = np.linspace(-0.5, 0.5, 201)
    f = np.array([friction_force(fr.packed(), s) for s in v])
    assert np.all(np.diff(f) > 0) and np.allclose(f, -f[::-1])
    np.testing.assert_allclose(f, fr(v), rtol=1e-14)


def test_pressure_floor_and_saturation_and_spool():
    c = Cylinder.from_diameters(0.08, 0.045, 0.59, p_min=1e5).packed()
    dpa, dpb = chamber_rates(c, 0.0, 0.0, 0.2, 0.1, 1e5, 50e5)  # extending with no flow: p_a would drop
    assert dpa == 0.0 and dpb > 0.0
    v = VALVE.packed()
    assert saturate(v, 25.0) == 10.0 and saturate(v, -25.0) == -10.0
    assert spool_rate(v, 5.0, 0.0) == 0.0  # static valve
    slow = ServoValve(*(6e-7,) * 4, 185e5, 10e5, tau=0.01).packed()
    assert spool_rate(slow, 20.0, 2.0) == pytest.approx((10.0 - 2.0) / 0.01)
    assert piston_force(c, 100e5, 50e5) == pytest.approx(PAPER.head_area * 100e5 - PAPER.rod_area * 50e5)


def test_bad_parameters_raise():
    with pytest.raises(ParameterError, match="rod_area"):
        Cylinder(1e-3, 2e-3, 0.5)
    with pytest.raises(ParameterError, match="bulk_modulus"):
        Cylinder(2e-3, 1e-3, 0.5, bulk_modulus=0.0)
    with pytest.raises(ParameterError, match="supply_pressure"):
        ServoValve(*(6e-7,) * 4, 10e5, 20e5)
    with pytest.raises(ParameterError, match="c_n1"):
        ServoValve(6e-7, -1.0, 6e-7, 6e-7, 185e5, 10e5)
    with pytest.raises(ParameterError, match="Assumption 5"):
        check_pressures(VALVE, 190e5, 50e5)


def test_crane_hydraulics_is_checked_and_holds_forces_at_rest():
    friction = Friction(3000.0, 4000.0, 2e-2)
    with pytest.raises(ParameterError, match="one of each per actuator"):
        CraneHydraulics((PAPER, PAPER), (VALVE,), (friction,))
    with pytest.raises(ParameterError, match=r"CraneHydraulics.valves\[0\]"):
        CraneHydraulics((PAPER,), (PAPER,), (friction,))
    with pytest.raises(ParameterError, match="one of each per actuator"):
        CraneHydraulics((), (), ())
    hyd = CraneHydraulics([PAPER, PAPER], [VALVE, VALVE], [friction, friction])
    assert isinstance(hyd.cylinders, tuple) and len(hyd.packed()[1]) == 2
    forces = np.array([5e4, -3e4])
    pa, pb = hyd.holding_pressures(forces, low_pressure=30e5)
    np.testing.assert_allclose(PAPER.head_area * pa - PAPER.rod_area * pb, forces, rtol=1e-12)
    assert pb[0] == 30e5 and pa[1] == 30e5
    with pytest.raises(ParameterError, match="raise the supply pressure"):
        hyd.holding_pressures([5e5, 0.0])
    with pytest.raises(ParameterError, match="low_pressure"):
        hyd.holding_pressures(forces, low_pressure=-1.0)

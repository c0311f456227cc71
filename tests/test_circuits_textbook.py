"""Textbook circuits against their closed-form answers (issue 30, item 3), quasistatic model
unless stated. Bands and laminar transitions are set small (≤ 1 Pa) so that the regularised
valves sit within 1e-6 of the ideal ones; each closed form is written in the test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from actuatorlab.hydraulics.circuits import (
    Accumulator,
    Compensator,
    CounterbalanceValve,
    Cylinder,
    FixedPump,
    LaminarOrifice,
    Line,
    Motor,
    Network,
    Orifice,
    PilotCheckValve,
    ReducingValve,
    ReliefValve,
    Shuttle,
    SpoolValve,
    Tank,
    VariablePump,
)
from actuatorlab.hydraulics.circuits.component import orifice_gain
from actuatorlab.hydraulics.circuits.kernels import SCRATCH_ROWS
from actuatorlab.hydraulics.circuits.solvers import branch_flows, network_step, simulate, solve
from actuatorlab.hydraulics.fluid import OIL_DENSITY

SPEED = 150.0  # rad/s, the prime mover


def _gain(area: float) -> float:
    return orifice_gain(0.6, area, OIL_DENSITY)


def _pressure(network: Network, u: dict, node: str) -> float:
    return solve(network, network.input_vector(u))[network.node(node)]


@pytest.mark.parametrize("demand_ratio", [0.5, 2.0])
def test_pressure_compensated_pump_holds_its_setting_until_maximum_displacement(demand_ratio):
    """Load G (laminar) asking demand_ratio × Q_max at the setting. Holding: Q = Q_max (p_set − p)/Δp_band
    = G p ⇒ p = p_set / (1 + Δp_band G / Q_max); saturated: p = Q_max / G."""
    setting, band, displacement = 20e6, 0.5e6, 50e-6
    q_max = displacement * SPEED / (2 * math.pi)
    conductance = demand_ratio * q_max / setting
    network = Network(
        {
            "tank": (Tank(), {"port": "T"}),
            "pump": (
                VariablePump(max_displacement=displacement, pressure_setting=setting, band=band),
                {"inlet": "T", "outlet": "P"},
            ),
            "load": (LaminarOrifice(conductance=conductance), {"inlet": "P", "outlet": "T"}),
        }
    )
    p = _pressure(network, {"pump.speed": SPEED}, "P")
    expected = setting / (1 + band * conductance / q_max) if demand_ratio < 1 else q_max / conductance
    assert p == pytest.approx(expected, rel=1e-9)
    assert (abs(p - setting) <= band) == (demand_ratio < 1)


def _inverse_regularised_root(flow: float, gain: float, transition: float) -> float:
    """Δp with gain·Δp/(Δp² + ε²)^{1/4} = flow: Δp⁴ − R⁴Δp² − R⁴ε² = 0 with R = flow/gain."""
    r4 = (flow / gain) ** 4
    return math.sqrt(0.5 * (r4 + math.sqrt(r4 * r4 + 4 * r4 * transition**2)))


def test_open_centre_spool_in_neutral_passes_the_pump_flow_at_its_bypass_pressure():
    """Q = K_n R_ε(p_P) through the bypass: p_P = R_ε⁻¹(Q / K_n), K_n = C_d a_n √(2/ρ)."""
    neutral_area = 1e-4
    network = Network(
        {
            "tank": (Tank(), {"port": "T"}),
            "pump": (FixedPump(displacement=50e-6), {"inlet": "T", "outlet": "P"}),
            "relief": (ReliefValve(setting=30e6), {"inlet": "P", "outlet": "T"}),
            "valve": (
                SpoolValve(centre="open", neutral_area=neutral_area, transition=1.0, leakage=1e-16),
                {"P": "P", "T": "T", "A": "A", "B": "B"},
            ),
            "cylinder": (Cylinder(), {"head": "A", "rod": "B"}),
        }
    )
    q = 50e-6 * SPEED / (2 * math.pi)
    p = _pressure(network, {"pump.speed": SPEED, "cylinder.position": 0.3}, "P")
    assert p == pytest.approx(_inverse_regularised_root(q, _gain(neutral_area), 1.0), rel=1e-6)


def _boom(supply: float, leakage: float = 1e-13) -> Network:
    """A boom cylinder lowered under gravity: head side held by a counterbalance valve piloted by
    the rod line, which a supply at ``supply`` Pa feeds through a meter-in orifice."""
    return Network(
        {
            "supply": (Tank(pressure=supply), {"port": "S"}),
            "tank": (Tank(), {"port": "T"}),
            "meter_in": (Orifice(area=2e-5, transition=1.0), {"inlet": "S", "outlet": "R"}),
            "cbv": (
                CounterbalanceValve(setting=25e6, pilot_ratio=4.0, band=1.0, transition=1.0, leakage=leakage),
                {"valve": "V", "load": "H", "pilot": "R"},
            ),
            "meter_out": (Orifice(area=1e-4), {"inlet": "V", "outlet": "T"}),
            "cylinder": (Cylinder(), {"head": "H", "rod": "R"}),
        }
    )


def test_counterbalance_valve_lowers_at_the_pilot_pressure_setting_minus_load_over_ratio():
    """Lowering at 5 cm/s: p_pilot = (p_set − p_load)/r, p_load the head (load) pressure."""
    network = _boom(supply=5e6)
    p = solve(network, network.input_vector({"cylinder.velocity": -0.05, "cylinder.position": 0.4}))
    load, pilot = p[network.node("H")], p[network.node("R")]
    assert pilot == pytest.approx((25e6 - load) / 4.0, rel=1e-6)
    assert 0.0 < pilot < 5e6 and load > pilot  # a real throttling state, not a degenerate one


def test_counterbalance_valve_holds_with_the_pump_off_drifting_only_by_its_leakage():
    """Pump off (supply at 0): a rod drifting at v = −g Δp*/A_h needs exactly Δp* across the
    closed valve; its pilot branch passes only the declared leakage g."""
    leakage, head_area, drop = 1e-13, 0.024, 8e6
    network = _boom(supply=0.0, leakage=leakage)
    u = network.input_vector({"cylinder.velocity": -leakage * drop / head_area, "cylinder.position": 0.4})
    p = solve(network, u)
    load, valve, pilot = (p[network.node(n)] for n in ("H", "V", "R"))
    assert load - valve == pytest.approx(drop, rel=1e-6)
    assert load + 4.0 * pilot < 25e6  # the valve is closed: only the leakage flows
    check, held = branch_flows(network, p, u)["cbv"]
    assert held == pytest.approx(leakage * (load - valve), rel=1e-9) and check == 0.0


def _load_sensing(position: str, q_max: float, areas=(2e-5, 1e-5), loads=(10e6, 5e6)) -> Network:
    """An LS pump (margin 2 MPa) feeding two sections (metering edge of area a_i, compensator
    ``position`` the edge) on loads held at ``loads``, with the LS shuttle network."""
    displacement = 2 * math.pi * q_max / SPEED
    parts = {
        "tank": (Tank(), {"port": "T"}),
        "pump": (
            VariablePump(max_displacement=displacement, control="load_sensing", margin=2e6, band=0.1),
            {"inlet": "T", "outlet": "P", "ls": "LS"},
        ),
        "relief": (ReliefValve(setting=35e6), {"inlet": "P", "outlet": "T"}),
        "shuttle": (Shuttle(count=2, conductance=1e-8, drain_conductance=1e-18, band=0.1), {"out": "LS", "drain": "T"}),
    }
    for i, (area, load) in enumerate(zip(areas, loads), start=1):
        parts[f"load{i}"] = (Tank(pressure=load), {"port": f"L{i}"})
        if position == "after":
            parts[f"edge{i}"] = (Orifice(area=area, transition=1.0), {"inlet": "P", "outlet": f"M{i}"})
            parts[f"comp{i}"] = (
                Compensator(position="after", spring_pressure=0.1, band=0.1, area=5e-4, transition=1.0),
                {"inlet": f"M{i}", "outlet": f"L{i}", "ls": "LS"},
            )
            parts["shuttle"][1][f"in{i}"] = f"M{i}"
        else:
            parts[f"comp{i}"] = (
                Compensator(position="before", spring_pressure=1e6, band=0.1, area=5e-4, transition=1.0),
                {"inlet": "P", "outlet": f"C{i}", "high": f"C{i}", "low": f"L{i}"},
            )
            parts[f"edge{i}"] = (Orifice(area=area, transition=1.0), {"inlet": f"C{i}", "outlet": f"L{i}"})
            parts["shuttle"][1][f"in{i}"] = f"L{i}"
    return Network(parts)


def _section_flows(network: Network) -> tuple[np.ndarray, np.ndarray]:
    u = network.input_vector({"pump.speed": SPEED})
    p = solve(network, u)
    flows = branch_flows(network, p, u)
    return p, np.array([flows["edge1"][0], flows["edge2"][0]])


def test_post_compensators_share_a_saturated_pump_in_the_ratio_of_the_openings():
    """Flow sharing (LUDV): every edge sees p_P − p_LS, so q_i = Q_max a_i / Σ a_j."""
    q_max = 4.8e-4  # below the sections' demand at the margin (≈ 1.2e-3 m³/s)
    _, q = _section_flows(_load_sensing("after", q_max))
    np.testing.assert_allclose(q, q_max * np.array([2.0, 1.0]) / 3.0, rtol=1e-6)


def test_pre_compensators_give_the_light_load_its_demand_and_slow_the_heavy_one():
    """Edge drop held at Δp_spring: q_light = K_2 √Δp_spring; the heavy load gets the rest."""
    q_max = 6e-4
    _, q = _section_flows(_load_sensing("before", q_max))
    light = _gain(1e-5) * math.sqrt(1e6)
    assert q[1] == pytest.approx(light, rel=1e-6)
    assert q[0] == pytest.approx(q_max - light, rel=1e-6)
    assert q[0] < _gain(2e-5) * math.sqrt(1e6)  # the heavy section is short of its demand


def test_load_sensing_pump_holds_the_highest_load_plus_its_margin():
    network = _load_sensing("before", q_max=2e-3)
    p, q = _section_flows(network)
    assert p[network.node("P")] == pytest.approx(10e6 + 2e6, rel=1e-6)
    np.testing.assert_allclose(q, [_gain(a) * math.sqrt(1e6) for a in (2e-5, 1e-5)], rtol=1e-6)


def test_accumulator_discharge_keeps_p_v_to_the_n_constant():
    """Discharging through a laminar restrictor: gas volume V_k = V_0 + Σ h q_j from the flows
    out, p_k V_kⁿ = p_0 V_0ⁿ at every step while p > p₀."""
    precharge, gas_volume, n, conductance = 5e6, 4e-3, 1.4, 2e-11
    network = Network(
        {
            "tank": (Tank(), {"port": "T"}),
            "accumulator": (
                Accumulator(precharge_pressure=precharge, gas_volume=gas_volume, polytropic_index=n),
                {"port": "A"},
            ),
            "restrictor": (LaminarOrifice(conductance=conductance), {"inlet": "A", "outlet": "T"}),
        }
    )
    t = np.linspace(0.0, 10.0, 1001)
    p = simulate(network, t, np.zeros((t.size, 0)), initial=[0.0, 15e6])[:, network.node("A")]
    charged = p > precharge
    assert charged[:200].all() and p[-1] < 15e6
    volume = gas_volume * (precharge / p[0]) ** (1 / n) + np.cumsum(np.r_[0.0, (t[1] - t[0]) * conductance * p[1:]])
    np.testing.assert_allclose((p * volume**n)[charged], p[0] * volume[0] ** n, rtol=1e-9)


def _motor_circuit() -> Network:
    return Network(
        {
            "tank": (Tank(), {"port": "T"}),
            "pump": (FixedPump(displacement=20e-6), {"inlet": "T", "outlet": "P"}),
            "relief": (ReliefValve(setting=20e6, band=1.0), {"inlet": "P", "outlet": "T"}),
            "line": (Line(volume=1e-3), {"port": "P"}),
            "motor": (
                Motor(displacement=100e-6, volumetric_efficiency=0.95, mechanical_efficiency=0.9),
                {"inlet": "P", "outlet": "T"},
            ),
        }
    )


def test_stalled_motor_gives_the_relief_pressure_times_its_displacement():
    """ω = 0: the pump's flow crosses the relief, T = η_m D p_relief / 2π."""
    network = _motor_circuit()
    motor = network.parts["motor"][0]
    p = _pressure(network, {"pump.speed": SPEED, "motor.speed": 0.0}, "P")
    assert motor.torque(p, 0.0) == pytest.approx(0.9 * 100e-6 * 20e6 / (2 * math.pi), rel=1e-6)


def test_motor_turns_at_q_eta_v_over_d_against_its_load():
    """Pressure dynamics (β = 1.5 GPa) with the shaft J ω̇ = T − T_L − c ω: steady speed
    n = Q η_v / D [rev/s], pressure p = 2π (T_L + c ω) / (η_m D)."""
    network = _motor_circuit()
    motor = network.parts["motor"][0]
    inertia, load, damping, h = 0.01, 100.0, 2.0, 1e-3
    q = 20e-6 * SPEED / (2 * math.pi)
    u = network.input_vector({"pump.speed": SPEED})
    speed_input = network.inputs.index("motor.speed")
    p = np.zeros(len(network.nodes))
    work, dq = np.empty((p.size + SCRATCH_ROWS, p.size)), np.empty(5)
    omega = 0.0
    for _ in range(4000):
        torque = motor.torque(p[network.node("P")], 0.0)
        omega += h * (torque - load - damping * omega) / inertia
        u[speed_input] = omega
        status, _, _ = network_step(
            network.rows, network.volumes, network.gas, network.held, 1 / network.bulk_modulus, u, h, p, p, work, dq
        )
        assert status == 0
    assert omega / (2 * math.pi) == pytest.approx(q * 0.95 / 100e-6, rel=1e-6)
    assert p[network.node("P")] == pytest.approx(2 * math.pi * (load + damping * omega) / (0.9 * 100e-6), rel=1e-6)


def test_pilot_operated_check_opens_when_the_pilot_lifts_the_poppet_off_the_load_pressure():
    """Lowering through a pilot-operated check: r p_pilot = p_load + p_crack."""
    network = Network(
        {
            "supply": (Tank(pressure=5e6), {"port": "S"}),
            "tank": (Tank(), {"port": "T"}),
            "meter_in": (Orifice(area=2e-5, transition=1.0), {"inlet": "S", "outlet": "R"}),
            "check": (
                PilotCheckValve(pilot_ratio=3.0, cracking_pressure=0.2e6, band=1.0, transition=1.0),
                {"inlet": "V", "outlet": "H", "pilot": "R"},
            ),
            "meter_out": (Orifice(area=2e-5, transition=1.0), {"inlet": "V", "outlet": "T"}),
            "cylinder": (Cylinder(), {"head": "H", "rod": "R"}),
        }
    )
    p = solve(network, network.input_vector({"cylinder.velocity": -0.02, "cylinder.position": 0.4}))
    load, pilot = p[network.node("H")], p[network.node("R")]
    assert 3.0 * pilot == pytest.approx(load + 0.2e6, rel=1e-6)
    assert load > p[network.node("V")] > 0.0


def test_reducing_valve_holds_its_outlet_at_the_setting():
    """Supply 20 MPa, laminar load G: o = (p_set − p_out)/Δp_band throttles, p_out ∈ (p_set − Δp_band, p_set)."""
    setting, band = 5e6, 1.0
    network = Network(
        {
            "supply": (Tank(pressure=20e6), {"port": "S"}),
            "tank": (Tank(), {"port": "T"}),
            "reducer": (ReducingValve(setting=setting, band=band), {"inlet": "S", "outlet": "O"}),
            "load": (LaminarOrifice(conductance=1e-11), {"inlet": "O", "outlet": "T"}),
        }
    )
    p = _pressure(network, {}, "O")
    assert setting - band < p < setting

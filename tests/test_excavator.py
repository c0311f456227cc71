"""The 20 t excavator on one pump (actuatorlab.machines.excavator, actuatorlab.multibody.excavator).

Checks: the held machine (valves closed, consistent initialisation) stays put for 2 s with both
cylinder models; a shortened dig cycle runs on one pump with pressures within [0, relief +
margin], the pump relief flow only when the pump sits at its relief, and the two models agree;
the pressure cylinders really share one pump line; a relief below the static load is reported;
the figures draw.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from actuatorlab.errors import ParameterError, SimulationError
from actuatorlab.hydraulics.pressure_dynamics import PressureDynamics
from actuatorlab.hydraulics.quasistatic import ValveCircuit
from actuatorlab.machines.excavator import (
    CYLINDERS,
    DIG_START_POSE,
    CylinderSize,
    DigCycle,
    ExcavatorParameters,
    excavator_mjcf,
)
from actuatorlab.multibody.cylinders import PressureCylinder, SiteLoad
from actuatorlab.multibody.excavator import (
    MODELS,
    excavator_system,
    holding_report,
    run_dig_cycle,
    tip_path,
)
from actuatorlab.multibody.system import HydraulicMujocoSystem

SHORT = DigCycle().shortened(0.4)  # 4.8 s, every phase present


@pytest.fixture(scope="module")
def short_runs():
    return {model: run_dig_cycle(model, cycle=SHORT) for model in MODELS}


@pytest.mark.parametrize("model", MODELS)
def test_held_excavator_does_not_move(model):
    system = excavator_system(model)
    # the soil weight in the bucket as a constant load, held with every valve closed
    loads = [SiteLoad("bucket_soil", [0.0, 0.0, -1800 * 9.81])]
    result = system.simulate(2.0, {}, 1.0, loads, qpos=list(DIG_START_POSE), consistent=True)
    qpos = np.column_stack([result[f"qpos_{i}"] for i in range(3)])
    tip = tip_path(system, qpos)
    assert np.max(np.linalg.norm(tip - tip[0], axis=1)) < 1e-4
    for name in CYLINDERS:
        assert np.max(np.abs(result[f"{name}.length"] - result[f"{name}.length"][0])) < 1e-4
    # without consistent initialisation the relaxed elements first settle by f/K: visible motion
    if model == "quasistatic":
        loose = system.simulate(2.0, {}, 1.0, loads, qpos=list(DIG_START_POSE), consistent=False)
        loose_tip = tip_path(system, np.column_stack([loose[f"qpos_{i}"] for i in range(3)]))
        assert np.max(np.linalg.norm(loose_tip - loose_tip[0], axis=1)) > 1e-3


@pytest.mark.parametrize("model", MODELS)
def test_short_dig_cycle_runs_on_one_pump(short_runs, model):
    result, info = short_runs[model]
    p = info["params"]
    assert result.t[-1] == pytest.approx(SHORT.duration)
    # one pump: every cylinder reports the same pump pressure and relief flow
    pump = result["boom.pump_pressure"]
    for name in CYLINDERS[1:]:
        np.testing.assert_array_equal(result[f"{name}.pump_pressure"], pump)
        np.testing.assert_array_equal(result[f"{name}.pump_relief_flow"], result["boom.pump_relief_flow"])
    margin = 0.02 * p.pump_relief_pressure  # the pressure model's relief overshoot is ≈ 0.5 %
    assert np.all(pump >= -1e3) and np.max(pump) <= p.pump_relief_pressure + margin
    relief = result["boom.pump_relief_flow"]
    assert np.all(relief >= 0.0) and np.all(relief <= p.pump_flow * (1 + 1e-9))
    assert np.all(relief[pump < p.pump_relief_pressure * (1 - 1e-6)] == 0.0)
    if model == "pressure-dynamics":
        for name in CYLINDERS:
            for side in ("head", "rod"):
                pr = result[f"{name}.{side}_pressure"]
                assert np.min(pr) > -0.1e6 and np.max(pr) <= p.chamber_relief_pressure + margin
    else:
        for name in CYLINDERS:
            c = p.circuit(name)
            f = result[f"{name}.force"]
            assert np.all(f <= c.head_relief_force * (1 + 1e-9)) and np.all(f >= -c.rod_relief_force * (1 + 1e-9))
    # every phase moved the machine: boom down then up, stick in, bucket curl
    boom, stick, bucket = (result[f"{n}_angle"] for n in CYLINDERS)
    np.testing.assert_array_equal(boom, result["qpos_0"])
    assert np.min(boom) < DIG_START_POSE[0] - math.radians(2)
    assert np.min(stick) < DIG_START_POSE[1] - math.radians(15)
    assert np.min(bucket) < DIG_START_POSE[2] - math.radians(10)
    for name in CYLINDERS:
        stroke = result[f"{name}.stroke"]
        assert np.all(stroke >= 0.0) and np.all(stroke <= p.cylinder(name).stroke)
    s = info["summary"]
    for key in (
        "cycle_time_s",
        "peak_pump_pressure_Pa",
        "relief_volume_m3",
        "real_time_factor",
        "peak_force_boom_N",
        "peak_force_stick_N",
        "peak_force_bucket_N",
        "tip_travel_m",
    ):
        assert np.isfinite(s[key])
    assert s["peak_pump_pressure_Pa"] == pytest.approx(np.max(pump))


def test_models_agree(short_runs):
    rq, _ = short_runs["quasistatic"]
    rp, _ = short_runs["pressure-dynamics"]
    for i in range(3):
        assert np.max(np.abs(rq[f"qpos_{i}"] - rp[f"qpos_{i}"])) < math.radians(3)
    tip = np.hypot(rq["tip_x"] - rp["tip_x"], rq["tip_z"] - rp["tip_z"])
    assert np.max(tip) < 0.15


def test_full_cycle_reaches_relief_quasistatic():
    # the dig stalls briefly against the soil drag: the pump relief opens and passes oil
    result, info = run_dig_cycle("quasistatic")
    p = info["params"]
    assert info["summary"]["cycle_time_s"] == pytest.approx(12.0, abs=0.01)
    assert np.max(result["boom.pump_pressure"]) == pytest.approx(p.pump_relief_pressure)
    assert info["summary"]["relief_volume_m3"] > 0.0
    assert result.counters["real_time_factor"] > 1.0


def test_pressure_cylinders_share_one_pump_line():
    p = ExcavatorParameters()
    system = excavator_system("pressure-dynamics", p)
    assert system.pgroup_edges.tolist() == [0, 3]
    # the shared line: with the boom lowering (no pump flow) and the stick driven in, the stick
    # sees the pump line of all; an own-line copy would give each cylinder the full Q
    commands = {"stick": lambda t: np.where(t > 0.2, 0.5, 0.0), "bucket": lambda t: np.where(t > 0.2, 0.5, 0.0)}
    shared = system.simulate(1.0, commands, 0.05, qpos=list(DIG_START_POSE))
    own = HydraulicMujocoSystem(
        excavator_mjcf(p),
        [
            PressureCylinder(a.name, a.base_site, a.rod_site, a.circuit, a.fluid, a.initial_low_pressure)
            for a in system.actuators
        ],
    )
    alone = own.simulate(1.0, commands, 0.05, qpos=list(DIG_START_POSE))
    moved_shared = sum(abs(shared[f"{n}.length"][-1] - shared[f"{n}.length"][0]) for n in ("stick", "bucket"))
    moved_alone = sum(abs(alone[f"{n}.length"][-1] - alone[f"{n}.length"][0]) for n in ("stick", "bucket"))
    assert moved_shared < moved_alone  # two cylinders on one Q move less than on two
    # shared line: one pressure
    np.testing.assert_array_equal(shared["stick.pump_pressure"], shared["bucket.pump_pressure"])
    assert not np.array_equal(alone["stick.pump_pressure"], alone["bucket.pump_pressure"])


def test_shared_line_mismatch_is_refused():
    p = ExcavatorParameters()
    boom, stick = (excavator_system("pressure-dynamics", p).actuators[i] for i in (0, 1))
    other = PressureDynamics(
        pump_line_volume=5e-3, retracted_length=stick.fluid.retracted_length, stroke=stick.fluid.stroke
    )
    with pytest.raises(ParameterError, match="pump_line_volume"):
        HydraulicMujocoSystem(
            excavator_mjcf(p),
            [boom, PressureCylinder("stick", stick.base_site, stick.rod_site, stick.circuit, other, pump="main")],
        )
    other_circuit = ValveCircuit(head_area=stick.circuit.head_area, rod_area=stick.circuit.rod_area, pump_flow=1e-3)
    with pytest.raises(ParameterError, match="pump_flow"):
        HydraulicMujocoSystem(
            excavator_mjcf(p),
            [boom, PressureCylinder("stick", stick.base_site, stick.rod_site, other_circuit, stick.fluid, pump="main")],
        )


def test_relief_below_static_load_is_reported():
    # chamber reliefs below the holding pressures: no holding state
    low = ExcavatorParameters(chamber_relief_pressure=3.0e6)
    with pytest.raises(
        SimulationError,
        match=r"boom: the static load needs 4\.\d+ MPa in the head chamber.*"
        r"above its chamber relief 3 MPa",
    ):
        run_dig_cycle("quasistatic", cycle=SHORT, params=low)
    # ... and the mujoco layer refuses it too when the check is skipped
    with pytest.raises(SimulationError, match="no physical holding state"):
        run_dig_cycle("quasistatic", cycle=SHORT, params=low, check_relief=False)
    # a pump relief below the boom's holding pressure: the pump cannot lift it
    weak = ExcavatorParameters(pump_relief_pressure=3.0e6)
    report = holding_report(excavator_system("quasistatic", weak))
    assert report["boom"]["pump_margin_Pa"] < 0.0
    assert report["boom"]["pressure_Pa"] == pytest.approx(report["boom"]["force_N"] / weak.circuit("boom").head_area)
    with pytest.raises(SimulationError, match=r"boom: .* above the pump relief P_M = 3 MPa: the pump cannot move"):
        run_dig_cycle("pressure-dynamics", cycle=SHORT, params=weak)


def test_bad_model_name():
    with pytest.raises(ParameterError, match="quasistatic"):
        excavator_system("rigid")


def test_shared_line_step_solves_backward_euler():
    # pressure_step on a line of three cylinders: the result satisfies y − y0 − h·ẏ(y) = 0 with
    # ẏ from chamber_rates (each cylinder) and pump_line_rate (the sum of their draws)
    from actuatorlab.hydraulics.pressure_dynamics import (
        chamber_rates,
        openings_from_command,
        pump_line_rate,
    )
    from actuatorlab.multibody.kernels import pressure_step

    p = ExcavatorParameters()
    cps = np.stack([p.circuit(n).kernel_array() for n in CYLINDERS])
    hps = np.stack([p.fluid(n).kernel_array() for n in CYLINDERS])
    us = np.concatenate([openings_from_command(u, 0.1) for u in (0.6, -0.4, 0.3)])
    x = np.array([0.5, 0.7, 0.3])
    xdot = np.array([0.05, -0.1, 0.2])
    y0 = np.array([8e6, 1e6, 1e6, 6e6, 5e6, 2e6, 12e6])
    h = 1e-3
    y = y0.copy()
    assert pressure_step(cps, hps, us, x, xdot, y, h)
    rates, partials = np.empty(2), np.empty((2, 5))
    draw = 0.0
    for j in range(3):
        draw += chamber_rates(cps[j], hps[j], us[j], x[j], xdot[j], y[2 * j], y[2 * j + 1], y[6], rates, partials)[0]
        np.testing.assert_allclose(y[2 * j : 2 * j + 2] - y0[2 * j : 2 * j + 2], h * rates, atol=2e-3)
    pump_rate, _ = pump_line_rate(cps[0], hps[0], us[0, 4], y[6], draw)
    assert y[6] - y0[6] == pytest.approx(h * pump_rate, abs=2e-3)
    assert abs(y[6] - y0[6]) > 1e3  # the step did something


def test_mixed_models_on_one_pump_are_refused():
    q = excavator_system("quasistatic").actuators
    pr = excavator_system("pressure-dynamics").actuators
    with pytest.raises(ParameterError, match="both QuasistaticCylinder and PressureCylinder"):
        HydraulicMujocoSystem(excavator_mjcf(), [q[0], pr[1]])


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(bore=-0.1), "bore"),
        (dict(rod=0.0), "rod"),
        (dict(rod=0.12), "rod"),  # rod >= bore
        (dict(stroke=math.nan), "stroke"),
        (dict(retracted_length=0.0), "retracted_length"),
        (dict(dead_volume=-1e-3), "dead_volume"),
        (dict(count=0), "count"),
        (dict(count=1.5), "count"),
    ],
)
def test_cylinder_size_is_validated(kwargs, field):
    good = dict(bore=0.12, rod=0.085, stroke=1.3, retracted_length=1.85)
    with pytest.raises(ParameterError, match=rf"^{field}\b"):
        CylinderSize(**{**good, **kwargs})


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(boom_length=0.0), "boom_length"),
        (dict(bucket_mass=-800.0), "bucket_mass"),
        (dict(stick_inertia=math.inf), "stick_inertia"),
        (dict(pump_flow=0.0), "pump_flow"),
        (dict(chamber_relief_pressure=-1.0), "chamber_relief_pressure"),
        (dict(discharge_coefficient=1.5), "discharge_coefficient"),
        (dict(oil_density=0.0), "oil_density"),
        (dict(bulk_modulus=-1.5e9), "bulk_modulus"),
        (dict(boom_foot=(0.0,)), "boom_foot"),
        (dict(soil_point=(0.75, math.nan)), r"soil_point\[1\]"),
        (dict(stick_cylinder="big"), "stick_cylinder"),
        (dict(relaxation=(5e7, 1e6)), "relaxation"),
    ],
)
def test_excavator_parameters_are_validated(kwargs, field):
    with pytest.raises(ParameterError, match=rf"^{field}"):
        ExcavatorParameters(**kwargs)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(end=0.0), "end"),
        (dict(ramp=-0.1), "ramp"),
        (dict(hold=-1.0), "hold"),
        (dict(hold=2.0), "hold"),  # after the boom starts down
        (dict(soil_mass=-1.0), "soil_mass"),
        (dict(bleed_min=1.5), "bleed_min"),
        (dict(bleed_span=0.0), "bleed_span"),
        (dict(drag=(40e3, math.inf)), r"drag\[1\]"),
        (dict(boom_down=(3.0, 1.0, -0.35)), "boom_down"),  # stop before start
        (dict(stick_in=(2.6, 13.0, 0.7)), "stick_in"),  # beyond the end
        (dict(bucket_curl=(5.4, 8.2, 1.2)), r"bucket_curl\[2\]"),  # command outside [-1, 1]
        (dict(boom_up=(2.0, 11.2, 0.7)), "boom_up"),  # overlaps the boom-down phase
    ],
)
def test_dig_cycle_is_validated(kwargs, field):
    with pytest.raises(ParameterError, match=rf"^{field}"):
        DigCycle(**kwargs)
    assert DigCycle().shortened(0.4).end == pytest.approx(4.8)

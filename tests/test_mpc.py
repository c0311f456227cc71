"""MPC and PID of the IEHA (Alfayad et al. §5.4): model realisation, limits, tracking.
References: transfer functions (27)–(28) evaluated independently; input limits |X| ≤ E_max
(Table 1, 0.05 cm) and the MPC's own rate limit."""

import numpy as np
import pytest

from actuatorlab.control.mpc import (
    PID,
    LinearMPC,
    MPCSettings,
    PIDGains,
    discretise,
    lag_chain_model,
)
from actuatorlab.simulation.ieha_control import closed_loop
from actuatorlab.errors import ParameterError
from actuatorlab.identification.transfer_function import (
    G1_STRUCTURE,
    G2_STRUCTURE,
    PAPER_G1,
)

E_MAX = 5e-4


def test_lag_chain_realises_g1_plus_g2():
    g2 = np.array([-2e-5, 3e-3])
    a, bu, bf, c = lag_chain_model(PAPER_G1[0], PAPER_G1[1:], g2[0], g2[1:])
    for omega in (0.3, 7.0, 400.0):
        resolvent = np.linalg.solve(1j * omega * np.eye(a.shape[0]) - a, np.column_stack([bu, bf]))
        gx, gf = c @ resolvent
        assert gx == pytest.approx(G1_STRUCTURE.frequency_response(PAPER_G1, [omega])[0], rel=1e-9)
        assert gf == pytest.approx(G2_STRUCTURE.frequency_response(g2, [omega])[0], rel=1e-9)


def _linear_loop(mpc, reference, steps):
    a, b = mpc.A[:-1, :-1], mpc.Bu[:-1]
    c = mpc.C[:-1]
    x = np.zeros(a.shape[0])
    ys, us = [], []
    for k in range(steps):
        y = c @ x
        u = mpc.step(y, 0.0, reference(k + np.arange(mpc.settings.horizon + 1)))
        ys.append(y)
        us.append(u)
        x = a @ x + b * u
    return np.array(ys), np.array(us)


def test_mpc_respects_input_and_rate_limits_on_a_large_step():
    settings = MPCSettings(max_rate=0.05)
    mpc = LinearMPC(PAPER_G1, e_max=E_MAX, settings=settings)
    ys, us = _linear_loop(mpc, lambda k: np.full(k.shape, 0.02), 300)  # 2 cm: saturates X
    assert np.max(np.abs(us)) <= E_MAX * (1 + 1e-6)
    assert np.max(np.abs(us)) >= 0.99 * E_MAX  # the bound is active
    rate = np.abs(np.diff(np.concatenate([[0.0], us])))
    assert np.max(rate) <= settings.max_rate * settings.ts * (1 + 1e-3) + 1e-9
    assert ys[-1] == pytest.approx(0.02, rel=2e-2)


def test_mpc_tracks_sine_on_its_own_model():
    mpc = LinearMPC(PAPER_G1, e_max=E_MAX)
    ts = mpc.settings.ts

    def ref(k):
        return 5e-3 * np.sin(np.pi * k * ts)

    ys, _ = _linear_loop(mpc, ref, 1000)
    err = ref(np.arange(1000)) - ys
    assert np.max(np.abs(err[250:])) < 0.02 * 5e-3


def test_bad_settings_rejected():
    with pytest.raises(ParameterError, match="horizon"):
        MPCSettings(horizon=0)
    with pytest.raises(ParameterError, match="time constants"):
        lag_chain_model(100.0, [1e-3, -1e-3])


def test_discretise_integrator():
    ad, bd = discretise(np.zeros((1, 1)), np.ones((1, 1)), 0.01)
    assert ad[0, 0] == 1.0 and bd[0, 0] == pytest.approx(0.01)


@pytest.mark.parametrize("kind", ["mpc", "pid"])
def test_closed_loop_on_nonlinear_plant_tracks_loaded_sine(kind):
    # §5.4: r = 5 mm sin(πt), F_ext = 600 N sin(2πt); metrics after the first second
    if kind == "mpc":
        controller = LinearMPC(PAPER_G1, e_max=E_MAX)
    else:
        controller = PID(PIDGains.tuned(PAPER_G1[0]), 2e-3, E_MAX)
    r = closed_loop(controller, duration=1.6, metrics_from=0.6)
    assert np.max(np.abs(r.x)) <= E_MAX
    assert r.rms_error < 0.08 * 5e-3
    assert abs(r.lag) < 0.02
    assert r.overshoot < 20.0


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: MPCSettings(ts=0.0), r"mpc\.ts = 0\.0 s: must be a finite number > 0"),
        (lambda: MPCSettings(max_rate=float("nan")), r"mpc\.max_rate = nan m/s: must be a finite number > 0"),
        (lambda: MPCSettings(w_du=-1.0), r"mpc\.w_du = -1\.0 \(dimensionless\): must be a finite number >= 0"),
        (lambda: MPCSettings(horizon=2.5), r"mpc\.horizon = 2\.5 samples: must be an integer >= 1"),
        (lambda: PIDGains(-1.0, 0.0), r"pid\.kp = -1\.0 \(dimensionless\): must be a finite number >= 0"),
        (lambda: PIDGains(1.0, float("inf")), r"pid\.ki = inf 1/s: must be a finite number >= 0"),
        (lambda: PIDGains.tuned(-100.0), r"pid\.kp = -0\.6 .*>= 0"),
    ],
)
def test_settings_and_gains_name_field_value_unit_and_range(build, message):
    with pytest.raises(ParameterError, match=message):
        build()

"""Transfer functions of any order: continuous NpMz structures (complex poles, zeros, integrator,
delay), discrete ARX and OE, order selection and validation. References: scipy.signal's ``lsim``
on the expanded polynomials, the known models the data are simulated from, and the numerical
linearisation of the valve–pressure record's equations (independent of every fit)."""

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import brentq
from scipy.signal import lfilter, lsim

import actuatorlab
from actuatorlab.errors import ParameterError
from actuatorlab.hydraulics.fluid import OIL_BULK_MODULUS
from actuatorlab.identification.discrete import ARXStructure, fit_arx
from actuatorlab.identification.rational import RationalStructure
from actuatorlab.identification.transfer_function import G1_STRUCTURE, fit_transfer_functions, nrmse_fit
from actuatorlab.numerics.signals import chirp_signal
from actuatorlab.scenarios.transfer_function_logs import parse_structure
from actuatorlab.simulation.valve_pressure import _rates, valve_pressure_record

DT = 1e-3
T = np.arange(0.0, 3.0, DT)


def _polynomials(structure: RationalStructure, theta):
    """(num, den) in descending powers of s, expanded by hand from the factors."""
    k, c, wn, zeta, lag, _ = structure.split(theta)
    den = np.array([1.0])
    for w, z in zip(wn, zeta):
        den = np.polymul(den, [1.0 / w**2, 2.0 * z / w, 1.0])
    for lam in lag:
        den = np.polymul(den, [lam, 1.0])
    if structure.integrator:
        den = np.polymul(den, [1.0, 0.0])
    return k * np.concatenate([c[::-1], [1.0]]), den


def _smooth(t):
    """Two sines from rest at t = 0 (zero before)."""
    return np.where(t > 0.0, np.sin(2 * np.pi * 3 * t) + 0.5 * np.sin(2 * np.pi * 17 * t), 0.0)


@pytest.mark.parametrize(
    "structure, theta",
    [
        (RationalStructure(2, 1), [2.0, 0.01, 60.0, 0.15]),
        (RationalStructure(3, 2, integrator=True), [5.0, 0.02, 1e-4, 40.0, 0.3, 2e-3]),
        (RationalStructure(4, 1, delay=True), [1.5, -0.005, 30.0, 0.5, 300.0, 1.2, 0.0123]),
        (RationalStructure(2, 2), [0.7, 0.02, 2e-4, 80.0, 0.05]),
    ],
)
def test_simulation_and_frequency_response_match_the_expanded_polynomials(structure, theta):
    theta = np.array(theta)
    num, den = _polynomials(structure, theta)
    tau = theta[-1] if structure.delay else 0.0
    _, expected, _ = lsim((num, den), _smooth(T - tau), T, interp=True)
    # a delay between samples is interpolated by a cubic: exact to (ωΔt)⁴ on this input
    tolerance = 1e-4 if structure.delay else 1e-7
    np.testing.assert_allclose(structure.simulate(theta, _smooth(T), DT), expected, atol=tolerance * np.ptp(expected))
    omega = np.array([1.0, 30.0, 500.0])
    g = np.polyval(num, 1j * omega) / np.polyval(den, 1j * omega) * np.exp(-1j * omega * tau)
    np.testing.assert_allclose(structure.frequency_response(theta, omega), g, rtol=1e-10)


def test_complex_poles_zero_and_delay_are_recovered_within_their_intervals():
    truth = np.array([2.0, 0.01, 60.0, 0.15, 0.0075])  # K, c1 [s], ωn [rad/s], ζ, τ [s]
    structure = RationalStructure(2, 1, delay=True)
    u = np.repeat(np.random.default_rng(1).choice([-1.0, 1.0], T.size // 20), 20)
    y = structure.simulate(truth, u, DT)
    noisy = y + 0.05 * np.std(y) * np.random.default_rng(2).standard_normal(T.size)
    fit = fit_transfer_functions(T, u, noisy, [structure])
    assert fit.params[0] == pytest.approx(truth, rel=0.02)
    assert np.all(np.abs(fit.params[0] - truth) < 4.0 * fit.std_errors[0])
    assert fit.fit_percent > 94.0


def test_integrator_with_three_poles_gives_the_g1_gain_on_g1_data():
    # the same record, G1 and I+3p0z (its poles free to be complex, a superset of G1): the gain
    # is the same to 1e-6 and the larger family fits at least as well
    truth = np.array([115.4, 1.6e-3, 1.0e-3, 0.6e-3])
    t = np.arange(0.0, 2.0, 5e-4)
    u = chirp_signal(t, 1e-4, 0.2, 40.0)
    y = G1_STRUCTURE.simulate(truth, u, 5e-4)
    y = y + 1e-3 * np.std(y) * np.random.default_rng(3).standard_normal(t.size)
    lags = fit_transfer_functions(t, u, y, [G1_STRUCTURE])
    poles = fit_transfer_functions(t, u, y, [RationalStructure(3, 0, integrator=True)])
    assert poles.params[0][0] == pytest.approx(lags.params[0][0], rel=1e-6)
    assert poles.fit_percent >= lags.fit_percent - 1e-9


def test_arx_least_squares_is_exact_on_arx_data():
    structure = ARXStructure(2, 2, 3)
    theta = np.array([-1.5, 0.7, 0.5, 0.25])
    u = np.random.default_rng(4).standard_normal(2000)
    e = 0.01 * np.random.default_rng(5).standard_normal(2000)
    y = lfilter([0, 0, 0, 0.5, 0.25], [1.0, -1.5, 0.7], u) + lfilter([1.0], [1.0, -1.5, 0.7], e)
    estimate, residual, _ = fit_arx(structure, u, y)
    assert estimate == pytest.approx(theta, abs=3e-3)  # the equation error is white: consistent
    assert np.std(residual) == pytest.approx(0.01, rel=0.05)


def _linearised_poles():
    """Eigenvalues of the record's equations (p, x, ẋ) linearised at the equilibrium of the
    mean opening 0.5 by central differences, with the record's default parameters."""
    area, supply, valve, leak, spring = 1.2e-3, 10e6, 2e-7, 2e-11, 2e6
    params = np.array([area, 2e-4, supply, valve, leak, 800.0, spring, 8e3, OIL_BULK_MODULUS, 5e-3])
    p0 = brentq(lambda p: valve * 0.5 * np.sqrt(supply - p) - leak * p, 0.0, supply)
    y0 = np.array([p0, area * p0 / spring, 0.0, 0.5])
    jac = np.zeros((4, 4))
    for j in range(4):
        step = 1e-6 * max(abs(y0[j]), 1e-3)
        up, down, a, b = y0.copy(), y0.copy(), np.zeros(4), np.zeros(4)
        up[j] += step
        down[j] -= step
        _rates(0.0, up, a, np.array([0.5]), 1.0, params)
        _rates(0.0, down, b, np.array([0.5]), 1.0, params)
        jac[:, j] = (a - b) / (2 * step)
    return np.linalg.eigvals(jac[:3, :3])


def test_oscillating_valve_pressure_record_needs_complex_poles():
    record = valve_pressure_record(samples=2048, noise=2e3)
    half = 1024
    t, u, y = record["t"].to_numpy(), record["valve"].to_numpy(), record["pressure"].to_numpy()
    u = u - u[0]
    g1 = fit_transfer_functions(t[:half], u[:half], y[:half], [G1_STRUCTURE])
    second = fit_transfer_functions(t[:half], u[:half], y[:half], [parse_structure("2p2z")])
    fit = fit_transfer_functions(t[:half], u[:half], y[:half], [parse_structure("3p2z")])
    assert g1.fit_percent < 10.0  # a chain of lags cannot ring
    assert second.fit_percent > 80.0  # the resonance alone (a second-order structure) follows most of it
    assert fit.fit_percent > 93.0  # with the chamber's fast pole too
    poles = _linearised_poles()
    pair = poles[np.argmax(poles.imag)]
    _, _, wn, zeta, lag, _ = fit.structures[0].split(fit.params[0])
    assert wn[0] == pytest.approx(abs(pair), rel=0.03)
    assert zeta[0] == pytest.approx(-pair.real / abs(pair), rel=0.05)
    assert 1.0 / lag[0] == pytest.approx(-poles[np.argmin(np.abs(poles.imag) + poles.real)].real, rel=0.1)
    # the split: estimation on the first half, validation on the second, from its own start
    later = slice(half, None)
    u_later, y_later = u[later] - u[half], y[later] - y[half]
    checked = {}
    for name in ("arx(4,4,1)", "oe(4,4,1)"):
        model = fit_transfer_functions(t[:half], u[:half], y[:half], [parse_structure(name)])
        checked[name] = nrmse_fit(y_later, model.simulate(u_later, float(t[1] - t[0])))
    assert checked["oe(4,4,1)"] >= checked["arx(4,4,1)"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("G1", "G1"),
        ("I+2", "I+2"),
        ("2p0z", "2p0z"),
        ("I+3p1z+d", "I+3p1z+d"),
        ("arx(4, 4, 1)", "arx(4,4,1)"),
        ("OE(2,2,0)", "oe(2,2,0)"),
    ],
)
def test_structure_names_round_trip(text, expected):
    assert str(parse_structure(text)) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("2p3z", "at most as many zeros as poles"),
        ("0p0z", "pure gain"),
        ("9p0z", "0 … 8"),
        ("arx(2,0,1)", "nb = 0"),
        ("tf(2)", "write G1, G2"),
    ],
)
def test_bad_structures_are_refused_in_one_line(text, message):
    with pytest.raises(ParameterError, match=message) as error:
        parse_structure(text)
    assert "\n" not in str(error.value) and text in str(error.value)


def test_candidates_are_chosen_by_validation_fit_and_written(tmp_path):
    record, later = valve_pressure_record(noise=2e3), valve_pressure_record(noise=2e3, seed=1)
    result = actuatorlab.identify_transfer_function(
        record, "valve", "pressure", ["G1", "3p2z", "oe(2,2,1)"], validate=later
    )
    assert result.summary["validation_fit_percent"].value > 90.0
    assert result.table["name"].tolist() == ["K1", "c1_1", "c1_2", "wn1_1", "zeta1_1", "lambda1"]
    result.save(tmp_path / "fit")
    orders = pd.read_csv(tmp_path / "fit" / "orders.csv")
    assert orders["structure"].tolist() == ["G1", "3p2z", "oe(2,2,1)"]
    best = orders.loc[orders["validation_fit_percent"].idxmax(), "structure"]
    assert orders.loc[orders["chosen"], "structure"].item() == best == "3p2z"
    for name in ("bode.png", "step_response.png", "validation_fit.png"):
        assert (tmp_path / "fit" / name).stat().st_size > 10_000


def test_without_validation_the_least_aic_is_chosen():
    record = valve_pressure_record(noise=2e3)
    result = actuatorlab.identify_transfer_function(record, "valve", "pressure", ["2p0z", "3p2z"])
    assert "validation_fit_percent" not in result.summary
    assert "3p2z: 6 parameters" in "\n".join(result.notes) and "← chosen" in "\n".join(result.notes)


def test_a_discrete_model_refuses_a_validation_record_at_another_rate():
    record = valve_pressure_record(noise=2e3)
    faster = valve_pressure_record(dt=1e-3, noise=2e3, seed=1)
    with pytest.raises(ParameterError, match="at the same rate"):
        actuatorlab.identify_transfer_function(record, "valve", "pressure", "oe(2,2,1)", validate=faster)


def test_response_bands_hold_the_estimate_and_widen_with_noise():
    from actuatorlab.identification.bands import response_bands

    structure = RationalStructure(2, 0)
    u = chirp_signal(T, 1.0, 0.2, 40.0)
    y = structure.simulate(np.array([2.0, 60.0, 0.2]), u, DT)
    widths = []
    for noise in (0.01, 0.1):
        noisy = y + noise * np.std(y) * np.random.default_rng(6).standard_normal(T.size)
        fit = fit_transfer_functions(T, u, noisy, [structure])
        bands = response_bands(structure, fit.params[0], fit.covariance, DT, 3.0)
        assert np.all(bands.magnitude[1] <= bands.magnitude[0]) and np.all(bands.magnitude[0] <= bands.magnitude[2])
        assert bands.step[0][0] == 0.0
        widths.append(np.max(bands.magnitude[2] - bands.magnitude[1]))
    assert widths[1] > 5.0 * widths[0]

"""IEHA (Alfayad et al. 2016) costs: the nonlinear step run, one MPC step, the fits.

- 1 s of the step response (X = 0.04 cm, compiled BDF2, h = 20 µs): target ≤ 1 s wall;
- one MPC step (observer update + OSQP solve, horizon 25) on the closed loop: target ≤ 2 ms;
- output-error fits: G1 on 10 s at 1 ms of the nonlinear model's chirp response, G1 + G2 on
  the same record with a reversed force chirp, and I+3p0z (G1's order with poles free to be
  complex): its K equals G1's to 1e-6 (one fitting code for every structure).
Run: .venv/bin/python benchmarks/bench_ieha.py
"""

from __future__ import annotations

import time

import numpy as np
from _timing import median_time

from actuatorlab.control.mpc import PID, LinearMPC, PIDGains
from actuatorlab.simulation.ieha_control import closed_loop
from actuatorlab.identification.rational import RationalStructure
from actuatorlab.identification.transfer_function import (
    G1_STRUCTURE,
    G2_STRUCTURE,
    PAPER_G1,
    fit_transfer_functions,
)
from actuatorlab.simulation.ieha import identification_run, step_run


def main() -> dict[str, float]:
    figures = {}
    step_run(duration=0.01)  # compile or load the cache
    med, best = median_time(lambda: step_run(duration=1.0), repeats=3)
    r = step_run(duration=1.0)
    figures["step_1s_wall_s"] = med
    print(
        f"step run, 1 s simulated: {med:.3f} s wall "
        f"(best {best:.3f}; target <= 1 s: {'met' if med <= 1.0 else 'NOT met'})"
        f"; steps {r.counters['steps']:.0f}, Jacobians {r.counters['jacobian_evaluations']:.0f}"
    )
    t_e = r.t[np.argmax(np.abs(r.eccentricity - 4e-4) < 0.02 * 4e-4)]
    late = r.t >= 0.5
    print(
        f"  E within 2 % of X at {t_e * 1e3:.2f} ms (paper ≈ 7 ms); mean velocity t ≥ 0.5 s "
        f"{r.v[late].mean() * 100:.2f} cm/s (paper 2.2); "
        f"mean ΔP t ≥ 0.5 s {r.dp[late].mean() / 1e5:.3f} bar (paper 0.8)"
    )
    figures.update(e_settle_s=t_e, velocity_m_s=float(r.v[late].mean()), dp_pa=float(r.dp[late].mean()))

    for name, controller in (("MPC", LinearMPC(PAPER_G1)), ("PID", PID(PIDGains.tuned(PAPER_G1[0]), 2e-3, 5e-4))):
        start = time.perf_counter()
        cl = closed_loop(controller, duration=4.0)
        wall = time.perf_counter() - start
        steps = np.asarray(controller.solve_times)
        print(
            f"{name} closed loop 4 s: {wall:.2f} s wall; controller step median {np.median(steps) * 1e3:.3f} ms, "
            f"p99 {np.percentile(steps, 99) * 1e3:.3f} ms, max {steps.max() * 1e3:.3f} ms (target <= 2 ms); "
            f"rms error {cl.rms_error * 1e3:.3f} mm, "
            f"max {cl.max_error * 1e3:.3f} mm, lag {cl.lag * 1e3:.2f} ms, overshoot {cl.overshoot:.1f} %"
        )
        figures[f"{name}_step_median_s"] = float(np.median(steps))
        figures[f"{name}_rms_error_m"] = cl.rms_error

    start = time.perf_counter()
    data = identification_run(duration=10.0, force_amplitude=300.0)
    print(f"identification record (10 s, nonlinear model): {time.perf_counter() - start:.2f} s wall")
    y = data.y - data.y[0]
    g1 = fit_transfer_functions(data.t, data.x, y, (G1_STRUCTURE,))
    g12 = fit_transfer_functions(data.t, np.column_stack([data.x, data.f_ext]), y, (G1_STRUCTURE, G2_STRUCTURE))
    for label, fit in (("G1", g1), ("G1+G2", g12)):
        k, lam = fit.params[0][0], fit.params[0][1:]
        print(
            f"fit {label}: {fit.wall_time_s:.2f} s wall, {fit.nfev} evaluations; K = {k:.1f} 1/s (paper 115.4), "
            f"Σλ = {lam.sum() * 1e3:.2f} ms (paper 3.39), fit {fit.fit_percent:.2f} %"
            + (f"; K' = {fit.params[1][0]:.3g} m/(N s), λ' = {fit.params[1][1]:.3g} s" if len(fit.params) > 1 else "")
        )
        figures[f"fit_{label}_s"] = fit.wall_time_s
    poles = fit_transfer_functions(data.t, data.x, y, (RationalStructure(3, 0, integrator=True),))
    relative = poles.params[0][0] / g1.params[0][0] - 1.0
    print(
        f"fit I+3p0z (G1's order, poles free to be complex): {poles.wall_time_s:.2f} s wall, {poles.nfev} "
        f"evaluations; K = {poles.params[0][0]:.4f} 1/s, {relative:+.1e} of G1's (target |·| <= 1e-6), "
        f"fit {poles.fit_percent:.4f} % (G1 {g1.fit_percent:.4f} %)"
    )
    figures["fit_I+3p0z_K_relative_to_G1"] = relative
    return figures


if __name__ == "__main__":
    main()

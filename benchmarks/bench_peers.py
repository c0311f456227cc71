"""Side by side with the peers of ``../shared/peers``: the one-arm mechanism in hand-written SciPy.

In one process: the peer's SciPy pressure model (its anchor case: valve closed 0–3 s, opened at
u = 0.5 to raise the arm 3–6 s, closed again, 10 s; LSODA, rtol 1e-6, finite-difference
Jacobian) and actuatorlab on the same motion of the same arm (M = 2000 kg, J = 5000 kg m²,
L_g = 1.5 m, L_m = 0.6 m, α = π/4, no external load): the relaxed quasistatic model at
h = 1 ms and the pressure-dynamics model with LSODA at rtol 1e-6 (analytic Jacobian). The peer
feeds its valve from a 36 MPa supply; ours from the 500 L/min pump of (66) with u_b = 0.3, so
the motions agree in kind, not sample by sample. Ratios are peer wall time / ours.
Exudyn's figure (0.0495 s at h = 1 ms, ``shared/peers/RESULTS.md``) is quoted, not re-measured:
exudyn is not a dependency of this project.
Run: .venv/bin/python benchmarks/bench_peers.py
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from actuatorlab.scenarios.kinds.arm import simulate_scenario
from actuatorlab.scenarios.loading import load_scenario
from actuatorlab.scenarios.arm_schema import ArmInputs

PEERS = Path(__file__).resolve().parents[2] / "shared" / "peers"
EXUDYN_QUOTED_S = 0.0495


def _ours(model: str, repeats: int) -> float:
    base = load_scenario("arm-relief")
    inputs = ArmInputs.model_validate(
        {
            "valve_command": {"type": "steps", "times": ["3 s", "6 s"], "values": [-0.5, 0.0], "initial": 0.0},
            "bleed": 0.3,
            "external_force": "0 N",
        }
    )
    scenario = base.model_copy(update={"model": model, "inputs": inputs})
    simulate_scenario(scenario)
    return statistics.median(simulate_scenario(scenario).counters["loop_time_s"] for _ in range(repeats))


def main() -> dict[str, float]:
    if not (PEERS / "scipy_pressure_arm.py").exists():
        print(f"peers not found at {PEERS}; skipping the side-by-side benchmark")
        return {}
    sys.path.insert(0, str(PEERS))
    import scipy_pressure_arm as peer  # noqa: PLC0415 (the peer lives outside the project)

    peer.simulate("LSODA")
    peer_s = statistics.median(peer.simulate("LSODA")["wall_s"] for _ in range(5))
    quasi_s = _ours("quasistatic", repeats=9)
    pressure_s = _ours("pressure-dynamics", repeats=5)
    print(
        f"one arm, 10 s: peer SciPy LSODA {peer_s * 1e3:.1f} ms (median of 5); Exudyn (quoted) "
        f"{EXUDYN_QUOTED_S * 1e3:.1f} ms"
    )
    print(
        f"  actuatorlab quasistatic     {quasi_s * 1e3:7.2f} ms -> peer SciPy / ours {peer_s / quasi_s:6.1f}, "
        f"Exudyn / ours {EXUDYN_QUOTED_S / quasi_s:6.1f}"
    )
    print(
        f"  actuatorlab pressure, LSODA {pressure_s * 1e3:7.2f} ms -> peer SciPy / ours {peer_s / pressure_s:6.2f}, "
        f"Exudyn / ours {EXUDYN_QUOTED_S / pressure_s:6.2f}"
    )
    return {"peer_scipy_s": peer_s, "quasistatic_s": quasi_s, "pressure_s": pressure_s}


if __name__ == "__main__":
    main()

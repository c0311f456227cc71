"""Consistent initial states of cylinders holding a MuJoCo model at rest.

At the initial pose with zero velocity and acceleration, ``mj_inverse`` gives the generalised
force τ that holds the machine against gravity and passive forces (its constraint forces taken
out); the cylinder forces f and the forces λ of the model's active equality constraints (a closed
chain's connects, a weld to the ground) solve G f + J_eqᵀ λ = τ − τ_loads (G = [g_1 … g_m],
g = (dℓ/dq)ᵀ, τ_loads the site loads at t = 0), exactly or by least squares
(``HydraulicMujocoSystem.holding_forces`` in :mod:`.system`); a pose where the constraints could
take over a cylinder's load is refused. From those forces
[N] (f > 0 pushes the pins apart) ``holding_state`` builds the state: a held quasistatic
cylinder starts pre-stretched, p − ℓ = f/K [m]; a pressure cylinder starts at the chamber
pressures [Pa] that give f with the less loaded chamber at ``initial_low_pressure``
(``holding_pressures``) and the pump line at its idle pressure. A force outside the chamber
relief range [−F_rM, F_hM] has no physical holding state and raises ``SimulationError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import SimulationError
from ..hydraulics.pressure_dynamics import holding_pressures, idle_pump_pressure
from .cylinders import Cylinder, QuasistaticCylinder


@dataclass(frozen=True)
class InitialState:
    """A consistent initial state: ``forces`` [N] per actuator (f > 0 pushes the pins apart)
    that hold the pose, the residual ‖G f − τ‖ [N or N m] of the holding equations (0 when the
    cylinders can hold every degree of freedom), ``lengths`` ℓ [m], ``stretch`` p − ℓ = f/K [m]
    (quasistatic) and ``pressures`` (p_h, p_r, P) [Pa] (pressure cylinders), per actuator name;
    ``qpos``: the pose the run starts from (the given one, or where the model's soft constraints
    hold the load, ``HydraulicMujocoSystem.rest_pose``)."""

    forces: dict[str, float]
    residual: float
    lengths: dict[str, float]
    stretch: dict[str, float]
    pressures: dict[str, tuple[float, float, float]]
    qpos: np.ndarray | None = None


def holding_state(
    actuators: Sequence[Cylinder], forces: np.ndarray, residual: float, lengths: np.ndarray, bleed0: Mapping[str, float]
) -> InitialState:
    """The ``InitialState`` of ``actuators`` holding with ``forces`` (n,) [N] at ``lengths`` (n,)
    [m]; ``bleed0``: the bleed openings at t = 0 per name (default 0). Raises ``SimulationError``
    when a force is beyond a chamber relief, K = 0 carries a load, or the holding pressures
    exceed the relief settings."""
    stretch, pressures = {}, {}
    for i, a in enumerate(actuators):
        f = float(forces[i])
        c = a.circuit
        if not (-c.rod_relief_force <= f <= c.head_relief_force):
            side = "rod" if f < 0 else "head"
            raise SimulationError(
                f"actuator {a.name!r}: holding the initial pose needs f = {f:.6g} N, beyond the chamber relief "
                f"range [−F_rM, F_hM] = [{-c.rod_relief_force:.6g}, {c.head_relief_force:.6g}] N (the {side} "
                "relief would open): no physical holding state exists; reduce the load or raise the relief "
                "pressure settings"
            )
        if isinstance(a, QuasistaticCylinder):
            k = a.relaxation.stiffness
            if k == 0.0 and f != 0.0:
                raise SimulationError(
                    f"actuator {a.name!r}: relaxation.stiffness = 0 cannot hold the static force {f:.6g} N; give K > 0"
                )
            stretch[a.name] = f / k if k > 0.0 else 0.0
        else:
            p_h, p_r = holding_pressures(c, f, a.initial_low_pressure)
            if p_h > c.head_relief_pressure or p_r > c.rod_relief_pressure:
                raise SimulationError(
                    f"actuator {a.name!r}: holding f = {f:.6g} N with the less loaded chamber at "
                    f"initial_low_pressure = {a.initial_low_pressure:.6g} Pa needs p_h = {p_h:.6g} Pa, "
                    f"p_r = {p_r:.6g} Pa, beyond the relief settings (P_hM = {c.head_relief_pressure:.6g} Pa, "
                    f"P_rM = {c.rod_relief_pressure:.6g} Pa): lower initial_low_pressure or reduce the load"
                )
            pump = idle_pump_pressure(c, float(bleed0.get(a.name, 0.0)))
            pressures[a.name] = (p_h, p_r, pump)
    return InitialState(
        forces={a.name: float(forces[i]) for i, a in enumerate(actuators)},
        residual=residual,
        lengths={a.name: float(lengths[i]) for i, a in enumerate(actuators)},
        stretch=stretch,
        pressures=pressures,
    )

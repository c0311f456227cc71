"""The three-DOF lab crane driven by EMLAs (Bahari et al.) instead of cylinders.

The crane is Petrović & Mattila's parallel–serial lab crane (``machines.lab_crane.lab_crane``):
coordinates q = (q1 [rad], q2 [rad], x_t2 [m]) for lift, tilt and extension. Reading taken
(the paper does not say where the EMLAs sit): each EMLA replaces the hydraulic cylinder *between the same two
pins*, so

- its position is the piston stroke x_j (18) of the lift/tilt triangle (``linkage``), and the
  telescope stroke x_t2 itself; its velocity is v_x = J_x(q) q̇ with J_x = −L L1 sin q / ℓ (21)
  (1 for the telescope);
- its force is the cylinder force f_cj of the closed-chain Newton–Euler recursion, (68) of
  Petrović & Mattila for lift and tilt and (55) for the telescope: this is Bahari's RNEA (42),
  [v_x, f_x] = RNEA(q, q̇, q̈), reused unchanged (one implementation, the numba kernel of
  ``parallel_serial_kernels``). The EMLA's own moving masses are those of the cylinder case and rod
  of the lab crane (the paper gives none); friction is excluded (as in (68)).

Signs: f_x > 0 pushes the actuator out (extends it), v_x > 0 extends it; the mechanical output
power of an actuator is p = f_x v_x [W] (> 0 motoring, < 0 the load drives the actuator).
The pin-to-pin length at zero stroke stays the cylinder's x0; an EMLA with a shorter stroke
than the cylinder narrows the joint range (``joint_limits``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import ParameterError
from .linkage import FLAT_MARGIN, angle_from_stroke
from .parallel_serial import ParallelSerialManipulator
from .parallel_serial_kernels import batch_inverse_dynamics, piston_states

ACTUATOR_NAMES = ("lift", "tilt", "extension")
"""Actuator order, equal to the coordinate order (q1, q2, x_t2)."""

QUADRATIC_PAIRS = ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))
"""Index pairs (a, b) of the velocity products q̇_a q̇_b in ``EmlaCrane.dynamics_terms``."""


@nb.njit(cache=True)
def _batch_actuator_states(seg, q, qd, x_out, v_out):
    """Row-wise ``parallel_serial_kernels.piston_states``: strokes (18) and rates (21), shape (n, m)."""
    for k in range(q.shape[0]):
        piston_states(seg, q[k], qd[k], x_out[k], v_out[k])


@dataclass(frozen=True)
class EmlaCrane:
    """The lab crane with one EMLA per coordinate (lift, tilt, extension).

    ``actuators``: three objects with ``max_force`` [N], ``max_velocity`` [m/s] and ``stroke``
    [m] (``electromech.EMLA``), in the order of ``ACTUATOR_NAMES``;
    ``manipulator``: the mechanics (``machines.lab_crane.lab_crane()``; the lab crane with the
    catalogue's EMLAs is ``machines.lab_crane.emla_lab_crane()``).
    """

    actuators: tuple
    manipulator: ParallelSerialManipulator

    def __post_init__(self) -> None:
        acts = tuple(self.actuators)
        if self.manipulator.n_coords != 3 or len(acts) != 3:
            raise ParameterError(
                f"EmlaCrane needs a three-coordinate manipulator and three actuators {ACTUATOR_NAMES}; "
                f"got {self.manipulator.n_coords} coordinates and {len(acts)} actuators"
            )
        for name, act in zip(ACTUATOR_NAMES, acts):
            for attr, unit in (("max_force", "N"), ("max_velocity", "m/s"), ("stroke", "m")):
                value = getattr(act, attr, None)
                if value is None or not (math.isfinite(float(value)) and float(value) > 0.0):
                    raise ParameterError(f"{name} actuator: {attr} = {value!r} {unit}; give a finite number > 0")
        object.__setattr__(self, "actuators", acts)

    # -- limits ---------------------------------------------------------------------------------
    @property
    def max_force(self) -> np.ndarray:
        """(3,) force ratings [N] of lift, tilt, extension."""
        return np.array([float(a.max_force) for a in self.actuators])

    @property
    def max_velocity(self) -> np.ndarray:
        """(3,) velocity ratings [m/s] of lift, tilt, extension."""
        return np.array([float(a.max_velocity) for a in self.actuators])

    @property
    def reflected_mass(self) -> np.ndarray:
        """(3,) rotor-side inertia seen at the rod, J_1/f_eq² [kg] (0 for an actuator without
        one): the motor must also accelerate it, so its torque limit binds on f_x + m_r a_x."""
        return np.array(
            [
                float(getattr(a, "motor_side_inertia", 0.0)) / float(getattr(a, "force_factor", 1.0)) ** 2
                for a in self.actuators
            ]
        )

    def joint_limits(self) -> np.ndarray:
        """(3, 2) lower/upper coordinate limits [rad, rad, m]: the cylinder's travel (triangle not
        flat, ``linkage.FLAT_MARGIN``) intersected with the EMLA's stroke from zero stroke."""
        lim = self.manipulator.coordinate_limits.copy()
        segs = self.manipulator.segments
        for j, seg in enumerate(segs):
            lk = seg.linkage
            stroke = min(lk.stroke, float(self.actuators[j].stroke))
            high = angle_from_stroke(lk.length, lk.length1, lk.x0, stroke)
            if lk.x0 + stroke >= lk.length + lk.length1:
                high = 0.0
            lim[j, 1] = min(lim[j, 1], high, -FLAT_MARGIN)
        lim[2, 1] = min(lim[2, 1], float(self.actuators[2].stroke))
        return lim

    # -- trajectories -----------------------------------------------------------------------------
    def _rows(self, *arrays) -> list[np.ndarray]:
        out = [np.ascontiguousarray(np.atleast_2d(a), dtype=float) for a in arrays]
        shape = out[0].shape
        if shape[-1] != 3 or any(a.shape != shape for a in out) or not all(np.all(np.isfinite(a)) for a in out):
            raise ParameterError(
                f"give q, q̇ (, q̈) as finite arrays of equal shape (n, 3); got {[a.shape for a in out]}"
            )
        return out

    def _check_workspace(self, q: np.ndarray) -> None:
        lim = self.manipulator.coordinate_limits
        bad = (q < lim[:, 0] - 1e-12) | (q > lim[:, 1] + 1e-12)
        if np.any(bad):
            k, i = np.argwhere(bad)[0]
            raise ParameterError(
                f"sample {k}: {self.manipulator.coordinate_names[i]} = {q[k, i]:.6g} is outside "
                f"[{lim[i, 0]:.6g}, {lim[i, 1]:.6g}]; keep the trajectory inside the workspace"
            )

    def actuator_states(self, q, qd) -> tuple[np.ndarray, np.ndarray]:
        """Actuator positions x [m] (stroke from zero) and velocities v_x [m/s], each (n, 3),
        along joint samples q, q̇ (n, 3): (18), (21) for lift and tilt, x_t2 for the telescope."""
        q, qd = self._rows(q, qd)
        self._check_workspace(q)
        x, v = np.empty_like(q), np.empty_like(q)
        _batch_actuator_states(self.manipulator.arrays[0], q, qd, x, v)
        return x, v

    def stroke_jacobian(self, q) -> np.ndarray:
        """(n, 3) dx/dq: J_x = −L L1 sin q_j / ℓ (21) for lift and tilt [m/rad], 1 for the telescope."""
        q = self._rows(q)[0]
        return self.actuator_states(q, np.ones_like(q))[1]

    def actuator_forces(self, q, qd, qdd) -> np.ndarray:
        """Actuator forces f_x [N] (n, 3) along joint samples: (68) and (55) of Petrović & Mattila,
        the RNEA (42) of Bahari et al.; raises ``ParameterError`` if a sample leaves the workspace."""
        q, qd, qdd = self._rows(q, qd, qdd)
        return self.manipulator.actuator_forces_batch(q, qd, qdd)

    def actuator_motion(self, q, qd, qdd) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x [m], v_x [m/s], f_x [N]), each (n, 3): positions, velocities and forces (42)."""
        x, v = self.actuator_states(q, qd)
        return x, v, self.actuator_forces(q, qd, qdd)

    def check_force_limits(self, force, where: str = "") -> None:
        """Raise ``ParameterError`` if any |f_x| (n, 3) exceeds its actuator's ``max_force``."""
        force = np.atleast_2d(np.asarray(force, dtype=float))
        ratio = np.abs(force) / self.max_force
        if np.any(ratio > 1.0 + 1e-9):
            k, i = np.unravel_index(np.argmax(ratio), ratio.shape)
            raise ParameterError(
                f"{ACTUATOR_NAMES[i]} actuator force {force[k, i]:.6g} N{where} exceeds its rating "
                f"{self.max_force[i]:.6g} N; choose a stronger EMLA or another pose/motion"
            )

    def dynamics_terms(self, q) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Split the recursion (42) at joint samples q (n, 3) into

        .. math:: f_x = A(q) q̈ + C(q) π(q̇) + g(q),

        π(q̇) = [q̇_a q̇_b for (a, b) in ``QUADRATIC_PAIRS``] — exact, since the Newton–Euler
        forces are linear in q̈ and quadratic in q̇. Returns g (n, 3) [N], A (n, 3, 3) and
        C (n, 3, 6), all from evaluations of the same compiled recursion.
        """
        q = self._rows(q)[0]
        self._check_workspace(q)
        n = len(q)
        eye = np.eye(3)
        # inputs: 0 → g; 1..3 → q̈ = e_i; 4..6 → q̇ = e_a; 7..9 → q̇ = e_a + e_b
        qd_rows = [np.zeros(3)] * 4 + [eye[a] for a in range(3)] + [eye[a] + eye[b] for a, b in QUADRATIC_PAIRS[3:]]
        qdd_rows = [np.zeros(3)] + [eye[i] for i in range(3)] + [np.zeros(3)] * 6
        n_in = len(qd_rows)
        qq = np.repeat(q, n_in, axis=0)
        qd = np.tile(np.array(qd_rows), (n, 1))
        qdd = np.tile(np.array(qdd_rows), (n, 1))
        out = np.empty_like(qq)
        batch_inverse_dynamics(*self.manipulator.arrays, qq, qd, qdd, out)
        out = out.reshape(n, n_in, 3)
        g = out[:, 0]
        a = np.transpose(out[:, 1:4] - g[:, None], (0, 2, 1))
        c = np.empty((n, 3, 6))
        c[:, :, :3] = np.transpose(out[:, 4:7] - g[:, None], (0, 2, 1))
        for k, (i, j) in enumerate(QUADRATIC_PAIRS[3:], start=3):
            c[:, :, k] = out[:, 4 + k] - g - c[:, :, i] - c[:, :, j]
        return g, a, c


def quadratic_velocity_terms(qd) -> np.ndarray:
    """π(q̇) (n, 6): the products q̇_a q̇_b of ``QUADRATIC_PAIRS``."""
    qd = np.atleast_2d(np.asarray(qd, dtype=float))
    return np.stack([qd[:, a] * qd[:, b] for a, b in QUADRATIC_PAIRS], axis=1)

"""MuJoCo model of a parallel–serial manipulator and the cross-check of eq. (68) against it.

``build_mjcf`` writes the same bodies, frames and inertias as ``ParallelSerialManipulator``
into MJCF: per structure the link L_j (welded to its parent), the link L_j1 on a hinge q_j, the
cylinder case on a hinge q_j1 at the base pin, the piston on a slide x_j, and when present the
telescope (case welded, rod on a slide x_tj, load welded). Each triangle is closed by an
equality ``connect`` between a site at the rod pin on the piston and one on the link, so the
model is the closed-loop crane (a keyframe ``closed`` holds a consistent pose).

Comparison method (the brief's accepted one): MuJoCo cannot return the cylinder force of a
soft closed loop exactly, so ``compare_inverse_dynamics`` disables the equality constraints,
runs ``mj_inverse`` on the **open tree** (qfrc_inverse = M(y) ÿ + bias(y, ẏ), exact) at
closed-loop-consistent y, ẏ, ÿ, and maps the open-tree generalised forces to the cylinder
force by virtual work through the loop Jacobian: with the closed-loop coordinate q_j and the
dependent q_j1(q_j), x_j(q_j),

    f_cj = τ_xj + (τ_qj + τ_qj1 ∂q_j1/∂q_j) / (∂x_j/∂q_j),     f_ctj = τ_xtj.

The dependent coordinates come from an independent closure (q_j1 = atan2(L1 sin q, L + L1 cos q),
ℓ = |…|, not eqs. 19–23); their rates and the Jacobian by 4th-order finite differences.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError, needs_extras
from .parallel_serial import ParallelSerialManipulator
from .rigid_body import RigidBody

with needs_extras("actuatorlab.mechanics.mujoco_model"):
    import mujoco


def _fmt(values) -> str:
    return " ".join(f"{float(v):.17g}" for v in np.ravel(values))


def _quat(rotation) -> str:
    quat = np.empty(4)
    mujoco.mju_mat2Quat(quat, np.asarray(rotation, dtype=float).ravel())
    return _fmt(quat)


def _inertial(body: RigidBody) -> str:
    i = np.asarray(body.inertia)
    mass = max(body.mass, 1e-9)
    full = [i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2]]
    if not np.any(full):
        full = [1e-9, 1e-9, 1e-9, 0, 0, 0]
    return f'<inertial pos="{_fmt(body.com)}" mass="{mass:.17g}" fullinertia="{_fmt(full)}"/>'


def _structure(crane: ParallelSerialManipulator, j: int, pos, rot, equalities: list) -> str:
    seg = crane.segments[j]
    lk, lc, n = seg.linkage, seg.rod_length, j + 1
    exit_pos = np.array([lk.length1, 0.0, 0.0]) + np.asarray(seg.exit.translation)
    if seg.prismatic is not None:
        p = seg.prismatic
        after = (
            _structure(crane, j + 1, p.exit.translation, p.exit.rotation, equalities)
            if j + 1 < len(crane.segments)
            else ""
        )
        tail = (
            f'<body name="P2_{n}" pos="{_fmt(exit_pos)}" quat="{_quat(seg.exit.rotation)}">{_inertial(p.case)}'
            f'<body name="B5_{n}" pos="{p.base_offset:.17g} 0 0"><joint name="xt{n}" type="slide" axis="1 0 0"/>'
            f"{_inertial(p.rod)}"
            f'<body name="P3_{n}" pos="{_fmt(p.rod_to_load.translation)}" quat="{_quat(p.rod_to_load.rotation)}">'
            f"{_inertial(p.load)}{after}</body></body></body>"
        )
    else:
        tail = _structure(crane, j + 1, exit_pos, seg.exit.rotation, equalities) if j + 1 < len(crane.segments) else ""
    equalities.append(f'<connect site1="rodpin_{n}" site2="linkpin_{n}"/>')
    return (
        f'<body name="B0_{n}" pos="{_fmt(pos)}" quat="{_quat(rot)}">{_inertial(seg.link_base)}'
        f'<body name="B1_{n}" pos="{lk.length:.17g} 0 0"><joint name="q{n}" type="hinge" axis="0 0 1"/>'
        f'{_inertial(seg.link)}<site name="linkpin_{n}" pos="{lk.length1:.17g} 0 0"/>{tail}</body>'
        f'<body name="B3_{n}"><joint name="q{n}1" type="hinge" axis="0 0 1"/>{_inertial(seg.case)}'
        f'<body name="B4_{n}" pos="{lk.x0 - lc:.17g} 0 0"><joint name="x{n}" type="slide" axis="1 0 0"/>'
        f'{_inertial(seg.rod)}<site name="rodpin_{n}" pos="{lc:.17g} 0 0"/></body></body></body>'
    )


def open_tree_coordinates(crane: ParallelSerialManipulator, q: np.ndarray) -> np.ndarray:
    """Open-tree coordinates [(q_j, q_j1, x_j), (x_tj)] per structure from closed-loop q, by the
    independent closure q_j1 = atan2(L1 sin q, L + L1 cos q), x = |(L + L1 cos q, L1 sin q)| − x0.
    ``q`` may be (m,) or (n, m)."""
    q = np.atleast_2d(q)
    cols, c = [], 0
    for seg in crane.segments:
        lk = seg.linkage
        pin_x = lk.length + lk.length1 * np.cos(q[:, c])
        pin_y = lk.length1 * np.sin(q[:, c])
        cols += [q[:, c], np.arctan2(pin_y, pin_x), np.hypot(pin_x, pin_y) - lk.x0]
        c += 1
        if seg.prismatic is not None:
            cols.append(q[:, c])
            c += 1
    return np.column_stack(cols)


def build_mjcf(crane: ParallelSerialManipulator, q_closed=None) -> str:
    """MJCF text of ``crane`` (world y up, gravity −g along y); keyframe ``closed`` at q_closed
    (closed-loop coordinates; default mid-range)."""
    equalities: list[str] = []
    body = _structure(crane, 0, crane.base.translation, crane.base.rotation, equalities)
    lim = crane.coordinate_limits
    q_closed = lim.mean(axis=1) if q_closed is None else crane.check_coordinates(q_closed)
    head = (
        f'<mujoco model="{crane.name}"><compiler angle="radian" autolimits="true"/>'
        f'<option gravity="0 {-crane.gravity:.17g} 0" integrator="implicitfast"/>'
        f"<worldbody>{body}</worldbody><equality>{''.join(equalities)}</equality>"
    )
    model = mujoco.MjModel.from_xml_string(head + "</mujoco>")
    qpos = np.empty(model.nq)
    qpos[_qpos_index(model, crane)] = open_tree_coordinates(crane, q_closed)[0]
    return head + f'<keyframe><key name="closed" qpos="{_fmt(qpos)}"/></keyframe></mujoco>'


def _joint_order(crane: ParallelSerialManipulator) -> list[str]:
    order = []
    for j, seg in enumerate(crane.segments, start=1):
        order += [f"q{j}", f"q{j}1", f"x{j}"] + ([f"xt{j}"] if seg.prismatic is not None else [])
    return order


def _qpos_index(model, crane: ParallelSerialManipulator) -> np.ndarray:
    """qpos addresses of the open-tree coordinates in ``open_tree_coordinates`` order."""
    return np.array([model.jnt_qposadr[model.joint(name).id] for name in _joint_order(crane)])


def _derivatives(f, t: np.ndarray, h: float):
    """4th-order central first and second derivatives of f(t) (arrays over t)."""
    p2, p1, m1, m2 = f(t + 2 * h), f(t + h), f(t - h), f(t - 2 * h)
    first = (-p2 + 8 * p1 - 8 * m1 + m2) / (12 * h)
    second = (-p2 + 16 * p1 - 30 * f(t) + 16 * m1 - m2) / (12 * h * h)
    return first, second


def _trajectory_parameters(crane: ParallelSerialManipulator, seed: int):
    rng = np.random.default_rng(seed)
    lim = crane.coordinate_limits
    m = crane.n_coords
    freq = rng.uniform(0.1, 0.6, size=(m, 3)) * 2 * math.pi
    phase = rng.uniform(0, 2 * math.pi, size=(m, 3))
    weight = rng.dirichlet(np.ones(3), size=m)
    return lim.mean(axis=1), 0.4 * (lim[:, 1] - lim[:, 0]), freq, phase, weight


def random_smooth_trajectory_at(crane: ParallelSerialManipulator, t, seed: int = 0) -> np.ndarray:
    """Coordinates (n, m) at times t (n,) of a random smooth trajectory: per coordinate a sum of
    three sines (0.1–0.6 Hz) inside the middle 80 % of its range."""
    centre, half, freq, phase, weight = _trajectory_parameters(crane, seed)
    t = np.atleast_1d(np.asarray(t, dtype=float))
    return centre + half * np.sum(weight * np.sin(t[:, None, None] * freq + phase), axis=2)


def random_smooth_trajectory(crane: ParallelSerialManipulator, duration: float, n: int, seed: int = 0):
    """(t, q, q̇, q̈) of ``random_smooth_trajectory_at`` on n samples over ``duration`` [s],
    rates analytic."""
    centre, half, freq, phase, weight = _trajectory_parameters(crane, seed)
    t = np.linspace(0.0, duration, n)
    arg = t[:, None, None] * freq + phase
    q = centre + half * np.sum(weight * np.sin(arg), axis=2)
    qd = half * np.sum(weight * freq * np.cos(arg), axis=2)
    qdd = -half * np.sum(weight * freq**2 * np.sin(arg), axis=2)
    return t, q, qd, qdd


@dataclass
class ComparisonStats:
    """Relative error of (68) against MuJoCo per actuator: max and RMS of |f − f_mj|/scale with
    scale = max(|f_mj|, 1 % of max_t |f_mj|); samples; wall times [s] of both methods."""

    max_relative_error: np.ndarray
    rms_relative_error: np.ndarray
    samples: int
    wall_time_mujoco: float
    wall_time_vdc: float
    forces_vdc: np.ndarray
    forces_mujoco: np.ndarray


def mujoco_actuator_forces(
    crane: ParallelSerialManipulator, t, q_of_t, q, qd, qdd, h: float = 1e-3
) -> tuple[np.ndarray, float]:
    """(actuator forces (n, m) [N], wall time of the mj_inverse loop [s]) from MuJoCo's open-tree
    inverse dynamics mapped through the loop Jacobian (module docstring). ``q_of_t(t)`` gives
    closed-loop coordinates (n, m) at times t, used for the dependent coordinates' rates; q, q̇, q̈
    are its values at ``t``."""
    model = mujoco.MjModel.from_xml_string(build_mjcf(crane))
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_EQUALITY
    data = mujoco.MjData(model)
    y = open_tree_coordinates(crane, q)
    yd, ydd = _derivatives(lambda s: open_tree_coordinates(crane, q_of_t(s)), np.asarray(t), h)
    # replace the independent coordinates' numerical rates by the exact ones
    cols, c = [], 0
    for seg in crane.segments:
        cols.append(c)
        c += 3 + (seg.prismatic is not None)
    c = 0
    for j, seg in enumerate(crane.segments):
        yd[:, cols[j]], ydd[:, cols[j]] = qd[:, c], qdd[:, c]
        if seg.prismatic is not None:
            yd[:, cols[j] + 3], ydd[:, cols[j] + 3] = qd[:, c + 1], qdd[:, c + 1]
        c += 1 + (seg.prismatic is not None)
    # loop Jacobian entries ∂q_j1/∂q_j and ∂x_j/∂q_j by central differences of the closure
    eps = 1e-6
    q_up, q_dn = q.copy(), q.copy()
    dof = {name: model.jnt_dofadr[model.joint(name).id] for name in _joint_order(crane)}
    out = np.empty_like(q)
    tau = np.empty((len(q), model.nv))
    qpos_index = _qpos_index(model, crane)
    dof_index = np.array([dof[name] for name in _joint_order(crane)])
    start = time.perf_counter()
    for k in range(len(q)):
        data.qpos[qpos_index] = y[k]
        data.qvel[dof_index] = yd[k]
        data.qacc[dof_index] = ydd[k]
        mujoco.mj_inverse(model, data)
        tau[k] = data.qfrc_inverse
    wall = time.perf_counter() - start
    c = 0
    for j, seg in enumerate(crane.segments):
        n = j + 1
        q_up[:, c] += eps
        q_dn[:, c] -= eps
        y_up, y_dn = (
            open_tree_coordinates(crane, q_up),
            open_tree_coordinates(crane, q_dn),
        )
        q_up[:, c] -= eps
        q_dn[:, c] += eps
        dq1 = (y_up[:, cols[j] + 1] - y_dn[:, cols[j] + 1]) / (2 * eps)
        dx = (y_up[:, cols[j] + 2] - y_dn[:, cols[j] + 2]) / (2 * eps)
        t_q, t_q1, t_x = (
            tau[:, dof[f"q{n}"]],
            tau[:, dof[f"q{n}1"]],
            tau[:, dof[f"x{n}"]],
        )
        out[:, c] = t_x + (t_q + t_q1 * dq1) / dx
        if seg.prismatic is not None:
            out[:, c + 1] = tau[:, dof[f"xt{n}"]]
            c += 1
        c += 1
    return out, wall


def compare_inverse_dynamics(
    crane: ParallelSerialManipulator,
    duration: float = 10.0,
    samples: int = 2000,
    seed: int = 0,
) -> ComparisonStats:
    """(68) vs MuJoCo along a random smooth trajectory (``random_smooth_trajectory``): the
    software analogue of the paper's Simscape check (≤ 0.2 %, Sec. 7 test 1)."""
    if samples < 2 or duration <= 0:
        raise ParameterError(f"samples = {samples}, duration = {duration} s: give ≥ 2 samples over a positive duration")
    t, q, qd, qdd = random_smooth_trajectory(crane, duration, samples, seed)

    def q_of_t(s):
        return random_smooth_trajectory_at(crane, s, seed)

    f_mj, wall_mj = mujoco_actuator_forces(crane, t, q_of_t, q, qd, qdd)
    start = time.perf_counter()
    f = crane.actuator_forces_batch(q, qd, qdd)
    wall_vdc = time.perf_counter() - start
    scale = np.maximum(np.abs(f_mj), 0.01 * np.abs(f_mj).max(axis=0))
    rel = np.abs(f - f_mj) / scale
    return ComparisonStats(
        rel.max(axis=0),
        np.sqrt(np.mean(rel**2, axis=0)),
        samples,
        wall_mj,
        wall_vdc,
        f,
        f_mj,
    )


def static_pose_forces(crane: ParallelSerialManipulator, q) -> tuple[np.ndarray, np.ndarray]:
    """Gravity-only holding forces at pose q: ((68) at rest, MuJoCo) [N]."""
    q = crane.check_coordinates(q)[None, :]
    zero = np.zeros_like(q)
    f_mj, _ = mujoco_actuator_forces(
        crane,
        np.zeros(1),
        lambda s: np.repeat(q, len(np.atleast_1d(s)), axis=0),
        q,
        zero,
        zero,
    )
    return crane.actuator_forces(q[0], zero[0], zero[0]), f_mj[0]


# ---------------------------------------------------------------------------------------------
# MuJoCo as the crane's mechanical plant (closed loops integrated by MuJoCo)
# ---------------------------------------------------------------------------------------------
MUJOCO_INTEGRATORS = ("rk4", "implicitfast", "implicit", "euler")
"""MuJoCo integrators offered for ``MujocoCranePlant`` (MuJoCo's mjINT_* names, lower case)."""

LOOP_IMPEDANCE = 0.9999
"""solimp d (both ends) of the loop-closing ``connect`` constraints in ``MujocoCranePlant``."""


def stroke_joint_names(crane: ParallelSerialManipulator) -> list[str]:
    """Names of the MJCF slide joints that are the actuators, in coordinate order: the
    cylinder's piston slide x_j for q_j, the telescope's slide x_tj for x_tj."""
    names = []
    for j, seg in enumerate(crane.segments, start=1):
        names.append(f"x{j}")
        if seg.prismatic is not None:
            names.append(f"xt{j}")
    return names


class MujocoCranePlant:
    """The rigid multibody of ``crane`` with its closed loops, integrated by MuJoCo and driven
    by one force per actuator (coordinate order).

    Model: ``build_mjcf(crane, q0)``, started at its keyframe (at rest at the closed-loop pose
    q0, loops closed to 1e-12 m). No geoms, hence no contacts; no joint limits.

    Actuator forces (the choice made here): each cylinder *is* the slide joint between its case
    and its piston (x_j; the telescope's x_tj between its case and rod), so a generalised force
    f on that joint's dof (``qfrc_applied``) is exactly the cylinder's force pair: +f on the rod
    and −f on the case along the cylinder axis, f > 0 extending. MuJoCo's constraint solver
    then carries it round the loop; no loop Jacobian is formed on our side. The stroke and
    its rate are read back from the same slide joint (qpos/qvel), the independent coordinates
    from the hinges q_j and the telescope slides.

    ``step(force, damping)`` adds a linear damping ``damping`` [N s/m] on the actuator dofs
    (``dof_damping``) for that step: with force = f − f_f(ẋ₀) + c ẋ₀ and damping = c =
    ∂f_f/∂ẋ(ẋ₀) the friction is the linearisation of f_f about the step's start, evaluated by
    MuJoCo at every RK4 stage (or implicitly by the implicit integrators) instead of frozen.

    Loop constraints: MuJoCo's equality constraints are soft. With its defaults (time constant
    0.02 s, impedance 0.9–0.95) the crane's ~1e5 N cylinder loads stretch the loops by
    centimetres; here the time constant is 2 × timestep (the stiffest MuJoCo allows) and the
    impedance ``LOOP_IMPEDANCE``, which keeps the loops closed to ~1e-6 m at 0.5 ms.
    """

    def __init__(
        self,
        crane: ParallelSerialManipulator,
        q0,
        timestep: float,
        integrator: str = "rk4",
    ) -> None:
        if integrator not in MUJOCO_INTEGRATORS:
            raise ParameterError(f"MuJoCo integrator {integrator!r} is unknown; choose one of {MUJOCO_INTEGRATORS}")
        if not (math.isfinite(timestep) and timestep > 0.0):
            raise ParameterError(f"timestep = {timestep!r} s: must be finite and > 0")
        q0 = crane.check_coordinates(q0)
        model = mujoco.MjModel.from_xml_string(build_mjcf(crane, q0))
        model.opt.timestep = timestep
        model.opt.integrator = getattr(mujoco.mjtIntegrator, f"mjINT_{integrator.upper()}")
        model.eq_solref[:] = (2.0 * timestep, 1.0)
        model.eq_solimp[:, :2] = LOOP_IMPEDANCE
        data = mujoco.MjData(model)
        mujoco.mj_resetDataKeyframe(model, data, 0)
        mujoco.mj_forward(model, data)
        self.model, self.data = model, data
        self.integrator = integrator
        self.timestep = float(timestep)

        def address(names, table):
            return np.array([table[model.joint(n).id] for n in names])

        coords, strokes = crane.coordinate_names, stroke_joint_names(crane)
        self.coord_qpos = address(coords, model.jnt_qposadr)
        self.coord_dof = address(coords, model.jnt_dofadr)
        self.stroke_qpos = address(strokes, model.jnt_qposadr)
        self.stroke_dof = address(strokes, model.jnt_dofadr)
        self._bad = [
            mujoco.mjtWarning.mjWARN_BADQPOS,
            mujoco.mjtWarning.mjWARN_BADQVEL,
            mujoco.mjtWarning.mjWARN_BADQACC,
        ]

    def coordinates(self) -> tuple[np.ndarray, np.ndarray]:
        """(q, q̇) in coordinate order [rad, m; per s] (copies)."""
        return self.data.qpos[self.coord_qpos], self.data.qvel[self.coord_dof]

    def strokes(self) -> tuple[np.ndarray, np.ndarray]:
        """(x, ẋ) piston strokes and rates [m, m/s] in coordinate order (copies)."""
        return self.data.qpos[self.stroke_qpos], self.data.qvel[self.stroke_dof]

    def step(self, force, damping) -> None:
        """One MuJoCo step with actuator forces ``force`` [N] (> 0 extends) and the extra linear
        damping ``damping`` [N s/m] on the actuator dofs (see the class docstring)."""
        self.model.dof_damping[self.stroke_dof] = damping
        self.data.qfrc_applied[self.stroke_dof] = force
        mujoco.mj_step(self.model, self.data)

    def loop_violation(self) -> float:
        """Largest residual of the loop-closing constraints [m] at the current state."""
        nefc = self.data.nefc
        rows = self.data.efc_type[:nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        return float(np.abs(self.data.efc_pos[:nefc][rows]).max()) if rows.any() else 0.0

    def diverged(self) -> bool:
        """True once MuJoCo has flagged a bad qpos, qvel or qacc (it then resets the state)."""
        return any(self.data.warning[w].number > 0 for w in self._bad)

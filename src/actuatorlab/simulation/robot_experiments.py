"""Synthetic identification experiments for the hydraulic robot (Sakai & Maeshima, Fig. 3).

A step locks some joints at given angles and drives the others with a sinusoidal spool input
u = A sin(2πft) (the paper: A = 0.5 or 1 V at 1 Hz; here in the spool unit of the flow gains,
default 0.03 mm). An open-loop sine makes an asymmetric cylinder drift, so a weak
proportional feedback on the piston displacement (``centering``, default 2 spool units per
metre) keeps it near mid-stroke; the logged spool signal is the input applied, so
the identification needs nothing about it. Each driven cylinder starts at rest at mid-stroke
with the pressures that hold the load and sum to p_s (the null of a zero-lap valve).

Logs keep the window ``window`` (paper: 6–10 s of each run, 4 000 samples at 1 ms), with
optional sensor noise (Gaussian, std per channel) and quantisation (rounding to a step), and
the exact model rates for tests of the regressors.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..identification.robot_least_squares import Experiment
from ..mechanics.robot_dynamics import C_AM, C_AP, HydraulicRobot, RobotParameters, cylinder_state, mechanical_regressor
from ..validation import check_quantities, non_negative, quantity
from .robot_simulation import RobotRun, simulate_robot


@dataclass(frozen=True)
class LockedStep:
    """One experiment: ``angles`` [rad] of every joint at the start (locked joints stay there)
    and the 0-based indices of the ``driven`` joints."""

    name: str
    angles: tuple[float, ...]
    driven: tuple[int, ...]

    def __post_init__(self) -> None:
        """Finite angles and at least one driven joint, each named once by a non-negative index
        (``run_step`` checks them against the robot's joint count)."""
        if not all(isinstance(a, (int, float)) and math.isfinite(a) for a in self.angles) or not self.angles:
            raise ParameterError(f"{self.name}: angles = {self.angles!r} rad: give one finite angle per joint")
        if (
            not self.driven
            or len(set(self.driven)) != len(self.driven)
            or not all(isinstance(j, int) and j >= 0 for j in self.driven)
        ):
            raise ParameterError(
                f"{self.name}: driven = {self.driven!r}: give the 0-based indices of the driven "
                "joints, each once (at least one)"
            )


@dataclass(frozen=True)
class Excitation:
    """Spool sine amplitude [spool unit] and frequency [Hz], run length and kept window [s],
    sampling period [s], centering gain [spool unit/m], sensor noise std (angle [rad], pressure
    [Pa], spool [unit]) and quantisation steps (0: none), random seed."""

    amplitude: float = quantity(0.03, "spool unit")
    frequency: float = quantity(1.0, "Hz")
    duration: float = quantity(10.0, "s")
    window: tuple[float, float] = (6.0, 10.0)
    sample_time: float = quantity(1e-3, "s")
    centering: float = quantity(2.0, "spool unit/m", non_negative)
    angle_noise: float = quantity(0.0, "rad", non_negative)
    pressure_noise: float = quantity(0.0, "Pa", non_negative)
    spool_noise: float = quantity(0.0, "spool unit", non_negative)
    angle_quantum: float = quantity(0.0, "rad", non_negative)
    pressure_quantum: float = quantity(0.0, "Pa", non_negative)
    seed: int = 0

    def __post_init__(self) -> None:
        check_quantities(self)
        if not 0.0 <= self.window[0] < self.window[1] <= self.duration:
            raise ParameterError(f"window = {self.window} s must lie inside [0, duration = {self.duration}] s")


def mid_stroke_angle(robot: HydraulicRobot, joint: int) -> float:
    """The joint angle [rad] at which cylinder ``joint`` is at mid-stroke (s = 0)."""
    c = robot.cylinders[joint]
    cos_theta = (c.base_distance**2 + c.link_distance**2 - c.mid_stroke_length**2) / (
        2 * c.base_distance * c.link_distance
    )
    theta = math.acos(cos_theta)
    # choose the branch of θ whose sign the offset implies (θ ∈ (−π, 0) for offset −π)
    return (-theta if c.angle_offset < -math.pi / 2 else theta) - c.angle_offset


def paper_steps(
    robot: HydraulicRobot,
    q1_locked: float = math.radians(60.0),
    q2_min: float = math.radians(60.0),
    q2_max: float = math.radians(100.0),
) -> list[LockedStep]:
    """Steps 1–3 of Fig. 3 for a 2-DOF robot: joint 1 locked and joint 2 driven; joint 2 locked at
    q2min, then at q2max, with joint 1 driven (locked angles: our choice, the paper gives none)."""
    if robot.joints != 2:
        raise ParameterError("paper_steps is for 2 joints; describe the steps of other robots with LockedStep")
    q1_mid, q2_mid = mid_stroke_angle(robot, 0), mid_stroke_angle(robot, 1)
    return [
        LockedStep("step1", (q1_locked, q2_mid), (1,)),
        LockedStep("step2", (q1_mid, q2_min), (0,)),
        LockedStep("step3", (q1_mid, q2_max), (0,)),
    ]


def simultaneous_step(robot: HydraulicRobot) -> LockedStep:
    """Every joint driven at once from mid-stroke (the paper's "simultaneous approach")."""
    return LockedStep(
        "simultaneous", tuple(mid_stroke_angle(robot, j) for j in range(robot.joints)), tuple(range(robot.joints))
    )


def holding_pressures(
    robot: HydraulicRobot, params: RobotParameters, angles: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(p+, p−) [Pa] that hold the robot at rest at ``angles`` with p+ + p− = p_s per cylinder."""
    n = robot.joints
    y = np.empty((n, len(params.mechanical)))
    mechanical_regressor(angles, np.zeros(n), np.zeros(n), robot.gravity, robot.gravity_tilt, y)
    torque = y @ params.mechanical
    cyl = robot.cylinder_array()
    arms = np.array([cylinder_state(cyl[i], angles[i])[1] for i in range(n)])
    force = torque / arms
    p_plus = (robot.supply_pressure * cyl[:, C_AM] + force) / (cyl[:, C_AM] + cyl[:, C_AP])
    return p_plus, (cyl[:, C_AP] * p_plus - force) / cyl[:, C_AM]


def run_step(
    robot: HydraulicRobot, params: RobotParameters, step: LockedStep, excitation: Excitation, repetition: int = 0
) -> RobotRun:
    """Simulate one step over the whole ``duration`` (no noise); raises SimulationError if it fails."""
    n = robot.joints
    angles = np.asarray(step.angles, dtype=float)
    if angles.shape != (n,) or not all(0 <= j < n for j in step.driven) or not step.driven:
        raise ParameterError(f"{step.name}: give {n} angles and driven joints among 0…{n - 1}")
    driven = np.zeros(n, dtype=bool)
    driven[list(step.driven)] = True
    t = np.arange(0.0, excitation.duration + 0.5 * excitation.sample_time, excitation.sample_time)
    u = np.zeros((len(t), n))
    phase = 2 * math.pi * excitation.frequency * t
    u[:, driven] = excitation.amplitude * np.sin(phase)[:, None]
    p_plus, p_minus = holding_pressures(robot, params, angles)
    return simulate_robot(robot, params, t, u, angles, p_plus, p_minus, driven=driven, centering=excitation.centering)


def _measured(x: np.ndarray, noise: float, quantum: float, rng: np.random.Generator) -> np.ndarray:
    if noise > 0:
        x = x + rng.normal(0.0, noise, x.shape)
    if quantum > 0:
        x = quantum * np.round(x / quantum)
    return x


def make_experiment(
    robot: HydraulicRobot, params: RobotParameters, step: LockedStep, excitation: Excitation, repetition: int = 0
) -> Experiment:
    """The log of one step: the kept window, with sensor noise and quantisation, and exact rates."""
    run = run_step(robot, params, step, excitation, repetition)
    keep = (run.t >= excitation.window[0] - 1e-9) & (run.t < excitation.window[1] - 1e-9)
    rng = np.random.default_rng([excitation.seed, repetition, zlib.crc32(step.name.encode())])
    q = _measured(run.q[keep], excitation.angle_noise, excitation.angle_quantum, rng)
    locked = [j for j in range(robot.joints) if j not in step.driven]
    q[:, locked] = run.q[keep][:, locked]  # a locked joint is fixed; its sensor noise would not matter
    exact = {"qd": run.qd[keep], "qdd": run.qdd[keep], "dp_plus": run.dp_plus[keep], "dp_minus": run.dp_minus[keep]}
    return Experiment(
        step.name,
        run.t[keep],
        q,
        _measured(run.p_plus[keep], excitation.pressure_noise, excitation.pressure_quantum, rng),
        _measured(run.p_minus[keep], excitation.pressure_noise, excitation.pressure_quantum, rng),
        _measured(run.u[keep], excitation.spool_noise, 0.0, rng),
        repetition,
        exact,
    )


def make_experiments(
    robot: HydraulicRobot,
    params: RobotParameters,
    steps: Sequence[LockedStep],
    excitation: Excitation,
    repetitions: int = 1,
) -> list[Experiment]:
    """Every step, ``repetitions`` times (independent noise per repetition)."""
    return [make_experiment(robot, params, step, excitation, r) for r in range(repetitions) for step in steps]

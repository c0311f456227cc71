"""The single-DOF arm of Kikuuwe et al. Sec. 4.3 as an MJCF model, with its cylinder in MuJoCo.

The twin of :mod:`actuatorlab.simulation.arm` inside the multibody host: the arm is one body on a
hinge about z (θ counter-clockwise from +x, gravity along −y), the cylinder acts between the
sites ``base_pin`` (world) and ``arm_pin`` (arm), and the external force f_ey [N] (> 0 upward)
acts at ``load_point``. Signs as in :mod:`.cylinders`: f > 0 pushes the pins apart (extends the
cylinder, which lowers the arm). SI units.
"""

from __future__ import annotations

import math

import numpy as np

from ..hydraulics.pressure_dynamics import PressureDynamics
from ..hydraulics.quasistatic.circuit import ValveCircuit
from ..hydraulics.quasistatic.relaxation import Relaxation
from ..mechanics.single_arm import SingleArm
from ..simulation.result import Channel, SimulationResult
from ..validation import positive
from .cylinders import PressureCylinder, QuasistaticCylinder, SiteLoad
from .system import HydraulicMujocoSystem

ARM_JOINT = "theta"
ARM_BASE_SITE = "base_pin"
ARM_ROD_SITE = "arm_pin"
ARM_LOAD_SITE = "load_point"


def single_arm_mjcf(arm: SingleArm, timestep: float = 1e-3) -> str:
    """MJCF of ``SingleArm``: one body on a hinge about z at the origin (θ counter-clockwise from
    +x), mass M with its centre of mass at (L_g, 0, 0) and inertia J about it, gravity g along
    −y, the Euler integrator at ``timestep`` [s]; sites ``base_pin`` at r_b (world),
    ``arm_pin`` at r_m(θ = 0) = (−L_m cos α, L_m sin α, 0) and ``load_point`` at (L_f, 0, 0) on
    the arm. Contacts are disabled."""
    positive("timestep", timestep, "s")
    lm, al = arm.mount_distance, arm.mount_angle
    pin = (-lm * math.cos(al), lm * math.sin(al))
    j = arm.inertia
    f = "{:.17g}".format
    return f"""<mujoco model="single_arm">
  <option timestep="{f(timestep)}" gravity="0 {f(-arm.gravity)} 0" integrator="Euler">
    <flag contact="disable"/>
  </option>
  <worldbody>
    <site name="{ARM_BASE_SITE}" pos="{f(arm.base[0])} {f(arm.base[1])} 0" size="0.05"/>
    <body name="arm" pos="0 0 0">
      <joint name="{ARM_JOINT}" type="hinge" axis="0 0 1" pos="0 0 0"/>
      <inertial pos="{f(arm.com_distance)} 0 0" mass="{f(arm.mass)}" diaginertia="{f(j)} {f(j)} {f(j)}"/>
      <geom type="capsule" fromto="{f(pin[0])} {f(pin[1])} 0 {f(arm.load_distance)} 0 0" size="0.05"
            contype="0" conaffinity="0" mass="0"/>
      <site name="{ARM_ROD_SITE}" pos="{f(pin[0])} {f(pin[1])} 0" size="0.05"/>
      <site name="{ARM_LOAD_SITE}" pos="{f(arm.load_distance)} 0 0" size="0.05"/>
    </body>
  </worldbody>
</mujoco>
"""


def mujoco_arm_system(
    arm: SingleArm,
    circuit: ValveCircuit,
    relaxation: Relaxation | None = None,
    timestep: float = 1e-3,
    fluid: PressureDynamics | None = None,
) -> HydraulicMujocoSystem:
    """The arm of ``single_arm_mjcf`` with one cylinder ``cylinder`` between ``base_pin`` and
    ``arm_pin``: quasistatic with ``relaxation`` (default), or pressure dynamics with ``fluid``."""
    if fluid is not None:
        cylinder = PressureCylinder("cylinder", ARM_BASE_SITE, ARM_ROD_SITE, circuit, fluid)
    else:
        cylinder = QuasistaticCylinder("cylinder", ARM_BASE_SITE, ARM_ROD_SITE, circuit, relaxation or Relaxation())
    return HydraulicMujocoSystem(single_arm_mjcf(arm, timestep), [cylinder])


def simulate_mujoco_arm(
    arm: SingleArm,
    circuit: ValveCircuit,
    relaxation: Relaxation,
    t: np.ndarray,
    valve_command,
    bleed,
    external_force,
    initial_angle: float = 0.0,
    initial_rate: float = 0.0,
    consistent: bool = False,
    fluid: PressureDynamics | None = None,
) -> SimulationResult:
    """The counterpart of ``simulation.arm.simulate_arm`` in MuJoCo: same arguments (inputs
    sampled on the uniform grid ``t`` [s], f_ey [N] positive upward at L_f), same channels
    (``theta``, ``theta_rate``, ``length``, ``force``, and ``rod_position``, ``rod_velocity``,
    ``stretch`` or the pressures). ``consistent=False`` starts the relaxed element unstretched
    like ``simulate_arm``; True starts from the holding state."""
    t = np.asarray(t, dtype=np.float64)
    h = float(t[1] - t[0])
    system = mujoco_arm_system(arm, circuit, relaxation, h, fluid)
    f_ey = np.asarray(external_force, dtype=np.float64)
    load = np.zeros((t.size, 3))
    load[:, 1] = f_ey
    result = system.simulate(
        float(t[-1]),
        {"cylinder": np.asarray(valve_command, dtype=np.float64)},
        np.asarray(bleed, dtype=np.float64),
        loads=[SiteLoad(ARM_LOAD_SITE, load)],
        qpos=[initial_angle],
        qvel=[initial_rate],
        consistent=consistent,
    )
    channels = {
        "valve_command": result.channels["cylinder.valve_command"],
        "bleed": result.channels["cylinder.bleed"],
        "external_force": Channel(f_ey, "N", "external force f_ey"),
        "theta": Channel(result["qpos_0"], "rad", "arm angle θ"),
        "theta_rate": Channel(result["qvel_0"], "rad/s", "arm angular rate θ̇"),
    }
    for key in (
        "length",
        "force",
        "rod_position",
        "rod_velocity",
        "stretch",
        "head_pressure",
        "rod_pressure",
        "pump_pressure",
    ):
        if f"cylinder.{key}" in result.channels:
            channels[key] = result.channels[f"cylinder.{key}"]
    return SimulationResult(t=result.t, channels=channels, counters=result.counters)

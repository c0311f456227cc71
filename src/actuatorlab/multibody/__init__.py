"""Hydraulic actuators inside general multibody models (MuJoCo as the host simulator).

:mod:`.mujoco_actuators` attaches cylinders to any MJCF model by naming two sites, the
cylinder's pins. Each cylinder is a relaxed quasistatic actuator (Kikuuwe et al. Sec. 4,
algorithm (72)), a member of a ``PumpNetwork`` (several relaxed actuators on one pump,
Sec. 6.2), or a pressure-dynamics (bulk-modulus) cylinder. Every MuJoCo step reads the pin
positions, computes the cylinder forces with the project's compiled kernels at MuJoCo's own
time step, applies them along the pin line (f > 0 pushes the pins apart) and steps MuJoCo.
It also computes consistent initial states (the forces and chamber states that hold a pose in
static equilibrium) and refuses unstable stiffness/step combinations before a run.
"""

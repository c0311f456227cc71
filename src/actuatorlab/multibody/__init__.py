"""Hydraulic actuators inside general multibody models (MuJoCo as the host simulator).

Cylinders attach to any MJCF model by naming two sites, the cylinder's pins, or a slide joint
(:mod:`.cylinders`; f > 0 pushes the pins apart). Each cylinder is a relaxed quasistatic actuator
(Kikuuwe et al. Sec. 4, algorithm (72)), a member of a ``PumpNetwork`` (several relaxed actuators on
one pump, Sec. 6.2), or a pressure-dynamics (bulk-modulus) cylinder, on a fixed-displacement pump or
a constant-pressure supply. One compiled loop (:mod:`.loop`, MuJoCo called by address through
:mod:`.native`) reads the pin positions every MuJoCo step, samples the valve commands and PI closed
loops (:mod:`.closed_loop`), computes the cylinder forces with the project's compiled kernels at
MuJoCo's own time step (:mod:`.kernels`), applies them along the pin line and steps MuJoCo (driven
by :mod:`.system`). :mod:`.model_file` prepares a user's MJCF or URDF file (unmodified on disk) and
:mod:`.machine` derives strokes, pressures, power and energy. The system also computes consistent
initial states (:mod:`.holding`: the forces and chamber states that hold a pose in static
equilibrium) and refuses unstable stiffness/step combinations before and during a run
(:mod:`.stability`). :mod:`.arm_twin` is the MJCF twin of the single-DOF arm, :mod:`.excavator` the
20 t excavator on one pump.
"""

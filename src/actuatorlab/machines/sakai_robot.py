"""The 2-DOF hydraulic robot of Sakai & Maeshima as data: Table II (the known robot) and the
means of Table III (the identified parameters, the truth of the synthetic experiments).

Built through the validated classes of :mod:`actuatorlab.mechanics.robot_dynamics`, whose
docstring gives the conventions. SI units; the flow gains in m³/(s·mm·√Pa), the spool input
being logged in mm (a reading taken). Joint 2's triangle angle is θ2 = q2 − π.
"""

from __future__ import annotations

import math

import numpy as np

from ..hydraulics.fluid import SAKAI_BULK_MODULUS
from ..mechanics.robot_dynamics import CylinderMount, HydraulicRobot, RobotParameters

SUPPLY_PRESSURE = 7.0e6
"""p_s [Pa], Table II."""
GRAVITY = 9.8
"""g [m/s²], Table II."""

MID_STROKE_LENGTH = 0.30
"""ℓc [m], Table II: the cylinder's length at mid-stroke (a reading taken)."""
STROKE = 0.075
"""L [m], Table II (the printed 7.5×10² m is a typo for 75 mm, I2)."""
HEAD_AREA = 7.0e-4
"""A+ [m²], Table II."""
ROD_AREA = 5.4e-4
"""A− [m²], Table II."""

MECHANICAL = (4.47, 1.27, 1.37, 50.77, 4.43, 8.55, 3.30)
"""a1 = [M1, M2, R12 (kg m²), Fv1, Fv2 (N m s/rad), W1, W2 (kg m)], Table III means."""
FLOW_GAINS_TABULATED = ((6.31, 6.60, 5.50, 6.27), (6.28, 5.36, 5.44, 6.19))
"""[C++, C+−, C−+, C−−] of valves 1 and 2 in units of ``FLOW_GAIN_UNIT``, Table III means as
tabulated (the C−− labels assigned by table order)."""
FLOW_GAIN_UNIT = 1e-7
"""The table's unit of the flow gains [m³/(s·mm·√Pa)]."""


def _mount(base_distance: float, link_distance: float, angle_offset: float, line_volume: float) -> CylinderMount:
    return CylinderMount(
        base_distance,
        link_distance,
        angle_offset,
        MID_STROKE_LENGTH,
        STROKE,
        HEAD_AREA,
        ROD_AREA,
        line_volume,
        line_volume,
    )


def table2_robot() -> HydraulicRobot:
    """Table II: ℓ01 = 0.11, ℓ10 = 0.33, ℓ12 = 0.27, ℓ21 = 0.10 m, line volumes V0±1 = 7.9e-5,
    V0±2 = 6.3e-5 m³, with the cylinder, supply and gravity constants of this module."""
    return HydraulicRobot(
        (_mount(0.11, 0.33, 0.0, 7.9e-5), _mount(0.27, 0.10, -math.pi, 6.3e-5)),
        supply_pressure=SUPPLY_PRESSURE,
        gravity=GRAVITY,
    )


def table3_parameters() -> RobotParameters:
    """Table III means: ``MECHANICAL``, ``fluid.SAKAI_BULK_MODULUS``, ``FLOW_GAINS_TABULATED``."""
    return RobotParameters(np.array(MECHANICAL), SAKAI_BULK_MODULUS, FLOW_GAIN_UNIT * np.array(FLOW_GAINS_TABULATED))

"""Electro-mechanical linear actuators (Bahari et al.): PMSM, screw, EMLA dynamics, losses, efficiency."""

from .catalog import JOINTS, load_actuators
from .efficiency import (
    EfficiencyMap,
    actuation_efficiency,
    actuator_efficiency,
    actuator_power,
    efficiency_map,
    feasibility,
    operating_point_records,
)
from .emla import EMLA, Linearisation, linearise
from .losses import Inverter
from .pmsm import PMSM
from .screw import Gearbox, Screw, series_stiffness

__all__ = [
    "EMLA",
    "JOINTS",
    "PMSM",
    "EfficiencyMap",
    "Gearbox",
    "Inverter",
    "Linearisation",
    "Screw",
    "actuation_efficiency",
    "actuator_efficiency",
    "actuator_power",
    "efficiency_map",
    "feasibility",
    "linearise",
    "load_actuators",
    "operating_point_records",
    "series_stiffness",
]

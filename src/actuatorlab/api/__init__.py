"""The public Python surface of actuatorlab: load a scenario, change it, run it, sweep it,
identify from logs, export an actuator as an FMU. Everything here is re-exported at the package's top level."""

from .export import export_fmu
from .identify import identify_hydraulic_robot, identify_transfer_function
from .results import KeyFigure, RunResult, compare
from .scenario import Scenario, load
from .sweeps import SweepResult, sweep

from .. import __all__ as __all__  # noqa: E402,F401 (one list of the public names, in the package root)

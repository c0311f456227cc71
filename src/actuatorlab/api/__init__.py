"""The public Python surface of actuatorlab: load a scenario, change it, run it, sweep it,
identify from logs. Everything here is re-exported at the package's top level."""

from .identify import identify_hydraulic_robot, identify_transfer_function
from .results import KeyFigure, RunResult, compare
from .scenario import Scenario, load
from .sensitivity import SensitivityResult, sensitivity
from .sweeps import SweepResult, sweep

from .. import __all__ as __all__  # noqa: E402,F401 (one list of the public names, in the package root)

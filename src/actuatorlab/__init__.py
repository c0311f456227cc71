"""actuatorlab: model, simulate, identify and control linear actuators of robots and heavy machines."""

__version__ = "0.1.0"

"""FMU export of actuatorlab's actuators (FMI 3.0 and 2.0 co-simulation), running without Python.

The C sources in ``c/`` are a second implementation of the quasistatic kernels (their twins in
``hydraulics/quasistatic`` and ``numerics``; tests/test_fmu_twins.py holds both equal) and of
the pressure-dynamics rates (``hydraulics/pressure_dynamics.py``; tests/test_fmu_pressure.py); the
variable table (``variables.py``) writes both the model description and the C header, so the
ports, units and start values of the description are those the binary uses.
Layer: above ``scenarios`` (it reads scenario files), below ``api``.
"""

from .errors import ExportError
from .export import FMI_VERSIONS, export_scenario

__all__ = ["ExportError", "FMI_VERSIONS", "export_scenario"]

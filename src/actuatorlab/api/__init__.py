"""The public Python surface of actuatorlab: load a scenario, change it, run it, sweep it,
rank what matters, identify from logs, calibrate a scenario to logs, export an actuator as an
FMU. Everything here is re-exported at the package's top level.

Each name is imported from its module on first use, so ``actuatorlab show`` and ``load`` do
not pay for pandas, matplotlib or Dask.
"""

from __future__ import annotations

import importlib

from .. import __all__ as __all__  # one list of the public names, in the package root

HOMES = {
    "KeyFigure": "results",
    "RunResult": "results",
    "compare": "results",
    "Scenario": "scenario",
    "load": "scenario",
    "open": "opening",
    "SweepResult": "sweeps",
    "sweep": "sweeps",
    "identify_hydraulic_robot": "identify",
    "identify_transfer_function": "identify",
    "inspect_hydraulic_robot_logs": "identify",
    "inspect_transfer_function_log": "identify",
    "calibrate": "calibration",
    "export_fmu": "export",
    "SensitivityResult": "sensitivities",
    "sensitivity": "sensitivities",
}
"""Public name → the module of ``actuatorlab.api`` that defines it."""


def __getattr__(name: str):
    if name in HOMES:
        return getattr(importlib.import_module(f"{__name__}.{HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])

"""actuatorlab: model, simulate, identify and control linear actuators of robots and heavy machines.

The Python API (loaded on first use, so ``import actuatorlab`` stays cheap)::

    import actuatorlab
    arm = actuatorlab.load("arm-relief").set("circuit.pump_flow", "300 L/min")
    result = arm.run()          # in memory: result.table, result.summary, result.plot()
    result.save("runs/my-arm")  # the files and report of `actuatorlab run`
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = [
    "KeyFigure",
    "RunResult",
    "Scenario",
    "SensitivityResult",
    "SweepResult",
    "calibrate",
    "compare",
    "export_fmu",
    "identify_hydraulic_robot",
    "identify_transfer_function",
    "inspect_hydraulic_robot_logs",
    "inspect_transfer_function_log",
    "load",
    "open",
    "sensitivity",
    "sweep",
]


def __getattr__(name: str):
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'actuatorlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])

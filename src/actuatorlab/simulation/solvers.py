"""The names of the ODE solvers ``ode.integrate`` takes, without numba or SciPy.

A scenario's ``pressure_dynamics.solver`` is validated against ``SOLVERS`` when the file is
read, which must not load the compiler (``actuatorlab show`` prints a scenario without it).
"""

from __future__ import annotations

ADAPTIVE_SOLVERS = ("LSODA", "BDF", "Radau")
"""SciPy's stiff steppers by class name (``scipy.integrate`` is imported when one is used)."""
SOLVERS = (*ADAPTIVE_SOLVERS, "RK4")
"""Every solver name: the adaptive ones and the compiled fixed-step ``"RK4"``."""

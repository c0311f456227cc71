"""Export a scenario's actuator as a Functional Mock-up Unit (FMI 3.0 or 2.0 co-simulation)."""

from __future__ import annotations

import os
from pathlib import Path

from .scenario import Scenario, load


def export_fmu(
    scenario: Scenario | str | os.PathLike[str],
    out: str | os.PathLike[str],
    fmi: int | str = 3,
    model: str | None = None,
    overwrite: bool = False,
) -> Path:
    """Write the actuator of an ``arm`` scenario as an FMU that runs without Python.

    The scenario's circuit, relaxation or fluid become the parameters' start values, its inputs
    at t = 0 and the arm's initial cylinder length the inputs' start values. The FMU holds a
    binary for this platform (built with the system C compiler, ``cc`` or ``$CC``) and its C
    sources.

    Parameters
    ----------
    scenario : Scenario or str or os.PathLike
        A scenario, a built-in name or a scenario file.
    out : str or os.PathLike
        The FMU file to write.
    fmi : {3, 2}, default 3
        The FMI version: 3 (FMI 3.0) or 2 (FMI 2.0).
    model : {"quasistatic", "pressure-dynamics"}, optional
        ``"quasistatic"``: the relaxed actuator, one step (72) of Kikuuwe et al. per
        communication step; ``"pressure-dynamics"``: the bulk-modulus model. Default: the
        scenario's ``model``.
    overwrite : bool, default False
        Replace an ``out`` that exists and is not an FMU archive.

    Returns
    -------
    pathlib.Path
        The FMU's path.

    Raises
    ------
    ScenarioError
        The scenario kind has no actuator to export, or the folder of ``out`` is missing, not a
        folder or read-only.
    OutputTaken
        ``out`` exists and is not an FMU archive, and ``overwrite`` is false.
    ExportError
        No working C compiler, or the FMU cannot be built or written (a full disk,
        ``ulimit -f``); nothing is written then.

    Examples
    --------
    >>> import actuatorlab
    >>> path = actuatorlab.export_fmu("arm-relief", "arm-relief.fmu", fmi=3)  # doctest: +SKIP
    >>> from fmpy import simulate_fmu  # doctest: +SKIP
    >>> result = simulate_fmu(path, stop_time=1.0, output=["force"])  # doctest: +SKIP
    >>> actuatorlab.export_fmu("gamma-map", "x.fmu")
    Traceback (most recent call last):
    ...
    actuatorlab.errors.ScenarioError: export fmu: scenario kind 'gamma-map' is not exported; ...
    """
    from ..fmu import export_scenario

    loaded = scenario if isinstance(scenario, Scenario) else load(scenario)
    return export_scenario(loaded.spec, loaded.name, out, fmi, model, overwrite)

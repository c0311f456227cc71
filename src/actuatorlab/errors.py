"""Project exceptions: every error a user can cause says what to change.

``ParameterError`` for a bad parameter value (also a ``ValueError``), ``ScenarioError`` for a
bad scenario file or name, ``SimulationError`` when a run cannot go on (for example an unstable
time step), ``MissingExtra`` when an optional part's dependency is not installed (naming the
extra that installs it); the CLI prints their message in one or two lines and exits non-zero.
"""

from collections.abc import Iterator
from contextlib import contextmanager


class ActuatorlabError(Exception):
    """Base class of every error actuatorlab raises on purpose."""


class ParameterError(ActuatorlabError, ValueError):
    """A model parameter or input is outside its allowed range."""


class ScenarioError(ActuatorlabError, ValueError):
    """A scenario file or name cannot be used as written."""


class SimulationError(ActuatorlabError, RuntimeError):
    """A simulation cannot continue; the message names the time, the state and a remedy."""


class MissingExtra(ActuatorlabError, ImportError):
    """An optional dependency is not installed; the message names the extra that installs it."""


EXTRAS: dict[str, tuple[str, str]] = {
    "mujoco": ("MuJoCo", "mujoco"),
    "casadi": ("CasADi", "casadi"),
    "osqp": ("OSQP", "osqp"),
    "pymoo": ("pymoo", "pymoo"),
    "dask": ("Dask", "dask"),
    "distributed": ("Dask", "dask"),
    "fmpy": ("FMPy", "fmpy"),
}
"""Module an optional part imports → (its name, the extra of ``pyproject.toml`` that installs it).
``make install`` installs every extra; ``pip install actuatorlab`` installs none."""


def missing_extra(error: ImportError, what: str) -> ImportError:
    """``error`` as a :class:`MissingExtra` saying that ``what`` needs an optional dependency
    and how to install it (``the machine kind needs MuJoCo, which is not installed: pip install
    'actuatorlab[mujoco]'``), when the module it could not find (or one in its chain of causes)
    is one of :data:`EXTRAS`; any other ``ImportError`` as it is (a broken install is not a
    missing extra).

    The one place where a missing optional dependency becomes a message: the kinds' modules,
    sweeps on Dask and the packages that stand on MuJoCo import through :func:`needs_extras`.

    Examples
    --------
    >>> error = ModuleNotFoundError("No module named 'osqp'", name="osqp")
    >>> print(missing_extra(error, "the ieha-mpc kind"))
    the ieha-mpc kind needs OSQP, which is not installed: pip install 'actuatorlab[osqp]'
    >>> other = ModuleNotFoundError("No module named 'nothing'", name="nothing")
    >>> missing_extra(other, "this") is other  # not an optional dependency: left as it is
    True
    """
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ModuleNotFoundError) and (cause.name or "").split(".")[0] in EXTRAS:
            name, extra = EXTRAS[cause.name.split(".")[0]]
            return MissingExtra(f"{what} needs {name}, which is not installed: pip install 'actuatorlab[{extra}]'")
        cause = cause.__cause__ or cause.__context__
    return error


@contextmanager
def needs_extras(what: str) -> Iterator[None]:
    """A context in which a missing optional dependency raises :class:`MissingExtra`.

    The message says that ``what`` needs it and which extra installs it (see
    :func:`missing_extra`)::

        with needs_extras("the machine kind"):
            module = importlib.import_module("actuatorlab.scenarios.kinds.machine")
    """
    try:
        yield
    except ImportError as error:  # a MissingExtra of an inner context is said again for this one, nearer the user
        translated = missing_extra(error, what)
        if translated is error:
            raise
        raise translated from error

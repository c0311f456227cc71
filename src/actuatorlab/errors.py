"""Project exceptions: every error a user can cause says what to change.

``ParameterError`` for a bad parameter value (also a ``ValueError``), ``ScenarioError`` for a
bad scenario file or name, ``SimulationError`` when a run cannot go on (for example an unstable
time step); the CLI prints their message in one or two lines and exits non-zero.
"""


class ActuatorlabError(Exception):
    """Base class of every error actuatorlab raises on purpose."""


class ParameterError(ActuatorlabError, ValueError):
    """A model parameter or input is outside its allowed range."""


class ScenarioError(ActuatorlabError, ValueError):
    """A scenario file or name cannot be used as written."""


class SimulationError(ActuatorlabError, RuntimeError):
    """A simulation cannot continue; the message names the time, the state and a remedy."""

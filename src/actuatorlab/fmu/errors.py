"""The error of an export that cannot be done on this machine (no C compiler, a failed build)."""

from ..errors import ActuatorlabError


class ExportError(ActuatorlabError, RuntimeError):
    """An FMU cannot be built here; the message names what to install or change."""

"""The built site reads offline: a build check (``build-finished``) that no page loads a script,
a style sheet, a font or an image from the network (a CDN), and that MathJax is the copy shipped
in ``_static/mathjax`` (``sphinx-mathjax-offline``). Each finding is a warning, so ``make docs``
(``-W``) fails on it. Links a reader follows (``<a href>``) are not loads and are allowed.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

REMOTE_LOAD = re.compile(
    r"<(?:script|link|img|iframe|source|embed|object)\b[^>]*?\b(?:src|href|data)\s*=\s*[\"']((?:https?:)?//[^\"']+)",
    re.IGNORECASE,
)
"""A tag that makes the browser fetch its ``src``/``href`` from another host."""
REMOTE_CSS = re.compile(r"(?:@import\s+|url\()\s*[\"']?((?:https?:)?//[^\"')\s]+)", re.IGNORECASE)
"""A style sheet's ``@import`` or ``url(...)`` from another host."""


def remote_loads(folder: Path) -> list[tuple[str, str]]:
    """(page or style sheet, address) of every load from another host in the site at ``folder``."""
    found = []
    for path in sorted(folder.rglob("*.html")):
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [(path.relative_to(folder).as_posix(), url) for url in REMOTE_LOAD.findall(text)]
    for path in sorted(folder.rglob("*.css")):
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [(path.relative_to(folder).as_posix(), url) for url in REMOTE_CSS.findall(text)]
    return found


def check_offline(app, exception) -> None:
    """Warn for every remote load of the built site, and if the local MathJax is missing."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for page, url in remote_loads(out):
        logger.warning(f"{page} loads {url} from the network: the site must read offline (ship the file)")
    mathjax = getattr(app.config, "mathjax_path", "")
    if mathjax.startswith(("http:", "https:", "//")) or not (out / "_static" / mathjax).is_file():
        logger.warning(f"MathJax is not in the site (mathjax_path = {mathjax!r}): equations would need the network")


def setup(app):
    # after sphinx-mathjax-offline's own build-finished handler, which copies MathJax into _static
    app.connect("build-finished", check_offline, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The built site reads offline: a build check (``build-finished``) that no page loads a script,
a style sheet, a font or an image from the network (a CDN), and that MathJax is the copy shipped
in ``_static/mathjax`` (``sphinx-mathjax-offline``). Each finding is a warning, so ``make docs``
(``-W``) fails on it. Links a reader follows (``<a href>``) are not loads and are allowed.

The shipped MathJax is version 3, which refuses ``\\tag`` inside the ``split`` environment that
Sphinx wraps around a displayed equation with a line break (``\\\\``, also one inside ``cases``);
:func:`tag_outside_split` moves such a tag after the ``split``, where both MathJax 3 and 4 take it.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
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


TAG = re.compile(r"\\tag\*?\{[^{}]*\}")


def tag_outside_split(latex: str) -> str | None:
    """The displayed equation ``latex`` as Sphinx would wrap it (``\\begin{split}…\\end{split}``)
    with its one ``\\tag`` after the ``split``, or None if it needs no change (no tag, no line
    break, several tags or several equations)."""
    tags = TAG.findall(latex)
    if len(tags) != 1 or "\\\\" not in latex or len([p for p in latex.split("\n\n") if p.strip()]) != 1:
        return None
    body = TAG.sub("", latex).strip()
    return "\\begin{split}" + body + "\\end{split}" + tags[0]


def move_tags(app, doctree, docname) -> None:
    """Rewrite the displayed equations that :func:`tag_outside_split` changes, unwrapped for MathJax."""
    if app.builder.format != "html":
        return
    opening, closing = app.config.mathjax_display
    for node in list(doctree.findall(nodes.math_block)):
        latex = None if node.get("nowrap") or node.get("number") else tag_outside_split(node.astext())
        if latex is not None:
            node["nowrap"] = True
            node.children = [nodes.Text(opening + latex + closing)]


def setup(app):
    app.connect("doctree-resolved", move_tags)
    # after sphinx-mathjax-offline's own build-finished handler, which copies MathJax into _static
    app.connect("build-finished", check_offline, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The run report: one self-contained HTML file rendered from a context dict.

The caller computes the context (numbers, figure files, notes) and :func:`render_report`
only renders it: inline CSS, no scripts, no external assets, every text HTML-escaped. Figures
are embedded in the page (PNG as base64 data) when the report is written next to them, so the
report stays one file that shows its pictures when moved or mailed alone; the other produced
files are linked by relative path (the run folder is their unit).

Context keys (only ``title`` is required):

``title`` (str), ``description`` (str; blank lines separate paragraphs),
``key_figures`` (list of dicts ``{name, value, unit, note}``), ``figures`` (list of dicts
``{file, caption}``, ``file`` an image path relative to the report), ``notes`` (list of str, e.g. modelling
choices), ``scenario_toml`` (str), ``files`` (list of produced file names, relative),
``generated`` (timestamp str), ``version`` (str).
"""

from __future__ import annotations

import base64
import math
import numbers
import os
from pathlib import Path
from html import escape
from pathlib import PurePosixPath, PureWindowsPath
from urllib.parse import quote

from ..io.atomic import atomic_write_text

CONTEXT_KEYS = (
    "title",
    "description",
    "key_figures",
    "figures",
    "notes",
    "scenario_toml",
    "files",
    "generated",
    "version",
)

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
       max-width: 60rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.3rem; }
h2 { font-size: 1.15rem; border-bottom: 1px solid #ccc; padding-bottom: 0.2rem;
     margin-top: 2rem; }
table { border-collapse: collapse; font-size: 0.92rem; }
th, td { padding: 0.25rem 0.8rem; border-bottom: 1px solid #e3e3e3; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1.2rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9rem; color: #444; margin-top: 0.3rem; }
pre { background: #f6f6f6; padding: 0.8rem; overflow-x: auto; font-size: 0.85rem; }
footer { margin-top: 3rem; font-size: 0.8rem; color: #777; }
"""


def render_report(context: dict, figure_dir: str | os.PathLike[str] | None = None) -> str:
    """Render the report HTML from ``context`` (keys in the module docstring).

    With ``figure_dir``, each figure found there is embedded as base64 data; a figure file
    that is missing (not drawn) is left out with a note. Without it, figures are referenced
    by their relative paths.

    Numbers in ``key_figures`` are shown with 4 significant digits (integers in full,
    NaN as "n/a").

    Raises
    ------
    ValueError
        If ``title`` is missing, a key is unknown, or a figure or file path is absolute or
        carries a URL scheme.
    """
    unknown = sorted(set(context) - set(CONTEXT_KEYS))
    if unknown:
        raise ValueError(f"unknown report context keys {unknown}; valid keys are {CONTEXT_KEYS}")
    if "title" not in context:
        raise ValueError("report context needs a 'title'")
    title = escape(str(context["title"]))
    body = [
        f"<h1>{title}</h1>",
        _paragraphs(context.get("description", "")),
        _key_figures(context.get("key_figures", [])),
        _figures(context.get("figures", []), None if figure_dir is None else Path(figure_dir)),
        _list_section("Notes", [escape(str(n)) for n in context.get("notes", [])]),
        _scenario(context.get("scenario_toml", "")),
        _list_section("Files", [_link(f) for f in context.get("files", [])]),
        _footer(context.get("generated", ""), context.get("version", "")),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(part for part in body if part)
        + "\n</body>\n</html>\n"
    )


def write_report(path: str | os.PathLike[str], context: dict) -> None:
    """Render ``context`` with its figures embedded from the report's folder and write it to
    ``path`` atomically (UTF-8)."""
    atomic_write_text(path, render_report(context, figure_dir=Path(path).parent))


def format_number(value: object) -> str:
    """A value for display: reals to 4 significant digits, integers in full, others as text."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return "" if value is None else str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    x = float(value)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    return f"{x:.4g}"


def _paragraphs(text: str) -> str:
    """``text`` as escaped ``<p>`` elements, one per blank-line-separated block."""
    blocks = [b.strip() for b in str(text).split("\n\n")]
    return "\n".join(f"<p>{escape(b)}</p>" for b in blocks if b)


def _key_figures(rows: list[dict]) -> str:
    """The key figures table, or ``""`` if there are none."""
    if not rows:
        return ""
    cells = "\n".join(
        f"<tr><td>{escape(str(r['name']))}</td>"
        f'<td class="num">{escape(format_number(r["value"]))}</td>'
        f"<td>{escape(str(r.get('unit', '')))}</td><td>{escape(str(r.get('note', '')))}</td></tr>"
        for r in rows
    )
    head = "<tr><th>Quantity</th><th>Value</th><th>Unit</th><th>Note</th></tr>"
    return f"<h2>Key figures</h2>\n<table>\n{head}\n{cells}\n</table>"


def _figures(figures: list[dict], figure_dir: Path | None) -> str:
    """One ``<figure>`` per entry, or ``""`` if there are none; images embedded from
    ``figure_dir`` when given, else referenced by relative path."""
    if not figures:
        return ""
    items = []
    for fig in figures:
        name = _relative(fig["file"])
        caption = escape(str(fig.get("caption", "")))
        if figure_dir is None:
            src = escape(quote(name), quote=True)
        else:
            path = figure_dir / name
            if not path.is_file():
                items.append(f"<p>Figure {escape(name)} ({caption}) was not drawn.</p>")
                continue
            src = f"data:{_MIME.get(path.suffix.lower(), 'application/octet-stream')};base64," + base64.b64encode(
                path.read_bytes()
            ).decode("ascii")
        items.append(f'<figure><img src="{src}" alt="{caption}"><figcaption>{caption}</figcaption></figure>')
    return "<h2>Figures</h2>\n" + "\n".join(items)


_MIME = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def _list_section(heading: str, items: list[str]) -> str:
    """A headed ``<ul>`` of already-escaped HTML ``items``, or ``""`` if there are none."""
    if not items:
        return ""
    lis = "\n".join(f"<li>{item}</li>" for item in items)
    return f"<h2>{heading}</h2>\n<ul>\n{lis}\n</ul>"


def _scenario(toml: str) -> str:
    """The scenario file in a ``<pre>`` block, or ``""`` if empty."""
    if not toml:
        return ""
    return f"<h2>Scenario</h2>\n<pre>{escape(str(toml))}</pre>"


def _link(name: str) -> str:
    """An escaped link to the relative file ``name``."""
    href = escape(quote(_relative(name)), quote=True)
    return f'<a href="{href}">{escape(str(name))}</a>'


def _footer(generated: str, version: str) -> str:
    """The footer line with timestamp and actuatorlab version, or ``""`` if both are empty."""
    parts = []
    if generated:
        parts.append(f"Generated {escape(str(generated))}")
    if version:
        parts.append(f"actuatorlab {escape(str(version))}")
    return f"<footer>{' · '.join(parts)}</footer>" if parts else ""


def _relative(name: object) -> str:
    """``name`` as a POSIX relative path; ``ValueError`` if absolute or a URL."""
    text = str(name)
    if PurePosixPath(text).is_absolute() or PureWindowsPath(text).is_absolute() or ":" in text:
        raise ValueError(f"report file {text!r} must be a path relative to the report")
    return PureWindowsPath(text).as_posix()

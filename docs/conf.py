"""Sphinx configuration of the actuatorlab documentation (``make docs``).

Pages are MyST Markdown; the API reference is generated from the docstrings (autosummary +
autodoc + numpydoc), the gallery from ``examples/plot_*.py`` (sphinx-gallery, executed at build
time: an example that raises fails the build). ``ACTUATORLAB_DOCS_QUICK=1`` shortens every
example (CI); without it the examples run their full versions.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE / "_ext"))  # report_figures, the gallery scraper of RunResult.plot()

os.environ.setdefault("MPLBACKEND", "Agg")

import actuatorlab  # noqa: E402

project = "actuatorlab"
author = "the actuatorlab developers"
copyright = "2026, the actuatorlab developers"
release = version = actuatorlab.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "unit_tables",  # docs/_ext: the units-table directive, tables read from scenarios/units.py
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "README.md",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
]
templates_path = ["_templates"]

# --- MyST -----------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True
suppress_warnings = ["myst.header"]  # architecture.md/benchmarks.md are included as written

# --- API reference --------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"  # signatures stay readable; types are in the numpydoc sections
autodoc_mock_imports: list[str] = []
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# Internal links are checked (nitpicky). Names of other libraries cannot be resolved without
# their inventories (no network at build time), so only those are ignored.
nitpicky = True
nitpick_ignore_regex = [
    (
        r"py:.*",
        r"(numpy|np|pandas|pd|matplotlib|scipy|pathlib|os|collections|typing|typing_extensions|"
        r"numba|mujoco|casadi|osqp|sympy|pydantic|dask|distributed|pint|pyarrow|enum|dataclasses|"
        r"abc|builtins|types|io|datetime)(\..*)?",
    ),
    (
        r"py:.*",
        r"(int|float|str|bool|dict|list|tuple|set|bytes|None|object|callable|Callable|Any|"
        r"Sequence|Mapping|Iterable|Iterator|NamedTuple|Path|ndarray|DataFrame|Figure|array_like|"
        r"array|optional|default|shape|function|type)",
    ),
]
# Modules outside the API reference that docstrings name (their pages do not exist, so the
# reference renders as code); everything else must resolve.
nitpick_ignore = [
    ("py:mod", name)
    for name in (
        ".kernels",
        "kernels",
        ".stability",
        ".holding",
        "stability",
        "holding",
        "actuatorlab.numerics.status",
        "actuatorlab.hydraulics.fluid",
        "actuatorlab.report.machine_figures",
    )
] + [("py:func", ".ode.integrate"), ("py:func", "ode.integrate")]

# --- Gallery --------------------------------------------------------------------------------
QUICK = os.environ.get("ACTUATORLAB_DOCS_QUICK", "") not in ("", "0")
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "abort_on_example_error": False,  # run them all, then fail the build listing every one that raised
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib", "report_figures"),  # docs/_ext/report_figures.py: RunResult.plot()
    "reset_modules": ("matplotlib",),
    "show_memory": False,
    "plot_gallery": "True",
    "write_computation_times": True,
    "run_stale_examples": True,  # every build runs every example: they test the current API (and QUICK changes the run)
}

# --- HTML -----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"actuatorlab {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path: list[str] = []
html_show_sourcelink = False


_LITERAL_OR_ROLE = re.compile(r"(``.+?``|:[\w:]+:`[^`]*`)")


def _escape_bars(app, what, name, obj, options, lines):
    """Docstrings write |x| for an absolute value or norm (no reST substitutions are used in
    this project): escape those bars so docutils does not read them as substitution references.
    Inline literals, roles (:math:) and ``.. math::`` blocks are left as they are."""
    in_math, math_indent = False, 0
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if in_math and stripped and indent <= math_indent:
            in_math = False
        if stripped.startswith(".. math::"):
            in_math, math_indent = True, indent
            if stripped[len(".. math::") :].strip():
                continue  # a one-line math directive
            continue
        if in_math or "|" not in line:
            continue
        parts = _LITERAL_OR_ROLE.split(line)
        lines[i] = "".join(part if k % 2 else part.replace("|", "\\|") for k, part in enumerate(parts))


def setup(app):
    app.connect("autodoc-process-docstring", _escape_bars)
    return {"parallel_read_safe": True}

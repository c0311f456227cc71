"""Sphinx configuration of the actuatorlab documentation (``make docs``).

Pages are MyST Markdown; the API reference is generated from the docstrings (autosummary +
autodoc + numpydoc), the gallery from ``examples/plot_*.py`` (sphinx-gallery, executed at build
time: an example that raises fails the build). ``ACTUATORLAB_DOCS_QUICK=1`` shortens every
example (CI); without it the examples run their full versions.

The site needs no network, to build or to read: the other projects' inventories (intersphinx)
are files in ``_inventories/``, and MathJax is shipped with the site (``sphinx-mathjax-offline``,
in the docs extra) instead of being loaded from a CDN; ``tests/test_docs.py`` checks both.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE / "_ext"))  # report_figures (the gallery scraper of RunResult.plot()), offline_site

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
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 copied into _static/mathjax: equations render offline
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "unit_tables",  # docs/_ext: the units-table directive, tables read from scenarios/units.py
    "offline_site",  # docs/_ext: the build fails if a page loads anything from the network
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
    "sg_execution_times.rst",  # left by builds before write_computation_times was off (see below)
    "auto_examples/sg_execution_times.rst",
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
# The types of Parameters/Returns/Raises link to their pages: the names below (and numpydoc's
# own aliases of the builtins and NumPy's basics), here and at numpy, pandas, matplotlib, MuJoCo
# and Python through intersphinx; any other word of a type stays plain text.
numpydoc_xref_param_type = True
numpydoc_xref_ignore = "all"
_PUBLIC = ["Scenario", "RunResult", "KeyFigure", "SweepResult", "SensitivityResult"]
_ERRORS = ["ActuatorlabError", "ParameterError", "ScenarioError", "SimulationError", "MissingExtra"]
_ALIASES = {
    **{name: f"actuatorlab.{name}" for name in _PUBLIC},
    **{name: f"actuatorlab.errors.{name}" for name in _ERRORS},
    "KeyFigures": "actuatorlab.api.results.KeyFigures",
    "Log": "actuatorlab.api.identify.Log",
    "DataFrame": "pandas.DataFrame",
    "pandas.DataFrame": "pandas.DataFrame",
    "pd.DataFrame": "pandas.DataFrame",
    "Series": "pandas.Series",
    "pandas.Series": "pandas.Series",
    "numpy.ndarray": "numpy.ndarray",
    "Figure": "matplotlib.figure.Figure",
    "matplotlib.figure.Figure": "matplotlib.figure.Figure",
    "Axes": "matplotlib.axes.Axes",
    "matplotlib.axes.Axes": "matplotlib.axes.Axes",
    "MjModel": "mujoco.MjModel",
    "mujoco.MjModel": "mujoco.MjModel",
    "MjData": "mujoco.MjData",
    "mujoco.MjData": "mujoco.MjData",
    "Path": "pathlib.Path",
    "pathlib.Path": "pathlib.Path",
    "os.PathLike": "os.PathLike",
    "Mapping": "collections.abc.Mapping",
    "Sequence": "collections.abc.Sequence",
    "Any": "typing.Any",
}
# numpydoc leaves a word whose alias is itself unlinked when unknown words are ignored: such
# aliases are given as roles.
numpydoc_xref_aliases = {word: f":obj:`{to}`" if word == to else to for word, to in _ALIASES.items()}
numpydoc_validation_checks: set[str] = set()

# --- Other projects (intersphinx) -----------------------------------------------------------
# Read from files in docs/_inventories (the build machines have no web access): see
# docs/_inventories/make_inventories.py for what they hold and how to replace them by the
# projects' full inventories on a machine that has.
_INVENTORIES = HERE / "_inventories"
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", str(_INVENTORIES / "python.inv")),
    "numpy": ("https://numpy.org/doc/stable/", str(_INVENTORIES / "numpy.inv")),
    "pandas": ("https://pandas.pydata.org/docs/", str(_INVENTORIES / "pandas.inv")),
    "matplotlib": ("https://matplotlib.org/stable/", str(_INVENTORIES / "matplotlib.inv")),
    "mujoco": ("https://mujoco.readthedocs.io/en/stable/", str(_INVENTORIES / "mujoco.inv")),
}

# --- Equations ------------------------------------------------------------------------------
mathjax_path = "mathjax/tex-chtml.js"  # the copy in _static/mathjax (sphinx-mathjax-offline), not a CDN

# Internal links are checked (nitpicky), and so are the names of numpy, pandas, matplotlib,
# MuJoCo and Python's standard library that the inventories hold; other libraries' names cannot
# be resolved without their inventories, so only those are ignored.
nitpicky = True
nitpick_ignore_regex = [
    (
        r"py:.*",
        r"(np|pd|scipy|typing_extensions|numba|casadi|osqp|sympy|pydantic|dask|distributed|pint|pyarrow|"
        r"enum|dataclasses|abc|builtins|types|io|datetime)(\..*)?",
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
    # No sg_execution_times pages: sphinx-gallery's load DataTables and Bootstrap from CDNs, and the
    # site must need no network (each example's page still says how long it ran).
    "write_computation_times": False,
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

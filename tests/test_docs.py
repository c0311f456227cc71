"""The documentation's own checks (issue 22): every public name of the modules the API reference
covers has a docstring, their docstring examples run, and the pages' links point at files
that exist.

The modules are those listed in the autosummary blocks of ``docs/api.md`` — one list, so a module
renamed elsewhere is one line there. ``make docs`` builds the site itself (warnings as errors,
examples executed); these tests need no Sphinx.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
API_PAGE = DOCS / "api.md"


def reference_entries(template: str) -> list[str]:
    """The names listed by docs/api.md's autosummary blocks with ``template``, in their order."""
    names, inside, chosen = [], False, False
    for line in API_PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith(".. autosummary::"):
            inside, chosen = True, False
        elif inside and line.startswith("```"):
            inside = False
        elif inside and line.strip() == f":template: {template}":
            chosen = True
        elif inside and chosen and re.fullmatch(r"\s+actuatorlab[\w.]*", line):
            names.append(line.strip())
    return names


def reference_modules() -> list[str]:
    """The modules of the API reference (the blocks with the module template)."""
    return reference_entries("actuatorlab_module.rst")


MODULES = reference_modules()
PUBLIC = reference_entries("actuatorlab_public.rst")
"""The names documented under their public path (``actuatorlab.Scenario``)."""


def public_names(module) -> list[str]:
    """A module's public names: its ``__all__``, else every name not starting with ``_`` that it
    defines itself (imported names belong to the module that defines them)."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    names = []
    for name, obj in vars(module).items():
        if name.startswith("_") or inspect.ismodule(obj):
            continue
        home = getattr(obj, "__module__", None)
        if home == module.__name__ or (home is None and not callable(obj) and name.isupper()):
            names.append(name)
    return names


def undocumented(module) -> list[str]:
    """Public names of ``module`` without a docstring of their own, and public methods and
    properties of its public classes without one (an override of a documented method has the
    docstring of the method it overrides)."""
    missing = []
    for name in public_names(module):
        obj = getattr(module, name)
        if not (inspect.isclass(obj) or callable(obj)):
            continue  # constants are documented by the module's docstring or a comment
        if not (getattr(obj, "__doc__", None) or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                target = member.fget if isinstance(member, property) else member
                if isinstance(target, (staticmethod, classmethod)):
                    target = target.__func__
                if not inspect.isfunction(target) or (target.__doc__ or "").strip():
                    continue
                if any(
                    (getattr(base, attr, None).__doc__ or "").strip()
                    for base in obj.__mro__[1:]
                    if inspect.isfunction(getattr(base, attr, None))
                ):
                    continue  # an override: documented by the method it overrides (as autodoc shows it)
                if target.__name__ == "<lambda>" and re.search(rf"\b{attr}\b", obj.__doc__ or ""):
                    continue  # a one-line property alias, documented in its class's docstring
                missing.append(f"{name}.{attr}")
    return missing


def test_the_reference_lists_modules():
    assert len(MODULES) >= 30, MODULES
    assert len(set(MODULES)) == len(MODULES), "a module is listed twice in docs/api.md"


@pytest.mark.parametrize("name", MODULES)
def test_every_public_name_of_a_reference_module_has_a_docstring(name):
    module = importlib.import_module(name)
    assert (module.__doc__ or "").strip(), f"{name} has no module docstring"
    missing = undocumented(module)
    assert not missing, f"{name}: public names without a docstring: {', '.join(missing)}"


@pytest.mark.parametrize("name", [m for m in MODULES if not m.startswith("actuatorlab.api.")])
def test_docstring_examples_run(name):
    """The ``>>>`` examples of the reference modules (those of actuatorlab.api run in
    tests/test_api.py)."""
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        if test.examples:
            runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} failing docstring examples (run pytest -s to see them)"


def test_the_checker_finds_an_undocumented_name():
    """The check above is not vacuous: a module with an undocumented function fails it."""
    import types

    fake = types.ModuleType("fake")

    def documented():
        """Has one."""

    def bare():
        pass

    documented.__module__ = bare.__module__ = "fake"
    fake.documented, fake.bare = documented, bare
    assert undocumented(fake) == ["bare"]


PAGES = sorted(DOCS.rglob("*.md"))
LINK = re.compile(r"\]\((?!https?://|mailto:|#)([^)\s]+?)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", [p.relative_to(ROOT).as_posix() for p in PAGES] + ["README.md"])
def test_relative_links_of_pages_point_at_files(page):
    """Markdown links between pages (and the README's links into docs/) name files that exist;
    Sphinx checks the rest of the cross-references when it builds (nitpicky)."""
    path = ROOT / page
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
    for target in LINK.findall(text):
        if target.startswith(("auto_examples/", "../auto_examples/", "generated/")) or "{" in target:
            continue  # built by Sphinx
        assert (path.parent / target).exists(), f"{page}: link to {target}, which does not exist"


def test_the_gallery_covers_every_paper_a_sweep_and_mujoco():
    """At least ten examples; each paper, a sweep and MuJoCo among them; each honours the quick mode."""
    examples = sorted((ROOT / "examples").glob("plot_*.py"))
    assert len(examples) >= 10, [e.name for e in examples]
    text = {e.name: e.read_text(encoding="utf-8") for e in examples}
    for needle in (
        "hydraulics.quasistatic",
        "crane",
        "identify_hydraulic_robot",
        "ieha",
        "electromech",
        "actuatorlab.sweep(",
        "mujoco",
    ):
        assert any(needle in t for t in text.values()), f"no example uses {needle}"
    for name, t in text.items():
        assert "ACTUATORLAB_DOCS_QUICK" in t, f"{name} ignores ACTUATORLAB_DOCS_QUICK"


# --- the reference under the public names, with numpydoc sections ------------------------------


def test_the_reference_documents_the_package_root_under_its_public_names():
    """Each of ``actuatorlab.__all__`` has its page as ``actuatorlab.NAME``; no module of
    ``actuatorlab.api`` has a page of its own, and no page names a public object by its module."""
    import actuatorlab

    assert {f"actuatorlab.{name}" for name in actuatorlab.__all__} <= set(PUBLIC), sorted(PUBLIC)
    assert not [m for m in MODULES if m.startswith("actuatorlab.api")], MODULES
    private_paths = re.compile(r"actuatorlab\.api\.\w+\.(" + "|".join(actuatorlab.__all__) + r")\b")
    for path in [*PAGES, *sorted((ROOT / "examples").glob("*.py")), *sorted((ROOT / "src").rglob("*.py"))]:
        found = private_paths.findall(path.read_text(encoding="utf-8"))
        assert not found, f"{path.relative_to(ROOT)} names {found[0]} by its module; write actuatorlab.{found[0]}"


SECTION = re.compile(r"^(Parameters|Returns|Raises|Attributes)\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", re.M | re.S)


def numpydoc_sections(doc: str) -> dict[str, dict[str, str]]:
    """The entries of a docstring's numpydoc sections: section → {name (or type): type}."""
    sections = {}
    for title, body in SECTION.findall(inspect.cleandoc(doc)):
        entries = {}
        for line in body.splitlines():
            if line and not line[0].isspace():
                names, _, kind = line.partition(" : ")
                for name in names.split(","):
                    entries[name.strip().lstrip("*")] = kind.strip()
        sections[title] = entries
    return sections


def _documented_callables():
    """(name, function) of every public function of the package root and every public method
    of its public classes."""
    import actuatorlab

    for name in actuatorlab.__all__:
        obj = getattr(actuatorlab, name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and inspect.isfunction(member):
                    yield f"{name}.{attr}", member
        else:
            yield name, obj


@pytest.mark.parametrize("name, function", list(_documented_callables()), ids=lambda v: v if isinstance(v, str) else "")
def test_public_functions_have_numpydoc_parameters_returns_and_raises(name, function):
    sections = numpydoc_sections(function.__doc__ or "")
    parameters = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    if parameters:
        documented = sections.get("Parameters", {})
        missing = [p for p in parameters if p not in documented]
        assert not missing, f"{name}: parameters without an entry in Parameters: {missing}"
        untyped = [p for p in parameters if not documented[p] and not _shared_entry(function.__doc__, p)]
        assert not untyped, f"{name}: parameters without a type: {untyped}"
    returns_none = inspect.signature(function).return_annotation in (None, "None")
    if not returns_none:
        assert sections.get("Returns"), f"{name}: no Returns section"
    if "raise " in inspect.getsource(function) or not inspect.isfunction(function) or name.split(".")[0] == name:
        assert sections.get("Raises") or name in NO_RAISES, f"{name}: no Raises section"


NO_RAISES = {"Scenario.show", "RunResult.plot", "KeyFigure"}
"""Public names that raise nothing of their own (a bad argument is Python's TypeError)."""


def _shared_entry(doc: str, parameter: str) -> bool:
    """``parameter`` is one of a comma-separated entry documented elsewhere (``logs, known``: as
    for another function)."""
    return bool(re.search(rf"^\s+(\w+, )*{parameter}(, \w+)*\n\s+As for", doc or "", re.M))


def test_public_classes_document_their_attributes_with_types():
    import actuatorlab

    for name in ("RunResult", "SweepResult", "SensitivityResult", "Scenario"):
        attributes = numpydoc_sections(getattr(actuatorlab, name).__doc__).get("Attributes", {})
        assert attributes and all(attributes.values()), f"{name}: Attributes without types: {attributes}"
    fields = numpydoc_sections(actuatorlab.KeyFigure.__doc__).get("Parameters", {})
    assert set(fields) == set(actuatorlab.KeyFigure._fields) and all(fields.values())


def test_the_checker_reads_numpydoc_sections():
    doc = """Summary.

    Parameters
    ----------
    a, b : int
        Two.
    c : str, optional
        One.

    Returns
    -------
    float
        The value.
    """
    assert numpydoc_sections(doc) == {
        "Parameters": {"a": "int", "b": "int", "c": "str, optional"},
        "Returns": {"float": ""},
    }


# --- citations, internal names, the changelog ------------------------------------------------

PAPERS = {
    "kikuuwe2021": ("Kikuuwe", "Journal of Dynamic Systems, Measurement, and Control", "143", "arXiv:2102.11381"),
    "petrovic2022": ("Petrović", "Mechanism and Machine Theory", "170", "10.1016/j.mechmachtheory.2021.104680"),
    "sakai2014": ("Sakai", "International Conference on Robotics and Automation", "5983–5989", "2014"),
    "alfayad2016": ("Alfayad", "International Journal of Advanced Robotics and Automation", "1–12", "2016"),
    "bahari2024": ("Bahari", "arXiv:2409.11849", "2024", "Mattila"),
}
"""Label in docs/bibliography.md → what its entry must hold (authors, venue, volume or pages, DOI
or preprint)."""
KNOWN_DOIS = {"10.1016/j.mechmachtheory.2021.104680"}
"""The DOIs the papers' own texts give; any other would be a guess."""


def test_the_bibliography_cites_the_five_papers_with_venue():
    text = (DOCS / "bibliography.md").read_text(encoding="utf-8")
    entries = dict(re.findall(r"^\((\w+)\)=\n(.*?)(?=^\(\w+\)=|^## |\Z)", text, re.M | re.S))
    for label, needles in PAPERS.items():
        entry = " ".join(entries.get(label, "").split())
        assert entry, f"docs/bibliography.md has no entry ({label})="
        for needle in needles:
            assert needle in entry, f"bibliography entry {label} lacks {needle!r}"
    assert set(re.findall(r"\b10\.\d{4,}/[^\s)\]]+", text)) <= KNOWN_DOIS


def test_the_guides_and_index_cite_the_bibliography():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for label in PAPERS:
        assert f"<{label}>`" in index, f"index.md does not cite {label}"
    for page, label in [
        ("quasistatic", "kikuuwe2021"),
        ("crane-vdc", "petrovic2022"),
        ("robot-identification", "sakai2014"),
        ("ieha", "alfayad2016"),
        ("emla", "bahari2024"),
    ]:
        assert f"<{label}>`" in (DOCS / "guide" / f"{page}.md").read_text(encoding="utf-8"), page
    toctree = index.split("Reference", 1)[1]
    assert "bibliography" in toctree and "citing" in toctree


INTERNAL = re.compile(
    r"\bspec \d|\bspec §|\(spec\b|\bspecs?/|DESIGN\.md|STYLE\.md|\bshared/|\bseeds?/|\bissue ?#?\d+|\bissue \"",
    re.IGNORECASE,
)
"""Names of the project's internal documents (the papers' extractions, design notes, issues),
which a reader of the documentation cannot open: the docs cite the papers instead."""


@pytest.mark.parametrize(
    "page",
    [p.relative_to(ROOT).as_posix() for p in PAGES if not p.relative_to(DOCS).parts[0].startswith(("_", "generated"))]
    + ["README.md"]
    + [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "examples").glob("*.py"))],
)
def test_no_internal_document_names_in_the_docs(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    found = [m.group(0) for m in INTERNAL.finditer(text)]
    assert not found, f"{page} names internal documents: {found}; cite the paper (docs/bibliography.md) instead"


SPEC_ITEM = re.compile(r"\((?:A|I|T)\d+\)|\bthe spec\b(?!'s own)|\[INFERRED\]")
"""Items of the papers' extractions (``(A4)``: ambiguity 4) and mentions of them."""


@pytest.mark.parametrize(
    "module", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "src" / "actuatorlab").rglob("*.py"))
)
def test_no_internal_document_names_in_docstrings(module):
    """The docstrings become the API reference, and comments are read as documentation too."""
    text = _prose((ROOT / module).read_text(encoding="utf-8"))
    found = [m.group(0) for m in INTERNAL.finditer(text)] + [m.group(0) for m in SPEC_ITEM.finditer(text)]
    assert not found, f"{module} names internal documents: {found}; cite the paper (docs/bibliography.md) instead"


def _prose(source: str) -> str:
    """The docstrings (and other string statements) and comments of a Python source, not its code."""
    import ast
    import io
    import tokenize

    parts = [
        node.value.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    ]
    parts += [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT]
    return "\n".join(parts)


def test_the_internal_names_check_is_not_vacuous():
    for text in ("(spec 3.2)", "see spec 001", "../shared/DESIGN.md", "issue 30", "(issue 29 §2)", "seeds/001"):
        assert INTERNAL.search(text), text
    for text in ("scenario.spec.arm", "--seed 1", "the specified design", "issues a warning"):
        assert not INTERNAL.search(text), text
    prose = _prose('"""Doc (spec 3.2)."""\nx = f(spec, 1)  # see (A4)\n')
    assert INTERNAL.search(prose) and SPEC_ITEM.search(prose) and "f(spec" not in prose


def test_the_changelog_is_dated_per_version():
    import actuatorlab

    text = (DOCS / "changelog.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## (\d+\.\d+\.\d+) — (unreleased|\d{4}-\d{2}-\d{2})$", text, re.M)
    assert versions and versions[0][0] == actuatorlab.__version__, versions
    assert len(versions) == len(re.findall(r"^## ", text, re.M)), "a second-level heading that is not a version"
    groups = re.findall(r"^### .*$", text, re.M)
    undated = [g for g in groups if not re.search(r"\(\d{4}-\d{2}-\d{2}\)$", g)]
    assert groups and not undated, undated


def test_the_citing_page_gives_the_package_version():
    import actuatorlab

    text = (DOCS / "citing.md").read_text(encoding="utf-8")
    assert re.search(r"version\s*=\s*\{" + re.escape(actuatorlab.__version__) + r"\}", text)
    assert "CITATION.cff" in text and (ROOT / "CITATION.cff").is_file()


# --- a site that needs no network --------------------------------------------------------------

CONF = (DOCS / "conf.py").read_text(encoding="utf-8")


def test_equations_and_inventories_need_no_network():
    """MathJax is the copy shipped in the site (sphinx-mathjax-offline, in the docs extra), the
    intersphinx inventories are files of the repository, and the build checks its pages."""
    import tomllib

    assert '"sphinx-mathjax-offline"' in CONF and '"offline_site"' in CONF
    path = re.search(r'^mathjax_path = "([^"]+)"', CONF, re.M).group(1)
    assert not path.startswith(("http", "//")), path
    docs_extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]["docs"]
    assert any(r.startswith("sphinx-mathjax-offline") for r in docs_extra)
    assert not re.search(r"https?://[^\"']*\.(js|css)\b", CONF), "conf.py loads a script or style from the web"
    mapping = re.findall(r'^\s+"(\w+)": \("(https://[^"]+)", str\(_INVENTORIES / "(\w+\.inv)"\)\),$', CONF, re.M)
    assert {name for name, _, _ in mapping} == {"python", "numpy", "pandas", "matplotlib", "mujoco"}
    for _, _, file in mapping:
        assert (DOCS / "_inventories" / file).is_file(), file


def _load_script(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_inventories_are_what_their_script_writes():
    make = _load_script(DOCS / "_inventories" / "make_inventories.py")
    assert make.write(check=True) == [], "run python docs/_inventories/make_inventories.py"
    for project in ("numpy", "pandas", "matplotlib", "mujoco"):
        entries = make._entries((DOCS / "_inventories" / f"{project}.inv").read_bytes())
        assert any(" py:class " in e for e in entries), project
    names = {e.split()[0] for e in make._entries((DOCS / "_inventories" / "mujoco.inv").read_bytes())}
    assert {"mujoco.MjModel", "mujoco.MjData"} <= names


def test_the_build_check_finds_a_page_that_loads_from_a_cdn(tmp_path):
    pytest.importorskip("sphinx")
    offline = _load_script(DOCS / "_ext" / "offline_site.py")
    (tmp_path / "ok.html").write_text(
        '<script src="_static/mathjax/tex-chtml.js"></script><a href="https://numpy.org/doc/">NumPy</a>'
    )
    assert offline.remote_loads(tmp_path) == []
    (tmp_path / "cdn.html").write_text(
        '<script defer src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>'
    )
    (tmp_path / "theme.css").write_text('@import url("//fonts.example.org/font.css");')
    assert offline.remote_loads(tmp_path) == [
        ("cdn.html", "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"),
        ("theme.css", "//fonts.example.org/font.css"),
    ]
    built = DOCS / "_build" / "html"
    if (built / "index.html").is_file():  # after make docs: the site itself
        assert offline.remote_loads(built) == []


def test_a_tagged_multiline_equation_keeps_its_tag_outside_split():
    """Sphinx wraps an equation with a line break in ``split``, where the shipped MathJax 3
    refuses ``\\tag``: the build moves the tag after the split (docs/_ext/offline_site.py)."""
    pytest.importorskip("sphinx")
    offline = _load_script(DOCS / "_ext" / "offline_site.py")
    cases = "\\Gamma(0) = \\begin{cases} a & x > 0\\\\ 0 & x = 0\\end{cases}\n\\tag{65}"
    assert offline.tag_outside_split(cases) == (
        "\\begin{split}\\Gamma(0) = \\begin{cases} a & x > 0\\\\ 0 & x = 0\\end{cases}\\end{split}\\tag{65}"
    )
    assert offline.tag_outside_split("f = K x \\tag{68a}") is None  # no line break: no split, nothing to move
    assert offline.tag_outside_split("a \\\\ b") is None  # no tag

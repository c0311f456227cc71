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


def reference_modules() -> list[str]:
    """The modules of the API reference, in the order of docs/api.md's autosummary blocks."""
    modules, inside = [], False
    for line in API_PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith(".. autosummary::"):
            inside = True
        elif inside and line.startswith("```"):
            inside = False
        elif inside and re.fullmatch(r"\s+actuatorlab[\w.]*", line):
            modules.append(line.strip())
    return modules


MODULES = reference_modules()


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

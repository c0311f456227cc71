"""The package as others meet it: its licence, how to cite it, its metadata, and the heavy
optional parts as extras that say what to install when one is missing (issue 33).

Read from the project's files (pyproject.toml, LICENSE, CITATION.cff, Makefile); the missing
extras are simulated by ``sys.modules[name] = None``, as if the package were not installed.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

import actuatorlab
from actuatorlab.errors import EXTRAS, MissingExtra, missing_extra, needs_extras

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
OPTIONAL = {"mujoco", "casadi", "osqp", "pymoo", "dask", "fmpy"}
"""The heavy optional parts, one extra each (named as the package they install)."""


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower()


# --- licence and citation -----------------------------------------------------------------------


def test_the_licence_file_is_the_one_pyproject_names():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert PROJECT["license"] == "MIT"
    assert text.startswith("MIT License") and "the actuatorlab developers" in text
    assert "LICENSE" in PROJECT["license-files"]
    assert not any(c.startswith("License ::") for c in PROJECT["classifiers"]), (
        "a licence expression and a licence classifier together are refused by PyPI (PEP 639)"
    )


def _citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_file_is_valid_cff_with_the_package_version():
    cff = _citation()
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "version", "license", "type"):
        assert cff.get(key), f"CITATION.cff has no {key}"
    assert str(cff["version"]) == actuatorlab.__version__ == PROJECT["version"]
    assert cff["license"] == PROJECT["license"]
    assert cff["type"] == "software"
    assert all("name" in a or "family-names" in a for a in cff["authors"])


def test_citation_file_references_the_five_papers():
    references = _citation()["references"]
    assert len(references) == 5
    firsts = {r["authors"][0]["family-names"] for r in references}
    assert firsts == {"Kikuuwe", "Sakai", "Petrović", "Alfayad", "Bahari"}
    for reference in references:
        assert reference["type"] in ("article", "conference-paper") and reference["title"] and reference["year"]
    petrovic = next(r for r in references if r["authors"][0]["family-names"] == "Petrović")
    assert petrovic["doi"] == "10.1016/j.mechmachtheory.2021.104680"


# --- metadata -----------------------------------------------------------------------------------


def test_classifiers_and_keywords_describe_the_package():
    classifiers = PROJECT["classifiers"]
    assert any(c.startswith("Development Status ::") for c in classifiers)
    assert "Topic :: Scientific/Engineering" in classifiers
    assert "Typing :: Typed" in classifiers and (ROOT / "src" / "actuatorlab" / "py.typed").is_file()
    lowest = re.fullmatch(r">=(\d+\.\d+)", PROJECT["requires-python"]).group(1)
    assert f"Programming Language :: Python :: {lowest}" in classifiers
    assert PROJECT["keywords"] and PROJECT["authors"]


def test_the_version_is_one_number():
    """pyproject's version, ``actuatorlab.__version__`` and ``actuatorlab --version`` agree (the
    command's output is tested in test_cli)."""
    assert PROJECT["version"] == actuatorlab.__version__


# --- optional parts ----------------------------------------------------------------------------


def test_heavy_parts_are_extras_not_dependencies():
    extras = PROJECT["optional-dependencies"]
    assert OPTIONAL <= set(extras), sorted(extras)
    core = {_requirement_name(r) for r in PROJECT["dependencies"]}
    for extra in OPTIONAL:
        packages = {_requirement_name(r) for r in extras[extra]}
        assert packages and not packages & core, f"{extra}: {packages & core} is also a core dependency"
    every = re.fullmatch(r"actuatorlab\[([\w,]+)\]", extras["all"][0]).group(1).split(",")
    assert set(every) == OPTIONAL and len(extras["all"]) == 1
    assert "actuatorlab[all]" in extras["test"]  # the test suite exercises every part
    assert {extra for _, extra in EXTRAS.values()} == OPTIONAL  # each message names an extra that exists


def test_the_readme_commands_install_every_extra():
    """``make run`` and ``make test`` (the README's two commands) install through the same
    stamp, which installs the extra ``all``; ``make docs`` too."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    installs = re.findall(r'pip install [^\n]*-e "\.\[([\w,]+)\]"', makefile)
    assert installs and all("all" in group.split(",") for group in installs), installs
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make run" in readme and "make test" in readme


@pytest.mark.parametrize("module", sorted(EXTRAS))
def test_a_missing_optional_module_names_its_extra(monkeypatch, module):
    monkeypatch.setitem(sys.modules, module, None)  # "import module" now fails as if not installed
    name, extra = EXTRAS[module]
    with pytest.raises(MissingExtra) as caught:
        with needs_extras("the machine kind"):
            importlib.import_module(module)
    assert (
        str(caught.value)
        == f"the machine kind needs {name}, which is not installed: pip install 'actuatorlab[{extra}]'"
    )
    assert isinstance(caught.value, ImportError)


def test_other_import_errors_are_left_alone(monkeypatch):
    monkeypatch.setitem(sys.modules, "not_an_extra_of_actuatorlab", None)
    with pytest.raises(ModuleNotFoundError):
        with needs_extras("the machine kind"):
            importlib.import_module("not_an_extra_of_actuatorlab")
    broken = ImportError("libGL.so.1: cannot open shared object file")  # installed but broken: no advice
    assert missing_extra(broken, "the machine kind") is broken


def test_a_missing_extra_found_through_the_error_chain(monkeypatch):
    """dask without distributed raises dask's own ImportError from the missing module."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    try:
        try:
            importlib.import_module("distributed")
        except ImportError as missing:
            raise ImportError("Dask's distributed scheduler is not installed") from missing
    except ImportError as error:
        assert "pip install 'actuatorlab[dask]'" in str(missing_extra(error, "a sweep on Dask"))


def _command_without(module: str, *args: str) -> subprocess.CompletedProcess:
    """``actuatorlab ARGS`` in a fresh interpreter in which ``module`` cannot be imported."""
    code = (
        f"import sys; sys.modules[{module!r}] = None; sys.argv = ['actuatorlab', *{list(args)!r}]; "
        "from actuatorlab.cli import main; main()"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_a_machine_run_without_mujoco_says_what_to_install(tmp_path):
    proc = _command_without("mujoco", "run", "excavator-dig", "--out", str(tmp_path / "run"), "--quiet")
    assert proc.returncode == 2, proc.stderr
    message = " ".join(proc.stderr.split())
    assert message == "error: the machine kind needs MuJoCo, which is not installed: pip install 'actuatorlab[mujoco]'"
    assert not (tmp_path / "run").exists()


def test_an_mpc_run_without_osqp_says_what_to_install(tmp_path):
    proc = _command_without("osqp", "run", "ieha-mpc", "--out", str(tmp_path / "run"), "--quiet")
    assert proc.returncode == 2, proc.stderr
    assert "the ieha-mpc kind needs OSQP, which is not installed: pip install 'actuatorlab[osqp]'" in " ".join(
        proc.stderr.split()
    )


def test_the_python_api_without_mujoco_raises_the_same_message():
    code = (
        "import sys; sys.modules['mujoco'] = None\n"
        "import actuatorlab\n"
        "try:\n"
        "    actuatorlab.load('excavator-dig').run()\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__, error)\n"
        "try:\n"
        "    import actuatorlab.multibody.system\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__, error)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.stdout.splitlines() == [
        "MissingExtra the machine kind needs MuJoCo, which is not installed: pip install 'actuatorlab[mujoco]'",
        "MissingExtra actuatorlab.multibody needs MuJoCo, which is not installed: pip install 'actuatorlab[mujoco]'",
    ], proc.stderr

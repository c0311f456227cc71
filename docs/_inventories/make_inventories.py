"""Write the intersphinx inventories the documentation links through (``docs/_inventories/*.inv``).

The build machines have no web access, so ``docs/conf.py`` reads the inventories of Python,
NumPy, pandas, Matplotlib and MuJoCo from files here instead of fetching each project's
``objects.inv``. No copy of those projects' real inventories was to be had offline, so **these
files are generated, not downloaded**: each holds only the names the actuatorlab documentation
references (the types of its numpydoc sections, numpydoc's own aliases of the builtins and
NumPy's basics, and the roles written in its pages and docstrings), with the address of each
name's page on the project's site, in the format intersphinx reads (Sphinx inventory version 2).
A reference to a name missing here fails the build (``-n -W``): add the name below, with the
page that documents it, and run this script again::

    python docs/_inventories/make_inventories.py              # regenerate from the table below
    python docs/_inventories/make_inventories.py --check      # the files are what the table gives
    python docs/_inventories/make_inventories.py --download   # on a machine with web access:
                                                              # the projects' full inventories

``--download`` replaces each file by the project's real ``objects.inv`` (then every name of
that project resolves, and the links follow its current pages); the build needs nothing else.
"""

from __future__ import annotations

import argparse
import sys
import urllib.request
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent

# project → (site, version, [(name, domain:role, page#anchor, shown)]); "-" shows the name.
INVENTORIES: dict[str, tuple[str, str, list[tuple[str, str, str, str]]]] = {
    "python": (
        "https://docs.python.org/3/",
        "3.11",
        [
            ("None", "py:data", "library/constants.html#None", "-"),
            ("True", "py:data", "library/constants.html#True", "-"),
            ("False", "py:data", "library/constants.html#False", "-"),
            ("bltin-boolean-values", "std:label", "library/stdtypes.html#bltin-boolean-values", "Boolean Type"),
            ("int", "py:class", "library/functions.html#int", "-"),
            ("float", "py:class", "library/functions.html#float", "-"),
            ("str", "py:class", "library/stdtypes.html#str", "-"),
            ("bytes", "py:class", "library/stdtypes.html#bytes", "-"),
            ("list", "py:class", "library/stdtypes.html#list", "-"),
            ("tuple", "py:class", "library/stdtypes.html#tuple", "-"),
            ("dict", "py:class", "library/stdtypes.html#dict", "-"),
            ("set", "py:class", "library/stdtypes.html#set", "-"),
            ("object", "py:class", "library/functions.html#object", "-"),
            ("callable", "py:function", "library/functions.html#callable", "-"),
            ("iterable", "std:term", "glossary.html#term-iterable", "-"),
            ("sequence", "std:term", "glossary.html#term-sequence", "-"),
            ("generator", "std:term", "glossary.html#term-generator", "-"),
            ("contextlib.contextmanager", "py:function", "library/contextlib.html#contextlib.contextmanager", "-"),
            ("collections.namedtuple", "py:function", "library/collections.html#collections.namedtuple", "-"),
            ("collections.abc.Mapping", "py:class", "library/collections.abc.html#collections.abc.Mapping", "-"),
            ("collections.abc.Sequence", "py:class", "library/collections.abc.html#collections.abc.Sequence", "-"),
            ("collections.abc.Callable", "py:class", "library/collections.abc.html#collections.abc.Callable", "-"),
            ("collections.abc.Iterator", "py:class", "library/collections.abc.html#collections.abc.Iterator", "-"),
            ("typing.Any", "py:data", "library/typing.html#typing.Any", "-"),
            ("typing.get_type_hints", "py:function", "library/typing.html#typing.get_type_hints", "-"),
            ("os.PathLike", "py:class", "library/os.html#os.PathLike", "-"),
            ("os", "py:module", "library/os.html#module-os", "-"),
            ("pathlib.Path", "py:class", "library/pathlib.html#pathlib.Path", "-"),
            ("pathlib", "py:module", "library/pathlib.html#module-pathlib", "-"),
            ("pickle", "py:module", "library/pickle.html#module-pickle", "-"),
            ("ImportError", "py:exception", "library/exceptions.html#ImportError", "-"),
            ("ModuleNotFoundError", "py:exception", "library/exceptions.html#ModuleNotFoundError", "-"),
            ("KeyError", "py:exception", "library/exceptions.html#KeyError", "-"),
            ("ValueError", "py:exception", "library/exceptions.html#ValueError", "-"),
            ("RuntimeError", "py:exception", "library/exceptions.html#RuntimeError", "-"),
            ("OSError", "py:exception", "library/exceptions.html#OSError", "-"),
            ("Exception", "py:exception", "library/exceptions.html#Exception", "-"),
        ],
    ),
    "numpy": (
        "https://numpy.org/doc/stable/",
        "2",
        [
            ("numpy", "py:module", "reference/index.html#module-numpy", "-"),
            ("numpy.ndarray", "py:class", "reference/generated/numpy.ndarray.html#numpy.ndarray", "-"),
            ("numpy.random.Generator", "py:class", "reference/random/generator.html#numpy.random.Generator", "-"),
            (
                "numpy.random.RandomState",
                "py:class",
                "reference/random/legacy.html#numpy.random.RandomState",
                "-",
            ),
            (
                "numpy.random.default_rng",
                "py:function",
                "reference/random/generator.html#numpy.random.default_rng",
                "-",
            ),
            ("numpy.inf", "py:data", "reference/constants.html#numpy.inf", "-"),
            ("numpy.nan", "py:data", "reference/constants.html#numpy.nan", "-"),
            ("numpy.float64", "py:attribute", "reference/arrays.scalars.html#numpy.float64", "-"),
            ("array_like", "std:term", "glossary.html#term-array_like", "-"),
            ("contiguous", "std:term", "glossary.html#term-contiguous", "-"),
            ("arrays.scalars", "std:label", "reference/arrays.scalars.html#arrays-scalars", "Scalars"),
        ],
    ),
    "pandas": (
        "https://pandas.pydata.org/docs/",
        "2",
        [
            ("pandas", "py:module", "reference/index.html#module-pandas", "-"),
            ("pandas.DataFrame", "py:class", "reference/api/pandas.DataFrame.html#pandas.DataFrame", "-"),
            ("pandas.Series", "py:class", "reference/api/pandas.Series.html#pandas.Series", "-"),
            (
                "pandas.DataFrame.attrs",
                "py:property",
                "reference/api/pandas.DataFrame.attrs.html#pandas.DataFrame.attrs",
                "-",
            ),
            ("pandas.read_csv", "py:function", "reference/api/pandas.read_csv.html#pandas.read_csv", "-"),
            ("pandas.read_parquet", "py:function", "reference/api/pandas.read_parquet.html#pandas.read_parquet", "-"),
        ],
    ),
    "matplotlib": (
        "https://matplotlib.org/stable/",
        "3",
        [
            ("matplotlib", "py:module", "api/matplotlib_configuration_api.html#module-matplotlib", "-"),
            ("matplotlib.pyplot", "py:module", "api/pyplot_summary.html#module-matplotlib.pyplot", "-"),
            ("matplotlib.figure", "py:module", "api/figure_api.html#module-matplotlib.figure", "-"),
            (
                "matplotlib.figure.Figure",
                "py:class",
                "api/_as_gen/matplotlib.figure.Figure.html#matplotlib.figure.Figure",
                "-",
            ),
            ("matplotlib.axes.Axes", "py:class", "api/_as_gen/matplotlib.axes.Axes.html#matplotlib.axes.Axes", "-"),
        ],
    ),
    "mujoco": (
        "https://mujoco.readthedocs.io/en/stable/",
        "3",
        [
            ("mujoco", "py:module", "python.html", "-"),
            ("mujoco.MjModel", "py:class", "APIreference/APItypes.html#mjmodel", "-"),
            ("mujoco.MjData", "py:class", "APIreference/APItypes.html#mjdata", "-"),
            ("mujoco.mj_step", "py:function", "APIreference/APIfunctions.html#mj-step", "-"),
            ("mjModel", "std:label", "APIreference/APItypes.html#mjmodel", "mjModel"),
            ("mjData", "std:label", "APIreference/APItypes.html#mjdata", "mjData"),
            ("python", "std:label", "python.html", "Python Bindings"),
        ],
    ),
}


def inventory(project: str, version: str, entries: list[tuple[str, str, str, str]]) -> bytes:
    """A Sphinx inventory (version 2): four header lines, then the zlib-compressed entries."""
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n"
        f"# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    body = "".join(f"{name} {role} 1 {uri} {shown}\n" for name, role, uri, shown in sorted(entries))
    return header.encode() + zlib.compress(body.encode(), 9)


def write(check: bool = False) -> list[str]:
    """Write (or, with ``check``, compare) every file; returns those that differ."""
    stale = []
    for project, (_, version, entries) in INVENTORIES.items():
        path = HERE / f"{project}.inv"
        data = inventory(project, version, entries)
        if path.exists() and _entries(path.read_bytes()) == _entries(data):
            continue
        stale.append(path.name)
        if not check:
            path.write_bytes(data)
    return stale


def _entries(data: bytes) -> list[str]:
    """The entry lines of an inventory (the zlib stream may differ between zlib versions)."""
    lines = data.split(b"\n", 4)
    return zlib.decompress(lines[4]).decode().splitlines() if len(lines) == 5 else []


def download() -> None:
    """Replace every file by the project's real ``objects.inv`` (needs web access)."""
    for project, (site, _, _) in INVENTORIES.items():
        with urllib.request.urlopen(site + "objects.inv", timeout=60) as answer:  # noqa: S310 (a fixed https URL)
            (HERE / f"{project}.inv").write_bytes(answer.read())
        print(f"{project}: {site}objects.inv")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="fail if a file is not what the table gives")
    group.add_argument("--download", action="store_true", help="fetch the projects' full inventories instead")
    args = parser.parse_args()
    if args.download:
        download()
        return 0
    stale = write(check=args.check)
    if args.check and stale:
        print(f"stale: {', '.join(stale)}; run python docs/_inventories/make_inventories.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What both FMU export tests check (issue 28): an FMU of a hostile-named scenario is valid and
its page runs no script; ``actuatorlab export fmu`` under a file size limit (``ulimit -f``) in a
child process refuses in one line and leaves nothing behind."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from html.parser import HTMLParser
from pathlib import Path

from fmpy import read_model_description

import actuatorlab
from actuatorlab.fmu.model_description import xml_text

SOURCE = Path(actuatorlab.__file__).parents[1]
"""The folder this actuatorlab is imported from, put on the child's path."""


def export_limited(limit: int, out: Path, tmpdir: Path, cc: str | None = None, soft_only: bool = False):
    """Run ``export fmu arm-relief --out out`` with files limited to ``limit`` bytes (SIGXFSZ
    ignored, so a write beyond it fails with EFBIG), temporary files in ``tmpdir``, ``$CC`` =
    ``cc`` if given; ``soft_only`` leaves the hard limit off, so the compiler may lift the soft one."""

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY if soft_only else limit))

    # no bytecode: CPython writes a .pyc in one raw write, truncated under the limit (file_limit.py)
    env = {**os.environ, "PYTHONPATH": str(SOURCE), "TMPDIR": str(tmpdir), "PYTHONDONTWRITEBYTECODE": "1"}
    if cc is not None:
        env["CC"] = cc
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from actuatorlab.cli import main; main()",
            "export",
            "fmu",
            "arm-relief",
            "--out",
            str(out),
        ],
        preexec_fn=limited,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def assert_one_line_refusal(done, *folders: Path) -> str:
    """``done`` exited 2 with one line on stderr starting "error:" and nothing on stdout, and
    ``folders`` are empty (no partial FMU, no build folder left); returns the line."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    assert done.stdout == ""
    for folder in folders:
        assert list(folder.iterdir()) == [], f"left in {folder}: {list(folder.iterdir())}"
    return lines[0]


PAGE_TAGS = {"html", "head", "meta", "title", "body", "h1", "p", "table", "tr", "th", "td"}


class Page(HTMLParser):
    """The tags of an HTML page and the text inside each."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: dict[str, str] = {}
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        tag = self.tags[-1] if self.tags else ""
        self.text[tag] = self.text.get(tag, "") + data


def assert_valid_hostile_fmu(path: Path, name: str, description: str) -> None:
    """FMPy reads the FMU's description with the scenario's ``name`` and ``description`` as
    text (characters XML cannot hold replaced); its page has only its own tags, the name as title."""
    md = read_model_description(str(path), validate=True)
    assert md.modelName == xml_text(name)
    assert md.description.endswith("From: " + xml_text(description))
    with zipfile.ZipFile(path) as z:
        page = Page(z.read("documentation/index.html").decode("utf-8"))
        if "sources/buildDescription.xml" in z.namelist():
            ET.fromstring(z.read("sources/buildDescription.xml"))
    assert set(page.tags) <= PAGE_TAGS, page.tags
    assert page.text.get("title", "") == page.text.get("h1", "") == xml_text(name)

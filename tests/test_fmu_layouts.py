"""The C twins index the kernel vectors through ``fmu/c/layouts.h``, written from the Python
layouts (issue 29, item 3): the shipped header is the one ``layout_header`` writes, and each of its
enums lists a layout's constants in the layout's order, then the length."""

from __future__ import annotations

import re

from actuatorlab.fmu.compiler import C_DIR, HEADERS
from actuatorlab.fmu.header import LAYOUTS_H, c_layouts, layout_header

REGENERATE = (
    "regenerate it: python -c 'from actuatorlab.fmu.header import layout_header; "
    'from actuatorlab.fmu.compiler import C_DIR; (C_DIR / "layouts.h").write_text(layout_header())\''
)


def _enums(text: str) -> list[list[tuple[str, int]]]:
    """The enums of a C header as (name, value) lists, implicit values counted as C does."""
    enums = []
    for body in re.findall(r"enum\s*\{([^}]*)\}", re.sub(r"/\*.*?\*/", "", text, flags=re.S)):
        entries, value = [], -1
        for item in filter(None, (part.strip() for part in body.split(","))):
            name, _, given = (s.strip() for s in item.partition("="))
            value = int(given) if given else value + 1
            entries.append((name, value))
        enums.append(entries)
    return enums


def test_the_shipped_header_is_the_generated_one():
    assert (C_DIR / LAYOUTS_H).read_text(encoding="utf-8") == layout_header(), REGENERATE
    assert LAYOUTS_H in HEADERS


def test_each_enum_is_its_layout():
    enums = _enums((C_DIR / LAYOUTS_H).read_text(encoding="utf-8"))
    expected = [[*layout.constants().items(), (length, len(layout))] for layout, length, _ in c_layouts()]
    assert enums == expected


def test_the_twins_take_their_layouts_from_the_header():
    """No C source spells a layout constant's value itself."""
    for name in ("quasistatic.h", "pressure.h"):
        text = (C_DIR / name).read_text(encoding="utf-8")
        assert '#include "layouts.h"' in text
    sources = "".join(p.read_text(encoding="utf-8") for p in C_DIR.iterdir() if p.name != LAYOUTS_H)
    for layout, length, _ in c_layouts():
        for constant in [*layout.constants(), length]:
            assert not re.search(rf"\b{constant}\s*=", sources), f"{constant} is defined outside {LAYOUTS_H}"

"""The text of the TOML files a user writes (scenarios, ``--known``, ``--layout``), before parsing.

``decode`` reads UTF-8 with or without a byte-order mark (BOM) and UTF-16 with a BOM, as text
editors save them, and refuses anything else naming the encoding to save as. ``parse`` bounds
how deeply ``[`` and ``{`` nest before Python's TOML parser, which recurses once per level,
meets them: a file of 500 nested signal tables is one clear error, not a ``RecursionError``.
"""

from __future__ import annotations

import codecs
import tomllib
from typing import Any

from ..errors import ScenarioError

MAX_BRACKETS = 80
"""Deepest nesting of ``[`` and ``{`` in a file's values: room for signals of the most sum levels
:data:`~actuatorlab.numerics.signals.MAX_SUM_DEPTH` allows (two brackets a level) written inline."""

_SAVE_AS = "save it as UTF-8 (in most editors: Save As, encoding UTF-8)"


def decode(data: bytes, label: str) -> str:
    """``data`` as text: UTF-8 (a BOM is dropped) or UTF-16 with a BOM; else a ScenarioError naming ``label``."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise ScenarioError(f"{label}: starts as UTF-16 but is not UTF-16 text; {_SAVE_AS}") from None
    if b"\x00" in data:  # ASCII in UTF-16 is valid UTF-8 with every other byte zero, which TOML forbids
        raise ScenarioError(f"{label}: the file is UTF-16 without a byte-order mark; {_SAVE_AS}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ScenarioError(f"{label}: the file is not UTF-8 (byte {error.start + 1} is not); {_SAVE_AS}") from None


def nesting(text: str) -> tuple[int, int]:
    """(deepest nesting of ``[`` and ``{`` outside strings and comments, its line from 1), found
    without recursion; the scan stops one bracket past :data:`MAX_BRACKETS`."""
    depth = deepest = 0
    line = where = 1
    i, n = 0, len(text)
    while i < n and deepest <= MAX_BRACKETS:
        c = text[i]
        if c == "\n":
            line += 1
        elif c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            while i < n and not text.startswith(quote, i) and (len(quote) == 3 or text[i] != "\n"):
                line += text[i] == "\n"
                i += 2 if c == '"' and text[i] == "\\" else 1
            i += len(quote)
            continue
        elif c in "[{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, line
        elif c in "]}":
            depth -= 1
        i += 1
    return deepest, where


def parse(text: str, label: str) -> dict[str, Any]:
    """The TOML ``text`` as a dict; too deep a nesting or a syntax error is a ScenarioError naming ``label``."""
    deepest, line = nesting(text)
    if deepest > MAX_BRACKETS:
        raise ScenarioError(
            f"{label}: line {line}: [ and {{ nest more than {MAX_BRACKETS} deep; write the tables "
            "flatter (a sum of sums is one sum of all their terms)"
        )
    try:
        return tomllib.loads(text)
    except ValueError as error:  # TOMLDecodeError, or an integer of more than 4300 digits
        raise ScenarioError(
            f"{label}: not valid TOML: {error}; fix the syntax there "
            '(quantities with units go in quotes, e.g. pump_flow = "500 L/min")'
        ) from None

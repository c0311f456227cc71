"""The ``units-table`` directive: the scenario files' unit tables, read from the code.

``dimensions`` renders :data:`actuatorlab.scenarios.units.DIMENSIONS` (dimension, SI unit, the
unit ``show`` writes, an example), ``common`` renders :data:`~actuatorlab.scenarios.units.COMMON_UNITS`
(the units read without pint, with their factor to SI), so the pages never drift from the code.
"""

from __future__ import annotations

from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in [header, *rows]:
        lines.append(f"   * - {row[0]}")
        lines.extend(f"     - {cell}" for cell in row[1:])
    return lines


class UnitsTable(Directive):
    """``.. units-table:: dimensions`` or ``.. units-table:: common``."""

    required_arguments = 1
    option_spec = {"class": directives.class_option}

    def run(self):
        from actuatorlab.scenarios.units import COMMON_UNITS, DIMENSIONS

        which = self.arguments[0]
        if which == "dimensions":
            rows = [
                [
                    f"``{name}``",
                    f"``{d.si}``",
                    f"``{d.display}``" if d.display else "a plain number",
                    f"``{d.example}``",
                ]
                for name, d in DIMENSIONS.items()
            ]
            lines = _table(["dimension", "SI unit (a bare number)", "written by ``show`` in", "example"], rows)
        elif which == "common":
            rows = [
                [f'``"{unit}"``', dimension, f"{factor:.10g}"] for unit, (dimension, factor, _) in COMMON_UNITS.items()
            ]
            lines = _table(["unit as written", "dimension", "one unit in SI"], rows)
        else:
            raise self.error(f"units-table: give 'dimensions' or 'common', not {which!r}")
        node_list = StringList(lines, source="units-table")
        from docutils import nodes

        container = nodes.container()
        self.state.nested_parse(node_list, self.content_offset, container)
        return container.children


def setup(app):
    app.add_directive("units-table", UnitsTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""The C headers written from Python: ``model.h``, which an FMU is compiled with, from the variable
table (``variables.py``): value references, start values, causalities, the checks of each
parameter and input, the instantiation token; and ``c/layouts.h``, the enums of the kernel
vectors the C twins index (``layout_header``), from the same ``numerics.layout.Layout`` objects the
compiled Python kernels read. The C sources (``fmu/c/``) include both."""

from __future__ import annotations

import math

from ..numerics.layout import Layout
from .variables import PRESSURE_DYNAMICS, QUASISTATIC, Variable

NON_NEGATIVE = {"circuit.pump_flow", "initial_low_pressure"}
"""Parameters that may be 0; every other Float64 parameter must be > 0 (``initial_force``: any finite value)."""
ANY_FINITE = {"initial_force", "length_rate"}
CAUSALITY = {
    "independent": "ALAB_INDEPENDENT",
    "parameter": "ALAB_PARAMETER",
    "input": "ALAB_INPUT",
    "output": "ALAB_OUTPUT",
}


def _c_double(x: float | None) -> str:
    if x is None:
        return "0.0"
    if math.isinf(x):
        return "HUGE_VAL" if x > 0 else "-HUGE_VAL"
    return float(x).hex()


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _rule(v: Variable) -> str:
    """'P' > 0, 'N' >= 0, 'R' within [low, high], 'F' finite, '-' unchecked (time, outputs)."""
    if v.causality == "parameter":
        if v.name in ANY_FINITE:
            return "F"
        return "N" if v.name in NON_NEGATIVE else "P"
    if v.causality == "input":
        if v.low is not None:
            return "R"
        return "F" if v.name in ANY_FINITE else "P"
    return "-"


def model_header(variables: list[Variable], model: str, token: str) -> str:
    """The text of ``model.h`` for ``variables`` (Float64 first, then Boolean, as numbered)."""
    floats = [v for v in variables if v.kind == "Float64"]
    booleans = [v for v in variables if v.kind == "Boolean"]
    lines = [
        "/* model.h: written by actuatorlab.fmu.header from the table of actuatorlab/fmu/variables.py; the",
        " * model description of the FMU comes from the same table. Do not edit. */",
        "#ifndef ALAB_MODEL_H",
        "#define ALAB_MODEL_H",
        "#include <math.h>",
        "",
        f"#define ALAB_MODEL_{'QUASISTATIC' if model == QUASISTATIC else 'PRESSURE_DYNAMICS'} 1",
        f"#define ALAB_TOKEN {_c_string(token)}",
        f"#define N_FLOAT64 {len(floats)}",
        f"#define N_BOOLEAN {len(booleans)}",
        "#define N_VARIABLES (N_FLOAT64 + N_BOOLEAN)",
        "enum { ALAB_INDEPENDENT = 0, ALAB_PARAMETER = 1, ALAB_INPUT = 2, ALAB_OUTPUT = 3 };",
        "",
    ]
    inputs = [i for i, v in enumerate(floats) if v.causality == "input"]
    if inputs != list(range(inputs[0], inputs[-1] + 1)):
        raise ValueError("the inputs of the variable table must be consecutive")
    lines += [f"#define ALAB_FIRST_INPUT {inputs[0]}", f"#define ALAB_LAST_INPUT {inputs[-1]}"]
    for i, v in enumerate(floats + booleans):
        lines.append(f"#define {v.macro} {i}")
    lines += ["", "static const char *const alab_names[N_VARIABLES] = {"]
    lines += [f"    {_c_string(v.name)}," for v in floats + booleans]
    lines += ["};", "static const char *const alab_units[N_VARIABLES] = {"]
    lines += [f"    {_c_string(v.unit or '')}," for v in floats + booleans]
    lines += ["};", "static const int alab_causality[N_VARIABLES] = {"]
    lines += [f"    {CAUSALITY[v.causality]}," for v in floats + booleans]
    lines += [
        "};",
        "static const char alab_rules[N_VARIABLES + 1] = "
        + _c_string("".join(_rule(v) for v in floats + booleans))
        + ";",
    ]
    lines += ["static const double alab_start[N_FLOAT64] = {"]
    lines += [f"    {_c_double(v.start)}, /* {v.name} */" for v in floats]
    lines += ["};", "static const double alab_low[N_FLOAT64] = {"]
    lines += [f"    {_c_double(v.low)}," for v in floats]
    lines += ["};", "static const double alab_high[N_FLOAT64] = {"]
    lines += [f"    {_c_double(v.high)}," for v in floats]
    lines += ["};"]
    if booleans:
        lines += ["static const int alab_start_boolean[N_BOOLEAN] = {"]
        lines += [f"    {int(bool(v.start))}, /* {v.name} */" for v in booleans]
        lines += ["};"]
    else:
        lines += ["static const int alab_start_boolean[1] = {0};"]
    lines += ["", "#endif", ""]
    return "\n".join(lines)


LAYOUTS_H = "layouts.h"
"""The generated layout header among the C sources (``compiler.C_DIR``)."""


def c_layouts() -> list[tuple[Layout, str, str]]:
    """The layouts the C twins index, each with the name of its length in C and what it lays out."""
    from ..hydraulics.pressure_dynamics import PARTIALS, RAW_OPENINGS, PressureDynamics
    from ..hydraulics.quasistatic.circuit import NORMALISED_OPENINGS, ValveCircuit

    return [
        (ValveCircuit.LAYOUT, "N_CIRCUIT", "the circuit vector, ValveCircuit.kernel_array()"),
        (NORMALISED_OPENINGS, "N_OPEN", "the normalised openings u_hat (40)-(43), circuit.NORMALISED_OPENINGS"),
        (PressureDynamics.LAYOUT, "N_PRESSURE", "the fluid vector, PressureDynamics.kernel_array()"),
        (RAW_OPENINGS, "N_RAW", "the raw openings, pressure_dynamics.RAW_OPENINGS"),
        (PARTIALS, "N_D", "the columns of the partial derivatives, pressure_dynamics.PARTIALS"),
    ]


def layout_header() -> str:
    """The text of ``c/layouts.h``: one enum per layout of ``c_layouts``, entries in layout order,
    then the length."""
    lines = [
        "/* layouts.h: written by actuatorlab.fmu.header.layout_header from the layouts the compiled Python",
        " * kernels read (numerics/layout.py); tests/test_fmu_layouts.py checks it is current. Do not edit. */",
        "#ifndef ALAB_LAYOUTS_H",
        "#define ALAB_LAYOUTS_H",
        "",
    ]
    for layout, length, what in c_layouts():
        names = [*layout.constants(), length]
        lines += [f"/* {what} */", "enum {"]
        row = "   "
        for i, name in enumerate(names):
            piece = f" {name}{' = 0' if i == 0 else ''}{',' if i < len(names) - 1 else ''}"
            if len(row) + len(piece) > 100:
                lines.append(row)
                row = "   "
            row += piece
        lines += [row, "};"]
    lines += ["", "#endif", ""]
    return "\n".join(lines)


__all__ = ["layout_header", "model_header", "LAYOUTS_H", "PRESSURE_DYNAMICS", "QUASISTATIC"]

"""Quantities with units in scenario files: parse them to SI and write them back for display.

A scenario value is either a bare number, taken as already SI, or a string with a unit that
pint can read (``"36 MPa"``, ``"500 L/min"``, ``"75 mm"``, ``"30 deg"``). Each field declares
one of the dimensions of :data:`DIMENSIONS`; a string of another dimension is an error naming
the field, what it received and what to write instead.

The units scenario files use most (those of :data:`COMMON_UNITS`) are converted from a table
of exact definitions, so a file written with them is read without building pint's registry
(0.3–0.5 s); any other unit, and every error message, goes through pint. Every row converts
to the last bit as pint does (``tests/test_scenarios.py`` checks each one both ways).

Angles are dimensionless to pint, so the radian is tracked separately: an angle field takes
``"30 deg"`` (or a bare number in rad), a dimensionless field rejects ``"30 deg"``, and a
frequency (cycles per second, Hz) and an angular velocity (rad/s) are told apart, so
``"60 rpm"`` is not silently read as 60 Hz or 60 rad/s; a pump's or motor's displacement is
per revolution (``"45 cm^3/rev"``), never a bare volume.
"""

from __future__ import annotations

import functools
import math
import re
import sys
from dataclasses import dataclass

from ..errors import ScenarioError


@dataclass(frozen=True)
class Dimension:
    """One row of the dimension table.

    si : pint unit string of the SI unit a value is converted to.
    display : pint unit string used by :func:`format_quantity` (``None``: a plain float).
    example : a value of this dimension, quoted in error messages.
    radians : the power of the radian the quantity carries (1: an angle, an angular velocity;
    −1: a displacement per revolution); pint counts the radian as a pure number, so it is
    checked apart.
    """

    si: str
    display: str | None
    example: str
    radians: int = 0


DIMENSIONS: dict[str, Dimension] = {
    "dimensionless": Dimension("dimensionless", None, "0.5"),
    "length": Dimension("m", "m", '"75 mm"'),
    "area": Dimension("m^2", "m^2", '"0.024 m^2"'),
    "volume": Dimension("m^3", "L", '"2 L"'),
    "mass": Dimension("kg", "kg", '"2000 kg"'),
    "inertia": Dimension("kg*m^2", "kg*m^2", '"5000 kg m^2"'),
    "time": Dimension("s", "s", '"10 s"'),
    "frequency": Dimension("Hz", "Hz", '"1.5 Hz"'),
    "angle": Dimension("rad", "deg", '"30 deg"', radians=1),
    "angular_velocity": Dimension("rad/s", "deg/s", '"10 deg/s"', radians=1),
    "velocity": Dimension("m/s", "m/s", '"0.6 m/s"'),
    "acceleration": Dimension("m/s^2", "m/s^2", '"9.81 m/s^2"'),
    "force": Dimension("N", "kN", '"20 kN"'),
    "pressure": Dimension("Pa", "MPa", '"36 MPa"'),
    "volume_flow": Dimension("m^3/s", "L/min", '"500 L/min"'),
    "density": Dimension("kg/m^3", "kg/m^3", '"850 kg/m^3"'),
    "stiffness": Dimension("N/m", "N/m", '"5e7 N/m"'),
    "damping": Dimension("N*s/m", "N*s/m", '"2.5e6 N s/m"'),
    "torque": Dimension("N*m", "kN*m", '"10 kN m"'),
    "flow_gain": Dimension("m^3/(s*Pa)", "L/min/bar", '"300 L/min/bar"'),
    "displacement": Dimension("m^3/rev", "cm^3/rev", '"45 cm^3/rev"', radians=-1),
    "rotational_stiffness": Dimension("N*m/rad", "N*m/rad", '"1e8 N m/rad"', radians=-1),
    "rotational_damping": Dimension("N*m*s/rad", "N*m*s/rad", '"2e6 N m s/rad"', radians=-1),
}
"""Dimensions a scenario field may declare, with SI unit, display unit and an example.

====================  ==========  ============
dimension             SI unit     display unit
====================  ==========  ============
dimensionless         1           plain float
length                m           m
area                  m^2         m^2
volume                m^3         L
mass                  kg          kg
inertia               kg m^2      kg*m^2
time                  s           s
frequency             Hz          Hz
angle                 rad         deg
angular_velocity      rad/s       deg/s
velocity              m/s         m/s
acceleration          m/s^2       m/s^2
force                 N           kN
pressure              Pa          MPa
volume_flow           m^3/s       L/min
density               kg/m^3      kg/m^3
stiffness             N/m         N/m
damping               N s/m       N*s/m
torque                N m         kN*m
flow_gain             m^3/(s Pa)  L/min/bar
displacement          m^3/rev     cm^3/rev
rotational_stiffness  N m/rad     N*m/rad
rotational_damping    N m s/rad   N*m*s/rad
====================  ==========  ============
"""

_MINUTE = 60.0
_LITRE = 1e-3
_BAR = 1e5
COMMON_UNITS: dict[str, tuple[str, float, float]] = {
    # unit as written (spaces for products) → (dimension, one unit in SI, one SI unit in it)
    "m": ("length", 1.0, 1.0),
    "mm": ("length", 1e-3, 1e3),
    "cm": ("length", 1e-2, 1e2),
    "m^2": ("area", 1.0, 1.0),
    "mm^2": ("area", 1e-6, 1e6),
    "cm^2": ("area", 1e-4, 1e4),
    "m^3": ("volume", 1.0, 1.0),
    "L": ("volume", _LITRE, 1e3),
    "kg": ("mass", 1.0, 1.0),
    "t": ("mass", 1e3, 1e-3),
    "kg m^2": ("inertia", 1.0, 1.0),
    "s": ("time", 1.0, 1.0),
    "ms": ("time", 1e-3, 1e3),
    "min": ("time", _MINUTE, 1.0 / _MINUTE),
    "Hz": ("frequency", 1.0, 1.0),
    "rad": ("angle", 1.0, 1.0),
    "deg": ("angle", math.pi / 180.0, 180.0 / math.pi),
    "rad/s": ("angular_velocity", 1.0, 1.0),
    "deg/s": ("angular_velocity", math.pi / 180.0, 180.0 / math.pi),
    "rpm": ("angular_velocity", math.pi / 30.0, 30.0 / math.pi),
    "m/s": ("velocity", 1.0, 1.0),
    "mm/s": ("velocity", 1e-3, 1e3),
    "m/s^2": ("acceleration", 1.0, 1.0),
    "N": ("force", 1.0, 1.0),
    "kN": ("force", 1e3, 1e-3),
    "Pa": ("pressure", 1.0, 1.0),
    "kPa": ("pressure", 1e3, 1e-3),
    "MPa": ("pressure", 1e6, 1e-6),
    "bar": ("pressure", _BAR, 1e-5),
    "m^3/s": ("volume_flow", 1.0, 1.0),
    "L/min": ("volume_flow", _LITRE / _MINUTE, 60000.0),
    "kg/m^3": ("density", 1.0, 1.0),
    "N/m": ("stiffness", 1.0, 1.0),
    "N s/m": ("damping", 1.0, 1.0),
    "N m": ("torque", 1.0, 1.0),
    "kN m": ("torque", 1e3, 1e-3),
    "m^3/(s Pa)": ("flow_gain", 1.0, 1.0),
    "L/min/bar": ("flow_gain", _LITRE / _MINUTE / _BAR, 6.0e9),
    "m^3/rev": ("displacement", 1.0, 1.0),
    "cm^3/rev": ("displacement", 1e-6, 1e6),
    "N m/rad": ("rotational_stiffness", 1.0, 1.0),
    "N m s/rad": ("rotational_damping", 1.0, 1.0),
}
"""Units read and written without pint; ``_factors`` takes them from here."""

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)", re.IGNORECASE)


@functools.cache
def registry():
    """The shared pint ``UnitRegistry``, built on first use (building it takes ~0.3 s), with
    ``rev`` (a revolution, the catalogue's unit of a pump's displacement) added."""
    import pint

    ureg = pint.UnitRegistry()
    ureg.define("rev = revolution")
    return ureg


def _spoken(dimension: str) -> str:
    words = dimension.replace("_", " ")
    if dimension == "dimensionless":
        return "a dimensionless number"
    return ("an " if words[0] in "aeiou" else "a ") + words


def _radians(quantity) -> int:
    """Power of the radian in a pint quantity's root units (1 for an angle, 0 for a pure number)."""
    return int(dict(quantity.to_root_units().unit_items()).get("radian", 0))


def _si_dimensionality(dimension: str):
    return registry().parse_expression(DIMENSIONS[dimension].si).dimensionality


def _name_of(quantity) -> str:
    """What a parsed quantity is, in words ("a length"), for error messages."""
    radians = _radians(quantity)
    candidates = [d for d in DIMENSIONS if _si_dimensionality(d) == quantity.dimensionality]
    for dimension in candidates:
        if DIMENSIONS[dimension].radians == radians:
            return _spoken(dimension)
    if candidates:
        return _spoken(candidates[0])
    return f"a quantity of dimension {quantity.dimensionality}"


def _check_dimension(dimension: str) -> Dimension:
    try:
        return DIMENSIONS[dimension]
    except KeyError:
        raise ValueError(f"unknown dimension {dimension!r}; use one of {', '.join(DIMENSIONS)}") from None


def _common_unit(unit: str) -> tuple[str, float, float] | None:
    """The :data:`COMMON_UNITS` row of ``unit`` ("N*s/m" and "N s/m" alike), or None."""
    return COMMON_UNITS.get(" ".join(unit.replace("*", " ").split()))


def _parse_common(cleaned: str, dimension: str) -> float | None:
    """A "number unit" string in a common unit of ``dimension`` in SI; None for anything else."""
    number = _NUMBER.match(cleaned)
    if number is None:
        return None
    row = _common_unit(cleaned[number.end() :])
    if row is None or row[0] != dimension:
        return None
    return _scale(float(number.group()), cleaned[number.end() :], DIMENSIONS[dimension].si)


@functools.lru_cache(maxsize=4096)
def _parse_string(text: str, dimension: str) -> float:
    """``text`` in SI; a value that overflows (``"2000 kg**1000000000"``, ``"1e308 km"``) is
    refused, and only a string that writes ``inf`` may be infinite."""
    try:
        value = _parse(text, dimension)
    except OverflowError:
        value = math.inf
    if math.isinf(value) and "inf" not in text.lower():
        raise ScenarioError(
            f'"{text}" overflows: its value is beyond the largest number '
            f"({sys.float_info.max:.3g} {DIMENSIONS[dimension].si}); write a finite value such as "
            f"{DIMENSIONS[dimension].example}"
        )
    return value


def _parse(text: str, dimension: str) -> float:
    spec = DIMENSIONS[dimension]
    cleaned = text.replace("\u2212", "-").replace("\u00b7", "*").strip()
    if _NUMBER.fullmatch(cleaned):
        return float(cleaned)
    common = _parse_common(cleaned, dimension)
    if common is not None:
        return common
    expected = f"expected {_spoken(dimension)} such as {spec.example}"
    try:
        if not cleaned:
            raise ValueError("empty")
        quantity = registry().parse_expression(cleaned)
    except Exception:  # noqa: BLE001 — pint raises several unrelated types for unreadable text
        raise ScenarioError(
            f'"{text}" could not be read as a quantity: write a number and a unit such as {spec.example}'
        ) from None
    if not hasattr(quantity, "dimensionality"):  # a plain number written as an expression
        return float(quantity)
    radians = _radians(quantity)
    matches = quantity.dimensionality == _si_dimensionality(dimension) and radians == spec.radians
    if not matches:
        raise ScenarioError(f'"{text}" is {_name_of(quantity)}; {expected}')
    try:
        return _scale(float(quantity.magnitude), str(quantity.units), spec.si)
    except Exception:  # noqa: BLE001 — offset units such as degC; any failure to convert is reported
        raise ScenarioError(f'"{text}" cannot be converted to {spec.si}; {expected}') from None


def _snap(factor: float) -> float:
    """A conversion factor within 1e-12 of an integer ≥ 1 (59999.99999999999) as that integer."""
    nearest = round(factor)
    return float(nearest) if nearest >= 1 and abs(factor - nearest) <= 1e-12 * factor else factor


@functools.lru_cache(maxsize=1024)
def _factors(unit: str, si: str) -> tuple[float, float]:
    """(1 ``unit`` in ``si``, 1 ``si`` in ``unit``), near-integers snapped to integers; from
    :data:`COMMON_UNITS` when both are in it, else from pint."""
    row, si_row = _common_unit(unit), _common_unit(si)
    if row is not None and si_row is not None and row[0] == si_row[0] and si_row[1] == 1.0:
        return _snap(row[1]), _snap(row[2])
    ureg = registry()
    forward = float(ureg.Quantity(1.0, unit).to(si).magnitude)
    backward = float(ureg.Quantity(1.0, si).to(unit).magnitude)
    return _snap(forward), _snap(backward)


def _scale(magnitude: float, unit: str, si: str) -> float:
    """``magnitude`` in ``unit`` converted to ``si``.

    Dividing by an integral inverse factor (60000 for L/min, 1000 for mm) gives the correctly
    rounded result, so ``"500 L/min"`` is exactly ``500 / 60000``.
    """
    factor, inverse = _factors(unit, si)
    if factor.is_integer() or not inverse.is_integer():
        return magnitude * factor
    return magnitude / inverse


def convert(value, dimension: str) -> float:
    """``value`` (a number in SI or a string with a unit) as a float in SI.

    Raises :class:`~actuatorlab.errors.ScenarioError` without a field path; use
    :func:`to_si` to name the field. NaN and a value that overflows are rejected; ±inf written as
    such is passed on for the caller to judge.
    """
    spec = _check_dimension(dimension)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ScenarioError(f"expected a number or a quantity string such as {spec.example}, received {value!r}")
    try:
        result = float(value) if not isinstance(value, str) else _parse_string(value, dimension)
    except OverflowError:  # an integer too large for a float
        digits = int(value.bit_length() * math.log10(2)) + 1
        raise ScenarioError(
            f"an integer of {digits} digits overflows: it is beyond the largest number "
            f"({sys.float_info.max:.3g}); write a finite value such as {spec.example}"
        ) from None
    if math.isnan(result):
        raise ScenarioError(f"{value!r} is not a number; write a value such as {spec.example}")
    return result


def to_si(value, dimension: str, where: str) -> float:
    """Convert a scenario value to SI.

    Parameters
    ----------
    value : float or str
        A number (already SI; angles in rad) or a string with a unit, e.g. ``"36 MPa"``.
    dimension : str
        A key of :data:`DIMENSIONS`, e.g. ``"pressure"``.
    where : str
        Dotted path of the field in the scenario file, used in error messages.

    Returns
    -------
    float
        The value in the SI unit of ``dimension`` (``DIMENSIONS[dimension].si``).

    Raises
    ------
    ScenarioError
        ``where: "36 m" is a length; expected a pressure such as "36 MPa"``, or the string
        could not be read as a quantity.
    """
    try:
        return convert(value, dimension)
    except ScenarioError as error:
        raise ScenarioError(f"{where}: {error}") from None


def from_si(value: float, unit: str, dimension: str, where: str) -> float:
    """``value`` [SI of ``dimension``] in ``unit``; a unit of another dimension raises a one-line
    ``ScenarioError`` naming ``where``. Multiplying by an integral factor (60000 for L/min) keeps
    a value read from a file exact: 500 L/min reads back as 500."""
    to_si(f"1 {unit}", dimension, where)  # the dimension check, with its message
    forward, backward = _factors(unit, DIMENSIONS[dimension].si)
    return value * backward if backward.is_integer() or not forward.is_integer() else value / forward


def _number(x: float, digits: int) -> str:
    """``x`` rounded to ``digits`` significant digits, tidily: 500, 0.0001, 5e7, 2.5e-6."""
    rounded = float(f"{x:.{digits}g}")
    if rounded == 0.0 or 1e-4 <= abs(rounded) < 1e6:
        text = repr(rounded)
        return text[:-2] if text.endswith(".0") else text
    mantissa, _, exponent = f"{rounded:.{digits}g}".partition("e")
    return f"{mantissa}e{int(exponent)}" if exponent else mantissa


def format_quantity(value_si: float, dimension: str) -> str | float:
    """``value_si`` written in the display unit of ``dimension``, e.g. ``"36 MPa"``.

    Dimensionless and non-finite values come back as a float. The string reads back exactly:
    ``to_si(format_quantity(x, d), d, ...) == x``; when no short decimal in the display unit
    does, the SI float itself is returned.
    """
    spec = _check_dimension(dimension)
    x = float(value_si)
    if spec.display is None or not math.isfinite(x):
        return x
    factor, inverse = _factors(spec.display, spec.si)
    scaled = x * inverse if inverse.is_integer() or not factor.is_integer() else x / factor
    nearby = [scaled]
    for direction in (math.inf, -math.inf):
        nudged = scaled
        for _ in range(4):
            nudged = math.nextafter(nudged, direction)
            nearby.append(nudged)
    for candidate in nearby:
        for digits in range(1, 18):
            text = f"{_number(candidate, digits)} {spec.display}"
            if _parse_string(text, dimension) == x:
                return text
    return x

"""The ports of an exported actuator: every variable of the FMU with its causality, unit,
description and start value, in value-reference order.

This table is the one source of both the model description (``model_description.py``) and the
C header the FMU's sources are compiled with (``header.py``): value references, start values
and which variables the master may set are written from it into both, so they cannot drift.

Signs and units as everywhere in actuatorlab (docs/architecture.md): SI; v > 0 extends the rod;
f > 0 pushes the rod out; pressures are gauge (tank = 0).
"""

from __future__ import annotations

from dataclasses import dataclass

QUASISTATIC = "quasistatic"
PRESSURE_DYNAMICS = "pressure-dynamics"
MODELS = (QUASISTATIC, PRESSURE_DYNAMICS)


@dataclass(frozen=True)
class Unit:
    """An FMI unit: its name, the exponents of the SI base units, and display units
    (name, factor): value_display = factor·value_SI."""

    name: str
    exponents: tuple[tuple[str, int], ...]
    display: tuple[tuple[str, float], ...] = ()


UNITS: dict[str, Unit] = {
    u.name: u
    for u in (
        Unit("1", ()),
        Unit("s", (("s", 1),)),
        Unit("m", (("m", 1),), (("mm", 1e3),)),
        Unit("m/s", (("m", 1), ("s", -1)), (("mm/s", 1e3),)),
        Unit("m2", (("m", 2),), (("cm2", 1e4),)),
        Unit("m3", (("m", 3),), (("L", 1e3),)),
        Unit("N", (("kg", 1), ("m", 1), ("s", -2)), (("kN", 1e-3),)),
        Unit("Pa", (("kg", 1), ("m", -1), ("s", -2)), (("MPa", 1e-6), ("bar", 1e-5))),
        Unit("m3/s", (("m", 3), ("s", -1)), (("L/min", 6e4),)),
        Unit("kg/m3", (("kg", 1), ("m", -3))),
        Unit("N/m", (("kg", 1), ("s", -2)), (("kN/mm", 1e-6),)),
        Unit("N.s/m", (("kg", 1), ("s", -1)), (("kN.s/mm", 1e-6),)),
        Unit("m3/(s.Pa)", (("kg", -1), ("m", 4), ("s", 1)), (("L/(min.bar)", 6e9),)),
    )
}


@dataclass(frozen=True)
class Variable:
    """One port. ``causality``: independent, parameter, input or output; ``kind``: Float64 or
    Boolean; ``start`` in SI (None: calculated by the FMU); ``low``/``high``: the allowed range
    written as min/max (inputs and parameters; None: unbounded)."""

    name: str
    causality: str
    unit: str | None
    description: str
    start: float | bool | None = None
    display_unit: str | None = None
    low: float | None = None
    high: float | None = None
    kind: str = "Float64"
    c_name: str = ""

    @property
    def macro(self) -> str:
        """The C macro of its value reference, e.g. VR_CIRCUIT_HEAD_AREA."""
        return "VR_" + (self.c_name or self.name).upper().replace(".", "_")


VALVE_NAMES = {"ph": "pump to head", "tr": "rod to tank", "pr": "pump to rod", "th": "head to tank", "b": "bleed"}


def _circuit(circuit) -> list[Variable]:
    """The fields of ``ValveCircuit`` (66), per valve where the circuit has one value per valve."""
    out = []
    coefficients = dict(zip(VALVE_NAMES, _per_valve(circuit.discharge_coefficient)))
    areas = dict(zip(VALVE_NAMES, _per_valve(circuit.max_area)))
    for valve, what in VALVE_NAMES.items():
        out.append(
            Variable(
                f"circuit.discharge_coefficient.{valve}",
                "parameter",
                "1",
                f"discharge coefficient C_{valve} of valve {valve} ({what}), > 0",
                coefficients[valve],
            )
        )
    for valve, what in VALVE_NAMES.items():
        out.append(
            Variable(
                f"circuit.max_area.{valve}",
                "parameter",
                "m2",
                f"maximum opening area a_{valve} of valve {valve} ({what}), > 0",
                areas[valve],
            )
        )
    out += [
        Variable("circuit.oil_density", "parameter", "kg/m3", "oil density rho, > 0", circuit.oil_density),
        Variable("circuit.head_area", "parameter", "m2", "piston area A_h on the head side, > 0", circuit.head_area),
        Variable(
            "circuit.rod_area", "parameter", "m2", "annulus area A_r on the rod side, 0 < A_r < A_h", circuit.rod_area
        ),
        Variable(
            "circuit.head_relief_pressure",
            "parameter",
            "Pa",
            "cracking pressure P_hM of the head relief, > 0",
            circuit.head_relief_pressure,
            "MPa",
        ),
        Variable(
            "circuit.rod_relief_pressure",
            "parameter",
            "Pa",
            "cracking pressure P_rM of the rod relief, > 0",
            circuit.rod_relief_pressure,
            "MPa",
        ),
        Variable(
            "circuit.pump_relief_pressure",
            "parameter",
            "Pa",
            "cracking pressure P_M of the pump relief, > 0",
            circuit.pump_relief_pressure,
            "MPa",
        ),
        Variable("circuit.pump_flow", "parameter", "m3/s", "fixed pump delivery Q, >= 0", circuit.pump_flow, "L/min"),
        Variable(
            "circuit.regeneration_discharge_coefficient",
            "parameter",
            "1",
            "discharge coefficient C_a of the regeneration valve (rod to head), > 0",
            circuit.regeneration_discharge_coefficient,
        ),
        Variable(
            "circuit.regeneration_max_area",
            "parameter",
            "m2",
            "maximum opening area a_a of the regeneration valve, > 0",
            circuit.regeneration_max_area,
        ),
    ]
    return out


def _per_valve(value) -> list[float]:
    if isinstance(value, (int, float)):
        return [float(value)] * len(VALVE_NAMES)
    return [float(value[v]) for v in VALVE_NAMES]


def _inputs(start: dict[str, float]) -> list[Variable]:
    return [
        Variable(
            "valve_command",
            "input",
            "1",
            "valve command u_c in [-1, 1] (67): > 0 opens ph and tr (extend), < 0 opens pr and th (retract)",
            start["valve_command"],
            low=-1.0,
            high=1.0,
        ),
        Variable("bleed", "input", "1", "bleed valve opening u_b in [0, 1]", start["bleed"], low=0.0, high=1.0),
        Variable(
            "regeneration",
            "input",
            "1",
            "regeneration valve opening u_a in [0, 1] (rod to head, Sec. 5)",
            start["regeneration"],
            low=0.0,
            high=1.0,
        ),
        Variable(
            "length",
            "input",
            "m",
            "cylinder length l between the pins, from the master's mechanics",
            start["length"],
            "mm",
        ),
        Variable(
            "length_rate",
            "input",
            "m/s",
            "rate of the cylinder length dl/dt (> 0 extends), from the master's mechanics",
            start["length_rate"],
            "mm/s",
        ),
    ]


def _outputs(model: str) -> list[Variable]:
    rod = (
        [
            Variable(
                "rod_position",
                "output",
                "m",
                "rod state p of the relaxed actuator (72c): the length the "
                "hydraulics hold; force = K(p - l) + B(dp/dt - dl/dt)",
                display_unit="mm",
            ),
            Variable("stretch", "output", "m", "stretch p - l of the virtual spring-damper", display_unit="mm"),
        ]
        if model == QUASISTATIC
        else [
            Variable(
                "rod_position", "output", "m", "piston position x = l - l0 from full retraction", display_unit="mm"
            )
        ]
    )
    return [
        Variable(
            "force", "output", "N", "actuator force f = A_h p_h - A_r p_r (> 0 pushes the rod out)", display_unit="kN"
        ),
        *rod,
        Variable("rod_velocity", "output", "m/s", "rod velocity v (> 0 extends)", display_unit="mm/s"),
        Variable("head_pressure", "output", "Pa", "head-side chamber pressure p_h (gauge)", display_unit="MPa"),
        Variable("rod_pressure", "output", "Pa", "rod-side chamber pressure p_r (gauge)", display_unit="MPa"),
        Variable("pump_pressure", "output", "Pa", "pump-line pressure P (gauge)", display_unit="MPa"),
        Variable("supply_flow", "output", "m3/s", "flow from the pump line into the cylinder", display_unit="L/min"),
        Variable("bleed_flow", "output", "m3/s", "flow through the bleed valve", display_unit="L/min"),
        Variable("relief_flow", "output", "m3/s", "flow through the pump relief valve", display_unit="L/min"),
        Variable(
            "regeneration_flow",
            "output",
            "m3/s",
            "flow through the regeneration valve (rod to head)",
            display_unit="L/min",
        ),
    ]


def quasistatic_variables(circuit, relaxation, start: dict[str, float], max_stretch: float) -> list[Variable]:
    """The ports of the relaxed quasistatic actuator (one step (72) per communication step)."""
    return [
        Variable("time", "independent", "s", "simulation time"),
        *_circuit(circuit),
        Variable(
            "relaxation.stiffness",
            "parameter",
            "N/m",
            "stiffness K of the virtual spring (68a), > 0 "
            "(with K = 0 the rod does not follow the length and holds no static load)",
            relaxation.stiffness,
        ),
        Variable(
            "relaxation.damping", "parameter", "N.s/m", "damping B of the virtual damper (68a), > 0", relaxation.damping
        ),
        Variable(
            "max_stretch",
            "parameter",
            "m",
            "largest |p - l| before a step is refused as diverged, > 0",
            max_stretch,
            "mm",
        ),
        *_inputs(start),
        *_outputs(QUASISTATIC),
        Variable(
            "length_rate_from_input",
            "parameter",
            None,
            "true: the damper reads the input length_rate "
            "(ODE (70) stepped by backward Euler); false: (l_k - l_{k-1})/h as algorithm (72)",
            False,
            kind="Boolean",
        ),
    ]


def pressure_variables(
    circuit, fluid, start: dict[str, float], initial_low_pressure: float, initial_force: float, max_substep: float
) -> list[Variable]:
    """The ports of the pressure-dynamics cylinder (implicit, internal substeps)."""
    return [
        Variable("time", "independent", "s", "simulation time"),
        *_circuit(circuit),
        Variable(
            "pressure_dynamics.bulk_modulus", "parameter", "Pa", "oil bulk modulus, > 0", fluid.bulk_modulus, "MPa"
        ),
        Variable(
            "pressure_dynamics.head_dead_volume",
            "parameter",
            "m3",
            "head-side volume at full retraction, > 0",
            fluid.head_dead_volume,
            "L",
        ),
        Variable(
            "pressure_dynamics.rod_dead_volume",
            "parameter",
            "m3",
            "rod-side volume at full extension, > 0",
            fluid.rod_dead_volume,
            "L",
        ),
        Variable(
            "pressure_dynamics.pump_line_volume",
            "parameter",
            "m3",
            "pump-line volume, > 0",
            fluid.pump_line_volume,
            "L",
        ),
        Variable(
            "pressure_dynamics.laminar_pressure",
            "parameter",
            "Pa",
            "laminar-turbulent transition pressure of the orifices, > 0",
            fluid.laminar_pressure,
            "MPa",
        ),
        Variable(
            "pressure_dynamics.relief_flow_gain",
            "parameter",
            "m3/(s.Pa)",
            "flow gain of the relief valves above cracking, > 0",
            fluid.relief_flow_gain,
            "L/(min.bar)",
        ),
        Variable(
            "pressure_dynamics.check_flow_gain",
            "parameter",
            "m3/(s.Pa)",
            "flow gain of the suction check valves below tank pressure, > 0",
            fluid.check_flow_gain,
            "L/(min.bar)",
        ),
        Variable("cylinder.stroke", "parameter", "m", "stroke s, > 0", fluid.stroke, "mm"),
        Variable(
            "cylinder.retracted_length",
            "parameter",
            "m",
            "pin-to-pin length l0 at full retraction, > 0",
            fluid.retracted_length,
            "mm",
        ),
        Variable(
            "initial_low_pressure",
            "parameter",
            "Pa",
            "pressure of the less loaded chamber at the start, >= 0",
            initial_low_pressure,
            "MPa",
        ),
        Variable(
            "initial_force",
            "parameter",
            "N",
            "force the chambers hold at the start (> 0 pushes the rod out)",
            initial_force,
            "kN",
        ),
        Variable(
            "max_substep",
            "parameter",
            "s",
            "largest internal step of the implicit integration (TR-BDF2); a longer communication step is split, > 0",
            max_substep,
        ),
        *_inputs(start),
        *_outputs(PRESSURE_DYNAMICS),
    ]

"""Batched sweeps of the arm kinds (``arm`` and ``arms-one-pump``, quasistatic model): many
variants of one scenario through one compiled call (``simulation.arm_batch.simulate_arm_batch``).

Per variant, only what it changes is done in Python: ``variants.set_values`` validates the
tables on its paths, and the physics models of the changed tables are built (which checks them
as ``parse_scenario`` does); unchanged models, the time grid and unchanged inputs are built and
sampled once per batch. The records of ``BATCH_ROWS`` variants at a time are reduced to their key
figures (``arm_figures``, the functions a single run uses) and to samples of the main signals at
the envelope times; a variant whose time series are asked for gets the output of a single run,
built from its batched records. A variant that fails is rerun through nothing: its error is the
one ``simulate_arms`` raises from the same records.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from ...errors import ActuatorlabError
from ...simulation.arm import (
    ROW_F,
    ROW_LENGTH,
    ROW_P,
    ROW_PUMP,
    ROW_RATE,
    ROW_THETA,
    ArmDrive,
)
from ...simulation.arm_batch import ArmRun, simulate_arm_batch
from ..output import BatchOutput
from ..variants import Variants, set_values
from .arm_inputs import sample_arms_inputs, sample_inputs
from .arm_figures import (
    ARM_FIGURES,
    TIMING_FIGURES,
    arm_figure_values,
    arms_figure_info,
    arms_figure_values,
    timing_values,
)

BATCH_ROWS = 64
"""Variants per compiled call: their records (7 × arms × samples doubles each) are held at once."""
TABLES = {
    "arm": ("circuit", "arm", "relaxation", "inputs", "cylinder"),
    "arms-one-pump": ("circuit", "relaxation", "bleed", "arms", "cylinder"),
}
"""Top-level tables whose fields a batch may vary, per kind (the time grid and the model are shared)."""


def batch_support(scenario, paths: Collection[str]) -> str | None:
    """None if variants of ``scenario`` along ``paths`` run batched, else the reason they do not."""
    if scenario.model != "quasistatic":
        return f"the {scenario.model} model runs one variant per call"
    for path in paths:
        if path.split(".")[0].split("[")[0] not in TABLES[scenario.kind]:
            return f"{path} is not batched (fields of {', '.join(TABLES[scenario.kind])} are)"
    return None


@dataclass
class _OneArm:
    """The ``arm`` kind: the base's models, built once; a variant's run from the changed ones."""

    base: object
    t: np.ndarray
    shared = False

    def __post_init__(self):
        self.arm, self.circuit, self.relaxation = (
            self.base.arm.build(),
            self.base.circuit.build(),
            self.base.relaxation.build(),
        )
        self.sampled = sample_inputs(self.base, self.t)
        self.drive = self._drive(self.sampled)
        self.info = {**ARM_FIGURES, **TIMING_FIGURES}
        self.signals = {"theta": (ROW_THETA, 0, "rad"), "theta_rate": (ROW_RATE, 0, "rad/s"), "force": (ROW_F, 0, "N")}
        """Envelope signal → (record row, arm, unit)."""

    def _drive(self, inputs: dict[str, np.ndarray]) -> ArmDrive:
        return ArmDrive.of(
            inputs["valve_command"], inputs["bleed"], inputs["external_force"], inputs["regeneration"], self.t.size, 1
        )

    def run_of(self, v) -> ArmRun:
        """The run of the variant scenario ``v``, its changed tables built (and so checked)."""
        base = self.base
        if v.cylinder is not base.cylinder:
            v.pressure_dynamics.build(v.cylinder)
        return ArmRun(
            (self.arm if v.arm is base.arm else v.arm.build(),),
            (self.circuit if v.circuit is base.circuit else v.circuit.build(),),
            self.relaxation if v.relaxation is base.relaxation else v.relaxation.build(),
            self.drive if v.inputs is base.inputs else self._drive(sample_inputs(v, self.t, base, self.sampled)),
            (v.arm.initial_angle,),
            (v.arm.initial_rate,),
            v.cylinder.length_range(),
            (v.arm.angle_range,),
        )

    def figures(self, out: np.ndarray, runs: list[ArmRun]) -> dict[str, np.ndarray]:
        """Key figures (B,) of the records ``out`` (B, 7, 1, n) of ``runs``."""
        circuits = [run.circuits[0] for run in runs]
        return arm_figure_values(
            self.t,
            out[:, ROW_THETA, 0],
            out[:, ROW_F, 0],
            np.array([c.head_relief_force for c in circuits]),
            np.array([c.rod_relief_force for c in circuits]),
            out[:, ROW_P, 0] - out[:, ROW_LENGTH, 0],
        )

    def output(self, scenario, results):
        """The single run's output of variant scenario ``scenario`` from its ``results``."""
        from .arm import output  # plotting imports: only where a variant's series are kept

        (result,) = results
        return output(scenario, result)


@dataclass
class _ArmsOnePump(_OneArm):
    """The ``arms-one-pump`` kind: N arms of one circuit on a shared pump."""

    shared = True

    def __post_init__(self):
        self.arms = tuple(unit.build(f"arms[{j}]") for j, unit in enumerate(self.base.arms))
        self.circuit, self.relaxation = self.base.circuit.build(), self.base.relaxation.build()
        self.drive = self._arms_drive(self.base)
        n_arms = len(self.arms)
        self.info = {**arms_figure_info(n_arms), **TIMING_FIGURES}
        self.signals = {
            **{f"theta_{j + 1}": (ROW_THETA, j, "rad") for j in range(n_arms)},
            "pump_pressure": (ROW_PUMP, 0, "Pa (gauge)"),
        }

    def _arms_drive(self, scenario) -> ArmDrive:
        commands, bleed, forces = sample_arms_inputs(scenario, self.t)
        return ArmDrive.of(commands, bleed, forces, None, self.t.size, len(scenario.arms))

    def _same_inputs(self, v) -> bool:
        base = self.base
        return v.bleed is base.bleed and all(
            unit.valve_command is old.valve_command and unit.external_force is old.external_force
            for unit, old in zip(v.arms, base.arms)
        )

    def run_of(self, v) -> ArmRun:
        base = self.base
        if v.cylinder is not base.cylinder:
            v.pressure_dynamics.build(v.cylinder)
        arms = tuple(
            old if unit is spec else unit.build(f"arms[{j}]")
            for j, (unit, spec, old) in enumerate(zip(v.arms, base.arms, self.arms))
        )
        circuit = self.circuit if v.circuit is base.circuit else v.circuit.build()
        return ArmRun(
            arms,
            (circuit,) * len(arms),
            self.relaxation if v.relaxation is base.relaxation else v.relaxation.build(),
            self.drive if self._same_inputs(v) else self._arms_drive(v),
            tuple(u.initial_angle for u in v.arms),
            tuple(u.initial_rate for u in v.arms),
            v.cylinder.length_range(),
            tuple(u.angle_range for u in v.arms),
        )

    def figures(self, out: np.ndarray, runs: list[ArmRun]) -> dict[str, np.ndarray]:
        return arms_figure_values(out[:, ROW_THETA], out[:, ROW_RATE], out[:, ROW_PUMP, 0])

    def output(self, scenario, results):
        from .arms_one_pump import output  # plotting imports: only where a variant's series are kept

        return output(scenario, results)


KINDS = {"arm": _OneArm, "arms-one-pump": _ArmsOnePump}


def run_batch(scenario, variants: Variants, keep: Collection[int], envelope_points: int) -> BatchOutput:
    """Run ``variants`` of ``scenario`` (a kind and paths ``batch_support`` accepts); the time
    series of the variant ids in ``keep`` are kept, the main signals sampled at
    ``envelope_points`` times for the envelopes."""
    t = scenario.simulation.times()
    kind = KINDS[scenario.kind](scenario, t)
    at = np.unique(np.linspace(0, t.size - 1, envelope_points).round().astype(np.int64))
    errors: list[str] = []
    figures = {key: np.full(len(variants), np.nan) for key in kind.info}
    envelopes: dict[str, list[np.ndarray]] = {name: [] for name in kind.signals}
    series = {}
    records = np.empty((min(BATCH_ROWS, len(variants)), 7, len(scenario.arms) if kind.shared else 1, t.size))
    for start in range(0, len(variants), BATCH_ROWS):
        part = variants[start : start + BATCH_ROWS]
        runs, scenarios, rows, part_errors = [], [], [], [""] * len(part)
        for i in range(len(part)):
            try:
                changed = set_values(scenario, part.paths, part.values[i])
                runs.append(kind.run_of(changed))
            except ActuatorlabError as error:
                part_errors[i] = f"{type(error).__name__}: {error}"
                continue
            scenarios.append(changed)
            rows.append(start + i)
        if runs:
            batch = simulate_arm_batch(runs, t, kind.shared, records=records)
            clean = batch.clean()
            for b in np.flatnonzero(~clean):
                try:
                    batch.results(b)
                except ActuatorlabError as error:
                    part_errors[rows[b] - start] = f"{type(error).__name__}: {error}"
            computed = kind.figures(batch.out, runs)
            computed.update(timing_values(scenario.simulation.duration, batch.loop_time_s / len(runs)))
            ran = np.array(rows)[clean]
            for key, value in computed.items():
                figures[key][ran] = np.broadcast_to(np.asarray(value, dtype=np.float64), clean.shape)[clean]
            for name, (row, arm, _) in kind.signals.items():
                envelopes[name].append(batch.out[:, row, arm][:, at][clean])
            for b in np.flatnonzero(clean):
                if int(variants.ids[rows[b]]) in keep:
                    series[int(variants.ids[rows[b]])] = kind.output(scenarios[b], batch.results(b))
        errors += part_errors
    return BatchOutput(
        variants.ids,
        errors,
        figures,
        {key: unit for key, (unit, *_) in kind.info.items()},
        series,
        t[at],
        {name: np.concatenate(parts) if parts else np.empty((0, at.size)) for name, parts in envelopes.items()},
        {name: unit for name, (*_, unit) in kind.signals.items()},
    )

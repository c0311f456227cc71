"""Export an actuator of a scenario file as a Functional Mock-up Unit (FMI 3.0 or 2.0
co-simulation) that runs without Python: the C sources of ``fmu/c/`` (the twins of the compiled
kernels) with a header written from the scenario's values, compiled for this platform, zipped
with the model description, the sources and their build description.

Layout of the archive::

    modelDescription.xml
    binaries/x86_64-linux/ID.so      (FMI 3.0; FMI 2.0: binaries/linux64/ID.so)
    sources/*.c, *.h                 (+ buildDescription.xml for FMI 3.0)
    documentation/index.html
"""

from __future__ import annotations

import hashlib
import html
import io
import os
import platform
import re
import sys
import tempfile
import uuid
import zipfile
from pathlib import Path

import numpy as np

from .. import __version__
from ..errors import ScenarioError
from ..io.atomic import atomic_path
from ..io.output_target import OutputTaken
from .compiler import C_DIR, COMMON_SOURCES, HEADERS, MODEL_FILES, compile_shared
from .errors import ExportError
from .header import model_header
from .model_description import ModelInfo, build_description, fmi2_description, fmi3_description, xml_text
from .paths import folder_problem, write_failure
from .variables import PRESSURE_DYNAMICS, QUASISTATIC, Variable, pressure_variables, quasistatic_variables

FMI_VERSIONS = ("3", "2")
EXPORTABLE_KINDS = ("arm",)
DEFAULT_MAX_SUBSTEP = 1.0e-4
"""Largest internal step [s] of the pressure-dynamics FMU; a longer communication step is split."""


def platform_folders() -> tuple[str, str]:
    """(FMI 3.0, FMI 2.0) names of this platform's binaries folder; ExportError if neither standard
    names it (the sources in the FMU still build elsewhere)."""
    machine = platform.machine().lower()
    arch = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(machine)
    system = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform)
    if arch is None or system is None:
        raise ExportError(
            f"FMU export builds for linux, darwin or windows on x86_64/aarch64, not {sys.platform} on {machine}"
        )
    fmi2 = {"linux": "linux64", "darwin": "darwin64", "windows": "win64"}[system]
    return f"{arch}-{system}", fmi2


def library_suffix() -> str:
    return {"linux": ".so", "darwin": ".dylib", "win32": ".dll"}.get(sys.platform, ".so")


def model_identifier(name: str) -> str:
    """A C identifier from the scenario name (the binary's file name)."""
    ident = re.sub(r"\W", "_", name, flags=re.ASCII)
    return ident if ident and not ident[0].isdigit() else f"m_{ident}"


def scenario_ports(spec, model: str | None = None) -> tuple[str, list[Variable], dict]:
    """(model, variables, experiment) of an ``arm`` scenario's actuator: the circuit, relaxation
    or fluid of the file as parameter start values, the inputs at t = 0 (valve command, bleed,
    regeneration; the cylinder length of the arm's initial angle) as input start values."""
    kind = getattr(spec, "kind", None)
    if kind not in EXPORTABLE_KINDS:
        raise ScenarioError(
            f"export fmu: scenario kind {kind!r} is not exported; give a scenario of kind "
            f'{" or ".join(map(repr, EXPORTABLE_KINDS))} (its actuator: model = "quasistatic" or '
            '"pressure-dynamics"), e.g. `actuatorlab show arm-relief > my.toml`'
        )
    model = model or spec.model
    if model not in (QUASISTATIC, PRESSURE_DYNAMICS):
        raise ScenarioError(f"export fmu: model {model!r}; choose {QUASISTATIC!r} or {PRESSURE_DYNAMICS!r}")
    from ..simulation.arm import MAX_STRETCH

    spec.check()
    t0 = np.zeros(1)
    signals = spec.inputs.signals()
    start = {name: float(signals[name].sample(t0)[0]) for name in ("valve_command", "bleed", "regeneration")}
    arm = spec.arm.build()
    start["length"] = float(arm.cylinder_length(spec.arm.initial_angle)[0])
    start["length_rate"] = float(arm.cylinder_length(spec.arm.initial_angle)[1]) * spec.arm.initial_rate + 0.0
    for name, (low, high) in {"valve_command": (-1.0, 1.0), "bleed": (0.0, 1.0), "regeneration": (0.0, 1.0)}.items():
        if not low <= start[name] <= high:
            raise ScenarioError(f"inputs.{name} = {start[name]:g} at t = 0: must lie in [{low:g}, {high:g}]")
    circuit = spec.circuit.build()
    if model == QUASISTATIC:
        if not spec.relaxation.stiffness > 0.0:
            raise ScenarioError(
                "export fmu: relaxation.stiffness = 0 N/m: an exported actuator needs K > 0 (with K = 0 "
                "the rod displacement does not follow the cylinder length and holds no static load); "
                'give e.g. stiffness = "5e7 N/m"'
            )
        variables = quasistatic_variables(circuit, spec.relaxation.build(), start, MAX_STRETCH)
    else:
        fluid = spec.pressure_dynamics
        theta0 = spec.arm.initial_angle
        lever0 = float(arm.cylinder_length(theta0)[1])
        f_ey0 = float(signals["external_force"].sample(t0)[0])
        holding = -float(arm.torque(theta0, 0.0, f_ey0)) / lever0  # as simulation/pressure_arm.py starts the arm
        variables = pressure_variables(
            circuit,
            fluid.build(spec.cylinder),
            start,
            fluid.initial_low_pressure,
            holding,
            min(DEFAULT_MAX_SUBSTEP, spec.simulation.step),
        )
    experiment = {"start_time": 0.0, "stop_time": spec.simulation.duration, "step": spec.simulation.step}
    return model, variables, experiment


def _check_out(out: Path, overwrite: bool = False) -> Path:
    out = Path(out)
    if out.suffix != ".fmu":
        raise ScenarioError(f"--out {out}: an FMU file name ends in .fmu, e.g. {out.with_suffix('.fmu').name}")
    parent = out.parent
    problem = folder_problem(parent)
    if problem is not None:
        raise ScenarioError(f"--out {out}: {problem}")
    if not os.access(parent, os.W_OK):
        raise ScenarioError(f"--out {out}: the folder {parent} is not writable; choose another path")
    if os.path.isdir(out):  # False for a name too long to look up; the write then says so
        raise ScenarioError(f"--out {out} is a folder; give a file name ending in .fmu")
    if os.path.exists(out) and not overwrite and not _is_fmu(out):  # False for a name too long to look up
        raise OutputTaken(
            out, "exists and is not an FMU archive (a zip with modelDescription.xml)", "the file is then replaced"
        )
    return out


def _is_fmu(path: Path) -> bool:
    """Whether ``path`` is an FMU archive (a zip holding ``modelDescription.xml``): an export may replace it."""
    try:
        with zipfile.ZipFile(path) as archive:
            return "modelDescription.xml" in archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def _token(header_without_token: str) -> str:
    digest = hashlib.sha256(header_without_token.encode("utf-8")).digest()
    return "{" + str(uuid.UUID(bytes=digest[:16], version=4)) + "}"


def source_files(model: str, fmi: str) -> list[str]:
    """The C files an FMU of ``model`` compiles, FMI wrapper first."""
    return [f"fmi{fmi}.c", *COMMON_SOURCES, *(f for f in MODEL_FILES[model] if f.endswith(".c"))]


def write_sources(folder: Path, variables: list[Variable], model: str, token: str) -> None:
    """Copy the C sources into ``folder`` and write its ``model.h``."""
    for name in (*HEADERS, *COMMON_SOURCES, *(f for files in MODEL_FILES.values() for f in files), "fmi3.c", "fmi2.c"):
        (folder / name).write_bytes((C_DIR / name).read_bytes())
    (folder / "model.h").write_text(model_header(variables, model, token), encoding="utf-8")


def export_scenario(
    spec, name: str, out, fmi: str | int = "3", model: str | None = None, overwrite: bool = False
) -> Path:
    """Build the FMU of the actuator of the validated scenario ``spec`` into ``out`` (see the
    module docstring); nothing is written unless the whole archive is built. An ``out`` that
    exists and is not an FMU archive is replaced only if ``overwrite``."""
    fmi = str(fmi).removesuffix(".0")
    if fmi not in FMI_VERSIONS:
        raise ScenarioError(f"--fmi {fmi}: choose 3 (FMI 3.0) or 2 (FMI 2.0)")
    out = _check_out(Path(out), overwrite)
    model, variables, experiment = scenario_ports(spec, model)
    binaries = platform_folders()[0 if fmi == "3" else 1]
    name = xml_text(name)  # the text of the scenario goes into XML and HTML: no control characters
    identifier = model_identifier(name)
    token = _token(model_header(variables, model, "") + fmi + name)
    files = source_files(model, fmi)
    info = ModelInfo(
        name=name,
        identifier=identifier,
        token=token,
        version=__version__,
        description=xml_text(_description(model, getattr(spec, "description", ""))),
        source_files=tuple(files),
        **experiment,
    )
    try:
        with atomic_path(out) as partial:  # made first: a folder that takes no file fails before the build
            partial.write_bytes(_archive(info, variables, model, fmi, binaries))
    except OSError as exc:
        reason, remedy = write_failure(exc, "choose another path")
        raise ExportError(f"--out {out}: the FMU cannot be written in {out.parent} ({reason}); {remedy}") from None
    return out


def _archive(info: ModelInfo, variables: list[Variable], model: str, fmi: str, binaries: str) -> bytes:
    """The FMU's zip archive (the library in ``binaries/<binaries>/``), built in a temporary folder;
    ExportError if that cannot be written."""
    description = fmi3_description(variables, info) if fmi == "3" else fmi2_description(variables, info)
    try:
        with tempfile.TemporaryDirectory(prefix="actuatorlab-fmu-") as tmp:
            build = Path(tmp)
            write_sources(build, variables, model, info.token)
            binary = build / f"{info.identifier}{library_suffix()}"
            compile_shared([build / f for f in info.source_files], [build], binary)
            archive = io.BytesIO()
            with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("modelDescription.xml", description)
                z.write(binary, f"binaries/{binaries}/{binary.name}")
                shipped = sorted({*info.source_files, "model.h", *HEADERS, *COMMON_SOURCES, *MODEL_FILES[model]})
                for source in shipped:
                    if fmi == "2" and source == "fmi3_types.h" or fmi == "3" and source == "fmi2_types.h":
                        continue
                    z.write(build / source, f"sources/{source}")
                if fmi == "3":
                    z.writestr("sources/buildDescription.xml", build_description(info))
                z.writestr("documentation/index.html", _documentation(info, variables))
            return archive.getvalue()
    except OSError as exc:
        reason, remedy = write_failure(exc, "set TMPDIR to another folder")
        raise ExportError(
            f"the FMU cannot be built in the temporary folder {tempfile.tempdir or '$TMPDIR'} ({reason}); {remedy}"
        ) from None


def _description(model: str, scenario_description: str) -> str:
    what = (
        "relaxed quasistatic hydraulic actuator (Kikuuwe et al.): one step (72) per communication step"
        if model == QUASISTATIC
        else "pressure-dynamics hydraulic cylinder (implicit, internal substeps)"
    )
    return f"{what}; four-valve circuit (66) on its own pump. From: {scenario_description}"


def _documentation(info: ModelInfo, variables: list[Variable]) -> str:
    """``documentation/index.html``: the model's name, description and ports, every text escaped."""
    e = html.escape
    rows = "\n".join(
        f"<tr><td>{e(v.name)}</td><td>{e(v.causality)}</td><td>{e(v.unit or '')}</td>"
        f"<td>{'' if v.start is None else v.start}</td><td>{e(v.description)}</td></tr>"
        for v in variables
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(info.name)}</title></head><body>"
        f"<h1>{e(info.name)}</h1><p>{e(info.description)}</p>"
        f"<p>Generated by actuatorlab {e(info.version)}. Signs: f &gt; 0 "
        "pushes the rod out, v &gt; 0 extends it; pressures are gauge (tank = 0); SI units.</p>"
        "<table border='1'><tr><th>name</th><th>causality</th><th>unit</th><th>start</th><th>description</th></tr>"
        f"{rows}</table></body></html>"
    )


__all__ = ["export_scenario", "scenario_ports", "FMI_VERSIONS", "ExportError"]

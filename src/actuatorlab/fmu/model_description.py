"""The model description (``modelDescription.xml``) of an exported actuator, FMI 3.0 or 2.0,
and FMI 3.0's ``sources/buildDescription.xml``: written from the variable table with units
(base-unit exponents and display units) on every port."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime, timezone

from .variables import UNITS, Variable

NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""The characters XML 1.0 cannot hold, escaped or not: control characters, lone surrogates, U+FFFE/F."""
LOG_CATEGORIES = (
    ("logStatusError", "a call failed: bad parameter, non-physical state, wrong call sequence"),
    ("logStatusWarning", "a call succeeded with a remark"),
    ("logEvents", "initialization and other progress (with debug logging on)"),
)


@dataclass(frozen=True)
class ModelInfo:
    """What the description says about the model besides its variables."""

    name: str
    identifier: str
    description: str
    token: str
    version: str
    source_files: tuple[str, ...]
    start_time: float
    stop_time: float
    step: float


def xml_text(text: str) -> str:
    """``text`` with each character XML 1.0 cannot hold replaced by U+FFFD (ElementTree escapes
    ``<``, ``&`` and quotes but writes a control character as it is, which no reader parses)."""
    return NOT_XML.sub("\ufffd", text)


def _number(x: float) -> str:
    return repr(float(x))


def _units(root: ET.Element, used: set[str]) -> None:
    definitions = ET.SubElement(root, "UnitDefinitions")
    for name in sorted(used):
        unit = UNITS[name]
        element = ET.SubElement(definitions, "Unit", name=unit.name)
        ET.SubElement(element, "BaseUnit", {k: str(e) for k, e in unit.exponents})
        for display, factor in unit.display:
            ET.SubElement(element, "DisplayUnit", name=display, factor=_number(factor))


def _header(root: ET.Element, info: ModelInfo, used_units: set[str]) -> None:
    _units(root, used_units)
    categories = ET.SubElement(root, "LogCategories")
    for name, text in LOG_CATEGORIES:
        ET.SubElement(categories, "Category", name=name, description=text)
    ET.SubElement(
        root,
        "DefaultExperiment",
        startTime=_number(info.start_time),
        stopTime=_number(info.stop_time),
        stepSize=_number(info.step),
    )


def _attributes(v: Variable, vr: int, fmi3: bool) -> dict[str, str]:
    attrs = {"name": v.name, "valueReference": str(vr), "description": v.description, "causality": v.causality}
    if v.causality == "parameter":
        attrs["variability"] = "fixed"
    elif v.kind == "Float64":
        attrs["variability"] = "continuous"
    else:
        attrs["variability"] = "discrete"
    return attrs


def _type_attributes(v: Variable) -> dict[str, str]:
    attrs = {}
    if v.kind == "Float64":
        if v.unit:
            attrs["unit"] = v.unit
        if v.display_unit:
            attrs["displayUnit"] = v.display_unit
        if v.low is not None:
            attrs["min"] = _number(v.low)
        if v.high is not None:
            attrs["max"] = _number(v.high)
    if v.start is not None:
        attrs["start"] = ("true" if v.start else "false") if v.kind == "Boolean" else _number(v.start)
    return attrs


def _ordered(variables: list[Variable]) -> list[Variable]:
    """Float64 first, then Boolean: the numbering of ``header.model_header``."""
    return [v for v in variables if v.kind == "Float64"] + [v for v in variables if v.kind == "Boolean"]


def _model_root(info: ModelInfo, fmi_version: str, token_attribute: str, **extra: str) -> ET.Element:
    """The ``fmiModelDescription`` element of either standard: ``info.token`` under the name
    ``token_attribute`` gives (``instantiationToken`` in 3.0, ``guid`` in 2.0), ``extra`` last."""
    return ET.Element(
        "fmiModelDescription",
        {
            "fmiVersion": fmi_version,
            "modelName": info.name,
            token_attribute: info.token,
            "description": info.description,
            "version": info.version,
            "generationTool": f"actuatorlab {info.version}",
            "generationDateAndTime": _now(),
            "variableNamingConvention": "flat",
            **extra,
        },
    )


def fmi3_description(variables: list[Variable], info: ModelInfo) -> str:
    """``modelDescription.xml`` for FMI 3.0 co-simulation."""
    variables = _ordered(variables)
    root = _model_root(info, "3.0", "instantiationToken")
    ET.SubElement(
        root,
        "CoSimulation",
        {
            "modelIdentifier": info.identifier,
            "canHandleVariableCommunicationStepSize": "true",
            "canGetAndSetFMUState": "true",
            "canSerializeFMUState": "true",
            "canBeInstantiatedOnlyOncePerProcess": "false",
            "providesDirectionalDerivatives": "false",
            "providesAdjointDerivatives": "false",
            "hasEventMode": "false",
            "providesIntermediateUpdate": "false",
            "canReturnEarlyAfterIntermediateUpdate": "false",
            "maxOutputDerivativeOrder": "0",
        },
    )
    _header(root, info, {v.unit for v in variables if v.unit})
    model_variables = ET.SubElement(root, "ModelVariables")
    for vr, v in enumerate(variables):
        attrs = _attributes(v, vr, True)
        attrs.update(_type_attributes(v))
        ET.SubElement(model_variables, v.kind, attrs)
    structure = ET.SubElement(root, "ModelStructure")
    outputs = [vr for vr, v in enumerate(variables) if v.causality == "output"]
    for vr in outputs:
        ET.SubElement(structure, "Output", valueReference=str(vr))
    for vr in outputs:
        ET.SubElement(structure, "InitialUnknown", valueReference=str(vr))
    return _text(root)


def fmi2_description(variables: list[Variable], info: ModelInfo) -> str:
    """``modelDescription.xml`` for FMI 2.0 co-simulation (with the C sources listed)."""
    variables = _ordered(variables)
    root = _model_root(info, "2.0", "guid", numberOfEventIndicators="0")
    cosim = ET.SubElement(
        root,
        "CoSimulation",
        {
            "modelIdentifier": info.identifier,
            "canHandleVariableCommunicationStepSize": "true",
            "canInterpolateInputs": "false",
            "maxOutputDerivativeOrder": "0",
            "canRunAsynchronuously": "false",
            "canBeInstantiatedOnlyOncePerProcess": "false",
            "canNotUseMemoryManagementFunctions": "true",
            "canGetAndSetFMUstate": "true",
            "canSerializeFMUstate": "true",
            "providesDirectionalDerivative": "false",
        },
    )
    files = ET.SubElement(cosim, "SourceFiles")
    for name in info.source_files:
        if name.endswith(".c"):
            ET.SubElement(files, "File", name=name)
    _header(root, info, {v.unit for v in variables if v.unit})
    model_variables = ET.SubElement(root, "ModelVariables")
    for vr, v in enumerate(variables):
        attrs = _attributes(v, vr, False)
        if v.causality == "independent":
            attrs.pop("variability")
            attrs["variability"] = "continuous"
        scalar = ET.SubElement(model_variables, "ScalarVariable", attrs)
        ET.SubElement(scalar, "Real" if v.kind == "Float64" else "Boolean", _type_attributes(v))
    structure = ET.SubElement(root, "ModelStructure")
    indices = [i + 1 for i, v in enumerate(variables) if v.causality == "output"]  # 1-based in FMI 2.0
    outputs = ET.SubElement(structure, "Outputs")
    for i in indices:
        ET.SubElement(outputs, "Unknown", index=str(i))
    initial = ET.SubElement(structure, "InitialUnknowns")
    for i in indices:
        ET.SubElement(initial, "Unknown", index=str(i))
    return _text(root)


def build_description(info: ModelInfo) -> str:
    """FMI 3.0's ``sources/buildDescription.xml``: how to compile the shipped C sources."""
    root = ET.Element("fmiBuildDescription", fmiVersion="3.0")
    config = ET.SubElement(root, "BuildConfiguration", modelIdentifier=info.identifier)
    files = ET.SubElement(config, "SourceFileSet", language="C99")
    for name in info.source_files:
        if name.endswith(".c"):
            ET.SubElement(files, "SourceFile", name=name)
    return _text(root)


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _text(root: ET.Element) -> str:
    ET.indent(root, "  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

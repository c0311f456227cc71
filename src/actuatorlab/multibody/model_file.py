"""A user's machine model (MJCF or URDF file) prepared for cylinders, the file left unmodified.

``load_machine_model`` reads the file with MuJoCo's own parser (``MjSpec``), then, in memory
only: resolves ROS ``package://`` mesh paths (:func:`resolve_package_paths`); drops the model's
own actuators, the geometry whose asset files are missing, the meshes MuJoCo cannot read (a
COLLADA ``.dae``: it reads ``.stl``, ``.obj`` and ``.msh``) and the plugins (a soil model, a
cable) if asked to (each with a one-line note), refuses them otherwise (a plugin only when
MuJoCo does not have it); adds a site at each pin or load point
given as a body and a local point [m] (named ``<owner>.<end>``); adds each payload as a point
mass [kg] welded to its body at a local point; optionally disables contacts and sets the
timestep [s]; and compiles. A file MuJoCo cannot parse is refused with its message (the line
kept, shortened to one line); a URDF link that moves but has no ``<inertial>`` is named before
MuJoCo sees the file (MuJoCo would otherwise give it the compiler's default mass silently or
fail with a generic message).

URDF files are read with ``fusestatic`` off (links on fixed joints keep their names as bodies)
and the MuJoCo defaults for what URDF does not describe (gravity 9.81 m/s² along −z, timestep
2 ms, Euler integrator).
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

import mujoco
import numpy as np

from ..errors import ParameterError
from ..validation import positive

READABLE_MESHES = (".stl", ".obj", ".msh")
"""The mesh file types MuJoCo reads (any case); a ``.dae``, ``.ply`` or ``.gltf`` it refuses."""

_ASSET_KINDS = (
    ("meshes", "mesh", "meshdir"),
    ("hfields", "hfield", "meshdir"),
    ("skins", "skin", "meshdir"),
    ("textures", "texture", "texturedir"),
)


@dataclass(frozen=True)
class PointSite:
    """A site to add: ``name``, on ``body`` at ``point`` (body frame, m); ``where`` names it in
    errors (the scenario field)."""

    name: str
    body: str
    point: tuple[float, float, float]
    where: str = ""

    def __post_init__(self) -> None:
        _check_point(self.where or self.name, self.point)


@dataclass(frozen=True)
class Payload:
    """A point mass ``mass`` [kg] welded to ``body`` at ``point`` (body frame, m); ``where`` as
    for ``PointSite``."""

    name: str
    body: str
    point: tuple[float, float, float]
    mass: float
    where: str = ""

    def __post_init__(self) -> None:
        _check_point(self.where or self.name, self.point)
        positive(f"{self.where or self.name}.mass", self.mass, "kg")


def _check_point(where: str, point) -> None:
    """A point in a body frame: three finite coordinates [m]."""
    if len(point) != 3 or not all(math.isfinite(float(x)) for x in point):
        raise ParameterError(f"{where}.point = {list(point)!r} m: give three finite coordinates in the body's frame")


def is_urdf(path: str) -> bool:
    return path.lower().endswith(".urdf")


def _short(message: str) -> str:
    """MuJoCo's parser message on one line: 'XML Error: …; Element 'x', line 3'."""
    parts = [p.strip() for p in message.replace("\r", "").split("\n") if p.strip()]
    return "; ".join(parts)[:300]


def check_urdf_inertia(path: str) -> None:
    """Raise ``ParameterError`` naming the first link that a moving joint carries but that has no
    ``<inertial>`` with a mass > 0."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        raise ParameterError(f"model_file {path!r} cannot be parsed: {err}; fix the XML there") from None
    moving = {
        j.find("child").get("link")
        for j in root.iter("joint")
        if j.get("type") not in ("fixed", None) and j.find("child") is not None
    }
    for link in root.iter("link"):
        name = link.get("name")
        if name not in moving:
            continue
        inertial = link.find("inertial")
        mass = inertial.find("mass") if inertial is not None else None
        value = float(mass.get("value", "0")) if mass is not None else 0.0
        if inertial is None or inertial.find("inertia") is None or not value > 0.0:
            raise ParameterError(
                f"model_file {os.path.basename(path)!r}: link {name!r} moves (it is the child of a joint) but has no "
                "<inertial> with a mass > 0 and an <inertia>: add them to the link"
            )


def _asset_path(spec: mujoco.MjSpec, folder_attr: str, file: str) -> str:
    folder = getattr(spec, folder_attr) or getattr(spec.compiler, folder_attr, "") or ""
    if os.path.isabs(file):
        return file
    return os.path.join(spec.modelfiledir or "", folder, file)


def _package_named(folder: str) -> str | None:
    """The ``<name>`` of ``folder``'s package.xml (a ROS package's manifest), else None."""
    manifest = os.path.join(folder, "package.xml")
    if not os.path.isfile(manifest):
        return None
    try:
        name = ET.parse(manifest).getroot().find("name")
    except ET.ParseError:
        return None
    return name.text.strip() if name is not None and name.text else None


def package_folder(package: str, start: str) -> tuple[str | None, list[str]]:
    """(the folder of ROS package ``package``, the folders searched): ``start`` and each of its
    ancestors, then each one's subfolders, in that order; a package's folder is one named like it
    or one whose package.xml names it (a ``my_robot_description`` folder holding package
    ``my_robot``). The first found is taken."""
    searched = []
    folder = os.path.abspath(start)
    while True:
        searched.append(folder)
        if os.path.basename(folder) == package or _package_named(folder) == package:
            return folder, searched
        try:
            children = sorted(e.path for e in os.scandir(folder) if e.is_dir(follow_symlinks=True))
        except OSError:
            children = []
        named = [c for c in children if os.path.basename(c) == package]
        if named:
            return named[0], searched
        for child in children:
            if _package_named(child) == package:
                return child, searched
        parent = os.path.dirname(folder)
        if parent == folder:
            return None, searched
        folder = parent


def resolve_package_paths(spec: mujoco.MjSpec, model_path: str, drop: bool, label: str) -> list[str]:
    """Point each asset file ``package://PKG/rest`` (a ROS URDF's mesh) at ``rest`` inside the
    folder of package PKG (:func:`package_folder`, searched from the model file's folder up), and
    each ``file://`` path at its file. A package not found raises ``ParameterError`` naming the
    mesh and where it was looked for, unless ``drop`` (drop_missing_assets): the file is then left
    missing, to be dropped with the others. Returns a note of where each package was found."""
    found: dict[str, str | None] = {}
    for attr, kind, _ in _ASSET_KINDS:
        for asset in getattr(spec, attr):
            file = getattr(asset, "file", "") or ""
            if file.startswith("file://"):
                asset.file = file.removeprefix("file://")
                continue
            if not file.startswith("package://"):
                continue
            package, _, rest = file.removeprefix("package://").partition("/")
            if package not in found:
                found[package], searched = package_folder(package, os.path.dirname(os.path.abspath(model_path)))
                if found[package] is None and not drop:
                    raise _package_not_found(label, kind, file, package, searched)
            if found[package] is not None:
                asset.file = os.path.join(found[package], *rest.split("/"))
    return [f"ROS package {name!r} (package:// paths) read from {folder}." for name, folder in found.items() if folder]


def _package_not_found(label: str, kind: str, file: str, package: str, searched: list[str]) -> ParameterError:
    return ParameterError(
        f"model_file {label!r}: the {kind} {file!r} is in ROS package {package!r}, whose folder was not found "
        f"(looked in {searched[0]!r} and its {len(searched) - 1} parent folders, and in their subfolders, for a "
        f"folder named {package!r} or with a package.xml naming it): put the package's folder beside the model file "
        "or one of its parent folders, or set drop_missing_assets = true to run without that geometry"
    )


def _unreadable_meshes(spec: mujoco.MjSpec, drop: bool, label: str) -> list[str]:
    """Delete (with ``drop``) the meshes of a type MuJoCo cannot read (:data:`READABLE_MESHES`)
    and the geoms that use them; else raise naming them. Returns the notes of what was dropped."""
    unreadable = [
        m
        for m in spec.meshes
        if m.file and os.path.splitext(m.file)[1].lower() not in READABLE_MESHES and not m.content_type
    ]
    if not unreadable:
        return []
    files = sorted({os.path.basename(m.file) for m in unreadable})
    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    if not drop:
        them, es = ("them", "es") if len(files) > 1 else ("it", "")
        raise ParameterError(
            f"model_file {label!r}: MuJoCo cannot read the mesh{es} {shown} (it reads .stl, .obj and .msh): convert "
            f"{them} to .stl or .obj (MeshLab, Blender or trimesh) and point the model at {them}, or set "
            f"drop_unreadable_meshes = true to run without {them} (masses and inertias still come from <inertial>)"
        )
    names = {m.name for m in unreadable}
    geoms = [g for g in spec.geoms if g.meshname in names]
    for g in geoms:
        spec.delete(g)
    for m in unreadable:
        spec.delete(m)
    return [
        f"Dropped from the model (meshes MuJoCo cannot read; convert them to .stl or .obj to keep them): {shown}, "
        f"and the {len(geoms)} geoms that used them (their bodies' masses and inertias are kept)."
    ]


def _drop_missing_assets(spec: mujoco.MjSpec, drop: bool, label: str) -> list[str]:
    """Delete (with ``drop``) the assets whose files are missing and the geoms that use them;
    else raise naming the first missing file. Returns the notes of what was dropped."""
    missing: dict[str, list[str]] = {}
    for attr, kind, folder in _ASSET_KINDS:
        for asset in list(getattr(spec, attr)):
            file = getattr(asset, "file", "")
            if file and not os.path.isfile(_asset_path(spec, folder, file)):
                missing.setdefault(kind, []).append(asset.name or file)
                if not drop:
                    raise ParameterError(
                        f"model_file {label!r}: the {kind} file {file!r} is missing (looked for "
                        f"{_asset_path(spec, folder, file)!r}): put it there, or set drop_missing_assets = true "
                        "to run without that geometry"
                    )
    if not missing:
        return []
    names = {name for names in missing.values() for name in names}
    geoms = [g for g in spec.geoms if g.meshname in names or g.hfieldname in names]
    for g in geoms:
        spec.delete(g)
    for material in spec.materials:  # a material that points at a dropped texture keeps its colour
        material.textures = ["" if t in names else t for t in material.textures]
    for attr, _, _ in _ASSET_KINDS:
        for asset in list(getattr(spec, attr)):
            if asset.name in names or getattr(asset, "file", "") in names:
                spec.delete(asset)
    listed = "; ".join(
        f"{kind}es {', '.join(sorted(set(v)))}" if kind == "mesh" else f"{kind}s {', '.join(sorted(set(v)))}"
        for kind, v in missing.items()
    )
    return [f"Dropped from the model (asset files missing): {listed}, and the {len(geoms)} geoms that used them."]


def _parse(path: str, drop_plugins: bool, label: str) -> tuple[mujoco.MjSpec, list[str]]:
    """The file's spec, and a note if its plugins were dropped (``drop_plugins``: every ``<plugin>``
    element, in ``<extension>`` and elsewhere, removed before MuJoCo reads it); a plugin MuJoCo
    does not have is refused unless they are dropped."""
    if not drop_plugins:
        try:
            return mujoco.MjSpec.from_file(path), []
        except ValueError as err:
            message = _short(str(err))
            missing = re.search(r"plugin (\S+) not found", message)
            if missing:
                raise ParameterError(
                    f"model_file {label!r} uses the MuJoCo plugin {missing[1]}, which is not installed here "
                    f"({message.rpartition('; ')[2]}): set drop_plugins = true to run without the model's plugins"
                ) from None
            raise ParameterError(f"model_file {label!r} cannot be parsed by MuJoCo: {message}") from None
    try:
        root = _inlined(path)
    except (ET.ParseError, OSError) as err:
        raise ParameterError(f"model_file {label!r} cannot be parsed: {err}; fix the XML there") from None
    dropped = []
    for parent in list(root.iter()):
        for child in [c for c in parent if c.tag == "plugin"]:
            dropped.append(child.get("plugin") or child.get("instance") or "plugin")
            parent.remove(child)
    for extension in [e for e in root.iter("extension") if not len(e)]:
        root.remove(extension)
    try:
        spec = mujoco.MjSpec.from_string(ET.tostring(root, encoding="unicode"))
    except ValueError as err:
        raise ParameterError(f"model_file {label!r} cannot be parsed by MuJoCo: {_short(str(err))}") from None
    spec.modelfiledir = os.path.dirname(os.path.abspath(path)) + os.sep  # assets resolve as from the file
    return spec, ([f"Dropped the model's plugins: {', '.join(sorted(set(dropped)))}."] if dropped else [])


def _inlined(path: str) -> ET.Element:
    """The MJCF root of ``path`` with each ``<include file>`` replaced by the included file's
    elements (MuJoCo's own reading of an include; paths relative to ``path``'s folder)."""
    folder = os.path.dirname(os.path.abspath(path))

    def expand(element: ET.Element) -> None:
        for i, child in reversed(list(enumerate(element))):
            if child.tag == "include":
                element.remove(child)
                included = ET.parse(os.path.join(folder, child.get("file", ""))).getroot()
                expand(included)
                for j, part in enumerate(included):
                    element.insert(i + j, part)
            else:
                expand(child)

    root = ET.parse(path).getroot()
    expand(root)
    return root


def _body(spec: mujoco.MjSpec, name: str, who: str):
    body = spec.body(name) if name != "world" else spec.worldbody
    if body is None:
        known = ["world"] + [b.name for b in spec.bodies if b.name and b.name != "world"]
        raise ParameterError(f"{who}: unknown body {name!r}; the model's bodies are {known}")
    return body


def load_machine_model(
    path: str,
    drop_actuators: bool = False,
    drop_missing_assets: bool = False,
    drop_plugins: bool = False,
    sites: Sequence[PointSite] = (),
    payloads: Sequence[Payload] = (),
    contacts: bool = True,
    timestep: float | None = None,
    drop_unreadable_meshes: bool = False,
) -> tuple[mujoco.MjModel, list[str]]:
    """(the compiled model, notes of what was dropped or changed) of the MJCF or URDF ``path``."""
    label = os.path.basename(path)
    if not os.path.isfile(path):
        raise ParameterError(
            f"model_file {path!r}: no such file; give the path of an MJCF (.xml) or URDF (.urdf) "
            "file, relative to the scenario file"
        )
    if is_urdf(path):
        check_urdf_inertia(path)
    spec, notes = _parse(path, drop_plugins, label)
    if is_urdf(path):
        spec.compiler.fusestatic = False
    if spec.actuators:
        names = [a.name or f"#{i}" for i, a in enumerate(spec.actuators)]
        if not drop_actuators:
            raise ParameterError(
                f"model_file {label!r} has its own actuators {names}, which would act beside the cylinders: set "
                "drop_actuators = true to run without them"
            )
        for a in list(spec.actuators):
            spec.delete(a)
        notes.append(f"Dropped the model's own actuators: {', '.join(names)}.")
    notes += resolve_package_paths(spec, path, drop_missing_assets, label)
    notes += _drop_missing_assets(spec, drop_missing_assets, label)
    notes += _unreadable_meshes(spec, drop_unreadable_meshes, label)
    for site in sites:
        _body(spec, site.body, site.where or site.name).add_site(
            name=site.name, pos=list(site.point), size=[0.02, 0.02, 0.02]
        )
    for load in payloads:
        carrier = _body(spec, load.body, load.where or load.name)
        inertia = 0.4 * load.mass * 0.05**2  # a 0.1 m sphere: the payload is a point mass for the machine
        part = carrier.add_body(name=load.name, pos=list(load.point))
        part.mass, part.inertia, part.explicitinertial = load.mass, [inertia] * 3, True
    if not contacts:
        spec.option.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    if timestep is not None:
        spec.option.timestep = timestep
    try:
        model = spec.compile()
    except ValueError as err:
        message = _short(str(err))
        undecoded = re.search(r"no decoder found for mesh file '([^']+)'", message)
        if undecoded:  # a type READABLE_MESHES does not know MuJoCo refuses
            raise ParameterError(
                f"model_file {label!r}: MuJoCo cannot read the mesh {os.path.basename(undecoded[1])} (it reads .stl, "
                ".obj and .msh): convert it to .stl or .obj and point the model at it"
            ) from None
        raise ParameterError(f"model_file {label!r} cannot be compiled by MuJoCo: {message}") from None
    if not math.isfinite(model.opt.timestep) or model.opt.timestep <= 0.0:
        raise ParameterError(f"model_file {label!r}: timestep = {model.opt.timestep}: give a timestep > 0")
    return model, notes


def names_of(model: mujoco.MjModel, kind: mujoco.mjtObj, count: int) -> list[str]:
    """The names of the model's objects of ``kind`` (``count`` of them; unnamed ones left out)."""
    return [name for i in range(count) if (name := mujoco.mj_id2name(model, kind, i))]


MOVABLE = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
"""The joint types a pose, a target or a plot names: hinges [rad] and slides [m]."""


def movable_joint(model: mujoco.MjModel, name: str, who: str) -> int:
    """The id of hinge or slide joint ``name``; ``ParameterError`` listing them otherwise."""
    joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
    if joint < 0 or int(model.jnt_type[joint]) not in MOVABLE:
        known = [
            mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j)
            for j in range(model.njnt)
            if int(model.jnt_type[j]) in MOVABLE
        ]
        raise ParameterError(f"{who}: unknown joint {name!r}; the model's hinge and slide joints are {known or 'none'}")
    return joint


def joint_values(model: mujoco.MjModel, pose: dict[str, float], who: str = "initial_pose") -> np.ndarray:
    """qpos (nq,) from the model's qpos0 with the hinge [rad] and slide [m] joints of ``pose`` set;
    ``ParameterError`` listing the joints for an unknown name."""
    qpos = model.qpos0.copy()
    for name, value in pose.items():
        qpos[model.jnt_qposadr[movable_joint(model, name, f"{who}.{name}")]] = value
    return qpos

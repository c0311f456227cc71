"""A picture of a machine at a few instants: MuJoCo's own offscreen renderer where it works,
else a drawing of bodies, pins and cylinders from the recorded poses.

MuJoCo picks its OpenGL platform when it is first imported (``MUJOCO_GL``), long before a report
is drawn, so the frames are rendered in a child process started with ``MUJOCO_GL=egl`` (then
``osmesa``): it reads the compiled model (``mj_saveModel``) and the poses, renders each with a
free camera, and writes the images. If no platform renders (no EGL or OSMesa library, no GPU
driver), the picture is drawn instead: each body a line from its parent's origin to its own,
the cylinders thick lines between their pins, pins as dots, on the chosen plane (``xz``: the
side view, x forward, z up). A report always has a picture.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence

import mujoco
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

PLATFORMS = ("egl", "osmesa")
_AXES = {"xz": (0, 2), "xy": (0, 1), "yz": (1, 2)}


class RenderJob:
    """Frames of ``poses`` (n, nq) rendered by MuJoCo in a child process, started at once so that
    the child's start-up overlaps the drawing of other figures; ``frames()`` waits for them. The
    cylinders (pairs of pin site ids ``pins``) are drawn as grey capsules between their pins."""

    def __init__(self, model: mujoco.MjModel, poses: np.ndarray, pins: Sequence[tuple[int, int]] = (),
                 width: int = 480, height: int = 360, plane: str = "xz", timeout: float = 60.0):
        self._folder = tempfile.TemporaryDirectory()
        folder = self._folder.name
        self._paths = [os.path.join(folder, name) for name in ("model.mjb", "poses.npy", "frames.npy")]
        mujoco.mj_saveModel(model, self._paths[0], None)
        np.save(self._paths[1], np.asarray(poses, dtype=np.float64))
        np.save(os.path.join(folder, "pins.npy"), np.asarray(pins, dtype=np.int64).reshape(-1, 2))
        self._args = [str(width), str(height), plane]
        self._timeout = timeout
        self._reasons: list[str] = []
        self._platforms = list(PLATFORMS)
        self._child = self._start()

    def _start(self) -> subprocess.Popen | None:
        while self._platforms:
            platform = self._platforms.pop(0)
            env = {**os.environ, "MUJOCO_GL": platform, "PYOPENGL_PLATFORM": platform}
            try:
                child = subprocess.Popen([sys.executable, "-m", __name__, *self._paths, *self._args], env=env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            except OSError as err:
                self._reasons.append(f"{platform}: {err}")
                continue
            child.platform = platform
            return child
        return None

    def frames(self) -> tuple[np.ndarray | None, str]:
        """(frames (n, height, width, 3) uint8 or None, the platform used or why none rendered)."""
        try:
            while self._child is not None:
                child = self._child
                try:
                    _, err = child.communicate(timeout=self._timeout)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.communicate()
                    err = f"no frames after {self._timeout:g} s"
                if child.returncode == 0 and os.path.isfile(self._paths[2]):
                    return np.load(self._paths[2]), child.platform
                lines = (err or "").strip().splitlines()
                self._reasons.append(f"{child.platform}: {lines[-1] if lines else 'failed'}")
                self._child = self._start()
            return None, "; ".join(self._reasons)
        finally:
            self._folder.cleanup()


def _render_main(model_path: str, poses_path: str, out: str, width: int, height: int, plane: str) -> None:
    model = mujoco.MjModel.from_binary_path(model_path)
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    model.vis.headlight.ambient[:] = 0.45  # models often carry no light of their own
    model.vis.headlight.diffuse[:] = 0.7
    data = mujoco.MjData(model)
    renderer = mujoco.Renderer(model, height, width)
    camera = mujoco.MjvCamera()
    camera.type = mujoco.mjtCamera.mjCAMERA_FREE
    camera.azimuth, camera.elevation = {"xz": (90.0, -10.0), "xy": (90.0, -89.0), "yz": (0.0, -10.0)}[plane]
    poses = np.load(poses_path)
    pins = np.load(os.path.join(os.path.dirname(poses_path), "pins.npy"))
    frames = np.empty((len(poses), height, width, 3), dtype=np.uint8)
    # frame the whole motion: the origins of the bodies that can move and their geoms' bounding
    # spheres over every pose (not the ground or terrain, static bodies welded to the world)
    mobile = model.body_weldid > 0
    if not mobile.any():
        mobile[:] = True
    moving = mobile[model.geom_bodyid]
    points = []
    for q in poses:
        data.qpos[:] = q
        mujoco.mj_forward(model, data)
        points.append(data.xpos[mobile].copy())
        for sign in (-1.0, 1.0):
            points.append(data.geom_xpos[moving] + sign * model.geom_rbound[moving, None])
    points = np.concatenate(points)
    centre = 0.5 * (points.min(axis=0) + points.max(axis=0))
    extent = float(np.max(points.max(axis=0) - points.min(axis=0))) or float(model.stat.extent)
    camera.lookat[:] = centre
    camera.distance = 1.3 * extent + 0.5
    for k, q in enumerate(poses):
        data.qpos[:] = q
        mujoco.mj_forward(model, data)
        renderer.update_scene(data, camera)
        scene = renderer.scene
        for base, rod in pins:
            if scene.ngeom >= scene.maxgeom:
                break
            geom = scene.geoms[scene.ngeom]
            mujoco.mjv_initGeom(geom, mujoco.mjtGeom.mjGEOM_CAPSULE, np.zeros(3), np.zeros(3), np.zeros(9),
                                np.array([0.25, 0.25, 0.3, 1.0], dtype=np.float32))
            mujoco.mjv_connector(geom, mujoco.mjtGeom.mjGEOM_CAPSULE, 0.045, data.site_xpos[base], data.site_xpos[rod])
            scene.ngeom += 1
        frames[k] = renderer.render()
    renderer.close()
    np.save(out, frames)


def draw_machine(ax, model: mujoco.MjModel, pose: np.ndarray, pins: Sequence[tuple[int, int]], plane: str = "xz",
                 colour="C0", label: str | None = None) -> None:
    """Draw the machine at ``pose`` on ``ax``: bodies as lines parent → child origin (and to their
    sites), cylinders (pairs of site ids) as thick lines, pins as dots, projected on ``plane``."""
    data = mujoco.MjData(model)
    data.qpos[:] = pose
    mujoco.mj_kinematics(model, data)
    i, j = _AXES[plane]
    for body in range(1, model.nbody):
        parent = model.body_parentid[body]
        a, b = data.xpos[parent], data.xpos[body]
        ax.plot([a[i], b[i]], [a[j], b[j]], "-", color=colour, lw=2, label=label if body == 1 else None)
    for site in range(model.nsite):
        body = model.site_bodyid[site]
        a, b = data.xpos[body], data.site_xpos[site]
        ax.plot([a[i], b[i]], [a[j], b[j]], "-", color=colour, lw=0.8, alpha=0.6)
    for base, rod in pins:
        a, b = data.site_xpos[base], data.site_xpos[rod]
        ax.plot([a[i], b[i]], [a[j], b[j]], "-", color="0.3", lw=5, alpha=0.5, solid_capstyle="butt")
        ax.plot([a[i], b[i]], [a[j], b[j]], "o", color="k", ms=3)


def plot_picture(model: mujoco.MjModel, times: Sequence[float], poses: np.ndarray, pins: Sequence[tuple[int, int]],
                 renderer: str = "auto", plane: str = "xz", job: RenderJob | None = None) -> tuple[Figure, str]:
    """(the figure, a note of how it was made): the frames of MuJoCo's renderer side by side (from
    ``job`` if one was started, else a new one), or the drawing of every pose on one axis
    (``renderer`` ``"drawing"``, or ``"auto"`` when no platform renders). ``renderer = "mujoco"``
    raises ``RuntimeError`` if it cannot render."""
    if renderer == "drawing":
        frames, how = None, "drawing asked for"
    else:
        frames, how = (job or RenderJob(model, poses, pins, plane=plane)).frames()
    if frames is None and renderer == "mujoco":
        raise RuntimeError(f"MuJoCo's offscreen renderer does not work here ({how}); set picture.renderer = "
                           '"drawing" or "auto"')
    if frames is not None:
        fig = Figure(figsize=(3.2 * len(frames), 2.8))
        FigureCanvasAgg(fig)
        axes = np.atleast_1d(fig.subplots(1, len(frames)))
        for ax, frame, t in zip(axes, frames, times):
            ax.imshow(frame)
            ax.set_title(f"t = {t:.2f} s", fontsize=9)
            ax.axis("off")
        fig.tight_layout()
        return fig, f"Rendered by MuJoCo's offscreen renderer ({how})."
    fig = Figure(figsize=(8, 6))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    for k, (t, pose) in enumerate(zip(times, poses)):
        colour = f"C{k % 10}"
        draw_machine(ax, model, pose, pins, plane, colour, f"t = {t:.2f} s")
    ax.set_aspect("equal")
    ax.set_xlabel(f"{plane[0]} [m]")
    ax.set_ylabel(f"{plane[1]} [m]")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("bodies (thin), cylinders (thick) and pins (dots)")
    fig.tight_layout()
    return fig, f"Drawn from the recorded poses (MuJoCo's renderer: {how})."


if __name__ == "__main__":
    _render_main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])

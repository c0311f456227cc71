"""A picture of a machine at a few instants: MuJoCo's own offscreen renderer where it works,
else a drawing of bodies, pins and cylinders from the recorded poses.

MuJoCo picks its OpenGL platform when it is first imported (``MUJOCO_GL``), long before a report
is drawn, so the frames are rendered in a child process started with ``MUJOCO_GL=egl`` (then
``osmesa``), :mod:`.machine_render`: it reads the compiled model (``mj_saveModel``), makes its
renderer, and waits for the poses; the job starts it as soon as the model is known (before the
run), so its start-up (Python, MuJoCo, the GL context: about half a second) overlaps the
simulation and the other figures. If no platform renders (no EGL or OSMesa library, no GPU
driver), the picture is drawn instead: each body a line from its parent's origin to its own,
the cylinders thick lines between their pins, pins as dots, on the chosen plane (``xz``: the
side view, x forward, z up). A report always has a picture.

The frames light and frame the model whatever it says of its look (:mod:`.machine_render`), and
the picture's note says when they still show little: none of the model's geometry (its geoms
dropped with missing or unreadable meshes, or in hidden groups: the drawing is then used where
``renderer = "auto"``), or geometry rendered nearly black (dark materials).
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
    """Frames of poses rendered by MuJoCo in a child process (:mod:`.machine_render`), started at
    once with the model so that its start-up overlaps the run and the drawing of other figures;
    :meth:`render` gives it the poses (n, nq), :meth:`frames` waits for the images. The cylinders
    (pairs of pin site ids ``pins``) are drawn as grey capsules between their pins. A job whose
    poses never come (:meth:`cancel`, or the process ending) stops its child."""

    def __init__(
        self,
        model: mujoco.MjModel,
        pins: Sequence[tuple[int, int]] = (),
        width: int = 480,
        height: int = 360,
        plane: str = "xz",
        timeout: float = 60.0,
    ):
        self._folder = tempfile.TemporaryDirectory()
        folder = self._folder.name
        self._paths = [os.path.join(folder, name) for name in ("model.mjb", "poses.npy", "frames.npy")]
        mujoco.mj_saveModel(model, self._paths[0], None)
        np.save(os.path.join(folder, "pins.npy"), np.asarray(pins, dtype=np.int64).reshape(-1, 2))
        self._args = [str(width), str(height), plane]
        self._timeout = timeout
        self._reasons: list[str] = []
        self._platforms = list(PLATFORMS)
        self._posed = False
        self.seen: np.ndarray | None = None
        """Per frame rendered: (share of pixels the model's own geometry covers, their mean
        brightness 0–255), once :meth:`frames` has them."""
        self._child = self._start()

    def _start(self) -> subprocess.Popen | None:
        while self._platforms:
            platform = self._platforms.pop(0)
            env = {**os.environ, "MUJOCO_GL": platform, "PYOPENGL_PLATFORM": platform}
            try:
                child = subprocess.Popen(
                    [sys.executable, "-m", f"{__package__}.machine_render", *self._paths, *self._args],
                    env=env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            except OSError as err:
                self._reasons.append(f"{platform}: {err}")
                continue
            child.platform = platform
            if self._posed:
                _go(child)
            return child
        return None

    def render(self, poses: np.ndarray) -> None:
        """Give the child the poses (n, nq) to render (once)."""
        np.save(self._paths[1], np.asarray(poses, dtype=np.float64))
        self._posed = True
        if self._child is not None:
            _go(self._child)

    def frames(self) -> tuple[np.ndarray | None, str]:
        """(frames (n, height, width, 3) uint8 or None, the platform used or why none rendered),
        after :meth:`render`."""
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
                    info = self._paths[2] + ".info.npy"
                    self.seen = np.load(info) if os.path.isfile(info) else None
                    return np.load(self._paths[2]), child.platform
                lines = (err or "").strip().splitlines()
                self._reasons.append(f"{child.platform}: {lines[-1] if lines else 'failed'}")
                self._child = self._start()
            return None, "; ".join(self._reasons)
        finally:
            self.cancel()

    def cancel(self) -> None:
        """Stop the child (if it still runs) and remove the job's files."""
        if self._child is not None and self._child.poll() is None:
            self._child.kill()
            self._child.communicate()
        self._child = None
        self._folder.cleanup()

    def __del__(self) -> None:
        self.cancel()


def _go(child: subprocess.Popen) -> None:
    """Tell a waiting render child that the poses are written (a child that has already failed
    is met by :meth:`RenderJob.frames`)."""
    try:
        child.stdin.write("go\n")
        child.stdin.flush()  # communicate() closes it
    except (BrokenPipeError, OSError):
        pass


NOTHING_SHOWN = "MuJoCo's frames show none of the model's geometry"
DARK = 40.0
"""Mean brightness [0–255] of the model's pixels under which its frames are called nearly black."""


def _what_frames_show(seen: np.ndarray | None) -> str:
    """A note when the frames show little (``seen``: per frame, the share of pixels the model's
    geometry covers and their mean brightness), else ""."""
    if seen is None or not len(seen):
        return ""
    if float(np.max(seen[:, 0])) < 1e-4:
        return (
            f"{NOTHING_SHOWN}: its geoms were dropped with missing or unreadable meshes, or sit in the geom "
            "groups 3–5 MuJoCo hides; give its bodies geoms MuJoCo can show to see them rendered"
        )
    covered = seen[:, 0] > 0
    brightness = float(np.average(seen[covered, 1], weights=seen[covered, 0]))
    if brightness < DARK:
        return (
            f"The model renders nearly black (its pixels' mean brightness {brightness:.0f} of 255, under a "
            "headlight): give its geoms or materials a lighter rgba, or add a <light> to its worldbody"
        )
    return ""


def draw_machine(
    ax,
    model: mujoco.MjModel,
    pose: np.ndarray,
    pins: Sequence[tuple[int, int]],
    plane: str = "xz",
    colour="C0",
    label: str | None = None,
) -> None:
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


def plot_picture(
    model: mujoco.MjModel,
    times: Sequence[float],
    poses: np.ndarray,
    pins: Sequence[tuple[int, int]],
    renderer: str = "auto",
    plane: str = "xz",
    job: RenderJob | None = None,
) -> tuple[Figure, str]:
    """(the figure, a note of how it was made): the frames of MuJoCo's renderer side by side (from
    ``job`` if one was started, else a new one), or the drawing of every pose on one axis
    (``renderer`` ``"drawing"``, or ``"auto"`` when no platform renders). ``renderer = "mujoco"``
    raises ``RuntimeError`` if it cannot render."""
    if renderer == "drawing":
        frames, how = None, "drawing asked for"
    else:
        if job is None:
            job = RenderJob(model, pins, plane=plane)
            job.render(poses)
        frames, how = job.frames()
    shows = _what_frames_show(job.seen if frames is not None else None)
    if shows and renderer == "auto" and shows.startswith(NOTHING_SHOWN):
        frames, how = None, shows
        shows = ""
    if frames is None and renderer == "mujoco":
        raise RuntimeError(
            f'MuJoCo\'s offscreen renderer does not work here ({how}); set picture.renderer = "drawing" or "auto"'
        )
    if frames is not None:
        fig = Figure(figsize=(3.2 * len(frames), 2.8))
        FigureCanvasAgg(fig)
        axes = np.atleast_1d(fig.subplots(1, len(frames)))
        for ax, frame, t in zip(axes, frames, times):
            ax.imshow(frame)
            ax.set_title(f"t = {t:.2f} s", fontsize=9)
            ax.axis("off")
        fig.tight_layout()
        return fig, f"Rendered by MuJoCo's offscreen renderer ({how}).{' ' + shows + '.' if shows else ''}"
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

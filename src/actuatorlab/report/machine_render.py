"""The render child of :class:`~actuatorlab.report.machine_picture.RenderJob`: MuJoCo's offscreen
renderer on the platform ``MUJOCO_GL`` names, in a process of its own that imports only MuJoCo
and numpy. Run as ``python -m actuatorlab.report.machine_render MODEL POSES OUT WIDTH HEIGHT
PLANE``: it reads the compiled model, makes its renderer, waits for ``go`` on stdin (the poses
are then in POSES), renders each pose with a free camera framing every body that moves over the
whole motion (the cylinders drawn as grey capsules between their pin sites, ``pins.npy`` beside
the poses), and saves the frames into OUT (``.npy``) and what they show beside them
(``OUT.info.npy``, per frame: the share of pixels the model's own geometry covers and their mean
brightness, 0–255).

Whatever the model says about its look, the frames show it: the headlight is switched on (a
model without lights, or with its headlight off, renders black), the clipping planes are set on
the framed motion (MuJoCo's are fractions of the model's whole extent, and a large terrain puts
the near plane beyond the machine), and the background MuJoCo leaves black is painted light
grey, unless the model has a skybox of its own.
"""

from __future__ import annotations

import os
import sys

import mujoco
import numpy as np

BACKGROUND = 235
"""Grey level [0–255] painted where no geometry is (MuJoCo leaves it black)."""


def render(model_path: str, poses_path: str, out: str, width: int, height: int, plane: str) -> None:
    """Load the model, make the renderer, wait for the go line on stdin (the poses are written by
    then), render each pose and save the frames (n, height, width, 3) into ``out``."""
    model = mujoco.MjModel.from_binary_path(model_path)
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    model.vis.headlight.active = 1  # models often carry no light of their own, or turn it off
    model.vis.headlight.ambient[:] = 0.45
    model.vis.headlight.diffuse[:] = 0.7
    skybox = bool(np.any(model.tex_type == mujoco.mjtTexture.mjTEXTURE_SKYBOX))
    data = mujoco.MjData(model)
    renderer = mujoco.Renderer(model, height, width)
    if sys.stdin.readline().strip() != "go":  # the job ended without poses
        return
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
    # clipping planes (fractions of the model's extent in MuJoCo) on the framed motion
    scale = max(float(model.stat.extent), 1e-9)
    model.vis.map.znear = 0.01 * min(extent or 1.0, camera.distance) / scale
    model.vis.map.zfar = (camera.distance + 50.0 * (extent + 0.5)) / scale
    info = np.zeros((len(poses), 2))
    for k, q in enumerate(poses):
        data.qpos[:] = q
        mujoco.mj_forward(model, data)
        renderer.update_scene(data, camera)
        scene = renderer.scene
        for base, rod in pins:
            if scene.ngeom >= scene.maxgeom:
                break
            geom = scene.geoms[scene.ngeom]
            mujoco.mjv_initGeom(
                geom,
                mujoco.mjtGeom.mjGEOM_CAPSULE,
                np.zeros(3),
                np.zeros(3),
                np.zeros(9),
                np.array([0.25, 0.25, 0.3, 1.0], dtype=np.float32),
            )
            mujoco.mjv_connector(geom, mujoco.mjtGeom.mjGEOM_CAPSULE, 0.045, data.site_xpos[base], data.site_xpos[rod])
            geom.segid = scene.ngeom  # told apart from the background in the segmentation below
            scene.ngeom += 1
        frames[k] = renderer.render()
        renderer.enable_segmentation_rendering()
        segments = renderer.render()  # (objid, objtype) per pixel: (−1, −1) background
        renderer.disable_segmentation_rendering()
        own = segments[..., 1] == mujoco.mjtObj.mjOBJ_GEOM  # the model's geoms (not its sites, nor the cylinders)
        info[k] = own.mean(), frames[k][own].mean() if own.any() else 0.0
        if not skybox:
            frames[k][(segments[..., 0] == -1) & (segments[..., 1] == -1)] = BACKGROUND
    renderer.close()
    np.save(out, frames)
    np.save(out + ".info.npy", info)


if __name__ == "__main__":
    render(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])

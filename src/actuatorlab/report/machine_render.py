"""The render child of :class:`~actuatorlab.report.machine_picture.RenderJob`: MuJoCo's offscreen
renderer on the platform ``MUJOCO_GL`` names, in a process of its own that imports only MuJoCo
and numpy. Run as ``python -m actuatorlab.report.machine_render MODEL POSES OUT WIDTH HEIGHT
PLANE``: it reads the compiled model, makes its renderer, waits for ``go`` on stdin (the poses
are then in POSES), renders each pose with a free camera framing every body that moves over the
whole motion (the cylinders drawn as grey capsules between their pin sites, ``pins.npy`` beside
the poses), and saves the frames into OUT (``.npy``).
"""

from __future__ import annotations

import os
import sys

import mujoco
import numpy as np


def render(model_path: str, poses_path: str, out: str, width: int, height: int, plane: str) -> None:
    """Load the model, make the renderer, wait for the go line on stdin (the poses are written by
    then), render each pose and save the frames (n, height, width, 3) into ``out``."""
    model = mujoco.MjModel.from_binary_path(model_path)
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    model.vis.headlight.ambient[:] = 0.45  # models often carry no light of their own
    model.vis.headlight.diffuse[:] = 0.7
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
            scene.ngeom += 1
        frames[k] = renderer.render()
    renderer.close()
    np.save(out, frames)


if __name__ == "__main__":
    render(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])

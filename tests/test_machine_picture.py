"""The machine's picture shows the machine whatever the model says of its look: a model without
lights (its headlight off too) and with a terrain so large that MuJoCo's clipping planes, fractions
of the model's extent, would cut the machine away renders lit, framed and on a light background;
a model whose geoms cannot be seen is drawn instead, and a dark one is named, each with a note.

These render with MuJoCo's offscreen renderer in a child process (EGL, else OSMesa, as the reports
do); where neither works here they are skipped (the drawing's fallback has its own test in
test_machine.py)."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from actuatorlab.report import machine_picture

# a 2.5 m boom on a hinge over a 2 km × 2 km ground slab: no light, the headlight off
DARK_FAR = """<mujoco model="boom">
  <visual><headlight active="0"/></visual>
  <worldbody>
    <geom type="box" size="1000 1000 0.1" pos="0 0 -0.1" {ground}/>
    <body name="boom" pos="0 0 2.0">
      <joint name="hinge" type="hinge" axis="0 -1 0"/>
      <inertial pos="1.2 0 0" mass="400" diaginertia="200 200 200"/>
      <geom type="capsule" fromto="0 0 0 2.5 0 0" size="0.08" {boom}/>
    </body>
  </worldbody>
</mujoco>
"""


def _frames(model: mujoco.MjModel, renderer: str = "mujoco"):
    """(the frames drawn (None for a drawing), what they show per frame, the picture's note) of
    two poses, or a skip where no platform renders here."""
    poses = np.tile(model.qpos0, (2, 1))
    job = machine_picture.RenderJob(model)
    job.render(poses)
    try:
        figure, note = machine_picture.plot_picture(model, [0.0, 1.0], poses, [], renderer, job=job)
    except RuntimeError as err:  # renderer = "mujoco" where no platform renders
        pytest.skip(str(err))
    if job.seen is None:
        pytest.skip(f"MuJoCo's offscreen renderer does not work here ({note})")
    images = figure.axes[0].get_images()
    frames = np.stack([ax.get_images()[0].get_array() for ax in figure.axes]) if images else None
    return frames, job.seen, note


def test_a_model_without_lights_beside_a_huge_terrain_renders_lit_and_framed():
    """Before: mean brightness 4 of 255 (a black frame with the boom clipped away by a near
    plane 28 m out). Now the frame's mean is above 100 and the boom, lit by the headlight, covers
    more than 1 % of it at a mean brightness above 60; no note is needed."""
    model = mujoco.MjModel.from_xml_string(DARK_FAR.format(ground="", boom=""))
    assert model.nlight == 0 and model.stat.extent > 1000.0  # the terrain sets MuJoCo's clipping planes
    frames, seen, note = _frames(model)
    assert frames.shape == (2, 360, 480, 3)
    assert frames.mean() > 100.0
    assert np.all(seen[:, 0] > 0.01) and np.all(seen[:, 1] > 60.0)
    assert note == "Rendered by MuJoCo's offscreen renderer (egl)." or note.endswith("(osmesa).")


def test_a_model_nothing_of_which_shows_is_drawn_instead_with_a_note():
    """Every geom in group 3 (hidden by MuJoCo's default): the frames would show nothing but the
    background, so "auto" draws the machine from its poses and says why; "mujoco" keeps the frames
    and says the same."""
    model = mujoco.MjModel.from_xml_string(DARK_FAR.format(ground='group="3"', boom='group="3"'))
    frames, seen, note = _frames(model, "auto")
    assert frames is None and np.all(seen[:, 0] == 0.0)
    assert note.startswith("Drawn from the recorded poses") and machine_picture.NOTHING_SHOWN in note
    _, _, note = _frames(model, "mujoco")
    assert note.startswith("Rendered by MuJoCo's") and "none of the model's geometry" in note


def test_a_model_that_renders_nearly_black_is_named():
    model = mujoco.MjModel.from_xml_string(
        DARK_FAR.format(ground='rgba="0.01 0.01 0.01 1"', boom='rgba="0.01 0.01 0.01 1"')
    )
    _, seen, note = _frames(model)
    assert np.all(seen[:, 1] < machine_picture.DARK)
    assert "renders nearly black" in note and "<light>" in note

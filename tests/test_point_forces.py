"""Point forces as generalized forces (multibody.point_forces) against MuJoCo's mj_applyFT, and
borrowed arrays (numerics.borrowed)."""

from __future__ import annotations

import mujoco
import numba as nb
import numpy as np

from actuatorlab.multibody.point_forces import add_body_moment, add_point_force, body_chains, dof_parents
from actuatorlab.numerics.borrowed import borrowed

# a tree with a free body, a ball joint, a hinge, a slide and a body welded to its parent
TREE = """
<mujoco>
  <worldbody>
    <body name="base" pos="0.1 0.2 0.3">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.1" mass="3"/>
      <body name="ball" pos="0.3 0 0">
        <joint type="ball"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.05" mass="1"/>
        <body name="hinge" pos="0.4 0 0" euler="0 0.3 0.2">
          <joint type="hinge" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.04" mass="0.7"/>
          <body name="welded" pos="0 0 -0.5">
            <geom type="sphere" size="0.05" mass="0.2"/>
            <body name="slider" pos="0.1 0 0">
              <joint type="slide" axis="1 0.2 0"/>
              <geom type="box" size="0.05 0.05 0.05" mass="0.3"/>
            </body>
          </body>
        </body>
      </body>
    </body>
    <body name="fixed" pos="1 1 1">
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>
"""


@nb.njit(cache=True)
def _generalized(qfrc, cdof, subtree_com, chains, dof_parent, body, point, force, moment):
    add_point_force(
        qfrc, cdof, subtree_com, chains, dof_parent, body, point[0], point[1], point[2], force[0], force[1], force[2]
    )
    add_body_moment(qfrc, cdof, chains, dof_parent, body, moment[0], moment[1], moment[2])


def test_point_forces_equal_mj_apply_ft_on_every_body():
    model = mujoco.MjModel.from_xml_string(TREE)
    data = mujoco.MjData(model)
    rng = np.random.default_rng(3)
    data.qpos[:] = model.qpos0 + 0.3 * rng.standard_normal(model.nq)
    data.qpos[3:7] /= np.linalg.norm(data.qpos[3:7])
    data.qpos[7:11] /= np.linalg.norm(data.qpos[7:11])
    data.qvel[:] = rng.standard_normal(model.nv)
    mujoco.mj_step1(model, data)
    chains, dof_parent = body_chains(model), dof_parents(model)
    for body in range(model.nbody):
        point = data.xpos[body] + rng.standard_normal(3)
        force, moment = rng.standard_normal(3) * 100.0, rng.standard_normal(3) * 10.0
        expected = np.zeros(model.nv)
        mujoco.mj_applyFT(model, data, force, moment, point, body, expected)
        ours = np.zeros(model.nv)
        _generalized(ours, data.cdof, data.subtree_com, chains, dof_parent, body, point, force, moment)
        np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max(initial=1.0))
    assert chains[0, 0] == -1 and chains[model.nbody - 1, 0] == -1  # the world and a body welded to it


@nb.njit(cache=True)
def _write_through(a, b):
    a, b = borrowed((a, b))
    c = borrowed(a[1:])
    c[0] = 5.0
    b[0, 1] = 7.0
    return a.shape[0], b.shape


def test_borrowed_arrays_share_the_data():
    a, b = np.zeros(3), np.zeros((2, 2))
    assert _write_through(a, b) == (3, (2, 2))
    assert a[1] == 5.0 and b[0, 1] == 7.0

"""Forces at points of MuJoCo bodies added to ``qfrc_applied`` directly, as generalized forces.

A force F [N] acting at the point r [m] (world frame) of body b adds J_p(r)ᵀ F to the
generalized force, and a moment M [N m] on b adds J_r ᵀ M, with J_p, J_r the translational and
rotational Jacobians of b (those of ``mj_jac``). Both are read off MuJoCo's motion dofs
``data.cdof`` (after ``mj_step1``): for every dof d on the chain from b's last dof to its root
(``dof_parentid``), J_r[:, d] = ω_d and J_p[:, d] = v_d + ω_d × (r − c), with (ω_d, v_d) the rows
of ``cdof`` and c = ``subtree_com`` of b's root body.

This is what MuJoCo does with ``xfrc_applied`` (``mj_xfrcAccumulate``: a Jacobian per loaded body
at its centre of mass, on stack memory it allocates per body and step), written for the few dofs
a force reaches: a time loop that sets cylinder and load forces each step adds them here, where
MuJoCo's own path cost about 0.13 µs a step on a three-cylinder machine.

``body_chains(model)`` gives, per body, the first dof of its chain (−1 for the world and bodies
welded to it) and its root body; ``dof_parents(model)`` the dof tree.
"""

from __future__ import annotations

import mujoco
import numba as nb
import numpy as np

from ..numerics.layout import Layout

# columns of the body table ``chains`` (nbody, N_CHAIN): the last dof of the body or of its
# nearest ancestor with dofs (−1: none), and the body's root body (``body_rootid``)
CHAIN = Layout("CH_", "dof", "root")
(CH_DOF, CH_ROOT) = CHAIN.indices
N_CHAIN = len(CHAIN)


def body_chains(model: mujoco.MjModel) -> np.ndarray:
    """The (nbody, N_CHAIN) int64 table of columns ``CH_*`` (the walk of ``mj_jac``)."""
    chains = np.full((model.nbody, N_CHAIN), -1, dtype=np.int64)
    for body in range(model.nbody):
        chains[body, CH_ROOT] = model.body_rootid[body]
        b = body
        while b > 0 and model.body_dofnum[b] == 0:
            b = model.body_parentid[b]
        if b > 0:
            chains[body, CH_DOF] = model.body_dofadr[b] + model.body_dofnum[b] - 1
    return chains


def dof_parents(model: mujoco.MjModel) -> np.ndarray:
    """``model.dof_parentid`` as int64 (nv,): each dof's parent dof, −1 at a root."""
    return np.asarray(model.dof_parentid, dtype=np.int64).copy()


@nb.njit(cache=True, inline="always", error_model="numpy")
def add_point_force(qfrc, cdof, subtree_com, chains, dof_parent, body, px, py, pz, fx, fy, fz) -> None:
    """qfrc += J_p(r)ᵀ F for the force (fx, fy, fz) [N] at the point r = (px, py, pz) [m] of ``body``
    (nothing for the world or a body welded to it)."""
    root = chains[body, CH_ROOT]
    ox = px - subtree_com[root, 0]
    oy = py - subtree_com[root, 1]
    oz = pz - subtree_com[root, 2]
    d = chains[body, CH_DOF]
    while d >= 0:
        wx = cdof[d, 0]
        wy = cdof[d, 1]
        wz = cdof[d, 2]
        qfrc[d] += (
            (cdof[d, 3] + wy * oz - wz * oy) * fx
            + (cdof[d, 4] + wz * ox - wx * oz) * fy
            + (cdof[d, 5] + wx * oy - wy * ox) * fz
        )
        d = dof_parent[d]


@nb.njit(cache=True, inline="always", error_model="numpy")
def add_body_moment(qfrc, cdof, chains, dof_parent, body, mx, my, mz) -> None:
    """qfrc += J_rᵀ M for the moment (mx, my, mz) [N m] (world frame) on ``body``."""
    d = chains[body, CH_DOF]
    while d >= 0:
        qfrc[d] += cdof[d, 0] * mx + cdof[d, 1] * my + cdof[d, 2] * mz
        d = dof_parent[d]

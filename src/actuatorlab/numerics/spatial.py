"""Spatial (6-D) vector algebra of virtual decomposition control (Petrović & Mattila, Sec. 2.1).

A spatial velocity ^A V = (v, ω) ∈ R^6 (1) holds the linear velocity [m/s] of the origin of
frame {A} and the angular velocity [rad/s], both expressed in {A}; a spatial force
^A F = (f, m) (2) holds the force [N] and the moment [N m] about the origin of {A}, in {A}.

The transform ^A U_B (5) maps a force from {B} to {A}, ^A F = ^A U_B ^B F (4); its transpose
maps a velocity from {A} to {B}, ^B V = ^A U_B^T ^A V (3):

.. math::  {}^A U_B = \\begin{bmatrix} R & 0 \\\\ (r\\times) R & R \\end{bmatrix},

with R = ^A R_B (maps {B} components into {A}) and r = ^A r_AB [m] (origin of {B} seen from
the origin of {A}, in {A}). The compiled ``force_to_parent`` / ``velocity_to_child`` apply U and
U^T without forming the 6×6 matrix; ``transform_matrix`` forms it (tests, small problems).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

X_F = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
"""x_f: selects the x force (or adds a velocity along x); paper App. A."""
Y_F = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
"""y_f: selects the y force; paper App. A."""
Z_R = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
"""z_r (printed z_τ too): selects the z moment (or adds an angular rate about z)."""


@nb.njit(cache=True)
def skew(r):
    """(r×) of eq. (6): the 3×3 matrix with (r×) a = r × a."""
    out = np.zeros((3, 3))
    out[0, 1] = -r[2]
    out[0, 2] = r[1]
    out[1, 0] = r[2]
    out[1, 2] = -r[0]
    out[2, 0] = -r[1]
    out[2, 1] = r[0]
    return out


@nb.njit(cache=True)
def rot_x(angle):
    """Rotation by ``angle`` [rad] about x: maps rotated-frame components into the fixed frame."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


@nb.njit(cache=True)
def rot_y(angle):
    """Rotation by ``angle`` [rad] about y."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


@nb.njit(cache=True)
def rot_z(angle):
    """Rotation by ``angle`` [rad] about z."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


@nb.njit(cache=True)
def transform_matrix(rot, r):
    """^A U_B of eq. (5) as a 6×6 array, from R = ^A R_B (3×3) and r = ^A r_AB [m] (3,)."""
    out = np.zeros((6, 6))
    lower_left = skew(r) @ rot
    for i in range(3):
        for j in range(3):
            out[i, j] = out[3 + i, 3 + j] = rot[i, j]
            out[3 + i, j] = lower_left[i, j]
    return out


@nb.njit(cache=True)
def force_to_parent_into(rot, r, force, out):
    """``out`` ← ^A U_B ^B F (4): the force ``force`` given in {B}, expressed in {A} (moment about
    A's origin). ``out`` must not alias ``force``."""
    for i in range(3):
        out[i] = rot[i, 0] * force[0] + rot[i, 1] * force[1] + rot[i, 2] * force[2]
        out[3 + i] = rot[i, 0] * force[3] + rot[i, 1] * force[4] + rot[i, 2] * force[5]
    out[3] += r[1] * out[2] - r[2] * out[1]
    out[4] += r[2] * out[0] - r[0] * out[2]
    out[5] += r[0] * out[1] - r[1] * out[0]


@nb.njit(cache=True)
def velocity_to_child_into(rot, r, velocity, out):
    """``out`` ← ^A U_B^T ^A V (3): the velocity of a frame {B} rigidly attached to {A}, in {B}.
    ``out`` must not alias ``velocity``."""
    w0, w1, w2 = velocity[3], velocity[4], velocity[5]
    l0 = velocity[0] + w1 * r[2] - w2 * r[1]
    l1 = velocity[1] + w2 * r[0] - w0 * r[2]
    l2 = velocity[2] + w0 * r[1] - w1 * r[0]
    for i in range(3):
        out[i] = rot[0, i] * l0 + rot[1, i] * l1 + rot[2, i] * l2
        out[3 + i] = rot[0, i] * w0 + rot[1, i] * w1 + rot[2, i] * w2


@nb.njit(cache=True)
def force_to_parent_rz(c, s, a, force, out):
    """``force_to_parent_into`` for R = R_z(θ) (c = cos θ, s = sin θ) and r = (a, 0, 0) [m]."""
    f0 = c * force[0] - s * force[1]
    f1 = s * force[0] + c * force[1]
    f2 = force[2]
    out[0] = f0
    out[1] = f1
    out[2] = f2
    out[3] = c * force[3] - s * force[4]
    out[4] = s * force[3] + c * force[4] - a * f2
    out[5] = force[5] + a * f1


@nb.njit(cache=True)
def velocity_to_child_rz(c, s, a, velocity, out):
    """``velocity_to_child_into`` for R = R_z(θ) (c = cos θ, s = sin θ) and r = (a, 0, 0) [m]."""
    l0 = velocity[0]
    l1 = velocity[1] + velocity[5] * a
    l2 = velocity[2] - velocity[4] * a
    w0, w1 = velocity[3], velocity[4]
    out[0] = c * l0 + s * l1
    out[1] = -s * l0 + c * l1
    out[2] = l2
    out[3] = c * w0 + s * w1
    out[4] = -s * w0 + c * w1
    out[5] = velocity[5]


@nb.njit(cache=True)
def force_to_parent(rot, r, force):
    """^A F = ^A U_B ^B F (4), returned as a new (6,) array."""
    out = np.empty(6)
    force_to_parent_into(rot, r, force, out)
    return out


@nb.njit(cache=True)
def velocity_to_child(rot, r, velocity):
    """^B V = ^A U_B^T ^A V (3), returned as a new (6,) array."""
    out = np.empty(6)
    velocity_to_child_into(rot, r, velocity, out)
    return out

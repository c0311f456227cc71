"""Closed-valve stability of cylinders stepped with MuJoCo.

With the valves closed each cylinder is a spring–damper on the effective mass along its pin
line, m = 1/(gᵀ M⁻¹ g) [kg], g = (dℓ/dq)ᵀ (on a slide joint m = 1/(M⁻¹)_dd); the scheme of
:mod:`.kernels` (the force from q_k, then semi-implicit Euler) is stable iff
h²K/m + 2hB/m < 4 (as in :mod:`actuatorlab.simulation.arm`). For a quasistatic cylinder K
[N/m] and B [N s/m] are its relaxation; for a pressure cylinder K is the oil-column stiffness
β(A_h²/V_h + A_r²/V_r) at its piston position and B = 0 (its valve damping is integrated
implicitly). The system (:mod:`.system`) evaluates the bound before a run at the initial pose
and along it (the effective masses change with the pose); an unstable combination raises one
``SimulationError`` naming every unstable cylinder with the largest stable K (and along the run
the time).

**Soft equality constraints** (a closed chain's ``<connect>``, a ``<weld>``): MuJoCo solves their
forces in the same step, so a cylinder whose force they carry on (a rod on a slide joint tied to
the boom) accelerates more than its own bodies: m = 1/(gᵀ W g) with
W = M⁻¹ − M⁻¹Jᵀ(J M⁻¹ Jᵀ + R)⁻¹ J M⁻¹, J the rows of the active equality constraints and R
MuJoCo's regulariser of each row, (1 − d)/d times its diagonal inverse inertia (d the impedance
of ``solimp``); a rigid constraint (R = 0) would carry the whole load, a soft one lets a share
of the force through to the rod. Those constraints are stepped explicitly too: each row's
acceleration is d times its reference −b·v − k·d·r (``solref``: b = 2/(d_max τ),
k = 1/(d_max τ ζ)²), which takes c = d(d k h² + 2 b h) of the same budget (about 2.1 at
MuJoCo's safe τ = 2h, 0.4 at its default τ = 20 ms with h = 2 ms), so the bound of a cylinder
coupled to them is h²K/m + 2hB/m < 4 − c, c the largest over its coupled rows. On test chains
(a boom of 1.5–4 t, rods of 5–300 kg, h = 1–2 ms, τ = 2h and 20 ms) the largest K and B that ran
stably were 0.92–2 times this bound's (the bound on the safe side but for B at h = 1 ms, 8 %
over). Along the run the loop keeps the ratio φ of this inverse mass to gᵀM⁻¹g (times 4 over
the bound) found at the initial pose (``G_MASS_FACTOR``; exactly 1 without equality
constraints).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numba as nb
import numpy as np

from ..errors import SimulationError
from ..hydraulics.pressure_dynamics import H_BULK_MODULUS, H_L0, H_STROKE, H_VH0, H_VR0
from ..hydraulics.quasistatic.circuit import I_AH, I_AR
from ..hydraulics.quasistatic.relaxation import STABILITY_BOUND, stable_relaxation_advice
from .cylinders import G_DAMPING, G_STIFFNESS, CylinderArrays, QuasistaticCylinder


@nb.njit(cache=True, inline="always", error_model="numpy")
def oil_column_stiffness(cp, hp, length: float) -> float:
    """β(A_h²/V_h + A_r²/V_r) [N/m] of a pressure cylinder at pin length ``length`` [m], the piston
    position x = ℓ − ℓ₀ clipped to the stroke; ``cp``, ``hp``: its circuit and fluid vectors."""
    stroke = hp[H_STROKE]
    x = min(max(length - hp[H_L0], 0.0), stroke)
    ah = cp[I_AH]
    ar = cp[I_AR]
    return hp[H_BULK_MODULUS] * (ah * ah / (hp[H_VH0] + ah * x) + ar * ar / (hp[H_VR0] + ar * (stroke - x)))


@dataclass(frozen=True)
class ActuatorStability:
    """Closed-valve stability of one cylinder at a pose: effective mass m [kg] along the pin
    line, stiffness K [N/m] and damping B [N s/m] used in h²K/m + 2hB/m < ``bound`` (4, less
    where soft equality constraints share the step), the largest stable K at that B and h, and
    whether the combination is stable."""

    name: str
    effective_mass: float
    stiffness: float
    damping: float
    max_stiffness: float
    stable: bool
    bound: float = STABILITY_BOUND


def equality_rows(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """(J (m, nv), forces (m,)): the rows of the active equality constraints (connect, weld, joint
    coupling) in the constraint Jacobian and their constraint forces, at the current data (after
    ``mj_forward`` or ``mj_inverse``)."""
    rows = _equality_indices(data)
    if not rows.size:
        return np.zeros((0, model.nv)), np.zeros(0)
    return _dense_rows(model, data)[rows], data.efc_force[rows].copy()


def _equality_indices(data: mujoco.MjData) -> np.ndarray:
    return np.flatnonzero(data.efc_type[: data.nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY)


def _dense_rows(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    if mujoco.mj_isSparse(model):
        dense = np.zeros((data.nefc, model.nv))
        mujoco.mju_sparse2dense(dense, data.efc_J, data.efc_J_rownnz, data.efc_J_rowadr, data.efc_J_colind)
        return dense
    return np.asarray(data.efc_J).reshape(data.nefc, model.nv)


def constrained_inverse_masses(
    model: mujoco.MjModel, data: mujoco.MjData, grads_t: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(1/m (n,) [1/kg] on the tree of bodies, 1/m (n,) with the soft equality constraints, the
    bound (n,)) of the cylinders whose length gradients are the rows of ``grads_t`` (n, nv), at
    the current data (after ``mj_forward``): see the module docstring. Without active equality
    constraints both inverse masses are gᵀM⁻¹g and every bound is 4."""
    n = grads_t.shape[0]
    minv_g = np.empty_like(grads_t)
    mujoco.mj_solveM(model, data, minv_g, grads_t)
    tree = np.einsum("ij,ij->i", minv_g, grads_t)
    rows = _equality_indices(data)
    if not rows.size or not n:
        return tree, tree.copy(), np.full(n, STABILITY_BOUND)
    jac = np.ascontiguousarray(_dense_rows(model, data)[rows])
    minv_jt = np.empty_like(jac)
    mujoco.mj_solveM(model, data, minv_jt, jac)
    coupling = minv_jt @ grads_t.T  # (rows, n): J M⁻¹ g
    inertia = jac @ minv_jt.T + np.diag(np.asarray(data.efc_R)[rows])
    inverse = tree - np.einsum("ri,ri->i", coupling, np.linalg.solve(inertia, coupling))
    inverse = np.maximum(inverse, 1e-12 * tree)
    h = float(model.opt.timestep)
    kbip = np.asarray(data.efc_KBIP)[rows]
    used = kbip[:, 2] * (kbip[:, 2] * kbip[:, 0] * h * h + 2.0 * kbip[:, 1] * h)
    # a row is coupled to a cylinder where |J M⁻¹ g| is not negligible against its Cauchy–Schwarz
    # bound √(gᵀM⁻¹g · J M⁻¹ Jᵀ)
    scale = np.sqrt(np.maximum(np.einsum("rd,rd->r", jac, minv_jt), 0.0)[:, None] * np.maximum(tree, 0.0)[None, :])
    coupled = np.abs(coupling) > 1e-6 * scale
    bound = np.array([STABILITY_BOUND - used[coupled[:, i]].max(initial=0.0) for i in range(n)])
    return tree, inverse, np.maximum(bound, 0.1 * STABILITY_BOUND)


def closed_valve_bound(
    arrays: CylinderArrays,
    pressure: np.ndarray,
    h: float,
    lengths: np.ndarray,
    inv_mass: np.ndarray,
    bound: np.ndarray | None = None,
) -> tuple[np.ndarray, ...]:
    """(1/m, K, B, stable, bound) arrays (n,) of the cylinders of ``arrays`` at step ``h`` [s], pin
    lengths ``lengths`` [m], inverse effective masses ``inv_mass`` [1/kg] and ``bound`` (default
    4 each); ``pressure``: the indices of the pressure cylinders; stable = (h²K + 2hB)/m < bound."""
    bound = np.full(len(inv_mass), STABILITY_BOUND) if bound is None else np.asarray(bound, dtype=np.float64)
    stiffness, damping = arrays.gain[:, G_STIFFNESS].copy(), arrays.gain[:, G_DAMPING].copy()
    for i in pressure:  # the oil column of a pressure cylinder at its piston position
        stiffness[i] = oil_column_stiffness(arrays.cps[i], arrays.hps[i], float(lengths[i]))
        damping[i] = 0.0
    stable = (h * h * stiffness + 2.0 * h * damping) * inv_mass < bound
    return inv_mass, stiffness, damping, stable, bound


def stability_limits(
    names: list[str], h: float, inv_mass, stiffness, damping, stable, bound
) -> list[ActuatorStability]:
    """The ``ActuatorStability`` of each cylinder from the arrays of ``closed_valve_bound``."""
    out = []
    for i, name in enumerate(names):
        inv, b = float(inv_mass[i]), float(bound[i])
        mass = 1.0 / inv if inv > 0.0 else math.inf
        max_k = max(b - 2.0 * h * damping[i] * inv, 0.0) / (h * h * inv) if inv > 0.0 else math.inf
        out.append(ActuatorStability(name, mass, float(stiffness[i]), float(damping[i]), max_k, bool(stable[i]), b))
    return out


def unstable_message(actuator, lim: ActuatorStability, h: float, when: str) -> str:
    """What is unstable of ``actuator`` (its ``lim`` at step ``h`` [s], ``when``) and what to set."""
    line = "its slide joint" if actuator.joint is not None else "the pin line"
    m, b = lim.effective_mass, lim.bound
    shared = "" if b == STABILITY_BOUND else ": 4 less the share the model's soft equality constraints take of the step"
    if isinstance(actuator, QuasistaticCylinder):
        remedy = stable_relaxation_advice(m, h, lim.damping, b)
        return (
            f"actuator {actuator.name!r}: relaxation.stiffness = {lim.stiffness:.3g} N/m and damping = "
            f"{lim.damping:.3g} N s/m are unstable with MuJoCo's step h = {h:g} s {when} (effective mass "
            f"{m:.4g} kg along {line}; the bound h²K/m + 2hB/m < {b:.3g}{shared}): {remedy}"
        )
    return (
        f"actuator {actuator.name!r}: the oil column (stiffness {lim.stiffness:.3g} N/m) is unstable with MuJoCo's "
        f"step h = {h:g} s {when} on the effective mass {m:.4g} kg along {line} (largest stable stiffness "
        f"{lim.max_stiffness:.3g} N/m): reduce the timestep below {math.sqrt(b * m / lim.stiffness):.3g} s or use "
        "a QuasistaticCylinder"
    )


def unstable_error(unstable: list, h: float, when: str) -> SimulationError:
    """One error naming every unstable cylinder: ``unstable`` (actuator, ``ActuatorStability``)
    pairs at step ``h`` [s]; ``when`` says where (the initial pose or a time)."""
    lines = "; ".join(unstable_message(a, lim, h, when) for a, lim in unstable)
    quasistatic = any(isinstance(a, QuasistaticCylinder) for a, _ in unstable)
    count = f"{len(unstable)} cylinders are unstable: " if len(unstable) > 1 else ""
    tail = ", or reduce the model's timestep" if quasistatic else ""
    return SimulationError(f"{count}{lines}{tail}")

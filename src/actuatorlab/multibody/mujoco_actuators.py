"""Hydraulic cylinders attached to an MJCF model by two sites (or a slide joint), stepped together with MuJoCo.

A cylinder acts between two sites of the model, its pins (``base_site`` and ``rod_site``, on
two different bodies). With x_a, x_b the pin positions (world frame, m), its length is
ℓ = ‖x_a − x_b‖ [m] and e = (x_a − x_b)/ℓ the unit vector from the base pin to the rod pin.
**Signs: f > 0 pushes the pins apart (extends the cylinder), f < 0 pulls them together;
v, ℓ̇ > 0 extend.** The force acts on the rod pin as f·e and on the base pin as −f·e, so its
generalised force is f·(dℓ/dq)ᵀ with dℓ/dq = eᵀ (J_a − J_b) (J_* the site Jacobians).

A cylinder can instead sit on a **slide joint** (``joint`` = its name, ``length_offset`` c
[m]): ℓ = qpos[joint] + c, and f acts as a generalised force on the joint's degree of freedom d
(``data.qfrc_applied[d]``; f > 0 pushes towards larger qpos), so dℓ/dq is the unit vector of
d. Everything below (kernels, stability, initialisation) is the same with this ℓ and dℓ/dq;
the rate (ℓ_k − ℓ_{k−1})/h equals qvel[d] of MuJoCo's Euler/implicit update to rounding. A
slide-joint cylinder and the same cylinder between two sites along the slide axis give the
same motion.

Actuator models (all reuse the project's compiled kernels; no equation is repeated here):

- ``QuasistaticCylinder``: the relaxed quasistatic actuator of Kikuuwe et al. Sec. 4, the rod
  displacement p in series with a virtual spring–damper (K, B), f = K(p − ℓ) + B(ṗ − ℓ̇)
  (68a), stepped by algorithm (72) (``relaxed_step_scalar``) with ℓ_k, ℓ_{k−1} read from the
  sites. With ``pump`` = a name, all cylinders of that name share one pump (``PumpNetwork``,
  Sec. 6.2: ``relaxed_network_step_kernel``); otherwise each has its own pump.
- ``PressureCylinder``: the pressure-dynamics (bulk-modulus) cylinder of
  :mod:`actuatorlab.hydraulics.pressure_dynamics`, on its own pump line or (``pump`` = a name)
  on one pump line shared with the other pressure cylinders of that name. Piston position
  x = ℓ − ℓ₀ (ℓ₀ = ``fluid.retracted_length``), f = A_h p_h − A_r p_r. The pressures of a pump
  line — (p_h, p_r) of each of its m cylinders and the line pressure P, 2m + 1 states — are
  advanced over each step by backward Euler: Newton on ``chamber_rates`` and ``pump_line_rate``
  (the line feeds the sum of the cylinders' draws) with their analytic partials, the arrow-shaped
  Jacobian solved by eliminating each cylinder's 2×2 block (Schur complement on P); the step is
  split in halves if Newton does not converge; x = ℓ_k − ℓ₀ and ẋ = (ℓ_k − ℓ_{k−1})/h. An own
  pump line is the case m = 1.

Per MuJoCo step k (t_k = k·h, h = ``model.opt.timestep``): ``mj_step1`` (positions and
velocities at q_k), then one compiled call that reads the pin positions, computes every
cylinder force f_k, and writes the pin forces and the external site loads into
``data.xfrc_applied`` (force at each body's centre of mass plus the moment of the pin offset)
and the slide-joint forces into ``data.qfrc_applied``, then ``mj_step2``. With MuJoCo's Euler
integrator this is exactly the scheme of
:mod:`actuatorlab.simulation.arm`: the force from q_k, then semi-implicit Euler. The model
must use the Euler or an implicit integrator (MuJoCo's RK4 cannot be split into step1/step2).
A run starts with ``mj_resetData`` (then the given qpos, qvel) and overwrites
``data.xfrc_applied`` and ``data.qfrc_applied`` each step: give external forces as ``SiteLoad``.

Stability (before a run at the initial pose, and every ``check_interval`` = 50 ms of simulated
time along it, since the effective masses change with the pose): with the valves closed each
cylinder is a spring–damper on the effective mass along its pin line, m = 1/(gᵀ M⁻¹ g),
g = (dℓ/dq)ᵀ (on a slide joint m = 1/(M⁻¹)_dd); the scheme is stable iff
h²K/m + 2hB/m < 4 (as in :mod:`actuatorlab.simulation.arm`). For a pressure cylinder K is the
oil-column stiffness β(A_h²/V_h + A_r²/V_r) and B = 0 (its valve damping is integrated
implicitly). An unstable combination raises ``SimulationError`` with the largest stable K (and
along the run the time). The run-time check evaluates all effective masses at once (one
``mj_solveM`` on the stacked gradients, from the mass-matrix factor ``mj_step1`` has just
computed), off the per-step path.

Consistent initialisation (``holding_forces``, ``initial_state``): at the initial pose with
zero velocity and acceleration, ``mj_inverse`` gives the generalised force τ that holds the
machine against gravity and passive forces; the cylinder forces solve G f = τ − τ_loads
(G = [g_1 … g_m], τ_loads the site loads at t = 0), exactly or by least squares. A held
quasistatic cylinder starts pre-stretched, p − ℓ = f/K; a pressure cylinder starts at the
chamber pressures that give f with the less loaded chamber at ``initial_low_pressure``
(``holding_pressures``) and the pump line at its idle pressure. A force outside the chamber
relief range [−F_rM, F_hM] has no physical holding state and raises ``SimulationError``.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import mujoco
import numba as nb
import numpy as np

from ..errors import ParameterError, SimulationError
from ..hydraulics.pressure_dynamics import (
    D_P,
    D_PH,
    D_PR,
    H_BETA,
    H_GRELIEF,
    H_L0,
    H_VP,
    N_PRESSURE,
    U_B,
    PressureDynamics,
    chamber_rates,
    holding_pressures,
    idle_pump_pressure,
    openings_from_command,
    pump_line_rate,
)
from ..hydraulics.quasistatic.circuit import (
    I_AH,
    I_AR,
    I_FHM,
    I_FRM,
    I_PM,
    N_CIRCUIT,
    Openings,
    ValveCircuit,
    normalised_openings,
)
from ..hydraulics.quasistatic.kernels import relaxed_step_scalar
from ..hydraulics.quasistatic.network import (
    PumpNetwork,
    new_pump_state,
    pump_balance_scalar,
    relaxed_network_step_kernel,
)
from ..hydraulics.quasistatic.relaxation import Relaxation, stable_relaxation_advice
from ..mechanics.single_arm import SingleArm
from ..simulation.arm import CHATTER_FRACTION, CHATTER_STEPS
from ..simulation.result import Channel, SimulationResult
from ..validation import non_negative, positive

# actuator kinds
KIND_QUASISTATIC = 0
KIND_NETWORK = 1
KIND_PRESSURE = 2

# status codes of the step kernel
STATUS_OK = 0
STATUS_NOT_FINITE = 1
STATUS_STRETCH = 2
STATUS_STROKE = 3
STATUS_ROOT = 4
STATUS_NEWTON = 5
STATUS_CHATTER = 6

MAX_STRETCH = 0.5
"""|p − ℓ| [m] beyond which the relaxed element is taken to have diverged (as in simulation/arm.py)."""
NEWTON_TOL = 1.0e-3
"""Newton on the chamber pressures stops when every update is below NEWTON_TOL [Pa] + 1e-12·|p|."""
NEWTON_MAX_ITER = 30
MAX_HALVINGS = 10

# rows of the per-actuator output out[k, i, row]
(O_LENGTH, O_RATE, O_FORCE, O_ROD, O_VEL, O_PH, O_PR, O_PUMP, O_RELIEF) = range(9)
N_OUT = 9


# --------------------------------------------------------------------------------------------
# actuator descriptions


def _site_name(name: str, value) -> str:
    if not isinstance(value, str) or not value:
        raise ParameterError(f"{name} = {value!r}: give the name of a site of the MJCF model")
    return value


def _check_attachment(a) -> None:
    """Either two pin sites or one slide joint (with a finite ``length_offset``)."""
    if a.joint is None:
        if a.base_site is None and a.rod_site is None:
            raise ParameterError(
                f"actuator {a.name!r}: give the pin sites base_site and rod_site, or joint = the name of a slide joint"
            )
        _site_name("base_site", a.base_site)
        _site_name("rod_site", a.rod_site)
        if a.length_offset != 0.0:
            raise ParameterError(
                f"actuator {a.name!r}: length_offset = {a.length_offset!r} applies to a slide-joint actuator only "
                "(between two sites ℓ is the pin distance): drop it or give joint"
            )
        return
    if not isinstance(a.joint, str) or not a.joint:
        raise ParameterError(f"actuator {a.name!r}: joint = {a.joint!r}: give the name of a slide joint of the model")
    if a.base_site is not None or a.rod_site is not None:
        raise ParameterError(
            f"actuator {a.name!r}: give either the pin sites (base_site, rod_site) or joint = {a.joint!r}, not both"
        )
    if not (isinstance(a.length_offset, (int, float)) and math.isfinite(a.length_offset)):
        raise ParameterError(f"actuator {a.name!r}: length_offset = {a.length_offset!r}: give a finite length [m]")


@dataclass(frozen=True)
class QuasistaticCylinder:
    """A relaxed quasistatic cylinder (Kikuuwe et al. Secs. 3–4, 6) between two sites or on a slide joint.

    ``name``: label of the actuator (inputs and result channels are keyed by it);
    ``base_site``, ``rod_site``: the pin sites (f > 0 pushes them apart), or instead ``joint``:
    a slide joint, with ℓ = qpos[joint] + ``length_offset`` [m] and f a generalised force on
    its degree of freedom (f > 0 pushes towards larger qpos); ``circuit``: the
    four-valve circuit; ``relaxation``: the virtual spring–damper K [N/m], B [N s/m];
    ``pump``: None for an own pump, or the name of a pump shared with the other cylinders of
    that name (their circuits must agree on the pump fields); ``min_length``, ``max_length``
    [m]: optional pin-to-pin limits (fully retracted / extended), checked at the start and at
    every step.
    """

    name: str
    base_site: str | None = None
    rod_site: str | None = None
    circuit: ValveCircuit = field(default_factory=ValveCircuit.paper_example)
    relaxation: Relaxation = field(default_factory=Relaxation)
    pump: str | None = None
    min_length: float | None = None
    max_length: float | None = None
    joint: str | None = None
    length_offset: float = 0.0

    def __post_init__(self) -> None:
        _check_attachment(self)
        if not isinstance(self.circuit, ValveCircuit):
            raise ParameterError(f"actuator {self.name!r}: circuit must be a ValveCircuit")
        if not isinstance(self.relaxation, Relaxation):
            raise ParameterError(f"actuator {self.name!r}: relaxation must be a Relaxation(K, B)")
        _check_limits(self.name, self.min_length, self.max_length)

    @property
    def length_limits(self) -> tuple[float, float]:
        return (-math.inf if self.min_length is None else self.min_length,
                math.inf if self.max_length is None else self.max_length)


@dataclass(frozen=True)
class PressureCylinder:
    """A pressure-dynamics cylinder (bulk modulus, chamber and pump-line volumes) between two sites
    or on a slide joint (``joint``, ``length_offset``: as for ``QuasistaticCylinder``).

    ``fluid.retracted_length`` ℓ₀ [m] is the pin-to-pin length at full retraction and
    ``fluid.stroke`` s [m] its stroke: ℓ must stay in [ℓ₀, ℓ₀ + s]. ``initial_low_pressure``
    [Pa]: the pressure of the less loaded chamber in the consistent initial state. ``pump``:
    None for an own pump line, or the name of a pump line shared with the other pressure
    cylinders of that name; their circuits must agree on the pump fields (Q, P_M, c_b) and their
    fluids on the pump-line fields (bulk_modulus, pump_line_volume, laminar_pressure,
    relief_flow_gain, check_flow_gain), which are read from the first of them.
    """

    name: str
    base_site: str | None = None
    rod_site: str | None = None
    circuit: ValveCircuit = field(default_factory=ValveCircuit.paper_example)
    fluid: PressureDynamics = field(default_factory=PressureDynamics)
    initial_low_pressure: float = 2.0e6
    pump: str | None = None
    joint: str | None = None
    length_offset: float = 0.0

    def __post_init__(self) -> None:
        _check_attachment(self)
        if not isinstance(self.circuit, ValveCircuit):
            raise ParameterError(f"actuator {self.name!r}: circuit must be a ValveCircuit")
        if not isinstance(self.fluid, PressureDynamics):
            raise ParameterError(f"actuator {self.name!r}: fluid must be a PressureDynamics")
        non_negative(f"{self.name}.initial_low_pressure", self.initial_low_pressure, "Pa")

    @property
    def length_limits(self) -> tuple[float, float]:
        return self.fluid.retracted_length, self.fluid.retracted_length + self.fluid.stroke


Cylinder = QuasistaticCylinder | PressureCylinder


def _check_limits(name, lo, hi) -> None:
    for which, value in (("min_length", lo), ("max_length", hi)):
        if value is not None:
            positive(f"{name}.{which}", value, "m")
    if lo is not None and hi is not None and hi <= lo:
        raise ParameterError(f"actuator {name!r}: max_length = {hi} m must exceed min_length = {lo} m")


_LINE_FIELDS = ("bulk_modulus", "pump_line_volume", "laminar_pressure", "relief_flow_gain", "check_flow_gain")
"""PressureDynamics fields of the pump line, which the cylinders on one shared line must agree on."""


def _check_shared_line(pump: str, group: Sequence[PressureCylinder]) -> None:
    """The pressure cylinders on pump line ``pump`` agree on the pump's circuit and fluid fields."""
    try:
        PumpNetwork([a.circuit for a in group])
    except ParameterError as err:
        raise ParameterError(f"pressure cylinders on pump {pump!r}: {err}") from None
    for a in group[1:]:
        for name in _LINE_FIELDS:
            if getattr(a.fluid, name) != getattr(group[0].fluid, name):
                raise ParameterError(
                    f"pressure cylinders on pump {pump!r}: {a.name!r} has fluid.{name} = {getattr(a.fluid, name)!r} "
                    f"but {group[0].name!r} has {getattr(group[0].fluid, name)!r}; cylinders on one pump line share "
                    f"it: give them the same {name}"
                )


Signal = float | np.ndarray | Callable
"""An input: a constant, an array sampled on the step grid t_k = k·h, or a callable of t [s]."""


@dataclass(frozen=True)
class SiteLoad:
    """An external force [N] (world frame, 3 components) applied at a site; ``force`` is a
    constant 3-vector, an array (n_steps, 3) or a callable t ↦ 3-vector (or (n, 3) for an
    array of t)."""

    site: str
    force: Signal

    def __post_init__(self) -> None:
        _site_name("site", self.site)


# --------------------------------------------------------------------------------------------
# compiled step kernels


@nb.njit(cache=True, error_model="numpy")
def _pressure_substep(cps, hps, us, x, xdot, y0, h, y):
    """One backward-Euler step of a pump line's pressures y = [p_h,0, p_r,0, …, p_h,m−1, p_r,m−1, P]
    from ``y0`` over ``h`` at fixed x, ẋ (m,): Newton on y − y0 − h·ẏ(y) = 0 with the analytic
    partials. The Jacobian is an arrow (each cylinder couples to P only): each 2×2 chamber block
    is eliminated and the Schur complement solved for P. The pump line's parameters are those of
    cylinder 0. Writes ``y``; returns True if converged."""
    m = x.shape[0]
    rates = np.empty(2)
    partials = np.empty((2, 5))
    z = np.empty((m, 2))
    w = np.empty((m, 2))
    c = np.empty((m, 2))
    kp = hps[0, H_BETA] / hps[0, H_VP]
    npr = 2 * m
    for i in range(npr + 1):
        y[i] = y0[i]
    for _ in range(NEWTON_MAX_ITER):
        pump = y[npr]
        draw = 0.0
        dq_p_sum = 0.0
        schur = 0.0
        rhs = 0.0
        for j in range(m):
            dj, dq_ph, dq_pr, dq_p = chamber_rates(cps[j], hps[j], us[j], x[j], xdot[j], y[2 * j], y[2 * j + 1], pump,
                                                   rates, partials)
            draw += dj
            dq_p_sum += dq_p
            r0 = y[2 * j] - y0[2 * j] - h * rates[0]
            r1 = y[2 * j + 1] - y0[2 * j + 1] - h * rates[1]
            a00 = 1.0 - h * partials[0, D_PH]
            a01 = -h * partials[0, D_PR]
            a10 = -h * partials[1, D_PH]
            a11 = 1.0 - h * partials[1, D_PR]
            b0 = -h * partials[0, D_P]
            b1 = -h * partials[1, D_P]
            det = a00 * a11 - a01 * a10
            z[j, 0] = (a11 * r0 - a01 * r1) / det
            z[j, 1] = (a00 * r1 - a10 * r0) / det
            w[j, 0] = (a11 * b0 - a01 * b1) / det
            w[j, 1] = (a00 * b1 - a10 * b0) / det
            c[j, 0] = h * kp * dq_ph
            c[j, 1] = h * kp * dq_pr
            schur -= c[j, 0] * w[j, 0] + c[j, 1] * w[j, 1]
            rhs -= c[j, 0] * z[j, 0] + c[j, 1] * z[j, 1]
        pump_rate, d_pump = pump_line_rate(cps[0], hps[0], us[0, U_B], pump, draw)
        schur += 1.0 - h * (d_pump - kp * dq_p_sum)
        rhs += pump - y0[npr] - h * pump_rate
        delta_p = rhs / schur
        done = abs(delta_p) <= NEWTON_TOL + 1e-12 * abs(pump - delta_p)
        y[npr] = pump - delta_p
        for j in range(m):
            for col in range(2):
                d = z[j, col] - w[j, col] * delta_p
                y[2 * j + col] -= d
                if not (abs(d) <= NEWTON_TOL + 1e-12 * abs(y[2 * j + col])):
                    done = False
        if done:
            return True
    return False


@nb.njit(cache=True, error_model="numpy")
def pressure_step(cps, hps, us, x, xdot, y, h) -> bool:
    """Advance the pressures ``y`` = [p_h,0, p_r,0, …, P] [Pa] of one pump line with m cylinders
    (``cps`` (m, N_CIRCUIT), ``hps`` (m, N_PRESSURE), raw openings ``us`` (m, 6)) in place over
    one step h [s] by backward Euler at piston positions x [m] and rates ẋ [m/s] (m,); split
    into 2, 4, … substeps (up to 2^MAX_HALVINGS) when Newton does not converge. Returns False
    if it never converged."""
    y0 = y.copy()
    out = np.empty(y.shape[0])
    for halvings in range(MAX_HALVINGS + 1):
        n_sub = 1 << halvings
        hs = h / n_sub
        start = y0.copy()
        ok = True
        for _ in range(n_sub):
            if not _pressure_substep(cps, hps, us, x, xdot, start, hs, out):
                ok = False
                break
            start[:] = out
        if ok:
            y[:] = start
            return True
    return False


@nb.njit(cache=True, error_model="numpy")
def _accumulate(xfrc, xipos, body, point, fx, fy, fz):
    """Add the force (fx, fy, fz) [N] acting at ``point`` to body ``body``'s xfrc_applied row."""
    if body == 0:
        return
    rx = point[0] - xipos[body, 0]
    ry = point[1] - xipos[body, 1]
    rz = point[2] - xipos[body, 2]
    xfrc[body, 0] += fx
    xfrc[body, 1] += fy
    xfrc[body, 2] += fz
    xfrc[body, 3] += ry * fz - rz * fy
    xfrc[body, 4] += rz * fx - rx * fz
    xfrc[body, 5] += rx * fy - ry * fx


@nb.njit(cache=True, error_model="numpy")
def actuators_step(k, h, site_xpos, xipos, xfrc, qpos, qfrc, ints, cps, hps, gain, uhs, raw, state, pump_states,
                   group_edges, pgroup_edges, load_sites, load_bodies, loads, out):
    """Forces of every cylinder at step k from the pin positions (or slide-joint positions
    ``qpos``); writes ``xfrc`` and ``qfrc`` (both zeroed first).

    ``ints`` (n, 7): base site, rod site, base body, rod body, kind, then the slide joint's
    qpos and dof addresses (−1 for a cylinder between sites); ``gain`` (n, 5): K, B, min
    length, max length, slide-joint length offset; ``uhs`` (n_steps, n, 5) normalised openings (quasistatic);
    ``raw`` (n_steps, n, 6) raw openings (pressure); ``state`` (n, 8): p_prev, l_prev, then for
    a pressure cylinder p_h, p_r, P (P equal on a shared pump line); columns 5–7 the last force,
    its last change and the count of successive alternating changes (the chatter test of
    simulation/arm.py); ``group_edges``: consecutive network groups [start, stop) in the
    internal order; ``pgroup_edges``: likewise the pressure cylinders' pump lines (an own pump
    line is a group of one); ``out`` (n_steps, n, N_OUT).
    Returns (status, actuator index).
    """
    n = ints.shape[0]
    xfrc[:, :] = 0.0
    qfrc[:] = 0.0
    l_now = np.empty(n)
    unit = np.empty((n, 3))
    for i in range(n):
        if ints[i, 5] >= 0:  # slide joint: ℓ = qpos + offset
            l_now[i] = qpos[ints[i, 5]] + gain[i, 4]
            continue
        a = site_xpos[ints[i, 1]]
        b = site_xpos[ints[i, 0]]
        dx = a[0] - b[0]
        dy = a[1] - b[1]
        dz = a[2] - b[2]
        length = math.sqrt(dx * dx + dy * dy + dz * dz)
        l_now[i] = length
        unit[i, 0] = dx / length
        unit[i, 1] = dy / length
        unit[i, 2] = dz / length
    force = np.empty(n)
    # quasistatic on their own pump
    for i in range(n):
        if ints[i, 4] == 0:
            p, f, v = relaxed_step_scalar(cps[i], uhs[k, i], gain[i, 0], gain[i, 1], h, state[i, 0], state[i, 1],
                                          l_now[i])
            out[k, i, O_ROD] = p
            out[k, i, O_VEL] = v
            out[k, i, O_PH] = np.nan
            out[k, i, O_PR] = np.nan
            out[k, i, O_PUMP] = np.nan
            out[k, i, O_RELIEF] = np.nan
            state[i, 0] = p
            force[i] = f
            if abs(p - l_now[i]) > MAX_STRETCH:
                return STATUS_STRETCH, i
    # pressure cylinders, one pump line at a time
    for g in range(pgroup_edges.shape[0] - 1):
        s = pgroup_edges[g]
        e = pgroup_edges[g + 1]
        m = e - s
        x = np.empty(m)
        xdot = np.empty(m)
        y = np.empty(2 * m + 1)
        for j in range(m):
            i = s + j
            xdot[j] = (l_now[i] - state[i, 1]) / h
            x[j] = l_now[i] - hps[i, H_L0]
            y[2 * j] = state[i, 2]
            y[2 * j + 1] = state[i, 3]
        y[2 * m] = state[s, 4]
        if not pressure_step(cps[s:e], hps[s:e], raw[k, s:e], x, xdot, y, h):
            return STATUS_NEWTON, s
        relief = hps[s, H_GRELIEF] * max(y[2 * m] - cps[s, I_PM], 0.0)
        for j in range(m):
            i = s + j
            state[i, 2] = y[2 * j]
            state[i, 3] = y[2 * j + 1]
            state[i, 4] = y[2 * m]
            force[i] = cps[i, I_AH] * state[i, 2] - cps[i, I_AR] * state[i, 3]
            out[k, i, O_ROD] = np.nan
            out[k, i, O_VEL] = xdot[j]
            out[k, i, O_PH] = state[i, 2]
            out[k, i, O_PR] = state[i, 3]
            out[k, i, O_PUMP] = state[i, 4]
            out[k, i, O_RELIEF] = relief
    # pump networks
    for g in range(group_edges.shape[0] - 1):
        s = group_edges[g]
        e = group_edges[g + 1]
        m = e - s
        p_prev = np.empty(m)
        l_prev = np.empty(m)
        p_new = np.empty(m)
        f_new = np.empty(m)
        v_new = np.empty(m)
        for j in range(m):
            p_prev[j] = state[s + j, 0]
            l_prev[j] = state[s + j, 1]
        pressure, status = relaxed_network_step_kernel(
            cps[s:e], uhs[k, s:e], gain[s:e, 0].copy(), gain[s:e, 1].copy(), h, p_prev, l_prev, l_now[s:e].copy(),
            p_new, f_new, v_new, pump_states[g])
        if status != 0:
            return STATUS_ROOT, s
        relief = 0.0
        if pressure >= cps[s, I_PM]:  # the relief is open: it passes the node's surplus Ξ_P(P_M) (117)
            relief = max(pump_balance_scalar(pressure, cps[s:e], uhs[k, s:e], v_new), 0.0)
        for j in range(m):
            i = s + j
            state[i, 0] = p_new[j]
            force[i] = f_new[j]
            out[k, i, O_ROD] = p_new[j]
            out[k, i, O_VEL] = v_new[j]
            out[k, i, O_PH] = np.nan
            out[k, i, O_PR] = np.nan
            out[k, i, O_PUMP] = pressure
            out[k, i, O_RELIEF] = relief
            if abs(p_new[j] - l_now[i]) > MAX_STRETCH:
                return STATUS_STRETCH, i
    for i in range(n):
        f = force[i]
        out[k, i, O_LENGTH] = l_now[i]
        out[k, i, O_RATE] = (l_now[i] - state[i, 1]) / h
        out[k, i, O_FORCE] = f
        state[i, 1] = l_now[i]
        if not (np.isfinite(f) and np.isfinite(l_now[i])):
            return STATUS_NOT_FINITE, i
        df = f - state[i, 5]
        if abs(df) > CHATTER_FRACTION * (cps[i, I_FHM] + cps[i, I_FRM]) and df * state[i, 6] < 0.0:
            state[i, 7] += 1.0
            if state[i, 7] >= CHATTER_STEPS:
                return STATUS_CHATTER, i
        else:
            state[i, 7] = 0.0
        state[i, 5] = f
        state[i, 6] = df
        if l_now[i] < gain[i, 2] or l_now[i] > gain[i, 3]:
            return STATUS_STROKE, i
        if ints[i, 5] >= 0:
            qfrc[ints[i, 6]] += f
            continue
        fx = f * unit[i, 0]
        fy = f * unit[i, 1]
        fz = f * unit[i, 2]
        _accumulate(xfrc, xipos, ints[i, 3], site_xpos[ints[i, 1]], fx, fy, fz)
        _accumulate(xfrc, xipos, ints[i, 2], site_xpos[ints[i, 0]], -fx, -fy, -fz)
    for j in range(load_sites.shape[0]):
        _accumulate(xfrc, xipos, load_bodies[j], site_xpos[load_sites[j]], loads[k, j, 0], loads[k, j, 1],
                    loads[k, j, 2])
    return STATUS_OK, 0


# --------------------------------------------------------------------------------------------
# model loading and input sampling


def load_model(source) -> mujoco.MjModel:
    """An ``MjModel`` from a model, an MJCF file path, or an MJCF XML string."""
    if isinstance(source, mujoco.MjModel):
        return source
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not source.lstrip().startswith("<")):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise ParameterError(f"MJCF model {path!r}: no such file; give a path to an MJCF file or the XML text")
        try:
            return mujoco.MjModel.from_xml_path(path)
        except ValueError as err:
            raise ParameterError(f"MJCF model {path!r} cannot be loaded: {err}") from None
    if isinstance(source, str):
        try:
            return mujoco.MjModel.from_xml_string(source)
        except ValueError as err:
            raise ParameterError(f"MJCF model (XML string) cannot be loaded: {err}") from None
    raise ParameterError(f"model = {type(source).__name__}: give an MjModel, an MJCF path or an MJCF XML string")


def sample_signal(name: str, signal, t: np.ndarray, width: int | None = None) -> np.ndarray:
    """Sample an input on the grid ``t``: shape (n,) or (n, width)."""
    n = t.size
    shape = (n,) if width is None else (n, width)
    if callable(signal):
        try:
            values = np.asarray(signal(t), dtype=np.float64)
            if values.shape != shape:
                values = np.broadcast_to(values, shape).copy() if values.size in (1, width or 1) else None
        except Exception:  # noqa: BLE001 — a scalar-only callable; sample it point by point
            values = None
        if values is None:
            values = np.array([np.asarray(signal(float(tk)), dtype=np.float64) for tk in t]).reshape(shape)
    else:
        values = np.asarray(signal, dtype=np.float64)
        if values.ndim == (0 if width is None else 1):
            values = np.broadcast_to(values, shape).copy()
        if values.shape != shape:
            raise ParameterError(
                f"{name}: array of shape {values.shape}; give one sample per step, shape {shape} "
                f"(or a constant, or a callable of t)"
            )
    if not np.all(np.isfinite(values)):
        raise ParameterError(f"{name}: every sample must be a finite number")
    return values


def _initial_load(load: SiteLoad) -> np.ndarray:
    """The force [N] of ``load`` at t = 0."""
    if callable(load.force):
        return sample_signal(f"load at {load.site!r}", load.force, np.zeros(1), 3)[0]
    values = np.asarray(load.force, dtype=np.float64)
    values = values[0] if values.ndim == 2 else values
    if values.shape != (3,) or not np.all(np.isfinite(values)):
        raise ParameterError(f"load at {load.site!r}: give a finite 3-vector [N], an array (n_steps, 3) or a callable")
    return values


# --------------------------------------------------------------------------------------------
# the system


@dataclass(frozen=True)
class ActuatorStability:
    """Closed-valve stability of one cylinder at a pose: effective mass m [kg] along the pin
    line, stiffness K [N/m] and damping B [N s/m] used in h²K/m + 2hB/m < 4, the largest stable
    K at that B and h, and whether the combination is stable."""

    name: str
    effective_mass: float
    stiffness: float
    damping: float
    max_stiffness: float
    stable: bool


@dataclass(frozen=True)
class InitialState:
    """A consistent initial state: ``forces`` [N] per actuator (f > 0 pushes the pins apart)
    that hold the pose, the residual ‖G f − τ‖ [N or N m] of the holding equations (0 when the
    cylinders can hold every degree of freedom), ``lengths`` ℓ [m], ``stretch`` p − ℓ = f/K [m]
    (quasistatic) and ``pressures`` (p_h, p_r, P) [Pa] (pressure cylinders), per actuator name."""

    forces: dict[str, float]
    residual: float
    lengths: dict[str, float]
    stretch: dict[str, float]
    pressures: dict[str, tuple[float, float, float]]


class HydraulicMujocoSystem:
    """An MJCF model with hydraulic cylinders attached to its sites or slide joints.

    ``model``: an ``MjModel``, an MJCF path or XML string; ``actuators``: ``QuasistaticCylinder``
    and ``PressureCylinder`` objects with distinct names. The time step is the model's
    ``opt.timestep`` [s].
    """

    def __init__(self, model, actuators: Sequence[Cylinder]):
        self.model = load_model(model)
        self.data = mujoco.MjData(self.model)
        if self.model.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4:
            raise ParameterError(
                'the model uses the RK4 integrator, which MuJoCo cannot split into mj_step1/mj_step2: '
                'set <option integrator="Euler"/> (or implicitfast)'
            )
        actuators = list(actuators)
        if not actuators:
            raise ParameterError("give at least one actuator (QuasistaticCylinder or PressureCylinder)")
        names = [a.name for a in actuators]
        if len(set(names)) != len(names):
            raise ParameterError(f"actuator names must be distinct; got {names}")
        for a in actuators:
            if not isinstance(a, (QuasistaticCylinder, PressureCylinder)):
                raise ParameterError(f"{a!r}: give QuasistaticCylinder or PressureCylinder objects")
        # internal order: own-pump quasistatic cylinders, then the pressure cylinders one pump line
        # after the other (an own line is a group of one), then each quasistatic pump group together
        singles = [a for a in actuators if isinstance(a, QuasistaticCylinder) and a.pump is None]
        lines: dict[object, list[PressureCylinder]] = {}
        for j, a in enumerate(actuators):
            if isinstance(a, PressureCylinder):
                lines.setdefault(("pump", a.pump) if a.pump is not None else ("own", j), []).append(a)
        for key, group in lines.items():
            if key[0] == "pump":
                _check_shared_line(key[1], group)
        pumps: dict[str, list[QuasistaticCylinder]] = {}
        for a in actuators:
            if isinstance(a, QuasistaticCylinder) and a.pump is not None:
                pumps.setdefault(a.pump, []).append(a)
        mixed = sorted(set(pumps) & {key[1] for key in lines if key[0] == "pump"})
        if mixed:
            raise ParameterError(
                f"pump {mixed[0]!r} has both QuasistaticCylinder and PressureCylinder members; one pump takes one "
                "cylinder model: give them the same model or different pump names"
            )
        pressure = [a for group in lines.values() for a in group]
        self.actuators: list[Cylinder] = singles + pressure + [a for group in pumps.values() for a in group]
        self.networks = {pump: PumpNetwork([a.circuit for a in group]) for pump, group in pumps.items()}
        edges = [len(singles) + len(pressure)]
        for group in pumps.values():
            edges.append(edges[-1] + len(group))
        self.group_edges = np.array(edges, dtype=np.int64)
        pedges = [len(singles)]
        for group in lines.values():
            pedges.append(pedges[-1] + len(group))
        self.pgroup_edges = np.array(pedges, dtype=np.int64)
        self.index = {a.name: i for i, a in enumerate(self.actuators)}

        n = len(self.actuators)
        self.ints = np.zeros((n, 7), dtype=np.int64)
        self.cps = np.zeros((n, N_CIRCUIT))
        self.hps = np.zeros((n, N_PRESSURE))
        self.gain = np.zeros((n, 5))
        self._beta, self._stroke, self._dead = np.zeros(n), np.zeros(n), np.zeros((n, 2))
        for i, a in enumerate(self.actuators):
            if a.joint is not None:
                qadr, dadr = self.slide_joint(a.joint, a.name)
                base = rod = body_base = body_rod = -1
                self.gain[i, 4] = a.length_offset
            else:
                qadr = dadr = -1
                base, rod = self.site_id(a.base_site, a.name), self.site_id(a.rod_site, a.name)
                body_base, body_rod = int(self.model.site_bodyid[base]), int(self.model.site_bodyid[rod])
                if body_base == body_rod:
                    raise ParameterError(
                        f"actuator {a.name!r}: sites {a.base_site!r} and {a.rod_site!r} are on the same body "
                        f"({self._body_name(body_base)!r}); the pins must be on two different bodies"
                    )
            if isinstance(a, QuasistaticCylinder):
                kind = KIND_NETWORK if a.pump is not None else KIND_QUASISTATIC
                self.gain[i, :2] = a.relaxation.stiffness, a.relaxation.damping
            else:
                kind = KIND_PRESSURE
                self.hps[i] = a.fluid.kernel_array()
            self.gain[i, 2:4] = a.length_limits
            self.ints[i] = base, rod, body_base, body_rod, kind, qadr, dadr
            if isinstance(a, PressureCylinder):
                self._beta[i] = a.fluid.bulk_modulus
                self._stroke[i] = a.fluid.stroke
                self._dead[i] = a.fluid.head_dead_volume, a.fluid.rod_dead_volume
            self.cps[i] = a.circuit.kernel_array()
        # index arrays of the (vectorised) gradient and stability evaluations
        self._on_joint = self.ints[:, 5] >= 0
        self._joints = np.flatnonzero(self._on_joint)
        self._sites = np.flatnonzero(~self._on_joint)
        self._site_rows = [(int(i), int(self.ints[i, 1]), int(self.ints[i, 0])) for i in self._sites]
        self._pressure = np.flatnonzero(self.ints[:, 4] == KIND_PRESSURE)
        self._jac = np.empty((2, 3, self.model.nv))

    # -- helpers ------------------------------------------------------------------------------
    @property
    def timestep(self) -> float:
        return float(self.model.opt.timestep)

    def _body_name(self, body: int) -> str:
        return mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_BODY, body) or f"body {body}"

    def site_id(self, name: str, who: str = "") -> int:
        """The id of site ``name``; ``ParameterError`` listing the model's sites if unknown."""
        site = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_SITE, name)
        if site < 0:
            known = [mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_SITE, s) for s in range(self.model.nsite)]
            where = f"actuator {who!r}: " if who else ""
            raise ParameterError(
                f"{where}unknown site {name!r}; the model's sites are {known or 'none'}: name one of them "
                "or add a <site> at the cylinder pin"
            )
        return site

    def slide_joint(self, name: str, who: str = "") -> tuple[int, int]:
        """(qpos address, dof address) of slide joint ``name``; ``ParameterError`` listing the
        model's slide joints if it is unknown or not a slide joint."""
        model = self.model
        slides = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint {j}" for j in range(model.njnt)
                  if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_SLIDE]
        joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
        where = f"actuator {who!r}: " if who else ""
        if joint < 0:
            problem = f"unknown joint {name!r}"
        elif model.jnt_type[joint] != mujoco.mjtJoint.mjJNT_SLIDE:
            kind = mujoco.mjtJoint(int(model.jnt_type[joint])).name.removeprefix("mjJNT_").lower()
            problem = f"joint {name!r} is a {kind} joint, not a slide joint"
        else:
            return int(model.jnt_qposadr[joint]), int(model.jnt_dofadr[joint])
        raise ParameterError(
            f"{where}{problem}; the model's slide joints are {slides or 'none'}: name one of them, or attach the "
            "cylinder between two sites (base_site, rod_site)"
        )

    def set_pose(self, qpos=None, qvel=None) -> None:
        """Reset the data to ``qpos`` (default the model's qpos0) and ``qvel`` (default 0), then
        ``mj_forward``."""
        mujoco.mj_resetData(self.model, self.data)
        if qpos is not None:
            qpos = np.asarray(qpos, dtype=np.float64).ravel()
            if qpos.shape != (self.model.nq,):
                raise ParameterError(f"qpos has {qpos.size} entries; the model has nq = {self.model.nq}")
            self.data.qpos[:] = qpos
        if qvel is not None:
            qvel = np.asarray(qvel, dtype=np.float64).ravel()
            if qvel.shape != (self.model.nv,):
                raise ParameterError(f"qvel has {qvel.size} entries; the model has nv = {self.model.nv}")
            self.data.qvel[:] = qvel
        mujoco.mj_forward(self.model, self.data)

    def length_gradients(self) -> tuple[np.ndarray, np.ndarray]:
        """(ℓ (n,) [m], G (nv, n)): lengths and dℓ/dq columns at the current data (after mj_forward
        or mj_step1). A slide-joint actuator has ℓ = qpos + offset and the unit column of its dof."""
        lengths, grads_t = self._gradients_t()
        return lengths, grads_t.T

    def _gradients_t(self) -> tuple[np.ndarray, np.ndarray]:
        """(ℓ (n,), Gᵀ (n, nv) C-contiguous) at the current data."""
        model, data = self.model, self.data
        lengths = np.empty(len(self.actuators))
        grads_t = np.zeros((len(self.actuators), model.nv))
        joints = self._joints
        if joints.size:
            lengths[joints] = data.qpos[self.ints[joints, 5]] + self.gain[joints, 4]
            grads_t[joints, self.ints[joints, 6]] = 1.0
        jac_a, jac_b = self._jac
        xpos = data.site_xpos
        for i, rod, base in self._site_rows:
            d = xpos[rod] - xpos[base]
            length = math.sqrt(d @ d)
            lengths[i] = length
            mujoco.mj_jacSite(model, data, jac_a, None, rod)
            mujoco.mj_jacSite(model, data, jac_b, None, base)
            np.subtract(jac_a, jac_b, out=jac_a)
            np.dot(d / length, jac_a, out=grads_t[i])
        return lengths, grads_t

    def _check_lengths(self, lengths) -> None:
        for i, a in enumerate(self.actuators):
            lo, hi = self.gain[i, 2], self.gain[i, 3]
            if lengths[i] < lo:
                raise SimulationError(
                    f"actuator {a.name!r}: pin-to-pin length ℓ = {lengths[i]:.6g} m is shorter than its minimum "
                    f"(fully retracted) length {lo:.6g} m at the initial pose: change qpos, the sites or the "
                    "cylinder's retracted length"
                )
            if lengths[i] > hi:
                raise SimulationError(
                    f"actuator {a.name!r}: pin-to-pin length ℓ = {lengths[i]:.6g} m exceeds its maximum "
                    f"(fully extended) length {hi:.6g} m at the initial pose: change qpos, the sites or the stroke"
                )

    # -- stability ----------------------------------------------------------------------------
    def _bound(self) -> tuple[np.ndarray, ...]:
        """The closed-valve bound at the current data (after mj_forward or mj_step1), vectorised
        over the actuators: (1/m, K, B, stable) arrays (n,), with 1/m = gᵀM⁻¹g from one
        ``mj_solveM`` on the stacked gradients and stable = (h²K + 2hB)/m < 4."""
        lengths, grads_t = self._gradients_t()
        minv_g = np.empty_like(grads_t)
        mujoco.mj_solveM(self.model, self.data, minv_g, grads_t)
        inv_mass = np.einsum("ij,ij->i", minv_g, grads_t)
        stiffness, damping = self.gain[:, 0].copy(), self.gain[:, 1].copy()
        p = self._pressure
        if p.size:  # the oil column of a pressure cylinder at its piston position
            hp, cp, stroke = self.hps[p], self.cps[p], self._stroke[p]
            x = np.clip(lengths[p] - hp[:, H_L0], 0.0, stroke)
            stiffness[p] = self._beta[p] * (cp[:, I_AH] ** 2 / (self._dead[p, 0] + cp[:, I_AH] * x)
                                            + cp[:, I_AR] ** 2 / (self._dead[p, 1] + cp[:, I_AR] * (stroke - x)))
            damping[p] = 0.0
        h = self.timestep
        stable = (h * h * stiffness + 2.0 * h * damping) * inv_mass < 4.0
        return inv_mass, stiffness, damping, stable

    def _limits(self, inv_mass, stiffness, damping, stable) -> list[ActuatorStability]:
        h = self.timestep
        out = []
        for i, a in enumerate(self.actuators):
            inv = float(inv_mass[i])
            mass = 1.0 / inv if inv > 0.0 else math.inf
            max_k = max(4.0 - 2.0 * h * damping[i] * inv, 0.0) / (h * h * inv) if inv > 0.0 else math.inf
            out.append(ActuatorStability(a.name, mass, float(stiffness[i]), float(damping[i]), max_k, bool(stable[i])))
        return out

    def stability(self, qpos=None) -> list[ActuatorStability]:
        """Closed-valve stability of every cylinder at ``qpos`` (see the module docstring)."""
        self.set_pose(qpos)
        return self._limits(*self._bound())

    def _unstable_error(self, lim: ActuatorStability, when: str) -> SimulationError:
        """The error for an unstable ``lim``; ``when`` says where (the initial pose or a time)."""
        a = self.actuators[self.index[lim.name]]
        h = self.timestep
        line = "its slide joint" if a.joint is not None else "the pin line"
        if isinstance(a, QuasistaticCylinder):
            m = lim.effective_mass
            remedy = stable_relaxation_advice(m, h, lim.damping)
            return SimulationError(
                f"actuator {a.name!r}: relaxation.stiffness = {lim.stiffness:.3g} N/m and damping = "
                f"{lim.damping:.3g} N s/m are unstable with MuJoCo's step h = {h:g} s {when} (effective mass "
                f"{m:.4g} kg along {line}; the bound h²K/m + 2hB/m < 4): {remedy}, or reduce the model's timestep"
            )
        return SimulationError(
            f"actuator {a.name!r}: the oil column (stiffness {lim.stiffness:.3g} N/m) is unstable with MuJoCo's "
            f"step h = {h:g} s {when} on the effective mass {lim.effective_mass:.4g} kg along {line} (largest "
            f"stable stiffness {lim.max_stiffness:.3g} N/m): reduce the timestep below "
            f"{2.0 * math.sqrt(lim.effective_mass / lim.stiffness):.3g} s or use a QuasistaticCylinder"
        )

    def check_stability(self, qpos=None) -> list[ActuatorStability]:
        """``stability``; raises ``SimulationError`` naming the first unstable cylinder and a stable K."""
        limits = self.stability(qpos)
        for lim in limits:
            if not lim.stable:
                raise self._unstable_error(lim, "at the initial pose")
        return limits

    def _check_running(self, time_: float) -> None:
        """The bound at the current data during a run (after mj_step1); raises naming ``time_``."""
        bound = self._bound()
        if not np.all(bound[3]):
            lim = self._limits(*bound)[int(np.argmin(bound[3]))]
            raise self._unstable_error(lim, f"at the pose reached at t = {time_:.6g} s")

    # -- consistent initialisation -------------------------------------------------------------
    def _load_torque(self, load_sites, load_forces) -> np.ndarray:
        tau = np.zeros(self.model.nv)
        for site, force in zip(load_sites, load_forces):
            body = int(self.model.site_bodyid[site])
            mujoco.mj_applyFT(self.model, self.data, np.asarray(force, dtype=np.float64), np.zeros(3),
                              self.data.site_xpos[site].copy(), body, tau)
        return tau

    def holding_forces(self, qpos=None, loads: Sequence[SiteLoad] = ()) -> tuple[np.ndarray, float, np.ndarray]:
        """(f (n,) [N], residual, ℓ (n,) [m]): cylinder forces holding ``qpos`` at rest under gravity,
        passive forces and the site ``loads`` at t = 0 (internal actuator order, see ``self.actuators``)."""
        self.set_pose(qpos)
        lengths, grads = self.length_gradients()
        self.data.qacc[:] = 0.0
        mujoco.mj_inverse(self.model, self.data)
        tau = self.data.qfrc_inverse.copy() - self.data.qfrc_applied
        sites = [self.site_id(load.site) for load in loads]
        forces0 = [_initial_load(load) for load in loads]
        tau -= self._load_torque(sites, forces0)
        forces, *_ = np.linalg.lstsq(grads, tau, rcond=None)
        residual = float(np.linalg.norm(grads @ forces - tau))
        return forces, residual, lengths

    def initial_state(self, qpos=None, loads: Sequence[SiteLoad] = (), bleed0: Mapping[str, float] | None = None,
                      residual_tolerance: float = 1e-6) -> InitialState:
        """The consistent initial state at rest at ``qpos`` (see the module docstring). ``bleed0``
        [-]: the bleed openings at t = 0 (pump-line idle pressure of pressure cylinders).

        Raises ``SimulationError`` when no physical holding state exists: a cylinder would need a
        force beyond its chamber reliefs, a degree of freedom the cylinders cannot hold has an
        unbalanced load (relative residual > ``residual_tolerance``), or K = 0 with a load.
        """
        forces, residual, lengths = self.holding_forces(qpos, loads)
        self._check_lengths(lengths)
        scale = max(float(np.linalg.norm(self.data.qfrc_inverse)), 1.0)
        if residual > residual_tolerance * scale:
            raise SimulationError(
                f"the cylinders cannot hold the initial pose: the least-squares cylinder forces leave an unbalanced "
                f"generalised force of {residual:.4g} (N or N m) on degrees of freedom they do not act on; give a "
                "pose where those degrees of freedom are in equilibrium (or constrained)"
            )
        bleed0 = dict(bleed0 or {})
        stretch, pressures = {}, {}
        for i, a in enumerate(self.actuators):
            f = float(forces[i])
            c = a.circuit
            if not (-c.rod_relief_force <= f <= c.head_relief_force):
                side = "rod" if f < 0 else "head"
                raise SimulationError(
                    f"actuator {a.name!r}: holding the initial pose needs f = {f:.6g} N, beyond the chamber relief "
                    f"range [−F_rM, F_hM] = [{-c.rod_relief_force:.6g}, {c.head_relief_force:.6g}] N (the {side} "
                    "relief would open): no physical holding state exists; reduce the load or raise the relief "
                    "pressure settings"
                )
            if isinstance(a, QuasistaticCylinder):
                k = a.relaxation.stiffness
                if k == 0.0 and f != 0.0:
                    raise SimulationError(
                        f"actuator {a.name!r}: relaxation.stiffness = 0 cannot hold the static force {f:.6g} N; "
                        "give K > 0"
                    )
                stretch[a.name] = f / k if k > 0.0 else 0.0
            else:
                p_h, p_r = holding_pressures(c, f, a.initial_low_pressure)
                if p_h > c.head_relief_pressure or p_r > c.rod_relief_pressure:
                    raise SimulationError(
                        f"actuator {a.name!r}: holding f = {f:.6g} N with the less loaded chamber at "
                        f"initial_low_pressure = {a.initial_low_pressure:.6g} Pa needs p_h = {p_h:.6g} Pa, "
                        f"p_r = {p_r:.6g} Pa, beyond the relief settings (P_hM = {c.head_relief_pressure:.6g} Pa, "
                        f"P_rM = {c.rod_relief_pressure:.6g} Pa): lower initial_low_pressure or reduce the load"
                    )
                pump = idle_pump_pressure(c, float(bleed0.get(a.name, 0.0)))
                pressures[a.name] = (p_h, p_r, pump)
        return InitialState(
            forces={a.name: float(forces[i]) for i, a in enumerate(self.actuators)},
            residual=residual,
            lengths={a.name: float(lengths[i]) for i, a in enumerate(self.actuators)},
            stretch=stretch,
            pressures=pressures,
        )

    # -- simulation ---------------------------------------------------------------------------
    def simulate(
        self,
        duration: float,
        valve_commands: Mapping[str, Signal],
        bleed: Mapping[str, Signal] | Signal = 0.0,
        loads: Sequence[SiteLoad] = (),
        qpos=None,
        qvel=None,
        consistent: bool = True,
        regeneration: Mapping[str, Signal] | None = None,
        check: bool = True,
        check_interval: float | None = 0.05,
    ) -> SimulationResult:
        """Step the model for ``duration`` [s] on t_k = k·h, k = 0 … round(duration/h).

        ``valve_commands``: u_c ∈ [−1, 1] per actuator name (67) (> 0 extends); missing names
        are held closed (u_c = 0). ``bleed``: u_b ∈ [0, 1], one signal for all or one per name
        (equal within a pump group). ``loads``: external site forces [N]. ``qpos``, ``qvel``:
        initial state (default the model's qpos0, at rest). ``consistent``: start from the
        holding state of ``initial_state`` (at rest only); otherwise every relaxed element
        starts unstretched (p = ℓ, the paper's p(0) = ℓ(0)) and every pressure cylinder from
        the holding pressures. ``regeneration``: u_a per pressure cylinder (default 0).
        ``check``: refuse an unstable K/B/step at the initial pose (``check_stability``) and,
        every ``check_interval`` [s] of simulated time (None: only at the start), at the current
        pose, where the effective masses have changed along the motion (a violation raises
        ``SimulationError`` naming the time, the actuator, its effective mass and a stable K/B);
        with False the run goes on and a divergence (chattering force, runaway stretch,
        non-finite state) raises ``SimulationError`` when it shows.

        Returns a ``SimulationResult`` with channels ``qpos_<i>``, ``qvel_<i>`` (state at t_k,
        before step k) and per actuator ``<name>.length`` ℓ [m], ``.length_rate`` (ℓ_k − ℓ_{k−1})/h
        [m/s], ``.force`` f [N], and ``.rod_position`` p [m], ``.rod_velocity`` v [m/s]
        (quasistatic) or ``.head_pressure``, ``.rod_pressure`` [Pa]; ``.pump_pressure`` [Pa] and
        ``.pump_relief_flow`` [m³/s] (flow through the pump relief valve) for pressure cylinders and
        pump groups; counters ``loop_time_s`` and ``real_time_factor``.
        """
        h = self.timestep
        n = round(positive("duration", duration, "s") / h) + 1
        n_check = 0
        if check and check_interval is not None:
            n_check = max(1, round(positive("check_interval", check_interval, "s") / h))
        t = np.arange(n) * h
        names = set(self.index)
        unknown = sorted(set(valve_commands) - names)
        if unknown:
            raise ParameterError(f"valve_commands: unknown actuators {unknown}; the actuators are {sorted(names)}")
        n_act = len(self.actuators)
        u_c = np.zeros((n, n_act))
        u_b = np.zeros((n, n_act))
        u_a = np.zeros((n, n_act))
        for i, a in enumerate(self.actuators):
            u_c[:, i] = sample_signal(f"valve_commands[{a.name!r}]", valve_commands.get(a.name, 0.0), t)
            if isinstance(bleed, Mapping):
                extra = sorted(set(bleed) - names)
                if extra:
                    raise ParameterError(f"bleed: unknown actuators {extra}; the actuators are {sorted(names)}")
                u_b[:, i] = sample_signal(f"bleed[{a.name!r}]", bleed.get(a.name, 0.0), t)
            else:
                u_b[:, i] = sample_signal("bleed", bleed, t)
            if regeneration and a.name in regeneration:
                if not isinstance(a, PressureCylinder):
                    raise ParameterError(f"regeneration[{a.name!r}]: only PressureCylinder actuators take u_a here")
                u_a[:, i] = sample_signal(f"regeneration[{a.name!r}]", regeneration[a.name], t)
        for edges in (self.group_edges, self.pgroup_edges):
            for g in range(edges.size - 1):
                s, e = edges[g], edges[g + 1]
                if np.any(u_b[:, s:e] != u_b[:, s:s + 1]):
                    raise ParameterError(
                        f"bleed: the cylinders {[a.name for a in self.actuators[s:e]]} share one pump and its "
                        "bleed valve; give them the same u_b"
                    )
        uhs = np.zeros((n, n_act, 5))
        raw = np.zeros((n, n_act, 6))
        for i, a in enumerate(self.actuators):
            try:
                openings = Openings.from_command(u_c[:, i], u_b[:, i])
            except ParameterError as err:
                raise ParameterError(f"actuator {a.name!r}: {err}") from None
            if isinstance(a, PressureCylinder):
                raw[:, i] = openings_from_command(u_c[:, i], u_b[:, i], u_a[:, i])
            else:
                uhs[:, i] = normalised_openings(a.circuit, openings)
        load_sites = np.array([self.site_id(load.site) for load in loads], dtype=np.int64)
        load_bodies = np.array([int(self.model.site_bodyid[s]) for s in load_sites], dtype=np.int64)
        load_values = np.zeros((n, len(loads), 3))
        for j, load in enumerate(loads):
            load_values[:, j] = sample_signal(f"load at {load.site!r}", load.force, t, 3)

        # initial state
        if check:
            self.check_stability(qpos)
        state = np.zeros((n_act, 8))
        if consistent:
            if qvel is not None and np.any(np.asarray(qvel) != 0.0):
                raise ParameterError("consistent initialisation holds the machine at rest: give qvel = None or zeros")
            init = self.initial_state(qpos, loads, {a.name: u_b[0, i] for i, a in enumerate(self.actuators)})
        self.set_pose(qpos, qvel)
        lengths, grads = self.length_gradients()
        self._check_lengths(lengths)
        rates = grads.T @ self.data.qvel
        state[:, 0] = lengths
        state[:, 1] = lengths - h * rates
        for i, a in enumerate(self.actuators):
            if isinstance(a, PressureCylinder):
                if consistent:
                    state[i, 2:5] = init.pressures[a.name]
                else:
                    # hold against the generalised load mapped onto this cylinder alone
                    forces, _, _ = self.holding_forces(qpos, loads)
                    self.set_pose(qpos, qvel)
                    p_h, p_r = holding_pressures(a.circuit, float(forces[i]), a.initial_low_pressure)
                    state[i, 2:5] = p_h, p_r, idle_pump_pressure(a.circuit, float(u_b[0, i]))
            elif consistent:
                state[i, 0] = lengths[i] + init.stretch[a.name]
        pump_states = np.array([new_pump_state(net) for net in self.networks.values()]).reshape(-1, 2)
        out = np.full((n, n_act, N_OUT), np.nan)
        qpos_out = np.empty((n, self.model.nq))
        qvel_out = np.empty((n, self.model.nv))

        model, data = self.model, self.data
        site_xpos, xipos, xfrc = data.site_xpos, data.xipos, data.xfrc_applied
        qpos_d, qfrc = data.qpos, data.qfrc_applied
        args = (self.ints, self.cps, self.hps, self.gain, uhs, raw, state, pump_states, self.group_edges,
                self.pgroup_edges, load_sites, load_bodies, load_values, out)
        # compile (or load from the cache) outside the timed loop on copies
        t0 = time.perf_counter()
        actuators_step(0, h, site_xpos.copy(), xipos.copy(), xfrc.copy(), qpos_d.copy(), qfrc.copy(), self.ints,
                       self.cps, self.hps, self.gain, uhs, raw, state.copy(), pump_states.copy(), self.group_edges, self.pgroup_edges, load_sites,
                       load_bodies, load_values, out.copy())
        compile_time = time.perf_counter() - t0
        step1, step2 = mujoco.mj_step1, mujoco.mj_step2
        status, which, k_fail = STATUS_OK, 0, n
        t0 = time.perf_counter()
        for k in range(n):
            step1(model, data)
            if n_check and k and k % n_check == 0:
                self._check_running(float(t[k]))
            status, which = actuators_step(k, h, site_xpos, xipos, xfrc, qpos_d, qfrc, *args)
            qpos_out[k] = data.qpos
            qvel_out[k] = data.qvel
            if status != STATUS_OK:
                k_fail = k
                break
            step2(model, data)
        loop_time = time.perf_counter() - t0
        if status != STATUS_OK:
            self._raise_failure(status, which, t[k_fail], out[k_fail, which])
        if not (np.all(np.isfinite(qpos_out)) and np.all(np.isfinite(qvel_out))):
            k = int(np.argmax(~np.isfinite(qpos_out).all(axis=1) | ~np.isfinite(qvel_out).all(axis=1)))
            raise SimulationError(f"the MuJoCo state became non-finite at t = {t[k]:.4g} s: reduce the timestep "
                                  "or the relaxation stiffness")
        return self._result(t, qpos_out, qvel_out, out, u_c, u_b, loop_time, compile_time)

    def _raise_failure(self, status, which, time_, row) -> None:
        a = self.actuators[which]
        what = {
            STATUS_NOT_FINITE: "a non-finite force or length",
            STATUS_STRETCH: f"a relaxed stretch |p − ℓ| > {MAX_STRETCH} m",
            STATUS_STROKE: f"the pin-to-pin length ℓ = {row[O_LENGTH]:.6g} m outside its limits "
                           f"[{self.gain[which, 2]:.6g}, {self.gain[which, 3]:.6g}] m (the model has no end stops)",
            STATUS_ROOT: "a pump-pressure search that did not converge",
            STATUS_NEWTON: "a chamber-pressure step that did not converge",
            STATUS_CHATTER: "a force chattering from step to step (the step is unstable at this pose)",
        }[status]
        raise SimulationError(
            f"actuator {a.name!r}: the simulation failed at t = {time_:.6g} s (f = {row[O_FORCE]:.6g} N) with {what}: "
            "reduce the timestep or relaxation.stiffness, or change the inputs"
        )

    def _result(self, t, qpos, qvel, out, u_c, u_b, loop_time, compile_time) -> SimulationResult:
        channels: dict[str, Channel] = {}
        for i in range(self.model.nq):
            channels[f"qpos_{i}"] = Channel(qpos[:, i], "m or rad", f"qpos[{i}]")
        for i in range(self.model.nv):
            channels[f"qvel_{i}"] = Channel(qvel[:, i], "m/s or rad/s", f"qvel[{i}]")
        for i, a in enumerate(self.actuators):
            rows = out[:, i]
            ch = {
                "valve_command": Channel(u_c[:, i], "1", "valve command u_c"),
                "bleed": Channel(u_b[:, i], "1", "bleed opening u_b"),
                "length": Channel(rows[:, O_LENGTH], "m", "pin-to-pin length ℓ"),
                "length_rate": Channel(rows[:, O_RATE], "m/s", "length rate (ℓ_k − ℓ_{k−1})/h"),
                "force": Channel(rows[:, O_FORCE], "N", "cylinder force f (> 0 pushes the pins apart)"),
            }
            if isinstance(a, QuasistaticCylinder):
                ch["rod_position"] = Channel(rows[:, O_ROD], "m", "rod displacement p")
                ch["rod_velocity"] = Channel(rows[:, O_VEL], "m/s", "rod velocity v")
                ch["stretch"] = Channel(rows[:, O_ROD] - rows[:, O_LENGTH], "m", "relaxed element p − ℓ")
                if a.pump is not None:
                    ch["pump_pressure"] = Channel(rows[:, O_PUMP], "Pa", "shared pump pressure P (126)")
                    ch["pump_relief_flow"] = Channel(rows[:, O_RELIEF], "m^3/s", "pump relief flow Ξ_P (117)")
            else:
                ch["head_pressure"] = Channel(rows[:, O_PH], "Pa", "head-side pressure p_h")
                ch["rod_pressure"] = Channel(rows[:, O_PR], "Pa", "rod-side pressure p_r")
                ch["pump_pressure"] = Channel(rows[:, O_PUMP], "Pa", "pump-line pressure P")
                ch["pump_relief_flow"] = Channel(rows[:, O_RELIEF], "m^3/s", "pump relief flow g_relief·max(P − P_M, 0)")
            channels.update({f"{a.name}.{key}": value for key, value in ch.items()})
        duration = float(t[-1] + self.timestep)
        counters = {"steps": float(t.size), "compile_time_s": compile_time, "loop_time_s": loop_time,
                    "real_time_factor": duration / loop_time if loop_time > 0 else math.inf}
        return SimulationResult(t=t, channels=channels, counters=counters)


# --------------------------------------------------------------------------------------------
# the single-DOF arm of Kikuuwe et al. Sec. 4.3 as an MJCF model


ARM_JOINT = "theta"
ARM_BASE_SITE = "base_pin"
ARM_ROD_SITE = "arm_pin"
ARM_LOAD_SITE = "load_point"


def single_arm_mjcf(arm: SingleArm, timestep: float = 1e-3) -> str:
    """MJCF of ``SingleArm``: one body on a hinge about z at the origin (θ counter-clockwise from
    +x), mass M with its centre of mass at (L_g, 0, 0) and inertia J about it, gravity g along
    −y, the Euler integrator at ``timestep`` [s]; sites ``base_pin`` at r_b (world),
    ``arm_pin`` at r_m(θ = 0) = (−L_m cos α, L_m sin α, 0) and ``load_point`` at (L_f, 0, 0) on
    the arm. Contacts are disabled."""
    positive("timestep", timestep, "s")
    lm, al = arm.mount_distance, arm.mount_angle
    pin = (-lm * math.cos(al), lm * math.sin(al))
    j = arm.inertia
    f = "{:.17g}".format
    return f"""<mujoco model="single_arm">
  <option timestep="{f(timestep)}" gravity="0 {f(-arm.gravity)} 0" integrator="Euler">
    <flag contact="disable"/>
  </option>
  <worldbody>
    <site name="{ARM_BASE_SITE}" pos="{f(arm.base[0])} {f(arm.base[1])} 0" size="0.05"/>
    <body name="arm" pos="0 0 0">
      <joint name="{ARM_JOINT}" type="hinge" axis="0 0 1" pos="0 0 0"/>
      <inertial pos="{f(arm.com_distance)} 0 0" mass="{f(arm.mass)}" diaginertia="{f(j)} {f(j)} {f(j)}"/>
      <geom type="capsule" fromto="{f(pin[0])} {f(pin[1])} 0 {f(arm.load_distance)} 0 0" size="0.05"
            contype="0" conaffinity="0" mass="0"/>
      <site name="{ARM_ROD_SITE}" pos="{f(pin[0])} {f(pin[1])} 0" size="0.05"/>
      <site name="{ARM_LOAD_SITE}" pos="{f(arm.load_distance)} 0 0" size="0.05"/>
    </body>
  </worldbody>
</mujoco>
"""


def mujoco_arm_system(arm: SingleArm, circuit: ValveCircuit, relaxation: Relaxation | None = None,
                      timestep: float = 1e-3, fluid: PressureDynamics | None = None) -> HydraulicMujocoSystem:
    """The arm of ``single_arm_mjcf`` with one cylinder ``cylinder`` between ``base_pin`` and
    ``arm_pin``: quasistatic with ``relaxation`` (default), or pressure dynamics with ``fluid``."""
    if fluid is not None:
        cylinder = PressureCylinder("cylinder", ARM_BASE_SITE, ARM_ROD_SITE, circuit, fluid)
    else:
        cylinder = QuasistaticCylinder("cylinder", ARM_BASE_SITE, ARM_ROD_SITE, circuit, relaxation or Relaxation())
    return HydraulicMujocoSystem(single_arm_mjcf(arm, timestep), [cylinder])


def simulate_mujoco_arm(
    arm: SingleArm,
    circuit: ValveCircuit,
    relaxation: Relaxation,
    t: np.ndarray,
    valve_command,
    bleed,
    external_force,
    initial_angle: float = 0.0,
    initial_rate: float = 0.0,
    consistent: bool = False,
    fluid: PressureDynamics | None = None,
) -> SimulationResult:
    """The counterpart of ``simulation.arm.simulate_arm`` in MuJoCo: same arguments (inputs
    sampled on the uniform grid ``t`` [s], f_ey [N] positive upward at L_f), same channels
    (``theta``, ``theta_rate``, ``length``, ``force``, and ``rod_position``, ``rod_velocity``,
    ``stretch`` or the pressures). ``consistent=False`` starts the relaxed element unstretched
    like ``simulate_arm``; True starts from the holding state."""
    t = np.asarray(t, dtype=np.float64)
    h = float(t[1] - t[0])
    system = mujoco_arm_system(arm, circuit, relaxation, h, fluid)
    f_ey = np.asarray(external_force, dtype=np.float64)
    load = np.zeros((t.size, 3))
    load[:, 1] = f_ey
    result = system.simulate(
        float(t[-1]),
        {"cylinder": np.asarray(valve_command, dtype=np.float64)},
        np.asarray(bleed, dtype=np.float64),
        loads=[SiteLoad(ARM_LOAD_SITE, load)],
        qpos=[initial_angle],
        qvel=[initial_rate],
        consistent=consistent,
    )
    channels = {
        "valve_command": result.channels["cylinder.valve_command"],
        "bleed": result.channels["cylinder.bleed"],
        "external_force": Channel(f_ey, "N", "external force f_ey"),
        "theta": Channel(result["qpos_0"], "rad", "arm angle θ"),
        "theta_rate": Channel(result["qvel_0"], "rad/s", "arm angular rate θ̇"),
    }
    for key in ("length", "force", "rod_position", "rod_velocity", "stretch", "head_pressure", "rod_pressure",
                "pump_pressure"):
        if f"cylinder.{key}" in result.channels:
            channels[key] = result.channels[f"cylinder.{key}"]
    return SimulationResult(t=result.t, channels=channels, counters=result.counters)

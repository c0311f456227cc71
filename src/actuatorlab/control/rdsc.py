"""Robust decomposed system control (RDSC) of EMLAs, Bahari et al. Sec. VII, (69)–(71), Alg. 2.

Each EMLA i is split into four subsystems ν with states x_1 = linear position [m], x_2 = linear
velocity [m/s], x_3 = i_q [A], x_4 = i_d [A]. Errors (69), control law (70), adaptation (71):

.. math::
    Q_ν = x_ν − x_ν^{ref} − κ_{ν−1}\\ (ν = 2),\\qquad Q_ν = x_ν − x_ν^{ref}\\ (ν = 1, 3, 4)

    κ_ν = −½ (δ_ν + ε_ν \\hat φ_ν) Q_ν,\\qquad
    \\dot{\\hat φ}_ν = −k_ν σ_ν \\hat φ_ν + ½ ε_ν k_ν Q_ν²

κ_1 is a velocity correction [m/s], κ_2 the motor torque command τ_m [N m], κ_3 = v_q [V],
κ_4 = v_d [V]. References: x_4^ref = i_d,ref = 0; x_3^ref = i_q,ref from (4) solved for the
torque κ_2 (a reading taken). Gains default to the paper's (Sec. VII-C): k = 7, σ = 9,
δ = 75 000, ε = 9 for every ν. Their units follow from the SI states: δ_1 [1/s], δ_2 [N m s/m],
δ_3, δ_4 [V/A]; the paper gives none, so these are read as SI.

Readings taken: the position and velocity are the motor-side linear ones, x = ρθ_m/(2πn),
v = ρω_m/(2πn) (collocated with the motor encoder); the paper describes no
saturation, here i_q,ref is clipped to ±i_max and |v_dq| to V_dc/√3 by scaling the voltage
vector (the simulation reports when; |i_q| can pass i_max only while the voltage is saturated,
see ``simulation.emla_tracking``). (71) has the equilibrium φ̂ = ε Q²/(2σ) for constant Q
and decays as exp(−kσ t) for Q = 0; ζ of (76) is min(min δ, min kσ) = 63 for
the paper's gains.

Behaviour of the paper's gains read in SI (measured with ``simulation.emla_tracking`` on the
Table I actuators; not stated in the paper). With ideal (instant) current loops, ν = 1, 2 form a
P–P cascade: dv/dt = (f_eq/J_1) τ, τ = −½δ_2 (v − v_ref + ½δ_1 (x − x_ref)), i.e. a velocity
loop of bandwidth ω_v = ½δ_2 f_eq/J_1 around a position loop of bandwidth ω_p = ½δ_1, with the
characteristic polynomial s² + ω_v s + ω_v ω_p and damping ζ = ½√(ω_v/ω_p). J_1/f_eq is
7.1 (lift), 2.0 (tilt) and 1.3 (extension) N m s²/m, so δ_2 = 75 000 gives ω_v ≈ 5 300, 18 900 and
28 800 1/s — above the drive-train modes (√(k_s/M_L) ≈ 2 600–3 200 1/s) — under a position loop
ω_p = 37 500 1/s that is *faster* than the velocity loop it drives (ζ ≈ 0.19, 0.35, 0.44). The
static stiffness (½δ_1)(½δ_2)/f_eq ≈ 10¹² N/m turns a 1 µm or 2 mm/s reference inconsistency
into more than the peak torque. Inside the limits it tracks to ~10 nm, but any transient that
saturates the voltage or current — a current step from a kink of the reference (the optimal
motion resampled piecewise-linearly has acceleration steps every 30 ms), an inconsistent
reference, a load step of ~40 % of max_force within 1 ms — leaves it in a limit cycle with mm
errors that does not recover: on the optimal motion every actuator is clipped on 99.95 % of the
samples. The current loops are fine as printed: ½δ_3 = ½δ_4 = 37 500 V/A against L = 5–12 mH is
a (near dead-beat) loop of 3·10⁶–7·10⁶ 1/s, limited only by the voltage.

The scenario ``emla-tracking`` therefore keeps k, σ, ε and δ_3, δ_4 of the paper and sets
δ_1 = 60 1/s, δ_2 = 4 000 N m s/m: ω_p = 30 1/s (5 Hz) < ω_v = 281 / 1 010 / 1 530 1/s (lift /
tilt / extension; ζ ≥ 1.5, below the drive-train modes) ≪ the current loops. Without torque
feed-forward the steady error is τ/((½δ_1)(½δ_2)) = 0.17 mm per 10 N m. On the optimal motion
with the default disturbance it tracks within 0.7 mm without any clip, peak |i_q| ≤ 0.9 i_max
(the extension, whose motion and load alone need ~80 % of its current; the rest is the position
loop chasing the chord error of the scenario's linearly resampled positions, which is why a
faster δ_1 = 100 — a third smaller errors — takes it to 95 %). With ε = 9 the adaptive part
ε φ̂/2 = ε²Q²/(4σ) adds < 10⁻³ of ½δ at these errors: in SI the paper's adaptation is inert.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..numerics.layout import Layout

# rows of the packed gains (4 subsystems per row)
GAIN_ROWS = Layout("G_", "k", "sigma", "delta", "eps")
(G_K, G_SIGMA, G_DELTA, G_EPS) = GAIN_ROWS.indices


def _per_subsystem(name: str, value) -> tuple[float, ...]:
    try:
        arr = np.broadcast_to(np.asarray(value, dtype=np.float64), (4,))
    except ValueError:
        raise ParameterError(f"RDSC gain {name} = {value!r}: give a scalar or 4 values (ν = 1..4)") from None
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0.0):
        raise ParameterError(
            f"RDSC gain {name} = {np.asarray(value).tolist()!r}: must be finite and > 0 "
            "(a scalar or one value per subsystem ν = 1..4)"
        )
    return tuple(float(a) for a in arr)


@dataclass(frozen=True)
class RDSCGains:
    """Gains of (70)–(71), each a scalar or 4 values (ν = 1..4): adaptation rate k [-],
    leakage σ [-], feedback δ and adaptive weight ε (units in the module docstring).
    Defaults: the paper's k = 7, σ = 9, δ = 75 000, ε = 9."""

    k: float | tuple[float, ...] = 7.0
    sigma: float | tuple[float, ...] = 9.0
    delta: float | tuple[float, ...] = 75_000.0
    epsilon: float | tuple[float, ...] = 9.0

    def __post_init__(self) -> None:
        for f in ("k", "sigma", "delta", "epsilon"):
            object.__setattr__(self, f, _per_subsystem(f, getattr(self, f)))

    def packed(self) -> np.ndarray:
        """(4, 4) array: rows k, σ, δ, ε; columns ν = 1..4."""
        return GAIN_ROWS.pack(k=self.k, sigma=self.sigma, delta=self.delta, eps=self.epsilon)

    @property
    def zeta(self) -> float:
        """ζ of (76) for one EMLA: min(min_ν δ_ν, min_ν k_ν σ_ν) [1/s]."""
        return min(min(self.delta), min(k * s for k, s in zip(self.k, self.sigma)))

    def adaptation_equilibrium(self, error, nu: int):
        """φ̂ where (71) is at rest for a constant error Q: ε Q²/(2σ) (ν = 1..4)."""
        j = _index(nu)
        return self.epsilon[j] * np.asarray(error, float) ** 2 / (2.0 * self.sigma[j])


def _index(nu: int) -> int:
    if nu not in (1, 2, 3, 4):
        raise ParameterError(f"subsystem nu = {nu!r}: must be 1, 2, 3 or 4")
    return nu - 1


# ---------------------------------------------------------------------------------------------
# compiled kernels (``g`` = RDSCGains.packed(), j = ν − 1)
# ---------------------------------------------------------------------------------------------
@nb.njit(cache=True)
def feedback_gain(g, j, phi):
    """½ (δ_ν + ε_ν φ̂_ν): κ_ν = −gain · Q_ν, eq. (70)."""
    return 0.5 * (g[G_DELTA, j] + g[G_EPS, j] * phi)


@nb.njit(cache=True)
def control_law(g, j, phi, q):
    """κ_ν = −½ (δ_ν + ε_ν φ̂_ν) Q_ν, eq. (70)."""
    return -feedback_gain(g, j, phi) * q


@nb.njit(cache=True)
def adaptation_rate(g, j, phi, q):
    """dφ̂_ν/dt = −k_ν σ_ν φ̂_ν + ½ ε_ν k_ν Q_ν², eq. (71)."""
    return -g[G_K, j] * g[G_SIGMA, j] * phi + 0.5 * g[G_EPS, j] * g[G_K, j] * q * q


@nb.njit(cache=True)
def adaptation_step(g, j, phi, q, h):
    """φ̂_ν after a step h [s] of (71) with Q_ν held constant (exact solution of the linear ODE):
    φ̂∞ + (φ̂ − φ̂∞) exp(−k σ h), φ̂∞ = ε Q²/(2σ)."""
    ks = g[G_K, j] * g[G_SIGMA, j]
    phi_inf = 0.5 * g[G_EPS, j] * q * q / g[G_SIGMA, j]
    return phi_inf + (phi - phi_inf) * math.exp(-ks * h)


@nb.njit(cache=True)
def outer_loops(g, phi, x, v, x_ref, v_ref):
    """Subsystems ν = 1, 2 of Alg. 2: returns (Q_1, κ_1, Q_2, κ_2); κ_2 is the torque command
    [N m]. ``phi`` (4,) holds φ̂_1..φ̂_4."""
    q1 = x - x_ref
    k1 = control_law(g, 0, phi[0], q1)
    q2 = v - v_ref - k1
    k2 = control_law(g, 1, phi[1], q2)
    return q1, k1, q2, k2


@dataclass(frozen=True)
class RDSCCommand:
    """One evaluation of Alg. 2: errors Q (4,), commands κ (4,) = [κ_1 m/s, τ_m N m, v_q V,
    v_d V], adaptation rates dφ̂/dt (4,), current references (i_q,ref, i_d,ref) [A]."""

    errors: np.ndarray
    commands: np.ndarray
    adaptation_rates: np.ndarray
    current_reference: tuple[float, float]


class RDSC:
    """The controller of one EMLA around :class:`RDSCGains`; ``command`` evaluates Alg. 2 once
    (continuous-time law; ``simulation.emla_tracking`` runs it in a compiled loop)."""

    def __init__(self, gains: RDSCGains | None = None) -> None:
        self.gains = gains if gains is not None else RDSCGains()
        if not isinstance(self.gains, RDSCGains):
            raise ParameterError(f"gains must be RDSCGains, got {type(self.gains).__name__}")

    def command(self, actuator, state, reference, phi) -> RDSCCommand:
        """state = [x, v, i_q, i_d] (m, m/s, A, A); reference = [x_ref, v_ref]; phi (4,).
        ``actuator`` is an ``electromech.EMLA`` (its motor gives (4) for i_q,ref). No saturation."""
        from ..electromech.pmsm import q_current_for_torque

        x, v, i_q, i_d = (float(s) for s in state)
        phi = np.asarray(phi, dtype=np.float64)
        if phi.shape != (4,):
            raise ParameterError(f"phi must have shape (4,), got {phi.shape}")
        g = self.gains.packed()
        q1, k1, q2, k2 = outer_loops(g, phi, x, v, float(reference[0]), float(reference[1]))
        iq_ref = q_current_for_torque(actuator.motor_packed(), k2, 0.0)
        q3, q4 = i_q - iq_ref, i_d - 0.0
        k3, k4 = control_law(g, 2, phi[2], q3), control_law(g, 3, phi[3], q4)
        qs = np.array([q1, q2, q3, q4])
        rates = np.array([adaptation_rate(g, j, phi[j], qs[j]) for j in range(4)])
        return RDSCCommand(qs, np.array([k1, k2, k3, k4]), rates, (iq_ref, 0.0))

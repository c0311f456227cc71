"""Nonlinear ("virtual") model of the integrated electro-hydraulic actuator (IEHA) of
Alfayad et al. (2016): voice-coil micro-valve → carriage (eccentricity E) → radial pump of N
micro-pistons → passive distributor → asymmetric output cylinder with a load.

State ``y`` (layout ``I_*``), SI units, pressures gauge [Pa]:
``[E, Ė, ζ, P_A, P_B, Y, Ẏ, P_p1 … P_pN]``; inputs ``u = [X, F_ext]`` (valve command X [m],
external force F_ext [N], > 0 opposes Y > 0).

Equations (paper numbers; read from the article's embedded MathType, its plain text having lost
every minus sign and fraction bar):

- (5) piston reach L_i = √(R_b² − E² sin²θ_i) − E cos θ_i, θ_i = ωt + φ_i, φ_i = 2π(i−1)/N,
  (6) its exact rate L̇_i = Ḣ_i. ω is the shaft speed in rad/s everywhere in the kinematics.
- (8) mean flow Q_mac = 2 N S_p E f with f = ω/(2π) [rev/s] (the reading of ω in (8) taken).
- (9) micro-valve, a critical-centre four-way valve with load pressure 2ζ:
  Q_e = C_d 2π r_tig (X − E) √(2/ρ) √(P_s/2 − sgn(X − E) ζ); the paper prints the X > E branch
  only, the other is its mirror. The sign and the radicand are smoothed (``laminar_pressure``).
- (12)–(13) carriage: m_e Ë = 2 S_e ζ + F_p, (v_e/β) ζ̇ = Q_e − S_e Ė − K_e ζ (leak read with
  the physical sign: it costs flow).
- (16) read as the sum over pistons: F_p = −Σ P_pi S_p cos θ_i, the component of
  the piston forces on the ring along increasing E (the ring centre sits at −E along θ = 0).
- (14)–(15) with the missing Ṗ restored: (v_i/β) Ṗ_pi = Q_in − Q_out − S_p Ḣ_i − K_p P_pi,
  v_i = v_p0 + S_p (L_i − R_b + E_max) (a positive dead volume replaces the negative H_pi of (1)).
  Ports are orifices C_d π r_rp² √(2/ρ) R_ε(Δp) (laminar-regularised square root).
- Port timing and passive distributor: a piston whose chamber grows (sgn E · sin θ_i > 0; for
  E > 0 this is (15)'s θ ∈ [0, π]) takes oil from the pump supply P_rp, a shrinking one delivers
  to chamber A if E > 0, to chamber B if E < 0, and the chamber not fed is vented to the tank
  through an orifice of radius ``vent_radius``. Both switches are C¹ smoothsteps with zero
  overlap (closed centre): port openings w = s(±sgn_ε(E) sin θ_i / δ), distributor weights
  s(±E/E_ε). At E = 0 every port and the distributor are closed, so the pump blocks the
  cylinder (the holding state of the back-drive test); sgn_ε(E) = E/√(E² + E_ε²).
  Consequence: each chamber leaves the intake at ≈ P_rp and decompresses into the delivery
  line, so the pump delivers N f v_p0 (P_rp − P_λ)/β on top of Q_mac (≈ 4·10⁻⁸ m³/s with the
  defaults: +0.3 % at E = 0.04 cm, +8 % at E = 0.002 cm).
- (11), (17)–(18) cylinder with moving-piston volumes V_A = v_A + S_A Y, V_B = v_B − S_B Y:
  (V_A/β) Ṗ_A = Q_A − Q_ventA − K_in (P_A − P_B) − K_ex P_A − S_A Ẏ, likewise for B with
  + S_B Ẏ; m Ÿ = P_A S_A − P_B S_B − F_ext − b Ẏ (b = 0 in the paper). ΔP = P_A − P_B is the
  paper's 2P_c. The paper has no cavitation model: a chamber the load pulls on (a blocked one,
  or A during the load's ringing after a step) reaches gauge pressures below −1 bar, which a
  real circuit could not. ``check_valve_radius`` > 0 adds anti-cavitation check valves from
  the tank into A and B (their flow counts as negative vent flow).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numba as nb
import numpy as np

from ..errors import ParameterError
from ..numerics.layout import Layout
from ..validation import check_quantities, count, non_negative, quantity
from .fluid import IEHA_BULK_MODULUS, IEHA_OIL_DENSITY
from .pressure_dynamics import check_valve_flow, orifice_flow

# State layout.
STATE = Layout("I_", "e", "ed", "zeta", "pa", "pb", "y", "yd")
I_E, I_ED, I_ZETA, I_PA, I_PB, I_Y, I_YD = STATE.indices
I_PISTON = len(STATE)
# Auxiliary outputs written by the right-hand side (layout ``A_*``).
AUX = Layout("A_", "qa", "qb", "qsup", "qvent", "qe", "fp", "qleak")
A_QA, A_QB, A_QSUP, A_QVENT, A_QE, A_FP, A_QLEAK = AUX.indices
N_AUX = len(AUX)
# Layout of the float64 parameter vector of the kernels.
PARAMETERS = Layout(
    "K_",
    "ps:supply_pressure",
    "kv:valve_gain",
    "me:carriage_mass",
    "se:carriage_area",
    "emax:max_eccentricity",
    "ve:carriage_volume",
    "bulk_modulus:bulk_modulus",
    "omega:shaft_speed",
    "prp:pump_supply_pressure",
    "n:n_pistons",
    "kport:port_gain",
    "sp:piston_area",
    "rb:ring_radius",
    "m:load_mass",
    "va:chamber_volume_a",
    "sa:area_a",
    "sb:area_b",
    "vb:chamber_volume_b",
    "vp0:piston_dead_volume",
    "kvent:vent_gain",
    "kin:internal_leakage",
    "kex:external_leakage",
    "ke:carriage_leakage",
    "kp:piston_leakage",
    "damp:load_damping",
    "eps:laminar_pressure",
    "delta:port_smoothing",
    "eeps:eccentricity_smoothing",
    "kcheck:check_gain",
)
(
    K_PS,
    K_KV,
    K_ME,
    K_SE,
    K_EMAX,
    K_VE,
    K_BULK_MODULUS,
    K_OMEGA,
    K_PRP,
    K_N,
    K_KPORT,
    K_SP,
    K_RB,
    K_M,
    K_VA,
    K_SA,
    K_SB,
    K_VB,
    K_VP0,
    K_KVENT,
    K_KIN,
    K_KEX,
    K_KE,
    K_KP,
    K_DAMP,
    K_EPS,
    K_DELTA,
    K_EEPS,
    K_KCHECK,
) = PARAMETERS.indices
N_KERNEL = len(PARAMETERS)

_RPM = 2.0 * math.pi / 60.0


@dataclass(frozen=True)
class IEHAParams:
    """IEHA parameters in SI units; Table 1 of the paper unless marked *default* (not given in
    the paper, documented choice, override freely).

    Table 1: supply_pressure P_s [Pa] of the micro-valve; valve_radius r_tig [m];
    carriage_mass m_e [kg]; carriage_area S_e [m²]; max_eccentricity E_max [m];
    carriage_volume v_e [m³]; bulk_modulus β [Pa]; discharge_coefficient C_d [-]; density ρ
    [kg/m³]; shaft_speed ω [rad/s] (3000 rpm); pump_supply_pressure P_rp [Pa]; n_pistons N;
    port_radius r_rp [m]; piston_area S_p [m²]; ring_radius R_b [m]; load_mass m [kg];
    chamber_volume_a v_c [m³] and area_a S_c [m²] of the fed chamber A.

    Defaults: E > 0 feeds chamber A (area S_c, Y increases), E < 0 chamber B;
    area_b S_B = 2 S_c (text: "S_cylA almost half S_cylB"); chamber_volume_b = 2 v_c
    (same 10 cm stroke); piston_dead_volume v_p0 = S_p · 2 mm; vent_radius = r_rp; every
    leakage coefficient [m³/(s Pa)] 0 (K_in, K_ex of (11), K_e of Q_eleak, K_p of Q_pileak);
    load_damping b = 0 [N s/m]; laminar_pressure ε = 10 kPa (orifice regularisation; the port
    drops are ≈ 40 Pa at full flow, so ports run laminar and ε only shapes their switching);
    port_smoothing δ = 0.02 (in units of sin θ); eccentricity_smoothing E_ε = 0.2 µm;
    check_valve_radius = 0: no anti-cavitation check valves, as in the paper; a radius > 0 [m]
    adds them from the tank into chambers A and B, so a chamber the load pulls on refills
    instead of reaching an impossible negative absolute pressure.
    """

    supply_pressure: float = quantity(10e5, "Pa")
    valve_radius: float = quantity(0.25e-2, "m")
    carriage_mass: float = quantity(0.091, "kg")
    carriage_area: float = quantity(1.644e-4, "m^2")
    max_eccentricity: float = quantity(0.05e-2, "m")
    carriage_volume: float = quantity(0.0822e-6, "m^3")
    bulk_modulus: float = quantity(IEHA_BULK_MODULUS, "Pa")
    discharge_coefficient: float = quantity(0.62, "(dimensionless)")
    density: float = quantity(IEHA_OIL_DENSITY, "kg/m^3")
    shaft_speed: float = quantity(3000.0 * _RPM, "rad/s")
    pump_supply_pressure: float = quantity(10e5, "Pa")
    n_pistons: int = quantity(15, "pistons", count)
    port_radius: float = quantity(0.2e-2, "m")
    piston_area: float = quantity(0.197e-4, "m^2")
    ring_radius: float = quantity(0.3e-2, "m")
    load_mass: float = quantity(10.0, "kg")
    chamber_volume_a: float = quantity(23.562e-6, "m^3")
    area_a: float = quantity(2.356e-4, "m^2")
    area_b: float = quantity(2.0 * 2.356e-4, "m^2")
    chamber_volume_b: float = quantity(2.0 * 23.562e-6, "m^3")
    piston_dead_volume: float = quantity(0.197e-4 * 2e-3, "m^3")
    vent_radius: float = quantity(0.2e-2, "m")
    internal_leakage: float = quantity(0.0, "m^3/(s Pa)", non_negative)
    external_leakage: float = quantity(0.0, "m^3/(s Pa)", non_negative)
    carriage_leakage: float = quantity(0.0, "m^3/(s Pa)", non_negative)
    piston_leakage: float = quantity(0.0, "m^3/(s Pa)", non_negative)
    load_damping: float = quantity(0.0, "N s/m", non_negative)
    laminar_pressure: float = quantity(1e4, "Pa")
    port_smoothing: float = quantity(0.02, "(dimensionless)")
    eccentricity_smoothing: float = quantity(2e-7, "m")
    check_valve_radius: float = quantity(0.0, "m", non_negative)

    def __post_init__(self) -> None:
        check_quantities(self, "ieha.")
        if self.max_eccentricity >= self.ring_radius:
            raise ParameterError(
                f"ieha.max_eccentricity = {self.max_eccentricity:g} m must be below ring_radius = "
                f"{self.ring_radius:g} m, or the piston reach (5) has no real value: lower E_max or enlarge R_b"
            )
        if self.port_smoothing >= 1.0:
            raise ParameterError(f"ieha.port_smoothing = {self.port_smoothing:g} (dimensionless): must lie in (0, 1)")
        if self.eccentricity_smoothing >= 0.1 * self.max_eccentricity:
            raise ParameterError(
                f"ieha.eccentricity_smoothing = {self.eccentricity_smoothing:g} m: must be below "
                f"0.1·E_max = {0.1 * self.max_eccentricity:g} m so the distributor switches sharply"
            )

    def replace(self, **changes) -> IEHAParams:
        """A copy with ``changes`` applied (validated); unknown names raise ``ParameterError``."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ParameterError(f"unknown IEHA parameter(s) {unknown}; valid names: {sorted(known)}")
        return IEHAParams(**{**{f.name: getattr(self, f.name) for f in fields(self)}, **changes})

    @property
    def n_states(self) -> int:
        """The length of the state vector: the fixed states (E, Ė, ζ, P_A, P_B, Y, Ẏ) plus one pressure per piston."""
        return I_PISTON + self.n_pistons

    @property
    def valve_gain(self) -> float:
        """K_v = C_d·2π r_tig·√(2/ρ) [m^{5/2} kg^{-1/2}]: the micro-valve's orifice gain per metre of
        carriage travel (its window is the circumference 2π r_tig times the travel)."""
        return self.discharge_coefficient * 2.0 * math.pi * self.valve_radius * math.sqrt(2.0 / self.density)

    @property
    def port_gain(self) -> float:
        """K_port = C_d·π r_rp²·√(2/ρ) [m^{7/2} kg^{-1/2}]: a piston port's orifice gain."""
        return self.discharge_coefficient * math.pi * self.port_radius**2 * math.sqrt(2.0 / self.density)

    @property
    def vent_gain(self) -> float:
        """K_vent = C_d·π r_vent²·√(2/ρ) [m^{7/2} kg^{-1/2}]: the vent's orifice gain."""
        return self.discharge_coefficient * math.pi * self.vent_radius**2 * math.sqrt(2.0 / self.density)

    @property
    def check_gain(self) -> float:
        """K_check = C_d·π r_check²·√(2/ρ) [m^{7/2} kg^{-1/2}]: an anti-cavitation check valve's
        orifice gain (0 without them)."""
        return self.discharge_coefficient * math.pi * self.check_valve_radius**2 * math.sqrt(2.0 / self.density)

    def kernel_array(self) -> np.ndarray:
        """The float64 parameter vector of the compiled kernels (layout ``K_*``)."""
        return PARAMETERS.pack_of(self)

    def mean_flow(self, eccentricity: float) -> float:
        """Q_mac [m³/s] of (8), 2 N S_p E · ω/(2π): ω read in rev/s."""
        return 2.0 * self.n_pistons * self.piston_area * eccentricity * self.shaft_speed / (2.0 * math.pi)

    def initial_state(self) -> np.ndarray:
        """Rest state: E = Ė = ζ = 0, cylinder at Y = 0 unloaded, pistons at P_rp."""
        y = np.zeros(self.n_states)
        y[I_PISTON:] = self.pump_supply_pressure
        return y

    def check_input(self, x: np.ndarray) -> None:
        """Raise if a valve command X exceeds E_max (the carriage could not follow it)."""
        worst = float(np.max(np.abs(x))) if np.size(x) else 0.0
        if not np.isfinite(worst) or worst > self.max_eccentricity * (1.0 + 1e-12):
            raise ParameterError(
                f"valve command |X| reaches {worst:g} m beyond E_max = {self.max_eccentricity:g} m: "
                "scale the input down or raise max_eccentricity"
            )


def piston_phases(n: int) -> np.ndarray:
    """φ_i = 2π(i − 1)/N [rad], i = 1 … N."""
    return 2.0 * math.pi * np.arange(n) / n


@nb.njit(cache=True)
def piston_reach(e: float, theta: float, rb: float) -> float:
    """L_i [m] of (5): shaft centre to the contact point of a piston at angle θ [rad]."""
    s = math.sin(theta)
    return math.sqrt(rb * rb - e * e * s * s) - e * math.cos(theta)


@nb.njit(cache=True)
def piston_reach_rate(e: float, edot: float, theta: float, omega: float, rb: float) -> float:
    """Ḣ_i = L̇_i [m/s] of (6), the exact time derivative of (5) with θ̇ = ω [rad/s]."""
    s = math.sin(theta)
    c = math.cos(theta)
    root = math.sqrt(rb * rb - e * e * s * s)
    return -edot * c + e * omega * s - (e * edot * s * s + e * e * omega * s * c) / root


@nb.njit(cache=True, inline="always")
def _smoothstep(x: float) -> float:
    """C¹ step: 0 for x ≤ 0, 1 for x ≥ 1, 3x² − 2x³ between."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return x * x * (3.0 - 2.0 * x)


@nb.njit(cache=True)
def ieha_rhs(t, y, u, k, out, aux, dpist):
    """ẏ of the IEHA model into ``out`` and the flows/forces ``A_*`` into ``aux``.

    ``t`` [s], ``y`` state (layout ``I_*``), ``u = [X, F_ext]``, ``k`` = ``kernel_array()``.
    aux: Q_A, Q_B delivered to the chambers, Q_sup from P_rp, Q_vent to the tank [m³/s], Q_e
    [m³/s], F_p [N], Q_leak lost by external leakage [m³/s]. ``dpist`` (N, 4) receives, per
    piston, ∂(Q_in, Q_A, Q_B)/∂Δp of its three ports and β/v_i (for the Jacobian).
    Returns min(V_A, V_B) [m³].
    """
    e = y[I_E]
    ed = y[I_ED]
    zeta = y[I_ZETA]
    pa = y[I_PA]
    pb = y[I_PB]
    pos = y[I_Y]
    vel = y[I_YD]
    bulk_modulus = k[K_BULK_MODULUS]
    eps = k[K_EPS]
    eeps = k[K_EEPS]
    omega = k[K_OMEGA]
    rb = k[K_RB]
    sp = k[K_SP]
    kport = k[K_KPORT]
    n = int(k[K_N])
    sgn = e / math.sqrt(e * e + eeps * eeps)
    to_a = _smoothstep(e / eeps)
    to_b = _smoothstep(-e / eeps)
    base = k[K_VP0] - sp * (rb - k[K_EMAX])
    s0 = math.sin(omega * t)
    c0 = math.cos(omega * t)
    dphi = 2.0 * math.pi / n
    sd = math.sin(dphi)
    cd = math.cos(dphi)
    s = s0
    c = c0
    fp = 0.0
    qa = 0.0
    qb = 0.0
    qsup = 0.0
    qleak = 0.0
    for i in range(n):
        p = y[I_PISTON + i]
        root = math.sqrt(rb * rb - e * e * s * s)
        reach = root - e * c
        rate = -ed * c + e * omega * s - (e * ed * s * s + e * e * omega * s * c) / root
        x = sgn * s / k[K_DELTA]
        w_in = _smoothstep(x)
        w_out = _smoothstep(-x)
        q_in, dpist[i, 0] = orifice_flow(kport * w_in, k[K_PRP] - p, eps)
        q_a, dpist[i, 1] = orifice_flow(kport * w_out * to_a, p - pa, eps)
        q_b, dpist[i, 2] = orifice_flow(kport * w_out * to_b, p - pb, eps)
        q_l = k[K_KP] * p
        dpist[i, 3] = bulk_modulus / (base + sp * reach)
        out[I_PISTON + i] = dpist[i, 3] * (q_in - q_a - q_b - q_l - sp * rate)
        fp -= p * sp * c
        qa += q_a
        qb += q_b
        qsup += q_in
        qleak += q_l
        s, c = s * cd + c * sd, c * cd - s * sd
    # micro-valve (9) and carriage (12)-(13)
    xv = u[0] - e
    sx = xv / math.sqrt(xv * xv + eeps * eeps)
    rad = 0.5 * k[K_PS] - sx * zeta
    rad = 0.5 * (rad + math.sqrt(rad * rad + eps * eps))
    qe = k[K_KV] * xv * math.sqrt(rad)
    out[I_E] = ed
    out[I_ED] = (2.0 * k[K_SE] * zeta + fp) / k[K_ME]
    out[I_ZETA] = bulk_modulus / k[K_VE] * (qe - k[K_SE] * ed - k[K_KE] * zeta)
    # distributor vents and cylinder (11), (17)-(18)
    kvent = k[K_KVENT]
    qva = orifice_flow(kvent * to_b, pa, eps)[0] - check_valve_flow(k[K_KCHECK], -pa, eps)[0]
    qvb = orifice_flow(kvent * to_a, pb, eps)[0] - check_valve_flow(k[K_KCHECK], -pb, eps)[0]
    q_in_ab = k[K_KIN] * (pa - pb)
    qexa = k[K_KEX] * pa
    qexb = k[K_KEX] * pb
    va = k[K_VA] + k[K_SA] * pos
    vb = k[K_VB] - k[K_SB] * pos
    out[I_PA] = bulk_modulus / va * (qa - qva - q_in_ab - qexa - k[K_SA] * vel)
    out[I_PB] = bulk_modulus / vb * (qb - qvb + q_in_ab - qexb + k[K_SB] * vel)
    out[I_Y] = vel
    out[I_YD] = (pa * k[K_SA] - pb * k[K_SB] - u[1] - k[K_DAMP] * vel) / k[K_M]
    aux[A_QA] = qa
    aux[A_QB] = qb
    aux[A_QSUP] = qsup
    aux[A_QVENT] = qva + qvb
    aux[A_QE] = qe
    aux[A_FP] = fp
    aux[A_QLEAK] = qleak + qexa + qexb + k[K_KE] * zeta
    return min(va, vb)


@nb.njit(cache=True)
def ieha_jacobian(t, y, u, k, f0, scale, jac, work, aux, dpist):
    """∂ẏ/∂y into ``jac``: forward differences for the 7 carriage/cylinder columns (7 extra
    right-hand sides), analytic columns for the N piston pressures (from ``dpist``).

    ``f0`` must hold ẏ at (t, y) and ``dpist`` the port derivatives of that same call;
    ``scale`` [state units] sets each perturbation h_j = √ε_mach · max(|y_j|, scale_j);
    ``work`` is scratch of the state size; ``y`` is restored on return.
    """
    m = y.size
    n = m - I_PISTON
    base = np.empty((n, 4))
    for i in range(n):
        for c in range(4):
            base[i, c] = dpist[i, c]
    scratch = np.empty((n, 4))
    for j in range(I_PISTON):
        yj = y[j]
        h = 1.49e-8 * max(abs(yj), scale[j])
        y[j] = yj + h
        ieha_rhs(t, y, u, k, work, aux, scratch)
        y[j] = yj
        for i in range(m):
            jac[i, j] = (work[i] - f0[i]) / h
    bulk_modulus = k[K_BULK_MODULUS]
    va = k[K_VA] + k[K_SA] * y[I_Y]
    vb = k[K_VB] - k[K_SB] * y[I_Y]
    dphi = 2.0 * math.pi / n
    for j in range(n):
        col = I_PISTON + j
        for i in range(m):
            jac[i, col] = 0.0
        d_in = base[j, 0]
        d_a = base[j, 1]
        d_b = base[j, 2]
        jac[col, col] = base[j, 3] * (-d_in - d_a - d_b - k[K_KP])
        jac[I_ED, col] = -k[K_SP] * math.cos(k[K_OMEGA] * t + j * dphi) / k[K_ME]
        jac[I_PA, col] = bulk_modulus / va * d_a
        jac[I_PB, col] = bulk_modulus / vb * d_b
    for i in range(n):
        for c in range(base.shape[1]):
            dpist[i, c] = base[i, c]

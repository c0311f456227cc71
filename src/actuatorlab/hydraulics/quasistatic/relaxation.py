"""Differential-algebraic relaxation (DAR) of the quasistatic actuator, Kikuuwe et al. Sec. 4.

The actuator (rod displacement p, rate v = ṗ) is in series with a virtual spring–damper; ℓ is
the geometric (external) length. Following (68a), not the sign-flipped (81):

    f = K (p − ℓ) + B (ṗ − ℓ̇),    f ∈ Γ(ṗ),

so a stretch ℓ > p pulls the rod (f < 0, tension). One backward-Euler step (72) gives
f = f̄ + βv with β = B + hK [N s/m]: the step's impedance, named ``impedance`` in code (the
paper's β; ``bulk_modulus`` is the oil's β elsewhere).

The module imports no numba (``lam`` and ``relaxed_step`` import their compiled loops from
``kernels`` when called), so a scenario's ``[relaxation]`` table validates without it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError
from ...validation import check_quantities, non_negative, positive, quantity
from ._broadcast import flatten
from .circuit import Openings, ValveCircuit


@dataclass(frozen=True)
class Relaxation:
    """Virtual spring–damper of the DAR: stiffness K [N/m] (≥ 0), damping B [N s/m] (> 0)."""

    stiffness: float = quantity(5.0e7, "N/m", non_negative)
    damping: float = quantity(2.5e6, "N s/m")

    def __post_init__(self) -> None:
        check_quantities(self, "relaxation.")


STABILITY_BOUND = 4.0
"""The closed-valve bound of the explicit step: h²K/m + 2hB/m < 4 (the spring–damper K, B on the
effective mass m, stepped with the force from the state at the start of the step)."""

DEFAULT_BOUND_FRACTION = 0.25
"""The share of the stability bound a default relaxation takes (``default_relaxation``)."""


def default_relaxation(effective_mass: float, step: float, bound: float = STABILITY_BOUND) -> Relaxation:
    """The relaxation (K [N/m], B [N s/m]) chosen for a cylinder whose force accelerates the
    effective mass ``effective_mass`` m [kg] along it, stepped at ``step`` h [s].

    The rule: with the valves closed the element is a spring–damper on m, stepped explicitly,
    stable while h²K/m + 2hB/m < ``bound`` (4 on a tree of bodies; less where the model's soft
    equality constraints take part of the step's budget themselves, ``actuatorlab.multibody.stability``).
    With ω = √(K/m) and the damping ratio ζ = B/(2√(Km)), the bound reads (ωh)² + 4ζ(ωh) < bound:

    - ζ = 1 (critical damping): the held load settles without ringing, and no damping is spent
      beyond what settles it (an over-damped B moves the step's pole towards −1, where the
      discrete element rings from step to step: the Nyquist ringing of a B chosen at the bound);
    - (ωh)² + 4(ωh) = ``DEFAULT_BOUND_FRACTION`` · bound (a quarter of it): the effective mass may
      fall four-fold along the motion (it changes with the pose) before the bound is reached.

    So ωh = x = √(4 + q) − 2 with q = bound/4 (x = √5 − 2 = 0.236 on a tree of bodies),
    K = m x²/h² and B = 2 m x/h: a settling time of a few 1/ω = h/x ≈ 4h, as stiff as the step
    allows with that margin (a stiffer K leaves less of the bound to the damping). The force a
    load change puts on the element stretches it by ΔF/K (about 0.1 mm for 100 kN on a boom of
    20 t effective mass at h = 1 ms).
    """
    m = positive("effective_mass", effective_mass, "kg")
    h = positive("step", step, "s")
    q = DEFAULT_BOUND_FRACTION * positive("bound", bound, "")
    x = (4.0 + q) ** 0.5 - 2.0
    return Relaxation(stiffness=m * x * x / (h * h), damping=2.0 * m * x / h)


def stable_relaxation_advice(effective_mass: float, step: float, damping: float, bound: float = STABILITY_BOUND) -> str:
    """What to set so that the closed-valve bound h²K/m + 2hB/m < ``bound`` (4, or less where soft
    constraints share the step) holds (m [kg] the effective mass along the cylinder, h [s] the
    step, B [N s/m] the damping now).

    While the damping leaves room (B < bound·m/(2h)) the advice is a stiffness below the bound;
    when the damping alone breaks it, no stiffness ≥ 0 is stable, and the advice is a damping
    below bound·m/(2h) (with half that B the bound allows K < bound·m/(2h²)); the default rule's
    values (``default_relaxation``) are offered with either.
    """
    m, h = effective_mass, step
    max_damping = bound * m / (2.0 * h)
    max_stiffness = max(bound - 2.0 * h * damping / m, 0.0) * m / (h * h)
    rule = default_relaxation(m, h, bound)
    default = f"the default for this load: stiffness {rule.stiffness:.2g} N/m with damping {rule.damping:.2g} N s/m"
    if max_stiffness > 0.0:
        return (
            f"set stiffness below {max_stiffness:.3g} N/m (for example {0.5 * max_stiffness:.2g} N/m) "
            f"with damping below {max_damping:.3g} N s/m ({default})"
        )
    return (
        f"set damping below {max_damping:.3g} N s/m (for example {0.5 * max_damping:.2g} N s/m, which allows "
        f"stiffness below {0.5 * bound * m / h**2:.3g} N/m; {default})"
    )


def lam(circuit: ValveCircuit, openings: Openings, impedance, fbar) -> np.ndarray:
    """Λ(β, f̄) [m/s] (69), (73)–(74): the unique v with β·v + f̄ ∈ Γ(v).

    ``impedance`` β = B + hK [N s/m] > 0 and ``fbar`` f̄ [N] broadcast with the openings.
    """
    from .kernels import lam_loop  # compiled: imported on use, so ``Relaxation`` loads without numba

    impedance = np.asarray(impedance, dtype=np.float64)
    if np.any(~(impedance > 0.0)) or np.any(~np.isfinite(impedance)):
        raise ParameterError("lam: impedance must be finite and > 0 N s/m (β = B + hK of the relaxation step)")
    cp, uh, (b, fb), shape = flatten(circuit, openings, impedance, fbar)
    out = np.empty(b.size)
    lam_loop(cp, uh, b, fb, out)
    return out.reshape(shape)


def relaxed_step(
    circuit: ValveCircuit, openings: Openings, K: float, B: float, h: float, p_prev, l_prev, l_now
) -> tuple[np.ndarray, np.ndarray]:
    """One step of algorithm (72): (p_k [m], f_k [N]) from p_{k−1}, ℓ_{k−1}, ℓ_k [m].

    K [N/m] and B [N s/m] are the virtual stiffness and damping, h [s] the step.
    """
    from .kernels import relaxed_step_loop  # compiled: imported on use, as in ``lam``

    relaxation = Relaxation(K, B)
    h = positive("h", h, "s")
    cp, uh, (pp, lp, ln), shape = flatten(circuit, openings, p_prev, l_prev, l_now)
    p_out = np.empty(pp.size)
    f_out = np.empty(pp.size)
    relaxed_step_loop(cp, uh, relaxation.stiffness, relaxation.damping, h, pp, lp, ln, p_out, f_out)
    return p_out.reshape(shape), f_out.reshape(shape)


def relaxed_rate(
    circuit: ValveCircuit,
    openings: Openings,
    K: float,
    B: float,
    p,
    l,  # noqa: E741 — ℓ of (70), a public keyword: relaxed_rate(..., l=...)
    l_rate,
) -> tuple[np.ndarray, np.ndarray]:
    """Right-hand side of the ODE (70): (ṗ [m/s], f [N]) at rod displacement p, length ℓ, rate ℓ̇.

    ṗ = Λ(B, K(p − ℓ) − B ℓ̇),  f = K(p − ℓ) + B(ṗ − ℓ̇).
    """
    relaxation = Relaxation(K, B)
    fbar = relaxation.stiffness * (np.asarray(p, dtype=np.float64) - l) - relaxation.damping * np.asarray(l_rate)
    rate = lam(circuit, openings, relaxation.damping, fbar)
    force = fbar + relaxation.damping * rate
    return rate, force

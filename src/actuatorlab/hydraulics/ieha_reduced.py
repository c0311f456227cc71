"""Symbolic derivation (sympy) of the IEHA input–output model (19)–(25) of Alfayad et al.

From the model equations, with leakage neglected as in the paper:

- (17) F_c − F_ext = m Ÿ with F_c = 2 S_c P_c, so P_c = (m Ÿ + F_ext)/(2 S_c);
- (18) Q = S_c Ẏ + (v_c/β) Ṗ_c and (8) Q = 2 N S_p E ω, giving E = A (19);
- (20) F_p = (P_rp − P_c) S_p cos ωt (the paper's one-piston force (16));
- (12) ζ = (m_e Ë − F_p)/(2 S_e) (21)–(22);
- (23) 2π C_d r_tig √(2/ρ) (X − E) √(P_s/2 − ζ) = S_e Ė + (v_e/β) ζ̇, solved for X and
  multiplied through by β as the paper does: X = A + B/C with B = K8 Ė + K9 (m_e E⁽³⁾ − Ḟ_p),
  K8 = S_e β, K9 = v_e/(2 S_e), and C = K7 √(1 − 2ζ/P_s), K7 = 2π C_d r_tig √(P_s/ρ) β.

The coefficients are then read off the expanded B and C radicand. Reduction (25): drop every
term of B and of C's radicand whose coefficient keeps a net factor 1/β (K2m, K2, K14m, K14).
ω is the symbol of (8); numeric values read ω as the shaft speed in rev/s (50).

Findings (the printed coefficients' typos, reproduced by ``coefficient_table``): K2 has S_c for v_c;
the second "K14" is K14m; K15 duplicates K14; the sin/cos terms K16–K18 miss the factor K9;
the radicand coefficients K1, K2m, K2, K3, K4m, K4 are half the derived ones (the paper used
ζ/P_s for 2ζ/P_s), K1, K2m, K2 also with the wrong sign, and K3 assumes P_rp = P_s.
"""

from __future__ import annotations

import math
from functools import lru_cache

import sympy as sp

from .ieha import IEHAParams

t = sp.Symbol("t", real=True)
me, Sc, Se, Sp, N, w, Ps, beta, vc, ve, m, Prp, Cd, rtig, rho = sp.symbols(
    "m_e S_c S_e S_p N omega P_s beta v_c v_e m P_rp C_d r_tig rho", positive=True
)
Y = sp.Function("Y")(t)
F = sp.Function("F_ext")(t)
X = sp.Function("X")(t)
YD = sp.symbols("Y0:7")  # Y, Ẏ, …, Y⁽⁶⁾
FD = sp.symbols("F0:5")  # F_ext, …, F_ext⁽⁴⁾
COS, SIN = sp.symbols("cos_wt sin_wt")


def _plain(expr: sp.Expr) -> sp.Expr:
    """Replace derivatives of Y, F_ext and the trig functions by plain symbols."""
    expr = expr.subs({sp.Derivative(Y, (t, k)): YD[k] for k in range(6, 0, -1)})
    expr = expr.subs({sp.Derivative(F, (t, k)): FD[k] for k in range(4, 0, -1)})
    return expr.subs({Y: YD[0], F: FD[0], sp.cos(w * t): COS, sp.sin(w * t): SIN})


@lru_cache(maxsize=1)
def derivation() -> dict[str, sp.Expr]:
    """The intermediate expressions of the derivation (plain symbols for derivatives):
    ``P_c``, ``E`` (19), ``F_p`` (20), ``zeta`` (22), ``A``, ``B``, ``C_radicand`` (1 − 2ζ/P_s),
    ``X`` (24, full) and the constants ``K7``, ``K8``, ``K9``."""
    pc = (m * Y.diff(t, 2) + F) / (2 * Sc)
    e = (Sc * Y.diff(t) + vc / beta * pc.diff(t)) / (2 * N * Sp * w)
    fp = (Prp - pc) * Sp * sp.cos(w * t)
    zeta = (me * e.diff(t, 2) - fp) / (2 * Se)
    k7 = 2 * sp.pi * Cd * rtig * sp.sqrt(Ps / rho) * beta
    k8 = Se * beta
    k9 = ve / (2 * Se)
    # (23) solved for X and multiplied through by beta: X = E + (K8 Ė + v_e ζ̇)/(K7 √(1 − 2ζ/Ps))
    b = k8 * e.diff(t) + ve * zeta.diff(t)
    radicand = 1 - 2 * zeta / Ps
    x_full = e + b / (k7 * sp.sqrt(radicand))
    return {
        "P_c": _plain(pc),
        "E": sp.expand(_plain(e)),
        "F_p": sp.expand(_plain(fp)),
        "zeta": sp.expand(_plain(zeta)),
        "A": sp.expand(_plain(e)),
        "B": sp.expand(_plain(b)),
        "C_radicand": sp.expand(_plain(radicand)),
        "X": _plain(x_full),
        "K7": k7,
        "K8": k8,
        "K9": k9,
    }


def _coefficient(expr: sp.Expr, term: sp.Expr) -> sp.Expr:
    return sp.simplify(sp.Poly(expr, *YD, *FD, COS, SIN).coeff_monomial(term))


def derived_coefficients() -> dict[str, sp.Expr]:
    """K-coefficients as derived, named like the paper's (B's sin/cos terms include K9)."""
    return dict(_derived_coefficients())


@lru_cache(maxsize=1)
def _derived_coefficients() -> dict[str, sp.Expr]:
    d = derivation()
    a, b, r, k8, k9 = d["A"], d["B"], d["C_radicand"], d["K8"], d["K9"]
    return {
        "K1": _coefficient(r, YD[3]),
        "K2m": _coefficient(r, YD[5]),
        "K2": _coefficient(r, FD[3]),
        "K3": _coefficient(r, COS),
        "K4m": _coefficient(r, YD[2] * COS),
        "K4": _coefficient(r, FD[0] * COS),
        "K7": d["K7"],
        "K8": k8,
        "K9": k9,
        "K10": _coefficient(a, YD[1]),
        "K11m": _coefficient(a, YD[3]),
        "K11": _coefficient(a, FD[1]),
        "K13": sp.simplify(_coefficient(b, YD[4]) / k9 - k8 * _coefficient(a, YD[3]) / k9),
        "K14m": sp.simplify(_coefficient(b, YD[6]) / k9),
        "K14": sp.simplify(_coefficient(b, FD[4]) / k9),
        "K16": sp.simplify(-_coefficient(b, SIN)),
        "K17m": sp.simplify(-_coefficient(b, YD[2] * SIN)),
        "K17": sp.simplify(-_coefficient(b, FD[0] * SIN)),
        "K18m": _coefficient(b, YD[3] * COS),
        "K18": _coefficient(b, FD[1] * COS),
    }


def paper_coefficients() -> dict[str, sp.Expr]:
    """K-coefficients as printed in the paper (read from the article's embedded MathType)."""
    return {
        "K1": me * Sc / (4 * Ps * Se * Sp * N * w),
        "K2m": me * vc * m / (8 * Ps * Se * beta * Sc * Sp * N * w),
        "K2": me * Sc / (8 * Ps * Se * beta * Sc * Sp * N * w),
        "K3": Sp / (2 * Se),
        "K4m": -Sp * m / (4 * Se * Sc * Ps),
        "K4": -Sp / (4 * Se * Sc * Ps),
        "K7": 2 * sp.pi * Cd * rtig * sp.sqrt(Ps / rho) * beta,
        "K8": Se * beta,
        "K9": ve / (2 * Se),
        "K10": Sc / (2 * Sp * N * w),
        "K11m": vc * m / (4 * beta * Sc * Sp * N * w),
        "K11": vc / (4 * beta * Sc * Sp * N * w),
        "K13": Sc * me / (2 * Sp * N * w),
        "K14m": vc * me * m / (4 * beta * Sc * Sp * N * w),  # printed with the label "K14"
        "K14": vc * me / (4 * beta * Sc * Sp * N * w),
        "K16": -Prp * Sp * w,
        "K17m": Sp * w * m / (2 * Sc),
        "K17": Sp * w / (2 * Sc),
        "K18m": Sp * m / (2 * Sc),
        "K18": Sp / (2 * Sc),
    }


NOTES = {
    "K1": "paper: half and opposite sign (used ζ/P_s for 2ζ/P_s)",
    "K2m": "paper: half and opposite sign; dropped in (25) (1/β)",
    "K2": "paper prints S_c for v_c; half and opposite sign; dropped in (25) (1/β)",
    "K3": "paper: half, and assumes P_rp = P_s",
    "K4m": "paper: half",
    "K4": "paper: half",
    "K14m": "paper labels it K14 (printed twice); dropped in (25) (1/β)",
    "K14": "K15 duplicates it; dropped in (25) (1/β)",
    "K16": "paper omits the factor K9 on the sin/cos terms of B",
    "K17m": "paper omits the factor K9",
    "K17": "paper omits the factor K9",
    "K18m": "paper omits the factor K9",
    "K18": "paper omits the factor K9",
}
"""Discrepancy notes; coefficients without an entry agree with the paper."""


def parameter_values(params: IEHAParams | None = None) -> dict[sp.Symbol, float]:
    """Table 1 values (SI) for the symbols; ω in rev/s (the reading of (8) taken)."""
    p = IEHAParams() if params is None else params
    return {
        me: p.carriage_mass,
        Sc: p.area_a,
        Se: p.carriage_area,
        Sp: p.piston_area,
        N: p.n_pistons,
        w: p.shaft_speed / (2.0 * math.pi),
        Ps: p.supply_pressure,
        beta: p.bulk_modulus,
        vc: p.chamber_volume_a,
        ve: p.carriage_volume,
        m: p.load_mass,
        Prp: p.pump_supply_pressure,
        Cd: p.discharge_coefficient,
        rtig: p.valve_radius,
        rho: p.density,
    }


def _leads_with_inverse_beta(coefficient: sp.Expr) -> bool:
    return sp.limit(coefficient, beta, sp.oo) == 0 and coefficient != 0


def reduced_model() -> dict[str, sp.Expr]:
    """(25): B_s and C_s radicand with every 1/β term dropped (A unchanged, as in the paper)."""
    d = derivation()
    keep = {}
    for name in ("B", "C_radicand"):
        poly = sp.Poly(d[name], *YD, *FD, COS, SIN)
        terms = [
            sp.Mul(c, *[g**e for g, e in zip(poly.gens, mono)])
            for mono, c in poly.terms()
            if not _leads_with_inverse_beta(c)
        ]
        keep[name] = sp.Add(*terms)
    return {"A": d["A"], "B_s": keep["B"], "C_s_radicand": keep["C_radicand"]}


def order_in_y(expr: sp.Expr) -> int:
    """Highest derivative order of Y present in ``expr``."""
    present = expr.free_symbols
    return max(k for k in range(7) if k == 0 or YD[k] in present)


def model_orders() -> tuple[int, int]:
    """(order of the full relation (24), order of the reduced one (25)): (6, 4) expected."""
    d = derivation()
    full = max(order_in_y(d["A"]), order_in_y(d["B"]), order_in_y(d["C_radicand"]))
    r = reduced_model()
    reduced = max(order_in_y(r["A"]), order_in_y(r["B_s"]), order_in_y(r["C_s_radicand"]))
    return full, reduced


def velocity_gain(params: IEHAParams | None = None) -> float:
    """1/K10 = 2 N S_p ω/S_c [1/s] (ω in rev/s): the gain K of G1 = K/(s …) implied by (19)
    (125.4 with Table 1; the paper identifies 115.4)."""
    return 1.0 / float(derived_coefficients()["K10"].subs(parameter_values(params)))


def coefficient_table(params: IEHAParams | None = None) -> list[dict]:
    """One row per coefficient: ``name``, ``derived`` (str), ``derived_value``, ``paper``
    (str), ``paper_value``, ``ratio`` (derived/paper), ``note`` (typo or reading). Values in SI
    with ω = 50 rev/s."""
    values = parameter_values(params)
    derived = derived_coefficients()
    paper = paper_coefficients()
    rows = []
    for name, expr in derived.items():
        dv = float(expr.subs(values))
        pv = float(paper[name].subs(values))
        rows.append(
            {
                "name": name,
                "derived": str(expr),
                "derived_value": dv,
                "paper": str(paper[name]),
                "paper_value": pv,
                "ratio": dv / pv if pv != 0 else math.nan,
                "note": NOTES.get(name, "agrees with the paper"),
            }
        )
    return rows

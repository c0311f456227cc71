/* TWIN of the compiled Python kernels of the quasistatic actuator: see quasistatic.h for which
 * file each function mirrors and tests/test_fmu_twins.py for the test that holds them equal. */
#include "quasistatic.h"

#include <math.h>

#define TINY 2.2250738585072014e-308 /* smallest normal double: 0/0 -> 0 without a branch */

/* max/min as Python's (and numba's) two-argument max/min: the first argument unless the
 * second is strictly greater (smaller). */
static double mx(double a, double b) { return b > a ? b : a; }
static double mn(double a, double b) { return b < a ? b : a; }

/* ---- numerics/nonsmooth.py --------------------------------------------------------------- */

double alab_s(double x) { return x * fabs(x); }

double alab_psi(double u1, double u2)
{
    double a = u1 * u1, b = u2 * u2;
    return a * b / mx(a + b, TINY);
}

double alab_proj(double x, double lo, double hi) { return mx(lo, mn(hi, x)); }

double alab_ldiv(double x, double a)
{
    if (a > 0.0) return x / mx(a, TINY);
    if (x > 0.0) return INFINITY;
    if (x < 0.0) return -INFINITY;
    return 0.0;
}

double alab_s_ldiv(double x, double a)
{
    if (a > 0.0) return alab_s(x) / a;
    if (x > 0.0) return INFINITY;
    if (x < 0.0) return -INFINITY;
    return 0.0;
}

double alab_phi_a(double b, double c, double a)
{
    double ac = fabs(c);
    double x = 2.0 * a * ac / mx(sqrt(a * a * b * b + 4.0 * a * ac) + a * b, TINY);
    return c > 0.0 ? -x : x;
}

double alab_phi_b(double b, double c, double a0, double a1, double x1)
{
    double g0, g1, p, q, r, d, den;
    if (a0 == 0.0) return 0.0;
    if (a1 == 0.0) return x1;
    g0 = a1 * c - alab_s(x1);
    g1 = alab_s(x1) + a0 * (b * x1 + c);
    if (g0 >= 0.0 && g1 >= 0.0) { /* case 1: smaller root of p x^2 + q x + r */
        p = a0 + a1;
        q = -a0 * (a1 * b + 2.0 * x1);
        r = a0 * (x1 * x1 - a1 * c);
        d = sqrt(mx(q * q - 4.0 * p * r, 0.0));
        if (q >= 0.0) return (-q - d) / (2.0 * p);
        return 2.0 * r / (-q + d);
    }
    if (g0 <= 0.0 && g1 <= 0.0) { /* case 2: larger root */
        p = a0 + a1;
        q = a0 * (a1 * b - 2.0 * x1);
        r = a0 * (x1 * x1 + a1 * c);
        d = sqrt(mx(q * q - 4.0 * p * r, 0.0));
        if (q <= 0.0) return (-q + d) / (2.0 * p);
        return 2.0 * r / (-q - d);
    }
    if (g1 <= 0.0) { /* case 3: x1 <= x <= 0 */
        q = a0 * (a1 * b - 2.0 * x1);
        r = a0 * (a1 * c + x1 * x1);
        d = sqrt(mx(q * q - 4.0 * (a0 - a1) * r, 0.0));
        den = q + d;
        return den > 0.0 ? -2.0 * r / den : 0.0;
    }
    /* case 4: 0 <= x <= x1 */
    q = a0 * (a1 * b + 2.0 * x1);
    r = a0 * (x1 * x1 - a1 * c);
    d = sqrt(mx(q * q + 4.0 * (a1 - a0) * r, 0.0));
    den = q + d;
    return den > 0.0 ? 2.0 * r / den : 0.0;
}

/* ---- numerics/roots.py: false position with Anderson-Bjorck and bisection safeguards ------ */

enum { ROOT_OK = 0, ROOT_NO_BRACKET = 1, ROOT_MAX_ITER = 2 };

typedef double (*root_fn)(double x, const void *args);

static double find_root(root_fn f, const void *args, double lo, double hi, double xtol, long max_iter,
                        int *status)
{
    double f_lo, f_hi, width, weight, x, f_x, scale, mid, f_mid;
    int hi_positive;
    long iteration;
    f_lo = f(lo, args);
    if (f_lo == 0.0) { *status = ROOT_OK; return lo; }
    f_hi = f(hi, args);
    if (f_hi == 0.0) { *status = ROOT_OK; return hi; }
    if ((f_lo > 0.0) == (f_hi > 0.0) || !(isfinite(f_lo) && isfinite(f_hi))) {
        *status = ROOT_NO_BRACKET;
        return NAN;
    }
    hi_positive = f_hi > 0.0;
    for (iteration = 1; iteration <= max_iter; iteration++) {
        width = hi - lo;
        if (width <= xtol) { *status = ROOT_OK; return 0.5 * (lo + hi); }
        weight = f_hi - f_lo;
        x = weight != 0.0 ? (lo * f_hi - hi * f_lo) / weight : lo;
        if (!(lo < x && x < hi)) x = 0.5 * (lo + hi);
        f_x = f(x, args);
        if (f_x == 0.0) { *status = ROOT_OK; return x; }
        if ((f_x > 0.0) == hi_positive) {
            scale = f_hi != 0.0 ? 1.0 - f_x / f_hi : 0.5;
            hi = x; f_hi = f_x;
            f_lo *= scale > 0.0 ? scale : 0.5;
        } else {
            scale = f_lo != 0.0 ? 1.0 - f_x / f_lo : 0.5;
            lo = x; f_lo = f_x;
            f_hi *= scale > 0.0 ? scale : 0.5;
        }
        if (hi - lo > 0.5 * width) {
            mid = 0.5 * (lo + hi);
            f_mid = f(mid, args);
            if (f_mid == 0.0) { *status = ROOT_OK; return mid; }
            if ((f_mid > 0.0) == hi_positive) { hi = mid; f_hi = f_mid; }
            else { lo = mid; f_lo = f_mid; }
        }
    }
    *status = ROOT_MAX_ITER;
    return 0.5 * (lo + hi);
}

/* ---- circuit.py: openings ---------------------------------------------------------------- */

void alab_opening_scales(const double *cp, double *k)
{
    double head = pow(cp[I_AH], -1.5), rod = pow(cp[I_AR], -1.5);
    k[J_PH] = cp[I_CPH] * head;
    k[J_TR] = cp[I_CTR] * rod;
    k[J_PR] = cp[I_CPR] * rod;
    k[J_TH] = cp[I_CTH] * head;
    k[J_B] = cp[I_CB] * 1.0;
    k[5] = cp[I_CA] * rod;
}

void alab_openings_scaled(const double *k, double u_c, double u_b, double *uh)
{
    double extend = mx(u_c, 0.0), retract = mx(-u_c, 0.0);
    uh[J_PH] = extend * k[J_PH];
    uh[J_TR] = extend * k[J_TR];
    uh[J_PR] = retract * k[J_PR];
    uh[J_TH] = retract * k[J_TH];
    uh[J_B] = u_b * k[J_B];
}

void alab_openings(const double *cp, double u_c, double u_b, double *uh)
{
    double k[N_SCALES];
    alab_opening_scales(cp, k);
    alab_openings_scaled(k, u_c, u_b, uh);
}

double alab_regeneration_opening(const double *cp, double u_a) { return cp[I_CA] * pow(cp[I_AR], -1.5) * u_a; }

/* ---- hydraulics/quasistatic/kernels.py ---------------------------------------------------- */

int alab_mode(const double *uh)
{
    if (uh[J_PH] > 0.0 || uh[J_TR] > 0.0) return MODE_EXTEND;
    if (uh[J_PR] > 0.0 || uh[J_TH] > 0.0) return MODE_RETRACT;
    return MODE_HOLD;
}

static void gamma_zero_at(const double *cp, const double *uh, double pump_cap, double *low, double *high)
{
    double fhm = cp[I_FHM], frm = cp[I_FRM];
    double gh_plus = uh[J_PH] > 0.0 ? mn(fhm, cp[I_AH] * pump_cap) : 0.0;
    double gr_plus = uh[J_TR] > 0.0 ? 0.0 : frm;
    double gh_minus = uh[J_TH] > 0.0 ? 0.0 : fhm;
    double gr_minus = uh[J_PR] > 0.0 ? mn(frm, cp[I_AR] * pump_cap) : 0.0;
    *low = gh_plus - gr_plus;
    *high = gh_minus - gr_minus;
}

void alab_gamma_zero(const double *cp, const double *uh, double *low, double *high)
{
    double bleed_pressure = alab_ldiv(cp[I_Q] * cp[I_Q], uh[J_B] * uh[J_B]);
    gamma_zero_at(cp, uh, mn(cp[I_PM], bleed_pressure), low, high);
}

static double head_plus(const double *cp, const double *uh, double pump_force, double v)
{
    return alab_proj(pump_force - alab_s_ldiv(v, uh[J_PH] * uh[J_PH]), 0.0, cp[I_FHM]);
}

double alab_rod_plus(const double *cp, const double *uh, double v)
{
    return alab_proj(alab_s_ldiv(v, uh[J_TR] * uh[J_TR]), 0.0, cp[I_FRM]);
}

double alab_head_minus(const double *cp, const double *uh, double v)
{
    return alab_proj(-alab_s_ldiv(v, uh[J_TH] * uh[J_TH]), 0.0, cp[I_FHM]);
}

double alab_rod_minus(const double *cp, const double *uh, double pump_force, double v)
{
    return alab_proj(pump_force + alab_s_ldiv(v, uh[J_PR] * uh[J_PR]), 0.0, cp[I_FRM]);
}

double alab_head_pump_force(const double *cp, const double *uh, double v)
{
    double ah = cp[I_AH];
    return mn(ah * cp[I_PM], -alab_ldiv(ah * ah * ah * alab_s(v - cp[I_Q] / ah), uh[J_B] * uh[J_B]));
}

double alab_rod_pump_force(const double *cp, const double *uh, double v)
{
    double ar = cp[I_AR];
    return mn(ar * cp[I_PM], alab_ldiv(ar * ar * ar * alab_s(v + cp[I_Q] / ar), uh[J_B] * uh[J_B]));
}

double alab_gamma_head_plus(const double *cp, const double *uh, double v)
{
    return head_plus(cp, uh, alab_head_pump_force(cp, uh, v), v);
}

double alab_gamma_minus(const double *cp, const double *uh, double v)
{
    return alab_head_minus(cp, uh, v) - alab_rod_minus(cp, uh, alab_rod_pump_force(cp, uh, v), v);
}

static double lam_plus(const double *cp, const double *uh, double impedance, double fbar)
{
    double ah = cp[I_AH], fhm = cp[I_FHM], frm = cp[I_FRM];
    double ph2 = uh[J_PH] * uh[J_PH], tr2 = uh[J_TR] * uh[J_TR];
    double series = alab_psi(uh[J_PH], uh[J_TR]);
    double pump = ah * cp[I_PM];
    double v0a = alab_phi_a(impedance, fbar - fhm, tr2);
    double v0b = (fhm - frm - fbar) / impedance;
    double v2a = alab_phi_a(impedance, fbar - pump, series);
    double v2b = alab_phi_a(impedance, fbar - pump + frm, ph2);
    double v3 = alab_phi_a(impedance, fbar, tr2);
    double vrm = (-frm - fbar) / impedance;
    double inner = mn(mx(v0a, v0b), mx(v2a, v2b));
    double bleed = uh[J_B] * uh[J_B] / (ah * ah * ah);
    double x1 = cp[I_Q] / ah;
    double v1a = alab_phi_b(impedance, fbar, series, bleed, x1);
    double v1b = alab_phi_b(impedance, fbar + frm, ph2, bleed, x1);
    inner = mn(inner, mx(v1a, v1b));
    return mx(mx(inner, v3), vrm);
}

static double lam_minus(const double *cp, const double *uh, double impedance, double fbar)
{
    double ar = cp[I_AR], fhm = cp[I_FHM], frm = cp[I_FRM];
    double pr2 = uh[J_PR] * uh[J_PR], th2 = uh[J_TH] * uh[J_TH];
    double series = alab_psi(uh[J_PR], uh[J_TH]);
    double pump = ar * cp[I_PM];
    double v0a = alab_phi_a(impedance, fbar + frm, th2);
    double v0b = (fhm - frm - fbar) / impedance;
    double v2a = alab_phi_a(impedance, fbar + pump, series);
    double v2b = alab_phi_a(impedance, fbar + pump - fhm, pr2);
    double v3 = alab_phi_a(impedance, fbar, th2);
    double vhm = (fhm - fbar) / impedance;
    double inner = mx(mn(v0a, v0b), mn(v2a, v2b));
    double bleed = uh[J_B] * uh[J_B] / (ar * ar * ar);
    double x1 = -cp[I_Q] / ar;
    double v1a = alab_phi_b(impedance, fbar, series, bleed, x1);
    double v1b = alab_phi_b(impedance, fbar - fhm, pr2, bleed, x1);
    inner = mx(inner, mn(v1a, v1b));
    return mn(mn(inner, v3), vhm);
}

double alab_lam(const double *cp, const double *uh, double impedance, double fbar)
{
    double low, high;
    alab_gamma_zero(cp, uh, &low, &high);
    if (fbar < low) {
        if (alab_mode(uh) == MODE_EXTEND) return lam_plus(cp, uh, impedance, fbar);
        return (-cp[I_FRM] - fbar) / impedance;
    }
    if (fbar > high) {
        if (alab_mode(uh) == MODE_RETRACT) return lam_minus(cp, uh, impedance, fbar);
        return (cp[I_FHM] - fbar) / impedance;
    }
    return 0.0;
}

void alab_relaxation_terms(double stiffness, double damping, double h, double p_prev, double l_prev, double l_now,
                           double *impedance, double *fbar)
{
    *impedance = damping + h * stiffness;
    *fbar = stiffness * (p_prev - l_now) - (damping / h) * (l_now - l_prev);
}

void alab_relaxed_step(const double *cp, const double *uh, double stiffness, double damping, double h,
                       double p_prev, double l_prev, double l_now, double *p, double *f, double *v)
{
    double impedance, fbar;
    alab_relaxation_terms(stiffness, damping, h, p_prev, l_prev, l_now, &impedance, &fbar);
    *v = alab_lam(cp, uh, impedance, fbar);
    *p = p_prev + h * *v;
    *f = fbar + impedance * *v;
}

void alab_chamber_forces(const double *cp, const double *uh, double v, double f, double *fh, double *fr)
{
    if (v > 0.0) {
        *fh = alab_gamma_head_plus(cp, uh, v);
        *fr = alab_rod_plus(cp, uh, v);
    } else if (v < 0.0) {
        *fh = alab_head_minus(cp, uh, v);
        *fr = alab_rod_minus(cp, uh, alab_rod_pump_force(cp, uh, v), v);
    } else {
        *fh = mx(f, 0.0);
        *fr = mx(-f, 0.0);
    }
}

/* ---- hydraulics/quasistatic/regeneration.py ---------------------------------------------- */

#define RELATIVE_TOLERANCE 1e-10
#define FORCE_FLOOR 1e-7
#define ROOT_RTOL 1e-15
#define ROOT_CAP 200
#define MAX_ALTERNATIONS 10000

void alab_regenerated_chamber_forces(const double *cp, const double *uh, double v, double va, double *fh,
                                     double *fr)
{
    *fh = alab_gamma_head_plus(cp, uh, v - cp[I_AR] / cp[I_AH] * va);
    *fr = alab_rod_plus(cp, uh, v - va);
}

typedef struct {
    const double *cp, *uh;
    double ua_hat, v, impedance, fbar, va;
} reg_args;

static double xi_v(double va, const void *raw)
{
    const reg_args *a = (const reg_args *)raw;
    double head, rod;
    alab_regenerated_chamber_forces(a->cp, a->uh, a->v, va, &head, &rod);
    return alab_s(va) - a->ua_hat * a->ua_hat * (rod - a->cp[I_AR] / a->cp[I_AH] * head);
}

static double xi_f(double v, const void *raw)
{
    const reg_args *a = (const reg_args *)raw;
    double head, rod;
    alab_regenerated_chamber_forces(a->cp, a->uh, v, a->va, &head, &rod);
    return a->impedance * v + a->fbar - (head - rod);
}

static int regenerates(const double *cp, const double *uh, double ua_hat, double v)
{
    reg_args a;
    if (!(ua_hat > 0.0 && uh[J_TR] > 0.0 && v > 0.0)) return 0;
    a.cp = cp; a.uh = uh; a.ua_hat = ua_hat; a.v = v; a.impedance = 0.0; a.fbar = 0.0; a.va = 0.0;
    return xi_v(0.0, &a) < 0.0;
}

static int head_force_jumps(const double *cp, const double *uh)
{
    return uh[J_B] == 0.0 && uh[J_PH] > 0.0 && cp[I_Q] > 0.0;
}

int alab_regeneration_velocity(const double *cp, const double *uh, double ua_hat, double v, double *va)
{
    reg_args a;
    int status;
    *va = 0.0;
    if (!regenerates(cp, uh, ua_hat, v)) return REG_OK;
    if (head_force_jumps(cp, uh)) return REG_CLOSED_BLEED;
    a.cp = cp; a.uh = uh; a.ua_hat = ua_hat; a.v = v; a.impedance = 0.0; a.fbar = 0.0; a.va = 0.0;
    *va = find_root(xi_v, &a, 0.0, v, ROOT_RTOL * v, ROOT_CAP, &status);
    return status == ROOT_OK ? REG_OK : REG_ROOT_FAILED;
}

static int alternation(const double *cp, const double *uh, double ua_hat, double impedance, double fbar, double v,
                       long max_iter, double *v_out, double *va_out, long *alternations)
{
    double eps_v_per_f = cp[I_AR] / cp[I_AH] * ua_hat * ua_hat;
    double v_top = (cp[I_FHM] - fbar) / impedance;
    double va = 0.0, eps_f;
    long k;
    int status;
    reg_args a;
    a.cp = cp; a.uh = uh; a.ua_hat = ua_hat; a.impedance = impedance; a.fbar = fbar;
    for (k = 1; k <= max_iter; k++) {
        eps_f = mx(RELATIVE_TOLERANCE * impedance * v, FORCE_FLOOR);
        a.v = v;
        va = find_root(xi_v, &a, va, v, ROOT_RTOL * v, ROOT_CAP, &status);
        if (status != ROOT_OK) { *v_out = v; *va_out = va; *alternations = k; return REG_ROOT_FAILED; }
        a.va = va;
        if (xi_f(v, &a) > -eps_f) { *v_out = v; *va_out = va; *alternations = k; return REG_OK; }
        v = find_root(xi_f, &a, v, v_top, ROOT_RTOL * v, ROOT_CAP, &status);
        if (status != ROOT_OK) { *v_out = v; *va_out = va; *alternations = k; return REG_ROOT_FAILED; }
        a.v = v;
        if (xi_v(va, &a) > -eps_v_per_f * eps_f) { *v_out = v; *va_out = va; *alternations = k; return REG_OK; }
    }
    *v_out = v; *va_out = va; *alternations = max_iter;
    return REG_MAX_ITER;
}

int alab_lam_regeneration(const double *cp, const double *uh, double ua_hat, double impedance, double fbar,
                          long max_iter, double *v, double *va, long *alternations)
{
    *v = alab_lam(cp, uh, impedance, fbar);
    *va = 0.0;
    *alternations = 0;
    if (!regenerates(cp, uh, ua_hat, *v)) return REG_OK;
    if (head_force_jumps(cp, uh)) return REG_CLOSED_BLEED;
    return alternation(cp, uh, ua_hat, impedance, fbar, *v, max_iter, v, va, alternations);
}

int alab_relaxed_regeneration_step(const double *cp, const double *uh, double ua_hat, double stiffness,
                                   double damping, double h, double p_prev, double l_prev, double l_now,
                                   double *p, double *f, double *v)
{
    double impedance, fbar, va;
    long alternations;
    int status;
    alab_relaxation_terms(stiffness, damping, h, p_prev, l_prev, l_now, &impedance, &fbar);
    status = alab_lam_regeneration(cp, uh, ua_hat, impedance, fbar, MAX_ALTERNATIONS, v, &va, &alternations);
    *p = p_prev + h * *v;
    *f = fbar + impedance * *v;
    return status;
}

/* ---- the pump line (twin: actuatorlab/hydraulics/quasistatic/pump_line.py) ---------------------------------- */

void alab_pump_line(const double *cp, const double *uh, double c_ph_u, double c_pr_u, double v, double va,
                    double fh, double fr, double *pump, double *q_p, double *q_b, double *q_pm)
{
    int mode = alab_mode(uh);
    double q = cp[I_Q], g;
    if (mode == MODE_EXTEND && v > 0.0) {
        double vh = v - cp[I_AR] / cp[I_AH] * va;
        if (fh > 0.0) { /* the head is fed through ph at the pump-side force (57) */
            *pump = alab_head_pump_force(cp, uh, vh) / cp[I_AH];
            *q_p = cp[I_AH] * vh;
        } else { /* the head cavitates: pump flow splits between ph (head at tank) and the bleed */
            g = uh[J_B] + c_ph_u;
            g = g > 0.0 ? q / g : INFINITY; /* g = 0 only for subnormal openings */
            *pump = mn(cp[I_PM], g * g);
            *q_p = c_ph_u * sqrt(*pump);
        }
    } else if (mode == MODE_RETRACT && v < 0.0) {
        if (fr > 0.0) {
            *pump = alab_rod_pump_force(cp, uh, v) / cp[I_AR];
            *q_p = -cp[I_AR] * v;
        } else {
            g = uh[J_B] + c_pr_u;
            g = g > 0.0 ? q / g : INFINITY;
            *pump = mn(cp[I_PM], g * g);
            *q_p = c_pr_u * sqrt(*pump);
        }
    } else { /* no flow to the cylinder: the bleed and the relief take Q (46) */
        *pump = mn(cp[I_PM], alab_ldiv(q * q, uh[J_B] * uh[J_B]));
        *q_p = 0.0;
    }
    *q_b = uh[J_B] * sqrt(mx(*pump, 0.0));
    *q_pm = mx(q - *q_p - *q_b, 0.0);
}

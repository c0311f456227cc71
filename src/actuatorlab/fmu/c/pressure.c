/* TWIN of hydraulics/pressure_dynamics.py: see pressure.h. */
#include "pressure.h"

#include <math.h>

#include "quasistatic.h"

static void orifice_flow(double k, double dp, double eps, double *q, double *d)
{
    double r2 = dp * dp + eps * eps;
    double root4 = sqrt(sqrt(r2));
    *q = k * dp / root4;
    *d = k * (0.5 * dp * dp + eps * eps) / (r2 * root4);
}

static void check_valve_flow(double k, double dp, double eps, double *q, double *d)
{
    if (dp <= 0.0 || k == 0.0) {
        *q = 0.0;
        *d = 0.0;
        return;
    }
    orifice_flow(k, dp, eps, q, d);
}

static void relief(double gain, double p, double crack, double *q, double *d)
{
    if (p > crack) { *q = gain * (p - crack); *d = gain; }
    else { *q = 0.0; *d = 0.0; }
}

static void suction(double gain, double p, double *q, double *d)
{
    if (p < 0.0) { *q = -gain * p; *d = -gain; }
    else { *q = 0.0; *d = 0.0; }
}

double alab_chamber_rates(const double *cp, const double *hp, const double *u, double x, double xdot, double ph,
                          double pr, double pump, double *rates, double *partials, double *dq_ph, double *dq_pr,
                          double *dq_p)
{
    double bulk_modulus = hp[H_BULK_MODULUS], eps = hp[H_EPS], g_rel = hp[H_GRELIEF], g_chk = hp[H_GCHECK];
    double ah = cp[I_AH], ar = cp[I_AR];
    double vh = hp[H_VH0] + ah * x;
    double vr = hp[H_VR0] + ar * (hp[H_STROKE] - x);
    double q_ph, d_ph, q_pr, d_pr, q_th, d_th, q_tr, d_tr, q_a, d_a, q_hm, d_hm, q_rm, d_rm, q_hs, d_hs, q_rs, d_rs;
    double kh, kr;
    double *p0 = partials, *p1 = partials + N_D;
    check_valve_flow(cp[I_CPH] * u[U_PH], pump - ph, eps, &q_ph, &d_ph);
    check_valve_flow(cp[I_CPR] * u[U_PR], pump - pr, eps, &q_pr, &d_pr);
    orifice_flow(cp[I_CTH] * u[U_TH], ph, eps, &q_th, &d_th);
    orifice_flow(cp[I_CTR] * u[U_TR], pr, eps, &q_tr, &d_tr);
    check_valve_flow(cp[I_CA] * u[U_A], pr - ph, eps, &q_a, &d_a);
    relief(g_rel, ph, cp[I_FHM] / ah, &q_hm, &d_hm);
    relief(g_rel, pr, cp[I_FRM] / ar, &q_rm, &d_rm);
    suction(g_chk, ph, &q_hs, &d_hs);
    suction(g_chk, pr, &q_rs, &d_rs);
    kh = bulk_modulus / vh;
    kr = bulk_modulus / vr;
    rates[0] = kh * (q_ph - q_th - q_hm + q_hs + q_a - ah * xdot);
    rates[1] = kr * (q_pr - q_tr - q_rm + q_rs - q_a + ar * xdot);
    p0[D_X] = -rates[0] * ah / vh;
    p0[D_XDOT] = -kh * ah;
    p0[D_PH] = kh * (-d_ph - d_th - d_hm + d_hs - d_a);
    p0[D_PR] = kh * d_a;
    p0[D_P] = kh * d_ph;
    p1[D_X] = rates[1] * ar / vr;
    p1[D_XDOT] = kr * ar;
    p1[D_PH] = kr * d_a;
    p1[D_PR] = kr * (-d_pr - d_tr - d_rm + d_rs - d_a);
    p1[D_P] = kr * d_pr;
    *dq_ph = -d_ph;
    *dq_pr = -d_pr;
    *dq_p = d_ph + d_pr;
    return q_ph + q_pr;
}

void alab_pump_line_rate(const double *cp, const double *hp, double u_b, double pump, double draw, double *rate,
                         double *d_rate)
{
    double eps = hp[H_EPS], q_b, d_b, q_pm, d_pm, q_ps, d_ps, kp;
    orifice_flow(cp[I_CB] * u_b, pump, eps, &q_b, &d_b);
    relief(hp[H_GRELIEF], pump, cp[I_PM], &q_pm, &d_pm);
    suction(hp[H_GCHECK], pump, &q_ps, &d_ps);
    kp = hp[H_BULK_MODULUS] / hp[H_VP];
    *rate = kp * (cp[I_Q] - q_b - q_pm + q_ps - draw);
    *d_rate = kp * (-d_b - d_pm + d_ps);
}

void alab_holding_pressures(const double *cp, double force, double low, double *ph, double *pr)
{
    if (force >= 0.0) {
        *ph = (force + cp[I_AR] * low) / cp[I_AH];
        *pr = low;
    } else {
        *ph = low;
        *pr = (cp[I_AH] * low - force) / cp[I_AR];
    }
}

double alab_idle_pump_pressure(const double *cp, double u_b)
{
    double bleed = cp[I_CB] * u_b, ratio;
    if (bleed <= 0.0) return cp[I_PM];
    ratio = cp[I_Q] / bleed;
    return fmin(cp[I_PM], ratio * ratio);
}

void alab_pressure_flows(const double *cp, const double *hp, const double *u, double ph, double pr, double pump,
                         alab_flows *q)
{
    double eps = hp[H_EPS], d;
    check_valve_flow(cp[I_CPH] * u[U_PH], pump - ph, eps, &q->ph, &d);
    check_valve_flow(cp[I_CPR] * u[U_PR], pump - pr, eps, &q->pr, &d);
    orifice_flow(cp[I_CTH] * u[U_TH], ph, eps, &q->th, &d);
    orifice_flow(cp[I_CTR] * u[U_TR], pr, eps, &q->tr, &d);
    check_valve_flow(cp[I_CA] * u[U_A], pr - ph, eps, &q->a, &d);
    relief(hp[H_GRELIEF], ph, cp[I_FHM] / cp[I_AH], &q->hm, &d);
    relief(hp[H_GRELIEF], pr, cp[I_FRM] / cp[I_AR], &q->rm, &d);
    suction(hp[H_GCHECK], ph, &q->hs, &d);
    suction(hp[H_GCHECK], pr, &q->rs, &d);
    orifice_flow(cp[I_CB] * u[U_B], pump, eps, &q->b, &d);
    relief(hp[H_GRELIEF], pump, cp[I_PM], &q->pm, &d);
    suction(hp[H_GCHECK], pump, &q->ps, &d);
}

/* The pressure-dynamics cylinder of the same circuit as a co-simulation model
 * (hydraulics/pressure_dynamics.py): states p_h, p_r (chambers) and P (pump line); the piston
 * follows the master's mechanics, x = l - l0 and dx/dt = dl/dt.
 *
 * doStep(t, h) integrates the three pressures over [t, t + h] with the piston moving at the input
 * rate from the input length, x(tau) = l - l0 + (dl/dt)(tau - t), and the openings held: TR-BDF2
 * (trapezoidal stage to gamma h, then BDF2; second order, L-stable, so stable at any step for the
 * stiff oil columns), each stage a Newton solve with the analytic Jacobian of pressure.c, in
 * substeps no longer than max_substep. A stage that does not converge is retried with half the
 * substep (down to 1/256 of it). The outputs are those of the state at t + h.
 *
 * Initial state: the chambers hold initial_force (the less loaded one at initial_low_pressure), the
 * pump line at its idle pressure, as simulation/pressure_arm.py starts an arm. */
#include "instance.h"
#include "pressure.h"
#include "quasistatic.h"

#include <math.h>
#include <string.h>

enum { Y_PH = 0, Y_PR, Y_P, X_X, X_XDOT, X_UC, X_UB, X_UA };
#define D_CP 0
#define D_HP N_CIRCUIT
#define GAMMA (2.0 - 1.4142135623730951)
#define NEWTON_MAX 30
#define NEWTON_RTOL 1e-10
#define PRESSURE_FLOOR 1e3 /* Pa: the absolute part of the Newton test */
#define MAX_HALVINGS 8

#define R(name) (inst->s.r[VR_##name])

int model_check(alab_instance *inst)
{
    double *cp = inst->s.derived + D_CP, *hp = inst->s.derived + D_HP;
    int status = alab_circuit_vector(inst, cp);
    if (status != ALAB_OK)
        return status;
    hp[H_BULK_MODULUS] = R(PRESSURE_DYNAMICS_BULK_MODULUS);
    hp[H_VH0] = R(PRESSURE_DYNAMICS_HEAD_DEAD_VOLUME);
    hp[H_VR0] = R(PRESSURE_DYNAMICS_ROD_DEAD_VOLUME);
    hp[H_STROKE] = R(CYLINDER_STROKE);
    hp[H_VP] = R(PRESSURE_DYNAMICS_PUMP_LINE_VOLUME);
    hp[H_EPS] = R(PRESSURE_DYNAMICS_LAMINAR_PRESSURE);
    hp[H_GRELIEF] = R(PRESSURE_DYNAMICS_RELIEF_FLOW_GAIN);
    hp[H_GCHECK] = R(PRESSURE_DYNAMICS_CHECK_FLOW_GAIN);
    hp[H_L0] = R(CYLINDER_RETRACTED_LENGTH);
    return ALAB_OK;
}

static void raw_openings(double u_c, double u_b, double u_a, double *u)
{
    u[U_PH] = u[U_TR] = fmax(u_c, 0.0);
    u[U_PR] = u[U_TH] = fmax(-u_c, 0.0);
    u[U_B] = u_b;
    u[U_A] = u_a;
}

static int check_travel(alab_instance *inst, double t, double x)
{
    double stroke = inst->s.derived[D_HP + H_STROKE];
    if (!(x >= 0.0 && x <= stroke))
        return alab_fail(inst, ALAB_ERROR, "t = %g s: the piston position x = length - cylinder.retracted_length = %g m "
                         "leaves the stroke [0, %g] m (the model has no end stops): keep the master's length within "
                         "[%g, %g] m", t, x, stroke, inst->s.derived[D_HP + H_L0],
                         inst->s.derived[D_HP + H_L0] + stroke);
    return ALAB_OK;
}

int model_start(alab_instance *inst)
{
    const double *cp = inst->s.derived + D_CP;
    double *y = inst->s.x;
    int status = check_travel(inst, inst->s.time, R(LENGTH) - R(CYLINDER_RETRACTED_LENGTH));
    if (status != ALAB_OK) return status;
    alab_holding_pressures(cp, R(INITIAL_FORCE), R(INITIAL_LOW_PRESSURE), &y[Y_PH], &y[Y_PR]);
    y[Y_P] = alab_idle_pump_pressure(cp, R(BLEED));
    y[X_X] = R(LENGTH) - R(CYLINDER_RETRACTED_LENGTH);
    y[X_XDOT] = R(LENGTH_RATE);
    y[X_UC] = R(VALVE_COMMAND);
    y[X_UB] = R(BLEED);
    y[X_UA] = R(REGENERATION);
    return ALAB_OK;
}

/* f(y) and its Jacobian at piston position x, rate xdot */
static void rhs(const double *cp, const double *hp, const double *u, double x, double xdot, const double *y,
                double *f, double jac[3][3])
{
    double partials[2 * N_D], dq_ph, dq_pr, dq_p, draw, d_pump, kp = hp[H_BULK_MODULUS] / hp[H_VP];
    draw = alab_chamber_rates(cp, hp, u, x, xdot, y[0], y[1], y[2], f, partials, &dq_ph, &dq_pr, &dq_p);
    alab_pump_line_rate(cp, hp, u[U_B], y[2], draw, &f[2], &d_pump);
    if (jac == NULL) return;
    jac[0][0] = partials[D_PH]; jac[0][1] = partials[D_PR]; jac[0][2] = partials[D_P];
    jac[1][0] = partials[N_D + D_PH]; jac[1][1] = partials[N_D + D_PR]; jac[1][2] = partials[N_D + D_P];
    jac[2][0] = -kp * dq_ph; jac[2][1] = -kp * dq_pr; jac[2][2] = -kp * dq_p + d_pump;
}

/* solve a 3x3 system by Gaussian elimination with partial pivoting; 0 if singular */
static int solve3(double a[3][3], double *b)
{
    int i, j, k, p;
    double t;
    for (k = 0; k < 3; k++) {
        p = k;
        for (i = k + 1; i < 3; i++)
            if (fabs(a[i][k]) > fabs(a[p][k])) p = i;
        if (!(fabs(a[p][k]) > 0.0)) return 0;
        if (p != k) {
            for (j = 0; j < 3; j++) { t = a[k][j]; a[k][j] = a[p][j]; a[p][j] = t; }
            t = b[k]; b[k] = b[p]; b[p] = t;
        }
        for (i = k + 1; i < 3; i++) {
            t = a[i][k] / a[k][k];
            for (j = k; j < 3; j++) a[i][j] -= t * a[k][j];
            b[i] -= t * b[k];
        }
    }
    for (k = 2; k >= 0; k--) {
        for (j = k + 1; j < 3; j++) b[k] -= a[k][j] * b[j];
        b[k] /= a[k][k];
    }
    return 1;
}

/* z = r + c f(z) by Newton from z (the guess); 1 on convergence */
static int implicit_stage(const double *cp, const double *hp, const double *u, double x, double xdot, double c,
                          const double *r, double *z)
{
    double f[3], jac[3][3], g[3];
    int it, i, j, converged;
    for (it = 0; it < NEWTON_MAX; it++) {
        rhs(cp, hp, u, x, xdot, z, f, jac);
        for (i = 0; i < 3; i++) {
            g[i] = -(z[i] - r[i] - c * f[i]);
            for (j = 0; j < 3; j++) jac[i][j] = (i == j ? 1.0 : 0.0) - c * jac[i][j];
        }
        if (!solve3(jac, g)) return 0;
        converged = 1;
        for (i = 0; i < 3; i++) {
            z[i] += g[i];
            if (!isfinite(z[i])) return 0;
            if (fabs(g[i]) > NEWTON_RTOL * (fabs(z[i]) + PRESSURE_FLOOR)) converged = 0;
        }
        if (converged) return 1;
    }
    return 0;
}

/* one TR-BDF2 step of size h from y at piston position x (rate xdot); 1 on success */
static int trbdf2(const double *cp, const double *hp, const double *u, double x, double xdot, double h, double *y)
{
    double f0[3], r[3], yg[3], yn[3];
    double a = GAMMA * h / 2.0, w = 1.0 / (GAMMA * (2.0 - GAMMA)), b = (1.0 - GAMMA) * (1.0 - GAMMA);
    int i;
    rhs(cp, hp, u, x, xdot, y, f0, NULL);
    for (i = 0; i < 3; i++) {
        r[i] = y[i] + a * f0[i];
        yg[i] = y[i] + GAMMA * h * f0[i];
    }
    if (!implicit_stage(cp, hp, u, x + xdot * GAMMA * h, xdot, a, r, yg)) return 0;
    for (i = 0; i < 3; i++) {
        r[i] = w * (yg[i] - b * y[i]);
        yn[i] = yg[i] + (yg[i] - y[i]) * (1.0 - GAMMA) / GAMMA; /* extrapolated guess */
    }
    if (!implicit_stage(cp, hp, u, x + xdot * h, xdot, (1.0 - GAMMA) / (2.0 - GAMMA) * h, r, yn)) return 0;
    memcpy(y, yn, sizeof yn);
    return 1;
}

void model_outputs(alab_instance *inst)
{
    const double *cp = inst->s.derived + D_CP, *hp = inst->s.derived + D_HP, *y = inst->s.x;
    double u[N_RAW];
    alab_flows q;
    raw_openings(y[X_UC], y[X_UB], y[X_UA], u);
    alab_pressure_flows(cp, hp, u, y[Y_PH], y[Y_PR], y[Y_P], &q);
    R(FORCE) = cp[I_AH] * y[Y_PH] - cp[I_AR] * y[Y_PR];
    R(ROD_POSITION) = y[X_X];
    R(ROD_VELOCITY) = y[X_XDOT];
    R(HEAD_PRESSURE) = y[Y_PH];
    R(ROD_PRESSURE) = y[Y_PR];
    R(PUMP_PRESSURE) = y[Y_P];
    R(SUPPLY_FLOW) = q.ph + q.pr;
    R(BLEED_FLOW) = q.b;
    R(RELIEF_FLOW) = q.pm;
    R(REGENERATION_FLOW) = q.a;
}

int model_step(alab_instance *inst, double t, double h)
{
    const double *cp = inst->s.derived + D_CP, *hp = inst->s.derived + D_HP;
    double *s = inst->s.x;
    double u[N_RAW], y[3], trial[3], x0 = R(LENGTH) - R(CYLINDER_RETRACTED_LENGTH), xdot = R(LENGTH_RATE);
    double done = 0.0, sub, max_sub = R(MAX_SUBSTEP);
    long n;
    int halvings = 0, status, i;
    status = check_travel(inst, t, x0);
    if (status == ALAB_OK) status = check_travel(inst, t + h, x0 + xdot * h);
    if (status != ALAB_OK) return status;
    raw_openings(R(VALVE_COMMAND), R(BLEED), R(REGENERATION), u);
    y[0] = s[Y_PH]; y[1] = s[Y_PR]; y[2] = s[Y_P];
    n = (long)ceil(h / max_sub);
    sub = h / (double)n;
    while (done < h) {
        double this_step = fmin(sub, h - done);
        if (h - done - this_step < 1e-12 * h) this_step = h - done;
        memcpy(trial, y, sizeof y);
        if (trbdf2(cp, hp, u, x0 + xdot * done, xdot, this_step, trial)) {
            memcpy(y, trial, sizeof y);
            done += this_step;
            continue;
        }
        if (++halvings > MAX_HALVINGS)
            return alab_fail(inst, ALAB_ERROR, "t = %g s: the implicit pressure step did not converge even at a "
                             "substep of %g s (p_h = %g Pa, p_r = %g Pa, P = %g Pa): check the parameters and "
                             "inputs, or lower max_substep", t + done, this_step, y[0], y[1], y[2]);
        sub = this_step / 2.0;
    }
    for (i = 0; i < 3; i++)
        if (!isfinite(y[i]))
            return alab_fail(inst, ALAB_ERROR, "t = %g s: non-finite pressure", t + h);
    s[Y_PH] = y[0]; s[Y_PR] = y[1]; s[Y_P] = y[2];
    s[X_X] = x0 + xdot * h;
    s[X_XDOT] = xdot;
    s[X_UC] = R(VALVE_COMMAND);
    s[X_UB] = R(BLEED);
    s[X_UA] = R(REGENERATION);
    model_outputs(inst);
    return ALAB_OK;
}

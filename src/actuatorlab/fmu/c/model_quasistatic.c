/* The relaxed quasistatic actuator as a co-simulation model: one step of algorithm (72) per
 * communication step (Kikuuwe et al. Sec. 4.1), with Lambda_reg (105) while the regeneration valve
 * is open (Sec. 5), exactly as the arm loop of actuatorlab (simulation/arm.py) takes it:
 *
 *   impedance = B + hK,  fbar = K(p_{k-1} - l_k) - (B/h)(l_k - l_{k-1}),  v = Lambda(impedance, fbar),
 *   p_k = p_{k-1} + h v,  f_k = fbar + impedance v,
 *
 * with h the communication step, l_k the input length at this doStep and (p_{k-1}, l_{k-1}) kept
 * from the previous one; with length_rate_from_input the damper reads the input rate instead,
 * fbar = K(p_{k-1} - l_k) - B dl/dt (backward Euler on the ODE (70)). At the end of initialization
 * the virtual element is unstretched: p = l (the paper's p(0) = l(0)). */
#include "instance.h"
#include "quasistatic.h"

#include <math.h>

/* the model's state x[] */
enum { X_P = 0, X_L, X_V, X_F, X_VA, X_UC, X_UB, X_UA };
#define MAX_ALTERNATIONS 10000
/* derived[]: the circuit vector, then the opening scales */
#define D_SCALES N_CIRCUIT

#define R(name) (inst->s.r[VR_##name])

int model_check(alab_instance *inst)
{
    double *cp = inst->s.derived;
    int status = alab_circuit_vector(inst, cp);
    if (status != ALAB_OK)
        return status;
    alab_opening_scales(cp, inst->s.derived + D_SCALES);
    return ALAB_OK;
}

int model_start(alab_instance *inst)
{
    double *x = inst->s.x;
    if (!(R(LENGTH) > 0.0 && isfinite(R(LENGTH))))
        return alab_fail(inst, ALAB_ERROR, "length = %g m: the cylinder length must be finite and > 0", R(LENGTH));
    x[X_P] = R(LENGTH);
    x[X_L] = R(LENGTH);
    x[X_V] = 0.0;
    x[X_F] = 0.0;
    x[X_VA] = 0.0;
    x[X_UC] = R(VALVE_COMMAND);
    x[X_UB] = R(BLEED);
    x[X_UA] = R(REGENERATION);
    return ALAB_OK;
}

void model_outputs(alab_instance *inst)
{
    const double *cp = inst->s.derived;
    const double *x = inst->s.x;
    double uh[N_OPEN], fh, fr, va = 0.0, pump, q_p, q_b, q_pm;
    const double *k = inst->s.derived + D_SCALES;
    double ua_hat = k[5] * x[X_UA];
    alab_openings_scaled(k, x[X_UC], x[X_UB], uh);
    /* as hydraulics/quasistatic/chambers.py does along a recorded run */
    if (x[X_V] != 0.0 && ua_hat > 0.0 && x[X_V] > 0.0) {
        alab_regeneration_velocity(cp, uh, ua_hat, x[X_V], &va);
        alab_regenerated_chamber_forces(cp, uh, x[X_V], va, &fh, &fr);
    } else {
        alab_chamber_forces(cp, uh, x[X_V], x[X_F], &fh, &fr);
    }
    alab_pump_line(cp, uh, cp[I_CPH] * fmax(x[X_UC], 0.0), cp[I_CPR] * fmax(-x[X_UC], 0.0), x[X_V], va, fh, fr,
                   &pump, &q_p, &q_b, &q_pm);
    R(FORCE) = x[X_F];
    R(ROD_POSITION) = x[X_P];
    R(STRETCH) = x[X_P] - x[X_L];
    R(ROD_VELOCITY) = x[X_V];
    R(HEAD_PRESSURE) = fh / cp[I_AH];
    R(ROD_PRESSURE) = fr / cp[I_AR];
    R(PUMP_PRESSURE) = pump;
    R(SUPPLY_FLOW) = q_p;
    R(BLEED_FLOW) = q_b;
    R(RELIEF_FLOW) = q_pm;
    R(REGENERATION_FLOW) = cp[I_AR] * va;
}

int model_step(alab_instance *inst, double t, double h)
{
    const double *cp = inst->s.derived;
    double *x = inst->s.x;
    double uh[N_OPEN], ua_hat, impedance, fbar, v, va, p, f;
    double stiffness = R(RELAXATION_STIFFNESS), damping = R(RELAXATION_DAMPING), l_now = R(LENGTH);
    long alternations;
    int status;
    const double *k = inst->s.derived + D_SCALES;
    alab_openings_scaled(k, R(VALVE_COMMAND), R(BLEED), uh);
    ua_hat = k[5] * R(REGENERATION);
    if (inst->s.b[VR_LENGTH_RATE_FROM_INPUT - N_FLOAT64]) {
        impedance = damping + h * stiffness;
        fbar = stiffness * (x[X_P] - l_now) - damping * R(LENGTH_RATE);
    } else {
        alab_relaxation_terms(stiffness, damping, h, x[X_P], x[X_L], l_now, &impedance, &fbar);
    }
    status = alab_lam_regeneration(cp, uh, ua_hat, impedance, fbar, MAX_ALTERNATIONS, &v, &va, &alternations);
    p = x[X_P] + h * v;
    f = fbar + impedance * v;
    if (status == REG_CLOSED_BLEED)
        return alab_fail(inst, ALAB_ERROR, "t = %g s: the regeneration valve (regeneration = %g) would carry flow with "
                         "the bleed closed (bleed = 0) and the extend valves open, which the model does not cover "
                         "(Kikuuwe et al. Sec. 5): open the bleed a little or close the regeneration valve",
                         t, R(REGENERATION));
    if (status != REG_OK)
        return alab_fail(inst, ALAB_ERROR, "t = %g s: the regeneration root search (105) did not converge (%s) at "
                         "impedance = %g N s/m, fbar = %g N: open the bleed or the meter-out valve wider or close the "
                         "regeneration valve", t, status == REG_MAX_ITER ? "alternation cap" : "no bracket",
                         impedance, fbar);
    if (!(isfinite(p) && isfinite(f) && isfinite(v)))
        return alab_fail(inst, ALAB_ERROR, "t = %g s: non-finite state (p = %g m, f = %g N) from length = %g m, "
                         "step %g s: give finite inputs of physical size", t, p, f, l_now, h);
    if (fabs(p - l_now) > R(MAX_STRETCH))
        return alab_fail(inst, ALAB_ERROR, "t = %g s: the relaxed stretch |p - l| = %g m exceeds max_stretch = %g m "
                         "(the master's length jumped by %g m in %g s, or the coupling diverged): reduce the "
                         "communication step or relaxation.stiffness", t, fabs(p - l_now), R(MAX_STRETCH),
                         l_now - x[X_L], h);
    x[X_P] = p;
    x[X_L] = l_now;
    x[X_V] = v;
    x[X_F] = f;
    x[X_UC] = R(VALVE_COMMAND);
    x[X_UB] = R(BLEED);
    x[X_UA] = R(REGENERATION);
    model_outputs(inst);
    return ALAB_OK;
}

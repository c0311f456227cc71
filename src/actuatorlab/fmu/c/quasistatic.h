/* Quasistatic actuator of Kikuuwe et al. ("Nonsmooth quasistatic modeling of hydraulic
 * actuators"): the four-valve circuit (66), Gamma (61)-(65), Lambda (73)-(74), the relaxed step
 * (72) and the regeneration valve of Sec. 5 (98)-(105).
 *
 * TWIN: this file is the C twin of the compiled Python kernels of actuatorlab:
 *   numerics/nonsmooth.py, numerics/roots.py, hydraulics/quasistatic/kernels.py,
 *   hydraulics/quasistatic/regeneration.py (and the openings of circuit.py).
 * Every function below mirrors one of them, operation for operation, so that both give the
 * same numbers; tests/test_fmu_twins.py checks them against each other on drawn inputs
 * (agreement to 1e-12 relative). Change both or neither.
 *
 * Units SI; v > 0 extends the rod, f > 0 pushes the rod out; pressures gauge (tank = 0).
 */
#ifndef ALAB_QUASISTATIC_H
#define ALAB_QUASISTATIC_H

/* Layouts of the circuit vector (I_*) and the normalised openings u_hat (J_*): written from
 * the Python layouts (ValveCircuit.LAYOUT, circuit.NORMALISED_OPENINGS) by actuatorlab.fmu.header. */
#include "layouts.h"

enum { MODE_RETRACT = -1, MODE_HOLD = 0, MODE_EXTEND = 1 };

/* Status of the regeneration kernels (regeneration.py REG_*). */
enum { REG_OK = 0, REG_MAX_ITER = 1, REG_ROOT_FAILED = 2, REG_CLOSED_BLEED = 3 };

/* nonsmooth.py */
double alab_s(double x);
double alab_psi(double u1, double u2);
double alab_proj(double x, double lo, double hi);
double alab_ldiv(double x, double a);
double alab_s_ldiv(double x, double a);
double alab_phi_a(double b, double c, double a);
double alab_phi_b(double b, double c, double a0, double a1, double x1);

/* circuit.py: normalised openings of a command u_c (67), bleed u_b, and u_hat_a of u_a. */
void alab_openings(const double *cp, double u_c, double u_b, double *uh);
double alab_regeneration_opening(const double *cp, double u_a);
/* the same from the scales k = [c_ph A_h^-1.5, c_tr A_r^-1.5, c_pr A_r^-1.5, c_th A_h^-1.5, c_b,
 * c_a A_r^-1.5] of alab_opening_scales, computed once per parameter set */
enum { N_SCALES = 6 };
void alab_opening_scales(const double *cp, double *k);
void alab_openings_scaled(const double *k, double u_c, double u_b, double *uh);

/* kernels.py */
int alab_mode(const double *uh);
void alab_gamma_zero(const double *cp, const double *uh, double *low, double *high);
double alab_gamma_head_plus(const double *cp, const double *uh, double v);
double alab_rod_plus(const double *cp, const double *uh, double v);
double alab_head_minus(const double *cp, const double *uh, double v);
double alab_rod_pump_force(const double *cp, const double *uh, double v);
double alab_head_pump_force(const double *cp, const double *uh, double v);
double alab_rod_minus(const double *cp, const double *uh, double pump_force, double v);
double alab_gamma_minus(const double *cp, const double *uh, double v);
double alab_lam(const double *cp, const double *uh, double impedance, double fbar);
void alab_relaxation_terms(double stiffness, double damping, double h, double p_prev, double l_prev, double l_now,
                           double *impedance, double *fbar);
void alab_relaxed_step(const double *cp, const double *uh, double stiffness, double damping, double h,
                       double p_prev, double l_prev, double l_now, double *p, double *f, double *v);
void alab_chamber_forces(const double *cp, const double *uh, double v, double f, double *fh, double *fr);

/* regeneration.py */
int alab_regeneration_velocity(const double *cp, const double *uh, double ua_hat, double v, double *va);
int alab_lam_regeneration(const double *cp, const double *uh, double ua_hat, double impedance, double fbar,
                          long max_iter, double *v, double *va, long *alternations);
int alab_relaxed_regeneration_step(const double *cp, const double *uh, double ua_hat, double stiffness,
                                   double damping, double h, double p_prev, double l_prev, double l_now,
                                   double *p, double *f, double *v);
void alab_regenerated_chamber_forces(const double *cp, const double *uh, double v, double va, double *fh,
                                     double *fr);

/* The pump line of the quasistatic state (new here; its Python twin is actuatorlab/hydraulics/quasistatic/pump_line.py):
 * pump pressure P [Pa], supply flow to the cylinder q_p, bleed flow q_b and pump relief flow
 * q_PM [m^3/s], from the rod velocity v, the regeneration flow v_a and the chamber forces. */
void alab_pump_line(const double *cp, const double *uh, double c_ph_u, double c_pr_u, double v, double va,
                    double fh, double fr, double *pump, double *q_p, double *q_b, double *q_pm);

#endif

/* Pressure-dynamics model of the four-valve circuit (hydraulics/pressure_dynamics.py): chamber and
 * pump-line pressure rates with their partial derivatives, the holding and idle pressures.
 *
 * TWIN: the C twin of chamber_rates, pump_line_rate, holding_pressures and idle_pump_pressure of
 * actuatorlab/hydraulics/pressure_dynamics.py, operation for operation; tests/test_fmu_twins.py
 * holds them equal on drawn inputs. Change both or neither. */
#ifndef ALAB_PRESSURE_H
#define ALAB_PRESSURE_H

/* Layouts of the fluid vector (H_*), the raw openings (U_*) and the columns of the partial
 * derivatives (D_*): written from the Python layouts by actuatorlab.fmu.header. */
#include "layouts.h"

/* The flows of one state [m^3/s]: into the chambers from the pump, to tank, reliefs, suction,
 * regeneration; pump line: bleed, relief, suction. */
typedef struct {
    double ph, pr, th, tr, a, hm, rm, hs, rs, b, pm, ps;
} alab_flows;

double alab_chamber_rates(const double *cp, const double *hp, const double *u, double x, double xdot, double ph,
                          double pr, double pump, double *rates, double *partials, double *dq_ph, double *dq_pr,
                          double *dq_p);
void alab_pump_line_rate(const double *cp, const double *hp, double u_b, double pump, double draw, double *rate,
                         double *d_rate);
void alab_holding_pressures(const double *cp, double force, double low, double *ph, double *pr);
double alab_idle_pump_pressure(const double *cp, double u_b);
void alab_pressure_flows(const double *cp, const double *hp, const double *u, double ph, double pr, double pump,
                         alab_flows *q);

#endif

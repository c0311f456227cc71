/* layouts.h: written by actuatorlab.fmu.header.layout_header from the layouts the compiled Python
 * kernels read (numerics/layout.py); tests/test_fmu_layouts.py checks it is current. Do not edit. */
#ifndef ALAB_LAYOUTS_H
#define ALAB_LAYOUTS_H

/* the circuit vector, ValveCircuit.kernel_array() */
enum {
    I_AH = 0, I_AR, I_FHM, I_FRM, I_PM, I_Q, I_CPH, I_CTR, I_CPR, I_CTH, I_CB, I_CA, N_CIRCUIT
};
/* the normalised openings u_hat (40)-(43), circuit.NORMALISED_OPENINGS */
enum {
    J_PH = 0, J_TR, J_PR, J_TH, J_B, N_OPEN
};
/* the fluid vector, PressureDynamics.kernel_array() */
enum {
    H_BULK_MODULUS = 0, H_VH0, H_VR0, H_STROKE, H_VP, H_EPS, H_GRELIEF, H_GCHECK, H_L0, N_PRESSURE
};
/* the raw openings, pressure_dynamics.RAW_OPENINGS */
enum {
    U_PH = 0, U_TR, U_PR, U_TH, U_B, U_A, N_RAW
};
/* the columns of the partial derivatives, pressure_dynamics.PARTIALS */
enum {
    D_X = 0, D_XDOT, D_PH, D_PR, D_P, N_D
};

#endif

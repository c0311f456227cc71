"""The parameter vector of the single-DOF arm's compiled kernels (Kikuuwe et al. Sec. 4.3):
declared here, below both ``single_arm.SingleArm``, which packs it, and ``single_arm_kernels``,
which reads it, so neither imports the other for it. No numba."""

from __future__ import annotations

from ..numerics.layout import Layout

ARM = Layout("K_", "jp", "mg", "lg", "lm", "alpha", "lf", "bx", "by", "cos_alpha", "sin_alpha")
"""J_pivot [kg m²], M·g [N], L_g, L_m [m], α [rad], L_f [m], base pin (x, y) [m], cos α, sin α."""
(K_JP, K_MG, K_LG, K_LM, K_ALPHA, K_LF, K_BX, K_BY, K_COS_ALPHA, K_SIN_ALPHA) = ARM.indices
N_ARM = len(ARM)

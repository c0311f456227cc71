"""Element-wise copies for compiled kernels.

Inside a kernel, ``dst[:] = src`` or ``a[i] = (x, y)`` (an array or tuple assigned to a slice or a
row) makes numba compile the formatting of its shape-mismatch message, about 14 s in every process
that compiles such a kernel first; ``copy_into`` and plain element assignments compile in well
under a second and copy the same bits.
"""

import numba as nb


@nb.njit(cache=True)
def copy_into(dst, src) -> None:
    """dst[i] = src[i] for the 1-D arrays (or views) ``dst`` and ``src`` of one length."""
    if dst.shape[0] != src.shape[0]:
        raise ValueError("copy_into: the arrays differ in length")
    for i in range(src.shape[0]):
        dst[i] = src[i]

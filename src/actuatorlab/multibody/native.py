"""MuJoCo's C functions called from compiled time loops, by address.

A compiled loop that steps MuJoCo itself (``mj_step1``, the cylinder forces, ``mj_step2``) has
no Python call per step: the functions of ``libmujoco`` that the Python bindings load are
called through their addresses, with the addresses of the bindings' ``MjModel`` and ``MjData``
(``_address``). The data's arrays (``site_xpos``, ``qpos``, …) are numpy views of the same
memory, so the loop reads what ``mj_step1`` wrote. Addresses are run-time arguments (never
constants of the compiled code), so the loops are cached on disk like every other kernel.

``MujocoCalls`` holds the addresses of one model and its data; ``step1``, ``step2``,
``jac_site`` and ``solve_m`` are the compiled calls (void C functions; ``int`` arguments as
32-bit integers, pointers as 64-bit addresses).
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
from dataclasses import dataclass

import mujoco
import numba as nb
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ..numerics.layout import Layout

_PTR = ir.IntType(8).as_pointer()
_I32 = ir.IntType(32)


@intrinsic
def _call_pp(typingctx, fn, a, b):
    """void fn(void*, void*) at address ``fn``."""
    sig = types.void(types.int64, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.VoidType(), [_PTR, _PTR])
        f = builder.inttoptr(args[0], fnty.as_pointer())
        builder.call(f, [builder.inttoptr(args[1], _PTR), builder.inttoptr(args[2], _PTR)])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _call_ppppi(typingctx, fn, a, b, c, d, n):
    """void fn(void*, void*, void*, void*, int) at address ``fn``."""
    sig = types.void(types.int64, types.int64, types.int64, types.int64, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.VoidType(), [_PTR, _PTR, _PTR, _PTR, _I32])
        f = builder.inttoptr(args[0], fnty.as_pointer())
        ptrs = [builder.inttoptr(x, _PTR) for x in args[1:5]]
        builder.call(f, [*ptrs, builder.trunc(args[5], _I32)])
        return context.get_dummy_value()

    return sig, codegen


@functools.cache
def _library() -> ctypes.CDLL:
    """The ``libmujoco`` the Python bindings load (the same file, hence the same loaded copy)."""
    folder = os.path.dirname(mujoco.__file__)
    found = sorted(
        glob.glob(os.path.join(folder, "libmujoco.so*"))
        + glob.glob(os.path.join(folder, "libmujoco*.dylib"))
        + glob.glob(os.path.join(folder, "mujoco.dll"))
    )
    if not found:
        raise OSError(f"libmujoco not found beside the mujoco package in {folder}")
    return ctypes.CDLL(found[0])


def _address(name: str) -> int:
    return ctypes.cast(getattr(_library(), name), ctypes.c_void_p).value


@dataclass(frozen=True)
class MujocoCalls:
    """Addresses of ``mj_step1``, ``mj_step2``, ``mj_jacSite``, ``mj_solveM`` and of one
    model and its data, as the int64 tuple the compiled loops take (``as_tuple``)."""

    step1: int
    step2: int
    jac_site: int
    solve_m: int
    model: int
    data: int

    @classmethod
    def of(cls, model: mujoco.MjModel, data: mujoco.MjData) -> MujocoCalls:
        return cls(
            _address("mj_step1"),
            _address("mj_step2"),
            _address("mj_jacSite"),
            _address("mj_solveM"),
            int(model._address),
            int(data._address),
        )

    def as_tuple(self) -> tuple[int, ...]:
        return (self.step1, self.step2, self.jac_site, self.solve_m, self.model, self.data)


# indices of ``MujocoCalls.as_tuple`` in the compiled loops
CALLS = Layout("C_", "step1", "step2", "jac_site", "solve_m", "model", "data")
(C_STEP1, C_STEP2, C_JAC_SITE, C_SOLVE_M, C_MODEL, C_DATA) = CALLS.indices


@nb.njit(cache=True, inline="always")
def step1(calls) -> None:
    """``mj_step1(m, d)``: positions and velocities at the current state."""
    _call_pp(calls[C_STEP1], calls[C_MODEL], calls[C_DATA])


@nb.njit(cache=True, inline="always")
def step2(calls) -> None:
    """``mj_step2(m, d)``: accelerations with the applied forces, then the integrator."""
    _call_pp(calls[C_STEP2], calls[C_MODEL], calls[C_DATA])


@nb.njit(cache=True, inline="always")
def jac_site(calls, jacp, site: int) -> None:
    """``mj_jacSite(m, d, jacp, NULL, site)``: the translational Jacobian (3, nv) of ``site``."""
    _call_ppppi(calls[C_JAC_SITE], calls[C_MODEL], calls[C_DATA], jacp.ctypes.data, 0, site)


@nb.njit(cache=True, inline="always")
def solve_m(calls, x, y, n: int) -> None:
    """``mj_solveM(m, d, x, y, n)``: x = M⁻¹ y for ``n`` rows of length nv (after mj_step1)."""
    _call_ppppi(calls[C_SOLVE_M], calls[C_MODEL], calls[C_DATA], x.ctypes.data, y.ctypes.data, n)

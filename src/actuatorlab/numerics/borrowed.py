"""Borrowed arrays: compiled views without an owner, for time loops that pass many arrays per step.

Numba counts references to every array it passes on: a compiled function increments the count
of each array argument on entry and decrements it on exit unless LLVM's pruning pass can pair
them up, which it gives up on in large functions (its search is limited to 1 000 blocks). Each
count is an atomic add on the owner's memory; a step function of a machine's cylinders taking
thirty arrays paid sixty of them a step, about a third of the step.

``borrowed(a)`` is ``a`` with the same data, shape and strides but no owner (a null
``meminfo``): counting it is a test of a null pointer. The caller must keep ``a`` alive while the
borrowed view is used, as a loop does with its own arguments and allocations.
"""

from __future__ import annotations

from numba import types
from numba.extending import intrinsic


def _borrow(context, builder, array_type, value):
    source = context.make_array(array_type)(context, builder, value=value)
    view = context.make_array(array_type)(context, builder)
    context.populate_array(
        view, data=source.data, shape=source.shape, strides=source.strides, itemsize=source.itemsize, meminfo=None
    )
    return view._getvalue()


@intrinsic
def borrowed(typingctx, arrays):
    """The array ``arrays``, or each array of the tuple ``arrays``, without an owner (see the
    module docstring); valid while the originals live."""
    members = arrays.types if isinstance(arrays, types.BaseTuple) else (arrays,)
    if not all(isinstance(t, types.Array) for t in members):
        return None

    def codegen(context, builder, signature, args):
        if not isinstance(arrays, types.BaseTuple):
            return _borrow(context, builder, arrays, args[0])
        out = context.get_constant_undef(arrays)
        for i, t in enumerate(arrays.types):
            out = builder.insert_value(out, _borrow(context, builder, t, builder.extract_value(args[0], i)), i)
        return out

    return arrays(arrays), codegen

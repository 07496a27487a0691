"""Bit primitives for the compiled kernels: the CPU's population count and trailing-zero
count (LLVM ``ctpop``/``cttz``), and :func:`borrowed` arrays, with plain-Python fallbacks
when numba is missing."""

from __future__ import annotations

from typing import Any

from .jit import HAVE_NUMBA, njit

ctpop: Any
cttz: Any
borrowed: Any
if HAVE_NUMBA:
    from numba.core import types
    from numba.cpython.unsafe.numbers import trailing_zeros
    from numba.extending import intrinsic

    @intrinsic
    def ctpop(typingctx: Any, x: Any) -> Any:
        """The CPU's population count (LLVM ``ctpop``)."""
        if not isinstance(x, types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.ctpop(args[0])

        return x(x), codegen

    @njit(inline="always")
    def cttz(x: int) -> int:
        """Index of the lowest set bit of ``x != 0`` (LLVM ``cttz``)."""
        return trailing_zeros(x)  # type: ignore[call-arg, no-any-return]

    @intrinsic
    def borrowed(typingctx: Any, arr: Any) -> Any:
        """The array ``arr`` without its reference count (a null meminfo): numba counts
        references to an array, atomically, wherever it is passed to a helper or aliased,
        and a borrowed array's counting is a no-op. It must not outlive ``arr``."""
        if not isinstance(arr, types.Array):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            ary = context.make_array(signature.args[0])(context, builder, value=args[0])
            ary.meminfo = context.get_constant_null(types.MemInfoPointer(arr.dtype))
            ary.parent = context.get_constant_null(types.pyobject)
            return ary._getvalue()

        return arr(arr), codegen
else:  # pragma: no cover - numba is installed in every supported setup

    def ctpop(x: int) -> int:
        return bin(x & 0xFFFFFFFFFFFFFFFF).count("1")

    def cttz(x: int) -> int:
        return (x & -x).bit_length() - 1

    def borrowed(arr: Any) -> Any:
        return arr


__all__ = ["borrowed", "ctpop", "cttz"]

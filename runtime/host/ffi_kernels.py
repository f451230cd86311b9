"""The Numba helpers every in-module host call wrapper uses (runtime/host/calls.py):
pointer intrinsics, the answer to XLA's metadata query, and the error path.

Module-level functions compiled with ``cache=True``: Numba keeps them on disk,
so only the first process on a machine pays for their compilation (the error
path's ``objmode`` block is the slow part).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .calls import failure_message
from .ffi_abi import (_API_ERROR_CREATE, _API_VERSION_STRUCT_SIZE, _ERROR_CREATE_ARGS_SIZE,
                      _ERROR_INVALID_ARGUMENT, _EXTENSION_METADATA, _FFI_API_MAJOR, _FFI_API_MINOR)

__all__ = ["ptr", "call_ptr", "address", "extension", "error_create", "fail"]


@intrinsic
def ptr(typingctx, addr):
    """The address ``addr`` (an integer) as a ``void*``."""
    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)
    return types.voidptr(types.int64), codegen


@intrinsic
def call_ptr(typingctx, fn, arg):
    """Calls the C function ``void* fn(void*)`` at address ``fn`` with address ``arg``."""
    def codegen(context, builder, sig, args):
        fnty = llvm_ir.FunctionType(cgutils.voidptr_t, [cgutils.voidptr_t])
        f = builder.inttoptr(args[0], fnty.as_pointer())
        return builder.call(f, [builder.inttoptr(args[1], cgutils.voidptr_t)])
    return types.voidptr(types.int64, types.int64), codegen


@intrinsic
def address(typingctx, p):
    """The ``void*`` ``p`` as an integer."""
    def codegen(context, builder, sig, args):
        return builder.ptrtoint(args[0], llvm_ir.IntType(64))
    return types.int64(types.voidptr), codegen

carray = numba.carray


@numba.njit(nogil=True, cache=True)
def extension(ext_addr):
    """Answers XLA's metadata query (made when the target is registered): the FFI
    version this wrapper was written against, no traits, no state."""
    ext = carray(ptr(ext_addr), (4,), np.int64)
    if (ext[1] & 0xFFFFFFFF) == _EXTENSION_METADATA:
        meta = carray(ptr(ext[3]), (6,), np.int64)
        meta32 = carray(ptr(ext[3]), (12,), np.int32)
        meta[1] = _API_VERSION_STRUCT_SIZE
        meta[2] = 0
        meta32[6] = _FFI_API_MAJOR
        meta32[7] = _FFI_API_MINOR
        meta32[8] = 0  # traits
        meta[5] = 0    # state type id: none
    return ptr(0)


@numba.njit(nogil=True, cache=True)
def error_create(api_addr, msg):
    """``api->XLA_FFI_Error_Create`` with INVALID_ARGUMENT and the NUL-terminated ``msg``."""
    args = np.zeros(4, np.int64)
    args[0] = _ERROR_CREATE_ARGS_SIZE
    args[2] = msg.ctypes.data
    args[3] = _ERROR_INVALID_ARGUMENT
    fn = carray(ptr(api_addr), (_API_ERROR_CREATE + 1,), np.int64)[_API_ERROR_CREATE]
    err = call_ptr(fn, args.ctypes.data)
    if msg[0] == 0 and args[0] == 0:  # keeps msg and args alive until after the call
        return ptr(0)
    return err


@numba.njit(cache=True)
def fail(api_addr, frame_addr, index):
    """The error path of every wrapper: the message comes from Python."""
    with numba.objmode(msg="uint8[::1]"):
        msg = failure_message(index, frame_addr)
    return error_create(api_addr, msg)


"""XLA FFI at the jax boundary: Numba functions registered as typed custom-call
targets on the CPU, and the ``stablehlo.custom_call`` that calls one."""

from __future__ import annotations

import numpy as np

import jax

from .mlir import hlo, ir

__all__ = ["register_host_call_target", "host_call"]


def register_host_call_target(name: str, address: int) -> None:
    """Registers the C function at ``address`` (``XLA_FFI_Error* f(XLA_FFI_CallFrame*)``)
    as the typed XLA FFI custom-call target ``name`` on the CPU, for the rest of the process."""
    jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(address), platform="cpu", api_version=1)


def _row_major_layouts(types) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([
        ir.DenseIntElementsAttr.get(np.arange(ir.RankedTensorType(t).rank - 1, -1, -1, dtype=np.int64),
                                    type=ir.IndexType.get())
        for t in types])


def host_call(name: str, operands, result_types) -> list[ir.Value]:
    """``stablehlo.custom_call @name(operands)`` in the typed FFI form, as
    ``jax.ffi.ffi_lowering`` builds it: ``api_version = 4``, an empty dictionary
    as ``backend_config``, row-major operand and result layouts."""
    operands = list(operands)
    attributes = {
        "call_target_name": ir.StringAttr.get(name),
        "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        "backend_config": ir.DictAttr.get({}),
        "operand_layouts": _row_major_layouts([v.type for v in operands]),
        "result_layouts": _row_major_layouts(result_types),
    }
    op = hlo.CustomCallOp.build_generic(results=list(result_types), operands=operands,
                                        attributes=attributes)
    return list(op.results)

"""XLA FFI at the jax boundary: Numba functions registered as typed custom-call
targets on the CPU, the ``stablehlo.custom_call`` that calls one, and the
identity custom call that XLA:CPU fuses nothing across (``fusion_cut``)."""

from __future__ import annotations

import numpy as np

import jax

from .mlir import hlo, ir

__all__ = ["register_host_call_target", "host_call", "FUSION_CUT_TARGET", "fusion_cut", "is_fusion_cut",
           "fusion_cut_available"]


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


# --- the fusion cut: an identity XLA:CPU cannot fuse across ----------------------------

#: jaxlib's own typed FFI target behind ``jax.lax.dce_sink``, registered on the CPU
#: when jaxlib loads: its handler takes one buffer of any type and shape, reads
#: nothing and writes nothing (it binds no result, so XLA's FFI does not check the
#: results: a call with one result passes)
FUSION_CUT_TARGET = "dce_sink"

def fusion_cut(value: ir.Value) -> ir.Value:
    """``value`` again, through ``stablehlo.custom_call @dce_sink`` whose result is
    its operand's buffer (``output_operand_aliases``): XLA computes nothing there
    and copies nothing (unless ``value``'s buffer may not be written, e.g. an
    argument that is not donated: then one copy), and no fusion of XLA:CPU
    (jaxlib 0.10.2) crosses it, unlike ``stablehlo.optimization_barrier``,
    which XLA removes before it fuses. Built at the current insertion point and
    location; ``value`` is a statically shaped tensor."""
    t = value.type
    alias = ir.Attribute.parse(
        "#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, "
        "operand_tuple_indices = []>")
    attributes = {
        "call_target_name": ir.StringAttr.get(FUSION_CUT_TARGET),
        "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        "backend_config": ir.DictAttr.get({}),
        "operand_layouts": _row_major_layouts([t]),
        "result_layouts": _row_major_layouts([t]),
        "output_operand_aliases": ir.ArrayAttr.get([alias]),
    }
    op = hlo.CustomCallOp.build_generic(results=[t], operands=[value], attributes=attributes)
    return op.results[0]


def is_fusion_cut(op) -> bool:
    """Whether ``op`` is a cut that ``fusion_cut`` built."""
    op = op.operation
    return (op.name == "stablehlo.custom_call" and "call_target_name" in op.attributes
            and ir.StringAttr(op.attributes["call_target_name"]).value == FUSION_CUT_TARGET
            and "output_operand_aliases" in op.attributes)


_available: dict[str, bool] = {}


def fusion_cut_available(platform: str = "cpu") -> bool:
    """Whether jaxlib registered ``FUSION_CUT_TARGET`` for ``platform`` (asked once)."""
    if platform not in _available:
        from jax._src.lib import xla_client

        try:
            _available[platform] = FUSION_CUT_TARGET in xla_client.custom_call_targets(platform)
        except Exception:  # an unknown platform, an older jaxlib
            _available[platform] = False
    return _available[platform]

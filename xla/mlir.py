"""The MLIR side of the jax boundary: the IR and dialect bindings (``ir``, ``hlo``,
``chlo``, ``func``, ``passmanager``), contexts, the dtype <-> element type
mapping, attributes, bytecode, StableHLO's reference interpreter and portable
artifacts, and MLIR's pattern rewrite API.

The ``xla`` package is the only place in hlograph that imports jax/jaxlib; the
tested range is pinned in pyproject.toml, so an upgrade touches this package only.
"""

from __future__ import annotations

import hashlib
import re

import ml_dtypes
import numpy as np

from jax.extend.mlir import ir, passmanager  # noqa: F401
from jax.extend.mlir.dialects import chlo, func  # noqa: F401
from jax.extend.mlir.dialects import stablehlo as hlo  # noqa: F401
from jax.interpreters import mlir as _jax_mlir

__all__ = [
    "ir", "hlo", "chlo", "func", "passmanager", "make_context", "element_type", "element_dtype",
    "tensor_type", "dense_attr", "i64_array", "module_to_bytecode", "module_fingerprint",
    "eval_module", "legalize_chlo", "deserialize_portable_artifact", "serialize_portable_artifact",
]

# --- NumPy dtype <-> MLIR element type: the one mapping pair ------------------------

_ELEMENT_TYPES = {
    np.dtype(np.bool_): lambda: ir.IntegerType.get_signless(1),
    np.dtype(np.int8): lambda: ir.IntegerType.get_signless(8),
    np.dtype(np.int16): lambda: ir.IntegerType.get_signless(16),
    np.dtype(np.int32): lambda: ir.IntegerType.get_signless(32),
    np.dtype(np.int64): lambda: ir.IntegerType.get_signless(64),
    np.dtype(np.uint8): lambda: ir.IntegerType.get_unsigned(8),
    np.dtype(np.uint16): lambda: ir.IntegerType.get_unsigned(16),
    np.dtype(np.uint32): lambda: ir.IntegerType.get_unsigned(32),
    np.dtype(np.uint64): lambda: ir.IntegerType.get_unsigned(64),
    np.dtype(np.float16): ir.F16Type.get,
    np.dtype(ml_dtypes.bfloat16): ir.BF16Type.get,
    np.dtype(np.float32): ir.F32Type.get,
    np.dtype(np.float64): ir.F64Type.get,
    np.dtype(np.complex64): lambda: ir.ComplexType.get(ir.F32Type.get()),
    np.dtype(np.complex128): lambda: ir.ComplexType.get(ir.F64Type.get()),
}

_FLOAT_TYPES = {
    "f16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
}
_ML_FLOATS = {  # MLIR spelling -> ml_dtypes name
    "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2", "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2FNUZ": "float8_e5m2fnuz", "f8E4M3B11FNUZ": "float8_e4m3b11fnuz",
    "f8E4M3": "float8_e4m3", "f8E3M4": "float8_e3m4", "f8E8M0FNU": "float8_e8m0fnu",
    "f4E2M1FN": "float4_e2m1fn", "f6E2M3FN": "float6_e2m3fn", "f6E3M2FN": "float6_e3m2fn",
}
_SMALL_INTS = {("i", 4): "int4", ("u", 4): "uint4", ("i", 2): "int2", ("u", 2): "uint2"}
_INT_TYPE = re.compile(r"^(i|si|ui)(\d+)$")


def element_type(dtype: np.dtype) -> ir.Type:
    """The MLIR element type of a NumPy dtype hlograph supports (call in a context)."""
    return _ELEMENT_TYPES[dtype]()


def element_dtype(t: ir.Type) -> np.dtype:
    """The NumPy dtype of an MLIR element type (i1 -> bool, ui8 -> uint8, bf16 ->
    ml_dtypes.bfloat16, complex<f32> -> complex64, f8E4M3FN -> float8_e4m3fn, ...);
    TypeError for a type with no NumPy equivalent."""
    text = str(t)
    if text == "i1":
        return np.dtype(np.bool_)
    m = _INT_TYPE.match(text)
    if m:
        kind = "u" if m.group(1) == "ui" else "i"
        width = int(m.group(2))
        if width in (8, 16, 32, 64):
            return np.dtype(f"{'uint' if kind == 'u' else 'int'}{width}")
        name = _SMALL_INTS.get((kind, width))
        if name and hasattr(ml_dtypes, name):
            return np.dtype(getattr(ml_dtypes, name))
    if text in _FLOAT_TYPES:
        return _FLOAT_TYPES[text]
    if text in _ML_FLOATS and hasattr(ml_dtypes, _ML_FLOATS[text]):
        return np.dtype(getattr(ml_dtypes, _ML_FLOATS[text]))
    if text == "complex<f32>":
        return np.dtype(np.complex64)
    if text == "complex<f64>":
        return np.dtype(np.complex128)
    raise TypeError(f"element type {text} has no NumPy equivalent")


# --- contexts, types, attributes, bytecode -------------------------------------------

def make_context() -> ir.Context:
    """A fresh MLIR context with the stablehlo, chlo and func dialects loaded."""
    return _jax_mlir.make_ir_context()


def tensor_type(t) -> ir.RankedTensorType:
    """The ranked tensor type of a static ``TensorType`` (anything with ``shape``,
    ``dtype`` and ``is_static``)."""
    if not t.is_static:
        raise ValueError(f"cannot lower the non-static type {t}; give concrete shapes to lower()")
    return ir.RankedTensorType.get(t.shape, element_type(t.dtype))


def dense_attr(value: np.ndarray) -> ir.DenseElementsAttr:
    if not value.flags.c_contiguous:
        value = value.copy(order="C")  # (np.ascontiguousarray would make 0-d arrays 1-d)
    return ir.DenseElementsAttr.get(value, type=element_type(value.dtype), shape=value.shape)


def i64_array(values) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def module_to_bytecode(module: ir.Module) -> bytes:
    return _jax_mlir.module_to_bytecode(module)


def module_fingerprint(module: ir.Module) -> bytes:
    """The SHA-256 of ``module``'s text without source locations: equal for the
    same program whatever code (file, line) built it. The executable caches key
    on it (as jax's compilation cache leaves locations out of its key)."""
    with module.context:
        text = module.operation.get_asm(enable_debug_info=False)
    return hashlib.sha256(text.encode()).digest()


# --- StableHLO's reference interpreter, CHLO legalization, portable artifacts ---

def eval_module(module: ir.Module, args: list[ir.Attribute]) -> list[ir.Attribute]:
    """Runs ``@main`` of ``module`` in StableHLO's reference interpreter; arguments and
    results are DenseElementsAttrs."""
    return hlo.eval_module(module, args)


def legalize_chlo(module: ir.Module) -> None:
    """Rewrites the CHLO ops of ``module`` into StableHLO, in place
    (``chlo-legalize-to-stablehlo``; the reference interpreter runs no CHLO)."""
    hlo.register_stablehlo_passes()  # idempotent
    with module.context:
        pm = passmanager.PassManager.parse("builtin.module(func.func(chlo-legalize-to-stablehlo))")
        pm.run(module.operation)


def deserialize_portable_artifact(data: bytes, context: ir.Context) -> ir.Module:
    """Reads a versioned StableHLO artifact (VHLO bytecode) into ``context``."""
    return hlo.deserialize_portable_artifact(context, data)


def serialize_portable_artifact(module: ir.Module, target: str | None = None) -> bytes:
    """Writes ``module`` as a versioned StableHLO artifact (VHLO bytecode); ``module``
    is left as it was (the binding converts its argument to VHLO in place)."""
    with module.context:
        copy = ir.Module.parse(module.operation.get_asm(enable_debug_info=True, binary=True))
    return hlo.serialize_portable_artifact(copy, target or hlo.get_current_version())


# MLIR's pattern rewrite API (used by hlograph.passes.patterns). jaxlib 0.10.2
# exposes it only under this private module, so it is imported here alone.
from jaxlib.mlir._mlir_libs._mlir.rewrite import (  # noqa: E402,F401
    GreedyRewriteConfig,
    GreedyRewriteStrictness,
    PatternRewriter,
    RewritePatternSet,
    apply_patterns_and_fold_greedily,
    walk_and_apply_patterns,
)

__all__ += [
    "GreedyRewriteConfig", "GreedyRewriteStrictness", "PatternRewriter", "RewritePatternSet",
    "apply_patterns_and_fold_greedily", "walk_and_apply_patterns",
]

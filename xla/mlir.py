"""The MLIR side of the jax boundary: the IR and dialect bindings (``ir``, ``hlo``,
``chlo``, ``func``, ``passmanager``), contexts, the dtype <-> element type
mapping, attributes, bytecode, StableHLO's reference interpreter and portable
artifacts, and MLIR's pattern rewrite API.

The ``xla`` package is the only place in hlograph that imports jax/jaxlib; the
tested range is pinned in pyproject.toml, so an upgrade touches this package only.
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
import types
from typing import NamedTuple

import ml_dtypes
import numpy as np

from jax.extend.mlir import ir, passmanager  # noqa: F401
from jax.extend.mlir.dialects import chlo, func  # noqa: F401
from jax.extend.mlir.dialects import stablehlo as _stablehlo
from jax.interpreters import mlir as _jax_mlir

__all__ = [
    "ir", "hlo", "chlo", "func", "passmanager", "make_context", "lowering_context", "element_type", "element_dtype",
    "tensor_type", "dense_attr", "i64_array", "module_to_bytecode", "module_fingerprint",
    "eval_module", "legalize_chlo", "deserialize_portable_artifact", "serialize_portable_artifact",
    "serialize_portable_artifact_oldest", "stablehlo_versions", "parse_version", "artifact_version",
    "DotShape", "dot_shape", "dot_shapes", "bytecode_dot_shapes",
]

# --- StableHLO builders ----------------------------------------------------------------
# The generated builders (``stablehlo.add(x, y)``) spend most of their time in
# Python (keyword handling, the OpView built around the new op): about 3 us per
# op, twice what MLIR takes to create it. The ops below take only operands and
# infer their one result type, so ``ir.Operation.create`` with ``infer_type=True``
# builds the same op (the same C++ type inference the builder runs when given
# no result types) without that overhead. Any other call (result types or a
# location given, keyword arguments, another arity) goes to the generated builder.

#: builder name -> number of operands: elementwise ops with no attributes (but the
#: optional ``result_accuracy``, which a call giving it takes to the generated builder)
FAST_BUILDERS: dict[str, int] = {
    **dict.fromkeys((
        "abs", "cbrt", "ceil", "count_leading_zeros", "cosine", "exponential",
        "exponential_minus_one", "floor", "imag", "is_finite", "log", "log_plus_one",
        "logistic", "negate", "not_", "popcnt", "real", "round_nearest_afz",
        "round_nearest_even", "rsqrt", "sign", "sine", "sqrt", "tan", "tanh"), 1),
    **dict.fromkeys((
        "add", "atan2", "complex", "divide", "maximum", "minimum", "multiply", "power",
        "remainder", "shift_left", "shift_right_arithmetic", "shift_right_logical",
        "subtract", "and_", "or_", "xor"), 2),
    **dict.fromkeys(("select", "clamp"), 3),
}


_create_op = ir.Operation.create


def _fast_builder(builder, op_name: str, arity: int):
    # (closes over plain values only, as the graph keys of rules binding it need:
    # compiler/graph_key.py names a function by its code and the values it closes over)
    @functools.wraps(builder)
    def build(*operands, **kwargs):
        if kwargs or len(operands) != arity:
            return builder(*operands, **kwargs)
        return _create_op(op_name, operands=operands, infer_type=True).result

    return build


def _with_fast_builders(dialect: types.ModuleType) -> types.ModuleType:
    """A module object with every name of ``dialect`` (op classes, builders, passes),
    its ``FAST_BUILDERS`` replaced by ``_fast_builder``s."""
    fast = types.ModuleType(dialect.__name__, dialect.__doc__)
    fast.__dict__.update(vars(dialect))
    for name, arity in FAST_BUILDERS.items():
        builder = getattr(dialect, name)
        # the generated builder is ``return XOp(...).result``: XOp is its first global
        code = getattr(builder, "__code__", None)
        op_class = getattr(dialect, code.co_names[0], None) if code is not None and code.co_names else None
        if not (isinstance(op_class, type) and issubclass(op_class, ir.OpView)
                and getattr(op_class, "_ODS_REGIONS", None) == (0, True)
                and getattr(op_class, "_ODS_OPERAND_SEGMENTS", 0) is None
                and getattr(op_class, "_ODS_RESULT_SEGMENTS", 0) is None):
            continue  # (not the generated builder expected here: it stays)
        fast.__dict__[name] = _fast_builder(builder, op_class.OPERATION_NAME, arity)
    return fast


#: jax's StableHLO dialect module, with fast builders for the simple elementwise ops
hlo = _with_fast_builders(_stablehlo)


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


#: a lowering context builds at most this many modules ...
CONTEXT_REUSE_MODULES = 16
#: ... and dense constants of at most this many bytes (``dense_attr``) before a fresh one
CONTEXT_REUSE_BYTES = 64 << 20

_lowering_contexts = threading.local()  # this thread's: ctx, modules, constant_bytes


def lowering_context() -> ir.Context:
    """A context (``make_context``'s) to build one new module in: the calling thread's,
    shared by the modules it lowers one after another. Making a context loads every
    dialect, which costs milliseconds, more than lowering a small graph; MLIR never
    frees a context's uniqued types and attributes while it lives (a module keeps
    its context alive too), so a fresh context replaces it after
    ``CONTEXT_REUSE_MODULES`` modules or ``CONTEXT_REUSE_BYTES`` bytes of dense
    constants. One per thread: modules built in parallel threads never share one."""
    local = _lowering_contexts
    ctx = getattr(local, "ctx", None)
    if ctx is None or local.modules >= CONTEXT_REUSE_MODULES or local.constant_bytes >= CONTEXT_REUSE_BYTES:
        ctx = local.ctx = make_context()
        local.modules = local.constant_bytes = 0
    local.modules += 1
    return ctx


def tensor_type(t) -> ir.RankedTensorType:
    """The ranked tensor type of a static ``TensorType`` (anything with ``shape``,
    ``dtype`` and ``is_static``)."""
    if not t.is_static:
        raise ValueError(f"cannot lower the non-static type {t}; give concrete shapes to lower()")
    shape = t.shape
    if not all(type(d) is int for d in shape):  # symbolic dims (shape-polymorphic lowering)
        shape = [d if type(d) is int else ir.ShapedType.get_dynamic_size() for d in shape]
    return ir.RankedTensorType.get(shape, element_type(t.dtype))


def dense_attr(value: np.ndarray) -> ir.DenseElementsAttr:
    if getattr(_lowering_contexts, "ctx", None) is not None:  # counted against its reuse
        _lowering_contexts.constant_bytes += value.nbytes
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


# --- the matrix products of a module ---------------------------------------------

class DotShape(NamedTuple):
    """The sizes of one matrix product: ``batch`` independent [m, k] x [k, n]
    products of ``dtype`` elements."""

    batch: int
    m: int
    n: int
    k: int
    dtype: str  # the MLIR element type, e.g. "f32"

    @property
    def work(self) -> int:
        """Multiply-adds: batch * m * n * k."""
        return self.batch * self.m * self.n * self.k


def _prod(values) -> int:
    out = 1
    for v in values:
        out *= int(v)
    return out


def dot_shape(op) -> DotShape | None:
    """The matrix product ``op`` computes (see ``dot_shapes``), or None for an op
    that is none or has dynamic shapes."""
    name = op.name
    if name not in ("stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution"):
        return None
    types = [v.type if isinstance(v.type, ir.RankedTensorType) else None
             for v in (op.operands[0], op.operands[1], op.results[0])]
    if any(t is None or not t.has_static_shape for t in types):
        return None
    lhs, rhs, out = (list(t.shape) for t in types)
    dtype = str(types[0].element_type)
    if name == "stablehlo.dot":  # [m, k] x [k, n] or [k] operands
        k = lhs[-1]
        return DotShape(1, lhs[0] if len(lhs) == 2 else 1, rhs[1] if len(rhs) == 2 else 1, k, dtype)
    if name == "stablehlo.dot_general":
        d = hlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
        lb, lc = list(d.lhs_batching_dimensions), list(d.lhs_contracting_dimensions)
        rb, rc = list(d.rhs_batching_dimensions), list(d.rhs_contracting_dimensions)
        batch = _prod(lhs[i] for i in lb)
        k = _prod(lhs[i] for i in lc)
        m = _prod(s for i, s in enumerate(lhs) if i not in lb and i not in lc)
        n = _prod(s for i, s in enumerate(rhs) if i not in rb and i not in rc)
        return DotShape(batch, m, n, k, dtype)
    d = hlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    n = rhs[d.kernel_output_feature_dimension]
    k = rhs[d.kernel_input_feature_dimension] * _prod(rhs[i] for i in d.kernel_spatial_dimensions)
    m = _prod(s for i, s in enumerate(out) if i != d.output_feature_dimension)
    return DotShape(1, m, n, k, dtype)


def dot_shapes(module: ir.Module) -> list[DotShape]:
    """The matrix products of ``module`` (``stablehlo.dot_general``, ``dot`` and
    ``convolution``, in every function and region), in program order; products
    with dynamic shapes are left out. A convolution counts as the [m, k] x [k, n]
    product of its im2col form (m: output positions, k: kernel window times
    input features, n: output features)."""
    shapes: list[DotShape] = []

    def visit(op):
        shape = dot_shape(op)
        if shape is not None:
            shapes.append(shape)
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(visit)
    return shapes


def bytecode_dot_shapes(bytecode: bytes) -> list[DotShape]:
    """``dot_shapes`` of a module given as bytecode (or text); a module whose
    bytecode names no dot or convolution is not parsed."""
    data = bytes(bytecode)
    if b"dot" not in data and b"convolution" not in data:
        return []
    with make_context() as ctx:
        return dot_shapes(ir.Module.parse(data, ctx))


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
    is left as it was (the binding converts its argument to VHLO in place). CHLO
    ops, which VHLO does not version, are first rewritten into StableHLO (as
    jax.export does)."""
    with module.context:
        copy = ir.Module.parse(module.operation.get_asm(enable_debug_info=True, binary=True))
    if "chlo." in copy.operation.get_asm(enable_debug_info=False):
        legalize_chlo(copy)
    messages: list[str] = []

    def collect(d) -> bool:  # the binding's diagnostics go into the error, not to stderr
        messages.append(str(d.message).split("\n", 1)[0])
        return True

    handler = copy.context.attach_diagnostic_handler(collect)
    try:
        return hlo.serialize_portable_artifact(copy, target or hlo.get_current_version())
    except Exception as e:
        raise ValueError("; ".join(messages) or str(e)) from None
    finally:
        handler.detach()


def stablehlo_versions() -> tuple[str, str]:
    """(oldest, newest) StableHLO version jaxlib reads and writes artifacts at:
    its compatibility window."""
    return hlo.get_minimum_version(), hlo.get_current_version()


def parse_version(version: str) -> tuple[int, ...]:
    """``"1.7.3"`` -> ``(1, 7, 3)``; ValueError for anything else."""
    parts = version.strip().split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"a StableHLO version is major.minor.patch (e.g. 1.0.0), got {version!r}")
    return tuple(int(p) for p in parts)


_ARTIFACT_PRODUCER = re.compile(rb"StableHLO_v(\d+\.\d+\.\d+)")


def artifact_version(data: bytes) -> str | None:
    """The StableHLO version a portable artifact was written at (its bytecode
    producer string, ``StableHLO_v1.2.3``), or None for other data."""
    m = _ARTIFACT_PRODUCER.search(bytes(data[4:64]))
    return m.group(1).decode() if m and bytes(data[:4]) == b"ML\xefR" else None


def serialize_portable_artifact_oldest(module: ir.Module) -> tuple[bytes, str]:
    """``module`` as a portable artifact at the oldest StableHLO version of
    jaxlib's window that has every op (and op form) the module uses, with that
    version. Whether a version can express the module only changes once as the
    version grows, so a binary search over the versions of the window finds it."""
    oldest, newest = (parse_version(v) for v in stablehlo_versions())
    candidates = sorted({(major, minor, patch) for major in range(oldest[0], newest[0] + 1)
                         for minor in range(0, max(oldest[1], newest[1], 20) + 1)
                         for patch in range(0, 10)
                         if oldest <= (major, minor, patch) <= newest} | {newest})
    best = None
    lo, hi = 0, len(candidates) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        version = ".".join(map(str, candidates[mid]))
        try:
            data = serialize_portable_artifact(module, version)
        except ValueError:  # too old for one of the module's ops
            lo = mid + 1
        else:
            best = (data, version)
            hi = mid - 1
    if best is None:  # not even the newest: let the binding say why
        version = ".".join(map(str, newest))
        return serialize_portable_artifact(module, version), version
    return best


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

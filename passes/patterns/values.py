"""Reading types, constants and attributes, and building constants, in patterns.

Every reader returns ``None`` for what it does not handle (an unranked or
dynamic tensor, a token, a quantized or 4-bit element type, a value that is
not a constant), so a pattern's guard clause is one ``if ... is None``.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import ml_dtypes
import numpy as np

from ...xla.mlir import element_dtype, hlo, ir

__all__ = [
    "numpy_dtype", "static_type", "shape_of", "dtype_of", "constant_array", "splat_value",
    "is_splat_constant", "make_constant", "make_splat", "ints", "comparison_direction",
    "compare_type", "defining_op", "is_float_type", "is_int_type",
    "is_complex_type", "is_bool_type", "is_unsigned_type",
]

_BF16 = np.dtype(ml_dtypes.bfloat16)
#: the element types patterns compute with
_PATTERN_DTYPES = frozenset(np.dtype(n) for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128")) | {_BF16}


def numpy_dtype(t: ir.Type) -> np.dtype | None:
    """The NumPy dtype of an MLIR element type, or None for the types the patterns
    leave alone (f8, i4, index, quantized, ...)."""
    try:
        dt = element_dtype(t)
    except TypeError:
        return None
    return dt if dt in _PATTERN_DTYPES else None


def static_type(value: ir.Value | ir.Type) -> ir.RankedTensorType | None:
    """The ranked tensor type of ``value`` when its shape is static, else None."""
    t = value if isinstance(value, ir.Type) else value.type
    if isinstance(t, ir.RankedTensorType) and t.has_static_shape:
        return t
    return None


def shape_of(value: ir.Value) -> tuple[int, ...] | None:
    t = static_type(value)
    return tuple(t.shape) if t is not None else None


def dtype_of(value: ir.Value | ir.Type) -> np.dtype | None:
    """The NumPy dtype of a static tensor's elements, or None."""
    t = static_type(value)
    return numpy_dtype(t.element_type) if t is not None else None


def is_float_type(t: ir.Type) -> bool:
    return isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type, ir.FloatType))


def is_complex_type(t: ir.Type) -> bool:
    return isinstance(t, ir.ComplexType)


def is_int_type(t: ir.Type) -> bool:
    """Integers of any width, bool (i1) included."""
    return isinstance(t, ir.IntegerType)


def is_bool_type(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and t.width == 1


def is_unsigned_type(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and t.is_unsigned


def defining_op(value: ir.Value) -> ir.OpView | None:
    """The op that defines ``value``, or None for a block argument."""
    owner = value.owner
    return owner if isinstance(owner, ir.OpView) else None


def _constant_op(value: ir.Value) -> ir.OpView | None:
    owner = value.owner
    return owner if type(owner) is hlo.ConstantOp else None


def is_splat_constant(value: ir.Value) -> bool:
    return splat_value(value) is not None


def _typed_constant(value: ir.Value):
    """(constant op, static type, NumPy dtype) of a constant whose element type NumPy
    has, else None."""
    op = _constant_op(value)
    if op is None:
        return None
    t = static_type(value)
    dt = numpy_dtype(t.element_type) if t is not None else None
    return None if dt is None else (op, t, dt)


def splat_value(value: ir.Value) -> np.generic | None:
    """The element of a splat constant (all elements equal) as a NumPy scalar, else None."""
    found = _typed_constant(value)
    if found is None:
        return None
    op, _, dt = found
    if dt.kind == "c":
        # a splat prints one element: read it as a one-element tensor
        arr = read_dense_text(op.operation.get_asm(), dt, (1,))
        return arr[0] if arr is not None else None
    attr = op.value
    if not isinstance(attr, ir.DenseElementsAttr) or not attr.is_splat:
        return None  # (dense_resource blobs are not read)
    return _scalar_from_attr(attr.get_splat_value(), dt)


def _scalar_from_attr(attr: ir.Attribute, dt: np.dtype) -> np.generic:
    if dt.kind == "b":
        return np.bool_(ir.IntegerAttr(attr).value != 0)
    if dt.kind in "iu":
        bits = dt.itemsize * 8
        raw = ir.IntegerAttr(attr).value & ((1 << bits) - 1)
        return np.array(raw, dtype=f"uint{bits}").view(dt)[()]
    # floats: FloatAttr.value is a double, which holds every f16/bf16/f32 value exactly
    return np.array(ir.FloatAttr(attr).value, dtype=np.float64).astype(dt)[()]


def constant_array(value: ir.Value, max_elements: int | None = None) -> np.ndarray | None:
    """The elements of a constant as a read-only NumPy array, or None.

    A splat comes back as a broadcast view (no copy). ``max_elements`` refuses
    larger non-splat constants.
    """
    found = _typed_constant(value)
    if found is None:
        return None
    op, t, dt = found
    shape = tuple(t.shape)
    size = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "c":
        # the bindings cannot hand out complex attributes: read the printed op
        if max_elements is not None and size > max_elements:
            return None
        arr = read_dense_text(op.operation.get_asm(), dt, shape)
    else:
        attr = op.value
        if not isinstance(attr, ir.DenseElementsAttr):
            return None  # (dense_resource blobs are not read)
        if attr.is_splat:
            s = _scalar_from_attr(attr.get_splat_value(), dt)
            return np.broadcast_to(np.asarray(s, dtype=dt), shape)
        if max_elements is not None and size > max_elements:
            return None
        arr = elements_to_numpy(attr, dt, shape)
    if arr is None:
        return None
    arr.flags.writeable = False
    return arr


def elements_to_numpy(attr: ir.DenseElementsAttr, dt: np.dtype, shape: Sequence[int]) -> np.ndarray | None:
    """A (non-complex) DenseElementsAttr as a NumPy array of ``dt`` and ``shape``."""
    shape = tuple(shape)
    if attr.is_splat:
        return np.full(shape, _scalar_from_attr(attr.get_splat_value(), dt), dtype=dt)
    if dt == _BF16:
        return read_dense_text(str(attr), dt, shape)
    arr = np.array(attr)
    if arr.dtype != dt:
        if arr.dtype.itemsize != dt.itemsize:
            return None
        arr = arr.view(dt)
    return arr.reshape(shape)


_DENSE_RE = re.compile(r"dense<(.*)>\s*:\s*tensor<", re.S)
_TOKEN_RE = re.compile(r"0x[0-9A-Fa-f]+|true|false|[-+]?(?:inf|nan)|[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")


def read_dense_text(text: str, dt: np.dtype, shape: Sequence[int]) -> np.ndarray | None:
    """Reads the elements of ``dense<...> : tensor<...>`` in printed MLIR (used for
    bf16 and complex, which the attribute buffer interface does not expose)."""
    m = _DENSE_RE.search(text)
    if m is None:
        return None
    body = m.group(1).strip()
    shape = tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    comp = np.dtype(np.float32 if dt == np.complex64 else np.float64) if dt.kind == "c" else dt
    per = 2 if dt.kind == "c" else 1
    if body.startswith('"0x'):
        arr = np.frombuffer(bytes.fromhex(body[3:-1]), dtype=dt)
        if arr.size == 1 and size != 1:
            return np.full(shape, arr[0], dtype=dt)
        return arr.reshape(shape).copy() if arr.size == size else None
    tokens = _TOKEN_RE.findall(body)
    comps = np.empty(len(tokens), dtype=comp)
    uint = np.dtype(f"uint{comp.itemsize * 8}")
    for i, tok in enumerate(tokens):
        if tok.startswith("0x"):
            comps[i] = np.array(int(tok, 16), dtype=uint).view(comp)
        elif tok in ("true", "false"):
            comps[i] = tok == "true"
        elif comp.kind in "iub":
            comps[i] = int(tok)
        else:
            comps[i] = np.array(float(tok)).astype(comp)
    if len(tokens) % per:
        return None
    vals = comps.view(dt) if per == 2 else comps
    if vals.size == 1 and size != 1:
        return np.full(shape, vals[0], dtype=dt)
    return vals.reshape(shape) if vals.size == size else None


def _all_same_bits(arr: np.ndarray) -> bool:
    if arr.size <= 1:
        return True
    flat = np.ascontiguousarray(arr).reshape(-1)
    raw = flat.view(np.uint8).reshape(flat.size, -1)
    return bool((raw == raw[0]).all())


def make_splat(value: Any, t: ir.RankedTensorType) -> ir.Value:
    """A splat constant of type ``t`` at the current insertion point."""
    dt = numpy_dtype(t.element_type)
    arr = np.asarray(value, dtype=dt).reshape(1)
    attr = ir.DenseElementsAttr.get(arr, type=t.element_type, shape=list(t.shape))
    return hlo.ConstantOp(attr).result


def make_constant(array: np.ndarray, t: ir.RankedTensorType) -> ir.Value:
    """A constant of type ``t`` holding ``array`` (a splat when all elements are
    bitwise equal), at the current insertion point."""
    dt = numpy_dtype(t.element_type)
    arr = np.asarray(array)
    if arr.dtype != dt:
        raise ValueError(f"make_constant: array of {arr.dtype} for a tensor of {t.element_type}")
    if tuple(arr.shape) != tuple(t.shape):
        raise ValueError(f"make_constant: array of shape {arr.shape} for {t}")
    if arr.size == 0 or _all_same_bits(arr):
        if arr.size == 0:
            attr = ir.DenseElementsAttr.get(np.zeros((1,), dt), type=t.element_type, shape=list(t.shape))
            return hlo.ConstantOp(attr).result
        return make_splat(arr.reshape(-1)[0], t)
    arr = np.ascontiguousarray(arr)
    attr = ir.DenseElementsAttr.get(arr, type=t.element_type, shape=list(t.shape))
    return hlo.ConstantOp(attr).result


def ints(attr: ir.Attribute | None) -> list[int] | None:
    """A DenseI64ArrayAttr / DenseIntElementsAttr / ArrayAttr of integers as a list."""
    if attr is None:
        return None
    if isinstance(attr, (ir.DenseI64ArrayAttr, ir.DenseI32ArrayAttr)):
        return [attr[i] for i in range(len(attr))]  # (indexing is much faster than iterating)
    if isinstance(attr, ir.DenseIntElementsAttr):
        return [int(v) for v in np.array(attr).reshape(-1)]
    return [ir.IntegerAttr(attr[i]).value for i in range(len(attr))]


def comparison_direction(op: ir.OpView) -> str:
    """"EQ", "NE", "LT", "LE", "GT" or "GE"."""
    return hlo.ComparisonDirectionAttr(op.comparison_direction).value


def compare_type(op: ir.OpView) -> str | None:
    """"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED" or None when absent."""
    attrs = op.operation.attributes
    if "compare_type" not in attrs:
        return None
    return hlo.ComparisonTypeAttr(attrs["compare_type"]).value

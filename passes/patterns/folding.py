"""Constant folding: ops whose operands are all constants become constants.

Only computations whose result StableHLO defines exactly are folded, and the
NumPy evaluation below reproduces that result bit for bit (NaN payloads aside):
integer arithmetic wraps, floating-point +, -, *, /, sqrt and conversions round
once to nearest even, comparisons follow IEEE-754. Everything whose value is
implementation-defined or approximate is left to the backend: transcendental
functions, float reductions (the summation order is not specified),
dot products, integer division by zero, out-of-range float-to-int conversions,
total-order comparisons, complex multiplication.

Evaluators take the operation and its operands as NumPy arrays and return the
result array, or None to decline.
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from ...xla.mlir import hlo, ir
from .core import RewritePattern, building
from .values import (
    _BF16, comparison_direction, compare_type, constant_array, ints, make_constant,
    numpy_dtype, static_type,
)

__all__ = ["folding_patterns", "EVALUATORS", "evaluate"]

Evaluator = Callable[[ir.OpView, Sequence[np.ndarray], np.dtype], "np.ndarray | None"]

def _is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt == _BF16


def _is_int(dt: np.dtype) -> bool:
    return dt.kind in "iu"


def _uint(dt: np.dtype) -> np.dtype:
    return np.dtype(f"uint{dt.itemsize * 8}")


def _sint(dt: np.dtype) -> np.dtype:
    return np.dtype(f"int{dt.itemsize * 8}")


# ---------------------------------------------------------------- elementwise


def _wide(a: np.ndarray) -> np.ndarray:
    """2-byte floats computed in float32: for +, -, *, /, sqrt and fmod, rounding
    the float32 result once more gives the correctly rounded 2-byte result
    (float32 has more than 2p+2 bits for p = 11 and p = 8)."""
    return a.astype(np.float32) if _is_float(a.dtype) and a.dtype.itemsize == 2 else a


def _arith(fn, a, b, dt):
    if _is_float(dt) and dt.itemsize == 2:
        return fn(_wide(a), _wide(b)).astype(dt)
    return fn(a, b, dtype=dt)


def _add(op, xs, dt):
    a, b = xs
    return _arith(np.add, a, b, dt) if dt.kind != "b" else np.logical_or(a, b)


def _subtract(op, xs, dt):
    a, b = xs
    if dt.kind == "b":
        return None
    return _arith(np.subtract, a, b, dt)


def _multiply(op, xs, dt):
    a, b = xs
    if dt.kind == "c":
        return None  # (a+bi)(c+di) may be contracted to FMAs by the backend
    return _arith(np.multiply, a, b, dt) if dt.kind != "b" else np.logical_and(a, b)


def _divide(op, xs, dt):
    a, b = xs
    if _is_float(dt):
        return _arith(np.divide, a, b, dt)
    if not _is_int(dt):
        return None
    if (b == 0).any():
        return None
    if dt.kind == "i":
        if ((a == np.iinfo(dt).min) & (b == -1)).any():
            return None
        q = np.floor_divide(a, b)
        r = np.remainder(a, b)
        # C division truncates toward zero; floor_divide rounds down
        return np.where((r != 0) & ((a < 0) != (b < 0)), q + 1, q).astype(dt)
    return np.floor_divide(a, b, dtype=dt)


def _remainder(op, xs, dt):
    a, b = xs
    if _is_float(dt):
        return _arith(np.fmod, a, b, dt)
    if not _is_int(dt) or (b == 0).any():
        return None
    if dt.kind == "i" and ((a == np.iinfo(dt).min) & (b == -1)).any():
        return None
    return np.fmod(a, b, dtype=dt)


def _max_min(fn):
    def ev(op, xs, dt):
        a, b = xs
        if dt.kind == "c":
            return None
        if _is_float(dt):
            # which zero max(-0.0, +0.0) returns is not fixed everywhere
            a, b = _wide(a), _wide(b)
            if ((a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))).any():
                return None
        return fn(a, b).astype(dt)
    return ev


def _bitwise(fn):
    def ev(op, xs, dt):
        if dt.kind not in "iub":
            return None
        return fn(*xs).astype(dt)
    return ev


def _shift(kind):
    def ev(op, xs, dt):
        if not _is_int(dt):
            return None
        a, b = xs
        bits = dt.itemsize * 8
        u = _uint(dt)
        amount = np.ascontiguousarray(b).view(u)
        ok = amount < bits
        s = np.where(ok, amount, 0).astype(u)
        au = np.ascontiguousarray(a).view(u)
        if kind == "left":
            out = np.where(ok, np.left_shift(au, s), u.type(0)).astype(u)
        elif kind == "logical":
            out = np.where(ok, np.right_shift(au, s), u.type(0)).astype(u)
        else:
            sv = np.ascontiguousarray(a).view(_sint(dt))
            out = np.where(ok, np.right_shift(sv, s.astype(sv.dtype)), np.right_shift(sv, bits - 1))
            out = out.astype(sv.dtype).view(u)
        return out.view(dt)
    return ev


def _negate(op, xs, dt):
    (a,) = xs
    if dt.kind == "b":
        return None
    return np.negative(a, dtype=dt)


def _abs(op, xs, dt):
    (a,) = xs
    if a.dtype != dt or not (_is_int(dt) or _is_float(dt)):
        return None
    return np.abs(_wide(a)).astype(dt)


def _not(op, xs, dt):
    (a,) = xs
    if dt.kind == "b":
        return np.logical_not(a)
    if _is_int(dt):
        return np.invert(a).astype(dt)
    return None


def _float_unary(fn):
    def ev(op, xs, dt):
        (a,) = xs
        if not _is_float(dt):
            return None
        return fn(_wide(a)).astype(dt)
    return ev


def _round_afz(a):
    """Round half away from zero, keeping the sign of zero (round(-0.3) is -0.0)."""
    t = np.trunc(a)
    with np.errstate(invalid="ignore"):
        away = np.isfinite(a) & (np.abs(a - t) >= 0.5)
    return np.where(away, t + np.copysign(np.ones_like(a), a), t)


def _sign(op, xs, dt):
    (a,) = xs
    if _is_float(dt):
        a = _wide(a)
        one = np.ones_like(a)
        return np.where(a > 0, one, np.where(a < 0, -one, a)).astype(dt)
    if dt.kind == "i":
        return np.sign(a).astype(dt)
    return None


def _is_finite(op, xs, dt):
    (a,) = xs
    if not _is_float(a.dtype):
        return None
    return np.isfinite(_wide(a))


def _popcnt(op, xs, dt):
    (a,) = xs
    if not _is_int(dt):
        return None
    raw = np.ascontiguousarray(a).view(np.uint8).reshape(a.shape + (dt.itemsize,))
    return np.unpackbits(raw, axis=-1).sum(axis=-1).astype(dt)


def _exact_in(values: np.ndarray, dt: np.dtype) -> bool:
    """Whether every element of a float array survives a round trip through ``dt``."""
    with np.errstate(all="ignore"):
        back = values.astype(dt).astype(values.dtype)
    same = (back == values) | (np.isnan(values) & np.isnan(back))
    return bool(same.all())


def _convert(op, xs, dt):
    (a,) = xs
    src = a.dtype
    if src == dt:
        return a
    if src.kind == "c":
        return None
    if dt.kind == "b":
        return a != 0
    if src.kind == "b":
        return a.astype(dt)
    if _is_int(src) and _is_int(dt):
        return a.astype(dt)
    if _is_int(src):  # -> float or complex, rounded once
        if dt == _BF16:
            # through float32, exact up to 2**24 (ml_dtypes rounds through float32)
            if (np.abs(a.astype(np.float64)) > 2 ** 24).any():
                return None
            return a.astype(np.float32).astype(dt)
        if dt.kind == "c":
            return a.astype(np.float32 if dt == np.complex64 else np.float64).astype(dt)
        if dt == np.float16:
            # through float64: exact below 2**53, and anything larger becomes inf either way
            return a.astype(np.float64).astype(dt)
        return a.astype(dt)
    # src is a float
    if dt.kind == "c":
        real = np.dtype(np.float32 if dt == np.complex64 else np.float64)
        if src.itemsize > real.itemsize and not _exact_in(a, real):
            return None
        return _wide(a).astype(dt)
    if _is_float(dt):
        if src == np.float64 and dt.itemsize == 2 and not _exact_in(a, np.dtype(np.float32)):
            return None  # f64 -> f16/bf16 may be rounded twice (through f32) by a backend
        if src.itemsize == 2 and dt.itemsize == 2:
            return a.astype(np.float32).astype(dt)
        return a.astype(dt)
    # float -> integer: out-of-range values and NaN convert in an implementation-defined way
    if not np.isfinite(a).all():
        return None
    t = np.trunc(a.astype(np.float64))
    info = np.iinfo(dt)
    if (t < info.min).any() or (t > info.max).any():
        return None
    if (np.abs(t) >= 2 ** 53).any():
        return None
    return t.astype(dt)


def _bitcast_convert(op, xs, dt):
    (a,) = xs
    if a.dtype.itemsize != dt.itemsize or a.dtype.kind == "b" or dt.kind == "b":
        return None
    return np.ascontiguousarray(a).view(dt)


def _real(op, xs, dt):
    (a,) = xs
    return np.real(a).astype(dt) if a.dtype.kind == "c" else None


def _imag(op, xs, dt):
    (a,) = xs
    return np.imag(a).astype(dt) if a.dtype.kind == "c" else None


def _complex(op, xs, dt):
    a, b = xs
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), dtype=dt)
    out.real = a
    out.imag = b
    return out


_DIRECTIONS = {
    "EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
    "GT": np.greater, "GE": np.greater_equal,
}


def _compare(op, xs, dt):
    a, b = xs
    direction = comparison_direction(op)
    ctype = compare_type(op)
    src = a.dtype
    if ctype == "TOTALORDER":
        return None
    if src.kind == "c":
        if direction not in ("EQ", "NE"):
            return None
    elif _is_int(src) or src.kind == "b":
        # the spec ties the comparison type to the element type; backends
        # disagree on mismatched ones (XLA rejects them, the interpreter
        # ignores the attribute)
        if ctype not in (None, "SIGNED" if src.kind == "i" else "UNSIGNED"):
            return None
    elif ctype not in (None, "FLOAT"):
        return None
    return _DIRECTIONS[direction](_wide(a), _wide(b))


def _select(op, xs, dt):
    p, a, b = xs
    return np.where(p, a, b).astype(dt)


def _clamp(op, xs, dt):
    lo, x, hi = xs
    if dt.kind == "c":
        return None
    if _is_float(dt):
        lo, x, hi = _wide(lo), _wide(x), _wide(hi)
        if any(np.isnan(v).any() or (v == 0).any() for v in (lo, x, hi)):
            return None
    return np.minimum(np.maximum(x, lo), hi).astype(dt)


# ---------------------------------------------------------------- shapes


def _broadcast_in_dim(op, xs, dt):
    (a,) = xs
    out_shape = tuple(static_type(op.result).shape)
    dims = ints(op.broadcast_dimensions)
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    a = np.transpose(a, order) if order != list(range(len(dims))) else a
    expanded = [1] * len(out_shape)
    for i in order:
        expanded[dims[i]] = xs[0].shape[i]
    return np.broadcast_to(a.reshape(expanded), out_shape)


def _reshape(op, xs, dt):
    return xs[0].reshape(tuple(static_type(op.result).shape))


def _transpose(op, xs, dt):
    return np.transpose(xs[0], ints(op.permutation))


def _slice(op, xs, dt):
    starts, limits, strides = ints(op.start_indices), ints(op.limit_indices), ints(op.strides)
    return xs[0][tuple(slice(s, l, t) for s, l, t in zip(starts, limits, strides))]


def _concatenate(op, xs, dt):
    return np.concatenate(xs, axis=ir.IntegerAttr(op.dimension).value)


def _reverse(op, xs, dt):
    dims = ints(op.dimensions)
    return np.flip(xs[0], axis=tuple(dims)) if dims else xs[0]


def _pad(op, xs, dt):
    a, pv = xs
    low, high, interior = ints(op.edge_padding_low), ints(op.edge_padding_high), ints(op.interior_padding)
    shape = [n + max(n - 1, 0) * i for n, i in zip(a.shape, interior)]
    inner = np.full(shape, pv.reshape(()), dtype=dt)
    inner[tuple(slice(None, None, i + 1) for i in interior)] = a
    padded = np.full([s + max(lo, 0) + max(hi, 0) for s, lo, hi in zip(shape, low, high)],
                     pv.reshape(()), dtype=dt)
    padded[tuple(slice(max(lo, 0), max(lo, 0) + s) for s, lo in zip(shape, low))] = inner
    crop = tuple(slice(max(-lo, 0), padded.shape[d] - max(-hi, 0)) for d, (lo, hi) in enumerate(zip(low, high)))
    return padded[crop]


def _iota(op, xs, dt):
    t = static_type(op.result)
    if dt.kind in "bc":
        return None
    dim = ir.IntegerAttr(op.iota_dimension).value
    n = t.shape[dim]
    if _is_float(dt) and n > (2 ** 8 if dt == _BF16 else 2 ** 11 if dt.itemsize == 2 else 2 ** 24):
        return None
    if _is_int(dt) and n - 1 > np.iinfo(dt).max:
        return None
    shape = [1] * len(t.shape)
    shape[dim] = n
    return np.broadcast_to(np.arange(n, dtype=np.int64).astype(dt).reshape(shape), tuple(t.shape))


_BOOL_REDUCERS = {
    "stablehlo.add": np.logical_or, "stablehlo.or": np.logical_or, "stablehlo.maximum": np.logical_or,
    "stablehlo.multiply": np.logical_and, "stablehlo.and": np.logical_and,
    "stablehlo.minimum": np.logical_and, "stablehlo.xor": np.logical_xor,
}
_INT_REDUCERS = {
    "stablehlo.add": np.add, "stablehlo.multiply": np.multiply, "stablehlo.maximum": np.maximum,
    "stablehlo.minimum": np.minimum, "stablehlo.and": np.bitwise_and, "stablehlo.or": np.bitwise_or,
    "stablehlo.xor": np.bitwise_xor,
}
# a float sum depends on the order of the additions, which StableHLO leaves open
_FLOAT_REDUCERS = {"stablehlo.maximum": np.maximum, "stablehlo.minimum": np.minimum}


def reducer_of(region: ir.Region) -> str | None:
    """The name of the binary op a single-op reduction body applies to its two
    arguments (``stablehlo.add`` for a sum), or None."""
    if len(region.blocks) != 1:
        return None
    block = region.blocks[0]
    ops = list(block.operations)
    if len(block.arguments) != 2 or len(ops) != 2:
        return None
    body, ret = ops
    if ret.operation.name != "stablehlo.return" or len(ret.operands) != 1:
        return None
    if len(body.results) != 1 or ret.operands[0] != body.results[0] or len(body.operands) != 2:
        return None
    x, y = body.operands
    a, b = block.arguments
    if not ((x == a and y == b) or (x == b and y == a)):
        return None
    return body.operation.name


def _reduce(op, xs, dt):
    if len(xs) != 2:
        return None
    a, init = xs
    name = reducer_of(op.body)
    src = a.dtype
    if name is None or src != dt:
        return None
    if src.kind == "b":
        fn = _BOOL_REDUCERS.get(name)
    elif _is_int(src):
        fn = _INT_REDUCERS.get(name)
    elif _is_float(src):
        fn = _FLOAT_REDUCERS.get(name)
        a, init = _wide(a), _wide(init)
        if fn is not None and (np.signbit(a[a == 0]).any() or np.signbit(init[init == 0]).any()):
            return None  # max/min of zeros of both signs depends on the order
    else:
        fn = None
    if fn is None:
        return None
    dims = tuple(ints(op.dimensions))
    out_shape = tuple(n for d, n in enumerate(a.shape) if d not in dims)
    init = init.reshape(())
    if a.size == 0:
        return np.broadcast_to(init, out_shape).astype(dt)
    kwargs = {"dtype": a.dtype} if fn in (np.add, np.multiply) else {}
    return fn(fn.reduce(a, axis=dims, **kwargs), init).astype(dt)


#: op class -> (evaluator, whether it is elementwise: splat operands give a splat result
#: computed from one element)
EVALUATORS: dict[type, tuple[Evaluator, bool]] = {
    hlo.AddOp: (_add, True),
    hlo.SubtractOp: (_subtract, True),
    hlo.MulOp: (_multiply, True),
    hlo.DivOp: (_divide, True),
    hlo.RemOp: (_remainder, True),
    hlo.MaxOp: (_max_min(np.maximum), True),
    hlo.MinOp: (_max_min(np.minimum), True),
    hlo.AndOp: (_bitwise(np.bitwise_and), True),
    hlo.OrOp: (_bitwise(np.bitwise_or), True),
    hlo.XorOp: (_bitwise(np.bitwise_xor), True),
    hlo.ShiftLeftOp: (_shift("left"), True),
    hlo.ShiftRightLogicalOp: (_shift("logical"), True),
    hlo.ShiftRightArithmeticOp: (_shift("arithmetic"), True),
    hlo.NegOp: (_negate, True),
    hlo.AbsOp: (_abs, True),
    hlo.NotOp: (_not, True),
    hlo.SqrtOp: (_float_unary(np.sqrt), True),
    hlo.FloorOp: (_float_unary(np.floor), True),
    hlo.CeilOp: (_float_unary(np.ceil), True),
    hlo.RoundNearestEvenOp: (_float_unary(np.rint), True),
    hlo.RoundOp: (_float_unary(_round_afz), True),
    hlo.SignOp: (_sign, True),
    hlo.IsFiniteOp: (_is_finite, True),
    hlo.PopulationCountOp: (_popcnt, True),
    hlo.ConvertOp: (_convert, True),
    hlo.BitcastConvertOp: (_bitcast_convert, True),
    hlo.RealOp: (_real, True),
    hlo.ImagOp: (_imag, True),
    hlo.ComplexOp: (_complex, True),
    hlo.CompareOp: (_compare, True),
    hlo.SelectOp: (_select, True),
    hlo.ClampOp: (_clamp, True),
    hlo.BroadcastInDimOp: (_broadcast_in_dim, False),
    hlo.ReshapeOp: (_reshape, False),
    hlo.TransposeOp: (_transpose, False),
    hlo.SliceOp: (_slice, False),
    hlo.ConcatenateOp: (_concatenate, False),
    hlo.ReverseOp: (_reverse, False),
    hlo.PadOp: (_pad, False),
    hlo.IotaOp: (_iota, False),
    hlo.ReduceOp: (_reduce, False),
}


#: largest number of operand elements a single fold reads
_MAX_WORK = 1 << 22

# ops that only move elements around: a splat operand gives a splat result
_SPLAT_PRESERVING = (hlo.BroadcastInDimOp, hlo.ReshapeOp, hlo.TransposeOp, hlo.SliceOp, hlo.ReverseOp)


def evaluate(op: ir.OpView, operands: Sequence[np.ndarray]) -> np.ndarray | None:
    """The value of ``op`` (one result, static type) applied to ``operands``, or None."""
    entry = EVALUATORS.get(type(op))
    if entry is None:
        return None
    t = static_type(op.results[0]) if len(op.results) == 1 else None
    dt = numpy_dtype(t.element_type) if t is not None else None
    if dt is None:
        return None
    with np.errstate(all="ignore"):
        out = entry[0](op, operands, dt)
    if out is None:
        return None
    out = np.asarray(out)
    if out.dtype != dt or out.shape != tuple(t.shape):
        return None
    return out


def _splat_scalar(arr: np.ndarray) -> np.ndarray | None:
    """A 1-element view of a 0-d array or of a constant read as a broadcast
    splat, else None."""
    if arr.ndim == 0:
        return arr.reshape(1)
    if arr.size > 0 and arr.strides == (0,) * arr.ndim:
        return arr.reshape(-1)[:1]
    return None


def folding_patterns(max_elements: int = 1 << 16, max_expanded_elements: int = 1024) -> list[RewritePattern]:
    """One pattern per foldable op class.

    Args:
        max_elements: never create a non-splat constant with more elements.
        max_expanded_elements: a non-splat result larger than all its non-splat
            operands together (iota, broadcast_in_dim, pad) may have at most
            this many elements.
    """
    # the same pattern objects for the same limits (and evaluators): apply_patterns
    # reuses the pattern set it built for them (core._frozen)
    return list(_folding_patterns(max_elements, max_expanded_elements, tuple(EVALUATORS)))


@functools.lru_cache(maxsize=16)
def _folding_patterns(max_elements: int, max_expanded_elements: int,
                      roots: tuple[type, ...]) -> tuple[RewritePattern, ...]:
    def fold_constant_op(op: ir.OpView, rewriter) -> bool:
        operands = list(op.operands)
        for v in operands:  # the cheapest test first: most ops have a non-constant operand
            if type(v.owner) is not hlo.ConstantOp:
                return False
        if len(op.results) != 1:
            return False
        t = static_type(op.results[0])
        if t is None or numpy_dtype(t.element_type) is None:
            return False
        if any(static_type(v) is None for v in operands):
            return False
        size = int(np.prod(t.shape, dtype=np.int64))
        arrays = []
        for v in operands:
            arr = constant_array(v, max_elements=max_elements)
            if arr is None:
                return False
            arrays.append(arr)
        elementwise = EVALUATORS[type(op)][1]
        scalars = [_splat_scalar(a) for a in arrays]
        if size > 1 and elementwise and operands and all(s is not None for s in scalars):
            # every operand is a splat: evaluate one element
            value = _evaluate_splat(op, scalars, t)
            if value is None:
                return False
        elif isinstance(op, _SPLAT_PRESERVING) and scalars[0] is not None:
            value = np.broadcast_to(scalars[0].reshape(()), tuple(t.shape))
        else:
            if size > max_elements or sum(a.size for a in arrays) > _MAX_WORK:
                return False  # e.g. a reduction over a huge splat: leave it to the backend
            value = evaluate(op, arrays)
            if value is None:
                return False
            dense_in = sum(a.size for a, s in zip(arrays, scalars) if s is None)
            if size > dense_in and size > max_expanded_elements and not _is_uniform(value):
                return False  # would bloat the module
        with building(rewriter, op):
            new = make_constant(value, t)
        rewriter.replace_op(op, [new])
        return True

    return tuple(RewritePattern(root, fold_constant_op, requires="constant operands") for root in roots)


def _is_uniform(arr: np.ndarray) -> bool:
    flat = np.ascontiguousarray(arr).reshape(-1)
    if flat.size <= 1:
        return True
    raw = flat.view(np.uint8).reshape(flat.size, -1)
    return bool((raw == raw[0]).all())


def _evaluate_splat(op: ir.OpView, scalars: list[np.ndarray], t: ir.RankedTensorType) -> np.ndarray | None:
    entry = EVALUATORS[type(op)]
    dt = numpy_dtype(t.element_type)
    with np.errstate(all="ignore"):
        out = entry[0](op, scalars, dt)
    if out is None:
        return None
    out = np.asarray(out)
    if out.dtype != dt or out.size != 1:
        return None
    return np.broadcast_to(out.reshape(()), tuple(t.shape))

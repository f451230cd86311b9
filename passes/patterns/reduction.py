"""Reductions of values that repeat: a splat constant, or a broadcast over the reduced dimensions.

Gradients make both: the cotangent of a broadcast is a sum over the
broadcast dimensions, and seeds and masks are splats. Every rewrite gives the
result the reduction gives in any order of evaluation, bit for bit:

- a reduction of a splat constant ``c`` over ``k`` elements per result is a
  splat constant: integers wrap (``init + k*c``, ``init * c**k``), ``max``,
  ``min``, ``and``, ``or`` and ``xor`` need one or two elements. A float sum is
  ``k*c`` only when every partial sum ``j*c`` (``j <= k``) is exact, i.e. the
  odd part of ``c``'s significand times ``k`` fits in the significand and
  ``c`` is a normal number (XLA flushes subnormals), with a zero ``init``
  (and, for ``c = ±0``, one of the same sign);
  other float sums, float products and complex reductions are left alone
  (their value depends on the summation order, which StableHLO leaves open);
- a reduction of ``broadcast_in_dim(x)`` over dimensions that only repeat
  ``x`` (the broadcast ones, and those of size 1 in ``x``) is computed on ``x``:
  a sum of integers is ``x * k`` (wrapping), ``max``/``min``/``and``/``or`` of
  copies is ``x`` itself, an ``xor`` of an even number of copies is 0; the
  ``init`` operand is combined once, and dropped when it is the reducer's
  identity. For floats only ``max``/``min`` with the identity as ``init``
  (``-inf``/``+inf``) qualify: ``max(init, x)`` of zeros of both signs depends
  on the order, and a float sum of ``k`` copies is not ``x * k``.

Only single-operand reductions whose body is one binary op (a sum, ...) are
rewritten; argmax-style variadic reductions are left alone.
"""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np

from ...xla.mlir import PatternRewriter, hlo, i64_array, ir
from .core import RewritePattern, building, rewrite_pattern
from .folding import reducer_of
from .values import _BF16, defining_op, ints, make_splat, numpy_dtype, splat_value, static_type

__all__ = ["REDUCTION_PATTERNS", "fold_reduce_of_splat", "fold_reduce_of_broadcast", "exact_float_sum"]

#: significand bits (the implicit one included)
_SIGNIFICAND = {np.dtype(np.float16): 11, _BF16: 8, np.dtype(np.float32): 24, np.dtype(np.float64): 53}

_OR = ("stablehlo.add", "stablehlo.or", "stablehlo.maximum")  # on booleans
_AND = ("stablehlo.multiply", "stablehlo.and", "stablehlo.minimum")  # on booleans


def _kind(dt: np.dtype) -> str:
    return "f" if dt == _BF16 else dt.kind


def _finfo(dt: np.dtype):
    return ml_dtypes.finfo(dt) if dt == _BF16 else np.finfo(dt)


def exact_float_sum(c: np.floating, k: int, init: np.floating) -> np.floating | None:
    """The sum of ``init`` and ``k`` copies of ``c`` when it is the same in every
    order of the additions (and no partial sum is subnormal), else None."""
    dt = np.asarray(c).dtype
    if k == 0:
        return init
    if float(init) != 0:
        return None
    if np.isnan(c) or np.isinf(c):
        return c  # inf + inf = inf; -0.0 and +0.0 added to them change nothing
    if float(c) == 0:
        # zeros of one sign sum to that zero; with both signs the result depends on
        # whether (and when) ``init`` is added (XLA may leave a +0.0 init out)
        return c if np.signbit(c) == np.signbit(init) else None
    info = _finfo(dt)
    if abs(float(c)) < float(info.tiny):
        return None  # subnormal: XLA flushes it to zero
    frac = Fraction(float(c))
    odd = abs(frac.numerator)
    while odd % 2 == 0:
        odd //= 2
    if odd * k >= 1 << _SIGNIFICAND[dt]:
        return None  # some partial sum rounds
    total = frac * k
    if abs(total) > Fraction(float(info.max)):
        return None  # overflows (to inf at a point that depends on the order)
    return np.array(float(total), dtype=dt)[()]


def _wrapped(n: int, dt: np.dtype) -> np.integer:
    """``n`` as an integer of ``dt``, wrapping around."""
    bits = dt.itemsize * 8
    return np.array(n & ((1 << bits) - 1), dtype=f"uint{bits}").view(dt)[()]


def _reduced_count(op: hlo.ReduceOp, shape) -> int:
    return int(np.prod([shape[d] for d in ints(op.dimensions)], dtype=object))


def _single_reduce(op: hlo.ReduceOp):
    """(operand, init, reducer name, result type) of a one-operand reduction with a
    one-op body and a static result type, else None."""
    if len(op.inputs) != 1 or len(op.init_values) != 1 or len(op.results) != 1:
        return None
    name = reducer_of(op.body)
    t = static_type(op.results[0])
    if name is None or t is None or numpy_dtype(t.element_type) is None:
        return None
    return op.inputs[0], op.init_values[0], name, t


def _splat_operand(v: ir.Value):
    """The element of a splat constant or of a broadcast of one, else None."""
    s = splat_value(v)
    if s is not None:
        return s
    inner = defining_op(v)
    if isinstance(inner, hlo.BroadcastInDimOp):
        return splat_value(inner.operand)
    return None


def _combine_splat(name: str, c, init, k: int, dt: np.dtype):
    """The reduction of ``k`` copies of ``c`` onto ``init`` (NumPy scalars of ``dt``), or None."""
    kind = _kind(dt)
    if kind == "b":
        c, init = bool(c), bool(init)
        if name in _OR:
            return init or (c and k > 0)
        if name in _AND:
            return init and (c or k == 0)
        if name == "stablehlo.xor":
            return init ^ (c and k % 2 == 1)
        return None
    if kind in "iu":
        bits = dt.itemsize * 8
        mask = (1 << bits) - 1
        ci, ii = int(c) & mask, int(init) & mask
        if name == "stablehlo.add":
            raw = (ii + k * ci) & mask
        elif name == "stablehlo.multiply":
            raw = (ii * pow(ci, k, 1 << bits)) & mask
        elif name == "stablehlo.xor":
            raw = ii ^ (ci if k % 2 else 0)
        elif name in ("stablehlo.and", "stablehlo.or"):
            if k == 0:
                raw = ii
            else:
                raw = (ii & ci) if name == "stablehlo.and" else (ii | ci)
        elif name in ("stablehlo.maximum", "stablehlo.minimum"):
            fn = np.maximum if name == "stablehlo.maximum" else np.minimum
            return init if k == 0 else fn(init, c)
        else:
            return None
        return _wrapped(raw, dt)
    if kind == "f":
        if name == "stablehlo.add":
            return exact_float_sum(c, k, init)
        if name in ("stablehlo.maximum", "stablehlo.minimum"):
            if k == 0:
                return init
            if float(c) == 0 and float(init) == 0 and np.signbit(c) != np.signbit(init):
                return None  # max(-0.0, +0.0) depends on the order
            fn = np.maximum if name == "stablehlo.maximum" else np.minimum
            return fn(init, c)
    return None


@rewrite_pattern(hlo.ReduceOp)
def fold_reduce_of_splat(op: hlo.ReduceOp, rewriter: PatternRewriter) -> bool:
    """reduce(splat c, init c0) -> the splat of its value (see the module for which ones)."""
    if len(op.inputs) != 1 or _splat_operand(op.inputs[0]) is None:
        return False  # (the cheap test first: reducer_of reads the body)
    found = _single_reduce(op)
    if found is None:
        return False
    x, init, name, t = found
    c, c0, tx = _splat_operand(x), splat_value(init), static_type(x)
    if c is None or c0 is None or tx is None:
        return False
    dt = numpy_dtype(t.element_type)
    if np.asarray(c).dtype != dt:
        return False
    with np.errstate(all="ignore"):
        value = _combine_splat(name, c, c0, _reduced_count(op, tx.shape), dt)
    if value is None:
        return False
    with building(rewriter, op):
        new = make_splat(value, t)
    rewriter.replace_op(op, [new])
    return True


def _identity(name: str, dt: np.dtype):
    """The identity element of a reducer on ``dt`` (a Python or NumPy scalar), or None."""
    kind = _kind(dt)
    if kind == "b":
        return False if name in _OR or name == "stablehlo.xor" else True if name in _AND else None
    if kind in "iu":
        info = np.iinfo(dt)
        return {"stablehlo.add": 0, "stablehlo.or": 0, "stablehlo.xor": 0,
                "stablehlo.and": -1 if kind == "i" else info.max,
                "stablehlo.maximum": info.min, "stablehlo.minimum": info.max}.get(name)
    if kind == "f":
        return {"stablehlo.maximum": -np.inf, "stablehlo.minimum": np.inf}.get(name)
    return None


def _is_identity(v: ir.Value, name: str, dt: np.dtype) -> bool:
    s, e = splat_value(v), _identity(name, dt)
    if s is None or e is None:
        return False
    return np.asarray(s).tobytes() == np.asarray(e).astype(dt).tobytes()


_BINARY = {
    "stablehlo.add": hlo.AddOp, "stablehlo.multiply": hlo.MulOp, "stablehlo.maximum": hlo.MaxOp,
    "stablehlo.minimum": hlo.MinOp, "stablehlo.and": hlo.AndOp, "stablehlo.or": hlo.OrOp,
    "stablehlo.xor": hlo.XorOp,
}


@rewrite_pattern(hlo.ReduceOp)
def fold_reduce_of_broadcast(op: hlo.ReduceOp, rewriter: PatternRewriter) -> bool:
    """reduce(broadcast_in_dim(x)) over dimensions that only repeat x -> computed on x
    (integers and booleans; max/min of floats; see the module)."""
    if len(op.inputs) != 1 or not isinstance(defining_op(op.inputs[0]), hlo.BroadcastInDimOp):
        return False  # (the cheap test first: reducer_of reads the body)
    found = _single_reduce(op)
    if found is None:
        return False
    v, init, name, t = found
    bcast = defining_op(v)
    x = bcast.operand
    tx, tv = static_type(x), static_type(v)
    if tx is None or tv is None:
        return False
    dt = numpy_dtype(t.element_type)
    kind = _kind(dt)
    reduced = set(ints(op.dimensions))
    dims = ints(bcast.broadcast_dimensions)
    if any(d in reduced and tx.shape[i] != 1 for i, d in enumerate(dims)):
        return False  # a reduced dimension that holds different elements of x
    k = _reduced_count(op, tv.shape)
    if k == 0:
        return False  # (fold_reduce_of_splat and the backend handle empty reductions)
    keep_init = not _is_identity(init, name, dt)
    if kind == "f":
        if name not in ("stablehlo.maximum", "stablehlo.minimum") or keep_init:
            return False
    elif kind not in "iub" or name not in _BINARY or (kind in "iu" and name == "stablehlo.multiply"):
        return False
    # x without its reduced (size-1) dimensions, broadcast to the result's shape
    kept = [i for i, d in enumerate(dims) if d not in reduced]
    position = {d: j for j, d in enumerate(d for d in range(len(tv.shape)) if d not in reduced)}
    with building(rewriter, op):
        y = x
        if len(kept) != len(dims):
            y = hlo.ReshapeOp(ir.RankedTensorType.get([tx.shape[i] for i in kept], t.element_type), x).result
        new_dims = [position[dims[i]] for i in kept]
        if y.type != t or new_dims != list(range(len(new_dims))):
            y = hlo.BroadcastInDimOp(t, y, i64_array(new_dims)).result
        bool_or = kind == "b" and name in _OR
        bool_and = kind == "b" and name in _AND
        if name == "stablehlo.xor":
            value = y if k % 2 else make_splat(0, t)
        elif name == "stablehlo.add" and not bool_or and k > 1:
            value = hlo.MulOp(y, make_splat(_wrapped(k, dt), t)).result
        else:
            value = y  # copies of y: max, min, and, or (and the boolean sum, an or)
        if keep_init:
            combine = hlo.OrOp if bool_or else hlo.AndOp if bool_and else _BINARY[name]
            spread = hlo.BroadcastInDimOp(t, init, i64_array([])).result
            value = combine(value, spread).result
    rewriter.replace_op(op, [value])
    return True


REDUCTION_PATTERNS: list[RewritePattern] = [fold_reduce_of_splat, fold_reduce_of_broadcast]

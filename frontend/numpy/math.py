"""NumPy's mathematical functions that compose other ops: the array-API
spellings of the elementwise functions (``acos``, ``atan2``,
``bitwise_left_shift``, ...), float utilities (``rint``, ``fabs``,
``float_power``, ``frexp``, ``ldexp``, ``modf``, ``divmod``, ``nan_to_num``),
integer ``gcd``/``lcm``, ``heaviside``, ``i0``, ``sinc``, ``cross``, ``unwrap``
and ``polyval``. None of them adds an Op: each builds a subgraph of existing
ones, so results follow the semantics (and dtypes) of NumPy 2. The ufuncs
themselves (``exp``, ``round``/``around``, ``maximum``, ...) are the Ops of
``frontend/ops/elemwise.py`` and ``frontend/ops/special.py``; sums, products and
differences with NaN handling are in ``statistics.py``.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ..graph import Constant, Variable
from ..types import DTYPES, as_dtype, dtype_name, is_complex, is_float, is_integer
from ..ops import elemwise as ew
from ..ops.basic import as_variable, broadcast_shapes, normalize_axis, result_type
from ..ops.control import while_loop
from ..ops.indexing import getitem
from ..ops.reduction import any as any_
from ..ops.reduction import cumsum
from ..ops.shape import broadcast_to, concatenate, stack, transpose, zeros_like
from ..ops.special import i0e
from .logic import isneginf, isposinf

__all__ = [
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_invert", "bitwise_left_shift",
    "bitwise_right_shift", "rint", "fabs", "float_power", "pow", "frexp", "ldexp", "modf", "divmod",
    "gcd", "lcm", "heaviside", "i0", "sinc", "nan_to_num", "cross", "unwrap", "polyval", "polyfit",
]

_INT32 = DTYPES["int32"]
_BOOL = DTYPES["bool"]

# NumPy 2's array-API spellings of the elementwise functions
acos = ew.arccos
acosh = ew.arccosh
asin = ew.arcsin
asinh = ew.arcsinh
atan = ew.arctan
atan2 = ew.arctan2
atanh = ew.arctanh
bitwise_invert = ew.invert
bitwise_left_shift = ew.left_shift
bitwise_right_shift = ew.right_shift


# --- helpers ---------------------------------------------------------------------------
def _loop(ufunc: np.ufunc, name: str, *dtypes: np.dtype) -> tuple[np.dtype, ...]:
    """The dtypes of NumPy's loop of ``ufunc`` for operands of ``dtypes`` (inputs, outputs)."""
    try:
        loop = ufunc.resolve_dtypes(tuple(dtypes) + (None,) * ufunc.nout)
    except (TypeError, np.exceptions.DTypePromotionError):
        raise TypeError(f"{name}: not defined for {', '.join(dtype_name(d) for d in dtypes)} "
                        f"inputs (as numpy.{ufunc.__name__})") from None
    return tuple(as_dtype(d) for d in loop)


def _unary_loop(ufunc: np.ufunc, name: str, x: Any) -> tuple[Variable, tuple[np.dtype, ...]]:
    """``x`` cast to the input dtype of NumPy's loop of ``ufunc``, and that loop's dtypes."""
    x = as_variable(x)
    loop = _loop(ufunc, name, x.dtype)
    return as_variable(x, loop[0]), loop


def _binary_loop(ufunc: np.ufunc, name: str, x1: Any, x2: Any) -> tuple[Variable, Variable, np.dtype]:
    """Both operands promoted (NEP 50) and cast to NumPy's loop dtype of ``ufunc``."""
    dt = result_type(x1, x2)
    loop = _loop(ufunc, name, dt, dt)
    mixed = ew.mixed_int_loop(ufunc, x1, x2)
    if mixed is not None and loop[0] != dt:
        loop = _loop(ufunc, name, mixed, mixed)
    return as_variable(x1, loop[0]), as_variable(x2, loop[1]), loop[-1]


def _moveaxis(x: Variable, source: int, dest: int) -> Variable:
    if source == dest:
        return x
    perm = [i for i in range(x.ndim) if i != source]
    perm.insert(dest, source)
    return transpose(x, perm)


def _scale_step(x: Variable, k: Variable, dt: np.dtype) -> Variable:
    """``x * 2**k`` for int32 ``k`` with ``|k| < maxexp`` of float dtype ``dt``: the power of
    two is built exactly from its bits, and negative ``k`` divide (one rounding)."""
    n = ew.abs(k)
    one = Constant(np.ones((), dt))
    p = one
    for i in range(int(np.finfo(dt).maxexp - 1).bit_length()):
        bit = ew.not_equal(ew.bitwise_and(ew.right_shift(n, i), 1), 0)
        p = ew.multiply(p, ew.where(bit, Constant(np.asarray(2.0 ** (2 ** i), dt)), one))
    return ew.where(ew.greater_equal(k, 0), ew.multiply(x, p), ew.divide(x, p))


# --- float and integer utilities -------------------------------------------------------
def rint(x: Any) -> Variable:
    """Round to the nearest integer, half to even, as numpy.rint (ints give NumPy's float;
    complex values round both parts, and need finite imaginary parts)."""
    x, _ = _unary_loop(np.rint, "rint", x)
    if is_complex(x.dtype):
        return ew.make_complex(ew.round(ew.real(x)), ew.round(ew.imag(x)), x.dtype)
    return ew.round(x)


def fabs(x: Any) -> Variable:
    """Absolute value computed in floating point, as numpy.fabs (complex is a TypeError)."""
    x, _ = _unary_loop(np.fabs, "fabs", x)
    return ew.abs(x)


def float_power(x1: Any, x2: Any) -> Variable:
    """``x1 ** x2`` computed in float64 (complex128 for complex inputs), as numpy.float_power."""
    x1, x2, _ = _binary_loop(np.float_power, "float_power", x1, x2)
    return ew.power(x1, x2)


pow = ew.power


def frexp(x: Any) -> tuple[Variable, Variable]:
    """Mantissa and exponent, ``x == m * 2**e`` with ``0.5 <= |m| < 1``, as numpy.frexp.
    ``m`` has the float dtype, ``e`` is int32; zeros, infinities and NaN give ``(x, 0)``.
    Subnormal inputs are not supported (devices may flush them to zero)."""
    x, loop = _unary_loop(np.frexp, "frexp", x)
    dt, edt = loop[1], loop[2]
    ax = ew.abs(x)
    # nonzero after an exact scaling: a device that flushes subnormals sees a subnormal
    # as the zero it computes with (frexp(0) is (0, 0)), not as a nonzero whose log2 is -inf
    scaled = ew.multiply(ax, Constant(np.asarray(2.0 ** (np.finfo(dt).nmant + 1), dt)))
    regular = ew.logical_and(ew.isfinite(x), ew.not_equal(scaled, 0))
    safe = ew.where(regular, ax, 1)
    e = ew.astype(ew.floor(ew.log2(safe)), _INT32) + 1
    # log2 may be off by one near powers of two: correct so that 0.5 <= |m| < 1.
    for _ in range(2):
        m = _scale(safe, ew.negative(e), dt)
        e = ew.where(ew.less(m, 0.5), e - 1, ew.where(ew.greater_equal(m, 1), e + 1, e))
    m = _scale(x, ew.negative(e), dt)
    return ew.where(regular, m, x), ew.astype(ew.where(regular, e, 0), edt)


def _scale(x: Variable, k: Variable, dt: np.dtype) -> Variable:
    """``x * 2**k`` in two exact steps so that no power of two overflows on its own."""
    k = ew.astype(k, _INT32)
    half = ew.floor_divide(k, 2)
    return _scale_step(_scale_step(x, half, dt), k - half, dt)


def ldexp(x1: Any, x2: Any) -> Variable:
    """``x1 * 2**x2`` for integer ``x2``, as numpy.ldexp (ints in ``x1`` give NumPy's float).
    Results that overflow are infinite; subnormal results may be flushed to zero on a device."""
    # a Python int or float is weak (NEP 50): NumPy's loop for ldexp(2, int64) is float16's
    weak = [type(v) if type(v) in (int, float) else None for v in (x1, x2)]
    x1, x2 = as_variable(x1), as_variable(x2)
    if not (is_integer(x2.dtype) or x2.dtype == np.bool_):
        raise TypeError(f"ldexp: exponent 'x2' must be an integer array, got {x2.type}")
    loop = _loop(np.ldexp, "ldexp", weak[0] or x1.dtype, weak[1] or x2.dtype)
    x1 = as_variable(x1, loop[0])
    dt = loop[-1]
    info = np.finfo(dt)
    # beyond this every finite nonzero result overflows or underflows
    bound = int(info.maxexp - info.minexp + info.nmant + 2)
    # the exponent in the loop's int type first (as NumPy's loop casts it: bool, int8 and
    # uint8 widen, uint64 wraps), so that the bounds fit the type of the clip
    k = ew.clip(ew.astype(x2, loop[1]), -bound, bound)
    k = ew.astype(k, _INT32)
    # four steps: each power of two stays within the normal range
    q = ew.floor_divide(k, 4)
    r = k - 3 * q
    out = x1
    for step in (q, q, q, r):
        out = _scale_step(out, step, dt)
    return out


def modf(x: Any) -> tuple[Variable, Variable]:
    """Fractional and integral parts, both with the sign of ``x``, as numpy.modf
    (``modf(inf) == (0, inf)``; ints give NumPy's float)."""
    x, _ = _unary_loop(np.modf, "modf", x)
    whole = ew.trunc(x)
    frac = ew.copysign(ew.where(ew.isinf(x), 0, ew.subtract(x, whole)), x)
    return frac, whole


def divmod(x1: Any, x2: Any) -> tuple[Variable, Variable]:
    """``(x1 // x2, x1 % x2)``, as numpy.divmod."""
    return ew.floor_divide(x1, x2), ew.remainder(x1, x2)


def _int_operands(name: str, x1: Any, x2: Any) -> tuple[Variable, Variable]:
    dt = result_type(x1, x2)
    if not is_integer(dt):
        raise TypeError(f"{name}: needs integer inputs (as numpy.{name}), got {dtype_name(dt)}")
    a, b = as_variable(x1, dt), as_variable(x2, dt)
    shape = broadcast_shapes(a.shape, b.shape, op=name)
    if None in shape:
        raise ValueError(f"{name}: needs static shapes, got {a.type} and {b.type}")
    return broadcast_to(a, shape), broadcast_to(b, shape)


def _unsigned_abs(a: Variable) -> Variable:
    """``|a|`` in the unsigned type of ``a``'s width, as NumPy's gcd and lcm take it
    (``|int64 min|`` is 2**63, not the wrapped int64 min)."""
    if a.dtype.kind == "u":
        return a
    return ew.astype(ew.abs(a), np.dtype(f"u{a.dtype.itemsize}"))


def _gcd_unsigned(a: Variable, b: Variable) -> Variable:
    def body(u, v):
        nz = ew.not_equal(v, 0)
        safe = ew.where(nz, v, 1)
        return ew.where(nz, v, u), ew.where(nz, ew.fmod(u, safe), 0)

    out = while_loop(lambda u, v: any_(ew.not_equal(v, 0)), body, [a, b])
    return out[0]


def gcd(x1: Any, x2: Any) -> Variable:
    """Greatest common divisor of ``|x1|`` and ``|x2|`` (``gcd(0, 0) == 0``), as numpy.gcd;
    integers only. Euclid's algorithm on the unsigned absolute values, as NumPy's, in a
    loop that stops when every pair is done."""
    a, b = _int_operands("gcd", x1, x2)
    return ew.astype(_gcd_unsigned(_unsigned_abs(a), _unsigned_abs(b)), a.dtype)


def lcm(x1: Any, x2: Any) -> Variable:
    """Least common multiple of ``|x1|`` and ``|x2|`` (0 when either is 0), as numpy.lcm;
    integers only."""
    a, b = _int_operands("lcm", x1, x2)
    ua, ub = _unsigned_abs(a), _unsigned_abs(b)
    g = _gcd_unsigned(ua, ub)
    zero = ew.equal(g, 0)
    q = ew.floor_divide(ua, ew.where(zero, 1, g))
    # |a| // g * |b| in the unsigned type, wrapping as NumPy's does, then cast back
    return ew.astype(ew.where(zero, 0, ew.multiply(q, ub)), a.dtype)


def heaviside(x1: Any, x2: Any) -> Variable:
    """Heaviside step: 0 for ``x1 < 0``, ``x2`` at 0, 1 for ``x1 > 0`` (NaN stays NaN), as
    numpy.heaviside (ints compute in float64)."""
    x1, x2, _ = _binary_loop(np.heaviside, "heaviside", x1, x2)
    out = ew.where(ew.less(x1, 0), 0, ew.where(ew.greater(x1, 0), 1, x2))
    return ew.where(ew.isnan(x1), x1, out)


def i0(x: Any) -> Variable:
    """Modified Bessel function of the first kind, order 0, as numpy.i0 (floats keep their
    dtype, other reals compute in float64; complex is a TypeError)."""
    x = as_variable(x)
    if is_complex(x.dtype):
        raise TypeError(f"i0: not supported for complex values, got {x.type}")
    if not is_float(x.dtype):
        x = ew.astype(x, DTYPES["float64"])
    ax = ew.abs(x)
    return ew.multiply(i0e(ax), ew.exp(ax))


def sinc(x: Any) -> Variable:
    """Normalized sinc ``sin(pi x) / (pi x)`` (1 at 0), as numpy.sinc."""
    x = as_variable(x)
    y = ew.multiply(np.pi, ew.where(ew.equal(x, 0), 1.0e-20, x))
    return ew.divide(ew.sin(y), y)


def _may_hold_nan(dt: np.dtype) -> bool:
    return is_float(dt) or is_complex(dt)


def nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Variable:
    """NaN replaced by ``nan``, infinities by ``posinf``/``neginf`` (default: the dtype's
    largest/smallest finite value), as numpy.nan_to_num; real and imaginary parts of complex
    values separately; other dtypes unchanged. ``copy`` is accepted for compatibility (graph
    values are never modified in place)."""
    x = as_variable(x)
    if not _may_hold_nan(x.dtype):
        return x

    def fix(v: Variable) -> Variable:
        info = np.finfo(v.dtype)
        hi = info.max if posinf is None else posinf
        lo = info.min if neginf is None else neginf
        v = ew.where(ew.isnan(v), Constant(np.asarray(nan).astype(v.dtype)), v)
        v = ew.where(isposinf(v), Constant(np.asarray(hi).astype(v.dtype)), v)
        return ew.where(isneginf(v), Constant(np.asarray(lo).astype(v.dtype)), v)

    if is_complex(x.dtype):
        re, im = fix(ew.real(x)), fix(ew.imag(x))
        return ew.make_complex(re, im, x.dtype)
    return fix(x)


# --- products --------------------------------------------------------------------------
def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Variable:
    """Cross product of 3-vectors (or 2-vectors, whose missing z is 0; two 2-vectors give the
    z component only) along ``axisa``/``axisb``, result vectors along ``axisc`` (``axis``
    sets all three), as numpy.cross."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = as_variable(a), as_variable(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("cross: at least one array has zero dimension")
    a = _moveaxis(a, normalize_axis(axisa, a.ndim, "cross"), a.ndim - 1)
    b = _moveaxis(b, normalize_axis(axisb, b.ndim, "cross"), b.ndim - 1)
    na, nb = a.shape[-1], b.shape[-1]
    if na is None or nb is None:
        raise ValueError(f"cross: the vector dims must be known, got {a.type} and {b.type}")
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError(f"cross: incompatible dimensions for cross product (dimension must "
                         f"be 2 or 3), got {na} and {nb}")
    dt = as_dtype(np.promote_types(a.dtype, b.dtype))
    if dt == _BOOL:
        raise TypeError("cross: bool inputs are not supported (as numpy.cross)")
    a, b = as_variable(a, dt), as_variable(b, dt)
    ac = [a[..., i] for i in range(na)]
    bc = [b[..., i] for i in range(nb)]
    z = ew.subtract(ew.multiply(ac[0], bc[1]), ew.multiply(ac[1], bc[0]))
    if na == 2 and nb == 2:
        return z
    if na == 2:
        c0, c1 = ew.multiply(ac[1], bc[2]), ew.negative(ew.multiply(ac[0], bc[2]))
    elif nb == 2:
        c0, c1 = ew.negative(ew.multiply(ac[2], bc[1])), ew.multiply(ac[2], bc[0])
    else:
        c0 = ew.subtract(ew.multiply(ac[1], bc[2]), ew.multiply(ac[2], bc[1]))
        c1 = ew.subtract(ew.multiply(ac[2], bc[0]), ew.multiply(ac[0], bc[2]))
    shape = broadcast_shapes(c0.shape, c1.shape, z.shape, op="cross")
    if None not in shape:
        c0, c1, z = (broadcast_to(c, shape) for c in (c0, c1, z))
    out = stack([c0, c1, z], axis=-1)
    return _moveaxis(out, out.ndim - 1, normalize_axis(axisc, out.ndim, "cross"))


# --- angles ----------------------------------------------------------------------------
def _along(axis: int, ndim: int, sl: Any) -> tuple:
    return (slice(None),) * axis + (sl,) + (slice(None),) * (ndim - axis - 1)


def _diff(p: Variable, axis: int) -> Variable:
    lo = getitem(p, _along(axis, p.ndim, slice(None, -1)))
    hi = getitem(p, _along(axis, p.ndim, slice(1, None)))
    return ew.subtract(hi, lo)


def unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: Any = 2 * np.pi) -> Variable:
    """numpy.unwrap: ``p`` with jumps between neighbours along ``axis`` larger than ``discont``
    (default ``period / 2``) shifted by multiples of ``period``, in the dtype of
    ``result_type(diff(p), period)``. ``discont`` and ``period`` are static numbers."""
    p = as_variable(p)
    if p.ndim == 0:
        raise ValueError("unwrap: diff requires input that is at least one dimensional")
    if p.dtype == np.bool_:
        raise TypeError("unwrap: boolean inputs are not supported (numpy.diff of booleans subtracts)")
    for name, v in (("discont", discont), ("period", period)):
        if isinstance(v, Variable):
            raise NotImplementedError(f"unwrap: {name} must be a static number")
    axis = normalize_axis(axis, p.ndim, "unwrap")
    dd = _diff(p, axis)
    if discont is None:
        discont = period / 2
    dt = result_type(dd, period)
    if dt.kind in "iu":
        interval_high, rem = builtins.divmod(period, 2)  # (this module's divmod is numpy.divmod)
        ambiguous = rem == 0
    else:
        interval_high = period / 2
        ambiguous = True
    interval_low = -interval_high
    ddmod = ew.add(ew.remainder(ew.subtract(dd, interval_low), period), interval_low)
    if ambiguous:
        ddmod = ew.where(ew.logical_and(ew.equal(ddmod, interval_low), ew.greater(dd, 0)),
                         as_variable(interval_high, ddmod.dtype), ddmod)
    correct = ew.subtract(ddmod, dd)
    correct = ew.where(ew.less(ew.abs(dd), discont), as_variable(0, correct.dtype), correct)
    rest = getitem(p, _along(axis, p.ndim, slice(1, None)))
    first = getitem(p, _along(axis, p.ndim, slice(None, 1)))
    rest = ew.add(rest, cumsum(correct, axis))
    return concatenate([as_variable(first, dt), as_variable(rest, dt)], axis)


# --- polynomials -----------------------------------------------------------------------
def polyval(p: Any, x: Any) -> Variable:
    """The polynomial with coefficients ``p`` (highest degree first) at ``x``, by
    Horner's rule as numpy.polyval; ``p`` a sequence or a 1-D array of known length."""
    if isinstance(p, (list, tuple)):
        coeffs = [as_variable(c) for c in p]
    else:
        pv = as_variable(p)
        if pv.ndim != 1 or pv.shape[0] is None:
            raise ValueError(f"polyval: p must be 1-D with a known length, got {pv.type}")
        coeffs = [pv[i] for i in range(pv.shape[0])]
    y = zeros_like(as_variable(x))
    x = as_variable(x)
    for c in coeffs:
        y = y * x + c
    return y


def polyfit(x: Any, y: Any, deg: int, rcond: Any = None, full: bool = False, w: Any = None, cov: Any = False):
    """Least-squares polynomial fit of degree ``deg`` (coefficients highest degree first),
    as numpy.polyfit: the Vandermonde matrix of ``x`` (weighted by ``w``) with its columns
    scaled to unit norm, solved by ``linalg.lstsq``; ``y`` 1-D or 2-D (one fit per column);
    ``full=True`` also returns ``(residuals, rank, singular_values, rcond)``. NumPy's
    RankWarning for a rank-deficient fit is not raised (the rank is a graph value)."""
    from ..ops import reduction as rd
    from .creation import vander
    from .linalg import lstsq
    order = int(deg) + 1
    if deg < 0:
        raise ValueError("polyfit: expected deg >= 0")
    x, y = ew.add(as_variable(x), 0.0), ew.add(as_variable(y), 0.0)
    if x.ndim != 1:
        raise TypeError("polyfit: expected 1D vector for x")
    if x.shape[0] == 0:
        raise TypeError("polyfit: expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("polyfit: expected 1D or 2D array for y")
    if x.shape[0] is not None and y.shape[0] is not None and x.shape[0] != y.shape[0]:
        raise TypeError("polyfit: expected x and y to have same length")
    if cov is not False:
        raise NotImplementedError("polyfit(..., cov=...) is not supported on graph values; with "
                                  "full=True the residuals give the scale: inv(A.T @ A) * resids / (n - deg - 1)")
    if rcond is None:
        if x.shape[0] is None:
            raise ValueError("polyfit: x must have a known length for the default rcond")
        rcond = x.shape[0] * np.finfo(x.dtype).eps
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = ew.add(as_variable(w), 0.0)
        if w.ndim != 1:
            raise TypeError("polyfit: expected a 1-d array for weights")
        if w.shape[0] is not None and x.shape[0] is not None and w.shape[0] != x.shape[0]:
            raise TypeError("polyfit: expected w and y to have the same length")
        # NumPy scales in place (lhs *= w, rhs *= w): each keeps its dtype
        lhs = ew.astype(ew.multiply(lhs, w[:, None]), lhs.dtype)
        rhs = ew.astype(ew.multiply(rhs, w[:, None] if rhs.ndim == 2 else w), rhs.dtype)
    scale = ew.sqrt(rd.sum(ew.multiply(lhs, lhs), axis=0))
    lhs = ew.divide(lhs, scale)
    c, resids, rank, sv = lstsq(lhs, rhs, rcond)
    c = ew.divide(c, scale[:, None] if c.ndim == 2 else scale)
    if full:
        return c, resids, rank, sv, rcond
    return c

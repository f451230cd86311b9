"""More NumPy-named functions, composed from the other families' builders.

Comparisons (``isclose``, ``allclose``, ``array_equal``, ``array_equiv``), float
utilities (``rint``, ``fabs``, ``frexp``, ``ldexp``, ``modf``, ``nan_to_num``, ...),
integer ``gcd``/``lcm``, sequences (``logspace``, ``geomspace``), products
(``inner``, ``vdot``, ``vecdot``, ``matvec``, ``vecmat``, ``cross``), ``correlate``
and the NumPy 2 array-API ``unique_*`` functions and ``setxor1d``. None of them
adds an Op: each builds a subgraph of existing ones, so results follow the
semantics (and dtypes) of NumPy 2.

Functions that NumPy answers with a Python bool (``allclose``, ``array_equal``,
``array_equiv``) return a 0-d bool graph value here, since the answer depends on
the inputs' values; ``isscalar`` is answered in Python, as in NumPy.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

from ..graph import Constant, Variable
from ..types import DTYPES, as_dtype, dtype_name, is_complex, is_float, is_integer
from . import elemwise as ew
from .basic import as_variable, broadcast_shapes, is_weak, normalize_axis, result_type

__all__ = [
    "isclose", "allclose", "array_equal", "array_equiv",
    "around", "rint", "fabs", "float_power", "pow", "frexp", "ldexp", "modf", "divmod",
    "gcd", "lcm", "heaviside", "i0", "sinc", "isneginf", "isposinf", "iscomplex", "isreal",
    "isscalar", "nan_to_num", "logspace", "geomspace", "correlate", "inner", "vdot", "vecdot",
    "matvec", "vecmat", "cross", "unique_values", "unique_counts", "unique_inverse",
    "unique_all", "setxor1d",
]

_INT64 = DTYPES["int64"]
_INT32 = DTYPES["int32"]
_BOOL = DTYPES["bool"]


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
    return as_variable(x1, loop[0]), as_variable(x2, loop[1]), loop[-1]


def _moveaxis(x: Variable, source: int, dest: int) -> Variable:
    from .shape import transpose
    if source == dest:
        return x
    perm = [i for i in range(x.ndim) if i != source]
    perm.insert(dest, source)
    return transpose(x, perm)


def _conj(x: Variable) -> Variable:
    """The complex conjugate; other dtypes pass through unchanged (numpy.conj of bool is int8)."""
    return ew.conj(x) if is_complex(x.dtype) else x


def _static_size(x: Variable, name: str) -> int:
    if any(d is None for d in x.shape):
        raise ValueError(f"{name}: needs a static shape, got {x.type}")
    return int(np.prod(x.shape, dtype=np.int64))


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


# --- comparisons -----------------------------------------------------------------------
def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Variable:
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (and ``a == b`` for infinities), as
    numpy.isclose; ``b`` is converted to at least float first. ``equal_nan`` counts NaNs as
    equal. A bool graph value of the broadcast shape."""
    if isinstance(rtol, Variable) or isinstance(atol, Variable):
        raise TypeError("isclose: rtol and atol must be Python numbers")
    if not is_weak(a):
        a = as_variable(a)
    if not is_weak(b):
        b = as_variable(b)
        b = as_variable(b, result_type(b, 1.0))
    elif isinstance(b, int):
        b = float(b)
    close = ew.less_equal(ew.abs(ew.subtract(a, b)), ew.add(atol, ew.multiply(rtol, ew.abs(b))))
    out = ew.logical_or(ew.logical_and(close, ew.isfinite(b)), ew.equal(a, b))
    if equal_nan:
        out = ew.logical_or(out, ew.logical_and(ew.isnan(a), ew.isnan(b)))
    return out


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Variable:
    """Whether every element of ``isclose(a, b, rtol, atol, equal_nan)`` holds, as
    numpy.allclose (a 0-d bool graph value instead of a Python bool)."""
    from .reduction import all as all_
    return all_(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _may_hold_nan(dt: np.dtype) -> bool:
    return is_float(dt) or is_complex(dt)


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Variable:
    """Same shape and same elements, as numpy.array_equal (a 0-d bool graph value). With
    ``equal_nan``, NaNs compare equal. Different static shapes give a constant False."""
    from .reduction import all as all_
    a1, a2 = as_variable(a1), as_variable(a2)
    if None in a1.shape or None in a2.shape:
        raise ValueError(f"array_equal: needs static shapes, got {a1.type} and {a2.type}")
    if a1.shape != a2.shape:
        return Constant(np.bool_(False))
    eq = ew.equal(a1, a2)
    if equal_nan and (_may_hold_nan(a1.dtype) or _may_hold_nan(a2.dtype)):
        eq = ew.logical_or(eq, ew.logical_and(ew.isnan(a1), ew.isnan(a2)))
    return all_(eq)


def array_equiv(a1: Any, a2: Any) -> Variable:
    """Shapes broadcast and all elements are equal, as numpy.array_equiv (a 0-d bool graph
    value; shapes that do not broadcast give a constant False)."""
    from .reduction import all as all_
    a1, a2 = as_variable(a1), as_variable(a2)
    if None in a1.shape or None in a2.shape:
        raise ValueError(f"array_equiv: needs static shapes, got {a1.type} and {a2.type}")
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return Constant(np.bool_(False))
    return all_(ew.equal(a1, a2))


# --- float and integer utilities -------------------------------------------------------
def around(a: Any, decimals: int = 0) -> Variable:
    """Round half to even to ``decimals`` digits, as numpy.around: integers keep their dtype
    (negative ``decimals`` round them to tens, hundreds, ... half to even); complex values
    round both parts (and need finite imaginary parts)."""
    a = as_variable(a)
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise TypeError(f"around: decimals must be an int, got {decimals!r}")
    if a.dtype == _BOOL and decimals != 0:
        raise TypeError("around: bool inputs only round with decimals=0 (as numpy.around)")
    if is_complex(a.dtype):
        parts = (ew.round(ew.real(a), int(decimals)), ew.round(ew.imag(a), int(decimals)))
        return _make_complex(*parts, a.dtype)
    if not is_integer(a.dtype):
        return ew.round(a, int(decimals))
    if decimals >= 0:
        return a
    scale = 10 ** (-int(decimals))
    if scale > np.iinfo(a.dtype).max:
        return ew.multiply(a, 0)
    r = ew.remainder(a, scale)
    q = ew.subtract(a, r)
    odd = ew.not_equal(ew.remainder(ew.floor_divide(q, scale), 2), 0)
    rest = ew.subtract(scale, r)
    up = ew.logical_or(ew.greater(r, rest), ew.logical_and(ew.equal(r, rest), odd))
    return ew.where(up, ew.add(q, scale), q)


def rint(x: Any) -> Variable:
    """Round to the nearest integer, half to even, as numpy.rint (ints give NumPy's float;
    complex values round both parts, and need finite imaginary parts)."""
    x, _ = _unary_loop(np.rint, "rint", x)
    if is_complex(x.dtype):
        return _make_complex(ew.round(ew.real(x)), ew.round(ew.imag(x)), x.dtype)
    return ew.round(x)


def _make_complex(re: Variable, im: Variable, dt: np.dtype) -> Variable:
    """``re + 1j * im`` as complex dtype ``dt`` (``im`` must be finite)."""
    return ew.add(ew.astype(re, dt), ew.multiply(ew.astype(im, dt), 1j))


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
    regular = ew.logical_and(ew.isfinite(x), ew.not_equal(x, 0))
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
    x1, x2 = as_variable(x1), as_variable(x2)
    if not is_integer(x2.dtype):
        raise TypeError(f"ldexp: exponent 'x2' must be an integer array, got {x2.type}")
    loop = _loop(np.ldexp, "ldexp", x1.dtype, x2.dtype)
    x1 = as_variable(x1, loop[0])
    dt = loop[-1]
    info = np.finfo(dt)
    # beyond this every finite nonzero result overflows or underflows
    bound = int(info.maxexp - info.minexp + info.nmant + 2)
    k = ew.minimum(x2, bound) if x2.dtype.kind == "u" else ew.clip(x2, -bound, bound)
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
    from .shape import broadcast_to
    return broadcast_to(a, shape), broadcast_to(b, shape)


def _gcd_abs(a: Variable, b: Variable) -> Variable:
    from .control import while_loop
    from .reduction import any as any_

    def body(u, v):
        nz = ew.not_equal(v, 0)
        safe = ew.where(nz, v, 1)
        return ew.where(nz, v, u), ew.where(nz, ew.fmod(u, safe), 0)

    out = while_loop(lambda u, v: any_(ew.not_equal(v, 0)), body, [ew.abs(a), ew.abs(b)])
    return out[0]


def gcd(x1: Any, x2: Any) -> Variable:
    """Greatest common divisor of ``|x1|`` and ``|x2|`` (``gcd(0, 0) == 0``), as numpy.gcd;
    integers only. Euclid's algorithm in a loop that stops when every pair is done."""
    a, b = _int_operands("gcd", x1, x2)
    return _gcd_abs(a, b)


def lcm(x1: Any, x2: Any) -> Variable:
    """Least common multiple of ``|x1|`` and ``|x2|`` (0 when either is 0), as numpy.lcm;
    integers only."""
    a, b = _int_operands("lcm", x1, x2)
    g = _gcd_abs(a, b)
    zero = ew.equal(g, 0)
    q = ew.floor_divide(ew.abs(a), ew.where(zero, 1, g))
    return ew.where(zero, 0, ew.abs(ew.multiply(q, b)))


def heaviside(x1: Any, x2: Any) -> Variable:
    """Heaviside step: 0 for ``x1 < 0``, ``x2`` at 0, 1 for ``x1 > 0`` (NaN stays NaN), as
    numpy.heaviside (ints compute in float64)."""
    x1, x2, _ = _binary_loop(np.heaviside, "heaviside", x1, x2)
    out = ew.where(ew.less(x1, 0), 0, ew.where(ew.greater(x1, 0), 1, x2))
    return ew.where(ew.isnan(x1), x1, out)


def i0(x: Any) -> Variable:
    """Modified Bessel function of the first kind, order 0, as numpy.i0 (floats keep their
    dtype, other reals compute in float64; complex is a TypeError)."""
    from .special import i0e
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


def _not_complex(name: str, x: Any) -> Variable:
    x = as_variable(x)
    if is_complex(x.dtype):
        raise TypeError(f"{name}: not supported for complex values, got {x.type} "
                        f"(it would be ambiguous)")
    return x


def isneginf(x: Any) -> Variable:
    """Elementwise test for negative infinity, as numpy.isneginf (complex is a TypeError)."""
    x = _not_complex("isneginf", x)
    return ew.logical_and(ew.isinf(x), ew.signbit(x))


def isposinf(x: Any) -> Variable:
    """Elementwise test for positive infinity, as numpy.isposinf (complex is a TypeError)."""
    x = _not_complex("isposinf", x)
    return ew.logical_and(ew.isinf(x), ew.logical_not(ew.signbit(x)))


def iscomplex(x: Any) -> Variable:
    """Elementwise: a nonzero imaginary part (always False for real dtypes), as numpy.iscomplex."""
    x = as_variable(x)
    if is_complex(x.dtype):
        return ew.not_equal(ew.imag(x), 0)
    from .shape import zeros
    return zeros(x.shape, _BOOL) if None not in x.shape else ew.not_equal(ew.imag(x), 0)


def isreal(x: Any) -> Variable:
    """Elementwise: a zero imaginary part (always True for real dtypes), as numpy.isreal."""
    x = as_variable(x)
    return ew.equal(ew.imag(x), 0)


def isscalar(element: Any) -> bool:
    """Whether ``element`` is a Python or NumPy scalar, as numpy.isscalar. Graph values are
    not scalars, not even 0-d ones (NumPy answers False for 0-d arrays too)."""
    if isinstance(element, Variable):
        return False
    return bool(np.isscalar(element)) or isinstance(element, numbers.Number)


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
        return _make_complex(re, im, x.dtype)
    return fix(x)


# --- sequences -------------------------------------------------------------------------
def _sequence_args(name: str, start: Any, stop: Any, axis: int) -> tuple[Variable, Variable]:
    start, stop = as_variable(start), as_variable(stop)
    if start.ndim or stop.ndim:
        raise NotImplementedError(f"{name}: graph-valued start and stop must be 0-d, got "
                                  f"{start.type} and {stop.type}")
    normalize_axis(axis, 1, name)
    return start, stop


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0) -> Variable:
    """``base ** linspace(start, stop, num, endpoint)``, as numpy.logspace, with a static
    ``num``: Python/NumPy values give a constant; graph-valued bounds must be 0-d."""
    from .construct import linspace
    if not any(isinstance(v, Variable) for v in (start, stop, base)):
        return Constant(np.logspace(start, stop, num, endpoint=endpoint, base=base, dtype=dtype,
                                    axis=axis))
    start, stop = _sequence_args("logspace", start, stop, axis)
    base = as_variable(base) if isinstance(base, Variable) or not isinstance(base, (int, float)) else base
    if isinstance(base, Variable) and base.ndim:
        raise NotImplementedError(f"logspace: a graph-valued base must be 0-d, got {base.type}")
    y = ew.power(base, linspace(start, stop, num, endpoint=endpoint))
    return y if dtype is None else ew.astype(y, dtype)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Variable:
    """A geometric progression from ``start`` to ``stop``, as numpy.geomspace, with a static
    ``num``: Python/NumPy values give a constant; graph-valued bounds must be 0-d and real
    (a zero bound gives NaN instead of NumPy's ValueError)."""
    from .indexing import at
    if not isinstance(start, Variable) and not isinstance(stop, Variable):
        return Constant(np.geomspace(start, stop, num, endpoint=endpoint, dtype=dtype, axis=axis))
    start, stop = _sequence_args("geomspace", start, stop, axis)
    # as NumPy: a 0-d array of ``dtype`` (float64 by default) joins the promotion
    dt = result_type(start, stop, float(num), np.zeros((), None if dtype is None else as_dtype(dtype)))
    if is_complex(dt):
        raise NotImplementedError("geomspace: complex graph-valued bounds are not supported")
    start, stop = as_variable(start, dt), as_variable(stop, dt)
    sign = ew.sign(start)
    start, stop = ew.divide(start, sign), ew.divide(stop, sign)
    out = logspace(ew.log10(start), ew.log10(stop), num, endpoint=endpoint, base=10.0, dtype=dt)
    if num > 0:
        out = at(out)[0].set(start)
        if num > 1 and endpoint:
            out = at(out)[-1].set(stop)
    out = ew.multiply(out, sign)
    return out if dtype is None else ew.astype(out, dtype)


# --- products --------------------------------------------------------------------------
def correlate(a: Any, v: Any, mode: str = "valid") -> Variable:
    """Cross-correlation of two 1-D sequences, ``c[k] = sum_n a[n + k] * conj(v[n])``, as
    numpy.correlate: 'valid' (the default), 'same' or 'full'."""
    from .construct import flip
    from .conv import ConvGeneralDilated, sequence_operands
    from .shape import reshape
    a, v = sequence_operands(a, v, mode, "correlate", ("valid", "same", "full"))
    n, k = a.shape[0], v.shape[0]
    if k > n:
        # NumPy swaps the operands and reverses (and conjugates) the result
        return _conj(flip(correlate(v, a, mode)))
    pad = {"full": (k - 1, k - 1), "same": (k // 2, k - 1 - k // 2), "valid": (0, 0)}[mode]
    # a convolution in StableHLO's sense slides the kernel unflipped: a correlation
    op = ConvGeneralDilated((1,), (pad,), (1,), (1,), ((0, 1, 2),) * 3)
    out = op(reshape(a, (1, 1, n)), reshape(_conj(v), (1, 1, k)))
    return reshape(out, (out.shape[-1],))


def inner(a: Any, b: Any) -> Variable:
    """Inner product over the last axes, as numpy.inner (0-d operands multiply); the result
    has ``a``'s other dims followed by ``b``'s."""
    from .linalg import tensordot
    a, b = as_variable(a), as_variable(b)
    if a.ndim == 0 or b.ndim == 0:
        return ew.multiply(a, b)
    if a.shape[-1] is not None and b.shape[-1] is not None and a.shape[-1] != b.shape[-1]:
        raise ValueError(f"inner: last dims differ, got {a.type} and {b.type}")
    return tensordot(a, b, axes=([-1], [-1]))


def vdot(a: Any, b: Any) -> Variable:
    """Dot product of the flattened inputs, conjugating ``a``, as numpy.vdot (0-d result)."""
    from .linalg import dot
    from .shape import reshape
    a, b = as_variable(a), as_variable(b)
    na, nb = _static_size(a, "vdot"), _static_size(b, "vdot")
    if na != nb:
        raise ValueError(f"vdot: inputs have different sizes, {a.type} and {b.type}")
    return dot(_conj(reshape(a, (-1,))), reshape(b, (-1,)))


def vecdot(x1: Any, x2: Any, axis: int = -1) -> Variable:
    """Vector dot product along ``axis`` (the other dims broadcast), conjugating ``x1``, as
    numpy.vecdot."""
    from .linalg import matmul
    from .shape import expand_dims, squeeze
    x1, x2 = as_variable(x1), as_variable(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"vecdot: inputs must have at least one dim, got {x1.type} and {x2.type}")
    x1 = _moveaxis(x1, normalize_axis(axis, x1.ndim, "vecdot"), x1.ndim - 1)
    x2 = _moveaxis(x2, normalize_axis(axis, x2.ndim, "vecdot"), x2.ndim - 1)
    out = matmul(expand_dims(_conj(x1), -2), expand_dims(x2, -1))
    return squeeze(out, (-2, -1))


def matvec(x1: Any, x2: Any) -> Variable:
    """Matrix-vector product over the last dims (the others broadcast), as numpy.matvec:
    ``(..., m, n) x (..., n) -> (..., m)``."""
    from .linalg import matmul
    from .shape import expand_dims, squeeze
    x1, x2 = as_variable(x1), as_variable(x2)
    if x1.ndim < 2 or x2.ndim < 1:
        raise ValueError(f"matvec: needs a matrix and a vector, got {x1.type} and {x2.type}")
    return squeeze(matmul(x1, expand_dims(x2, -1)), -1)


def vecmat(x1: Any, x2: Any) -> Variable:
    """Vector-matrix product over the last dims (the others broadcast), conjugating the
    vector, as numpy.vecmat: ``(..., m) x (..., m, n) -> (..., n)``."""
    from .linalg import matmul
    from .shape import expand_dims, squeeze
    x1, x2 = as_variable(x1), as_variable(x2)
    if x1.ndim < 1 or x2.ndim < 2:
        raise ValueError(f"vecmat: needs a vector and a matrix, got {x1.type} and {x2.type}")
    return squeeze(matmul(expand_dims(_conj(x1), -2), x2), -2)


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Variable:
    """Cross product of 3-vectors (or 2-vectors, whose missing z is 0; two 2-vectors give the
    z component only) along ``axisa``/``axisb``, result vectors along ``axisc`` (``axis``
    sets all three), as numpy.cross."""
    from .shape import stack
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = as_variable(a), as_variable(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("cross: at least one array has zero dimension")
    a = _moveaxis(a, normalize_axis(axisa, a.ndim, "cross"), a.ndim - 1)
    b = _moveaxis(b, normalize_axis(axisb, b.ndim, "cross"), b.ndim - 1)
    na, nb = a.shape[-1], b.shape[-1]
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
    from .shape import broadcast_to
    if None not in shape:
        c0, c1, z = (broadcast_to(c, shape) for c in (c0, c1, z))
    out = stack([c0, c1, z], axis=-1)
    return _moveaxis(out, out.ndim - 1, normalize_axis(axisc, out.ndim, "cross"))


# --- unique values and set operations ---------------------------------------------------
class UniqueCountsResult(NamedTuple):
    values: Variable
    counts: Variable


class UniqueInverseResult(NamedTuple):
    values: Variable
    inverse_indices: Variable


class UniqueAllResult(NamedTuple):
    values: Variable
    indices: Variable
    inverse_indices: Variable
    counts: Variable


def _unique_parts(x: Any, name: str):
    """(flat x, values, indices, inverse of the flat x, counts) with NaNs distinct (NumPy's
    ``equal_nan=False``): the unique non-NaN values in order, then every NaN in input order."""
    from . import dynamic as dy
    from .shape import concatenate, reshape
    x = as_variable(x)
    flat = reshape(x, (-1,))
    if not _may_hold_nan(x.dtype):
        values, index, inverse, counts = dy.unique(x, True, True, True)
        return x, values, index, inverse, counts
    nan = ew.isnan(flat)
    keep = ew.logical_not(nan)
    values, index, inverse, counts = dy.unique(dy.boolean_mask(flat, keep), True, True, True)
    nan_pos = dy.flatnonzero(nan)
    n_values = _length(values)
    from .reduction import cumsum
    nan_rank = ew.subtract(cumsum(ew.astype(nan, _INT64)), 1)
    placed = dy.mask_assign(ew.add(nan_rank, n_values), keep, inverse)
    return (x,
            concatenate([values, dy.boolean_mask(flat, nan)]),
            concatenate([_positions(keep, index), nan_pos]),
            placed,
            concatenate([counts, ew.astype(ew.add(ew.multiply(nan_pos, 0), 1), _INT64)]))


def _length(v: Variable) -> Variable:
    """The (dynamic) length of a 1-D value as a 0-d int64."""
    from .construct import shape_of
    return shape_of(v)[0]


def _positions(mask: Variable, index: Variable) -> Variable:
    """Positions in the full vector of the elements ``index`` picks from ``mask``'s selection."""
    from . import dynamic as dy
    from .indexing import take
    return take(dy.flatnonzero(mask), index)


def _inverse_shape(x: Variable, inverse: Variable) -> Variable:
    """The inverse indices shaped like ``x`` (at most one unknown dim of ``x``)."""
    from .shape import reshape
    if inverse.ndim == x.ndim:
        return inverse
    if sum(d is None for d in x.shape) > 1:
        raise ValueError(f"unique_inverse: the input may have at most one unknown dim, got {x.type}")
    return reshape(inverse, tuple(-1 if d is None else d for d in x.shape))


def unique_values(x: Any) -> Variable:
    """The unique elements of ``x`` (flattened), as numpy.unique_values, sorted (NumPy
    leaves the order unspecified); every NaN is its own value, after the others."""
    _, values, _, _, _ = _unique_parts(x, "unique_values")
    return values


def unique_counts(x: Any) -> UniqueCountsResult:
    """``(values, counts)`` of ``x`` (flattened), as numpy.unique_counts (sorted values,
    int64 counts; NaNs are distinct)."""
    _, values, _, _, counts = _unique_parts(x, "unique_counts")
    return UniqueCountsResult(values, counts)


def unique_inverse(x: Any) -> UniqueInverseResult:
    """``(values, inverse_indices)``, as numpy.unique_inverse: ``values[inverse_indices]``
    rebuilds ``x`` (the inverse has ``x``'s shape; NaNs are distinct)."""
    x, values, _, inverse, _ = _unique_parts(x, "unique_inverse")
    return UniqueInverseResult(values, _inverse_shape(x, inverse))


def unique_all(x: Any) -> UniqueAllResult:
    """``(values, indices, inverse_indices, counts)``, as numpy.unique_all: sorted unique
    values, the index of each one's first occurrence in the flattened ``x``, the inverse (with
    ``x``'s shape) and the counts, all int64; NaNs are distinct."""
    x, values, index, inverse, counts = _unique_parts(x, "unique_all")
    return UniqueAllResult(values, index, _inverse_shape(x, inverse), counts)


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Variable:
    """Sorted values in exactly one of ``ar1`` and ``ar2`` (flattened), as numpy.setxor1d
    (``assume_unique`` skips the per-input deduplication, as in NumPy)."""
    from . import dynamic as dy
    from .shape import concatenate, reshape
    from .sort import sort
    a1, a2 = reshape(as_variable(ar1), (-1,)), reshape(as_variable(ar2), (-1,))
    if not assume_unique:
        a1, a2 = dy.unique(a1), dy.unique(a2)
    aux = sort(concatenate([a1, a2]))
    true = Constant(np.ones(1, _BOOL))
    flag = concatenate([true, ew.not_equal(aux[1:], aux[:-1]), true])
    return dy.boolean_mask(aux, ew.logical_and(flag[1:], flag[:-1]))

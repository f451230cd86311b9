"""Elementwise ops: NumPy ufunc semantics, broadcasting, NEP 50 promotion.

Each Op class names its NumPy ufunc (the reference) or a ``reference``
function where NumPy has none. Builders promote their arguments to one dtype
and then cast them to the ufunc's loop dtype (``np.exp`` of int8 computes in
float16, ``np.divide`` of ints in float64), so every Elemwise node sees
operands of a single dtype and the lowering never guesses.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, ClassVar

import numpy as np

from ..graph import Apply, Constant, Op, Variable
from ..graph import NotDifferentiableError, UndefinedGradient
from ..types import is_inexact
from ..types import DTYPES, TensorType, as_dtype, dtype_name, is_complex, is_float, is_integer
from .basic import as_variable, broadcast_shapes, is_weak, promote, result_type

__all__ = [
    "Elemwise", "Cast", "astype", "where", "clip",
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder",
    "mod", "power", "maximum", "minimum", "negative", "abs", "absolute", "sign", "exp",
    "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid",
    "erf", "floor", "ceil", "round", "around", "isnan", "isfinite", "isinf", "logical_and",
    "logical_or", "logical_xor", "logical_not", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "invert", "square", "reciprocal",
    "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "exp2",
    "log2", "log10", "cbrt", "deg2rad", "radians", "rad2deg", "degrees", "trunc", "fix",
    "signbit", "positive", "conj", "conjugate", "bitwise_count", "popcount", "real", "imag",
    "angle", "arctan2", "hypot", "copysign", "nextafter", "left_shift", "right_shift",
    "logaddexp", "logaddexp2", "fmod", "fmax", "fmin",
]


def _erf(x: np.ndarray) -> np.ndarray:
    # NumPy has no erf; math.erf in float64 is exact to the last ulp of float32 and below.
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64))


class Elemwise(Op):
    """Base of elementwise ops: ``nin`` inputs of one dtype, broadcast NumPy-style."""

    nin: ClassVar[int] = 1
    #: The NumPy ufunc this Op means (None: see ``reference``).
    ufunc: ClassVar[np.ufunc | None] = None
    #: For ops NumPy lacks: the reference function and the kinds it accepts.
    reference: ClassVar[Callable[..., np.ndarray] | None] = None
    float_only: ClassVar[bool] = False
    #: Logical ops compute on booleans (NumPy converts with ``!= 0``).
    logical: ClassVar[bool] = False
    typed_by_inputs = True

    @classmethod
    @functools.cache  # resolving a ufunc's loop costs microseconds; graphs ask per node
    def loop_dtypes(cls, dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
        """(operand dtype, output dtype) NumPy uses for inputs of ``dtype``."""
        name = cls.__name__
        if cls.logical:
            return DTYPES["bool"], DTYPES["bool"]
        if cls.ufunc is not None:
            try:
                loop = cls.ufunc.resolve_dtypes((dtype,) * cls.nin + (None,))
            except (TypeError, np.exceptions.DTypePromotionError):
                raise TypeError(
                    f"{name}: not defined for {dtype_name(dtype)} inputs (as numpy.{cls.ufunc.__name__})"
                ) from None
            return as_dtype(loop[0]), as_dtype(loop[-1])
        # reference-only ops are float functions: ints compute in NumPy's float for them
        if is_float(dtype) or (is_complex(dtype) and not cls.float_only):
            return dtype, dtype
        if is_complex(dtype):
            raise TypeError(f"{name}: not defined for {dtype} inputs")
        dt = as_dtype(np.exp.resolve_dtypes((dtype, None))[1])
        return dt, dt

    def make_node(self, *inputs: Variable) -> Apply:
        name = type(self).__name__
        if len(inputs) != self.nin:
            raise TypeError(f"{name} takes {self.nin} inputs, got {len(inputs)}")
        inputs = tuple(as_variable(v) for v in inputs)
        dtypes = {v.dtype for v in inputs}
        if len(dtypes) != 1:
            raise TypeError(
                f"{name}: inputs must share one dtype, got "
                f"{', '.join(str(v.type) for v in inputs)} (the builder function promotes)"
            )
        dt = inputs[0].dtype
        in_dt, out_dt = _loop_dtypes(type(self), dt)
        if in_dt != dt:
            raise TypeError(
                f"{name}: computes on {dtype_name(in_dt)}, got {dtype_name(dt)} inputs "
                f"(the builder function casts)"
            )
        shape = broadcast_shapes(*(v.shape for v in inputs), op=name)
        t = None  # an input's type when it is the output's (one object less per node)
        if out_dt == dt:
            for v in inputs:
                if v.type.shape == shape:
                    t = v.type
                    break
        return Apply(self, inputs, [t if t is not None else TensorType(out_dt, shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        fn = self.ufunc if self.ufunc is not None else type(self).reference
        with np.errstate(all="ignore"):  # the cast may overflow too (float64 references)
            return [np.asarray(fn(*inputs), dtype=node.outputs[0].dtype)]

    # --- derivatives ----------------------------------------------------------
    def partials(self, *args: Variable) -> list[Any] | None:
        """The derivative of the output with respect to each input, given the inputs
        and then the output (reuse it: ``exp``'s is ``out``): a graph value that
        broadcasts with the output, a Python number, None (zero) or
        ``UndefinedGradient(reason)``. None (the default): no rule. ``pullback``
        multiplies the cotangent by each and sums broadcasting away;
        ``pushforward`` adds the tangents times each."""
        return None

    def pullback(self, node, cotangents):
        out = node.outputs[0]
        if not is_inexact(out.dtype):
            return [None] * len(node.inputs)  # comparisons, logical and bitwise ops
        parts = self.partials(*node.inputs, out)
        if parts is None:
            return super().pullback(node, cotangents)
        (ct,) = cotangents
        return [_cotangent(ct, d, x) for d, x in zip(parts, node.inputs)]

    def pushforward(self, node, tangents):
        out = node.outputs[0]
        if not is_inexact(out.dtype):
            return [None]
        parts = self.partials(*node.inputs, out)
        if parts is None:
            return super().pushforward(node, tangents)
        return [_tangent(self, out, tangents, parts)]


def _scaled(v: Variable, d: Any) -> Variable:
    if isinstance(d, (int, float)) and not isinstance(d, bool):
        if d == 1:
            return v
        if d == -1:
            return negative(v)
    return multiply(v, d)


def _cotangent(ct: Variable, d: Any, x: Variable) -> Any:
    """``ct * d`` summed to the shape of the input ``x`` (``d``: a partial derivative)."""
    if d is None or isinstance(d, UndefinedGradient) or not is_inexact(x.dtype):
        return d if isinstance(d, UndefinedGradient) else None
    from ..autodiff import sum_to
    return sum_to(_scaled(ct, d), x)


def _tangent(op: Op, out: Variable, tangents: list, parts: list) -> Variable | None:
    """The sum of the tangents times the partial derivatives, broadcast to ``out``."""
    terms = []
    for i, (t, d) in enumerate(zip(tangents, parts)):
        if t is None or d is None:
            continue
        if isinstance(d, UndefinedGradient):
            raise NotDifferentiableError(f"{op} has no derivative with respect to its input {i}: {d.reason}")
        terms.append(_scaled(t, d))
    if not terms:
        return None
    from ..autodiff import broadcast_like
    return broadcast_like(functools.reduce(add, terms), out)


_COMPARISONS = (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)


def _out_of_range_comparison(op: Elemwise, a: Any, b: Any) -> Variable | None:
    """NumPy 2 compares integers with a Python int outside their type exactly
    (``uint8 < -3`` is all False) where other ops raise OverflowError: that
    comparison, else None."""
    for i, (c, other) in enumerate(((b, a), (a, b))):
        if type(c) is not int or isinstance(other, (bool, int, float, complex)):
            continue
        other = as_variable(other)
        if other.dtype.kind not in "iu":
            continue
        info = np.iinfo(other.dtype)
        if info.min <= c <= info.max:
            return None
        side = 1 if c > info.max else -1  # the integer as 0, the Python int beyond it
        value = bool(op.ufunc(side, 0) if i == 1 else op.ufunc(0, side))
        return equal(other, other) if value else not_equal(other, other)
    return None


def apply_elemwise(op: Elemwise, *args: Any) -> Variable:
    """Promote ``args`` (NEP 50), cast to the op's loop dtype, build the node."""
    # the common cases first: graph values of one dtype the op computes on
    if len(args) == 1:
        x = args[0]
        if isinstance(x, Variable) and _loop_dtypes(type(op), x.dtype)[0] == x.dtype:
            return op(x)
    elif len(args) == 2:
        x, y = args
        if isinstance(x, Variable):
            if isinstance(y, Variable):
                if x.dtype == y.dtype and _loop_dtypes(type(op), x.dtype)[0] == x.dtype:
                    return op(x, y)
            elif type(y) is float and _float_loop(op, x.dtype):
                # a Python float adopts the float operand's dtype (NEP 50)
                return op(x, _weak_constant(y, x.dtype))
        elif type(x) is float and isinstance(y, Variable) and _float_loop(op, y.dtype):
            return op(_weak_constant(x, y.dtype), y)
    if len(args) == 2 and type(op).ufunc in _COMPARISONS:
        out = _out_of_range_comparison(op, *args)
        if out is not None:
            return out
    dt = result_type(*args)
    in_dt, _ = _loop_dtypes(type(op), dt)
    if in_dt != dt and len(args) == 2 and type(op).ufunc is not None and not op.logical:
        in_dt = mixed_int_loop(type(op).ufunc, *args) or in_dt
    return op(*(as_variable(a, in_dt) for a in args))


#: (value, its sign, dtype) -> the Constant of a Python float (graph values are immutable,
#: so the nodes of a graph share one constant per scalar)
_WEAK_CONSTANTS: dict[tuple, Constant] = {}


def _float_loop(op: Elemwise, dtype: np.dtype) -> bool:
    """``op`` computes on ``dtype``, a float dtype (where a Python float operand is cast)."""
    return is_float(dtype) and not op.logical and _loop_dtypes(type(op), dtype)[0] == dtype


def _weak_constant(value: float, dtype: np.dtype) -> Constant:
    key = (value, math.copysign(1.0, value), dtype)
    c = _WEAK_CONSTANTS.get(key)  # NaN never matches: a new constant each time
    if c is None:
        c = as_variable(value, dtype)
        if len(_WEAK_CONSTANTS) >= 1024:
            _WEAK_CONSTANTS.clear()
        _WEAK_CONSTANTS[key] = c
    return c


@functools.cache
def _loop_dtypes(cls: type, dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    """``cls.loop_dtypes(dtype)``, once per class and dtype (a dtype it is not
    defined for raises each time)."""
    return cls.loop_dtypes(dtype)


@functools.cache
def _resolve_loop(ufunc: np.ufunc, dtypes: tuple) -> np.dtype | None:
    try:
        loop = ufunc.resolve_dtypes(dtypes + (None,))
    except (TypeError, np.exceptions.DTypePromotionError):
        return None
    return as_dtype(loop[0]) if loop[0] == loop[1] else None


def mixed_int_loop(ufunc: np.ufunc, x: Any, y: Any) -> np.dtype | None:
    """The input dtype of the loop NumPy picks for arrays of two different integer dtypes
    (None for any other pair): the first loop both cast to safely, which differs from
    their common type's loop where that type has none of its own (``copysign`` of int8
    and uint8 computes in float16, where int16, their common type, would take float32)."""
    if is_weak(x) or is_weak(y):
        return None
    dtypes = tuple(a.dtype if isinstance(a, Variable) else np.asarray(a).dtype for a in (x, y))
    if dtypes[0] == dtypes[1] or not all(d.kind in "biu" for d in dtypes):
        return None
    return _resolve_loop(ufunc, dtypes)


# --- unary ---------------------------------------------------------------
# ``partials(x, out)`` gives d out / dx (see Elemwise.partials); holomorphic
# formulas serve complex inputs too (jax's convention, no conjugate).
class Negative(Elemwise):
    ufunc = np.negative
    def partials(self, x, out): return [-1]


class Abs(Elemwise):
    """|x|; the derivative at 0 is 1, as jax's; complex x: ``conj(x) / |x|`` (0 at 0)."""

    ufunc = np.absolute

    def pullback(self, node, cotangents):
        (ct,), (x,), out = cotangents, node.inputs, node.outputs[0]
        if not is_inexact(x.dtype):
            return [None]
        if not is_complex(x.dtype):
            return [where(greater_equal(x, 0), ct, negative(ct))]
        return [multiply(astype(ct, x.dtype), _unit_conj(x, out))]

    def pushforward(self, node, tangents):
        (t,), (x,), out = tangents, node.inputs, node.outputs[0]
        if t is None or not is_inexact(x.dtype):
            return [None]
        if not is_complex(x.dtype):
            return [where(greater_equal(x, 0), t, negative(t))]
        return [real(multiply(t, _unit_conj(x, out)))]


def _unit_conj(x: Variable, magnitude: Variable) -> Variable:
    """conj(x) / |x| with 0 where x == 0 (``magnitude`` is |x|)."""
    safe = where(equal(magnitude, 0), 1, magnitude)
    return divide(conj(x), astype(safe, x.dtype))


class Sign(Elemwise):
    ufunc = np.sign
    def partials(self, x, out): return [None]


class Exp(Elemwise):
    ufunc = np.exp
    def partials(self, x, out): return [out]


class Log(Elemwise):
    ufunc = np.log
    def partials(self, x, out): return [reciprocal(x)]


class Log1p(Elemwise):
    ufunc = np.log1p
    def partials(self, x, out): return [reciprocal(add(x, 1))]


class Expm1(Elemwise):
    ufunc = np.expm1
    def partials(self, x, out): return [add(out, 1)]


class Sqrt(Elemwise):
    ufunc = np.sqrt
    def partials(self, x, out): return [divide(0.5, out)]


class Sin(Elemwise):
    ufunc = np.sin
    def partials(self, x, out): return [cos(x)]


class Cos(Elemwise):
    ufunc = np.cos
    def partials(self, x, out): return [negative(sin(x))]


class Tan(Elemwise):
    ufunc = np.tan
    def partials(self, x, out): return [add(1, square(out))]


class Tanh(Elemwise):
    ufunc = np.tanh
    def partials(self, x, out): return [subtract(1, square(out))]


class Floor(Elemwise):
    ufunc = np.floor
    def partials(self, x, out): return [None]


class Ceil(Elemwise):
    ufunc = np.ceil
    def partials(self, x, out): return [None]


class Round(Elemwise):  # half to even, as np.round with decimals=0
    ufunc = np.rint
    def partials(self, x, out): return [None]


class IsNan(Elemwise): ufunc = np.isnan
class IsFinite(Elemwise): ufunc = np.isfinite
class IsInf(Elemwise): ufunc = np.isinf
class BitwiseNot(Elemwise): ufunc = np.invert


class Square(Elemwise):
    ufunc = np.square
    def partials(self, x, out): return [multiply(x, 2)]


class Reciprocal(Elemwise):
    # np.reciprocal keeps integer dtypes (bool computes in int8): it truncates 1 / x
    ufunc = np.reciprocal
    def partials(self, x, out): return [negative(square(out))]


class LogicalNot(Elemwise):
    ufunc = np.logical_not
    logical = True


class Rsqrt(Elemwise):
    reference = staticmethod(lambda x: 1 / np.sqrt(x))
    def partials(self, x, out): return [multiply(divide(out, x), -0.5)]


class Sigmoid(Elemwise):
    reference = staticmethod(lambda x: 1 / (1 + np.exp(-x)))
    float_only = True
    def partials(self, x, out): return [multiply(out, subtract(1, out))]


class Erf(Elemwise):
    reference = staticmethod(lambda x: _erf(x))
    float_only = True
    def partials(self, x, out): return [multiply(exp(negative(square(x))), 2 / math.sqrt(math.pi))]


# --- trigonometric, hyperbolic, exponential and logarithmic ---------------
class Arcsin(Elemwise):
    ufunc = np.arcsin
    def partials(self, x, out): return [rsqrt(subtract(1, square(x)))]


class Arccos(Elemwise):
    ufunc = np.arccos
    def partials(self, x, out): return [negative(rsqrt(subtract(1, square(x))))]


class Arctan(Elemwise):
    ufunc = np.arctan
    def partials(self, x, out): return [reciprocal(add(1, square(x)))]


class Sinh(Elemwise):
    ufunc = np.sinh
    def partials(self, x, out): return [cosh(x)]


class Cosh(Elemwise):
    ufunc = np.cosh
    def partials(self, x, out): return [sinh(x)]


class Arcsinh(Elemwise):
    ufunc = np.arcsinh
    def partials(self, x, out): return [rsqrt(add(square(x), 1))]


class Arccosh(Elemwise):
    ufunc = np.arccosh
    def partials(self, x, out): return [rsqrt(multiply(subtract(x, 1), add(x, 1)))]


class Arctanh(Elemwise):
    ufunc = np.arctanh
    def partials(self, x, out): return [reciprocal(subtract(1, square(x)))]


class Exp2(Elemwise):
    ufunc = np.exp2
    def partials(self, x, out): return [multiply(out, math.log(2))]


class Log2(Elemwise):
    ufunc = np.log2
    def partials(self, x, out): return [reciprocal(multiply(x, math.log(2)))]


class Log10(Elemwise):
    ufunc = np.log10
    def partials(self, x, out): return [reciprocal(multiply(x, math.log(10)))]


class Cbrt(Elemwise):
    ufunc = np.cbrt
    def partials(self, x, out): return [reciprocal(multiply(square(out), 3))]


class Deg2rad(Elemwise):
    ufunc = np.deg2rad
    def partials(self, x, out): return [math.pi / 180]


class Rad2deg(Elemwise):
    ufunc = np.rad2deg
    def partials(self, x, out): return [180 / math.pi]


class Trunc(Elemwise):
    ufunc = np.trunc
    def partials(self, x, out): return [None]


class Signbit(Elemwise): ufunc = np.signbit


class Positive(Elemwise):
    ufunc = np.positive
    def partials(self, x, out): return [1]


class Conj(Elemwise):
    """The conjugate: its derivative is not holomorphic; the pullback conjugates too."""

    ufunc = np.conjugate

    def pullback(self, node, cotangents):
        return [conj(cotangents[0]) if is_inexact(node.inputs[0].dtype) else None]

    def pushforward(self, node, tangents):
        t = tangents[0]
        return [None if t is None or not is_inexact(t.dtype) else conj(t)]


class Popcount(Elemwise):
    # counts the bits of |x| for signed integers, as numpy.bitwise_count
    ufunc = np.bitwise_count


class _ComplexPart(Elemwise):
    """Real-valued functions of complex numbers that NumPy defines as plain functions."""

    @classmethod
    def loop_dtypes(cls, dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
        if is_complex(dtype):
            return dtype, as_dtype(np.zeros((), dtype).real.dtype)
        if cls is Angle:  # arctan2(0, x): ints compute in NumPy's float for them
            # (the Python 0 makes a bool input int64, so float64)
            src = DTYPES["int64"] if dtype == np.bool_ else dtype
            dt = as_dtype(np.arctan2.resolve_dtypes((src, src, None))[-1])
            return dt, dt
        return dtype, dtype


    # the derivatives of complex inputs are R-linear, not holomorphic: each class gives
    # ``_complex_pullback`` (the transpose, as jax) and ``_complex_pushforward``
    def pullback(self, node, cotangents):
        x = node.inputs[0]
        if not is_complex(x.dtype):
            return super().pullback(node, cotangents)
        return [self._complex_pullback(x, node.outputs[0], cotangents[0])]

    def pushforward(self, node, tangents):
        x = node.inputs[0]
        if not is_complex(x.dtype):
            return super().pushforward(node, tangents)
        t = tangents[0]
        return [None if t is None else self._complex_pushforward(x, node.outputs[0], t)]


class Real(_ComplexPart):
    reference = staticmethod(lambda x: np.real(x).copy())
    def partials(self, x, out): return [1]
    def _complex_pullback(self, x, out, ct): return astype(ct, x.dtype)
    def _complex_pushforward(self, x, out, t): return real(t)


class Imag(_ComplexPart):
    reference = staticmethod(lambda x: np.imag(x).copy())
    def partials(self, x, out): return [None]  # zeros for real x
    def _complex_pullback(self, x, out, ct): return multiply(astype(ct, x.dtype), -1j)
    def _complex_pushforward(self, x, out, t): return imag(t)


class Angle(_ComplexPart):
    reference = staticmethod(lambda x: np.angle(x))
    def partials(self, x, out): return [None]  # 0 or pi for real x

    def _complex_pullback(self, x, out, ct):
        # -1j * ct * conj(x) / |x|**2
        return multiply(astype(ct, x.dtype), divide(multiply(conj(x), -1j), astype(_abs2(x), x.dtype)))

    def _complex_pushforward(self, x, out, t):
        return divide(imag(multiply(conj(x), t)), _abs2(x))


def _abs2(x: Variable) -> Variable:
    """|x|**2 of complex ``x``, real."""
    return add(square(real(x)), square(imag(x)))


# --- binary --------------------------------------------------------------
class Binary(Elemwise):
    nin = 2


class Add(Binary):
    ufunc = np.add
    def partials(self, x, y, out): return [1, 1]


class Subtract(Binary):
    ufunc = np.subtract
    def partials(self, x, y, out): return [1, -1]


class Multiply(Binary):
    ufunc = np.multiply
    def partials(self, x, y, out): return [y, x]


class Divide(Binary):
    ufunc = np.true_divide

    def pullback(self, node, cotangents):
        (ct,), (x, y), out = cotangents, node.inputs, node.outputs[0]
        if not is_inexact(out.dtype):
            return [None, None]
        from ..autodiff import sum_to
        q = divide(ct, y)
        return [sum_to(q, x), sum_to(negative(multiply(q, out)), y)]

    def pushforward(self, node, tangents):
        (tx, ty), (x, y), out = tangents, node.inputs, node.outputs[0]
        if not is_inexact(out.dtype):
            return [None]
        num = tx if ty is None else negative(multiply(out, ty)) if tx is None \
            else subtract(tx, multiply(out, ty))
        from ..autodiff import broadcast_like
        return [broadcast_like(divide(num, y), out)]


class FloorDivide(Binary):
    ufunc = np.floor_divide
    def partials(self, x, y, out): return [None, None]


class Remainder(Binary):
    ufunc = np.remainder
    def partials(self, x, y, out): return [1, negative(floor(divide(x, y)))]


class Power(Binary):
    """x ** y; derivatives as jax's: y * x ** (y - 1) and log(x) * out, with log(1)
    where x == 0 (so 0 ** y has a zero y-derivative)."""

    ufunc = np.power

    def partials(self, x, y, out):
        return [multiply(y, power(x, subtract(y, 1))), multiply(log(where(equal(x, 0), 1, x)), out)]


def _balanced(x: Variable, y: Variable, out: Variable) -> list[Variable]:
    """Derivatives of maximum/minimum: 1 to the input equal to ``out``, halves on ties (jax)."""
    mx, my = astype(equal(x, out), out.dtype), astype(equal(y, out), out.dtype)
    return [divide(mx, add(my, 1)), divide(my, add(mx, 1))]


class Maximum(Binary):
    ufunc = np.maximum
    def partials(self, x, y, out): return _balanced(x, y, out)


class Minimum(Binary):
    ufunc = np.minimum
    def partials(self, x, y, out): return _balanced(x, y, out)


class BitwiseAnd(Binary): ufunc = np.bitwise_and
class BitwiseOr(Binary): ufunc = np.bitwise_or
class BitwiseXor(Binary): ufunc = np.bitwise_xor
class Equal(Binary): ufunc = np.equal
class NotEqual(Binary): ufunc = np.not_equal
class Less(Binary): ufunc = np.less
class LessEqual(Binary): ufunc = np.less_equal
class Greater(Binary): ufunc = np.greater
class GreaterEqual(Binary): ufunc = np.greater_equal


class LogicalAnd(Binary):
    ufunc = np.logical_and
    logical = True


class LogicalOr(Binary):
    ufunc = np.logical_or
    logical = True


class LogicalXor(Binary):
    ufunc = np.logical_xor
    logical = True


class Arctan2(Binary):
    ufunc = np.arctan2

    def partials(self, y, x, out):  # arctan2(y, x): the angle of the point (x, y)
        r2 = add(square(x), square(y))
        return [divide(x, r2), negative(divide(y, r2))]


class Hypot(Binary):
    ufunc = np.hypot

    def partials(self, x, y, out):  # x / out and y / out, 0 at the origin
        safe = where(equal(out, 0), 1, out)
        return [divide(x, safe), divide(y, safe)]


class Copysign(Binary):
    ufunc = np.copysign

    def partials(self, x, y, out):  # +-1 (1 at x == 0, as |x|'), nothing for y
        flip = astype(logical_xor(signbit(y), less(x, 0)), x.dtype)
        return [subtract(1, multiply(flip, 2)), None]


class Nextafter(Binary):
    ufunc = np.nextafter

    def partials(self, x, y, out):
        why = UndefinedGradient("nextafter moves by one ulp: it is a step function, "
                                "and jax defines no derivative for it either")
        return [why, why]


class LeftShift(Binary): ufunc = np.left_shift
class RightShift(Binary): ufunc = np.right_shift


class Logaddexp(Binary):
    ufunc = np.logaddexp
    def partials(self, x, y, out): return [exp(subtract(x, out)), exp(subtract(y, out))]


class Logaddexp2(Binary):
    ufunc = np.logaddexp2
    def partials(self, x, y, out): return [exp2(subtract(x, out)), exp2(subtract(y, out))]


class Fmod(Binary):
    ufunc = np.fmod
    def partials(self, x, y, out): return [1, negative(trunc(divide(x, y)))]


class Fmax(Binary):
    ufunc = np.fmax
    def partials(self, x, y, out): return _balanced(x, y, out)


class Fmin(Binary):
    ufunc = np.fmin
    def partials(self, x, y, out): return _balanced(x, y, out)


# --- ternary -------------------------------------------------------------
class Select(Op):
    """``where(cond, x, y)``: cond is bool, x and y share a dtype; all broadcast."""

    def make_node(self, cond, x, y) -> Apply:
        cond, x, y = as_variable(cond), as_variable(x), as_variable(y)
        if cond.dtype != np.bool_:
            raise TypeError(f"Select: condition must be bool, got {cond.type}")
        if x.dtype != y.dtype:
            raise TypeError(f"Select: branches must share a dtype, got {x.type} and {y.type}")
        shape = broadcast_shapes(cond.shape, x.shape, y.shape, op="Select")
        return Apply(self, [cond, x, y], [TensorType(x.dtype, shape)])

    def perform(self, node, inputs):
        return [np.asarray(np.where(*inputs), dtype=node.outputs[0].dtype)]

    def pullback(self, node, cotangents):
        (ct,), (cond, x, y) = cotangents, node.inputs
        if not is_inexact(x.dtype):
            return [None, None, None]
        from ..autodiff import sum_to
        return [None, sum_to(where(cond, ct, 0), x), sum_to(where(cond, 0, ct), y)]

    def pushforward(self, node, tangents):
        (_, tx, ty), (cond, x, y), out = tangents, node.inputs, node.outputs[0]
        if not is_inexact(out.dtype) or (tx is None and ty is None):
            return [None]
        from ..autodiff import broadcast_like
        return [broadcast_like(where(cond, 0 if tx is None else tx, 0 if ty is None else ty), out)]


class Cast(Op):
    """``astype(x, dtype)``: NumPy's ``ndarray.astype`` (complex -> real keeps the real part)."""

    __props__ = ("dtype",)
    typed_by_inputs = True

    def __init__(self, dtype: Any):
        self.dtype = as_dtype(dtype)

    def make_node(self, x) -> Apply:
        x = as_variable(x)
        return Apply(self, [x], [TensorType(self.dtype, x.shape)])

    def perform(self, node, inputs):
        import warnings
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            return [inputs[0].astype(self.dtype)]

    # between float and complex dtypes the cotangent is cast back (complex -> real keeps
    # the real part, so real -> complex gets the real part of its cotangent, as jax);
    # integer and bool values carry no gradient
    def pullback(self, node, cotangents):
        (ct,), (x,) = cotangents, node.inputs
        if not (is_inexact(x.dtype) and is_inexact(self.dtype)):
            return [None]
        return [astype(ct, x.dtype)]

    def pushforward(self, node, tangents):
        (t,), (x,) = tangents, node.inputs
        if t is None or not (is_inexact(x.dtype) and is_inexact(self.dtype)):
            return [None]
        return [astype(t, self.dtype)]


# --- builders ------------------------------------------------------------
def elemwise_builder(cls: type[Elemwise], name: str, doc: str):
    """The NumPy-named builder of an Elemwise Op class: promotes, casts, applies."""
    op = cls()
    if cls.nin == 1:
        def builder(x: Any) -> Variable:
            return apply_elemwise(op, x)
    else:
        def builder(x: Any, y: Any) -> Variable:
            return apply_elemwise(op, x, y)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = doc
    return builder


negative = elemwise_builder(Negative, "negative", "Numerical negative, as numpy.negative.")
abs = absolute = elemwise_builder(Abs, "abs", "Absolute value (complex -> real magnitude), as numpy.abs.")
sign = elemwise_builder(Sign, "sign", "Sign, as numpy.sign (complex: z/|z|).")
exp = elemwise_builder(Exp, "exp", "Exponential, as numpy.exp.")
log = elemwise_builder(Log, "log", "Natural logarithm, as numpy.log.")
log1p = elemwise_builder(Log1p, "log1p", "log(1 + x), accurate near 0, as numpy.log1p.")
expm1 = elemwise_builder(Expm1, "expm1", "exp(x) - 1, accurate near 0, as numpy.expm1.")
sqrt = elemwise_builder(Sqrt, "sqrt", "Square root, as numpy.sqrt.")
rsqrt = elemwise_builder(Rsqrt, "rsqrt", "1 / sqrt(x).")
sin = elemwise_builder(Sin, "sin", "Sine, as numpy.sin.")
cos = elemwise_builder(Cos, "cos", "Cosine, as numpy.cos.")
tan = elemwise_builder(Tan, "tan", "Tangent, as numpy.tan.")
tanh = elemwise_builder(Tanh, "tanh", "Hyperbolic tangent, as numpy.tanh.")
sigmoid = elemwise_builder(Sigmoid, "sigmoid", "Logistic sigmoid 1 / (1 + exp(-x)).")
erf = elemwise_builder(Erf, "erf", "Error function, as scipy.special.erf.")
floor = elemwise_builder(Floor, "floor", "Floor, as numpy.floor (ints unchanged).")
ceil = elemwise_builder(Ceil, "ceil", "Ceiling, as numpy.ceil (ints unchanged).")
isnan = elemwise_builder(IsNan, "isnan", "NaN test, as numpy.isnan.")
isfinite = elemwise_builder(IsFinite, "isfinite", "Finiteness test, as numpy.isfinite.")
isinf = elemwise_builder(IsInf, "isinf", "Infinity test, as numpy.isinf.")
logical_not = elemwise_builder(LogicalNot, "logical_not", "Logical NOT (non-bool: x == 0), as numpy.logical_not.")
bitwise_not = invert = elemwise_builder(BitwiseNot, "bitwise_not", "Bitwise NOT, as numpy.invert.")
square = elemwise_builder(Square, "square", "x * x, as numpy.square.")
reciprocal = elemwise_builder(Reciprocal, "reciprocal", "1 / x, as numpy.reciprocal (ints truncate).")

add = elemwise_builder(Add, "add", "x + y, as numpy.add.")
subtract = elemwise_builder(Subtract, "subtract", "x - y, as numpy.subtract.")
multiply = elemwise_builder(Multiply, "multiply", "x * y, as numpy.multiply.")
divide = true_divide = elemwise_builder(Divide, "divide", "True division x / y (ints -> float64), as numpy.divide.")
floor_divide = elemwise_builder(FloorDivide, "floor_divide", "x // y, as numpy.floor_divide (int // 0 == 0).")
remainder = mod = elemwise_builder(Remainder, "remainder", "x % y with the sign of y, as numpy.remainder.")
power = elemwise_builder(Power, "power", "x ** y, as numpy.power.")
maximum = elemwise_builder(Maximum, "maximum", "Elementwise max, NaN-propagating, as numpy.maximum.")
minimum = elemwise_builder(Minimum, "minimum", "Elementwise min, NaN-propagating, as numpy.minimum.")
bitwise_and = elemwise_builder(BitwiseAnd, "bitwise_and", "x & y, as numpy.bitwise_and.")
bitwise_or = elemwise_builder(BitwiseOr, "bitwise_or", "x | y, as numpy.bitwise_or.")
bitwise_xor = elemwise_builder(BitwiseXor, "bitwise_xor", "x ^ y, as numpy.bitwise_xor.")
logical_and = elemwise_builder(LogicalAnd, "logical_and", "Logical AND, as numpy.logical_and.")
logical_or = elemwise_builder(LogicalOr, "logical_or", "Logical OR, as numpy.logical_or.")
logical_xor = elemwise_builder(LogicalXor, "logical_xor", "Logical XOR, as numpy.logical_xor.")
equal = elemwise_builder(Equal, "equal", "x == y, as numpy.equal.")
not_equal = elemwise_builder(NotEqual, "not_equal", "x != y, as numpy.not_equal.")
less = elemwise_builder(Less, "less", "x < y, as numpy.less.")
less_equal = elemwise_builder(LessEqual, "less_equal", "x <= y, as numpy.less_equal.")
greater = elemwise_builder(Greater, "greater", "x > y, as numpy.greater.")
greater_equal = elemwise_builder(GreaterEqual, "greater_equal", "x >= y, as numpy.greater_equal.")

arcsin = elemwise_builder(Arcsin, "arcsin", "Inverse sine, as numpy.arcsin.")
arccos = elemwise_builder(Arccos, "arccos", "Inverse cosine, as numpy.arccos.")
arctan = elemwise_builder(Arctan, "arctan", "Inverse tangent, as numpy.arctan.")
sinh = elemwise_builder(Sinh, "sinh", "Hyperbolic sine, as numpy.sinh.")
cosh = elemwise_builder(Cosh, "cosh", "Hyperbolic cosine, as numpy.cosh.")
arcsinh = elemwise_builder(Arcsinh, "arcsinh", "Inverse hyperbolic sine, as numpy.arcsinh.")
arccosh = elemwise_builder(Arccosh, "arccosh", "Inverse hyperbolic cosine, as numpy.arccosh.")
arctanh = elemwise_builder(Arctanh, "arctanh", "Inverse hyperbolic tangent, as numpy.arctanh.")
exp2 = elemwise_builder(Exp2, "exp2", "2 ** x, as numpy.exp2.")
log2 = elemwise_builder(Log2, "log2", "Base-2 logarithm, as numpy.log2.")
log10 = elemwise_builder(Log10, "log10", "Base-10 logarithm, as numpy.log10.")
cbrt = elemwise_builder(Cbrt, "cbrt", "Cube root (negative for negative x), as numpy.cbrt.")
deg2rad = radians = elemwise_builder(Deg2rad, "deg2rad", "Degrees to radians, as numpy.deg2rad.")
rad2deg = degrees = elemwise_builder(Rad2deg, "rad2deg", "Radians to degrees, as numpy.rad2deg.")
trunc = fix = elemwise_builder(Trunc, "trunc", "Round toward zero, as numpy.trunc (ints unchanged).")
signbit = elemwise_builder(Signbit, "signbit", "Sign bit set (True for -0.0 and negative NaN), as numpy.signbit.")
positive = elemwise_builder(Positive, "positive", "+x, as numpy.positive.")
conj = conjugate = elemwise_builder(Conj, "conj", "Complex conjugate (reals unchanged), as numpy.conjugate.")
bitwise_count = popcount = elemwise_builder(Popcount, "bitwise_count",
                                  "Number of 1 bits of |x| (uint8), as numpy.bitwise_count.")
real = elemwise_builder(Real, "real", "Real part (reals unchanged), as numpy.real.")
imag = elemwise_builder(Imag, "imag", "Imaginary part (zeros for reals), as numpy.imag.")
_angle = elemwise_builder(Angle, "angle", "Argument of complex numbers in radians, as numpy.angle.")


def angle(z: Any, deg: bool = False) -> Variable:
    """Argument of complex numbers, as numpy.angle: in radians, or in degrees with ``deg``."""
    out = _angle(z)
    return multiply(out, 180 / np.pi) if deg else out

arctan2 = elemwise_builder(Arctan2, "arctan2", "Angle of the point (x2, x1), as numpy.arctan2(x1, x2).")
hypot = elemwise_builder(Hypot, "hypot", "sqrt(x**2 + y**2) without overflow, as numpy.hypot.")
copysign = elemwise_builder(Copysign, "copysign", "|x| with the sign of y, as numpy.copysign.")
nextafter = elemwise_builder(Nextafter, "nextafter", "Next float after x toward y, as numpy.nextafter.")
left_shift = elemwise_builder(LeftShift, "left_shift", "x << y (0 when y is out of [0, bits)), as numpy.left_shift.")
right_shift = elemwise_builder(RightShift, "right_shift",
                      "x >> y, arithmetic for signed ints (y out of [0, bits): 0 or -1), as numpy.right_shift.")
logaddexp = elemwise_builder(Logaddexp, "logaddexp", "log(exp(x) + exp(y)) without overflow, as numpy.logaddexp.")
logaddexp2 = elemwise_builder(Logaddexp2, "logaddexp2", "log2(2**x + 2**y) without overflow, as numpy.logaddexp2.")
fmod = elemwise_builder(Fmod, "fmod", "C fmod: remainder with the sign of x (int % 0 == 0), as numpy.fmod.")
fmax = elemwise_builder(Fmax, "fmax", "Elementwise max ignoring NaN, as numpy.fmax.")
fmin = elemwise_builder(Fmin, "fmin", "Elementwise min ignoring NaN, as numpy.fmin.")

_round_op = Round()
_select = Select()


def round(x: Any, decimals: int = 0) -> Variable:
    """Round half to even, as numpy.round (``decimals`` scales by 10**decimals);
    integers keep their dtype and complex values round both parts (numpy.around)."""
    x = as_variable(x)
    if is_complex(x.dtype) or (not is_float(x.dtype) and x.dtype != np.dtype(np.bool_)):
        return around(x, decimals)
    if decimals == 0:
        return apply_elemwise(_round_op, x)
    scale = 10.0 ** decimals
    return divide(apply_elemwise(_round_op, multiply(x, scale)), scale)


def around(a: Any, decimals: int = 0) -> Variable:
    """Round half to even to ``decimals`` digits, as numpy.around: integers keep their dtype
    (negative ``decimals`` round them to tens, hundreds, ... half to even); complex values
    round both parts (and need finite imaginary parts)."""
    a = as_variable(a)
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise TypeError(f"around: decimals must be an int, got {decimals!r}")
    if a.dtype == DTYPES["bool"] and decimals != 0:
        raise TypeError("around: bool inputs only round with decimals=0 (as numpy.around)")
    if is_complex(a.dtype):
        parts = (round(real(a), int(decimals)), round(imag(a), int(decimals)))
        return make_complex(*parts, a.dtype)
    if not is_integer(a.dtype):
        return round(a, int(decimals))
    if decimals >= 0:
        return a
    scale = 10 ** (-int(decimals))
    info = np.iinfo(a.dtype)
    if info.bits == 64:
        # NumPy rounds integers in float64, rint(a / scale) * scale, and casts back: 64-bit
        # values lose digits on the way, and a result beyond the type's range casts to
        # what NumPy's cast gives (the least int64, uint64 0)
        r = multiply(apply_elemwise(_round_op, divide(astype(a, "float64"), float(scale))), float(scale))
        inside = logical_and(greater_equal(r, float(info.min)), less(r, float(info.max) + 1.0))
        return where(inside, astype(where(inside, r, 0.0), a.dtype), _numpy_int_cast(2.0 ** 64, a.dtype)
                     if info.min == 0 else _numpy_int_cast(2.0 ** 63, a.dtype))
    if scale > info.max:
        return multiply(a, 0)
    r = remainder(a, scale)
    q = subtract(a, r)  # wraps where the multiple below ``a`` is beneath the type's range
    odd = not_equal(remainder(floor_divide(a, scale), 2), 0)
    rest = subtract(scale, r)
    up = logical_or(greater(r, rest), logical_and(equal(r, rest), odd))
    out = where(up, add(a, rest), q)
    # NumPy rounds integers in float64 (rint(a / scale) * scale) and casts back: a multiple
    # of the scale beyond the type's range becomes what that cast gives on this machine
    # (wrapped for 8 and 16 bits, platform-specific for 32)
    hi, lo = (info.max // scale) * scale, (info.min // scale) * scale
    out = where(logical_and(up, greater_equal(a, hi)), _numpy_int_cast(hi + scale, a.dtype), out)
    if lo < info.min:
        out = where(logical_and(logical_not(up), less(a, lo + scale)), _numpy_int_cast(lo, a.dtype), out)
    return out


def _numpy_int_cast(value: float, dtype: np.dtype) -> np.generic:
    """NumPy's cast of the float64 ``value`` to the integer ``dtype`` (out of range too)."""
    with np.errstate(all="ignore"):
        return np.array(float(value)).astype(dtype)[()]


def make_complex(re: Variable, im: Variable, dt: np.dtype) -> Variable:
    """``re + 1j * im`` as complex dtype ``dt`` (``im`` must be finite)."""
    return add(astype(re, dt), multiply(astype(im, dt), 1j))


def astype(x: Any, dtype: Any) -> Variable:
    """Cast to ``dtype``, as ndarray.astype (a no-op when the dtype matches)."""
    x = as_variable(x)
    dt = as_dtype(dtype)
    if x.dtype == dt:
        return x
    return Cast(dt)(x)


def where(condition: Any, x: Any = None, y: Any = None) -> Variable | tuple[Variable, ...]:
    """Elements of ``x`` where ``condition`` else of ``y``, as numpy.where; with the condition
    alone, the indices of its nonzero elements (numpy.nonzero, a host op)."""
    if x is None and y is None:
        from .dynamic import nonzero
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("where: either both or neither of x and y should be given (as numpy.where)")
    cond = as_variable(condition)
    if cond.dtype != np.bool_:
        cond = not_equal(cond, 0)
    x, y = promote(x, y)
    return _select(cond, x, y)


def clip(x: Any, a_min: Any = None, a_max: Any = None, *, min: Any = None, max: Any = None) -> Variable:
    """Clamp to [a_min, a_max], as numpy.clip (NaN propagates; a_min > a_max gives a_max;
    ``min``/``max`` are NumPy 2's keyword spellings of the bounds; no bound: ``x``)."""
    if (min is not None or max is not None) and (a_min is not None or a_max is not None):
        raise ValueError("clip: passing `min` or `max` keyword argument when `a_min` and `a_max` "
                         "are provided is forbidden")
    a_min = min if a_min is None else a_min
    a_max = max if a_max is None else a_max
    out = as_variable(x)
    if out.dtype.kind in "iu":
        # as numpy.clip: a Python int bound past the integer type's range bounds nothing
        # (NEP 50 would refuse the value), e.g. clip(uint8, -1, 3) is minimum(x, 3)
        info = np.iinfo(out.dtype)
        if type(a_min) is int and a_min <= info.min:
            a_min = None
        if type(a_max) is int and a_max >= info.max:
            a_max = None
    if a_min is not None:
        out = maximum(out, a_min)
    if a_max is not None:
        out = minimum(out, a_max)
    return out

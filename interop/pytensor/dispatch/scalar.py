"""Scalar Ops (``pytensor.scalar``), applied elementwise: the converters ``Elemwise``
uses for its ``scalar_op`` (and scalar nodes outside an Elemwise, on 0-d values).

PyTensor computes a scalar Op in the output dtype it declares (``exp`` of int8
in float32, ``int32 + float32`` in float64), where NumPy's promotion would pick
another: the inputs are cast to the output dtype first (to the inputs' common
dtype for comparisons), and the results are cast to the declared dtypes.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import numpy as np
import pytensor.scalar.basic as psb
import pytensor.scalar.math as psm
from pytensor.scalar.basic import upcast

from ....frontend import builders as hb
from ....frontend.graph import Constant, Variable
from ....frontend.ops.basic import broadcast_shapes
from ....frontend.types import is_inexact
from ..convert import NotConvertible, cast, hlograph_convert

__all__ = ["hlograph_convert_scalar", "register_scalar", "out_dtype"]


@functools.singledispatch
def hlograph_convert_scalar(op, node, inputs: list[Variable], ctx) -> Any:
    """Converts the scalar Op ``op`` applied elementwise to ``inputs`` (hlograph
    Variables that broadcast together); ``node`` (an Elemwise node or a scalar node)
    gives the dtypes. Registered per scalar Op class, as ``hlograph_convert``."""
    raise NotConvertible(f"no converter is registered for the scalar Op {type(op).__name__}")


@hlograph_convert.register(psb.ScalarOp)
def convert_scalar_node(op, node, inputs, ctx):
    return hlograph_convert_scalar(op, node, inputs, ctx)


def out_dtype(node, i: int = 0) -> str:
    return node.outputs[i].type.dtype


def _cast(x: Variable, dtype: str) -> Variable:
    return cast(x, dtype)


def _cast_all(inputs, dtype: str) -> list[Variable]:
    return [_cast(x, dtype) for x in inputs]


def register_scalar(*classes: type | None) -> Callable[[Callable], Callable]:
    """Decorator: registers a scalar converter for each class (None: a class this
    PyTensor version does not have)."""
    def decorator(fn: Callable) -> Callable:
        for cls in classes:
            if cls is not None:
                hlograph_convert_scalar.register(cls)(fn)
        return fn
    return decorator


def _b(name: str) -> type | None:
    return getattr(psb, name, None)


def _m(name: str) -> type | None:
    return getattr(psm, name, None)


def _in_out_dtype(builder: Callable) -> Callable:
    """A converter computing ``builder`` on the inputs cast to the output dtype."""
    def convert(op, node, inputs, ctx):
        return builder(*_cast_all(inputs, out_dtype(node)))
    return convert


def _variadic(builder: Callable) -> Callable:
    """``builder`` folded over any number of inputs (PyTensor's Add and Mul take several)."""
    def convert(op, node, inputs, ctx):
        xs = _cast_all(inputs, out_dtype(node))
        return functools.reduce(builder, xs)
    return convert


def _common_dtype(builder: Callable) -> Callable:
    """A comparison: the inputs cast to their common dtype (the output is bool)."""
    def convert(op, node, inputs, ctx):
        dt = upcast(*(v.type.dtype for v in node.inputs))
        return builder(*_cast_all(inputs, dt))
    return convert


# --- arithmetic and elementwise math: computed in the output dtype ---------------------
register_scalar(_b("Add"))(_variadic(hb.add))
register_scalar(_b("Mul"))(_variadic(hb.multiply))
for _name, _fn in [
    ("Sub", hb.subtract), ("TrueDiv", hb.divide), ("IntDiv", hb.floor_divide), ("Mod", hb.remainder),
    ("Pow", hb.power), ("Maximum", hb.maximum), ("Minimum", hb.minimum), ("Neg", hb.negative),
    ("Sqr", hb.square), ("Sqrt", hb.sqrt), ("Reciprocal", hb.reciprocal), ("Log", hb.log),
    ("Log2", hb.log2), ("Log10", hb.log10), ("Log1p", hb.log1p), ("Exp", hb.exp), ("Exp2", hb.exp2),
    ("Expm1", hb.expm1), ("Deg2Rad", hb.deg2rad), ("Rad2Deg", hb.rad2deg), ("Cos", hb.cos),
    ("ArcCos", hb.arccos), ("Sin", hb.sin), ("ArcSin", hb.arcsin), ("Tan", hb.tan), ("ArcTan", hb.arctan),
    ("ArcTan2", hb.arctan2), ("Cosh", hb.cosh), ("ArcCosh", hb.arccosh), ("Sinh", hb.sinh),
    ("ArcSinh", hb.arcsinh), ("Tanh", hb.tanh), ("ArcTanh", hb.arctanh), ("Conj", hb.conj),
    ("Ceil", hb.ceil), ("Floor", hb.floor), ("Trunc", hb.trunc), ("RoundHalfToEven", hb.round),
    ("Sign", hb.sign),
]:
    register_scalar(_b(_name))(_in_out_dtype(_fn))
for _name, _fn in [
    ("Sigmoid", hb.sigmoid), ("Softplus", hb.softplus), ("Log1mexp", hb.log1mexp), ("Erf", hb.erf),
    ("Erfc", hb.erfc), ("Erfcx", hb.erfcx), ("Erfinv", hb.erfinv), ("GammaLn", hb.gammaln),
    ("Psi", hb.digamma), ("GammaInc", hb.gammainc), ("GammaIncC", hb.gammaincc),
    ("GammaIncInv", hb.gammaincinv), ("GammaIncCInv", hb.gammainccinv), ("BetaInc", hb.betainc),
    ("BetaIncInv", hb.betaincinv), ("Ive", hb.ive), ("Kve", hb.kve), ("I0", hb.i0),
    ("PolyGamma", hb.polygamma),
]:
    register_scalar(_m(_name))(_in_out_dtype(_fn))


@register_scalar(_b("Identity"))
def _identity(op, node, inputs, ctx):
    return inputs[0]


@register_scalar(_b("Cast"))
def _cast_op(op, node, inputs, ctx):
    return _cast(inputs[0], out_dtype(node))


@register_scalar(_b("Abs"))
def _abs(op, node, inputs, ctx):
    (x,) = inputs
    return hb.abs(x if x.dtype.kind == "c" else _cast(x, out_dtype(node)))


@register_scalar(_b("Real"), _b("Imag"), _b("Angle"))
def _complex_part(op, node, inputs, ctx):
    fn = {"Real": hb.real, "Imag": hb.imag, "Angle": hb.angle}[type(op).__name__]
    (x,) = inputs
    return fn(x if x.dtype.kind == "c" else _cast(x, out_dtype(node)))


@register_scalar(_b("Complex"))
def _complex(op, node, inputs, ctx):
    dt = out_dtype(node)
    re, im = inputs
    return hb.add(cast(re, dt), hb.multiply(cast(im, dt), Constant(np.asarray(1j, dt))))


@register_scalar(_b("ComplexFromPolar"))
def _complex_from_polar(op, node, inputs, ctx):
    dt = out_dtype(node)
    real_dt = np.zeros((), dt).real.dtype
    r, theta = _cast_all(inputs, real_dt.name)
    return hb.add(cast(r * hb.cos(theta), dt),
                  hb.multiply(cast(r * hb.sin(theta), dt), Constant(np.asarray(1j, dt))))


@register_scalar(_b("RoundHalfAwayFromZero"))
def _round_half_away(op, node, inputs, ctx):
    (x,) = _cast_all(inputs, out_dtype(node))
    half = Constant(np.asarray(0.5, x.dtype))
    return hb.where(hb.greater_equal(x, Constant(np.asarray(0, x.dtype))),
                    hb.floor(x + half), hb.ceil(x - half))


@register_scalar(_m("TriGamma"))
def _trigamma(op, node, inputs, ctx):
    (x,) = _cast_all(inputs, out_dtype(node))
    return hb.polygamma(Constant(np.asarray(1, x.dtype)), x)


@register_scalar(_m("Erfcinv"))
def _erfcinv(op, node, inputs, ctx):
    # erfc(z) = 2 ndtr(-z sqrt(2)): erfcinv(y) = -ndtri(y / 2) / sqrt(2)
    (y,) = _cast_all(inputs, out_dtype(node))
    half = Constant(np.asarray(0.5, y.dtype))
    return hb.negative(hb.ndtri(y * half)) * Constant(np.asarray(1 / math.sqrt(2), y.dtype))


@register_scalar(_m("GammaU"), _m("GammaL"))
def _gamma_unregularized(op, node, inputs, ctx):
    k, x = _cast_all(inputs, out_dtype(node))
    reg = hb.gammaincc(k, x) if type(op).__name__ == "GammaU" else hb.gammainc(k, x)
    return reg * hb.exp(hb.gammaln(k))


@register_scalar(_m("I1"))
def _i1(op, node, inputs, ctx):
    (x,) = _cast_all(inputs, out_dtype(node))
    return hb.i1e(x) * hb.exp(hb.abs(x))


# XlogX / XlogY0: scalar Ops of PyTensor 2.x (``xlogy(x, x)`` and ``xlogy(x, y)`` since)
_xlogx = None
try:
    import pytensor.tensor.xlogx as _xlogx  # noqa: F811
except ImportError:  # pragma: no cover - present in every tested version
    pass
if _xlogx is not None:
    register_scalar(getattr(_xlogx, "XlogX", None))(
        lambda op, node, inputs, ctx: hb.xlogy(*_cast_all([inputs[0], inputs[0]], out_dtype(node))))
    register_scalar(getattr(_xlogx, "XlogY0", None))(_in_out_dtype(hb.xlogy))


# --- comparisons, logic and selection --------------------------------------------------
for _name, _fn in [("LT", hb.less), ("GT", hb.greater), ("LE", hb.less_equal),
                   ("GE", hb.greater_equal), ("EQ", hb.equal), ("NEQ", hb.not_equal)]:
    register_scalar(_b(_name))(_common_dtype(_fn))


@register_scalar(_b("IsNan"), _b("IsInf"))
def _is_nan_inf(op, node, inputs, ctx):
    (x,) = inputs
    if not is_inexact(x.dtype):  # integers are never NaN or infinite
        return hb.full_like(x, False, dtype="bool")
    return (hb.isnan if type(op).__name__ == "IsNan" else hb.isinf)(x)


# AND, OR, XOR: logical on bools, bitwise on integers (NumPy's bitwise ufuncs do both)
for _name, _fn in [("AND", hb.bitwise_and), ("OR", hb.bitwise_or), ("XOR", hb.bitwise_xor)]:
    register_scalar(_b(_name))(_variadic(_fn))


@register_scalar(_b("Invert"))
def _invert(op, node, inputs, ctx):
    (x,) = _cast_all(inputs, out_dtype(node))
    return hb.logical_not(x) if x.dtype == np.bool_ else hb.bitwise_not(x)


@register_scalar(_b("Switch"))
def _switch(op, node, inputs, ctx):
    cond, a, b = inputs
    if cond.dtype != np.bool_:
        cond = hb.not_equal(cond, Constant(np.zeros((), cond.dtype)))
    a, b = _cast_all([a, b], out_dtype(node))
    return hb.where(cond, a, b)


@register_scalar(_b("Clip"))
def _clip(op, node, inputs, ctx):
    # PyTensor's clip: x < lo gives lo, else x > hi gives hi (lo > hi is not numpy.clip's)
    x, lo, hi = _cast_all(inputs, out_dtype(node))
    return hb.where(hb.less(x, lo), lo, hb.where(hb.greater(x, hi), hi, x))


@register_scalar(_b("Second"))
def _second(op, node, inputs, ctx):
    # fill(x, y): y broadcast to the shape of x (and y); its values exactly (no arithmetic)
    x, y = inputs
    y = _cast(y, out_dtype(node))
    target = broadcast_shapes(x.shape, y.shape)
    if None not in target:
        return hb.broadcast_to(y, target)
    return hb.where(hb.full_like(x, True, dtype="bool"), y, y)


@register_scalar(_b("Composite"))
def _composite(op, node, inputs, ctx):
    inner = op.fgraph
    outs = ctx.convert_inner(inner.inputs, inner.outputs, inputs, elementwise=True)
    return outs if len(outs) > 1 else outs[0]

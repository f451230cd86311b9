"""NumPy's logic functions that compose elementwise ops and reductions:
comparisons of whole arrays (``isclose``, ``allclose``, ``array_equal``,
``array_equiv``), contents (``isneginf``, ``isposinf``) and type tests
(``iscomplex``, ``isreal``, ``isscalar``). The elementwise tests and logical
operations (``isnan``, ``logical_and``, ``equal``, ...) are Ops of
``frontend/ops/elemwise.py``.

Functions that NumPy answers with a Python bool (``allclose``, ``array_equal``,
``array_equiv``) return a 0-d bool graph value here, since the answer depends on
the inputs' values; ``isscalar`` is answered in Python, as in NumPy.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..graph import Constant, Variable
from ..types import DTYPES, is_complex, is_float
from ..ops import elemwise as ew
from ..ops.basic import as_variable, is_weak, result_type
from ..ops.reduction import all as all_
from ..ops.shape import zeros

__all__ = ["isclose", "allclose", "array_equal", "array_equiv", "isneginf", "isposinf", "iscomplex",
           "isreal", "isscalar"]

_BOOL = DTYPES["bool"]


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
    return all_(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _may_hold_nan(dt: np.dtype) -> bool:
    return is_float(dt) or is_complex(dt)


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Variable:
    """Same shape and same elements, as numpy.array_equal (a 0-d bool graph value). With
    ``equal_nan``, NaNs compare equal. Different static shapes give a constant False."""
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
    a1, a2 = as_variable(a1), as_variable(a2)
    if None in a1.shape or None in a2.shape:
        raise ValueError(f"array_equiv: needs static shapes, got {a1.type} and {a2.type}")
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return Constant(np.bool_(False))
    return all_(ew.equal(a1, a2))


# --- array contents and types -------------------------------------------------------------
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

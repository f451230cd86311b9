"""Run-time checks: ``check_and_raise`` and ``assert_``.

``check_and_raise(x, cond, msg)`` returns ``x`` unchanged when every element of
every condition is true, and raises ``CheckError(msg)`` (a ValueError) otherwise,
both in ``hg.evaluate`` and in compiled functions. No device can raise, so the
check itself (``Check``) runs on the host, in a host segment between device
segments; it sees only the boolean conditions. ``x`` stays on the device: an
``AfterCheck`` node returns it and depends on the check's result, so whatever
uses the returned value runs after the check. Like every graph value, the
result only takes effect when an output depends on it: use the returned value
in place of ``x``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import Apply, Op, Variable
from ..types import DTYPES, TensorType, is_inexact
from .basic import as_variable
from .elemwise import not_equal

__all__ = ["check_and_raise", "assert_", "CheckError"]

_BOOL = DTYPES["bool"]


class CheckError(ValueError):
    """A run-time check of the graph (``check_and_raise``/``assert_``) failed."""


class Check(Op):
    """Raises ``CheckError(msg)`` unless every boolean condition is all true; returns a
    ``bool[]`` True that ``AfterCheck`` consumes."""

    __props__ = ("msg",)
    host_only = True
    host_reason = "raises a Python exception"
    #: not an in-module host call (runtime/host/calls.py): those can only fail with an
    #: XLA error, and nothing in the module reads the result to keep the call alive
    in_module_host_call = False

    def __init__(self, msg: str = "check failed"):
        if not isinstance(msg, str):
            raise TypeError(f"Check: msg must be a str, got {type(msg).__name__}")
        self.msg = msg

    def make_node(self, *conds: Any) -> Apply:
        if not conds:
            raise TypeError(f"{self}: needs at least one condition")
        cvars = [as_variable(c) for c in conds]
        for i, c in enumerate(cvars):
            if c.dtype != _BOOL:
                raise TypeError(f"{self}: condition {i} must be bool, got {c.type}")
        return Apply(self, cvars, [TensorType(_BOOL, ())])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        for c in inputs:
            if not np.all(c):
                raise CheckError(self.msg)
        return [np.array(True)]

    def pullback(self, node, cotangents):
        return [None] * len(node.inputs)  # conditions are bool


class AfterCheck(Op):
    """``x`` unchanged; its second input (a ``Check`` result) orders it after the check."""

    def make_node(self, x: Any, ok: Any) -> Apply:
        x, ok = as_variable(x), as_variable(ok)
        if ok.type != TensorType(_BOOL, ()):
            raise TypeError(f"AfterCheck: the check result must be bool[], got {ok.type}")
        return Apply(self, [x, ok], [x.type])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return [np.array(inputs[0], copy=True)]

    # derivatives: the value passes through; the cotangent (tangent) is ordered after the
    # same check, so a graph computing only derivatives still raises when the check fails
    def pullback(self, node, cotangents):
        ct, (x, ok) = cotangents[0], node.inputs
        return [None if ct is None or not is_inexact(x.dtype) else self(ct, ok), None]

    def pushforward(self, node, tangents):
        t = tangents[0]
        return [None if t is None or not is_inexact(t.dtype) else self(t, node.inputs[1])]


def _as_condition(c: Any, i: int) -> Variable:
    c = as_variable(c)
    if c.dtype == _BOOL:
        return c
    if c.dtype.kind not in "iuf" and c.dtype != DTYPES["bfloat16"]:
        raise TypeError(f"check_and_raise: condition {i} must be bool or real-valued, got {c.type}")
    return not_equal(c, 0)


def check_and_raise(x: Any, cond: Any, msg: str = "check failed", *more_conds: Any) -> Variable:
    """``x`` unchanged when ``cond`` (and ``more_conds``) are all true (nonzero for
    numbers); else raises ``CheckError(msg)`` at run time."""
    if not isinstance(msg, str):
        raise TypeError(f"check_and_raise: msg must be a str, got {type(msg).__name__}")
    conds = [_as_condition(c, i) for i, c in enumerate((cond, *more_conds))]
    return AfterCheck()(x, Check(msg)(*conds))


def assert_(cond: Any, msg: str = "assertion failed") -> Variable:
    """``cond`` unchanged when it is all true; else raises ``CheckError(msg)`` at run time
    (the check runs when an output depends on the returned value)."""
    return check_and_raise(cond, cond, msg)

"""Automatic differentiation as a graph transformation.

Gradients are new graph nodes built by each Op's rules (``Op.pullback`` for
reverse mode, ``Op.pushforward`` for forward mode; see frontend/graph.py):
they lower to StableHLO, run through the pass pipelines, mix with host ops and
compile like any other graph. The API follows jax: ``grad``, ``value_and_grad``,
``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``stop_gradient`` and
``custom_vjp``; ``known_grads`` and the ``disconnected`` policy follow
PyTensor's ``grad``.

The reverse walk visits, in reverse topological order, only the nodes on a path
between the ``wrt`` values and the cost (a node is skipped unless one of its
outputs has a cotangent and one of its inputs depends on a ``wrt``), adds
cotangents where a value has several consumers, and never builds zeros for
disconnected paths: a missing cotangent is ``None``. Integer and bool values
carry no gradient, so Ops with integer outputs (comparisons, argmax, shapes)
end paths, and integer inputs (indices) never need a rule. An Op without a rule
is an error only when one of its float or complex inputs needs a gradient.

After the rules have run, the new nodes are merged with equal nodes (same Op,
same inputs; small constants by value), with each other and with the nodes
that already exist, so a gradient graph reuses forward values and computes
each subexpression once.

Complex numbers follow jax's convention: a pullback transposes the R-linear
derivative under the pairing ``Re(sum(a * b))``. Holomorphic ops multiply the
cotangent by f'(z) (no conjugate), and the gradient of a real cost with respect
to a complex input is the conjugate of what a holomorphic derivative would give
(``grad(abs(z)**2) == 2 * conj(z)``), exactly what ``jax.grad`` returns.

``jacobian`` and ``hessian`` build one ``vjp`` (reverse mode) or ``jvp``
(forward mode) on a placeholder seed and vectorize it over the rows of the
identity (``frontend/vectorize.py``, as jax's ``vmap`` of the vjp): the graph
does not grow with the size, and nodes that do not depend on the seed are
shared. A Hessian-vector product is ``jvp(grad(cost, x), x, v)``.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Sequence

import numpy as np

from .graph import (Apply, Constant, GradientError, NotDifferentiableError, Op,
                    UndefinedGradient, Variable, _ancestors_toposort, _ids)
from .types import TensorType, is_complex, is_inexact
from .ops import elemwise as ew
from .ops import reduction as rd
from .ops import shape as sh
from .ops.autodiff import (CustomVJPCall, StopGradient, SumToLike, broadcast_like, constant_like,
                           is_differentiable, reduced_count, stop_gradient, sum_to, sum_to_axes,
                           unreduce)
from .ops.basic import as_variable
from .vectorize import vectorize_with_batch

__all__ = [
    "grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian", "stop_gradient", "custom_vjp",
    "StopGradient", "SumToLike", "CustomVJPCall", "GradientError", "NotDifferentiableError",
    "UndefinedGradient", "sum_to", "broadcast_like", "unreduce", "reduced_count", "constant_like",
    "is_differentiable", "pushforward_by_transposition",
]

_DISCONNECTED = ("raise", "zero")


def _one(dtype: np.dtype) -> Constant:
    return Constant(np.ones((), dtype=dtype))


class custom_vjp:
    """A function with its own reverse-mode rule, as ``jax.custom_vjp``.

    ``fwd(*args) -> (out, residuals)`` builds the outputs (a Variable or a tuple) and
    whatever the backward rule needs; ``bwd(residuals, cotangent) -> tuple`` builds one
    cotangent per positional argument (None: zero; entries for arguments that are not
    graph values are ignored), from graph ops. The cotangent is a Variable, or a tuple
    of them for a function with several outputs; a missing one is zeros.

        def log1pexp(x):
            return hg.log1p(hg.exp(x))

        f = hg.custom_vjp(log1pexp)
        f.defvjp(lambda x: (log1pexp(x), x),
                 lambda x, ct: (ct * hg.sigmoid(x),))   # stable where exp(x) overflows

    ``hg.custom_vjp(fn, fwd, bwd)`` does both at once. Forward mode (``jvp``) transposes
    ``bwd``, so it must be linear in the cotangent.
    """

    def __init__(self, fn: Callable, fwd: Callable | None = None, bwd: Callable | None = None):
        self.fn = fn
        self.fwd = fwd
        self.bwd = bwd
        functools.update_wrapper(self, fn)

    def defvjp(self, fwd: Callable, bwd: Callable) -> "custom_vjp":
        """Sets the forward and backward functions; returns the function itself."""
        self.fwd, self.bwd = fwd, bwd
        return self

    def __call__(self, *args: Any) -> Any:
        name = getattr(self.fn, "__name__", "function")
        if self.fwd is None or self.bwd is None:
            raise GradientError(f"custom_vjp {name}: define its rule with .defvjp(fwd, bwd) first")
        out, residuals = self.fwd(*args)
        single = isinstance(out, Variable)
        outs = [out] if single else list(out)
        if not outs or not all(isinstance(o, Variable) for o in outs):
            raise GradientError(f"custom_vjp {name}: fwd must return (Variable or tuple of Variables, residuals)")
        positions = tuple(i for i, a in enumerate(args) if isinstance(a, Variable))
        op = CustomVJPCall(name, len(positions), positions, len(args), residuals, self.bwd, single)
        node = op.make_node(*(args[i] for i in positions), *outs)
        return node.outputs[0] if single else tuple(node.outputs)


# --- the engine ----------------------------------------------------------------------
def _where(node: Apply) -> str:
    if node.trace is None:
        return ""
    return f" (the node was built at {node.trace[0]}:{node.trace[1]})"


def _check_type(v: Variable, g: Any, what: str) -> Variable:
    """``g`` as a cotangent/tangent of ``v``: its dtype, a compatible shape."""
    if not isinstance(g, Variable):
        raise GradientError(f"{what}: expected a graph Variable, got {type(g).__name__}")
    if g.dtype != v.dtype or g.ndim != v.ndim or any(
        a is not None and b is not None and a != b for a, b in zip(g.shape, v.shape)
    ):
        raise GradientError(f"{what}: got {g.type} for a value of type {v.type}")
    return g


def _accumulate(table: dict[int, Variable], v: Variable, g: Variable) -> None:
    old = table.get(id(v))
    table[id(v)] = g if old is None else ew.add(old, g)


def _active(order: list[Apply], sources: set[int]) -> set[int]:
    """ids of the values that depend on ``sources`` through float or complex values
    (not through stop_gradient)."""
    active = set(sources)
    for node in order:
        if isinstance(node.op, StopGradient):
            continue
        if any(id(v) in active for v in node.inputs):
            active.update(id(o) for o in node.outputs if is_differentiable(o))
    return active


# A rule that cannot build a needed derivative does not fail at once: its error marks
# the values it would have reached ("poison"), and the walk carries the mark on through
# the rules that would pass a gradient (a probe with zero cotangents says which), so a
# path whose gradient is zero anyway (floor, stop_gradient, integer casts) drops it.
# Only an error that reaches a wrt (an output in forward mode) is raised.
Result = Variable | NotDifferentiableError | None


def _pullback(node: Apply, cotangents: list[Variable | None], need: list[bool]) -> list[Result]:
    """The rule's cotangents for the needed inputs; a NotDifferentiableError in place of
    each one it cannot build."""
    try:
        results = list(node.op.pullback(node, cotangents))
    except NotDifferentiableError as e:
        err = NotDifferentiableError(f"{e}{_where(node)}")
        return [err if n else None for n in need]
    if len(results) != len(node.inputs):
        raise GradientError(
            f"{node.op}.pullback returned {len(results)} cotangents for {len(node.inputs)} inputs"
        )
    out: list[Result] = []
    for i, (v, g) in enumerate(zip(node.inputs, results)):
        if not need[i] or g is None:
            out.append(None)
        elif isinstance(g, UndefinedGradient):
            out.append(NotDifferentiableError(
                f"{node.op} has no derivative with respect to its input {i} ({v.type}), "
                f"which needs a gradient: {g.reason}{_where(node)}"
            ))
        else:
            out.append(_check_type(v, g, f"{node.op}.pullback, input {i}"))
    return out


def _backprop(seeds: Sequence[tuple[Variable, Variable]], wrt: Sequence[Variable]
              ) -> tuple[dict[int, Variable], dict[int, NotDifferentiableError]]:
    """Cotangents (id -> Variable) of every value between ``wrt`` and the seeded values,
    and the errors (id -> error) of the values a missing derivative would reach."""
    order = _ancestors_toposort([v for v, _ in seeds])
    active = _active(order, {id(w) for w in wrt})
    cts: dict[int, Variable] = {}
    poison: dict[int, NotDifferentiableError] = {}
    for v, c in seeds:
        if id(v) in active:
            _accumulate(cts, v, c)
    for node in reversed(order):
        out_cts = [cts.get(id(o)) for o in node.outputs]
        bad = [poison.get(id(o)) for o in node.outputs]
        has_ct, has_bad = any(c is not None for c in out_cts), any(b is not None for b in bad)
        if not (has_ct or has_bad):
            continue
        need = [id(v) in active for v in node.inputs]
        if not any(need):
            continue
        if has_ct:
            for v, g in zip(node.inputs, _pullback(node, out_cts, need)):
                if isinstance(g, NotDifferentiableError):
                    poison.setdefault(id(v), g)
                elif g is not None:
                    _accumulate(cts, v, g)
        if has_bad:
            err = next(b for b in bad if b is not None)
            probe = [sh.zeros_like(o) if b is not None and is_differentiable(o) else None
                     for o, b in zip(node.outputs, bad)]
            for v, g in zip(node.inputs, _pullback(node, probe, need)):
                if g is not None:
                    poison.setdefault(id(v), err)
    return cts, poison


def _pushforward(node: Apply, tangents: list[Variable | None]
                 ) -> list[Variable | NotDifferentiableError | None]:
    """The rule's tangents of the outputs, a NotDifferentiableError in place of an
    output's tangent the rule cannot build (an error only where that output is
    used); raises NotDifferentiableError when the rule fails as a whole."""
    try:
        results = list(node.op.pushforward(node, tangents))
    except NotDifferentiableError as e:
        raise NotDifferentiableError(f"{e}{_where(node)}") from None
    if len(results) != len(node.outputs):
        raise GradientError(
            f"{node.op}.pushforward returned {len(results)} tangents for {len(node.outputs)} outputs"
        )
    out: list[Variable | None] = []
    for i, (o, t) in enumerate(zip(node.outputs, results)):
        if t is None or not is_differentiable(o):
            out.append(None)
        elif isinstance(t, UndefinedGradient):
            out.append(NotDifferentiableError(f"{node.op}: no derivative for output {i}: {t.reason}{_where(node)}"))
        else:
            out.append(_check_type(o, t, f"{node.op}.pushforward, output {i}"))
    return out


def _forward(wrt: Sequence[Variable], tangents: Sequence[Variable | None], outputs: Sequence[Variable]
             ) -> tuple[dict[int, Variable], dict[int, NotDifferentiableError]]:
    """Tangents (id -> Variable) of every value between ``wrt`` and ``outputs``, and the
    errors of the values a missing derivative would reach."""
    given: dict[int, Variable] = {}
    for w, t in zip(wrt, tangents):
        if t is not None:
            _accumulate(given, w, t)
    tans = dict(given)
    poison: dict[int, NotDifferentiableError] = {}
    for node in _ancestors_toposort(list(outputs)):
        ts = [tans.get(id(v)) for v in node.inputs]
        bad = [poison.get(id(v)) for v in node.inputs]
        has_t, has_bad = any(t is not None for t in ts), any(b is not None for b in bad)
        if not (has_t or has_bad) or not any(is_differentiable(o) for o in node.outputs):
            continue
        if has_t:
            try:
                results = _pushforward(node, ts)
            except NotDifferentiableError as e:
                results = [None] * len(node.outputs)
                for o in node.outputs:
                    if is_differentiable(o):
                        poison.setdefault(id(o), e)
            for o, t in zip(node.outputs, results):
                if isinstance(t, NotDifferentiableError):
                    poison.setdefault(id(o), t)
                elif t is not None:
                    tans[id(o)] = t if id(o) not in given else ew.add(t, given[id(o)])
        if has_bad:
            err = next(b for b in bad if b is not None)
            probe = [sh.zeros_like(v) if b is not None else None for v, b in zip(node.inputs, bad)]
            try:
                reach = [t is not None for t in _pushforward(node, probe)]
            except NotDifferentiableError:
                reach = [is_differentiable(o) for o in node.outputs]
            for o, r in zip(node.outputs, reach):
                if r:
                    poison.setdefault(id(o), err)
    return tans, poison


def pushforward_by_transposition(node: Apply, tangents: list[Variable | None]) -> list[Variable | None]:
    """Forward mode from reverse mode: the pullback ``u -> P(u)`` is linear in the
    cotangents ``u``, so the gradient of ``s(u) = Re(sum_i sum(P(u)_i * t_i))`` with
    respect to ``u`` is ``J t`` (the value of ``u`` does not matter: zeros are used).
    The default ``Op.pushforward``."""
    us = [sh.zeros_like(o) if is_differentiable(o) else None for o in node.outputs]
    need = [t is not None for t in tangents]
    cts = _pullback(node, us, need)
    terms = []
    for g, t in zip(cts, tangents):
        if isinstance(g, NotDifferentiableError):
            raise g
        if g is None or t is None:
            continue
        p = ew.multiply(g, t)
        if is_complex(p.dtype):
            p = ew.real(p)
        terms.append(rd.sum(p))
    if not terms:
        return [None] * len(node.outputs)
    s = functools.reduce(ew.add, terms)
    jt, poison = _backprop([(s, _one(s.dtype))], [u for u in us if u is not None])
    for u in us:
        if u is not None and id(u) in poison:
            raise poison[id(u)]
    return [None if u is None else jt.get(id(u)) for u in us]


# --- structure, checks, merging ------------------------------------------------------------
def _flatten(values: Any, what: str) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    if isinstance(values, Variable):
        return [values], lambda out: out[0]
    if isinstance(values, (list, tuple)):
        kind = type(values)
        return list(values), lambda out: kind(out)
    raise TypeError(f"{what} must be a Variable or a list/tuple of Variables, got {type(values).__name__}")


def _check_wrt(wrt: list[Any]) -> None:
    for i, w in enumerate(wrt):
        if not isinstance(w, Variable):
            raise TypeError(f"wrt[{i}] must be a graph Variable, got {type(w).__name__}")
        if not is_differentiable(w):
            raise GradientError(
                f"wrt[{i}] ({w!r}) has dtype {w.type}: only float and complex values have "
                f"gradients (integer and bool values get none)"
            )


def _check_policy(disconnected: str) -> None:
    if disconnected not in _DISCONNECTED:
        raise ValueError(f"disconnected must be 'raise' or 'zero', got {disconnected!r}")


def _as_seed(v: Variable, c: Any, what: str) -> Variable:
    if not is_differentiable(v):
        raise GradientError(f"{what}: {v!r} has dtype {v.type} and carries no cotangent (pass None)")
    if not isinstance(c, Variable):
        c = Constant(np.asarray(c, dtype=v.dtype))
        if c.shape != v.shape:  # a scalar, or an array that broadcasts to v's shape
            c = broadcast_like(c, v)
    return _check_type(v, c, what)


def _finish(wrt: Sequence[Variable], found: tuple[dict[int, Variable], dict[int, NotDifferentiableError]],
            connected: set[int], disconnected: str, what: str) -> list[Variable]:
    out = []
    cts, poison = found
    for i, w in enumerate(wrt):
        if id(w) in poison:
            raise poison[id(w)]
        g = cts.get(id(w))
        if g is None:
            if disconnected == "raise" and id(w) not in connected:
                raise GradientError(
                    f"{what} does not depend on wrt[{i}] ({w!r}); pass disconnected='zero' "
                    f"for a zero gradient"
                )
            g = sh.zeros_like(w)
        elif g.shape != w.shape:
            from .ops.construct import SpecifyShape
            g = SpecifyShape(w.shape)(g)
        out.append(g)
    return out


def _reachable(outputs: Sequence[Variable]) -> set[int]:
    ids = {id(v) for v in outputs}
    for node in _ancestors_toposort(list(outputs)):
        ids.update(id(v) for v in node.inputs)
    return ids


def _mark() -> int:
    """An id below every Variable created from now on."""
    return next(_ids)


def _node_key(node: Apply) -> tuple | None:
    inputs = []
    for v in node.inputs:
        if isinstance(v, Constant) and v.data.size <= 64:
            inputs.append(("const", v.dtype.str, v.shape, v.data.tobytes()))
        else:
            inputs.append(id(v))
    key = (node.op, tuple(inputs))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _merge(results: list[Variable | None], start: int) -> list[Variable | None]:
    """Merges the nodes created since ``start`` with equal nodes (same Op and inputs):
    with each other and with the nodes that existed before."""
    roots = [r for r in results if r is not None]
    table: dict[tuple, Apply] = {}
    remap: dict[int, Variable] = {}
    for node in _ancestors_toposort(roots):
        new = bool(node.outputs) and all(o._id > start for o in node.outputs)
        if new:
            node.inputs = [remap.get(id(v), v) for v in node.inputs]
        key = _node_key(node)
        if key is None:
            continue
        prev = table.get(key)
        if prev is None:
            table[key] = node
        elif new:
            for o, p in zip(node.outputs, prev.outputs):
                remap[id(o)] = p
    return [None if r is None else remap.get(id(r), r) for r in results]


# --- public API ------------------------------------------------------------------------
def _grad(cost: Variable | None, wrt: list[Variable], known_grads: dict | None,
          disconnected: str) -> list[Variable]:
    seeds: list[tuple[Variable, Variable]] = []
    if cost is not None:
        if not isinstance(cost, Variable):
            raise TypeError(f"cost must be a graph Variable, got {type(cost).__name__}")
        if cost.ndim != 0 or is_complex(cost.dtype) or not is_differentiable(cost):
            raise GradientError(
                f"grad needs a real float 0-d cost, got {cost.type} (use vjp for other outputs)"
            )
        seeds.append((cost, _one(cost.dtype)))
    for v, c in (known_grads or {}).items():
        if not isinstance(v, Variable):
            raise TypeError(f"known_grads keys must be graph Variables, got {type(v).__name__}")
        seeds.append((v, _as_seed(v, c, "known_grads")))
    if not seeds:
        raise GradientError("grad needs a cost or known_grads")
    found = _backprop(seeds, wrt)
    return _finish(wrt, found, _reachable([v for v, _ in seeds]), disconnected, "the cost")


def grad(cost: Variable | None, wrt: Any, *, known_grads: dict | None = None,
         disconnected: str = "raise") -> Any:
    """The gradient of the real 0-d ``cost`` with respect to ``wrt`` (a Variable, or a list
    or tuple of them: the result has the same structure), as graph values of the types
    of ``wrt``.

    Args:
        cost: a real float 0-d Variable, or None when ``known_grads`` seeds the walk.
        wrt: graph inputs or intermediate values (an intermediate value gets the
            cotangent accumulated at it: the partial derivative, as in PyTensor).
        known_grads: {Variable: cotangent} added to the walk (PyTensor's ``known_grads``),
            e.g. a gradient computed elsewhere.
        disconnected: a ``wrt`` the cost does not depend on at all raises
            ``GradientError`` (``"raise"``) or gets zeros (``"zero"``). A ``wrt`` the cost
            reaches only through zero derivatives (``floor``, comparisons, integer
            casts, ``stop_gradient``) gets zeros either way.
    """
    _check_policy(disconnected)
    ws, pack = _flatten(wrt, "wrt")
    _check_wrt(ws)
    start = _mark()
    return pack(_merge(_grad(cost, ws, known_grads, disconnected), start))


def value_and_grad(cost: Variable, wrt: Any, **kwargs: Any) -> tuple[Variable, Any]:
    """``(cost, grad(cost, wrt, **kwargs))``."""
    return cost, grad(cost, wrt, **kwargs)


def _vjp(outputs: list[Variable], wrt: list[Variable], cotangents: list[Any],
         disconnected: str) -> list[Variable]:
    seeds = [(o, _as_seed(o, c, f"cotangent {i}"))
             for i, (o, c) in enumerate(zip(outputs, cotangents)) if c is not None]
    found = _backprop(seeds, wrt) if seeds else ({}, {})
    return _finish(wrt, found, _reachable(outputs), disconnected, "the outputs")


def vjp(outputs: Any, wrt: Any, cotangents: Any, *, disconnected: str = "zero") -> Any:
    """Vector-Jacobian product: ``sum_j cotangents[j] . d outputs[j] / d wrt`` for each
    ``wrt`` (same structure as ``wrt``). ``cotangents`` match ``outputs`` (a Variable or a
    list/tuple; entries may be arrays or None for zero); each has its output's type."""
    _check_policy(disconnected)
    outs, _ = _flatten(outputs, "outputs")
    cts = [cotangents] if isinstance(outputs, Variable) else list(cotangents)
    if len(cts) != len(outs):
        raise ValueError(f"vjp: {len(cts)} cotangents for {len(outs)} outputs")
    ws, pack = _flatten(wrt, "wrt")
    _check_wrt(ws)
    start = _mark()
    return pack(_merge(_vjp(outs, ws, cts, disconnected), start))


def _jvp(outputs: list[Variable], wrt: list[Variable], tangents: list[Any],
         disconnected: str) -> list[Variable]:
    ts = [None if t is None else _as_seed(w, t, f"tangent {i}")
          for i, (w, t) in enumerate(zip(wrt, tangents))]
    found, poison = _forward(wrt, ts, outputs)
    out = []
    for i, o in enumerate(outputs):
        if not is_differentiable(o):
            raise GradientError(f"jvp: output {i} ({o!r}) has dtype {o.type} and carries no tangent")
        if id(o) in poison:
            raise poison[id(o)]
        t = found.get(id(o))
        if t is None:
            if disconnected == "raise" and not any(id(w) in _reachable([o]) for w in wrt):
                raise GradientError(f"jvp: output {i} ({o!r}) does not depend on wrt")
            t = sh.zeros_like(o)
        elif t.shape != o.shape:
            from .ops.construct import SpecifyShape
            t = SpecifyShape(o.shape)(t)
        out.append(t)
    return out


def jvp(outputs: Any, wrt: Any, tangents: Any, *, disconnected: str = "zero") -> Any:
    """Jacobian-vector product: the tangent of each output (same structure as ``outputs``)
    when each ``wrt`` moves along its tangent (``tangents`` match ``wrt``; entries may be
    arrays or None for zero). The primal outputs are ``outputs`` themselves."""
    _check_policy(disconnected)
    outs, pack = _flatten(outputs, "outputs")
    ws, _ = _flatten(wrt, "wrt")
    ts = [tangents] if isinstance(wrt, Variable) else list(tangents)
    if len(ts) != len(ws):
        raise ValueError(f"jvp: {len(ts)} tangents for {len(ws)} wrt values")
    _check_wrt(ws)
    if len({id(w) for w in ws}) != len(ws):
        raise ValueError("jvp: a wrt value is listed twice")
    start = _mark()
    return pack(_merge(_jvp(outs, ws, ts, disconnected), start))


def _static_size(v: Variable, what: str) -> int:
    if not v.type.is_static:
        raise GradientError(f"{what} needs a static shape, got {v.type}")
    return v.type.size


def _identity(v: Variable) -> Variable:
    """The rows of the identity over the elements of ``v``: shape ``(v.size,) + v.shape``
    (an ``Eye`` node, not an n x n constant in the module)."""
    n = v.type.size
    eye = sh.Eye(n, n, 0, v.dtype)()
    return eye if v.ndim == 1 else sh.Reshape((n,) + v.shape)(eye)


def _to_shape(v: Variable, shape: tuple[int | None, ...], what: str) -> Variable:
    if v.shape == shape and None not in shape:
        return v
    if shape.count(None) > 1:
        raise GradientError(f"{what}: the result shape {shape} has more than one unknown dim")
    return sh.reshape(v, tuple(-1 if d is None else d for d in shape))


def _jacobian(y: Variable, xs: list[Variable], mode: str) -> list[Variable]:
    """One vjp (jvp) graph on a placeholder seed, vectorized over the rows of the
    identity: the graph does not grow with the size."""
    if not is_differentiable(y):
        raise GradientError(f"jacobian: y has dtype {y.type} and has no derivative")
    out = []
    if mode == "rev":
        n = _static_size(y, "jacobian(mode='rev') of y")
        if n == 0:
            return [sh.zeros(_static(y.shape + x.shape, "jacobian"), x.dtype) for x in xs]
        seed = Variable(y.type, name="ct")
        rows = vectorize_with_batch(_vjp([y], xs, [seed], "zero"), {seed: _identity(y)})
        return [_to_shape(r, y.shape + x.shape, "jacobian") for r, x in zip(rows, xs)]
    if mode != "fwd":
        raise ValueError(f"jacobian: mode must be 'rev' or 'fwd', got {mode!r}")
    for x in xs:
        n = _static_size(x, "jacobian(mode='fwd') of x")
        shape = y.shape + x.shape
        if n == 0:
            out.append(sh.zeros(_static(shape, "jacobian"), y.dtype))
            continue
        tangent = Variable(x.type, name="t")
        (cols,) = vectorize_with_batch(_jvp([y], [x], [tangent], "zero"), {tangent: _identity(x)})
        cols = sh.Transpose(tuple(range(1, y.ndim + 1)) + (0,))(cols)  # y.shape + (n,)
        out.append(_to_shape(cols, shape, "jacobian"))
    return out


def _static(shape: tuple[int | None, ...], what: str) -> tuple[int, ...]:
    if None in shape:
        raise GradientError(f"{what}: the result shape {shape} is not static")
    return shape  # type: ignore[return-value]


def jacobian(y: Variable, x: Any, mode: str = "rev") -> Any:
    """The Jacobian of ``y`` with respect to ``x`` (a Variable, or a list/tuple: one
    Jacobian each), of shape ``y.shape + x.shape``.

    ``mode="rev"`` vectorizes one ``vjp`` over the rows of the identity seed (``y`` needs
    a static shape), ``mode="fwd"`` one ``jvp`` over the identity tangents (``x`` needs a
    static shape), as jax's ``vmap`` of the vjp/jvp: the graph does not grow with the size
    (``frontend/vectorize.py``).
    """
    if not isinstance(y, Variable):
        raise TypeError(f"jacobian: y must be a graph Variable, got {type(y).__name__}")
    xs, pack = _flatten(x, "x")
    _check_wrt(xs)
    start = _mark()
    return pack(_merge(_jacobian(y, xs, mode), start))


def hessian(cost: Variable, wrt: Any) -> Any:
    """The Hessian of the real 0-d ``cost``: forward mode over reverse mode, as
    ``jax.hessian``. For one Variable ``x`` of static shape, a value of shape
    ``x.shape + x.shape``; for a list, a nested list ``H[i][j]`` of blocks
    ``wrt[i].shape + wrt[j].shape``. The jvp is vectorized over the identity tangents
    (see ``jacobian``); a Hessian-vector product is ``jvp(grad(cost, x), x, v)``."""
    ws, _ = _flatten(wrt, "wrt")
    _check_wrt(ws)
    start = _mark()
    grads = _grad(cost, ws, None, "zero")
    blocks = [_jacobian(g, ws, "fwd") for g in grads]
    flat = _merge([b for row in blocks for b in row], start)
    n = len(ws)
    rows = [flat[i * n:(i + 1) * n] for i in range(n)]
    return rows[0][0] if isinstance(wrt, Variable) else rows

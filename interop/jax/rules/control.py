"""Control flow and calls.

- ``cond`` becomes an IfElse (two branches) or a Switch, each branch the
  hlograph graph of its jaxpr over the cond's operands (a constant index, as
  ``platform_index`` gives for code written for other targets, selects its
  branch at import);
- ``while`` becomes a WhileLoop whose condition and body take the carried
  values and both sets of constants;
- ``scan`` becomes a Scan: the carry is the recurrent state, the ``xs`` the
  sequences (flipped for ``reverse=True``, and the stacked ``ys`` flipped back);
- calls (``jit``, ``closed_call``, ``core_call``, ``checkpoint``/``remat``) are inlined;
- ``custom_jvp_call`` and ``custom_vjp_call`` (``jax.custom_jvp``/``jax.custom_vjp``
  functions: ``jax.nn.relu``, ``jax.nn.softplus``, ...) import their primal
  computation as hlograph ops, wrapped in an ``hg.custom_vjp`` whose backward
  rule is jax's: a ``JaxOp`` (interop/jax/jax_op.py) of ``jax.vjp`` of the
  primitive bound again, so ``hg.grad`` of the imported graph gives what
  ``jax.grad`` gives, custom rule included;
- ``custom_linear_solve`` imports its ``solve`` function applied to ``b``.
"""

from __future__ import annotations

from typing import Any, Sequence

import jax
import numpy as np
from jax.extend.core import primitives as jex_primitives

from ....frontend.autodiff import custom_vjp as hg_custom_vjp
from ....frontend.graph import Graph, Variable
from ....frontend.ops.control import IfElse, Scan, Switch, WhileLoop
from ....frontend.types import TensorType, is_inexact
from ..avals import ClosedJaxpr, is_64bit
from ..interpreter import eval_jaxpr
from ..jax_op import JaxOp
from ..registry import Unsupported, register
from .common import const, hg, static_value


def _parts(jaxpr: Any) -> tuple[Any, Sequence[Any]]:
    """(open jaxpr, consts) of a closed or open jaxpr."""
    if isinstance(jaxpr, ClosedJaxpr):
        return jaxpr.jaxpr, jaxpr.consts
    return jaxpr, ()


def inline(jaxpr: Any, *args: Variable) -> list[Variable]:
    """The results of ``jaxpr`` applied to ``args``, as nodes of the graph being built."""
    open_jaxpr, consts = _parts(jaxpr)
    return eval_jaxpr(open_jaxpr, consts, *args)


def subgraph(jaxpr: Any, types: Sequence[TensorType], names: Sequence[str]) -> tuple[Graph, list[Variable]]:
    """The hlograph Graph of ``jaxpr`` on fresh inputs of ``types``, and those inputs."""
    inputs = [Variable(t, name=n) for t, n in zip(types, names)]
    return Graph(inputs, inline(jaxpr, *inputs)), inputs


@register("jit", "pjit")
def call_jit(*args, jaxpr, **params):
    return inline(jaxpr, *args)


@register("closed_call", "core_call")
def call(*args, call_jaxpr, **params):
    return inline(call_jaxpr, *args)


@register("checkpoint", "remat", "remat2")
def checkpoint(*args, jaxpr, **params):
    return inline(jaxpr, *args)


def _uses_x64(jaxpr: Any) -> bool:
    closed = jaxpr if isinstance(jaxpr, ClosedJaxpr) else None
    avals = [*closed.in_avals, *closed.out_avals] if closed is not None else \
        [v.aval for v in (*jaxpr.invars, *jaxpr.outvars)]
    return bool(jax.config.jax_enable_x64) or any(is_64bit(getattr(a, "dtype", None)) for a in avals)


def custom_derivative(primitive: Any, params: dict[str, Any], call_jaxpr: Any,
                      args: Sequence[Variable]) -> list[Variable]:
    """The primal computation of a custom-derivative call, whose pullback is jax's
    (``jax.vjp`` of the primitive bound again with its params, as a ``JaxOp``)."""
    # the leading ``num_consts`` operands are values the function closes over: jax's
    # rule differentiates the others only
    wrt = tuple(i for i, a in enumerate(args)
                if i >= params.get("num_consts", 0) and is_inexact(a.dtype))
    if not wrt:
        return inline(call_jaxpr, *args)

    def bound(*arrays):
        return tuple(primitive.bind(*arrays, **primitive.get_bind_params(params)))

    jax_fn = JaxOp(bound, primitive.name, _uses_x64(call_jaxpr))
    in_types = tuple(a.type for a in args)

    def fwd(*xs):
        outs = tuple(inline(call_jaxpr, *xs))
        return outs, outs

    def bwd(outs, cts):
        out_types = tuple(o.type for o in outs)
        mask = tuple(c is not None and is_inexact(t.dtype) for c, t in zip(cts, out_types))
        result: list[Variable | None] = [None] * len(args)
        if not any(mask):
            return tuple(result)
        grads = jax_fn.vjp_op(in_types, out_types, mask, wrt).make_node(
            *args, *(c for c, m in zip(cts, mask) if m)).outputs
        for i, g in zip(wrt, grads):
            result[i] = g
        return tuple(result)

    def primal(*xs):
        return fwd(*xs)[0]

    primal.__name__ = primitive.name
    return list(hg_custom_vjp(primal, fwd, bwd)(*args))


@register("custom_jvp_call")
def custom_jvp_call(*args, call_jaxpr, **params):
    return custom_derivative(jex_primitives.custom_jvp_call_p, dict(call_jaxpr=call_jaxpr, **params),
                             call_jaxpr, args)


@register("custom_vjp_call")
def custom_vjp_call(*args, call_jaxpr, **params):
    return custom_derivative(jex_primitives.custom_vjp_call_p, dict(call_jaxpr=call_jaxpr, **params),
                             call_jaxpr, args)


@register("custom_vjp_call_jaxpr")
def custom_vjp_call_jaxpr(*args, fun_jaxpr, **params):
    return inline(fun_jaxpr, *args)


@register("custom_linear_solve")
def custom_linear_solve(*args, const_lengths, jaxprs):
    # operands: the constants of matvec, vecmat, solve and transpose_solve, then b
    start = const_lengths.matvec + const_lengths.vecmat
    solve_consts = args[start:start + const_lengths.solve]
    b = args[sum(const_lengths):]
    return inline(jaxprs.solve, *solve_consts, *b)


#: the platforms hlograph compiles for, by the names jax's platform-dependent code uses
_TARGETS = {"cpu", "cuda", "rocm", "gpu", "tpu"}


@register("platform_index")
def platform_index(*, platforms, has_default=None, **params):
    # code for other targets (Pallas' "mosaic") never runs here: the default branch does
    named = {p for entry in platforms if entry is not None for p in entry}
    if None not in platforms or named & _TARGETS:
        raise Unsupported("code that depends on the platform compiled for")
    return const(list(platforms).index(None), np.int32)


@register("cond")
def cond(index, *operands, branches, **params):
    known = static_value(index)
    if known is not None:  # a constant index (platform_index): the branch it selects
        i = int(known)
        return inline(branches[i if 0 <= i < len(branches) else len(branches) - 1], *operands)
    types = [v.type for v in operands]
    names = [f"operand{i}" for i in range(len(operands))]
    graphs = [subgraph(b, types, names)[0] for b in branches]
    if len(graphs) == 1:
        return inline(branches[0], *operands)
    if len(graphs) == 2:
        # branch 1 for a nonzero index (stablehlo.case runs the last branch out of range)
        pred = index if index.dtype.kind == "b" else hg.not_equal(index, const(0, index.dtype))
        return IfElse(graphs[1], graphs[0]).make_node(pred, *operands).outputs
    return Switch(graphs).make_node(index, *operands).outputs


@register("while")
def while_(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cond_consts = list(args[:cond_nconsts])
    body_consts = list(args[cond_nconsts:cond_nconsts + body_nconsts])
    init = list(args[cond_nconsts + body_nconsts:])
    carry = [Variable(v.type, name=f"carry{i}") for i, v in enumerate(init)]
    cc = [Variable(v.type, name=f"cond_const{i}") for i, v in enumerate(cond_consts)]
    bc = [Variable(v.type, name=f"body_const{i}") for i, v in enumerate(body_consts)]
    (pred,) = inline(cond_jaxpr, *cc, *carry)
    body_out = inline(body_jaxpr, *bc, *carry)
    if pred.ndim:
        # a batched predicate (a vmapped loop), as jax lowers it: the loop goes on while
        # any element's is true, and an element whose own is false keeps its carry
        (own,) = inline(cond_jaxpr, *cc, *carry)
        body_out = [hg.where(hg.reshape(own, (*own.shape, *[1] * (b.ndim - own.ndim))), b, c)
                    for b, c in zip(body_out, carry)]
        pred = hg.any(pred)
    inputs = [*carry, *cc, *bc]
    loop = WhileLoop(Graph(inputs, [pred]), Graph(inputs, body_out), len(init))
    return loop.make_node(*init, *cond_consts, *body_consts).outputs


@register("scan")
def scan(*args, reverse, length, jaxpr, num_consts, num_carry, **params):
    consts = list(args[:num_consts])
    init = list(args[num_consts:num_consts + num_carry])
    xs = list(args[num_consts + num_carry:])
    if reverse:
        xs = [hg.flip(x, 0) for x in xs]
    x_in = [Variable(TensorType(x.dtype, x.shape[1:]), name=f"x{i}") for i, x in enumerate(xs)]
    carry = [Variable(v.type, name=f"carry{i}") for i, v in enumerate(init)]
    const_in = [Variable(v.type, name=f"const{i}") for i, v in enumerate(consts)]
    outs = inline(jaxpr, *const_in, *carry, *x_in)
    n_ys = len(outs) - num_carry
    step = Graph([*x_in, *carry, *const_in], outs)
    op = Scan(step, int(length), len(xs), [True] * num_carry + [False] * n_ys,
              [False] * num_carry + [True] * n_ys)
    results = op.make_node(*xs, *init, *consts).outputs
    final, ys = list(results[:num_carry]), list(results[num_carry:])
    if reverse:
        ys = [hg.flip(y, 0) for y in ys]
    return [*final, *ys]

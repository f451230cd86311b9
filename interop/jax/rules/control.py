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
- ``custom_jvp_call`` and ``custom_vjp_call`` import their primal computation
  (the custom derivative rules are jax's and are not imported: ``hg.grad`` of
  the imported graph differentiates the primal ops);
- ``custom_linear_solve`` imports its ``solve`` function applied to ``b``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ....frontend.graph import Graph, Variable
from ....frontend.ops.control import IfElse, Scan, Switch, WhileLoop
from ....frontend.types import TensorType
from ..avals import ClosedJaxpr
from ..interpreter import eval_jaxpr
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


@register("custom_jvp_call")
def custom_jvp_call(*args, call_jaxpr, **params):
    return inline(call_jaxpr, *args)


@register("custom_vjp_call", "custom_vjp_call_jaxpr")
def custom_vjp_call(*args, call_jaxpr=None, fun_jaxpr=None, **params):
    return inline(call_jaxpr if call_jaxpr is not None else fun_jaxpr, *args)


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

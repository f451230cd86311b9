"""Copies and views, ``ifelse``, assertions (``CheckAndRaise``) and ``OpFromGraph``."""

from __future__ import annotations

from pytensor.compile import ops as compile_ops
from pytensor.compile.builders import OpFromGraph
from pytensor.ifelse import IfElse
from pytensor.raise_op import CheckAndRaise

from ....frontend import builders as hb
from ..convert import hlograph_convert


def convert_identity(op, node, inputs, ctx):
    return inputs[0]


# copies and views (ViewOp, OutputGuard, ...): the value itself
for _name in ("DeepCopyOp", "TypeCastingOp", "ViewOp", "OutputGuard"):
    _cls = getattr(compile_ops, _name, None)
    if _cls is not None:
        hlograph_convert.register(_cls)(convert_identity)


@hlograph_convert.register(IfElse)
def convert_ifelse(op, node, inputs, ctx):
    """``stablehlo.if``: only the taken branch runs (values used by one branch only
    move into it)."""
    cond, *branches = inputs
    n = op.n_outs
    then, other = branches[:n], branches[n:]
    if cond.ndim != 0:
        cond = hb.reshape(cond, ())
    outs = hb.ifelse(cond, list(then), list(other))
    return list(outs)


def _shape_only(v, limit: int = 200) -> bool:
    """Whether PyTensor value ``v`` is computed from shapes and constants only."""
    from pytensor.graph.basic import Constant as PtConstant
    from pytensor.tensor.shape import Shape, Shape_i
    stack, seen = [v], set()
    while stack:
        w = stack.pop()
        if id(w) in seen:
            continue
        seen.add(id(w))
        if len(seen) > limit:
            return False
        if isinstance(w, PtConstant):
            continue
        if w.owner is None:
            return False
        if isinstance(w.owner.op, (Shape, Shape_i)):
            continue
        stack.extend(w.owner.inputs)
    return True


@hlograph_convert.register(CheckAndRaise)
def convert_check_and_raise(op, node, inputs, ctx):
    """hlograph's check (it raises ``hlograph.CheckError``, re-raised as the Op's
    exception type by the compiled function); conditions that are constants and
    true are dropped."""
    x, *conds = inputs
    pending = []
    for c, pt_c in zip(conds, node.inputs[1:]):
        v = ctx.static(c, needed=False)
        if v is not None and bool(v.all()):
            continue
        if _shape_only(pt_c):
            # a check of shapes (PyTensor's rewrites add them): it folds away once the
            # graph is specialized to the argument shapes, instead of running each call
            ctx.mark_shape_dependent()
        pending.append(c)
    if not pending:
        return x
    msg = op.msg or "assertion failed"
    ctx.checks[msg] = op.exc_type
    return hb.check_and_raise(x, pending[0], msg, *pending[1:])


@hlograph_convert.register(OpFromGraph)
def convert_op_from_graph(op, node, inputs, ctx):
    """The inner graph converted in place (as written: no rewrites run on it)."""
    inner = op.fgraph
    outs = ctx.convert_inner(inner.inputs, inner.outputs, inputs)
    return outs

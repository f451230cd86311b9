"""Vectorization as a graph transformation: ``vectorize_graph`` and ``vmap``.

``vectorize_graph(outputs, {x: xs})`` rebuilds the graph of ``outputs`` for
replacement inputs that carry one extra leading (batch) axis, as PyTensor's
``vectorize_graph`` and jax's batching interpreter: every node that depends on a
batched value is rebuilt by its Op's batching rule into a node (or a few) that
computes all batch elements at once; nodes that depend on no batched value are
kept and shared. The reference semantics are those of stacking: evaluating the
vectorized graph equals evaluating the original once per batch element and
stacking the results along a new leading axis.

Batching rules are registered by Op class (``register(OpClass)``, looked up
along the class's MRO as lowering rules are):
``rule(node, inputs, is_batched) -> outputs``, where ``inputs`` are the node's
inputs with the batched ones replaced by their batched values (batch axis 0)
and ``is_batched`` says which. Each output the rule returns has the batch axis
at 0 (one more dimension than the node's output), or the node's output rank
when it does not depend on the batch (``Shape`` of a batched value). A rule
raises ``NoBatchingRule`` where it does not apply (an unknown batch size it
would need, a batched operand it does not handle); the node then takes the
fallback, as does an Op with no rule: ``Blockwise(op, signature)`` with every
dimension of each input and output in the core, correct for any Op (lowered by
a loop), so vectorization never fails.

``vmap(fn, in_axes, out_axes)`` is ``jax.vmap`` for functions of Variables:
the function is traced once on unbatched inputs and the result vectorized.
``jacobian`` and ``hessian`` (frontend/autodiff.py) vectorize one vjp (jvp)
graph over the rows of an identity seed, so their graphs do not grow with the
size.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Sequence

import numpy as np

from .graph import Apply, Constant, Graph, Variable, _ancestors_toposort
from .pytree import tree_flatten
from .registry import OpRegistry
from .types import TensorType
from .ops import autodiff as ad
from .ops import construct as cs
from .ops import control as ct
from .ops import conv as cv
from .ops import elemwise as ew
from .ops import fft as ff
from .ops import indexing as ix
from .ops import linalg as la
from .ops import reduction as rd
from .ops import shape as sh
from .ops import sort as so
from .ops.blockwise import Blockwise
from .ops.control import Composite

__all__ = ["vectorize_graph", "vectorize_node", "vectorize_with_batch", "materialize", "vmap", "register",
           "NoBatchingRule", "BATCHING_RULES"]


class NoBatchingRule(Exception):
    """Raised by a batching rule that does not apply to a node: the node takes the
    Blockwise fallback instead."""


#: Op class -> batching rule
BATCHING_RULES = OpRegistry("batching rule")
register = BATCHING_RULES.register


# --- the batch being built ---------------------------------------------------------------
class _Batch:
    """The batch size (None: unknown) and a value of shape (size,) to broadcast
    unbatched values against when the size is unknown."""

    def __init__(self, size: int | None, template: Variable):
        self.size = size
        self._template = template  # a batched value
        self._vector: Variable | None = None

    def vector(self) -> Variable:
        """A bool vector of shape (size,) (values never read)."""
        if self._vector is None:
            ones = sh.FullLike()(self._template, Constant(np.array(True)))
            n = ones.ndim
            self._vector = rd.Any(tuple(range(1, n)))(ones) if n > 1 else ones
        return self._vector


_state = threading.local()


@contextlib.contextmanager
def _batch(b: _Batch):
    old = getattr(_state, "batch", None)
    _state.batch = b
    try:
        yield
    finally:
        _state.batch = old


def _current() -> _Batch:
    b = getattr(_state, "batch", None)
    if b is None:  # pragma: no cover - rules run inside vectorize_graph only
        raise RuntimeError("a batching rule ran outside vectorize_graph")
    return b


def materialize(v: Variable) -> Variable:
    """The unbatched ``v`` repeated along a new leading batch axis."""
    b = _current()
    if b.size is not None and v.type.is_static:
        return sh.BroadcastTo((b.size,) + v.shape)(sh.ExpandDims((0,))(v))
    cond = b.vector()
    if v.ndim:
        cond = sh.ExpandDims(tuple(range(1, v.ndim + 1)))(cond)
    x = sh.ExpandDims((0,))(v)
    return ew.Select()(cond, x, x)


def _batched_all(inputs: Sequence[Variable], is_batched: Sequence[bool]) -> list[Variable]:
    return [x if b else materialize(x) for x, b in zip(inputs, is_batched)]


def _align(x: Variable, rank: int) -> Variable:
    """A batched ``x`` with size-1 dims inserted after the batch axis, so that its core
    has ``rank`` dims (NumPy broadcasting then matches the core's)."""
    k = rank - (x.ndim - 1)
    return sh.ExpandDims(tuple(range(1, 1 + k)))(x) if k > 0 else x


def _moveaxis(x: Variable, src: int, dst: int) -> Variable:
    if src == dst:
        return x
    perm = [d for d in range(x.ndim) if d != src]
    perm.insert(dst, src)
    return sh.Transpose(tuple(perm))(x)


def _shift(axes: Any) -> Any:
    if axes is None:
        return None
    if isinstance(axes, tuple):
        return tuple(a + 1 for a in axes)
    return axes + 1


def _flat(x: Variable) -> Variable:
    """A batched ``x`` as (batch, core size)."""
    b = _current()
    n = int(np.prod(x.shape[1:], dtype=np.int64)) if all(d is not None for d in x.shape[1:]) else None
    if b.size is not None:
        return sh.Reshape((b.size, -1 if n is None else n))(x) if n != 0 else sh.Reshape((b.size, 0))(x)
    if n is None or n == 0:
        raise NoBatchingRule("flattening needs a known batch size or core size")
    return sh.Reshape((-1, n))(x)


def _reshape(x: Variable, core: tuple[int | None, ...]) -> Variable:
    """A batched ``x`` reshaped to (batch,) + ``core``."""
    b = _current()
    if None in core:
        raise NoBatchingRule("a reshape to an unknown core shape")
    if b.size is not None:
        return sh.Reshape((b.size,) + core)(x)
    if int(np.prod(core, dtype=np.int64)) == 0:
        raise NoBatchingRule("a reshape to an empty core needs a known batch size")
    return sh.Reshape((-1,) + core)(x)


# --- the transformation --------------------------------------------------------------------
def _fallback(node: Apply, inputs: list[Variable], is_batched: list[bool]) -> list[Variable]:
    """The node's Op inside a Blockwise over the batch axis, every dim of each input and
    output in the core (a Composite takes the extra size inputs output dims are named by)."""
    names: dict[Any, str] = {}
    sigs_in = []
    for i, v in enumerate(node.inputs):
        sig = []
        for k, d in enumerate(v.shape):
            name = f"i{i}_{k}"
            if d is not None:
                name = names.setdefault(d, name)
            sig.append(name)
        sigs_in.append(sig)
    extra: list[int] = []
    sigs_out = []
    for o in node.outputs:
        sig = []
        for d in o.shape:
            if d is None:
                raise NoBatchingRule(f"{node.op}: an output dim of unknown size")
            if d not in names:
                names[d] = f"x{len(extra)}"
                extra.append(d)
            sig.append(names[d])
        sigs_out.append(sig)
    core_in = [Variable(v.type, name=f"core{i}") for i, v in enumerate(node.inputs)]
    dummies = [Variable(TensorType("bool", (d,)), name=f"size{d}") for d in extra]
    outs = node.op.make_node(*core_in).outputs
    graph = Graph([*core_in, *dummies], list(outs))
    signature = (",".join("(" + ",".join(s) + ")" for s in [*sigs_in, *([n] for n in
                                                                       (names[d] for d in extra))])
                 + "->" + ",".join("(" + ",".join(s) + ")" for s in sigs_out))
    name = type(node.op).__name__.lower()
    op = Blockwise(Composite(graph, name if name.isidentifier() else "core"), signature)
    consts = [Constant(np.zeros((d,), bool)) for d in extra]
    result = op.make_node(*inputs, *consts).outputs
    return list(result)


def vectorize_node(node: Apply, inputs: Sequence[Variable], is_batched: Sequence[bool]) -> list[Variable]:
    """The outputs of ``node`` for ``inputs`` (the batched ones with the batch axis at 0,
    as ``is_batched`` says): its Op's batching rule, else the Blockwise fallback. An
    output of the node's own rank does not depend on the batch."""
    inputs, is_batched = list(inputs), list(is_batched)
    if getattr(_state, "batch", None) is None:  # called on its own
        if not any(is_batched):
            raise ValueError(f"vectorize_node({node.op}): no input is batched")
        first = next(x for x, b in zip(inputs, is_batched) if b)
        with _batch(_Batch(first.shape[0], first)):
            return vectorize_node(node, inputs, is_batched)
    rule = BATCHING_RULES.lookup(type(node.op))
    outs = None
    if rule is not None:
        try:
            outs = list(rule(node, inputs, is_batched))
        except NoBatchingRule:
            outs = None
    if outs is None:
        try:
            outs = _fallback(node, inputs, is_batched)
        except NoBatchingRule as e:
            raise ValueError(f"cannot vectorize {node.op}: it has no batching rule, and the "
                             f"Blockwise fallback needs static output shapes ({e})") from None
    if len(outs) != len(node.outputs):
        raise ValueError(f"the batching rule of {node.op} returned {len(outs)} outputs for "
                         f"{len(node.outputs)}")
    for j, (o, v) in enumerate(zip(node.outputs, outs)):
        if v.dtype != o.dtype or v.ndim not in (o.ndim, o.ndim + 1):
            raise ValueError(f"the batching rule of {node.op} returned {v.type} for output {j} "
                             f"of type {o.type}")
    return outs


def _check_replace(replace: dict) -> int | None:
    if not isinstance(replace, dict):
        raise TypeError(f"vectorize_graph: replace must be a dict, got {type(replace).__name__}")
    size: int | None = None
    first = None
    for k, v in replace.items():
        if not isinstance(k, Variable) or not isinstance(v, Variable):
            raise TypeError("vectorize_graph: replace maps graph Variables to graph Variables, got "
                            f"{type(k).__name__} -> {type(v).__name__}")
        if v.dtype != k.dtype or v.ndim != k.ndim + 1 or any(
                a is not None and b is not None and a != b for a, b in zip(v.shape[1:], k.shape)):
            raise ValueError(f"vectorize_graph: the batched value of {k!r} must have its type with "
                             f"one leading batch axis, got {v.type}")
        n = v.shape[0]
        if n is not None:
            if size is not None and n != size:
                raise ValueError(f"vectorize_graph: batch sizes differ: {first!r} has {size}, "
                                 f"{k!r} has {n}")
            size, first = n, k
    return size


def _vectorize(outputs: Sequence[Variable], replace: dict[Variable, Variable],
               plain: dict[Variable, Variable] | None = None) -> tuple[list[Variable], list[bool]]:
    """The vectorized ``outputs`` and which of them are batched. ``plain`` maps more
    values to unbatched replacements (the inputs of an inlined Composite)."""
    size = _check_replace(replace)
    batched: dict[int, Variable] = {id(k): v for k, v in replace.items()}
    subst: dict[int, Variable] = {id(k): v for k, v in (plain or {}).items()}
    order = _ancestors_toposort(list(outputs))
    template = next(iter(replace.values())) if replace else None
    with _batch(_Batch(size, template)) if template is not None else contextlib.nullcontext():
        for node in order:
            if all(id(o) in batched or id(o) in subst for o in node.outputs):
                continue
            flags = [id(v) in batched for v in node.inputs]
            if any(flags):
                ins = [batched[id(v)] if f else subst.get(id(v), v) for v, f in zip(node.inputs, flags)]
                for o, r in zip(node.outputs, vectorize_node(node, ins, flags)):
                    if id(o) in batched or id(o) in subst:  # replaced by the caller
                        continue
                    if r.ndim == o.ndim + 1:
                        batched[id(o)] = r
                    else:
                        subst[id(o)] = r
            elif any(id(v) in subst for v in node.inputs):
                new = node.op.make_node(*(subst.get(id(v), v) for v in node.inputs))
                for o, r in zip(node.outputs, new.outputs):
                    subst[id(o)] = r
    outs, flags = [], []
    for o in outputs:
        if id(o) in batched:
            outs.append(batched[id(o)])
            flags.append(True)
        else:
            outs.append(subst.get(id(o), o))
            flags.append(False)
    return outs, flags


def vectorize_graph(outputs: Any, replace: dict[Variable, Variable]) -> Any:
    """``outputs`` (a Variable or a list/tuple of them) rebuilt for the batched values in
    ``replace``: {original value: the same with one extra leading batch axis}.

    Every node that depends on a replaced value is rebuilt by its Op's batching rule
    (the Blockwise fallback for an Op without one); the others are kept. An output
    that depends on no replaced value is returned as it is (unbatched), as PyTensor's
    ``vectorize_graph``; ``vmap`` broadcasts such outputs along the batch.
    """
    single = isinstance(outputs, Variable)
    outs = [outputs] if single else list(outputs)
    for i, o in enumerate(outs):
        if not isinstance(o, Variable):
            raise TypeError(f"vectorize_graph: output {i} must be a graph Variable, got {type(o).__name__}")
    res, _ = _vectorize(outs, replace)
    return res[0] if single else type(outputs)(res)


def vectorize_with_batch(outputs: Sequence[Variable], replace: dict[Variable, Variable]) -> list[Variable]:
    """``vectorize_graph`` with every output batched (unbatched ones repeated along the
    batch axis)."""
    res, flags = _vectorize(list(outputs), replace)
    if all(flags):
        return res
    size = _check_replace(replace)
    with _batch(_Batch(size, next(iter(replace.values())))):
        return [r if f else materialize(r) for r, f in zip(res, flags)]


# --- vmap ------------------------------------------------------------------------------------
def _is_axis(a: Any) -> bool:
    return a is None or (isinstance(a, (int, np.integer)) and not isinstance(a, bool))


def _prefix_leaves(prefix: Any, tree: Any, what: str) -> list[Any]:
    """``prefix`` (an axis or a pytree prefix of ``tree``) spread over ``tree``'s leaves."""
    leaves, treedef = tree_flatten(tree)
    if _is_axis(prefix):
        return [prefix] * len(leaves)
    p_leaves, p_def = tree_flatten(prefix, is_leaf=_is_axis)
    if not all(_is_axis(a) for a in p_leaves):
        raise TypeError(f"vmap: {what} must hold ints or None, got {prefix!r}")
    if p_def == treedef:
        return list(p_leaves)
    # a prefix: match the children level by level
    from .pytree import _node
    pn, tn = _node(prefix), _node(tree)
    if pn is None or tn is None or pn[0] != tn[0] or pn[1] != tn[1] or len(pn[2]) != len(tn[2]):
        raise ValueError(f"vmap: {what} {prefix!r} is not a tree prefix of the arguments' structure "
                         f"{treedef}")
    out: list[Any] = []
    for p, t in zip(pn[2], tn[2]):
        out.extend(_prefix_leaves(p, t, what))
    return out


def _as_mapped(x: Any, axis: int, where: str) -> Variable:
    from .ops.basic import as_variable
    if not isinstance(x, Variable):
        try:
            x = as_variable(x)
        except (TypeError, ValueError) as e:
            raise TypeError(f"vmap: {where} is mapped (in_axes {axis}) but is not an array or graph "
                            f"value: {type(x).__name__}") from e
    if x.ndim == 0:
        raise ValueError(f"vmap was requested to map its argument along axis {axis}, which implies "
                         f"that its rank should be at least 1, but {where} is 0-d ({x.type})")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"vmap: in_axes {axis} is out of bounds for {where} of rank {x.ndim} ({x.type})")
    return _moveaxis(x, axis % x.ndim, 0)


def vmap(fn: Callable, in_axes: Any = 0, out_axes: Any = 0) -> Callable:
    """``fn`` mapped over an axis of its arguments, as ``jax.vmap``.

    ``fn`` is a function of graph values (and other Python values); the mapped
    function takes the same arguments with a batch axis added (Variables, or arrays
    that become constants) and returns graph values with the batch axis where
    ``out_axes`` says. ``fn`` is traced once, on values without the batch axis, and
    its graph vectorized (``vectorize_graph``): no loop over the batch.

    Args:
        fn: the per-example function.
        in_axes: an int or None (not mapped) for every argument, or a tuple with one
            entry per positional argument, each an int, None or a pytree prefix of the
            argument (as jax).
        out_axes: the same for the outputs; None requires an output that does not
            depend on the mapped arguments.

    Raises:
        ValueError: the mapped axes have different sizes, no argument is mapped, an
            axis is out of range, or in_axes does not fit the arguments.
    """
    if not callable(fn):
        raise TypeError(f"vmap: fn must be callable, got {type(fn).__name__}")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)

    def batched(*args: Any) -> Any:
        if isinstance(in_axes, tuple):
            if len(in_axes) != len(args):
                raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                                 f"corresponding to the positional arguments passed to the function, "
                                 f"but got len(in_axes)={len(in_axes)}, len(args)={len(args)}")
            axes = [_prefix_leaves(a, x, f"in_axes[{i}]") for i, (a, x) in enumerate(zip(in_axes, args))]
        elif _is_axis(in_axes):
            axes = [_prefix_leaves(in_axes, x, "in_axes") for x in args]
        else:
            raise TypeError(f"vmap: in_axes must be an int, None or a tuple, got {type(in_axes).__name__}")
        replace: dict[Variable, Variable] = {}
        sizes: list[tuple[str, int | None, int]] = []
        core_args = []
        for i, (x, ax) in enumerate(zip(args, axes)):
            leaves, treedef = tree_flatten(x)
            new = []
            for k, (leaf, a) in enumerate(zip(leaves, ax)):
                if a is None:
                    new.append(leaf)
                    continue
                where = f"argument {i}" if treedef.is_leaf else f"argument {i} leaf {k}"
                xb = _as_mapped(leaf, int(a), where)
                core = Variable(TensorType(xb.dtype, xb.shape[1:]), name=getattr(leaf, "name", None))
                replace[core] = xb
                sizes.append((where, xb.shape[0], int(a)))
                new.append(core)
            core_args.append(treedef.unflatten(new))
        if not replace:
            raise ValueError("vmap must have at least one non-None value in in_axes")
        known = {n for _, n, _ in sizes if n is not None}
        if len(known) > 1:
            lines = "\n".join(f"  * {w} has size {n} along axis {a}" for w, n, a in sizes)
            raise ValueError(f"vmap got inconsistent sizes for the array axes to be mapped:\n{lines}")
        out = fn(*core_args)
        leaves, treedef = tree_flatten(out)
        for k, leaf in enumerate(leaves):
            if not isinstance(leaf, Variable):
                raise TypeError(f"vmap: fn must return graph values (a pytree of them), got "
                                f"{type(leaf).__name__} at output leaf {k}")
        oaxes = _prefix_leaves(tuple(out_axes) if isinstance(out_axes, list) else out_axes, out, "out_axes")
        res, flags = _vectorize(leaves, replace)
        final = []
        size = _check_replace(replace)
        with _batch(_Batch(size, next(iter(replace.values())))):
            for k, (r, f, a) in enumerate(zip(res, flags, oaxes)):
                if a is None:
                    if f:
                        raise ValueError(f"vmap has mapped output (leaf {k}) but out_axes is None")
                    final.append(r)
                    continue
                r = r if f else materialize(r)
                if not -r.ndim <= a < r.ndim:
                    raise ValueError(f"vmap: out_axes {a} is out of bounds for output leaf {k} of "
                                     f"rank {r.ndim} ({r.type})")
                final.append(_moveaxis(r, 0, a % r.ndim))
        return treedef.unflatten(final)

    batched.__name__ = batched.__qualname__ = f"vmap_{getattr(fn, '__name__', 'fn')}"
    batched.__doc__ = getattr(fn, "__doc__", None)
    return batched


# --- rules ----------------------------------------------------------------------------------------
def _same_op(node: Apply, inputs: list[Variable], is_batched: list[bool]) -> list[Variable]:
    """An elementwise Op: batched inputs aligned to the output's rank, then the same Op
    (NumPy broadcasting puts the batch axis first)."""
    rank = node.outputs[0].ndim
    ins = [_align(x, rank) if b else x for x, b in zip(inputs, is_batched)]
    return list(node.op.make_node(*ins).outputs)


for _cls in (ew.Elemwise, ew.Select, ew.Cast, ad.StopGradient):
    register(_cls)(_same_op)


@register(rd.Reduce)
def _reduce(node, inputs, is_batched):
    op = node.op
    return [type(op)(_shift(op.axis), op.keepdims)(inputs[0])]


@register(rd.Var)
def _var(node, inputs, is_batched):
    op = node.op
    return [type(op)(_shift(op.axis), op.keepdims, op.ddof)(inputs[0])]


@register(rd.LogSumExp)
def _logsumexp(node, inputs, is_batched):
    op = node.op
    return [type(op)(_shift(op.axis), op.keepdims)(inputs[0])]


@register(rd.Softmax)
def _softmax(node, inputs, is_batched):
    return [type(node.op)(_shift(node.op.axis))(inputs[0])]


@register(rd.Argmax)
def _argmax(node, inputs, is_batched):
    op, (x,) = node.op, inputs
    if op.axis is not None:
        return [type(op)(op.axis + 1, op.keepdims)(x)]
    out = type(op)(1)(_flat(x))
    if op.keepdims:
        out = sh.ExpandDims(tuple(range(1, node.inputs[0].ndim + 1)))(out)
    return [out]


@register(rd.CumOp)
def _cumop(node, inputs, is_batched):
    op, (x,) = node.op, inputs
    if op.axis is None:
        return [rd.CumOp(1, op.mode)(_flat(x))]
    return [rd.CumOp(op.axis + 1, op.mode)(x)]


@register(so.Sort)
def _sort(node, inputs, is_batched):
    op, (x,) = node.op, inputs
    if op.axis is None:
        return [type(op)(1, op.descending, op.stable)(_flat(x))]
    return [type(op)(op.axis + 1, op.descending, op.stable)(x)]


@register(so.TopK)
def _topk(node, inputs, is_batched):
    return list(node.op.make_node(inputs[0]).outputs)


@register(la.DotGeneral)
def _dot_general(node, inputs, is_batched):
    op = node.op
    (ca, cb), (ba, bb) = op.contracting, op.batch
    a, b = inputs
    a0, b0 = node.inputs
    if is_batched[0] and is_batched[1]:
        ka, kb = max(0, len(bb) - len(ba)), max(0, len(ba) - len(bb))
        if ka:
            a = sh.ExpandDims(tuple(range(1, 1 + ka)))(a)
        if kb:
            b = sh.ExpandDims(tuple(range(1, 1 + kb)))(b)
        sa, sb = 1 + ka, 1 + kb
        new = la.DotGeneral((tuple(d + sa for d in ca), tuple(d + sb for d in cb)),
                            ((0, *range(1, sa), *(d + sa for d in ba)),
                             (0, *range(1, sb), *(d + sb for d in bb))))
        return [new(a, b)]
    nb = max(len(ba), len(bb))
    new = la.DotGeneral((tuple(d + is_batched[0] for d in ca), tuple(d + is_batched[1] for d in cb)),
                        (tuple(d + is_batched[0] for d in ba), tuple(d + is_batched[1] for d in bb)))
    out = new(a, b)
    if is_batched[0]:
        return [_moveaxis(out, nb, 0)]
    free_a = len(op.free_axes(a0.ndim, 0))
    return [_moveaxis(out, nb + free_a, 0)]


@register(sh.Reshape)
def _reshape_rule(node, inputs, is_batched):
    size = _current().size
    if size is not None:
        return [sh.Reshape((size,) + node.op.shape)(inputs[0])]
    return [_reshape(inputs[0], node.outputs[0].shape if -1 in node.op.shape else node.op.shape)]


@register(ad.ReshapeLike)
def _reshape_like(node, inputs, is_batched):
    if is_batched[1]:
        raise NoBatchingRule("ReshapeLike of a batched shape")
    return [_reshape(inputs[0], node.outputs[0].shape)]


@register(sh.Transpose)
def _transpose(node, inputs, is_batched):
    return [sh.Transpose((0,) + tuple(p + 1 for p in node.op.perm))(inputs[0])]


@register(sh.BroadcastTo)
def _broadcast_to(node, inputs, is_batched):
    size = _current().size
    shape = node.op.shape
    x = _align(inputs[0], len(shape))
    if size is None:
        cond = sh.ExpandDims(tuple(range(1, len(shape) + 1)))(_current().vector())
        cond = ew.logical_or(cond, Constant(np.ones(shape, bool)))
        return [ew.Select()(cond, x, x)]
    return [sh.BroadcastTo((size,) + shape)(x)]


@register(sh.ExpandDims)
def _expand_dims(node, inputs, is_batched):
    return [sh.ExpandDims(_shift(node.op.axes))(inputs[0])]


@register(sh.Squeeze)
def _squeeze(node, inputs, is_batched):
    return [sh.Squeeze(_shift(node.op.axes))(inputs[0])]


@register(sh.Concatenate)
def _concatenate(node, inputs, is_batched):
    return [sh.Concatenate(node.op.axis + 1)(*_batched_all(inputs, is_batched))]


@register(ad.SplitLike)
def _split_like(node, inputs, is_batched):
    if any(is_batched[1:]):
        raise NoBatchingRule("SplitLike with batched pieces")
    return list(ad.SplitLike(node.op.axis + 1).make_node(*inputs).outputs)


@register(cs.Pad)
def _pad(node, inputs, is_batched):
    if is_batched[1]:
        raise NoBatchingRule("Pad with a batched padding value")
    return [cs.Pad(((0, 0),) + node.op.pad_width)(*inputs)]


@register(cs.SpecifyShape)
def _specify_shape(node, inputs, is_batched):
    return [cs.SpecifyShape((None,) + tuple(node.op.shape))(inputs[0])]


@register(cs.Shape)
def _shape(node, inputs, is_batched):
    return [ix.getitem(cs.Shape()(inputs[0]), slice(1, None))]


@register(ix.Subtensor)
def _subtensor(node, inputs, is_batched):
    return [ix.Subtensor((ix._FULL,) + node.op.idx)(inputs[0])]


@register(sh.FullLike)
def _full_like(node, inputs, is_batched):
    like, fill = inputs
    rank = node.outputs[0].ndim
    if is_batched[1]:
        fill = _align(fill, rank)
    like = like if is_batched[0] else materialize(like)
    return [sh.FullLike()(like, fill)]


@register(ad.SumToLike)
def _sum_to_like(node, inputs, is_batched):
    (g0, like0), g = node.inputs, inputs[0]
    if is_batched[1] or not is_batched[0]:
        raise NoBatchingRule("SumToLike of a batched shape")
    out_shape = node.outputs[0].shape
    if None in out_shape or None in g0.shape:
        raise NoBatchingRule("SumToLike with unknown shapes")
    axes = ad.sum_to_axes(g0.shape, like0.shape)
    s = rd.Sum(tuple(a + 1 for a in axes), keepdims=True)(g) if axes else g
    if g.dtype != s.dtype:
        s = ew.astype(s, g.dtype)
    return [_reshape(s, out_shape)]


@register(ix.AdvancedSubtensor)
def _advanced_subtensor(node, inputs, is_batched):
    x, *indices = inputs
    idx = node.op.idx
    if not any(is_batched[1:]):
        new_idx = (ix._FULL,) + idx
        out = ix.AdvancedSubtensor(new_idx)(x, *indices)
        at, _ = ix._advanced_offsets(new_idx)
        if at == 0:  # separated index arrays: their broadcast shape comes first
            n_index = len(ix.broadcast_shapes(*(i.shape for i in node.inputs[1:])))
            out = _moveaxis(out, n_index, 0)
        return [out]
    # batched index arrays: the batch becomes one more index array (an iota), first
    size = _current().size
    if size is None:
        raise NoBatchingRule("batched index arrays need a known batch size")
    x = x if is_batched[0] else materialize(x)
    index_ndim = len(ix.broadcast_shapes(*(i.shape for i in node.inputs[1:])))
    iota = Constant(np.arange(size, dtype=np.int64).reshape((size,) + (1,) * index_ndim))
    arrays = [_align(i, index_ndim) if b else i for i, b in zip(indices, is_batched[1:])]
    new_idx = (ix.ARRAY,) + idx
    out = ix.AdvancedSubtensor(new_idx)(x, iota, *arrays)
    # out: (batch, index dims, the other dims in order); the original puts the index dims at
    at, _ = ix._advanced_offsets(idx)
    if at:
        rest = list(range(1 + index_ndim, out.ndim))
        perm = [0, *rest[:at], *range(1, 1 + index_ndim), *rest[at:]]
        out = sh.Transpose(tuple(perm))(out)
    return [out]


@register(Blockwise)
def _blockwise(node, inputs, is_batched):
    op = node.op
    nb = node.outputs[0].ndim - len(op.out_sigs[0])
    ins = []
    for x, x0, b, sig in zip(inputs, node.inputs, is_batched, op.in_sigs):
        if b:
            k = nb - (x0.ndim - len(sig))
            x = sh.ExpandDims(tuple(range(1, 1 + k)))(x) if k > 0 else x
        ins.append(x)
    return list(op.make_node(*ins).outputs)


@register(Composite)
def _composite(node, inputs, is_batched):
    g = node.op.graph
    replace = {v: x for v, x, b in zip(g.inputs, inputs, is_batched) if b}
    plain = {v: x for v, x, b in zip(g.inputs, inputs, is_batched) if not b}
    outs, flags = _vectorize(list(g.outputs), replace, plain)
    # outputs that read no batched input keep the node's rank (shared)
    return outs


@register(ix.AdvancedIncSubtensor)
def _advanced_inc_subtensor(node, inputs, is_batched):
    if any(is_batched[2:]):
        raise NoBatchingRule("an update at batched index arrays")
    x, v, *indices = inputs
    x0, v0, *indices0 = node.inputs
    idx = node.op.idx
    new_idx = (ix._FULL,) + idx
    index_shape = ix.broadcast_shapes(*(i.shape for i in indices0))
    rank = len(ix.advanced_shapes(idx, x0.shape, index_shape)[0])
    at, _ = ix._advanced_offsets(new_idx)
    batch_at = len(index_shape) if at == 0 else 0  # where x_b[new_idx] has the batch axis
    if is_batched[1]:
        v = _moveaxis(_align(v, rank), 0, batch_at)
    else:
        if v.ndim < rank:
            v = sh.ExpandDims(tuple(range(rank - v.ndim)))(v)
        v = sh.ExpandDims((batch_at,))(v)
    x = x if is_batched[0] else materialize(x)
    return [ix.AdvancedIncSubtensor(new_idx, node.op.mode)(x, v, *indices)]


@register(la.LinalgOp)
def _linalg(node, inputs, is_batched):
    """The leading dims of a decomposition's inputs broadcast: batched inputs get size-1
    dims after the batch axis up to the node's leading rank."""
    op = node.op
    cores = op.core_ndims(node.inputs)
    nb = max(x.ndim - k for x, k in zip(node.inputs, cores))
    ins = []
    for x, x0, b, k in zip(inputs, node.inputs, is_batched, cores):
        pad = nb - (x0.ndim - k)
        ins.append(sh.ExpandDims(tuple(range(1, 1 + pad)))(x) if b and pad > 0 else x)
    return list(op.make_node(*ins).outputs)


@register(ff.FourierTransform)
def _fft(node, inputs, is_batched):
    op = node.op
    return [type(op)(_shift(op.axes), op.lengths, op.norm)(inputs[0])]


def _zero_start(starts: Sequence[Variable]) -> Constant:
    return Constant(np.zeros((), starts[0].dtype if starts else np.int64))


@register(ix.DynamicSlice)
def _dynamic_slice(node, inputs, is_batched):
    x, *starts = inputs
    size = _current().size
    if any(is_batched[1:]) or size is None:
        raise NoBatchingRule("per-example start indices, or an unknown batch size")
    return [ix.DynamicSlice((size,) + tuple(node.op.sizes))(x, _zero_start(starts), *starts)]


@register(ix.DynamicUpdateSlice)
def _dynamic_update_slice(node, inputs, is_batched):
    x, update, *starts = inputs
    if any(is_batched[2:]):
        raise NoBatchingRule("per-example start indices")
    x, update = _batched_all([x, update], is_batched[:2])
    return [ix.DynamicUpdateSlice()(x, update, _zero_start(starts), *starts)]


def _inline(graph: Graph, inputs: Sequence[Variable], is_batched: Sequence[bool]) -> list[Variable]:
    """The outputs of ``graph`` on ``inputs``, vectorized where they read batched ones."""
    replace = {v: x for v, x, b in zip(graph.inputs, inputs, is_batched) if b}
    plain = {v: x for v, x, b in zip(graph.inputs, inputs, is_batched) if not b}
    outs, _ = _vectorize(list(graph.outputs), replace, plain)
    return outs


def _select(cond: Variable, a: Variable, b: Variable, rank: int) -> Variable:
    """``where(cond, a, b)`` for a batched 0-d ``cond`` and values of core rank ``rank``
    (batched or not)."""
    cond = sh.ExpandDims(tuple(range(1, 1 + rank)))(cond) if rank else cond
    a = _align(a, rank) if a.ndim > rank else a
    b = _align(b, rank) if b.ndim > rank else b
    return ew.Select()(cond, a, b)


@register(ct.Conditional)
def _conditional(node, inputs, is_batched):
    """A batched selector runs every branch and selects per element (jax's rule); an
    unbatched one keeps the conditional, its branches vectorized."""
    op = node.op
    selector, *free = inputs
    if is_batched[0]:
        branches = [_inline(g, free, is_batched[1:]) for g in op.branches]
        if isinstance(op, ct.IfElse):
            conds = [selector]
        else:
            n = len(branches)
            index = ew.clip(selector, 0, n - 1)
            conds = [ew.equal(index, k) for k in range(n - 1)]
        outs = []
        for j, o in enumerate(node.outputs):
            result = branches[-1][j]
            for cond, branch in zip(conds[::-1], branches[-2::-1]):
                result = _select(cond, branch[j], result, o.ndim)
            outs.append(result if result.ndim == o.ndim + 1 else materialize(result))
        return outs
    graphs = []
    for g in op.branches:
        ins = [Variable(TensorType(x.dtype, x.shape), name=v.name) for v, x in zip(g.inputs, free)]
        replace = {v: p for v, p, b in zip(g.inputs, ins, is_batched[1:]) if b}
        plain = {v: p for v, p, b in zip(g.inputs, ins, is_batched[1:]) if not b}
        outs, flags = _vectorize(list(g.outputs), replace, plain)
        with _batch(_Batch(_current().size, next(iter(replace.values())))):
            outs = [r if f else materialize(r) for r, f in zip(outs, flags)]
        graphs.append(Graph(ins, outs))
    return list(type(op).from_branches(graphs).make_node(selector, *free).outputs)


def _fold(x: Variable, dim: int) -> Variable:
    """A batched ``x`` with the batch folded into its core axis ``dim`` (batch-major)."""
    size, core = _current().size, x.shape[1:]
    if not size or None in core:
        raise NoBatchingRule("folding the batch needs static sizes")
    y = _moveaxis(x, 0, dim)
    return sh.Reshape(core[:dim] + (size * core[dim],) + core[dim + 1:])(y)


def _unfold(y: Variable, dim: int) -> Variable:
    """The inverse of ``_fold``: axis ``dim`` of ``y`` split into (batch, rest), the batch
    moved to the front."""
    size, shape = _current().size, y.shape
    if None in shape:
        raise NoBatchingRule("unfolding the batch needs static sizes")
    z = sh.Reshape(shape[:dim] + (size, shape[dim] // size) + shape[dim + 1:])(y)
    return _moveaxis(z, dim, 0)


@register(cv.ConvGeneralDilated)
def _conv(node, inputs, is_batched):
    """jax's rule: a batched lhs folds into the conv batch, a batched rhs into its output
    features, both into features with one feature group per batch element."""
    op = node.op
    (ln, lc, *_), (ro, _ri, *_), (on, oc, *_) = op.specs
    lhs, rhs = inputs
    props = op.props_dict()
    if is_batched[0] and is_batched[1]:
        if op.feature_group_count != 1 or op.batch_group_count != 1:
            raise NoBatchingRule("both operands batched in a grouped convolution")
        props["feature_group_count"] = _current().size or 0
        out = cv.ConvGeneralDilated(**props)(_fold(lhs, lc), _fold(rhs, ro))
        return [_unfold(out, oc)]
    if is_batched[0]:
        if op.batch_group_count != 1:
            raise NoBatchingRule("a batched lhs of a batch-grouped convolution")
        return [_unfold(op(_fold(lhs, ln), rhs), on)]
    if op.feature_group_count != 1 or op.batch_group_count != 1:
        raise NoBatchingRule("a batched rhs of a grouped convolution")
    return [_unfold(op(lhs, _fold(rhs, ro)), oc)]

"""``jax_op(f)``: a jax function as an Op inside an hlograph graph.

``hg.jax_op(f)(x, y)`` adds one node that computes ``f`` with jax:

- its types come from ``jax.eval_shape`` on the input types (the arguments are
  pytrees whose leaves are graph values, arrays or scalars; the outputs come
  back in ``f``'s output structure, one Variable per array);
- its ``perform`` (the reference ``hlograph.evaluate`` runs) calls ``jax.jit(f)``
  on the NumPy inputs;
- its lowering rule inlines jax's lowering of ``f`` into the module through
  hlograph's bridge (``lowering/bridge.py``), as the importer's fallback does,
  so the node runs on the device inside the compiled module;
- it is differentiable: the pullback is a ``JaxOp`` of ``jax.vjp`` of ``f`` and
  the pushforward one of ``jax.jvp``, so gradients of any order work.

The node's Op is a ``JaxOp``: a flat function of arrays returning a tuple of
arrays, with the input types and whether 64-bit types are enabled for it (as
``from_jax`` decides: when jax's x64 flag is on or an input is 64-bit).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ...frontend.graph import Apply, Op, Variable
from ...frontend.ops.basic import as_variable
from ...frontend.types import TensorType, is_inexact
from ...lowering.bridge import lower_with_jax
from ...lowering.registry import register as register_lowering
from ...xla.mlir import hlo
from .avals import is_64bit
from .fallback import freeze

__all__ = ["JaxOp", "jax_op", "JaxOpError"]


class JaxOpError(TypeError):
    """jax cannot trace the function of a ``jax_op`` for the given input types; jax's
    error is the ``__cause__``."""


def _name(f: Callable) -> str:
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or type(f).__name__


def _spec(t: TensorType) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(tuple(t.shape), t.dtype)


def _float0_zeros(t: TensorType) -> np.ndarray:
    """The (co)tangent jax expects for an integer or bool value."""
    return np.zeros(t.shape, dtype=jax.dtypes.float0)


class JaxOp(Op):
    """``fn(*arrays) -> tuple of arrays`` computed by jax (see the module docstring).

    ``in_types`` are the TensorTypes it was typed for (re-typed inputs are typed
    again with ``jax.eval_shape``); ``x64`` enables jax's 64-bit types for it."""

    __props__ = ("name", "frozen_fn", "x64")

    def __init__(self, fn: Callable[..., tuple], name: str, x64: bool):
        self.fn = fn
        self.name = name
        self.frozen_fn = freeze(fn)
        self.x64 = bool(x64)
        #: (mask of outputs with a cotangent) -> the JaxOp of the vjp function
        self._vjps: dict[tuple, JaxOp] = {}
        self._jvps: dict[tuple, JaxOp] = {}

    def __str__(self) -> str:
        return f"JaxOp{{{self.name}}}"

    __repr__ = __str__

    @functools.cached_property
    def jitted(self) -> Callable:
        return jax.jit(self.fn)

    def out_types(self, in_types: Sequence[TensorType]) -> list[TensorType]:
        """The output types jax infers for inputs of ``in_types``."""
        with jax.enable_x64(self.x64):
            try:
                outs = jax.eval_shape(self.fn, *(_spec(t) for t in in_types))
            except Exception as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else ""
                raise JaxOpError(
                    f"jax_op({self.name}): jax cannot trace it for inputs "
                    f"{', '.join(map(str, in_types)) or '()'}: {type(e).__name__}: {first}") from e
        return [TensorType(np.dtype(o.dtype), tuple(int(d) for d in o.shape)) for o in outs]

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [as_variable(v) for v in inputs]
        types = [v.type for v in inputs]
        unknown = [str(t) for t in types if None in t.shape]
        if unknown:
            raise TypeError(f"{self}: jax needs static input shapes, got {', '.join(unknown)}")
        return Apply(self, inputs, self.out_types(types))

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        with jax.enable_x64(self.x64):
            outs = self.jitted(*(jnp.asarray(x) for x in inputs))
        return [np.asarray(o).astype(v.dtype, copy=False).reshape(v.type.shape)
                for o, v in zip(outs, node.outputs)]

    # --- derivatives ----------------------------------------------------------------
    def vjp_op(self, in_types: tuple[TensorType, ...], out_types: tuple[TensorType, ...],
               mask: tuple[bool, ...], wrt: tuple[int, ...] | None = None) -> "JaxOp":
        """The JaxOp of ``(*primals, *cotangents of the masked outputs) -> cotangents of
        the inputs ``wrt`` (default: the inexact ones)``, through ``jax.vjp``; the other
        inputs are constants of the differentiated function."""
        wanted = tuple(i for i, t in enumerate(in_types) if is_inexact(t.dtype)) if wrt is None else wrt
        key = (in_types, out_types, mask, wanted)
        found = self._vjps.get(key)
        if found is not None:
            return found
        fn, n = self.fn, len(in_types)

        def vjp_fn(*args):
            primals, given = args[:n], iter(args[n:])

            def part(*diff):
                full = list(primals)
                for i, d in zip(wanted, diff):
                    full[i] = d
                return fn(*full)

            _, pull = jax.vjp(part, *(primals[i] for i in wanted))
            cts = tuple(next(given) if m else
                        (jnp.zeros(t.shape, t.dtype) if is_inexact(t.dtype) else _float0_zeros(t))
                        for m, t in zip(mask, out_types))
            return tuple(pull(cts))

        op = self._vjps[key] = JaxOp(vjp_fn, f"vjp({self.name})", self.x64)
        return op

    def jvp_op(self, in_types: tuple[TensorType, ...], out_types: tuple[TensorType, ...],
                mask: tuple[bool, ...]) -> "JaxOp":
        """The JaxOp of ``(*primals, *tangents of the masked inputs) -> tangents of the
        inexact outputs``, through ``jax.jvp``."""
        key = (in_types, out_types, mask)
        found = self._jvps.get(key)
        if found is not None:
            return found
        fn, n = self.fn, len(in_types)
        wanted = [i for i, t in enumerate(out_types) if is_inexact(t.dtype)]

        def jvp_fn(*args):
            primals, given = args[:n], iter(args[n:])
            tangents = tuple(next(given) if m else
                             (jnp.zeros(t.shape, t.dtype) if is_inexact(t.dtype) else _float0_zeros(t))
                             for m, t in zip(mask, in_types))
            _, out = jax.jvp(fn, tuple(primals), tangents)
            return tuple(out[i] for i in wanted)

        op = self._jvps[key] = JaxOp(jvp_fn, f"jvp({self.name})", self.x64)
        return op

    def pullback(self, node: Apply, cotangents: list[Variable | None]) -> list[Variable | None]:
        in_types = tuple(v.type for v in node.inputs)
        out_types = tuple(v.type for v in node.outputs)
        mask = tuple(c is not None and is_inexact(t.dtype) for c, t in zip(cotangents, out_types))
        wanted = [i for i, t in enumerate(in_types) if is_inexact(t.dtype)]
        if not any(mask) or not wanted:
            return [None] * len(node.inputs)
        op = self.vjp_op(in_types, out_types, mask)
        cts = [c for c, m in zip(cotangents, mask) if m]
        grads = op.make_node(*node.inputs, *cts).outputs
        result: list[Variable | None] = [None] * len(node.inputs)
        for i, g in zip(wanted, grads):
            result[i] = g
        return result

    def pushforward(self, node: Apply, tangents: list[Variable | None]) -> list[Variable | None]:
        in_types = tuple(v.type for v in node.inputs)
        out_types = tuple(v.type for v in node.outputs)
        mask = tuple(t is not None and is_inexact(ty.dtype) for t, ty in zip(tangents, in_types))
        wanted = [i for i, t in enumerate(out_types) if is_inexact(t.dtype)]
        if not any(mask) or not wanted:
            return [None] * len(node.outputs)
        op = self.jvp_op(in_types, out_types, mask)
        ts = [t for t, m in zip(tangents, mask) if m]
        outs = op.make_node(*node.inputs, *ts).outputs
        result: list[Variable | None] = [None] * len(node.outputs)
        for i, t in zip(wanted, outs):
            result[i] = t
        return result


@register_lowering(JaxOp)
def lower_jax_op(ctx, *operands):
    """jax's lowering of the function, called from the module (lowering/bridge.py)."""
    op = ctx.op

    def fn(*arrays):
        # the bridge lowers with 64-bit types on; the op's own setting decides its types
        with jax.enable_x64(op.x64):
            return tuple(op.fn(*arrays))

    results = lower_with_jax(ctx, fn, *operands)
    out = []
    for value, want in zip(results, ctx.ir_out_types()):
        if value.type != want:
            value = hlo.convert(want, value)
        out.append(value)
    return out


lower_jax_op.jax_bridge = True


# --- the user-facing wrapper --------------------------------------------------------------
def _leaf_variable(leaf: Any) -> Variable:
    if isinstance(leaf, Variable):
        return leaf
    if isinstance(leaf, jax.ShapeDtypeStruct):
        raise TypeError("jax_op: arguments are graph values or arrays, not jax.ShapeDtypeStruct")
    return as_variable(leaf)


class jax_op:
    """A jax function usable on hlograph graph values (see the module docstring):

        @hg.jax_op
        def attention(q, k, v):
            return jax.nn.softmax(q @ k.T) @ v

        y = attention(q, k, v)            # a Variable of the type jax infers

    Arguments are pytrees (tuples, lists, dicts) whose leaves are Variables, arrays
    or scalars (these become graph constants); static Python arguments go in with
    ``functools.partial``. The result has ``f``'s output structure with one
    Variable per array. The same ``jax_op`` applied twice to the same values gives
    the same node (one computation after merging).

    Raises (on a call):
        JaxOpError: jax cannot trace ``f`` for the argument types.
        TypeError: an input with an unknown dimension.
    """

    def __init__(self, f: Callable):
        if not callable(f):
            raise TypeError(f"jax_op: expected a function, got {type(f).__name__}")
        self.f = f
        functools.update_wrapper(self, f)
        self._ops: dict[tuple, JaxOp] = {}

    def _op(self, in_tree: Any, types: tuple[TensorType, ...]) -> tuple[JaxOp, Any]:
        x64 = bool(jax.config.jax_enable_x64) or any(is_64bit(t.dtype) for t in types)
        key = (in_tree, x64)
        found = self._ops.get(key)
        if found is None:
            f = self.f
            out_trees: dict[tuple, Any] = {}

            def flat(*leaves):
                args, kwargs = jax.tree_util.tree_unflatten(in_tree, leaves)
                out = f(*args, **kwargs)
                flat_out, tree = jax.tree_util.tree_flatten(out)
                out_trees[tuple((tuple(x.shape), str(x.dtype)) for x in leaves)] = tree
                return tuple(flat_out)

            found = self._ops[key] = (JaxOp(flat, _name(f), x64), out_trees)
        return found

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves, in_tree = jax.tree_util.tree_flatten((args, kwargs))
        inputs = [_leaf_variable(leaf) for leaf in leaves]
        types = tuple(v.type for v in inputs)
        op, out_trees = self._op(in_tree, types)
        node = op.make_node(*inputs)
        tree = out_trees.get(tuple((tuple(t.shape), str(t.dtype)) for t in types))
        if tree is None:  # pragma: no cover - make_node traced it for these types
            raise RuntimeError(f"jax_op({op.name}): the output structure was not recorded")
        return jax.tree_util.tree_unflatten(tree, list(node.outputs))

    def __repr__(self) -> str:
        return f"<jax_op {_name(self.f)}>"

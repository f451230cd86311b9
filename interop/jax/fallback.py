"""The fallback: a jax primitive without a rule, as one opaque hlograph Op.

``JaxPrimitiveOp`` wraps one equation of a jaxpr (its primitive and params) and
is typed by the equation's abstract values. It runs where any Op runs:

- its lowering rule borrows jax's own lowering of the primitive through
  hlograph's bridge (``lowering/bridge.py``): ``jax.jit`` of a function that
  binds the primitive is lowered by jax for the operand types and merged into
  the module being built as a private function, which the node calls;
- its ``perform`` (the reference ``hlograph.evaluate`` runs) binds the
  primitive eagerly with jax on the NumPy inputs.

So importing a function jax can trace never fails for want of a rule; the
import report lists the primitives that went this way. PRNG keys cross the
boundary as key data: the function wraps key-typed operands before binding
and unwraps key-typed results.
"""

from __future__ import annotations

import enum
from typing import Any, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ...frontend.graph import Apply, Op
from ...frontend.ops.basic import as_variable
from ...frontend.types import TensorType
from ...lowering.bridge import lower_with_jax
from ...lowering.registry import register as register_lowering
from .avals import ClosedJaxpr, Jaxpr, key_impl, tensor_type, unwrap_key, wrap_key

__all__ = ["JaxPrimitiveOp", "freeze"]


class _Identity:
    """A param value compared by identity (functions, jaxprs, unhashable objects)."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, _Identity) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

    def __repr__(self) -> str:
        return f"<{type(self.value).__name__} at {id(self.value):#x}>"


def freeze(value: Any) -> Any:
    """A hashable stand-in for a param value: structure and array contents for
    containers and arrays, identity for anything else without a value hash."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.dtype, enum.Enum)):
        return value
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(freeze(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), freeze(v)) for k, v in value.items())))
    if isinstance(value, (np.ndarray, np.generic, jax.Array)):
        arr = np.asarray(value)
        return ("array", arr.dtype.str, arr.shape, arr.tobytes())
    if callable(value) or isinstance(value, (Jaxpr, ClosedJaxpr)):
        return _Identity(value)
    try:
        hash(value)
    except TypeError:
        return _Identity(value)
    return value


class JaxPrimitiveOp(Op):
    """One application of a jax primitive the importer has no rule for, computed
    by jax (see the module docstring). ``params`` are the equation's params;
    ``in_avals`` / ``out_avals`` its operands' and results' abstract values."""

    __props__ = ("primitive", "frozen_params", "in_keys", "out_keys")

    def __init__(self, primitive: Any, params: dict[str, Any], in_avals: Sequence[Any],
                 out_avals: Sequence[Any]):
        self.primitive = primitive
        self.params = dict(params)
        self.frozen_params = freeze(self.params)
        self.in_keys = tuple(key_impl(a) for a in in_avals)
        self.out_keys = tuple(key_impl(a) for a in out_avals)
        self.in_types = tuple(tensor_type(a) for a in in_avals)
        self.out_types = tuple(tensor_type(a) for a in out_avals)

    @property
    def name(self) -> str:
        return self.primitive.name

    def __str__(self) -> str:
        return f"JaxPrimitive{{{self.name}}}"

    __repr__ = __str__

    def jax_function(self, *arrays: Any) -> tuple[Any, ...]:
        """The primitive as a function of raw arrays (key data for keys) for jax."""
        args = [wrap_key(a, impl) for a, impl in zip(arrays, self.in_keys)]
        out = self.primitive.bind(*args, **self.params)
        outs = out if self.primitive.multiple_results else [out]
        return tuple(unwrap_key(o, impl) for o, impl in zip(outs, self.out_keys))

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [as_variable(v) for v in inputs]
        if len(inputs) != len(self.in_types):
            raise TypeError(f"{self}: expected {len(self.in_types)} inputs, got {len(inputs)}")
        types = tuple(v.type for v in inputs)
        if types == self.in_types:
            return Apply(self, inputs, list(self.out_types))
        if any(None in t.shape for t in types):
            raise TypeError(f"{self}: needs static input shapes, got {', '.join(map(str, types))}")
        # re-typed inputs (a specialized clone): jax infers the result types again
        specs = [jax.ShapeDtypeStruct(t.shape, t.dtype) for t in types]
        with jax.enable_x64(True):
            outs = jax.eval_shape(self.jax_function, *specs)
        return Apply(self, inputs, [TensorType(o.dtype, o.shape) for o in outs])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        with jax.enable_x64(True):
            outs = self.jax_function(*(jnp.asarray(x) for x in inputs))
            return [np.asarray(o).astype(v.dtype, copy=False).reshape(v.type.shape)
                    for o, v in zip(outs, node.outputs)]


@register_lowering(JaxPrimitiveOp)
def lower_jax_primitive(ctx, *operands):
    """jax's lowering of the primitive, called from the module (lowering/bridge.py)."""
    return lower_with_jax(ctx, ctx.op.jax_function, *operands)


lower_jax_primitive.jax_bridge = True

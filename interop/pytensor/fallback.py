"""The per-node fallback: a PyTensor node with no converter becomes a
``PyTensorPerform`` Op, whose ``perform`` runs the PyTensor Op's own Python
implementation on the host, inside the same compiled function (hlograph's
partitioner gives it a host segment; values after it specialize to the shapes
it returns)."""

from __future__ import annotations

import threading
import warnings
from typing import Any

import numpy as np
from pytensor.graph.basic import Apply as PtApply

from ...frontend.graph import Apply, Constant, Op, Variable
from ...runtime.host import segment as _segment
from .convert import (Context, _is_tensorish, _static_python, destroyed_positions, hlograph_type,
                      run_pytensor_node)
from .sparse_values import is_sparse_node

__all__ = ["PyTensorPerform", "FallbackWarning", "fallback", "op_name"]


class FallbackWarning(UserWarning):
    """A PyTensor Op runs its PyTensor ``perform`` on the host (no converter, or one
    that needs a value known only at run time); once per Op class."""


_warned: set[str] = set()
_warn_lock = threading.Lock()


def op_name(op) -> str:
    """The class name of a PyTensor Op (with the scalar Op of an Elemwise)."""
    scalar = getattr(op, "scalar_op", None)
    name = type(op).__name__
    return f"{name}({type(scalar).__name__})" if scalar is not None else name


def _warn(name: str, reason: str) -> None:
    with _warn_lock:
        if name in _warned:
            return
        _warned.add(name)
    warnings.warn(
        f"PyTensor Op {name} is not converted to hlograph Ops ({reason}); it runs its PyTensor "
        f"perform on the host, inside the compiled function. A converter is registered with "
        f"@hlograph.interop.pytensor.hlograph_convert.register(<Op class>)",
        FallbackWarning, stacklevel=2,
    )


class PyTensorPerform(Op):
    """A PyTensor node run by its Op's ``perform``: inputs are the node's tensor and
    scalar inputs (its other inputs, e.g. ``None`` or slices, are fixed), outputs have
    PyTensor's types (dims PyTensor does not know are known when it has run)."""

    def __init__(self, pt_node: PtApply, fixed: dict[int, Any], with_destroyed: bool = False):
        self.pt_node = pt_node
        self.fixed = dict(fixed)
        self.name = op_name(pt_node.op)
        self.host_reason = f"runs PyTensor's {self.name}.perform"
        self.out_types = [hlograph_type(o.type) for o in pt_node.outputs]
        #: also output what perform leaves in the inputs it overwrites (destroyed_positions)
        self.with_destroyed = with_destroyed
        if with_destroyed:
            self.out_types += [hlograph_type(pt_node.inputs[i].type) for i in destroyed_positions(pt_node)]
        self.in_types = [hlograph_type(v.type) for i, v in enumerate(pt_node.inputs) if i not in self.fixed]

    # each wraps one PyTensor node
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __str__(self) -> str:
        return f"PyTensorPerform{{{self.pt_node.op}}}"

    __repr__ = __str__

    def make_node(self, *inputs: Variable) -> Apply:
        if len(inputs) != len(self.in_types):
            raise TypeError(f"{self}: expected {len(self.in_types)} inputs, got {len(inputs)}")
        for i, (v, t) in enumerate(zip(inputs, self.in_types)):
            if not isinstance(v, Variable) or v.dtype != t.dtype or v.ndim != t.ndim:
                raise TypeError(f"{self}: input {i} must be {t}, got {getattr(v, 'type', v)!r}")
        return Apply(self, list(inputs), self.out_types)

    def perform(self, node, inputs):
        it = iter(inputs)
        values = [self.fixed[i] if i in self.fixed else next(it) for i in range(len(self.pt_node.inputs))]
        return run_pytensor_node(self.pt_node, values, self.with_destroyed)


# hlograph warns once about an Op that runs its Python perform, naming its class:
# for this wrapper FallbackWarning (at conversion) names the PyTensor Op instead
_segment.quiet_python_fallback(PyTensorPerform)


#: PyTensor Ops no device library computes, which run their perform on the host by
#: design (no FallbackWarning): QZ (LAPACK's gges) and the tridiagonal LU factors in
#: LAPACK's gttrf layout with their solve (gttrs), which neither XLA nor jax offers
HOST_OPS = frozenset({"QZ", "LUFactorTridiagonal", "SolveLUFactorTridiagonal"})


def _host_by_design(node: PtApply) -> bool:
    """Sparse Ops and ``HOST_OPS`` (also as a Blockwise's core Op) run on the host by design."""
    op = getattr(node.op, "core_op", node.op)
    return is_sparse_node(node) or type(op).__name__ in HOST_OPS


def fallback(ctx: Context, node: PtApply, ins: list[Any], reason: str) -> list[Variable]:
    """The outputs of ``node`` computed by a ``PyTensorPerform`` node (and the warning)."""
    name = op_name(node.op)
    for o in node.outputs:
        if not _is_tensorish(o):
            raise NotImplementedError(
                f"PyTensor Op {name} cannot run in hlograph ({reason}), and its output {o} of "
                f"type {o.type} is not a tensor, so it cannot run its PyTensor perform either"
            )
    fixed: dict[int, Any] = {}
    tensors: list[Variable] = []
    for i, (v, x) in enumerate(zip(node.inputs, ins)):
        if _is_tensorish(v):
            t = hlograph_type(v.type)
            if not isinstance(x, Variable):
                x = Constant(np.asarray(x, dtype=t.dtype))
            tensors.append(x)
        elif _static_python(x):
            fixed[i] = x
        else:
            raise NotImplementedError(
                f"PyTensor Op {name} cannot run in hlograph ({reason}), and its input {v} of type "
                f"{v.type} is not known before run time"
            )
    ctx.fallbacks.append((name, reason))
    if not _host_by_design(node):
        _warn(name, reason)
    # an Op overwriting its inputs: what it leaves there may be written into an argument
    # (inplace.py), so the host op outputs it too
    destroyed = destroyed_positions(node)
    with_destroyed = bool(destroyed) and all(_is_tensorish(node.inputs[i]) for i in destroyed)
    op = PyTensorPerform(node, fixed, with_destroyed=with_destroyed)
    outs = list(op.make_node(*tensors).outputs)
    if with_destroyed:
        n = len(node.outputs)
        for k, i in enumerate(destroyed):
            ctx.destroyed_values[(node, i)] = outs[n + k]
        outs = outs[:n]
    return outs


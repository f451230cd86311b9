"""In-place Ops on graph inputs: what PyTensor's ``destroy_map`` lets an Op overwrite.

hlograph Ops are functional, so a PyTensor Op that destroys an input buffer (an
``inplace`` rewrite on an input marked ``In(x, mutable=True)``, or an explicitly
in-place Op compiled with ``accept_inplace=True``) becomes an extra output of the
hlograph function, written into the argument's array after the call, as PyTensor's
NUMBA and C linkers leave it:

- what the input holds afterwards is the Op's to say (``overwritten``): by default the
  result the ``destroy_map`` names (an in-place ``Elemwise``, ``IncSubtensor``, ...);
  the linear algebra Ops give what LAPACK leaves there (``Cholesky``: the factor,
  ``Solve``'s ``a``: its LU factors, ``Solve``'s ``b``: the solution, ...);
- and which arrays are overwritten (``Layout``): any writeable array of the right
  shape for element-wise Ops; Fortran-contiguous ones only for LAPACK's Ops (which
  copy the others), or C-contiguous ones too where LAPACK works on the transpose
  (a symmetric or triangular matrix read the other way round).

An argument that cannot be overwritten (a Python number, a read-only, differently
shaped or strided array) is left as it was: ``destroy_map`` permits overwriting, it
never promises it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from pytensor.graph.basic import Apply as PtApply
from pytensor.graph.fg import FunctionGraph
from pytensor.tensor.type import TensorType as PtTensorType

__all__ = ["Overwrite", "Writeback", "Layout", "destroyed_inputs", "overwritten", "layout_allows"]

#: which arrays an in-place Op writes into: ``"any"`` (every writeable one), ``"F"``
#: (Fortran-contiguous), ``"FC"`` (Fortran- or C-contiguous)
Layout = Literal["any", "F", "FC"]


@dataclass(frozen=True)
class Overwrite:
    """A node output that PyTensor's ``destroy_map`` writes into a graph input's buffer."""

    node: PtApply
    output: int  #: the node output the destroy_map names
    position: int  #: the node input it overwrites
    input_index: int  #: that input's index among the graph's inputs


@dataclass(frozen=True)
class Writeback:
    """An extra output of a converted graph to copy into an argument after the call."""

    output: int  #: its index among the hlograph function's outputs
    input_index: int  #: the argument it is written into
    layout: Layout
    #: the graph outputs that are this very value (returned as the argument array itself
    #: once written, as PyTensor's other linkers return the buffer they wrote)
    results: tuple[int, ...] = ()


def destroyed_inputs(fgraph: FunctionGraph) -> list[Overwrite]:
    """The in-place results on the tensor inputs of ``fgraph``, in topological order.
    A result an Op leaves in its input's buffer (the default rule) that a later Op
    overwrites in turn: that overwrite is one on the same graph input too (the last
    one written wins)."""
    buffer_of = {v: i for i, v in enumerate(fgraph.inputs) if isinstance(v.type, PtTensorType)}
    found = []
    for node in fgraph.toposort():
        for k, js in getattr(node.op, "destroy_map", {}).items():
            for j in js:
                i = buffer_of.get(node.inputs[j])
                if i is not None and isinstance(node.outputs[k].type, PtTensorType):
                    found.append(Overwrite(node, k, j, i))
                    if _rule(node.op) is _DEFAULT:
                        buffer_of[node.outputs[k]] = i
    return found


@functools.singledispatch
def overwritten(op, node: PtApply, position: int, output: int, inputs: list[Any],
                outputs: list[Any]) -> tuple[Any, Layout]:
    """What input ``position`` of ``node`` holds after ``op`` overwrote it, as an hlograph
    value (None: left as it was), and which arrays the Op overwrites.

    ``inputs``/``outputs``: the node's converted hlograph values; ``output``: the
    output the ``destroy_map`` names. Register a rule for an Op class with
    ``@overwritten.register(OpClass)``; the default is that output, in any layout.
    """
    return outputs[output], "any"


_DEFAULT = overwritten.dispatch(object)


def _rule(op):
    core = getattr(op, "core_op", None)  # Blockwise
    return overwritten.dispatch(type(op if core is None else core))


def layout_allows(arg: Any, value_shape: tuple[int, ...], layout: Layout) -> bool:
    """Whether argument ``arg`` is overwritten: a writeable NumPy array of the value's
    shape, in a layout the Op writes into."""
    if not isinstance(arg, np.ndarray) or not arg.flags.writeable or arg.shape != value_shape:
        return False
    if layout == "any":
        return True
    return bool(arg.flags.f_contiguous or (layout == "FC" and arg.flags.c_contiguous))


def _register_blockwise() -> None:
    """A Blockwise Op overwrites as its core Op does, batch member by batch member."""
    from pytensor.tensor.blockwise import Blockwise

    @overwritten.register(Blockwise)
    def _blockwise(op, node, position, output, inputs, outputs):
        return overwritten(op.core_op, node, position, output, inputs, outputs)


_register_blockwise()

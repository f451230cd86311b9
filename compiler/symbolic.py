"""Shape-polymorphic lowering: a graph whose inputs have unknown dims lowers once.

The graph is specialized to symbolic dims (``frontend.symbolic.SymDim``: a named
input dim, ``hg.tensor("x", ("b", 4))``, is one variable shared by every input
naming it; each other unknown dim gets its own) and lowered to a module with
``?`` dims (``get_dimension_size``, ``dynamic_broadcast_in_dim``,
``dynamic_reshape``, ``dynamic_iota``, ``real_dynamic_slice``, ...). A call's
shapes refine that module (``stablehlo-refine-arguments``, shape refinement,
canonicalize-dynamism), then the pass pipeline runs and XLA compiles it.

Not every graph can: an op whose result depends on a dim's value (``arange(n)``
of a size, a slice whose bounds are ambiguous, host ops) needs static shapes, and
a call with a size-0 dim (symbolic dims stand for sizes >= 1). Those calls lower
again for their concrete shapes, as before; ``Function.lower(symbolic=True)``
says which op needs static shapes.
"""

from __future__ import annotations

import copy
import logging
from typing import Sequence

from ..frontend.graph import Graph, Variable
from ..frontend.symbolic import SymbolicDimError, dim_bounds, dim_var
from ..frontend.types import TensorType
from ..lowering.lower import lower_graph
from ..xla import export as xla_export
from ..xla import log
from ..xla.mlir import element_dtype, element_type, ir

__all__ = ["SymbolicShapeError", "symbolic_input_types", "PolymorphicModule", "check_named_sizes"]


class SymbolicShapeError(ValueError):
    """A graph cannot be lowered with symbolic dims (an op needs static shapes)."""


def _identifier(text: str) -> str:
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in text)
    return out if out and not out[0].isdigit() else "_" + out


def symbolic_input_types(inputs: Sequence[Variable]) -> list[TensorType]:
    """The inputs' types with every unknown dim symbolic: a named dim (``dim_names``)
    is the variable of that name, each other one a fresh variable named after the
    input and axis (``x_d0``)."""
    named = {n for v in inputs for n in (getattr(v, "dim_names", None) or ()) if n}
    types = []
    for i, v in enumerate(inputs):
        names = getattr(v, "dim_names", None) or (None,) * v.ndim
        shape = []
        for axis, (d, n) in enumerate(zip(v.type.shape, names)):
            if d is not None:
                shape.append(d)
                continue
            if n is None:
                n = _identifier(f"{v.name or f'arg{i}'}_d{axis}")
                while n in named:
                    n += "_"
                named.add(n)
            shape.append(dim_var(n))
        types.append(TensorType(v.dtype, shape))
    return types


def _type_text(dtype, shape, context: ir.Context) -> str:
    with context, ir.Location.unknown():
        return str(ir.RankedTensorType.get(list(shape), element_type(dtype)))


def signature_graph(graph: Graph, in_types: Sequence[TensorType], out_types: Sequence[TensorType]) -> Graph:
    """The types of ``graph`` for one call: a node-less copy whose inputs and outputs
    are fresh Variables of ``in_types`` and ``out_types`` (names and structure kept).
    What a compiled executable's argument checks and results need, without
    re-running shape inference over the graph."""
    sig = copy.copy(graph)
    sig.inputs = [Variable(t, name=v.name) for v, t in zip(graph.inputs, in_types)]
    sig.outputs = [Variable(t, name=v.name) for v, t in zip(graph.outputs, out_types)]
    sig.nodes = []
    return sig


class PolymorphicModule:
    """``graph`` lowered once with symbolic dims; ``refine(types)`` gives the module for
    one call's concrete input types.

    Raises (constructor):
        SymbolicShapeError: an op needs static shapes (the message names it).
    """

    def __init__(self, graph: Graph, platform: str | None, constraints: dict | None = None):
        self.graph = graph
        #: name -> (least, greatest or None): bounds the lowering may rely on
        self.constraints = dict(constraints or {})
        types = symbolic_input_types(graph.inputs)
        try:
            with dim_bounds(self.constraints):
                #: the graph specialized to symbolic dims
                self.symbolic_graph = graph.clone(types)
                self.module = lower_graph(self.symbolic_graph, platform=platform)
        except (SymbolicDimError, ValueError, TypeError, NotImplementedError, RuntimeError) as e:
            raise SymbolicShapeError(
                f"{graph!r} cannot be lowered with symbolic dims: {e}") from None
        #: per input, per axis: the dimension variable's name (None for a static dim)
        self.variables = [[next(iter(d.variables)) if not isinstance(d, int) else None for d in t.shape]
                          for t in types]

    def check_sizes(self, shapes: Sequence[tuple[int, ...]]) -> str | None:
        """None when the module serves a call of ``shapes``; else why the call needs its
        own lowering (a size 0: symbolic dims stand for sizes >= 1)."""
        for i, (names, shape) in enumerate(zip(self.variables, shapes)):
            for axis, (n, d) in enumerate(zip(names, shape)):
                if n is not None and d < 1:
                    return f"input {i} has size {d} in its symbolic dim {axis}"
        return None

    def refine(self, in_types: Sequence[TensorType]) -> tuple[ir.Module, list[TensorType]]:
        """The module for static ``in_types`` and its result types.

        Raises:
            ValueError: the shapes do not fit the module (e.g. a size that must
                broadcast against a static one).
        """
        texts = [_type_text(t.dtype, t.shape, self.module.context) for t in in_types]
        refined = xla_export.refine_to_static(self.module, texts)
        with refined.context:
            main = ir.SymbolTable(refined.operation)["main"]
            results = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value).results
            out_types = []
            for r in results:
                rt = ir.RankedTensorType(r)
                if not rt.has_static_shape:
                    raise ValueError(f"a result keeps the dynamic type {rt} after refinement")
                out_types.append(TensorType(element_dtype(rt.element_type), list(rt.shape)))
        if log.LOWER.isEnabledFor(logging.INFO):
            log.LOWER.info("refined the shape-polymorphic module of %r to %s", self.graph,
                           ", ".join(str(t) for t in in_types))
        return refined, out_types


def check_named_sizes(graph: Graph, constraints: dict, shapes: Sequence[tuple[int, ...]]) -> None:
    """A call's sizes against the inputs' named dims: one size per name, within its
    constraints (``compile(dim_constraints=...)``).

    Raises:
        ValueError: naming the argument, the dim and what it breaks.
    """
    seen: dict[str, tuple[int, int]] = {}
    for i, (v, shape) in enumerate(zip(graph.inputs, shapes)):
        for axis, (n, d) in enumerate(zip(getattr(v, "dim_names", None) or (), shape)):
            if n is None:
                continue
            if n in seen and seen[n][0] != d:
                j = seen[n][1]
                raise ValueError(f"{_describe(graph, i)}: dim {axis} is '{n}', which is {seen[n][0]} "
                                 f"in {_describe(graph, j)}, got {d}")
            seen.setdefault(n, (d, i))
            low, high = constraints.get(n, (0, None))
            if d < low or high is not None and d > high:
                bound = f">= {low}" if d < low else f"<= {high}"
                raise ValueError(f"{_describe(graph, i)}: dim {axis} is '{n}' = {d}, "
                                 f"against the constraint {n} {bound}")


def _describe(graph: Graph, i: int) -> str:
    name = graph.inputs[i].name
    return f"argument {i}" + (f" ('{name}')" if name else "")

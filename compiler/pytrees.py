"""Calls of graphs built with pytree inputs or outputs (see ``frontend/pytree.py``).

A graph whose inputs are a dict or nested containers of Variables, or whose
outputs are, is compiled like any other (its inputs and outputs flattened in
pytree order); its ``Function``, ``Compiled`` and ``CompiledProgram`` take the
call's pytrees (positionally or by name), flatten them, run the flat code and
give the results back in the outputs' structure. Graphs of flat inputs and
outputs keep the per-call fast path: only these graphs get the Python layer.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["with_pytrees", "PytreeCalls", "name_leaf"]

_ARGUMENT = re.compile(r"^argument (\d+)(?: \('[^']*'\))?")


class PytreeCalls:
    """Mixin, first in the MRO of the class of a structured graph's callable."""

    __slots__ = ()

    def __call__(self, *args: Any, output: str = "numpy", **kwargs: Any) -> Any:
        graph = self.graph
        leaves = graph.bind(args, kwargs)
        try:
            out = super().__call__(*leaves, output=output)
        except (TypeError, ValueError) as e:
            raise name_leaf(e, graph) from None
        return graph.unflatten(out)

    def _call_with_keywords(self, args: tuple, kwargs: dict) -> Any:
        return self(*args, **kwargs)

    def lower(self, *arg_specs: Any, symbolic: bool = False, **kwarg_specs: Any) -> Any:
        """Lowers for argument specs given in the graph's input structure."""
        if symbolic:
            return super().lower(symbolic=True)
        return super().lower(*self.graph.bind(arg_specs, kwarg_specs))

    def _flat_lower(self, *specs: Any) -> Any:
        return super()._flat_lower(*specs)


def name_leaf(e: Exception, graph: Any) -> Exception:
    """``e`` with "argument 3" replaced by the leaf's path in the call's structure."""
    msg = str(e)
    m = _ARGUMENT.match(msg)
    if m is None:
        return e
    labels = graph.parameters.leaf_labels()
    i = int(m.group(1))
    if i >= len(labels):
        return e
    return type(e)(labels[i] + msg[m.end():])


_CLASSES: dict[type, type] = {}


def with_pytrees(obj: Any) -> Any:
    """``obj`` (a compiled callable with a ``graph``), taking and returning the
    graph's pytrees when the graph has any structure; unchanged otherwise."""
    if obj.graph.is_flat or isinstance(obj, PytreeCalls):
        return obj
    cls = type(obj)
    sub = _CLASSES.get(cls)
    if sub is None:
        sub = _CLASSES[cls] = type(cls.__name__, (PytreeCalls, cls),
                                   {"__module__": cls.__module__, "__qualname__": cls.__qualname__,
                                    "__doc__": cls.__doc__})
    obj.__class__ = sub
    return obj

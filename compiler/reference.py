"""``hlograph.evaluate``: the NumPy reference every compiled result is tested against."""

from __future__ import annotations

from typing import Any

from ..frontend.evaluate import perform_graph
from ..frontend.graph import Graph
from ..runtime.args import check_arguments
from .pytrees import name_leaf

__all__ = ["evaluate"]


def evaluate(graph: Graph, *args: Any, **kwargs: Any):
    """Runs ``graph`` op by op in NumPy (each Op's ``perform``); the reference for
    every compiled result. Arguments are checked and converted as a compiled
    function's are (NumPy arrays, Python scalars, jax arrays, DLPack producers),
    given by position or by input name, in the graph's input structure.

    Returns one array for a graph built with a single output Variable, the graph's
    output structure for a graph built with one, else a tuple.
    """
    if kwargs or graph.input_tree is not None:
        args = graph.bind(args, kwargs)
    try:
        values = check_arguments(graph.inputs, args)
    except (TypeError, ValueError) as e:
        if graph.input_tree is None:
            raise
        raise name_leaf(e, graph) from None
    return graph.unflatten(perform_graph(graph, values))

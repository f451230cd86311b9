"""``hlograph.evaluate``: the NumPy reference every compiled result is tested against."""

from __future__ import annotations

from typing import Any

from ..frontend.evaluate import perform_graph
from ..frontend.graph import Graph
from ..runtime.args import check_arguments

__all__ = ["evaluate"]


def evaluate(graph: Graph, *args: Any):
    """Runs ``graph`` op by op in NumPy (each Op's ``perform``); the reference for
    every compiled result. Arguments are checked and converted as a compiled
    function's are (NumPy arrays, Python scalars, jax arrays, DLPack producers).

    Returns one array for a graph built with a single output Variable, else a tuple.
    """
    return perform_graph(graph, check_arguments(graph.inputs, args))

"""Reference execution: every node through its Op's ``perform`` (NumPy)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .graph import Constant, Graph

__all__ = ["perform_graph"]


def perform_graph(graph: Graph, values: Sequence[Any]):
    """Runs ``graph`` op by op in NumPy on ``values`` (one array per input, of the
    input's type: callers check them; ``hlograph.evaluate`` does). Returns one array
    for a graph built with a single output Variable, else a tuple."""
    if len(values) != len(graph.inputs):
        raise TypeError(f"the graph takes {len(graph.inputs)} inputs, got {len(values)}")
    env: dict[int, np.ndarray] = {id(v): np.asarray(a) for v, a in zip(graph.inputs, values)}

    def get(v):
        if isinstance(v, Constant):
            return v.data
        return env[id(v)]

    for node in graph.nodes:
        outs = node.op.perform(node, [get(v) for v in node.inputs])
        if len(outs) != len(node.outputs):
            raise RuntimeError(f"{node.op}.perform returned {len(outs)} values for {len(node.outputs)} outputs")
        for var, val in zip(node.outputs, outs):
            val = np.asarray(val)
            if not var.type.accepts(val.dtype, val.shape):
                raise RuntimeError(
                    f"{node.op}.perform returned {val.dtype}{list(val.shape)} for an output of type {var.type}"
                )
            env[id(var)] = val
    outs = tuple(get(v) for v in graph.outputs)
    return outs[0] if graph.single_output else outs

"""Helpers for backend developers' tests and benchmarks: printing IR for
lit/FileCheck, and a standard model graph."""

from __future__ import annotations

from ..frontend.graph import Graph
from ..frontend.ops import basic, elemwise, linalg, reduction, shape
from ..compiler.api import compile as _compile

__all__ = ["print_ir", "mlp_step_graph"]


def print_ir(case: str, graph: Graph, *specs, pipeline: str = "O0") -> None:
    """Prints ``TEST: <case> <first input type>`` and the lowered module (raw by
    default), for ``# CHECK-LABEL: TEST: <case> ...`` in filecheck/ops tests."""
    header = str(graph.inputs[0].type) if graph.inputs else ""
    print(f"TEST: {case} {header}".rstrip())
    print(_compile(graph, pipeline=pipeline).lower(*specs).as_text())


def mlp_step_graph(batch: int, n_in: int, n_hidden: int, n_out: int, lr: float = 0.1) -> Graph:
    """One SGD step of a 2-layer tanh MLP on a mean squared error, gradients by hand:
    inputs x, y, w1, b1, w2, b2 (float32); outputs the loss and the updated weights."""
    x = basic.tensor("x", (batch, n_in), "float32")
    y = basic.tensor("y", (batch, n_out), "float32")
    w1 = basic.tensor("w1", (n_in, n_hidden), "float32")
    b1 = basic.tensor("b1", (n_hidden,), "float32")
    w2 = basic.tensor("w2", (n_hidden, n_out), "float32")
    b2 = basic.tensor("b2", (n_out,), "float32")
    h = elemwise.tanh(linalg.matmul(x, w1) + b1)
    err = linalg.matmul(h, w2) + b2 - y
    loss = reduction.mean(err * err)
    d_out = err * (2.0 / (batch * n_out))
    g_w2 = linalg.matmul(shape.transpose(h), d_out)
    g_b2 = reduction.sum(d_out, axis=0)
    d_h = linalg.matmul(d_out, shape.transpose(w2)) * (1 - h * h)
    g_w1 = linalg.matmul(shape.transpose(x), d_h)
    g_b1 = reduction.sum(d_h, axis=0)
    outs = [loss, w1 - lr * g_w1, b1 - lr * g_b1, w2 - lr * g_w2, b2 - lr * g_b2]
    return Graph([x, y, w1, b1, w2, b2], outs)

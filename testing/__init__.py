"""Helpers for backend developers' tests and benchmarks: printing IR for
lit/FileCheck, a standard model graph, and the StableHLO text of a product chain."""

from __future__ import annotations

from ..frontend.graph import Graph
from ..frontend.ops import basic, elemwise, linalg, reduction, shape
from ..compiler.api import compile as _compile

__all__ = ["print_ir", "mlp_step_graph", "product_chain_text"]


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


def product_chain_text(m: int, layers: int, *, element: str = "f32", batch: int | None = None,
                       shared_weight: bool = False) -> str:
    """A StableHLO ``@main`` of ``layers`` layers ``h = tanh(h @ w_i)`` on ``m x m``
    matrices of ``element`` (``f32``, ``f64``), stacked ``batch`` deep (batched
    products) if given; ``shared_weight``: one weight ``%w`` for every layer instead
    of ``%w0``, ``%w1``, ...."""
    t = f"tensor<{batch}x{m}x{m}x{element}>" if batch else f"tensor<{m}x{m}x{element}>"
    dims = ("batching_dims = [0] x [0], contracting_dims = [2] x [1]" if batch
            else "contracting_dims = [1] x [0]")
    weights = ["%w"] * layers if shared_weight else [f"%w{i}" for i in range(layers)]
    params = ", ".join(f"{w}: {t}" for w in dict.fromkeys(weights))
    lines = [f"func.func public @main(%x: {t}, {params}) -> {t} {{"]
    v = "%x"
    for i, w in enumerate(weights):
        lines.append(f"  %d{i} = stablehlo.dot_general {v}, {w}, {dims} : ({t}, {t}) -> {t}")
        lines.append(f"  %t{i} = stablehlo.tanh %d{i} : {t}")
        v = f"%t{i}"
    lines += [f"  return {v} : {t}", "}"]
    return "\n".join(lines)

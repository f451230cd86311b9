"""Sharding constraints: ``with_sharding(x, spec)``.

``with_sharding(x, spec)`` is ``x`` unchanged; in a graph compiled for a device
mesh (``hg.compile(graph, mesh=...)``) it asks XLA's SPMD partitioner to lay the
value out as ``spec`` says (``P("x", None)``: rows split over the mesh axis
``"x"``), which guides how the computations around it are partitioned.
Compiled for a single device, it lowers to nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import Apply, Op, Variable
from ..specs import Spec, format_spec, normalize_spec
from ..types import is_inexact
from .basic import as_variable

__all__ = ["with_sharding"]


class ShardingConstraint(Op):
    """``x`` unchanged, laid out over the mesh as ``spec`` says (per dimension, the
    tuple of mesh axis names it is split over)."""

    __props__ = ("spec",)

    def __init__(self, spec: Spec):
        self.spec = normalize_spec(spec, None, "ShardingConstraint")

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        if x.ndim != len(self.spec):
            raise ValueError(
                f"{self}: the partition spec {format_spec(self.spec)} has {len(self.spec)} "
                f"entries for input 'x' of rank {x.ndim} ({x.type})"
            )
        return Apply(self, [x], [x.type])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return [np.array(inputs[0], copy=True)]

    # derivatives: the identity; the cotangent (tangent) is laid out as the value
    def pullback(self, node, cotangents):
        ct = cotangents[0]
        return [None if ct is None or not is_inexact(node.inputs[0].dtype) else self(ct)]

    def pushforward(self, node, tangents):
        t = tangents[0]
        return [None if t is None or not is_inexact(t.dtype) else self(t)]


def with_sharding(x: Any, spec: Any) -> Variable:
    """``x`` unchanged, constrained to the layout ``spec`` on the mesh the graph is
    compiled for (no effect without a mesh).

    Args:
        x: a tensor.
        spec: a partition spec: ``hg.P(...)``, a tuple of entries (``None``, an axis
            name or a tuple of axis names; fewer entries than ``x``'s rank leave the
            last dimensions unsplit), a jax ``PartitionSpec`` or ``NamedSharding``.

    Raises:
        ValueError: more spec entries than ``x`` has dimensions.
        TypeError: a malformed spec.
    """
    x = as_variable(x)
    return ShardingConstraint(normalize_spec(spec, x.ndim, "with_sharding"))(x)

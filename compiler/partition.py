"""Splitting a graph into device segments (ops with a lowering rule, one
StableHLO module each) and host segments (ops that only run on the host).

Each node gets the earliest segment its inputs allow: device segments have
even indices, host segments odd ones, so a node joins the segment of a
same-kind producer and starts a later one after an other-kind producer.
Segments are maximal under that rule and run in index order.

Where each node runs is the placement policy's answer (placement.py): on the
CPU, a host op whose output types are static (``mask_assign``, ``isin``, ...)
runs inside the device module as an XLA FFI custom call to its Numba
implementation, so it splits nothing; a control-flow node whose body needs the
host runs in a host segment whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..frontend.graph import Apply, Constant, Graph, Variable
from .placement import DEVICE, HOST, HOST_CALL, placement

__all__ = ["Segment", "partition", "DEVICE", "HOST"]


@dataclass
class Segment:
    kind: str  # "device" or "host"
    nodes: list[Apply] = field(default_factory=list)
    #: values read from graph inputs or earlier segments (Constants excluded)
    inputs: list[Variable] = field(default_factory=list)
    #: values later segments or the graph outputs need
    outputs: list[Variable] = field(default_factory=list)
    #: nodes of a device segment that run host code in the module (XLA FFI custom calls)
    host_calls: list[Apply] = field(default_factory=list)


def partition(graph: Graph, platform: str | None = None) -> list[Segment]:
    """The segments of ``graph`` on ``platform`` ("cpu", "gpu", ...; None: jax's default),
    in the order they run."""
    node_kinds = []
    host_calls: set[int] = set()
    for node in graph.nodes:
        where = placement(node, platform).where  # raises for an op that cannot run anywhere
        if where == HOST_CALL:
            host_calls.add(id(node))
            where = DEVICE
        node_kinds.append(where)
    if HOST not in node_kinds:  # the common case: one device segment
        if not graph.nodes:
            return []
        produced = {id(o) for n in graph.nodes for o in n.outputs}
        return [Segment(DEVICE, list(graph.nodes),
                        [v for v in graph.inputs],
                        _unique(v for v in graph.outputs if id(v) in produced),
                        [n for n in graph.nodes if id(n) in host_calls])]
    seg_of: dict[int, int] = {}  # id(Variable) -> segment index
    by_index: dict[int, Segment] = {}
    for node, kind in zip(graph.nodes, node_kinds):
        parity = 0 if kind == DEVICE else 1
        need = 0
        for v in node.inputs:
            p = seg_of.get(id(v))
            if p is not None:
                need = max(need, p if p % 2 == parity else p + 1)
        idx = need if need % 2 == parity else need + 1
        seg = by_index.setdefault(idx, Segment(kind))
        seg.nodes.append(node)
        if id(node) in host_calls:
            seg.host_calls.append(node)
        for o in node.outputs:
            seg_of[id(o)] = idx
    segments = [by_index[i] for i in sorted(by_index)]

    # boundary values: what each segment reads from outside and must hand on
    needed_later: set[int] = {id(v) for v in graph.outputs}
    for seg in reversed(segments):
        produced = {id(o) for n in seg.nodes for o in n.outputs}
        seg.outputs = _unique(o for n in seg.nodes for o in n.outputs if id(o) in needed_later)
        seg.inputs = _unique(v for n in seg.nodes for v in n.inputs
                             if id(v) not in produced and not isinstance(v, Constant))
        needed_later |= {id(v) for v in seg.inputs}
    return segments


def _unique(vs) -> list[Variable]:
    seen: set[int] = set()
    out = []
    for v in vs:
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out

"""Splitting a graph into device segments (ops with a lowering rule, one
StableHLO module each) and host segments (ops that only run on the host).

Each node gets the earliest segment its inputs allow: device segments have
even indices, host segments odd ones, so a node joins the segment of a
same-kind producer and starts a later one after an other-kind producer.
Segments are maximal under that rule and run in index order.

With ``$HLOGRAPH_SPLIT_NODES=N`` (off by default), calls cut a device segment
of more than ``SPLIT_MIN_NODES`` nodes into parts of about N nodes
(``split_large``), each its own executable, compiled in parallel: XLA's compile
time grows faster than the size of the module. Cuts go where the fewest values
cross, so parts hand each other little. It is off by default because each part
costs a dispatch per call: on a 10k-op sin/cos/add chain over float32[8], parts
of 1500 nodes took the first result from 2.0 to 1.6 s of CPU but each call
from 0.58 to 0.85 ms.

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

__all__ = ["Segment", "partition", "split_large", "split_size", "will_split", "DEVICE", "HOST",
           "SPLIT_MIN_NODES", "SPLIT_NODES", "SPLIT_ENV"]

#: device segments of more nodes than this are split into parts ...
SPLIT_MIN_NODES = 3000
#: ... of about this many nodes each, when ``SPLIT_ENV`` is ``on``
SPLIT_NODES = 1500
#: the part size (a positive number, or ``on``: ``SPLIT_NODES``); unset, ``off`` or 0: never split
SPLIT_ENV = "HLOGRAPH_SPLIT_NODES"


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
    #: (part number, number of parts) of a device segment split by size; None: whole
    part: tuple[int, int] | None = None


def partition(graph: Graph, platform: str | None = None, split: bool = False) -> list[Segment]:
    """The segments of ``graph`` on ``platform`` ("cpu", "gpu", ...; None: jax's default),
    in the order they run; ``split``: large device segments are cut into parts
    (``split_large``)."""
    node_kinds = []
    host_calls: set[int] = set()
    for node in graph.nodes:
        where = placement(node, platform).where  # raises for an op that cannot run anywhere
        if where == HOST_CALL:
            host_calls.add(id(node))
            where = DEVICE
        node_kinds.append(where)
    size = split_size() if split else None
    if HOST not in node_kinds and (size is None or len(graph.nodes) <= SPLIT_MIN_NODES):
        # the common case: one device segment
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
    if size is not None:
        segments = split_large(segments, graph, size)
    _set_boundaries(segments, graph)
    return segments


def will_split(graph: Graph) -> bool:
    """Whether ``partition(graph)`` cuts the graph's device nodes into parts."""
    return len(graph.nodes) > SPLIT_MIN_NODES and split_size() is not None


def split_size() -> int | None:
    """The part size large device segments are split to (``$HLOGRAPH_SPLIT_NODES``;
    ``on``: ``SPLIT_NODES``), or None when splitting is off (the default).

    Raises:
        ValueError: the variable is neither a positive number, 0 nor ``off``.
    """
    import os

    raw = os.environ.get(SPLIT_ENV, "").strip().lower()
    if raw in ("", "off", "0"):
        return None
    if raw == "on":
        return SPLIT_NODES
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 1:
        raise ValueError(f"{SPLIT_ENV}={os.environ[SPLIT_ENV]!r}: expected a positive number of nodes, on, off or 0")
    return value


def split_large(segments: list[Segment], graph: Graph, size: int,
                min_nodes: int | None = None) -> list[Segment]:
    """``segments`` with every device segment of more than ``min_nodes`` nodes cut
    into parts of about ``size`` nodes, in node order.

    Each cut lies within a quarter of ``size`` of its even position, where the
    fewest values computed before it are used after it (a chain: one), so the
    parts hand each other as little as possible. Boundaries are not set here.
    ``min_nodes``: default ``SPLIT_MIN_NODES``.
    """
    if min_nodes is None:
        min_nodes = SPLIT_MIN_NODES
    out: list[Segment] = []
    for seg in segments:
        n = len(seg.nodes)
        if seg.kind != DEVICE or n <= max(min_nodes, size):
            out.append(seg)
            continue
        cuts = _cuts(seg.nodes, graph, size)
        calls = {id(node) for node in seg.host_calls}
        bounds = list(zip([0, *cuts], [*cuts, n]))
        for k, (lo, hi) in enumerate(bounds):
            nodes = seg.nodes[lo:hi]
            out.append(Segment(DEVICE, nodes, host_calls=[x for x in nodes if id(x) in calls],
                               part=(k + 1, len(bounds))))
    return out


def _cuts(nodes: list[Apply], graph: Graph, size: int) -> list[int]:
    """Cut positions (a part ends before each) for ``nodes``, see ``split_large``."""
    n = len(nodes)
    where = {id(o): i for i, node in enumerate(nodes) for o in node.outputs}
    last = {}  # id(value) -> the last node position reading it; n: read after the segment
    for i, node in enumerate(nodes):
        for v in node.inputs:
            if id(v) in where:
                last[id(v)] = i
    for v in graph.outputs:
        if id(v) in where:
            last[id(v)] = n
    # live[i]: values made before position i and read at or after it
    delta = [0] * (n + 1)
    for key, made in where.items():
        end = last.get(key)
        if end is not None and end > made:
            delta[made + 1] += 1
            if end < n:
                delta[end + 1] -= 1
    live, running = [0] * (n + 1), 0
    for i in range(n + 1):
        running += delta[i]
        live[i] = running
    parts = -(-n // size)
    cuts: list[int] = []
    for k in range(1, parts):
        ideal = k * n // parts
        lo, hi = max(ideal - size // 4, (cuts[-1] if cuts else 0) + 1), min(ideal + size // 4, n - 1)
        if lo <= hi:
            cuts.append(min(range(lo, hi + 1), key=lambda i: (live[i], abs(i - ideal))))
    return cuts


def _set_boundaries(segments: list[Segment], graph: Graph) -> None:
    """Sets what each segment reads from outside and must hand on."""
    needed_later: set[int] = {id(v) for v in graph.outputs}
    for seg in reversed(segments):
        produced = {id(o) for n in seg.nodes for o in n.outputs}
        seg.outputs = _unique(o for n in seg.nodes for o in n.outputs if id(o) in needed_later)
        seg.inputs = _unique(v for n in seg.nodes for v in n.inputs
                             if id(v) not in produced and not isinstance(v, Constant))
        needed_later |= {id(v) for v in seg.inputs}


def _unique(vs) -> list[Variable]:
    seen: set[int] = set()
    out = []
    for v in vs:
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out

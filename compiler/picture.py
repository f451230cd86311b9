"""Pictures of graphs: ``to_dot`` (Graphviz DOT source, no dependency), and
SVG or a standalone HTML page rendered from it through Graphviz.

Each node is a box coloured by where it runs (``placement.placement``): in a
device module, as an in-module host call, in a host segment through Numba, or
through its Python ``perform``. The graphs a node runs inside itself
(``Op.inner_graphs``: ``ifelse`` branches, ``scan`` steps, ``while_loop``
conditions and bodies, composites) are drawn as clusters inside the node's own
cluster. A legend names the colours.

Rendering needs the ``graphviz`` Python package (``pip install
'hlograph[pictures]'``) and Graphviz's ``dot`` program (Debian and Ubuntu:
``apt-get install graphviz``; macOS: ``brew install graphviz``).
"""

from __future__ import annotations

import html
import itertools
from typing import Any

from ..frontend.graph import Apply, Constant, Graph, Variable
from ..frontend.ops.control import IfElse
from .placement import DEVICE, HOST, HOST_CALL, placement

__all__ = ["to_dot", "to_svg", "to_html", "CATEGORIES", "PictureError"]


class PictureError(RuntimeError):
    """A picture cannot be rendered here (Graphviz is missing or failed)."""


#: placement category -> (legend text, fill colour, border colour)
CATEGORIES: dict[str, tuple[str, str, str]] = {
    "device": ("device module (StableHLO)", "#cfe2ff", "#1f5fbf"),
    "host call": ("in-module host call (XLA FFI, Numba)", "#ffe0b3", "#c26a00"),
    "host": ("host segment (Numba)", "#d3f0d8", "#2e7d32"),
    "perform": ("Python fallback (perform)", "#f9d0d6", "#b0243a"),
}
_INPUT = ("#ffffff", "#555555")
_CONSTANT = ("#f2f2f2", "#999999")
_MAX_LABEL = 48


def category(node: Apply, platform: str | None = None) -> str:
    """The picture's category of ``node``: a key of ``CATEGORIES``."""
    p = placement(node, platform)
    if p.where == DEVICE:
        return "device"
    if p.where == HOST_CALL:
        return "host call"
    assert p.where == HOST
    return "host" if p.via == "Numba" else "perform"


def inner_graph_labels(op) -> list[tuple[str, Graph]]:
    """The graphs ``op`` runs inside itself, each with a name: the property
    holding it (``then``/``else`` for an ``IfElse``)."""
    graphs = list(op.inner_graphs)
    if isinstance(op, IfElse):
        return list(zip(("then", "else"), graphs))
    named: list[tuple[str, Graph]] = []
    for prop in getattr(op, "__props__", ()):
        value = getattr(op, prop, None)
        if isinstance(value, Graph):
            named.append((prop, value))
        elif isinstance(value, (tuple, list)) and value and all(isinstance(g, Graph) for g in value):
            named.extend((f"{prop}[{i}]", g) for i, g in enumerate(value))
    if len(named) == len(graphs) and all(a is b for (_, a), b in zip(named, graphs)):
        return named
    return [(f"graph {i}", g) for i, g in enumerate(graphs)]


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _short(text: str) -> str:
    return text if len(text) <= _MAX_LABEL else text[:_MAX_LABEL - 3] + "..."


def _op_text(op) -> str:
    if op.inner_graphs:
        return type(op).__name__
    return _short(str(op))


class _Writer:
    def __init__(self, platform: str | None):
        self.platform = platform
        self.lines: list[str] = []
        self.ids = itertools.count()
        self.used: set[str] = set()

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.ids)}"

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("  " * depth + line)

    def graph(self, graph: Graph, depth: int, scope: str, inherited: str | None) -> None:
        """Draws ``graph``'s inputs, nodes and outputs; ``inherited``: the category
        of every node when the graph runs inside a host op's ``perform``."""
        names: dict[int, str] = {}
        for i, v in enumerate(graph.inputs):
            vid = self.fresh("in")
            names[id(v)] = vid
            label = f"{v.name or f'input {i}'}\n{v.type}"
            self.emit(depth, f"{vid} [label={_quote(label)}, shape=ellipse, fillcolor={_quote(_INPUT[0])}, "
                             f"color={_quote(_INPUT[1])}];")
        for node in graph.nodes:
            nid = self.fresh("n")
            cat = inherited or category(node, self.platform)
            self.used.add(cat)
            types = ", ".join(str(o.type) for o in node.outputs)
            why = placement(node, self.platform).why if inherited is None else \
                f"{type(node.op).__name__}: evaluated by the enclosing op's perform"
            fill, border = CATEGORIES[cat][1], CATEGORIES[cat][2]
            attrs = (f"label={_quote(_op_text(node.op) + chr(10) + types)}, fillcolor={_quote(fill)}, "
                     f"color={_quote(border)}, tooltip={_quote(why)}, class={_quote('placement-' + cat.replace(' ', '-'))}")
            inner = inner_graph_labels(node.op)
            if inner:
                cid = self.fresh("cluster_")
                self.emit(depth, f"subgraph {cid} {{")
                self.emit(depth + 1, f"label={_quote(type(node.op).__name__)}; style=\"rounded,dashed\"; "
                                     f"color={_quote(border)};")
                self.emit(depth + 1, f"{nid} [{attrs}];")
                body_cat = None if cat == "device" else (inherited or "perform")
                for label, g in inner:
                    bid = self.fresh("cluster_")
                    self.emit(depth + 1, f"subgraph {bid} {{")
                    self.emit(depth + 2, f"label={_quote(label)}; style=\"rounded\"; color=\"#888888\";")
                    self.graph(g, depth + 2, bid, body_cat)
                    self.emit(depth + 1, "}")
                self.emit(depth, "}")
            else:
                self.emit(depth, f"{nid} [{attrs}];")
            for j, v in enumerate(node.inputs):
                src = self.source(v, names, depth)
                self.emit(depth, f"{src} -> {nid};")
            for o in node.outputs:
                names[id(o)] = nid
        for i, v in enumerate(graph.outputs):
            oid = self.fresh("out")
            src = self.source(v, names, depth)
            self.emit(depth, f"{oid} [label={_quote(f'output {i}')}, shape=plaintext, style=\"\"];")
            self.emit(depth, f"{src} -> {oid};")

    def source(self, v: Variable, names: dict[int, str], depth: int) -> str:
        if id(v) in names:
            return names[id(v)]
        assert isinstance(v, Constant), v
        cid = self.fresh("c")
        data = v.data
        text = repr(data.item()) if data.size == 1 else f"constant {v.type}"
        self.emit(depth, f"{cid} [label={_quote(_short(text))}, shape=box, fontsize=9, "
                         f"fillcolor={_quote(_CONSTANT[0])}, color={_quote(_CONSTANT[1])}];")
        return cid

    def legend(self) -> None:
        self.emit(1, "subgraph cluster_legend {")
        self.emit(2, 'label="placement"; style="rounded"; color="#888888"; fontsize=10;')
        prev = None
        for key, (text, fill, border) in CATEGORIES.items():
            lid = "legend_" + key.replace(" ", "_")
            self.emit(2, f"{lid} [label={_quote(text)}, fillcolor={_quote(fill)}, color={_quote(border)}, "
                         f"fontsize=10, class={_quote('legend placement-' + key.replace(' ', '-'))}];")
            if prev is not None:
                self.emit(2, f"{prev} -> {lid} [style=invis];")
            prev = lid
        self.emit(1, "}")


def _graph_and_platform(obj: Any, platform: str | None) -> tuple[Graph, str | None]:
    if isinstance(obj, Graph):
        return obj, platform
    graph = getattr(obj, "graph", None)
    if isinstance(graph, Graph):
        if platform is None and getattr(obj, "mesh", None) is None and hasattr(obj, "device"):
            platform = obj.device.platform
        return graph, platform
    raise TypeError(f"to_dot() takes a hlograph Graph or a compiled Function, got {type(obj).__name__}")


def to_dot(obj: Any, *, platform: str | None = None, title: str | None = None) -> str:
    """Graphviz DOT source drawing a Graph or a Function's graph, nodes coloured
    by where they run on ``platform`` (default: the Function's platform, or
    jax's default backend for a Graph), control-flow bodies as clusters, with a
    legend.

    Raises:
        TypeError: ``obj`` is neither a Graph nor a Function.
    """
    graph, platform = _graph_and_platform(obj, platform)
    w = _Writer(platform)
    w.emit(0, "digraph hlograph {")
    w.emit(1, "rankdir=TB; compound=true; fontname=\"Helvetica\";")
    if title:
        w.emit(1, f"label={_quote(title)}; labelloc=t;")
    w.emit(1, 'node [shape=box, style="filled,rounded", fontname="Helvetica", fontsize=11];')
    w.emit(1, 'edge [color="#555555", arrowsize=0.7];')
    w.graph(graph, 1, "g", None)
    w.legend()
    w.emit(0, "}")
    return "\n".join(w.lines) + "\n"


def render_svg(dot: str) -> str:
    """SVG from DOT source, through the ``graphviz`` package and the ``dot`` program.

    Raises:
        PictureError: the package or the program is missing, or ``dot`` failed.
    """
    try:
        import graphviz
    except ImportError:
        raise PictureError("drawing SVG needs the graphviz Python package: "
                           "pip install 'hlograph[pictures]' (and Graphviz's dot program; "
                           "format='dot' needs neither)") from None
    try:
        return graphviz.Source(dot).pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        raise PictureError("drawing SVG needs Graphviz's dot program on PATH: install Graphviz "
                           "(Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; "
                           "conda: conda install graphviz), or use format='dot'") from None
    except graphviz.CalledProcessError as e:
        raise PictureError(f"Graphviz's dot failed: {e.stderr or e}") from None


def to_svg(obj: Any, *, platform: str | None = None, title: str | None = None) -> str:
    """``to_dot`` rendered as SVG (see ``render_svg``)."""
    return render_svg(to_dot(obj, platform=platform, title=title))


def to_html(obj: Any, explanation: str, *, platform: str | None = None, title: str = "hlograph graph") -> str:
    """A standalone HTML page: ``title``, the picture (SVG) and ``explanation``
    (the text of ``Function.explain()``)."""
    svg = to_svg(obj, platform=platform)
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    return ("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)}</title>\n</head>\n<body>\n<h1>{html.escape(title)}</h1>\n"
            f"{svg}\n<pre>{html.escape(explanation)}</pre>\n</body>\n</html>\n")


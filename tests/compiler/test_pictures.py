"""Pictures of graphs: ``hg.to_dot``, ``Function.explain(format=...)`` and
``print(graph)`` with control-flow bodies."""

import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import hlograph as hg
from hlograph import Apply, Op
from hlograph.compiler import picture
from hlograph.compiler.picture import CATEGORIES, PictureError

SVG = "{http://www.w3.org/2000/svg}"


class HostTwice(Op):
    """A user op with only a perform: the Python fallback."""

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0] * 2]


def mixed_graph():
    """Device ops, an ifelse (on the device), a Numba host op with a
    value-dependent shape, and a perform-only op."""
    c = hg.tensor("c", (), "bool")
    x = hg.tensor("x", (5,), "float32")
    y = hg.ifelse(c, hg.exp(x), x * 3.0)
    m = hg.sum(hg.unique(y))
    z = HostTwice()(hg.cumsum(y) * m)
    return hg.Graph([c, x], z)


def fill_of(cat):
    return CATEGORIES[cat][1]


def test_dot_has_clusters_placement_colours_and_legend():
    dot = hg.to_dot(mixed_graph())
    assert dot.startswith("digraph hlograph {") and dot.rstrip().endswith("}")
    lines = [line.strip() for line in dot.splitlines()]
    assert sum(line.startswith("subgraph cluster_") for line in lines) + 1 == lines.count("}")
    # the ifelse with its two branches as clusters inside its own
    assert re.search(r'subgraph cluster_\d+ \{\n\s+label="IfElse"', dot)
    assert re.search(r'label="then"', dot) and re.search(r'label="else"', dot)
    nodes = dict(re.findall(r'(n\d+) \[label="([^"\\]*)', dot))
    by_name = {label: nid for nid, label in nodes.items()}
    colour = {nid: re.search(rf'{nid} \[[^\n]*fillcolor="([^"]+)"', dot).group(1) for nid in nodes}
    assert colour[by_name["Exp"]] == fill_of("device")        # in the then branch, on the device
    assert colour[by_name["IfElse"]] == fill_of("device")
    unique = next(nid for label, nid in by_name.items() if label.startswith("Unique"))
    assert colour[unique] == fill_of("host")
    assert colour[by_name["HostTwice"]] == fill_of("perform")
    # a legend naming every category
    assert "cluster_legend" in dot
    for text, fill, _ in CATEGORIES.values():
        assert f'label="{text}", fillcolor="{fill}"' in dot
    # edges: inputs feed the ifelse
    assert re.search(r"in0 -> " + by_name["IfElse"], dot)


def test_dot_of_a_function_shows_in_module_host_calls():
    x = hg.tensor("x", (6,), "float64")
    y = hg.tensor("y", (3,), "float64")
    g = hg.Graph([x, y], hg.where(hg.isin(x, y), x, 0.0) * 2)
    fn = hg.compile(g, platform="cpu")
    dot = hg.to_dot(fn)
    nid = re.search(r'(n\d+) \[label="IsIn', dot).group(1)
    assert re.search(rf'{nid} \[[^\n]*fillcolor="{fill_of("host call")}"', dot)
    assert re.search(rf'{nid} \[[^\n]*class="placement-host-call"', dot)
    assert 'tooltip="IsIn: ' in dot and "in-module FFI call" in dot
    assert fn.explain(format="dot") == dot
    xs = np.arange(6.0)
    np.testing.assert_array_equal(fn(xs, np.array([1.0, 4.0, 9.0])), np.where(np.isin(xs, [1, 4, 9]), xs, 0) * 2)


def test_host_control_flow_bodies_run_in_its_perform():
    c = hg.tensor("c", (), "bool")
    x = hg.tensor("x", (4,), "float32")
    g = hg.Graph([c, x], hg.ifelse(c, HostTwice()(x), x + 1.0))
    dot = hg.to_dot(g)
    for label in ("IfElse", "HostTwice", "Add"):
        nid = re.search(rf'(n\d+) \[label="{label}\\n', dot).group(1)
        assert re.search(rf'{nid} \[[^\n]*fillcolor="{fill_of("perform")}"', dot), label


def test_scan_and_while_loop_bodies_are_clusters():
    x = hg.tensor("x", (3, 2), "float32")
    s = hg.scan(lambda row, acc: acc + row, sequences=x, outputs_info=hg.zeros((2,), "float32"))
    n = hg.tensor("n", (), "int32")
    w = hg.while_loop(lambda i: i < 10, lambda i: i + n, n)
    dot = hg.to_dot(hg.Graph([x, n], [s, w]))
    assert re.search(r'label="Scan"; style="rounded,dashed"', dot)
    assert re.search(r'label="WhileLoop"; style="rounded,dashed"', dot)
    for body in ("step", "cond", "body"):
        assert f'label="{body}"; style="rounded"' in dot


def test_to_dot_rejects_other_objects():
    with pytest.raises(TypeError, match="to_dot\\(\\) takes a hlograph Graph"):
        hg.to_dot("x + 1")


def test_explain_rejects_unknown_format():
    fn = hg.compile(mixed_graph())
    with pytest.raises(ValueError, match="explain\\(format=...\\) takes 'text', 'dot', 'svg' or 'html', got 'png'"):
        fn.explain(format="png")
    assert fn.explain() == fn.explain(format="text")
    assert fn.explain().startswith("4 segments\nsegment 0: device")


def test_print_graph_shows_bodies_indented():
    text = str(mixed_graph())
    lines = text.splitlines()
    at = next(i for i, l in enumerate(lines) if "= IfElse{n_outs=1}(c, x)" in l)
    assert lines[at].startswith("  %")
    assert lines[at + 1] == "    then(x: float32[5]) {"
    assert re.fullmatch(r"      %\d+ = Exp\(x\) : float32\[5\]", lines[at + 2])
    assert re.fullmatch(r"      return %\d+", lines[at + 3])
    assert lines[at + 4] == "    }"
    assert lines[at + 5] == "    else(x: float32[5]) {"
    assert lines[-1] == "}" and lines[-2].startswith("  return ")


def test_print_graph_shows_scan_and_while_bodies():
    n = hg.tensor("n", (), "int32")
    w = hg.while_loop(lambda i: i < 10, lambda i: i * 2, n)
    text = str(hg.Graph([n], w))
    assert re.search(r"\n    cond\(\S+: int32\[\]\) \{\n      %\d+ = Less\(", text), text
    assert re.search(r"\n    body\(\S+: int32\[\]\) \{\n      %\d+ = Multiply\(", text), text
    # a graph without control flow prints as before: one line per node
    x = hg.tensor("x", (2,), "float32")
    assert str(hg.Graph([x], hg.exp(x))).splitlines() == [
        "Graph(x: float32[2]) {", "  %0 = Exp(x) : float32[2]", "  return %0", "}"]


needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")


@needs_dot
def test_svg_has_clusters_and_placement_colours():
    pytest.importorskip("graphviz")
    fn = hg.compile(mixed_graph())
    svg = fn.explain(format="svg")
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    groups = root.iter(SVG + "g")
    clusters = [g for g in groups if g.get("class") == "cluster"]
    titles = {"".join(t.text or "" for t in g.iter(SVG + "text")) for g in clusters}
    assert any(t.startswith("IfElse") for t in titles)
    assert "then" in titles and "else" in titles and "placement" in " ".join(titles)
    fills = {p.get("fill") for p in root.iter(SVG + "path")} | {p.get("fill") for p in root.iter(SVG + "polygon")}
    for cat in ("device", "host", "perform", "host call"):
        assert fill_of(cat) in fills, cat        # nodes and the legend
    texts = {t.text for t in root.iter(SVG + "text")}
    assert "HostTwice" in texts and "Exp" in texts


@needs_dot
def test_html_page_holds_the_picture_and_the_explanation():
    pytest.importorskip("graphviz")
    fn = hg.compile(mixed_graph())
    page = fn.explain(format="html")
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<svg") == 1
    assert "segment 0: device" in page
    svg = page[page.index("<svg"):page.index("</svg>") + len("</svg>")]
    ET.fromstring(svg)


def test_missing_dot_program_is_a_clear_error(monkeypatch):
    graphviz = pytest.importorskip("graphviz")

    def missing(*args, **kwargs):
        raise graphviz.ExecutableNotFound(("dot",))

    monkeypatch.setattr(graphviz.Source, "pipe", missing)
    fn = hg.compile(mixed_graph())
    with pytest.raises(PictureError, match="needs Graphviz's dot program.*apt-get install graphviz"):
        fn.explain(format="svg")
    with pytest.raises(PictureError, match="format='dot'"):
        fn.explain(format="html")
    assert fn.explain(format="dot").startswith("digraph")


def test_missing_graphviz_package_is_a_clear_error(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(PictureError, match=r"pip install 'hlograph\[pictures\]'"):
        picture.to_svg(mixed_graph())

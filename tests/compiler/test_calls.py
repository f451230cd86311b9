"""Calling conventions: arguments by input name, and graphs with pytree inputs and outputs."""

from __future__ import annotations

import collections
import dataclasses

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.pytree import tree_flatten, tree_unflatten

import os
import subprocess
import sys

F32 = np.float32


def _xw():
    x = hg.tensor("x", (3,), "float32")
    w = hg.tensor("w", (3,), "float32")
    return x, w


def _arr(*values):
    return np.asarray(values, dtype=F32)


# --- keyword arguments (flat graphs) -------------------------------------------

@pytest.mark.parametrize("pipeline", ["O0", "O2"])
def test_keyword_arguments_match_positional(pipeline):
    x, w = _xw()
    f = hg.compile(hg.Graph([x, w], x - 2 * w), pipeline=pipeline)
    a, b = _arr(1, 2, 3), _arr(4, 5, 6)
    want = a - 2 * b
    np.testing.assert_array_equal(f(a, b), want)
    np.testing.assert_array_equal(f(a, w=b), want)
    np.testing.assert_array_equal(f(w=b, x=a), want)
    out = f(x=a, w=b, output="device")
    assert not isinstance(out, np.ndarray)
    np.testing.assert_array_equal(np.asarray(out), want)
    # the same Compiled serves both spellings
    assert len(f._cache) == 1


def test_keyword_errors_are_python_like():
    x, w = _xw()
    f = hg.compile(hg.Graph([x, w], x + w))
    a = _arr(1, 2, 3)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        f(a, x=a)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'z'.*\(x, w\)"):
        f(a, z=a)
    with pytest.raises(TypeError, match="missing 1 argument: 'w'"):
        f(x=a)
    with pytest.raises(ValueError, match="output must be"):
        f(x=a, w=a, output="gpu")


def test_keyword_ambiguous_and_unnamed_inputs():
    a1 = hg.tensor("a", (), "float32")
    a2 = hg.tensor("a", (), "float32")
    f = hg.compile(hg.Graph([a1, a2], a1 - a2))
    assert f(F32(3), F32(1)) == 2
    with pytest.raises(TypeError, match="ambiguous"):
        f(F32(3), a=F32(1))
    u = hg.tensor(None, (), "float32")
    g = hg.compile(hg.Graph([u], u * 2))
    with pytest.raises(TypeError, match="unexpected keyword argument 'u'"):
        g(u=F32(1))


def test_keyword_calls_of_compiled_and_evaluate():
    x, w = _xw()
    g = hg.Graph([x, w], x * w)
    a, b = _arr(1, 2, 3), _arr(2, 2, 2)
    c = hg.compile(g).lower(a, b).compile()
    np.testing.assert_array_equal(c(w=b, x=a), a * b)
    np.testing.assert_array_equal(hg.evaluate(g, w=b, x=a), a * b)


def test_keyword_calls_with_host_segments():
    x = hg.tensor("x", (6,), "float32")
    t = hg.tensor("t", (), "float32")
    g = hg.Graph([x, t], hg.nonzero(x > t)[0])
    f = hg.compile(g)
    a = _arr(0, 3, 1, 5, 0, 2)
    np.testing.assert_array_equal(f(t=F32(1), x=a), np.nonzero(a > 1)[0])


def test_keyword_calls_python_dispatch():
    # the Python dispatcher (HLOGRAPH_PURE_PYTHON_DISPATCH=1) takes keywords as the C one does
    code = """
import numpy as np, hlograph as hg
from hlograph.runtime.dispatch import IMPLEMENTATION
assert IMPLEMENTATION == "python", IMPLEMENTATION
x = hg.tensor("x", (2,), "float32"); w = hg.tensor("w", (2,), "float32")
f = hg.compile(hg.Graph([x, w], x - w))
a = np.array([1, 2], np.float32); b = np.array([5, 7], np.float32)
assert (f(w=b, x=a) == a - b).all()
try:
    f(a, x=a)
except TypeError as e:
    assert "multiple values" in str(e)
else:
    raise AssertionError("no error")
print("ok")
"""
    env = dict(os.environ, HLOGRAPH_PURE_PYTHON_DISPATCH="1")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")


# --- pytrees -------------------------------------------------------------------

Pair = collections.namedtuple("Pair", "first second")


@hg.register_dataclass
@dataclasses.dataclass
class Params:
    w: object
    b: object


def _structured():
    x = hg.tensor("x", (3,), "float32")
    w = hg.tensor("w", (3,), "float32")
    b = hg.tensor("b", (), "float32")
    outputs = {"y": x * w + b, "aux": (hg.sum(x), [w - b]), "none": None}
    return hg.Graph({"x": x, "params": {"w": w, "b": b}}, outputs)


def _expected(a, p):
    return {"y": a * p["w"] + p["b"], "aux": (np.sum(a), [p["w"] - p["b"]]), "none": None}


def _assert_tree_equal(got, want):
    g_leaves, g_tree = tree_flatten(got)
    w_leaves, w_tree = tree_flatten(want)
    assert g_tree == w_tree, (g_tree, w_tree)
    for g, w in zip(g_leaves, w_leaves):
        np.testing.assert_allclose(g, w, rtol=1e-6)
        assert np.asarray(g).dtype == np.asarray(w).dtype


@pytest.mark.parametrize("pipeline", ["O0", "O2"])
def test_pytree_inputs_and_outputs(pipeline):
    g = _structured()
    f = hg.compile(g, pipeline=pipeline)
    a = _arr(1, 2, 3)
    p = {"w": _arr(2, 3, 4), "b": F32(0.5)}
    want = _expected(a, p)
    _assert_tree_equal(f(a, p), want)
    _assert_tree_equal(f(params=p, x=a), want)
    _assert_tree_equal(hg.evaluate(g, a, p), want)
    _assert_tree_equal(hg.evaluate(g, x=a, params=p), want)
    # lower/compile take the same structure
    c = f.lower(a, params=p).compile()
    _assert_tree_equal(c(a, p), want)
    dev = f(a, p, output="device")
    assert set(dev) == {"y", "aux", "none"} and not isinstance(dev["y"], np.ndarray)


def test_pytree_flattening_order_is_documented_order():
    # dict leaves in sorted key order, whatever the insertion order
    g = _structured()
    assert [v.name for v in g.inputs] == ["x", "b", "w"]
    assert g.parameters.leaf_labels() == ["argument 0 ('x')", "argument 1 ('params')['b']",
                                          "argument 1 ('params')['w']"]


def test_pytree_errors_name_the_leaf():
    f = hg.compile(_structured())
    a = _arr(1, 2, 3)
    with pytest.raises(TypeError, match=r"argument 1 \('params'\): expected a dict with keys \['b', 'w'\]"):
        f(a, {"w": a})
    with pytest.raises(ValueError, match=r"argument 1 \('params'\)\['w'\]: expected shape"):
        f(a, {"w": _arr(1, 2), "b": F32(0)})
    with pytest.raises(TypeError, match=r"argument 1 \('params'\)\['b'\]: expected dtype float32"):
        f(a, {"w": a, "b": np.int8(1)})
    with pytest.raises(TypeError, match=r"argument 1 \('params'\)\['b'\]"):
        hg.evaluate(_structured(), a, {"w": a, "b": np.int8(1)})
    with pytest.raises(TypeError, match=r"argument 1 \('params'\): expected a dict .*got a list of 2"):
        f(a, [a, a])


def test_namedtuple_dataclass_and_list_inputs():
    x = hg.tensor("x", (2,), "float64")
    y = hg.tensor("y", (2,), "float64")
    w = hg.tensor("w", (2,), "float64")
    b = hg.tensor("b", (), "float64")
    g = hg.Graph([Pair(x, y), Params(w, b)], Pair(first=x * w + b, second=[y, x + y]))
    f = hg.compile(g)
    a, c = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    p = Params(np.array([2.0, 2.0]), np.float64(1.0))
    out = f(Pair(a, c), p)
    assert isinstance(out, Pair) and isinstance(out.second, list)
    np.testing.assert_array_equal(out.first, a * 2 + 1)
    np.testing.assert_array_equal(out.second[1], a + c)
    with pytest.raises(TypeError, match=r"argument 1: expected a Params, got a tuple of 2"):
        f(Pair(a, c), (a, a))
    with pytest.raises(TypeError, match=r"argument 0: expected a Pair"):
        f((a, c), p)


def test_flat_graphs_keep_flat_calls():
    x, w = _xw()
    g = hg.Graph([x, w], [x + w, x * w])
    assert g.is_flat and g.input_tree is None and g.output_tree is None
    f = hg.compile(g)
    assert type(f) is hg.compiler.api.Function
    out = f(_arr(1, 2, 3), _arr(1, 1, 1))
    assert isinstance(out, tuple) and len(out) == 2


def test_graph_rejects_non_variable_leaves():
    x = hg.tensor("x", (), "float32")
    with pytest.raises(hg.GraphError, match=r"graph output \['y'\] is not a Variable"):
        hg.Graph([x], {"y": 3.0})
    with pytest.raises(hg.GraphError, match=r"graph input 'p'\['w'\] is not a Variable"):
        hg.Graph({"p": {"w": 1.0}}, x)
    with pytest.raises(hg.GraphError, match="identifier keys"):
        hg.Graph({"not a name": x}, x)


def test_structure_survives_specialisation():
    x = hg.tensor("x", (None,), "float32")
    g = hg.Graph({"x": x}, {"s": hg.sum(x), "d": x * 2})
    f = hg.compile(g)
    for n in (1, 4):
        a = np.arange(n, dtype=F32)
        out = f(x=a)
        assert set(out) == {"s", "d"}
        np.testing.assert_array_equal(out["d"], a * 2)


def test_tree_roundtrip_and_registration():
    tree = {"b": [1, (2, None)], "a": Pair(3, Params(4, 5))}
    leaves, treedef = tree_flatten(tree)
    assert leaves == [3, 4, 5, 1, 2]
    assert tree_unflatten(treedef, leaves) == tree
    assert treedef.paths() == ["['a'].first", "['a'].second.w", "['a'].second.b", "['b'][0]", "['b'][1][0]"]
    with pytest.raises(ValueError, match="already"):
        hg.register_pytree_node(dict, lambda d: ([], None), lambda a, c: {})
    with pytest.raises(TypeError, match="dataclass"):
        hg.register_dataclass(int)


def test_value_and_grad_style_usage():
    # a parameter dict in, loss and gradients out in the same structure
    x = hg.tensor("x", (4,), "float64")
    params = {"w": hg.tensor("w", (4,), "float64"), "b": hg.tensor("b", (), "float64")}
    loss = hg.sum((x * params["w"] + params["b"]) ** 2)
    grads = dict(zip(params, hg.grad(loss, list(params.values()))))
    f = hg.compile(hg.Graph({"params": params, "x": x}, (loss, grads)))
    a = np.linspace(-1, 1, 4)
    p = {"w": np.arange(4.0), "b": np.float64(0.5)}
    val, g = f(p, a)
    r = a * p["w"] + p["b"]
    np.testing.assert_allclose(val, np.sum(r ** 2))
    np.testing.assert_allclose(g["w"], 2 * r * a)
    np.testing.assert_allclose(g["b"], 2 * r.sum())

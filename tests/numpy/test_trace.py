"""Plain NumPy functions as graphs: ``hg.trace_numpy`` (frontend/numpy/trace.py) and the
``hg.function`` decorator (compiler/trace.py), against the same function run by NumPy."""

import collections
import dataclasses

import numpy as np
import pytest

import hlograph as hg
from hlograph.tests.helpers import assert_same


def mlp(x, w, b):
    h = np.maximum(x @ w + b, 0)
    return np.sum(h ** 2, axis=-1), np.mean(np.tanh(h), axis=0, keepdims=True)


def standardize(x):
    mu = np.mean(x, axis=0)
    sd = np.std(x, axis=0, ddof=1)
    return np.where(sd > 0, (x - mu) / np.where(sd > 0, sd, 1), 0.0)


@dataclasses.dataclass
class Struct:  # a jax.ShapeDtypeStruct-like spec
    shape: tuple
    dtype: object


def test_trace_numpy_spec_kinds(rng):
    x = rng.normal(size=(5, 3)).astype(np.float32)
    w = rng.normal(size=(3, 4)).astype(np.float32)
    b = rng.normal(size=(4,)).astype(np.float32)
    specs = [
        (hg.TensorType("float32", (5, 3)), ((3, 4), "float32"), b),
        (x, Struct((3, 4), np.float32), Struct((4,), np.dtype("float32"))),
        (((None, 3), np.float32), w, ((4,), "float32")),
    ]
    expected = mlp(x, w, b)
    for spec in specs:
        g = hg.trace_numpy(mlp, *spec)
        assert [v.name for v in g.inputs] == ["x", "w", "b"]
        assert len(g.outputs) == 2
        for got in (hg.evaluate(g, x, w, b), hg.compile(g)(x, w, b)):
            for gv, ev in zip(got, expected):
                assert_same(np.asarray(gv), ev, rtol=1e-5, atol=1e-6, what="mlp")


@pytest.mark.parametrize("shape", [(6, 3), (2, 1), (0, 2)])
def test_trace_numpy_one_output_and_shapes(shape, rng):
    a = rng.normal(size=shape)
    g = hg.trace_numpy(standardize, a)
    assert g.single_output
    with np.errstate(all="ignore"):
        expected = standardize(a)
    assert_same(hg.evaluate(g, a), expected, what="perform")
    assert_same(hg.compile(g)(a), expected, what="compiled")


def test_trace_numpy_constant_outputs_and_zero_d():
    g = hg.trace_numpy(lambda s: (s * 2, np.float32(1.5), np.arange(3)), ((), "float64"))
    out = hg.compile(g)(np.float64(4.0))
    assert float(out[0]) == 8.0 and float(out[1]) == 1.5 and list(out[2]) == [0, 1, 2]


def test_trace_numpy_errors_name_the_problem():
    def branches(x):
        if np.sum(x) > 0:
            return x
        return -x

    with pytest.raises(TypeError, match=r"no truth value(.|\n)*while tracing .*branches"):
        hg.trace_numpy(branches, ((3,), "float32"))
    with pytest.raises(TypeError, match="chained comparison"):
        hg.trace_numpy(lambda a, b: 0 < a < b, ((3,), "float32"), ((3,), "float32"))
    with pytest.raises(TypeError, match=r"int\(\) of a graph Variable"):
        hg.trace_numpy(lambda n: np.zeros(int(n)), ((), "int64"))
    with pytest.raises(TypeError, match="Python index"):
        hg.trace_numpy(lambda i: [1.0, 2.0, 3.0][i], ((), "int64"))
    with pytest.raises(TypeError, match=r"np.r_\[...\] / np.c_\[...\] .*np.concatenate"):
        hg.trace_numpy(lambda x: np.r_[x, 0.0], ((3,), "float32"))
    with pytest.raises(TypeError, match=r"np.vectorize \(no graph implementation\) converts"):
        hg.trace_numpy(lambda x: np.vectorize(lambda t: t + 1)(x), ((3,), "float32"))
    with pytest.raises(TypeError, match=r"NumPy array indexed by a graph value .*hg.asarray\(arr\)\[x\]"):
        hg.trace_numpy(lambda labels: np.eye(4)[labels], ((3,), "int64"))  # one-hot from a constant
    with pytest.raises(TypeError, match=r"np.sum was given graph values .*inside a list"):
        hg.trace_numpy(lambda x: np.sum([x, x], axis=0), ((3,), "float32"))

    def store(x):
        out = np.zeros(3)
        out[:] = x
        return out

    with pytest.raises(TypeError, match=r"assigning into a NumPy array .*arr = hg.at\(arr\)\[idx\].set\(x\)"):
        hg.trace_numpy(store, ((3,), "float32"))
    g = hg.trace_numpy(lambda labels: hg.asarray(np.eye(4))[labels], ((3,), "int64"))  # the way out
    assert_same(hg.compile(g)(np.array([3, 0, 1])), np.eye(4)[[3, 0, 1]], what="one-hot")
    g = hg.trace_numpy(lambda x: np.stack([x.sum(), x.max()]), ((3,), "float32"))  # the way out
    assert g.outputs[0].type == hg.TensorType("float32", (2,))
    with pytest.raises(TypeError, match="returns graph values"):
        hg.trace_numpy(lambda x: {"y": x, "name": "y"}, ((3,), "float32"))
    with pytest.raises(TypeError, match="spec 'x' must be"):
        hg.trace_numpy(lambda x: x, "float32")
    with pytest.raises(TypeError, match="takes a function"):
        hg.trace_numpy(3, ((3,), "float32"))


def test_trace_numpy_item_assignment_names_the_functional_update(rng):
    def clip_negative(x):
        y = x.copy()
        y[y < 0] = 0  # the mask's __index__ must not take the blame
        return y

    def bump_column(x):
        x[:, 1] += 1.0
        return x

    for f in (clip_negative, bump_column, lambda x: x.__setitem__(0, 1.0)):
        with pytest.raises(TypeError, match=r"x\[idx\] = v .*immutable.*x = x.at\[idx\].set\(v\).*np.where"):
            hg.trace_numpy(f, ((4, 3), "float64"))
    x = rng.normal(size=(4, 3))
    g = hg.trace_numpy(lambda x: (np.where(x < 0, 0, x), x.at[:, 1].add(1.0)), x)  # the ways out
    expected = np.where(x < 0, 0, x), x + np.array([0.0, 1.0, 0.0])
    for got, want in zip(hg.compile(g)(x), expected):
        assert_same(got, want, what="functional updates")


def test_function_compiles_per_signature(rng):
    calls = []

    @hg.function
    def f(x, y):
        calls.append(1)
        return np.exp(x) @ y + np.linalg.norm(y)

    for shape in [(2, 3), (4, 3), (2, 3)]:
        x = rng.normal(size=shape).astype(np.float32)
        y = rng.normal(size=(3, 2)).astype(np.float32)
        assert_same(np.asarray(f(x, y)), np.exp(x) @ y + np.linalg.norm(y), rtol=1e-5, atol=1e-5, what="f")
    assert len(calls) == 2  # traced once per signature: (2, 3) again reuses it
    assert f.__name__ == "f" and "2 signature" in repr(f)
    x64 = rng.normal(size=(2, 3))
    assert f(x64, np.ones((3, 2))).dtype == np.float64 and len(calls) == 3
    assert "stablehlo" in f.lower(x64, np.ones((3, 2))).as_text()


def test_function_with_options_and_errors(rng):
    g = hg.function(lambda a: np.cumsum(a[::-1], axis=0, dtype=np.int64), pipeline="O1")
    a = rng.integers(-5, 5, size=(4,)).astype(np.int8)
    assert_same(g(a), np.cumsum(a[::-1], axis=0, dtype=np.int64), what="cumsum")
    deco = hg.function(pipeline="O0")(lambda a: np.sort(a)[-1])
    assert float(deco(np.array([3.0, 1.0, 2.0]))) == 3.0
    assert_same(g(a=a), np.cumsum(a[::-1], axis=0, dtype=np.int64), what="cumsum by keyword")
    with pytest.raises(TypeError, match="not an array"):
        g(object())
    with pytest.raises(TypeError, match="takes a function"):
        hg.function(3)
    bad = hg.function(lambda x: x if x > 0 else -x)
    with pytest.raises(TypeError, match="no truth value"):
        bad(np.ones(3))


# --- pytrees and keywords ------------------------------------------------------------------
Pair = collections.namedtuple("Pair", ["w", "b"])


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: np.ndarray


hg.register_dataclass(Layer)


def _model(x, params, *, scale=2.0):
    h = np.tanh(x @ params["layers"][0].w + params["layers"][0].b)
    out = h @ params["layers"][1].w + params["layers"][1].b
    return {"y": out * scale, "aux": (np.sum(h, axis=-1), [np.max(out)])}


def _params(rng, dtype, container):
    return {"layers": [container(rng.normal(size=(3, 4)).astype(dtype), rng.normal(size=(4,)).astype(dtype)),
                       container(rng.normal(size=(4, 2)).astype(dtype), rng.normal(size=(2,)).astype(dtype))]}


def _check_tree(got, want, what):
    got_leaves, got_def = _flatten(got)
    want_leaves, want_def = _flatten(want)
    assert got_def == want_def, (got_def, want_def)
    for g, w in zip(got_leaves, want_leaves):
        assert_same(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5, what=what)


def _flatten(tree):
    from hlograph.frontend.pytree import tree_flatten
    return tree_flatten(tree, lambda v: isinstance(v, (np.ndarray, np.generic)))


@pytest.mark.parametrize("container", [Pair, Layer], ids=["namedtuple", "dataclass"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trace_numpy_pytrees_and_keywords(container, dtype, rng):
    x = rng.normal(size=(5, 3)).astype(dtype)
    params = _params(rng, dtype, container)
    want = _model(x, params, scale=0.5)
    spec_params = {"layers": [container(*(((v.shape), v.dtype.name) for v in (l.w, l.b)))
                              for l in params["layers"]]}
    scale = np.asarray(0.5, dtype)
    g = hg.trace_numpy(_model, x, params=spec_params, scale=((), dtype))
    assert g.parameters.names == ("x", "params", "scale") and len(g.inputs) == 6
    _check_tree(hg.evaluate(g, x, params, scale), want, "evaluate")
    fn = hg.compile(g)
    _check_tree(fn(x, params=params, scale=scale), want, "compile by keyword")
    _check_tree(fn(x, params, scale), want, "compile by position")
    # a parameter left out keeps its Python default
    g = hg.trace_numpy(_model, x, spec_params)
    assert g.parameters.names == ("x", "params")
    _check_tree(hg.compile(g)(x, params), _model(x, params), "default scale")


def test_trace_numpy_var_arguments_and_flat_graphs(rng):
    def f(a, *rest, **named):
        return a + sum(rest) - named["z"] * named["k"]

    a, b, c, z, k = (rng.normal(size=(4,)) for _ in range(5))
    g = hg.trace_numpy(f, a, b, c, k=k, z=z)
    assert g.parameters.names == ("a", "rest", "k", "z")
    np.testing.assert_allclose(hg.compile(g)(a, (b, c), k, z), f(a, b, c, z=z, k=k), rtol=1e-12)
    # flat specs and a flat result keep the flat graph: inputs named by the parameters
    g = hg.trace_numpy(lambda x, y: (x + y, x * y), ((2,), "int32"), y=((2,), "int32"))
    assert g.is_flat and [v.name for v in g.inputs] == ["x", "y"]
    with pytest.raises(TypeError, match="do not match"):
        hg.trace_numpy(lambda x: x, ((2,), "int32"), w=((2,), "int32"))
    with pytest.raises(TypeError, match=r"spec 'p'\['w'\] must be"):
        hg.trace_numpy(lambda p: p["w"], {"w": "float32"})
    with pytest.raises(TypeError, match="returns graph values"):
        hg.trace_numpy(lambda x: (x, "label"), ((2,), "int32"))


@pytest.mark.parametrize("shape", [(), (0,), (3,)])
def test_function_takes_pytrees_and_keywords(shape, rng):
    calls = []

    @hg.function
    def f(x, state, scale=1.0):
        calls.append(1)
        return {"out": x * state["w"] + state["b"][0], "count": (np.sum(x) * scale,)}

    x = rng.normal(size=shape).astype(np.float32)
    state = {"w": rng.normal(size=shape).astype(np.float32), "b": [np.float32(1.5)]}
    want = {"out": x * state["w"] + state["b"][0], "count": (np.sum(x) * 3.0,)}
    _check_tree(f(x, state=state, scale=np.float32(3.0)), want, "by keyword")
    _check_tree(f(x, state, np.float32(3.0)), want, "by position")
    n = len(calls)
    _check_tree(f(x, state=state, scale=np.float32(3.0)), want, "cached")
    assert len(calls) == n  # the same structure, shapes and dtypes reuse the compiled graph
    f(x, {"w": state["w"], "b": [np.float64(1.5)]})  # another leaf dtype: traced again
    assert len(calls) == n + 1
    with pytest.raises(TypeError, match=r"argument \[1\]\['b'\]\[0\]: str is not an array"):
        f(x, {"w": state["w"], "b": ["text"]})


def test_asarray_and_array_of_graph_values_while_tracing():
    # the common first line of NumPy functions, x = np.asarray(x), and np.array of values
    def f(x, w):
        x = np.asarray(x)
        w = np.asarray(w, dtype=np.float64)
        both = np.array([x.sum(), w.sum()])
        c = np.ascontiguousarray(x.T)
        k = np.asarray([1.0, 2.0])  # NumPy data stays NumPy's
        return both, (c @ w[:3, :2]) * k, np.array(x, ndmin=3)

    x = np.random.default_rng(0).random((3, 4))
    w = np.random.default_rng(1).random((4, 3)).astype(np.float32)
    g = hg.trace_numpy(f, x, w)
    for got, want in zip(hg.compile(g)(x, w), f(x, w)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_numpys_conversions_are_restored_after_tracing():
    originals = [np.asarray, np.array, np.asanyarray, np.ascontiguousarray, np.asfortranarray]

    def bad(x):
        np.asarray(x)
        return int(x)  # a value needed: the trace fails

    with pytest.raises(TypeError, match="int"):
        hg.trace_numpy(bad, ((2,), "float32"))
    hg.trace_numpy(lambda x: np.asarray(x) * 2, ((2,), "float32"))
    assert [np.asarray, np.array, np.asanyarray, np.ascontiguousarray, np.asfortranarray] == originals
    x = hg.tensor("x", (2,), "float32")
    with pytest.raises(TypeError, match="np.asarray"):  # outside a trace: no value to give
        np.asarray(x)
